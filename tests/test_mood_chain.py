"""The mood chain against a local OpenAI-compatible stub: model -> (timeout) previous mood ->
(down / garbage) offline classifier; outcomes recorded, and a replay reuses them with the model down."""
from __future__ import annotations

import psycopg
import pytest

from agents.llm import LLMMoods, parse_mood
from agents.pipeline import InteractionPipeline
from ops import replay as rp
from streams import db
from tests.helpers import FakeEmbedder, interaction, records
from tests.llm_stub import Stub

pytestmark = [pytest.mark.pg]


def test_parse_mood_validates_the_json():
    assert parse_mood('sure! {"mood": "sad", "energy": "low", "style": "deep"}')["mood"] == "sad"
    assert parse_mood('{"mood": "confused", "energy": "low"}') is None
    assert parse_mood("not json") is None
    assert parse_mood('{"mood": "happy", "energy": "high", "style": "weird"}')["style"] == "casual"


@pytest.mark.asyncio
async def test_chain_model_then_previous_then_offline_and_replay_reuses(pg_url, monkeypatch):
    import uuid

    name = "m" + uuid.uuid4().hex[:10]
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    url = pg_url.replace("/rapport?", f"/{name}?")
    db.prepare(url, "v1")
    stub = Stub()
    try:
        conn = await db.connect_async(url, schema="proj_v1")
        p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="e", version="v1",
                                moods=LLMMoods(stub.url, "k", "haiku-class", timeout_s=0.2))

        async def one(i, text, mode):
            stub.mode = mode
            await p.process(records([interaction(f"m{i}", text, minutes=i)], start_offset=i))
            cur = await conn.execute("SELECT mood, source FROM mood_log WHERE source_id=%s", (f"m{i}",))
            return await cur.fetchone()

        assert await one(0, "I feel so sad and tired today", "ok") == ("excited", "llm")  # the model's answer
        assert await one(1, "I feel so sad and tired today", "slow") == ("excited", "previous")  # > 200 ms
        assert await one(2, "I feel so sad and tired today", "down") == ("sad", "offline")
        assert await one(3, "thank you so much!", "garbage") == ("grateful", "offline")
        assert len([c for c in stub.calls if c[0].endswith("/chat/completions")]) == 4
        await conn.close()

        # the model is down during the rebuild: recorded outcomes are reused, the digest still matches
        stub.mode = "down"
        monkeypatch.setenv("RAPPORT_DATABASE_URL", url)
        calls = len(stub.calls)
        r = await rp.replay("v2", "ledger", verify=True, data_dir=None, progress=False, embedder=FakeEmbedder())
        assert r["verified"] and len(stub.calls) == calls
    finally:
        stub.close()
