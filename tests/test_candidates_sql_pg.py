"""Store.candidates' statement (projections/store.candidates_sql) answers exactly what the statement before
it answered: the same rows, the same columns, the same similarities, for every kind of request (with and
without a query, keyword ids, entity refs, an as_of in the past, a persona, a question about the past), on
a contact with an archive, under the custom plans and under the generic plan the pool's prepared
statements get. The reference is the statement as it was (one pass over the contact's rows with
`id IN (pick) OR ...`), with the picks' ties broken by id as the new one does: without that a tie's winner
was whichever row the plan met first."""
from __future__ import annotations

import random
from datetime import timedelta

import numpy as np
import psycopg
import pytest
from pgvector import Vector
from pgvector.psycopg import register_vector
from psycopg_pool import AsyncConnectionPool

from domain.embedder import LOCAL_MODEL_NAME
from projections.store import RANKING_COLUMNS_M, SIMILARITY, Store, retrievable, visibility_params, visible
from streams import db
from tests.backends import pg_url  # noqa: F401  (every test here runs on each PostgreSQL backend)

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def reference_sql(s: str, query: bool) -> str:
    """The statement before projections/store.candidates_sql (main at f0ef215), ties broken by id."""
    if query:
        where = retrievable()
        pick = (f"SELECT m.id FROM {s}.memories m WHERE {where} AND m.embedding_model=%(model)s "
                f"ORDER BY m.embedding <=> %(q)s, m.id LIMIT %(k)s")
        return (f"SELECT {RANKING_COLUMNS_M}, {SIMILARITY} AS similarity FROM {s}.memories m WHERE {where} AND "
                f"(m.id IN ({pick}) OR m.id = ANY(%(ids)s::text[]) "
                f"OR (m.entity_refs && %(refs)s::text[] AND {visible()}))")
    where = visible()
    pick = (f"SELECT m.id FROM {s}.memories m WHERE {where} "
            f"ORDER BY m.importance DESC, m.created_at DESC, m.id LIMIT %(k)s")
    return (f"SELECT {RANKING_COLUMNS_M}, 0.0 AS similarity FROM {s}.memories m "
            f"WHERE {where} AND (m.id IN ({pick}) OR m.entity_refs && %(refs)s::text[])")


def seed(c: psycopg.Connection, s: str) -> None:
    """Every kind of row a contact's candidates tell apart, among the bulk load's working set and archive:
    superseded and merged memories, a persona's, expired and expiring ones, pinned ones, linked ones, a
    vector of another model, two memories with the same vector (a tie in the vector's order), memories
    retired after a past as_of, and another contact's rows."""
    ids = [r[0] for r in c.execute(f"SELECT id FROM {s}.memories WHERE contact_id='s0' ORDER BY id")]
    rng = random.Random(3)
    picked = rng.sample(ids, 60)
    st = c.execute(f"SELECT min(created_at), max(created_at) FROM {s}.memories WHERE contact_id='s0'").fetchone()
    mid = st[0] + (st[1] - st[0]) / 2
    for i, mid_id in enumerate(picked):
        kind = i % 10
        if kind == 0:
            c.execute(f"UPDATE {s}.memories SET status='superseded', retired_at=created_at + interval '5 days' "
                      f"WHERE id=%s", (mid_id,))
        elif kind == 1:
            c.execute(f"UPDATE {s}.memories SET status='merged', retired_at=created_at + interval '1 day' "
                      f"WHERE id=%s", (mid_id,))
        elif kind == 2:
            c.execute(f"UPDATE {s}.memories SET persona_id='coach' WHERE id=%s", (mid_id,))
        elif kind == 3:
            c.execute(f"UPDATE {s}.memories SET expires_at=%s WHERE id=%s", (mid, mid_id))
        elif kind == 4:
            c.execute(f"UPDATE {s}.memories SET pinned=true, importance=0.01 WHERE id=%s", (mid_id,))
        elif kind == 5:
            c.execute(f"UPDATE {s}.memories SET entity_refs=ARRAY['person:tom'] WHERE id=%s", (mid_id,))
        elif kind == 6:
            c.execute(f"UPDATE {s}.memories SET embedding_model='another-model' WHERE id=%s", (mid_id,))
        elif kind == 7:  # the same vector as a row left as it was: a tie in the vector's order
            same = rng.choice(sorted(set(ids) - set(picked)))
            c.execute(f"UPDATE {s}.memories SET embedding=(SELECT embedding FROM {s}.memories WHERE id=%s) "
                      f"WHERE id=%s", (same, mid_id))
        elif kind == 8:  # retired after the past as_of: in the working set then, in the archive now
            c.execute(f"UPDATE {s}.memories SET status='compressed', retired_at=%s + interval '1 hour', "
                      f"created_at=least(created_at, %s - interval '1 day') WHERE id=%s", (mid, mid, mid_id))
        else:
            c.execute(f"UPDATE {s}.memories SET entity_refs=ARRAY['pet:bruno', 'person:tom'], status='active', "
                      f"retired_at=NULL WHERE id=%s", (mid_id,))
    c.execute(f"ANALYZE {s}.memories")


