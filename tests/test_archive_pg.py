"""The archive against real PostgreSQL and the real model: what a consolidation tier retired stays
searchable, reads as a dated past event, and never as something current; the SQL working-set rule
and its Python twin agree."""
from __future__ import annotations

import contextlib
import itertools
from datetime import timedelta

import psycopg
import pytest

from domain.decay import in_working_set
from agents.pipeline import InteractionPipeline
from projections import edge_routes
from streams import db
from projections.store import MEMORY_COLUMNS, visibility_params, visible
from tests.helpers import T0, api_in_process, interaction, records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]

CHAT = ["Work was hectic today, three meetings about pricing", "I cooked dal and rice for dinner",
        "The gym was packed so I ran outside", "We watched a documentary about octopuses",
        "My neighbour's cat sat on my balcony again", "I finally fixed the leaking kitchen tap",
        "Our team shipped the new onboarding flow", "I'm reading a novel about a lighthouse keeper"]


@contextlib.asynccontextmanager
async def _stack(pg_url, version, embedder, contact, messages, monkeypatch):
    """The contact's messages through the worker's pipeline, and the API's service over the result."""
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    p = InteractionPipeline(conn, embedder, broker_epoch="e", version=version)
    await p.process(records([interaction(f"{contact}{i}", m, contact=contact, minutes=i * 2)
                             for i, m in enumerate(messages)]))
    app, pool = await api_in_process(pg_url, embedder=embedder, redis=None)
    try:
        yield
    finally:  # an open client would hold up the server's shutdown at the end of the run
        await pool.close()
        await conn.close()


async def _context(contact, query, at):
    """GET /context with a query, as of `at` (the API's own assembly, without the HTTP layer)."""
    return await edge_routes.build_context("default", contact, query=query, persona_id=None, budget=2000, at=at)


async def test_a_compressed_episode_is_found_by_a_question_about_it_and_dated(pg_url, version, embedder, monkeypatch):
    async with _stack(pg_url, version, embedder, "asha", CHAT, monkeypatch):
        s = db.schema_of(version)
        at = T0 + timedelta(days=60)
        with psycopg.connect(pg_url, autocommit=True) as c:  # the periodic tier compressed every episode
            c.execute(f"UPDATE {s}.memories SET status='compressed', retired_at=%s WHERE memory_type='episode'",
                      (T0 + timedelta(days=4),))
        out = await _context("asha", "What was the documentary about?", at)
        top = out["memories"][0]
        assert top["content"] == "We watched a documentary about octopuses"
        assert top["tier"] == "archive"
        day = top["createdAt"][:10]
        assert f"- [past, {day}] We watched a documentary about octopuses" in out["context_text"]
        # the neighbours said just before and after it come along (the turn a reply answers)
        assert {"I finally fixed the leaking kitchen tap", "My neighbour's cat sat on my balcony again"} & \
            {m["content"] for m in out["memories"][:4]}


async def test_an_expired_plan_is_served_only_as_a_dated_past_event(pg_url, version, embedder, monkeypatch):
    async with _stack(pg_url, version, embedder, "lee",
                    ["I'm going to a concert tonight", "I love jazz piano"], monkeypatch):
        while_current = await _context("lee", "any plans tonight?", T0 + timedelta(hours=1))
        plan = next(m for m in while_current["memories"] if m["content"] == "Is going to a concert tonight")
        assert plan["tier"] == "active"
        # a plan is not part of who they are (the profile): served as a current fact while it holds
        assert "- [fact] Is going to a concert tonight" in while_current["context_text"].splitlines()
        later = await _context("lee", "any plans tonight?", T0 + timedelta(days=3))
        plan = next(m for m in later["memories"] if m["content"] == "Is going to a concert tonight")
        assert plan["tier"] == "archive"
        lines = [ln for ln in later["context_text"].splitlines() if "concert" in ln]
        assert lines and all(ln.startswith("- [past, ") for ln in lines)  # never as current, never under Knows:


async def test_superseded_facts_come_back_only_when_the_question_is_about_the_past(pg_url, version, embedder, monkeypatch):
    async with _stack(pg_url, version, embedder, "ria",
                    ["I live in Pune", "I moved to Berlin last month"], monkeypatch):
        at = T0 + timedelta(days=1)

        async def facts(q):
            out = await _context("ria", q, at)
            return {m["content"] for m in out["memories"] if m["memoryType"] == "fact"}

        now, before = await facts("Where do I live?"), await facts("Where did I live before?")
        assert any("Berlin" in f for f in now) and not any("Pune" in f for f in now)
        assert any("Pune" in f for f in before)


async def test_the_sql_working_set_and_its_python_twin_agree(pg_url, version, embedder, monkeypatch):
    """projections/store.visible and domain/decay.in_working_set over every combination of status,
    retirement, expiry, decay, pinning and a later access, evaluated at several times."""
    async with _stack(pg_url, version, embedder, "par", ["I love jazz piano"], monkeypatch):
        s = db.schema_of(version)
        with psycopg.connect(pg_url, autocommit=True, row_factory=psycopg.rows.dict_row) as c:
            base = c.execute(f"SELECT * FROM {s}.memories WHERE contact_id='par' LIMIT 1").fetchone()
            cols = [k for k in base if k not in ("id", "tsv")]  # tsv: generated
            cases = itertools.product(["active", "compressed", "pruned", "expired", "superseded"],
                                      [None, 2, 40], [None, 1, 90], [0.9, 0.3, 0.12], [False, True], [None, 20, 400])
            ids = []
            for i, (status, retired, expires, importance, pinned, accessed) in enumerate(cases):
                row = {**base, "status": status, "importance": importance, "pinned": pinned, "decay_rate": 0.008,
                       "retired_at": None if retired is None else T0 + timedelta(days=retired),
                       "expires_at": None if expires is None else T0 + timedelta(days=expires),
                       "accessed_at": T0 if accessed is None else T0 + timedelta(days=accessed)}
                c.execute(f"INSERT INTO {s}.memories (id, {', '.join(cols)}) VALUES (%s, {', '.join(['%s'] * len(cols))})",
                          [f"case-{i}"] + [psycopg.types.json.Jsonb(row[k]) if isinstance(row[k], dict) else row[k]
                                           for k in cols])
                ids.append(f"case-{i}")
            for days in (0.5, 10, 30, 60, 120, 500):
                at = T0 + timedelta(days=days)
                sql = c.execute(f"SELECT m.id FROM {s}.memories m WHERE {visible()} AND m.id LIKE 'case-%%'",
                                visibility_params("default", "par", at, True, None)).fetchall()
                rows = c.execute(f"SELECT {MEMORY_COLUMNS} FROM {s}.memories WHERE id LIKE 'case-%%'").fetchall()
                python = {r["id"] for r in rows if in_working_set(
                    status=r["status"], retired_at=r["retired_at"], expires_at=r["expires_at"],
                    importance=float(r["importance"]), rate=float(r["decay_rate"]), accessed_at=r["accessed_at"],
                    created_at=r["created_at"], pinned=r["pinned"], at=at)}
                assert {r["id"] for r in sql} == python, days
                assert 0 < len(python) < len(ids)  # the grid holds both sides at every time
