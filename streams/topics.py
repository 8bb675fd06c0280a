"""Topic specs, declared explicitly before anything publishes: a broker that auto-creates topics would
otherwise create the interactions topic with its own default partition count on the first publish."""
from __future__ import annotations

import logging

from streams.config import Settings

log = logging.getLogger("rapport.topics")


def topic_specs(s: Settings) -> dict[str, tuple[int, dict[str, str]]]:
    """name -> (partitions, configs). Retention is bounded (RAPPORT_TOPIC_RETENTION_MS/_BYTES): the
    ledger in PostgreSQL is the record, and the relay re-publishes from it whatever the projections
    have not applied (`rapport replay --from ledger` rebuilds from it; `--from log` reads what the
    topic still holds). Dead letters are kept a week for inspection."""
    bounded = {"retention.ms": str(s.topic_retention_ms), "retention.bytes": str(s.topic_retention_bytes)}
    return {
        s.interactions_topic: (s.partitions, bounded),
        s.memory_events_topic: (s.partitions, bounded),
        s.triggers_topic: (s.partitions, bounded),
        s.dead_letter_topic: (1, {"retention.ms": str(7 * 24 * 3600 * 1000),
                                  "retention.bytes": str(s.topic_retention_bytes)}),
    }


async def ensure_topics(s: Settings) -> dict[str, int]:
    """Create missing topics; return each topic's partition count (warn when it differs from the spec)."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic
    from aiokafka.errors import TopicAlreadyExistsError

    admin = AIOKafkaAdminClient(bootstrap_servers=s.kafka_bootstrap)
    await admin.start()
    try:
        specs = topic_specs(s)
        existing = set(await admin.list_topics())
        new = [NewTopic(name, n, 1, topic_configs=cfg) for name, (n, cfg) in specs.items() if name not in existing]
        if new:
            try:
                await admin.create_topics(new)
            except TopicAlreadyExistsError:  # a concurrent creator won
                pass
        described = await admin.describe_topics(list(specs))
        counts = {d["topic"]: len(d["partitions"]) for d in described}
        for name, (n, _) in specs.items():
            if counts.get(name) not in (None, n):
                log.warning("topic %s has %s partitions, configured %s", name, counts.get(name), n)
        return counts
    finally:
        await admin.close()
