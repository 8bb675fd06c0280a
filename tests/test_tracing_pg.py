"""One event's trace, in-process over a real PostgreSQL: `POST /ingest` (the API, continuing the caller's
traceparent) -> the producer span whose context the records carry in their Kafka headers -> the Faust
agent (Faust's test_context: the real agent, pipeline and projector) -> a span in the event's own trace
per record, linked to the batch span -> the batch's projection transaction and write -> `GET
/context?after=` linked to the ingest. Spans go to the SDK's in-memory exporter."""
from __future__ import annotations

import asyncio

import httpx
import orjson
import pytest
from opentelemetry.trace import SpanKind, StatusCode
from prometheus_client import REGISTRY

from streams import db
from streams import ingest
from tests.helpers import FakeEmbedder, api_in_process, recording_spans
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own: the API reads its live version)

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]

CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER = f"00-{CALLER_TRACE}-00f067aa0ba902b7-01"


class FakeProducer:
    """aiokafka's producer as Publisher uses it: keeps what the broker would get, headers included."""

    def __init__(self) -> None:
        self.sent: list[tuple[bytes, bytes, list | None]] = []

    async def send(self, topic, key=None, value=None, headers=None):  # noqa: ANN001, ANN201
        self.sent.append((key, value, headers))
        done = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done


async def run_agent(url: str, monkeypatch, puts: list[tuple[bytes, bytes, list | None]], applied: int) -> dict:
    """Feed records (key, value, headers) to the real Faust agent over `url`'s live projection; wait until
    `applied` events are projected and a dead letter for each undecodable record is out. Returns what the
    agent sent, per topic: (key, value, headers)."""
    from agents import app_agents
    from agents.pipeline import InteractionPipeline

    conn = await db.connect_async(url, schema=db.schema_of("v1"))
    monkeypatch.setattr(app_agents, "_pipeline", InteractionPipeline(conn, FakeEmbedder(), broker_epoch="e",
                                                                     version="v1"))
    keys_conn = await db.connect_async(url, autocommit=True)
    monkeypatch.setattr(app_agents, "_keys_conn", keys_conn)
    sent: dict[str, list] = {"memory": [], "triggers": [], "dead": []}
    for name, topic in (("memory", app_agents.memory_events_topic), ("triggers", app_agents.triggers_topic),
                        ("dead", app_agents.dead_letter_topic)):
        async def capture(*, key, value, headers=None, _to=sent[name]):  # noqa: ANN001, ANN202
            _to.append((key, value, headers))
        monkeypatch.setattr(topic, "send", capture)
    garbage = sum(1 for _, v, _ in puts if not v.startswith(b"{"))
    poll = await db.connect_async(url, schema=db.schema_of("v1"), autocommit=True)
    try:
        async with app_agents.process_interactions.test_context() as agent:
            for key, value, headers in puts:
                await agent.put(key=key, value=value, headers=headers)
            for _ in range(200):  # take_events flushes after its window
                n = (await (await poll.execute("SELECT count(*) FROM processed_events")).fetchone())[0]
                if n >= applied and len(sent["dead"]) >= garbage:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.2)  # the batch's sends and spans end after its commit
    finally:
        await poll.close()
        await keys_conn.close()
        await conn.close()
    assert n == applied
    return sent


def named(spans, name: str) -> list:
    return [s for s in spans if s.name == name]


