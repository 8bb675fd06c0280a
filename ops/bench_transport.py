"""The bare transport's rate, for `rapport bench load` to set beside the pipeline's: a Faust worker of
the same app settings (streams/app.py: batches of RAPPORT_BATCH_SIZE within RAPPORT_BATCH_WINDOW_S,
raw bytes, at-least-once) on the same broker, whose agent only passes each record on to another topic,
as the real worker sends its derived events. Nothing is decoded, stored or embedded: what it reaches
is the ceiling the broker and Faust set for one worker process.

`python -m ops.bench_transport` is that worker (its topics and app id come from the environment);
`transport_rate(kafka_url, events)` starts one, feeds it and times it.
"""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
import uuid

BATCH = 500  # records per produce call of the feeding client


def worker_main() -> None:
    """A Faust worker whose one agent passes interactions through to the memory-events topic."""
    from streams.app import app, interactions_topic, memory_events_topic
    from streams.config import settings

    s = settings()

    @app.agent(interactions_topic)
    async def pass_through(stream):  # noqa: ANN001
        async for events in stream.take_events(s.batch_size, within=s.batch_window_s):
            for e in events:
                await memory_events_topic.send(key=e.message.key, value=e.message.value)

    sys.argv = ["bench-transport", "worker", "--loglevel", "warn", "--without-web"]
    app.main()


async def _feed_and_time(kafka_url: str, topic_in: str, topic_out: str, events: int, contacts: int = 100,
                         ready_timeout: float = 120.0) -> float:
    """Records/s from the first record sent to the last one passed through (after one warm-up record
    has gone through, so the worker's group join is not timed)."""
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    from streams.config import bootstrap_servers

    servers = bootstrap_servers(kafka_url)
    producer = AIOKafkaProducer(bootstrap_servers=servers, acks="all", linger_ms=5)
    consumer = AIOKafkaConsumer(topic_out, bootstrap_servers=servers, group_id=f"{topic_out}-reader",
                                auto_offset_reset="earliest", enable_auto_commit=False, fetch_max_wait_ms=50)
    await producer.start()
    await consumer.start()
    try:
        await producer.send_and_wait(topic_in, b"warm-up", key=b"warm-up")
        deadline = time.monotonic() + ready_timeout
        warm = False
        while not warm:
            if time.monotonic() > deadline:
                raise RuntimeError("the pass-through worker passed nothing on")
            got = await consumer.getmany(timeout_ms=500)
            warm = any(m.value == b"warm-up" for ms in got.values() for m in ms)
        value = b'{"event_type":"InteractionRecorded","payload":{"message":"' + b"x" * 120 + b'"}}'
        start = time.perf_counter()
        for i in range(0, events, BATCH):
            futures = [await producer.send(topic_in, value, key=f"bench/c{j % contacts}".encode())
                       for j in range(i, min(i + BATCH, events))]
            await asyncio.gather(*futures)
        seen = 0
        while seen < events:
            if time.monotonic() > deadline + 600:
                raise RuntimeError(f"only {seen} of {events} records passed through")
            got = await consumer.getmany(timeout_ms=1000)
            seen += sum(1 for ms in got.values() for m in ms if m.value != b"warm-up")
        return events / (time.perf_counter() - start)
    finally:
        await consumer.stop()
        await producer.stop()


def transport_rate(kafka_url: str, events: int) -> float:
    """Start a pass-through worker on the broker at `kafka_url` (topics of its own), time `events`
    records through it, stop it; records/s."""
    run = uuid.uuid4().hex[:8]
    env = {**os.environ, "RAPPORT_KAFKA_URL": kafka_url, "RAPPORT_APP_ID": f"rapport-bench-transport-{run}",
           "RAPPORT_INTERACTIONS_TOPIC": f"bench-transport-{run}-in",
           "RAPPORT_MEMORY_EVENTS_TOPIC": f"bench-transport-{run}-out",
           "RAPPORT_WORKER_WEB_PORT": "0"}
    topics = [env["RAPPORT_INTERACTIONS_TOPIC"], env["RAPPORT_MEMORY_EVENTS_TOPIC"]]
    # made before anything publishes (a cluster with auto-creation off refuses the first send), and
    # deleted afterwards: an operator's cluster keeps no bench topics
    asyncio.run(bench_topics(kafka_url, topics, create=True))
    with tempfile.TemporaryDirectory(prefix="rapport-bench-transport-") as d:
        env["RAPPORT_FAUST_DATADIR"] = d
        proc = subprocess.Popen([sys.executable, "-m", "ops.bench_transport"], env=env,
                                stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "worker.log"), "wb"))
        try:
            return asyncio.run(_feed_and_time(kafka_url, env["RAPPORT_INTERACTIONS_TOPIC"],
                                              env["RAPPORT_MEMORY_EVENTS_TOPIC"], events))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            asyncio.run(bench_topics(kafka_url, topics, create=False))


async def bench_topics(kafka_url: str, topics: list[str], create: bool) -> None:
    """Create the bench's two topics (the rapport topics' partitions and replication), or delete them."""
    import dataclasses

    from streams.config import Settings
    from streams.topics import ensure_topics

    s = dataclasses.replace(Settings.from_env(), kafka_url=kafka_url)
    if create:
        await ensure_topics(s, {t: (s.partitions, {}) for t in topics})
        return
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=s.kafka_bootstrap)
    await admin.start()
    try:
        await admin.delete_topics(topics)
    except Exception:  # best effort: a broker without deletion leaves them
        pass
    finally:
        await admin.close()


if __name__ == "__main__":
    worker_main()
