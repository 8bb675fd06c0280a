"""Issue 24's worker changes on real PostgreSQL: a message's vector computed once per text across batches
(the same bits as computed alone, so nothing a replay compares moves), and a batch's sends in the
background while the next batch runs (in batch order, at most one batch in flight, the outbox emptied
once sent and kept when a send fails)."""
from __future__ import annotations

import asyncio

import numpy as np
import orjson
import psycopg
import pytest

from agents.pipeline import InteractionPipeline
from streams import db
from tests.helpers import FakeEmbedder, interaction, records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


class Counting:
    """The real model, counting the texts it is asked to embed alone."""

    def __init__(self, model) -> None:  # noqa: ANN001
        self.model, self.model_name, self.dim, self.alone, self.every = model, model.model_name, model.dim, [], []

    def embed(self, texts):  # noqa: ANN001, ANN201
        if len(texts) == 1:
            self.alone.append(texts[0])
        self.every += list(texts)
        return self.model.embed(texts)


def stored_vector(pg_url: str, version: str, contact: str, content: str) -> np.ndarray:
    with psycopg.connect(pg_url) as c:
        (vec,) = c.execute(f"SELECT embedding::text FROM {db.schema_of(version)}.memories WHERE contact_id=%s "
                           "AND memory_type='episode' AND content=%s", (contact, content)).fetchone()
    return np.asarray([float(x) for x in vec.strip("[]").split(",")], dtype=np.float32)


async def test_a_message_said_again_in_a_later_batch_is_not_embedded_again_and_gets_the_same_bits(
        pg_url, version, embedder):
    text = "Honestly this week at the clinic wore me out completely"
    model = Counting(embedder)
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    try:
        p = InteractionPipeline(conn, model, broker_epoch="e", version=version)
        await p.process(records([interaction("c1", text, contact="ana")]))
        await p.process(records([interaction("c2", text, contact="ben"),
                                 interaction("c3", "A different thing entirely, about my bike", contact="ben",
                                             minutes=1)], start_offset=1))
    finally:
        await conn.close()
    assert model.alone.count(text) == 1  # the second batch read it from the first
    assert "A different thing entirely, about my bike" in model.alone  # a new text is still embedded alone
    alone = embedder.embed([text])[0]
    for contact in ("ana", "ben"):  # both episodes hold the vector of the text alone, to the bit
        assert np.array_equal(stored_vector(pg_url, version, contact, text), alone)


async def test_an_erasure_leaves_no_text_of_the_contact_in_the_workers_memos(pg_url, version, embedder):
    from agents.core import redaction
    from schemas.events import contact_erased

    text = "My card is 4242 4242 4242 4242 and my dog is called Pixel"
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    try:
        p = InteractionPipeline(conn, embedder, broker_epoch="e", version=version)
        first = interaction("z1", text, contact="zara")
        await p.process(records([first]))
        assert redaction._redacted.cache_info().currsize and len(p.said_vectors)  # the memos hold it now
        await p.process(records([contact_erased(event_id="z-erase", tenant_id="default", contact_id="zara",
                                                at=first.occurred_at)], start_offset=1))
    finally:
        await conn.close()
    assert p.erased == {("default", "zara")}
    assert redaction._redacted.cache_info().currsize == 0 and redaction._left_open.cache_info().currsize == 0
    assert not any("Pixel" in t for t in list(p.said_vectors) + list(p.text_vectors))


async def test_a_fact_two_contacts_state_alike_in_two_batches_is_embedded_once(pg_url, version, embedder):
    from collections import Counter

    model = Counting(embedder)
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    try:
        p = InteractionPipeline(conn, model, broker_epoch="e", version=version)
        a = await p.process(records([interaction("d1", "I have a dog named Bruno", contact="ana")]))
        b = await p.process(records([interaction("d2", "I have a dog named Bruno", contact="ben")], start_offset=1))
    finally:
        await conn.close()
    facts = [e.payload["memory"] for o in (a, b) for e in o.derived
             if e.event_type == "MemoryExtracted" and e.payload["memory"]["memoryType"] != "episode"]
    assert {m["contactId"] for m in facts} == {"ana", "ben"}  # a fact each, the same text
    assert [t for t, n in Counter(model.every).items() if n > 1] == []  # no text went to the model twice
    (va,), (vb,) = ([m["embedding"] for m in facts if m["contactId"] == c] for c in ("ana", "ben"))
    assert va == vb


@pytest.fixture
def agent_env(pg_url, version, monkeypatch):  # noqa: ANN001, ANN201
    """app_agents wired to this test's database, with the topics' sends observed."""
    from agents import app_agents

    sent: list[str] = []  # event ids, in the order they reached the memory-events topic
    state = {"in_flight": 0, "max_in_flight": 0, "fail": False}

    async def fake_send(*, key, value, headers=None, _record=True):  # noqa: ANN001, ANN202
        state["in_flight"] += 1
        state["max_in_flight"] = max(state["max_in_flight"], state["in_flight"])
        await asyncio.sleep(0.002)  # a broker round trip: the next batch runs meanwhile
        state["in_flight"] -= 1
        if state["fail"]:
            raise ConnectionError("broker down")
        if _record:
            sent.append(orjson.loads(value)["event_id"])

    async def trigger_send(**kw):  # noqa: ANN003, ANN202
        await fake_send(**kw, _record=False)

    monkeypatch.setattr(app_agents.memory_events_topic, "send", fake_send)
    monkeypatch.setattr(app_agents.triggers_topic, "send", trigger_send)
    monkeypatch.setattr(app_agents, "_publishing", None)
    return app_agents, sent, state


def outbox(pg_url: str, version: str) -> list[str]:
    with psycopg.connect(pg_url) as c:
        return [r[0] for r in c.execute(f"SELECT event_id FROM {db.schema_of(version)}.derived_outbox ORDER BY seq")]


async def test_sends_run_beside_the_next_batch_in_batch_order_and_empty_the_outbox(pg_url, version, agent_env,
                                                                                    monkeypatch):
    app_agents, sent, state = agent_env
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    keys_conn = await db.connect_async(pg_url, autocommit=True)
    monkeypatch.setattr(app_agents, "_keys_conn", keys_conn)
    try:
        p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="e", version=version)
        first = await p.process(records([interaction("b1", "I have a dog named Bruno", contact="mia"),
                                         interaction("b2", "I live in Lisbon now", contact="kai")]))
        await app_agents.publish_outcome(p, first)
        task = app_agents._publishing
        assert task is not None and not task.done()  # sending while the next batch is processed
        second = await p.process(records([interaction("b3", "Bruno ate my shoes", contact="mia", minutes=1)],
                                         start_offset=2))
        await app_agents.publish_outcome(p, second)  # waits for the first batch's sends
        assert task.done() and sent == [e.event_id for e in first.derived]  # all of the first, none of the second
        await app_agents.finish_publishing()
        assert sent == [e.event_id for e in first.derived + second.derived]
        assert state["max_in_flight"] == 1
        assert outbox(pg_url, version) == []  # sent, so out of the outbox

        state["fail"] = True  # a broker that fails: the batch's events stay for the relay, the worker goes on
        third = await p.process(records([interaction("b4", "I love sushi", contact="kai", minutes=2)],
                                        start_offset=3))
        await app_agents.publish_outcome(p, third)
        await app_agents.finish_publishing()  # logged, not raised
        assert outbox(pg_url, version) == [e.event_id for e in third.derived]
    finally:
        await keys_conn.close()
        await conn.close()
