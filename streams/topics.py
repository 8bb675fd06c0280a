"""Topic specs, declared explicitly before anything publishes: a broker that auto-creates topics would
otherwise create the interactions topic with its own default partition count on the first publish
(and an operator's cluster usually has auto-creation off, so nothing would be created at all)."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from streams.config import Settings

log = logging.getLogger("rapport.topics")

MAX_REPLICATION = 3
DEAD_LETTER_RETENTION_MS = 7 * 24 * 3600 * 1000


def replication(brokers: int, configured: int | None = None) -> tuple[int, int]:
    """(replication factor, min.insync.replicas) for `brokers` live brokers. Configured (RAPPORT_REPLICATION_FACTOR)
    wins; otherwise min(3, brokers). With three replicas two must acknowledge a write (producers send
    acks=all), so one broker can die without losing an acknowledged event or stopping writes; with fewer
    replicas one in sync is enough (two of two would stop every write while either broker is down)."""
    rf = configured or min(MAX_REPLICATION, max(1, brokers))
    return rf, (2 if rf >= 3 else 1)


def topic_specs(s: Settings, min_insync: int = 1) -> dict[str, tuple[int, dict[str, str]]]:
    """name -> (partitions, configs). Retention is bounded (RAPPORT_TOPIC_RETENTION_MS/_BYTES, default 6 h
    and 128 MiB per partition): the ledger in PostgreSQL is the record, and the relay re-publishes from it
    whatever the projections have not applied (`rapport replay --from ledger` rebuilds from it; `--from
    log` reads what the topic still holds). Dead letters are kept a week for inspection."""
    isr = {"min.insync.replicas": str(min_insync)}
    bounded = {"retention.ms": str(s.topic_retention_ms), "retention.bytes": str(s.topic_retention_bytes), **isr}
    return {
        s.interactions_topic: (s.partitions, bounded),
        s.memory_events_topic: (s.partitions, bounded),
        s.triggers_topic: (s.partitions, bounded),
        s.dead_letter_topic: (1, {"retention.ms": str(DEAD_LETTER_RETENTION_MS),
                                  "retention.bytes": str(s.topic_retention_bytes), **isr}),
    }


TOPIC_ALREADY_EXISTS = 36


def creation_errors(topic_errors: list[tuple]) -> list[str]:
    """CreateTopics answers per topic (topic, error code[, message]); aiokafka does not raise them. The
    ones that are failures (not "already exists": a concurrent creator won), as `topic: code message`."""
    return [f"{t[0]}: error {t[1]}" + (f" {t[2]}" if len(t) > 2 and t[2] else "")
            for t in topic_errors if t[1] not in (0, TOPIC_ALREADY_EXISTS)]


@dataclass(frozen=True)
class Cluster:
    cluster_id: str | None
    brokers: int
    replication: int
    partitions: dict[str, int]


async def describe(s: Settings) -> tuple[str | None, int]:
    """(cluster id, broker count) from a metadata request (v2+ carries the cluster id; aiokafka's admin
    client picks the newest version both sides speak)."""
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=s.kafka_bootstrap, request_timeout_ms=10000)
    await admin.start()
    try:
        d = await admin.describe_cluster()
        return d.get("cluster_id"), len(d.get("brokers") or [])
    finally:
        await admin.close()


async def ensure_topics(s: Settings, topics: dict[str, tuple[int, dict[str, str]]] | None = None) -> Cluster:
    """Create the missing topics (rapport's, or `topics`) with explicit partitions, replication and
    configs; warn when an existing one has another partition count (never repartitioned: that would move
    contacts between partitions)."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic
    from aiokafka.errors import TopicAlreadyExistsError

    admin = AIOKafkaAdminClient(bootstrap_servers=s.kafka_bootstrap, request_timeout_ms=10000)
    await admin.start()
    try:
        d = await admin.describe_cluster()
        rf, isr = replication(len(d.get("brokers") or []), s.replication_factor)
        specs = topics if topics is not None else topic_specs(s, isr)
        existing = set(await admin.list_topics())
        new = [NewTopic(name, n, rf, topic_configs=cfg) for name, (n, cfg) in specs.items() if name not in existing]
        if new:
            try:
                resp = await admin.create_topics(new)
            except TopicAlreadyExistsError:  # a concurrent creator won
                resp = None
            failed = creation_errors(resp.topic_errors if resp is not None else [])
            if failed:
                raise RuntimeError("could not create topics: " + "; ".join(failed))
        described = await admin.describe_topics(list(specs))
        counts = {t["topic"]: len(t["partitions"]) for t in described if t.get("partitions")}
        for name, (n, _) in specs.items():
            if counts.get(name) not in (None, n):
                log.warning("topic %s has %s partitions, configured %s", name, counts.get(name), n)
        return Cluster(d.get("cluster_id"), len(d.get("brokers") or []), rf, counts)
    finally:
        await admin.close()
