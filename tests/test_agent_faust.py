"""The Faust agent with Faust's own test_context(): no broker, the real pipeline and PostgreSQL."""
from __future__ import annotations

import pytest

from streams import db
from schemas.envelope import encode, partition_key
from tests.helpers import FakeEmbedder, interaction

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


async def test_agent_feeds_batches_through_the_pipeline(pg_url, version, monkeypatch):
    from agents import app_agents
    from agents.pipeline import InteractionPipeline

    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    pipe = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="test")
    monkeypatch.setattr(app_agents, "_pipeline", pipe)
    keys_conn = await db.connect_async(pg_url, autocommit=True)
    monkeypatch.setattr(app_agents, "_keys_conn", keys_conn)  # what settings().database_url gives a worker
    sent = []

    async def fake_send(*, key, value, headers=None):  # the derived-events topic, observed
        sent.append((key, value))

    monkeypatch.setattr(app_agents.memory_events_topic, "send", fake_send)
    dead = []

    async def fake_dead(*, key, value):
        dead.append(value)

    monkeypatch.setattr(app_agents.dead_letter_topic, "send", fake_dead)

    envs = [interaction("fa1", "I adopted a cat called Miso", contact="mia"),
            interaction("fa2", "Miso knocked my coffee over", contact="mia", minutes=1)]
    async with app_agents.process_interactions.test_context() as agent:
        for e in envs:
            await agent.put(key=partition_key(e.tenant_id, e.contact_id), value=encode(e))
        await agent.put(key=b"default/mia", value=b"garbage")
        # take_events flushes after its window; wait until both events are projected
        import asyncio
        poll = await db.connect_async(pg_url, schema=db.schema_of(version), autocommit=True)
        for _ in range(100):  # a connection of its own: the pipeline's is busy in its transactions
            cur = await poll.execute("SELECT count(*) FROM processed_events")
            n = (await cur.fetchone())[0]
            if n == 2 and dead:
                break
            await asyncio.sleep(0.05)
        await poll.close()
    from streams import shredding

    (key,) = (await shredding.fetch_keys(keys_conn, [("default", "mia")])).values()
    await keys_conn.close()
    assert n == 2
    import orjson
    envelopes = [orjson.loads(v) for _, v in sent]
    types = [d["event_type"] for d in envelopes]
    # the derived events carry memory contents: sealed with mia's key (crypto-shredding). Only the clear
    # fields are searched for the plaintext: random base64 ciphertext may spell "Miso" by chance
    assert all(set(d["payload"]) == {"enc", "nonce", "ct"} for d in envelopes)
    assert not any(b"Miso" in orjson.dumps({**d, "payload": None}) for d in envelopes)
    opened = [shredding.open_dict(d, key)["payload"] for d in envelopes]
    assert any(b"Miso" in orjson.dumps(p) for p in opened) and any(b"coffee" in orjson.dumps(p) for p in opened)
    assert types.count("MemoryExtracted") >= 2 and "SessionStarted" in types and "EntityUpserted" in types
    assert all(k == b"default/mia" for k, _ in sent)
    assert len(dead) == 1 and b"not JSON" in dead[0]
