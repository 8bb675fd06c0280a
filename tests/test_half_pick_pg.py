"""The vector pick's half-precision first pass (projections/store.half_pass, migration 0017): the copy of the
vectors kept by the trigger is that of memories after every kind of write, and the pick answers the exact
top k (the statement before it: store.exact_pick) whether the first pass proves it alone, re-ranks rows it
leaves in doubt, or falls back, including on vectors built to sit closer together than half precision
resolves, on real PostgreSQL under custom and generic plans."""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import numpy as np
import psycopg
import pytest
from pgvector import Vector
from pgvector.psycopg import register_vector

from domain.embedder import LOCAL_MODEL_NAME
from projections.store import HALF_EPS, HALF_EXTRA, HALF_PICK, exact_pick, half_pass, visibility_params
from streams import db
from tests.backends import pg_url  # noqa: F401  (every test here runs on each PostgreSQL backend)

pytestmark = [pytest.mark.pg]
NOW = datetime.now(timezone.utc) + timedelta(days=1)

MIRROR = ("SELECT m.id, m.embedding_model, l2_normalize(m.embedding)::halfvec::text, m.created_at, m.status, "
          "m.retired_at, m.persona_id FROM {s}.memories m WHERE m.embedding IS NOT NULL "
          "AND m.embedding_model IS NOT NULL ORDER BY m.id")
COPY = ("SELECT v.id, v.embedding_model, v.half::text, v.created_at, v.status, v.retired_at, v.persona_id "
        "FROM {s}.memory_vectors v ORDER BY v.id")


def loaded(pg_url: str, version: str, contacts: int = 2, archived: int = 200) -> tuple[psycopg.Connection, str]:
    from ops.bench import bulk_load

    s = db.schema_of(version)
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    bulk_load(pg_url, contacts, 40, archived=archived)
    conn = psycopg.connect(pg_url, autocommit=True)
    register_vector(conn)
    return conn, s


def picks(c: psycopg.Connection, s: str, q: np.ndarray, k: int, generic: bool, contact: str = "s0",
          **where) -> tuple[list[str], list[str], bool, int]:
    """(the first pass's top k, the exact pick, whether the first pass proved it, rows it left in doubt)."""
    params = {**visibility_params("scale", contact, where.get("as_of", NOW), where.get("explicit", False),
                                  where.get("persona"), where.get("past", False)),
              "k": k, "m": k + HALF_EXTRA, "eps": HALF_EPS, "model": LOCAL_MODEL_NAME, "q": Vector(q)}
    half = [r[0] for r in c.execute(f"{half_pass(s)} {HALF_PICK}", params, prepare=generic)]
    ok = c.execute(f"{half_pass(s)} SELECT ok FROM half_bounds", params, prepare=generic).fetchone()[0]
    doubt = c.execute(f"{half_pass(s)} SELECT count(*) FROM half_doubt", params, prepare=generic).fetchone()[0]
    exact = [r[0] for r in c.execute(exact_pick(s), params, prepare=generic)]
    return half, exact, ok, doubt


def test_the_copy_follows_every_write(pg_url, version):
    c, s = loaded(pg_url, version)
    assert c.execute(COPY.format(s=s)).fetchall() == c.execute(MIRROR.format(s=s)).fetchall()
    ids = [r[0] for r in c.execute(f"SELECT id FROM {s}.memories WHERE contact_id='s0' ORDER BY id")]
    c.execute(f"UPDATE {s}.memories SET status='superseded', retired_at=now() WHERE id = ANY(%s)", (ids[:5],))
    c.execute(f"UPDATE {s}.memories SET persona_id='coach', created_at=created_at - interval '1 day' "
              f"WHERE id = ANY(%s)", (ids[5:10],))
    c.execute(f"UPDATE {s}.memories SET embedding=(SELECT embedding FROM {s}.memories WHERE id=%s) "
              f"WHERE id = ANY(%s)", (ids[0], ids[10:15]))
    c.execute(f"UPDATE {s}.memories SET embedding_model='another-model' WHERE id = ANY(%s)", (ids[15:20],))
    c.execute(f"UPDATE {s}.memories SET embedding=NULL WHERE id = ANY(%s)", (ids[20:25],))
    c.execute(f"UPDATE {s}.memories SET embedding_model=NULL WHERE id = ANY(%s)", (ids[25:30],))
    c.execute(f"DELETE FROM {s}.memories WHERE id = ANY(%s)", (ids[30:35],))
    c.execute(f"UPDATE {s}.memories SET content='unrelated' WHERE id = ANY(%s)", (ids[35:40],))
    # a row whose vector comes back, and the other contact erased
    c.execute(f"UPDATE {s}.memories SET embedding=(SELECT embedding FROM {s}.memories WHERE id=%s) "
              f"WHERE id=%s", (ids[50], ids[20]))
    c.execute(f"DELETE FROM {s}.memories WHERE contact_id='s1'")
    assert c.execute(COPY.format(s=s)).fetchall() == c.execute(MIRROR.format(s=s)).fetchall()
    assert c.execute(f"SELECT count(*) FROM {s}.memory_vectors WHERE contact_id='s1'").fetchone()[0] == 0
    c.close()