async def test_one_events_trace_runs_from_ingest_through_the_broker_into_the_batch_and_its_commit(
        fresh_db, monkeypatch):  # noqa: F811
    producer = FakeProducer()
    publisher = ingest.Publisher("unused:9092", "rapport.interactions")
    publisher._producer = producer
    app, pool = await api_in_process(fresh_db, publisher=publisher, broker_ok=True)
    freshness = REGISTRY.get_sample_value("rapport_freshness_seconds_count") or 0.0
    try:
        with recording_spans() as exporter:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api") as client:
                r = await client.post("/ingest", headers={"traceparent": CALLER}, json=[
                    {"contact_id": "mia", "role": "user", "event_id": "t1", "message": "I adopted a cat called Miso"},
                    {"contact_id": "mia", "role": "user", "event_id": "t2", "message": "Miso hates the vacuum"}])
                assert r.status_code == 202
                (k1, v1, h1), (k2, v2, h2) = producer.sent
                # the same record delivered twice (a redelivery), and one that does not decode
                sent = await run_agent(fresh_db, monkeypatch, [(k1, v1, h1), (k2, v2, h2), (k1, v1, h1),
                                                               (k1, b"garbage", h1)], applied=2)
                assert (await client.get("/context/mia", params={"after": "t2"})).status_code == 200
            spans = exporter.get_finished_spans()
    finally:
        await pool.close()

    (post,) = named(spans, "POST /ingest")
    assert post.kind == SpanKind.SERVER and f"{post.context.trace_id:032x}" == CALLER_TRACE  # the caller's trace
    (publish,) = named(spans, "publish rapport.interactions")
    assert publish.kind == SpanKind.PRODUCER and publish.parent.span_id == post.context.span_id
    # every record carries the producer span's context to the broker
    assert dict(h1)["traceparent"].decode() == f"00-{CALLER_TRACE}-{publish.context.span_id:016x}-01"
    assert h1 == h2

    (batch,) = named(spans, "process rapport.interactions")
    assert batch.kind == SpanKind.CONSUMER and batch.parent is None  # a batch holds many traces: it links to them
    assert [(link.context.trace_id, link.context.span_id) for link in batch.links] == \
        [(publish.context.trace_id, publish.context.span_id)]
    (tx,) = named(spans, "rapport.projection.transaction")
    assert tx.parent.span_id == batch.context.span_id and tx.attributes["rapport.applied"] == 2
    (write,) = named(spans, "rapport.projection.write")
    assert write.parent.span_id == tx.context.span_id

    # each record's own span continues the ingest's trace, under the producer span, linked to its batch
    per_event = [s for s in spans if s.name in ("process InteractionRecorded", "process record")]
    assert sorted((s.attributes.get("rapport.event_id", "-"), s.attributes["rapport.outcome"]) for s in per_event) == \
        sorted([("t1", "applied"), ("t2", "applied"), ("t1", "skipped"), ("-", "dead_letter")])
    for s in per_event:
        assert s.context.trace_id == post.context.trace_id and s.parent.span_id == publish.context.span_id
        assert [link.context.span_id for link in s.links] == [batch.context.span_id]
        assert s.end_time >= tx.end_time  # it ends after the commit
    (dead,) = [s for s in per_event if s.attributes["rapport.outcome"] == "dead_letter"]
    assert dead.status.status_code == StatusCode.ERROR

    # the derived events leave with the batch's context, for whoever consumes them
    assert sent["memory"] and all(dict(h)["traceparent"].decode().split("-")[1:3] ==
                                  [f"{batch.context.trace_id:032x}", f"{batch.context.span_id:016x}"]
                                  for _, _, h in sent["memory"])

    # GET /context?after=t2 waited for t2 in a span linked to the request that accepted it
    (get,) = named(spans, "GET /context/{contact_id:path}")
    (after,) = named(spans, "rapport.context.after")
    assert after.parent.span_id == get.context.span_id
    assert [(link.context.trace_id, link.context.span_id) for link in after.links] == \
        [(post.context.trace_id, post.context.span_id)]
    # the two interactions' freshness (recorded_at -> commit) was observed
    assert REGISTRY.get_sample_value("rapport_freshness_seconds_count") == freshness + 2


async def test_tracing_off_sends_no_headers_and_records_no_spans(fresh_db, monkeypatch):  # noqa: F811
    """Off (no recording span), the producer adds no headers and the worker makes no per-record spans."""
    producer = FakeProducer()
    publisher = ingest.Publisher("unused:9092", "rapport.interactions")
    publisher._producer = producer
    app, pool = await api_in_process(fresh_db, publisher=publisher, broker_ok=True)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api") as client:
            assert (await client.post("/ingest", headers={"traceparent": CALLER}, json={
                "contact_id": "mia", "role": "user", "event_id": "o1", "message": "I adopted a cat"})).status_code == 202
        sent = await run_agent(fresh_db, monkeypatch, producer.sent, applied=1)
    finally:
        await pool.close()
    assert [h for _, _, h in producer.sent] == [None]
    assert sent["memory"] and all(h is None for _, _, h in sent["memory"])


async def test_a_crisis_trigger_is_counted_when_committed_and_when_published(fresh_db, monkeypatch):  # noqa: F811
    from tests.helpers import interaction
    from schemas.envelope import encode, partition_key

    def count(name: str) -> float:
        return REGISTRY.get_sample_value(name, {"kind": "crisis"}) or 0.0

    before = count("rapport_triggers_total"), count("rapport_triggers_published_total")
    e = interaction("cr1", "I want to kill myself tonight", contact="ravi")
    sent = await run_agent(fresh_db, monkeypatch, [(partition_key(e.tenant_id, e.contact_id), encode(e), None)],
                           applied=1)
    kinds = [orjson.loads(v)["event_type"] for _, v, _ in sent["triggers"]]
    assert kinds == ["TriggerCreated"]
    assert (count("rapport_triggers_total"), count("rapport_triggers_published_total")) == \
        (before[0] + 1, before[1] + 1)
