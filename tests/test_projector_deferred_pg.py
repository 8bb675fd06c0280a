"""The projector's deferred inserts (agents/projector.py DEFERRED: a segment's mood log rows and memory entity
links in one statement each) write the same rows as one statement per row did, forget requests and all."""
from __future__ import annotations

import psycopg
import pytest

from agents import projector
from agents.pipeline import InteractionPipeline, Record
from projections.digest import digest
from schemas import events as ev
from schemas.envelope import encode
from streams import db
from tests.helpers import FakeEmbedder, interaction
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own)
from tests.backends import pg_url  # noqa: F401

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def _records() -> list[Record]:
    msgs = ["I'm Arjun and I work at Infosys with Priya", "My dog Bruno ate my shoes again", "lol",
            "My dog Bruno ate my shoes again", "I moved to Berlin last month with Priya", "ugh, so tired today",
            "Bruno learned a new trick", "I'm so sad today", "Priya and I went to Munich"]
    envs = [interaction(f"c{i}", m, minutes=i * 7) for i, m in enumerate(msgs)]
    envs += [interaction(f"o{i}", f"I visited Paris with Marco, day {i}", contact="olga", minutes=i) for i in range(5)]
    return [Record(encode(e), "t", 0, i) for i, e in enumerate(envs)]


async def _run(url: str, version: str, records: list[Record], batch: int) -> list:
    conn = await db.connect_async(url, schema=db.schema_of(version))
    p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="live", version=version)
    derived = []
    for i in range(0, len(records), batch):
        derived += (await p.process(records[i:i + batch])).derived
    await conn.close()
    return derived


async def test_deferred_inserts_write_the_rows_of_one_statement_per_row(fresh_db, monkeypatch):
    records = _records()
    with psycopg.connect(fresh_db, autocommit=True) as c:
        db.ensure_version(c, "v2", activate_if_none=False, status="building")
        db.ensure_version(c, "v3", activate_if_none=False, status="building")
    c9 = interaction("c9", "Priya called me from Berlin about Bruno", minutes=70)
    # a forget request of a memory the same segment extracts, with its entity links: the links the
    # segment inserts are deleted with it (the deferred inserts run before the forget's statements)
    derived = await _run(fresh_db, "v3", records + [Record(encode(c9), "t", 0, 100)], 5)
    linked = next(d.payload["memory"] for d in derived if d.event_type == ev.MEMORY_EXTRACTED
                  and d.payload["memory"]["entityRefs"] and d.causation_id == "c9")
    forget = ev.memory_forget_requested(event_id="f1", tenant_id="default", contact_id="arjun",
                                        memory_id=linked["id"], at=c9.occurred_at)
    more = [Record(encode(c9), "t", 0, 100), Record(encode(forget), "t", 0, 101),
            Record(encode(interaction("c10", "lol ok", minutes=71)), "t", 0, 102)]
    await _run(fresh_db, "v1", records, 5)  # DEFERRED as shipped
    await _run(fresh_db, "v1", more, 3)
    monkeypatch.setattr(projector, "DEFERRED", {})  # one statement per row, as before
    await _run(fresh_db, "v2", records, 5)
    await _run(fresh_db, "v2", more, 3)
    with psycopg.connect(fresh_db, autocommit=True) as c:
        moods = c.execute("SELECT count(*) FROM proj_v1.mood_log").fetchone()[0]
        links = c.execute("SELECT count(*) FROM proj_v1.memory_entities").fetchone()[0]
        gone = c.execute("SELECT count(*) FROM proj_v1.memory_entities WHERE memory_id = %s",
                         (linked["id"],)).fetchone()[0]
        assert moods == 16 and links > 0 and gone == 0  # 16 user messages; the forgotten memory's links deleted
        assert digest(c, "proj_v1") == digest(c, "proj_v2")