async def test_candidates_are_those_of_the_statement_before(pg_url, version):
    from ops.bench import bulk_load

    s = db.schema_of(version)
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    bulk_load(pg_url, 2, 40, archived=200)
    ref = psycopg.connect(pg_url, autocommit=True)
    register_vector(ref)
    seed(ref, s)
    assert ref.execute("SELECT 1 FROM pg_indexes WHERE schemaname=%s AND indexname='memories_retired'",
                       (s,)).fetchone()
    now, first = ref.execute(f"SELECT max(created_at), min(created_at) FROM {s}.memories "
                             f"WHERE contact_id='s0'").fetchone()
    past = first + (now - first) / 2
    ids = [r[0] for r in ref.execute(f"SELECT id FROM {s}.memories WHERE contact_id IN ('s0', 's1')")]
    pool = AsyncConnectionPool(pg_url, min_size=1, max_size=1, open=False, configure=db.configure_pool_conn,
                               kwargs={"autocommit": True})
    await pool.open()
    store = Store(pool)
    rng, vecs = random.Random(5), np.random.default_rng(5)
    kinds = seen = 0
    try:
        for generic in (False, True):
            if generic:  # the pool's connection prepares a statement after five runs: its generic plan
                async with pool.connection() as conn:
                    await conn.execute("SET plan_cache_mode = force_generic_plan")
                ref.execute("SET plan_cache_mode = force_generic_plan")
            for j in range(48):
                q = vecs.standard_normal(384).astype(np.float32)
                q /= np.linalg.norm(q)
                query = j % 4 != 3
                at, explicit = (past, True) if j % 3 == 0 else (now + timedelta(hours=1), False)
                persona = "coach" if j % 5 == 0 else None
                asks_past = j % 7 == 0
                refs = [["person:tom"], ["pet:bruno", "person:nobody"], []][j % 3] if j % 2 else []
                kw = rng.sample(ids, rng.randint(0, 40)) if query else []
                k = (40, 5, 1)[j % 3]
                got = await store.candidates("scale", "s0", query_vec=q if query else None, model=LOCAL_MODEL_NAME,
                                             as_of=at, persona_id=persona, entity_refs=refs, k=k,
                                             explicit_as_of=explicit, past=asks_past, ids=kw)
                params = {**visibility_params("scale", "s0", at, explicit, persona, asks_past), "k": k,
                          "model": LOCAL_MODEL_NAME, "refs": refs, "ids": kw, "q": Vector(q) if query else None}
                cur = ref.cursor(row_factory=psycopg.rows.dict_row)
                want = cur.execute(reference_sql(s, query), params, prepare=generic).fetchall()
                key = lambda r: r["id"]  # noqa: E731
                assert sorted(got, key=key) == sorted(want, key=key), (j, generic)
                assert len({r["id"] for r in got}) == len(got)
                kinds += 1
                seen += len(want)
        assert kinds == 96 and seen > 96 * 10  # the requests found rows (not empty answers compared)
        # a question whose vector is that of two memories: the top 1 is the first of them by id, every time
        ties = ref.execute(f"SELECT array_agg(id ORDER BY id), embedding::text FROM {s}.memories WHERE contact_id='s0' "
                           f"AND embedding_model=%s AND status NOT IN ('merged', 'superseded') AND persona_id IS NULL "
                           f"GROUP BY embedding::text HAVING count(*) > 1", (LOCAL_MODEL_NAME,)).fetchall()
        assert len(ties) >= 3
        for pair, vec in ties:
            q = np.array([float(x) for x in vec.strip("[]").split(",")], dtype=np.float32)
            for _ in range(3):
                got = await store.candidates("scale", "s0", query_vec=q, model=LOCAL_MODEL_NAME, as_of=now,
                                             persona_id=None, k=1)
                assert [r["id"] for r in got] == pair[:1]
    finally:
        await pool.close()
        ref.close()
