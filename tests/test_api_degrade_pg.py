"""A contact whose stored rows cannot be read degrades that contact only: a JSON 500 for it, 200 for the
others (the API in-process over a real PostgreSQL; no broker or Redis needed for reads)."""
from __future__ import annotations

import httpx
import pytest

from agents.pipeline import InteractionPipeline
from streams import db
from tests.helpers import FakeEmbedder, api_in_process, interaction, records
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own: the API reads its live version)

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


async def test_an_unreadable_contact_answers_a_json_500_and_the_others_200(fresh_db, monkeypatch):  # noqa: F811
    p = InteractionPipeline(await db.connect_async(fresh_db, schema="proj_v1"), FakeEmbedder(), broker_epoch="e")
    await p.process(records([interaction("a1", "I keep bees on my roof", contact="ancient"),
                             interaction("o1", "I play the cello on Sundays", contact="other")]))
    with db.connect(fresh_db, autocommit=True) as c:  # what a year-0001 +14:00 event left before the guards
        c.execute("UPDATE proj_v1.memories SET created_at='0001-12-31 10:00:00+00 BC' WHERE contact_id='ancient'")
    app, pool = await api_in_process(fresh_db, redis=None)  # a cache that is down: history from PostgreSQL
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
                                     base_url="http://api") as client:
            bad = await client.get("/contacts/ancient/memories")
            good = await client.get("/context/other")
            good_memories = await client.get("/contacts/other/memories")
    finally:
        await pool.close()
    assert bad.status_code == 500 and bad.headers["content-type"] == "application/json"
    assert "cannot be read" in bad.json()["error"]
    assert good.status_code == 200 and good_memories.status_code == 200
    assert any("cello" in m["content"] for m in good_memories.json()["memories"])
