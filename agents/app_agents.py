"""Faust agents: thin shells that feed topic batches through agents/pipeline.py.

Run with `rapport worker` (ops/cli.py), which imports this module so the agents register on the app.
"""
from __future__ import annotations

import logging

from agents.embedder import default_embedder
from agents.pipeline import InteractionPipeline, Record, derived_record
from ops import metrics
from projections import db
from streams.app import app, dead_letter_topic, interactions_topic, memory_events_topic
from streams.config import settings

log = logging.getLogger("rapport.agents")
_pipeline: InteractionPipeline | None = None


async def pipeline() -> InteractionPipeline:
    global _pipeline
    if _pipeline is None:
        import redis.asyncio as aioredis

        s = settings()
        version = db.prepare(s.database_url, s.projection_version)
        conn = await db.connect_async(s.database_url, schema=db.schema_of(version))
        _pipeline = InteractionPipeline(conn, default_embedder(), broker_epoch=await broker_epoch(),
                                        redis=aioredis.from_url(s.redis_url), version=version,
                                        follow_active=s.projection_version is None)
    return _pipeline


async def broker_epoch() -> str:
    """The broker's identity: offsets are only comparable within one cluster id (see DESIGN)."""
    s = settings()
    if s.broker_epoch:
        return s.broker_epoch
    from aiokafka import AIOKafkaClient

    client = AIOKafkaClient(bootstrap_servers=s.kafka_bootstrap)
    await client.bootstrap()
    try:
        return str(client.cluster.cluster_id or "unknown-cluster")
    finally:
        await client.close()


@app.on_partitions_revoked.connect
async def _on_revoked(app_, revoked, **kwargs) -> None:  # noqa: ANN001
    if _pipeline is not None:
        _pipeline.forget_cache()


@app.agent(interactions_topic)
async def process_interactions(stream):  # noqa: ANN001
    s = settings()
    p = await pipeline()
    async for events in stream.take_events(s.batch_size, within=s.batch_window_s):
        records = [Record(e.message.value, e.message.topic, e.message.partition, e.message.offset, e.message.key)
                   for e in events]
        with metrics.BATCH_SECONDS.time():
            outcome = await p.process(records)
        metrics.EVENTS.labels("applied").inc(outcome.applied)
        metrics.EVENTS.labels("skipped").inc(outcome.skipped)
        for dl in outcome.dead_letters:
            metrics.EVENTS.labels("dead_letter").inc()
            log.warning("dead letter %s/%s@%s: %s", dl.record.topic, dl.record.partition, dl.record.offset,
                        dl.reason)
            await dead_letter_topic.send(key=dl.record.key, value=dl.to_bytes())
        for e in outcome.derived:
            key, value = derived_record(e)
            await memory_events_topic.send(key=key, value=value)


if settings().web_port:
    from faust.sensors.prometheus import setup_prometheus_sensors

    setup_prometheus_sensors(app)  # Faust's own sensor: lag, commit latency, events/s per topic


@app.timer(interval=5.0)
async def heartbeat() -> None:
    """Tell /healthz this worker is up (a key that expires if the worker dies)."""
    import orjson

    p = await pipeline()
    if p.redis is not None:
        assigned = sorted(tp.partition for tp in app.consumer.assignment() if tp.topic == interactions_topic.get_topic_name())
        await p.redis.set(f"rapport:workers:{settings().worker_id}", orjson.dumps({"partitions": assigned}), ex=15)
