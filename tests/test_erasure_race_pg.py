"""DELETE then write again at once (what `locomo_eval.py --reset` does): the contact's new events are
sealed with a new key the moment the DELETE is answered, so the worker's erasure, applied afterwards,
shreds only what came before it. The API in-process over a real PostgreSQL; the broker is a list."""
from __future__ import annotations

import httpx
import psycopg
import pytest

from agents.pipeline import InteractionPipeline
from streams import db
from streams import ingest
from tests.helpers import FakeEmbedder, api_in_process
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own: the API reads its live version)
from tests.test_shredding_pg import CapturingPublisher

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def event(eid: str, message: str, minute: int) -> dict:
    return {"contact_id": "ana", "role": "user", "event_id": eid, "message": message,
            "occurred_at": f"2023-05-08T13:{minute:02d}:00Z"}


async def test_events_sent_right_after_a_delete_survive_its_erasure(fresh_db, monkeypatch):  # noqa: F811
    pub = CapturingPublisher()
    app, pool = await api_in_process(fresh_db, publisher=pub, broker_ok=True)
    worker = InteractionPipeline(await db.connect_async(fresh_db, schema="proj_v1"), FakeEmbedder(),
                                 broker_epoch="e", version="v1")
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api") as client:
            assert (await client.post("/ingest", json=[event("old", "I keep bees on my roof", 0)])).status_code == 202
            assert (await client.delete("/contacts/ana")).status_code == 202
            assert (await client.post("/ingest", json=[event("new", "I play the cello on Sundays", 1)])).status_code == 202
        # the worker gets them only now, in order: the erasure ends a batch, the new event is in the next
        old, erasure, new = pub.take()
        assert (await worker.process([old, erasure])).dead_letters == []
        out = await worker.process([new])
        assert (out.applied, out.skipped, out.dead_letters) == (1, 0, [])  # opened, not shredded
        with psycopg.connect(fresh_db, autocommit=True) as c:
            contents = [r[0] for r in c.execute("SELECT content FROM proj_v1.memories WHERE contact_id='ana'")]
            assert any("cello" in x for x in contents)           # written after the DELETE: kept
            assert not any("bees" in x for x in contents)        # written before it: erased
            assert c.execute("SELECT count(*) FROM rapport.contact_keys WHERE contact_id='ana'").fetchone()[0] == 1
            assert [r[0] for r in c.execute("SELECT event_id FROM rapport.ledger WHERE contact_id='ana'")] == ["new"]
        # nothing for the relay to re-publish: the new event was applied, the old one erased
        assert (await ingest.relay_once(pool, pub, "proj_v1"))[0] == 0
    finally:
        await worker.conn.close()
        await pool.close()