@pytest.mark.parametrize("generic", [False, True])
def test_the_first_pass_answers_the_exact_top_k(pg_url, version, generic):
    c, s = loaded(pg_url, version)
    if generic:
        c.execute("SET plan_cache_mode = force_generic_plan")
    vecs = np.random.default_rng(11)
    ids = [r[0] for r in c.execute(f"SELECT id FROM {s}.memories WHERE contact_id='s0' ORDER BY id")]
    # s0 as loaded (random directions), then s1 rebuilt as a cluster: every vector the same direction
    # plus a perturbation of a few 1e-3, so that many cosines are closer than the half copy resolves
    base = vecs.standard_normal(384).astype(np.float32)
    for mid in [r[0] for r in c.execute(f"SELECT id FROM {s}.memories WHERE contact_id='s1'")]:
        v = base + vecs.standard_normal(384).astype(np.float32) * 0.002 * vecs.uniform(0.2, 3)
        c.execute(f"UPDATE {s}.memories SET embedding=%s WHERE id=%s", (Vector(v), mid))
    c.execute(f"UPDATE {s}.memories SET status='merged', retired_at=created_at WHERE id = ANY(%s)", (ids[::17],))
    c.execute(f"UPDATE {s}.memories SET persona_id='coach' WHERE id = ANY(%s)", (ids[3::19],))
    rng = random.Random(4)
    proved = doubted = fell_back = 0
    for j in range(60):
        contact = "s1" if j % 3 == 0 else "s0"
        if contact == "s1":  # near the cluster: its rows' cosines differ in the 3rd-4th decimal
            q = base + vecs.standard_normal(384).astype(np.float32) * 0.002
        elif j % 5 == 0:  # the vector of a memory (a distance 0, and ties where two rows share it)
            q = np.array(c.execute(f"SELECT embedding FROM {s}.memories WHERE id=%s", (rng.choice(ids),))
                         .fetchone()[0].to_list(), dtype=np.float32) * rng.choice([1.0, 7.5, 0.01])
        else:
            q = vecs.standard_normal(384).astype(np.float32) * rng.choice([1.0, 3.0, 0.05])
        k = rng.choice([1, 5, 40, 40, 100, 300])
        persona = "coach" if j % 4 == 0 else None
        half, exact, ok, doubt = picks(c, s, q, k, generic, contact=contact, persona=persona, past=j % 6 == 0)
        if ok:
            assert sorted(half) == sorted(exact), (j, contact, k)
            proved += 1
            doubted += doubt > 0
        else:
            fell_back += 1
    # each way was taken: proved alone or with rows re-ranked exactly, and fallen back to the exact pick
    assert proved >= 30 and doubted >= 5 and fell_back >= 3, (proved, doubted, fell_back)
    c.close()


def test_the_candidates_statement_falls_back_to_the_exact_pick(pg_url, version):
    """Every vector of the contact the same up to less than half precision resolves: the first pass proves
    nothing (its k-th and last rows are closer than 2 * HALF_EPS) and the statement answers the exact pick."""
    c, s = loaded(pg_url, version, archived=100)
    base = np.random.default_rng(2).standard_normal(384).astype(np.float32)
    rows = [r[0] for r in c.execute(f"SELECT id FROM {s}.memories WHERE contact_id='s0' ORDER BY id")]
    for i, mid in enumerate(rows):
        v = base.copy()
        v[i % 384] += 1e-5 * (1 + i // 384)
        c.execute(f"UPDATE {s}.memories SET embedding=%s WHERE id=%s", (Vector(v), mid))
    half, exact, ok, doubt = picks(c, s, base + 1e-6, 10, False)
    assert not ok and len(exact) == 10
    from projections.store import candidates_sql

    params = {**visibility_params("scale", "s0", NOW, False, None, False), "k": 10, "m": 10 + HALF_EXTRA,
              "eps": HALF_EPS, "model": LOCAL_MODEL_NAME, "q": Vector(base + 1e-6), "ids": [], "refs": []}
    got = {r[0] for r in c.execute(candidates_sql(s, True, False), params)}
    assert got == set(exact)
    c.close()
