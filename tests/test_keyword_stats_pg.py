"""The keyword statistics the projector keeps (memory_terms, memory_term_docs), on real PostgreSQL, against
a from-scratch count made here: after inserts, a correction, a merge, a forget, an erasure, and in a replay
of the same events into a new version; and a question answered from them builds no index in the API."""
from __future__ import annotations

import re
import uuid
from collections import Counter
from datetime import timedelta

import orjson
import psycopg
import pytest

from agents.core.memory import content_hash, new_memory
from agents.projector import Applied, Batch, project_segments
from domain.text import STOP
from projections import edge_routes, metrics
from projections.store import Store
from schemas import events as ev
from schemas.envelope import Envelope, format_time
from streams import db
from tests.helpers import T0, api_in_process

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]

WORD = re.compile(r"[^\W_]+")  # the spec: a memory is indexed by the lower-cased words of "speaker: content"


def scratch(rows: list[tuple]) -> tuple[dict, dict, tuple[int, int]]:
    """What the tables must hold for these memory rows (id, speaker, content, status, created_at, type),
    counted here: postings {(term, id): (tf, length)}, docs {id: (length, [(term, tf)...], created_at, type)}
    with the terms in the order the text first says them, and the contact's totals (docs, summed length);
    a memory merged into another is not searched."""
    postings, docs = {}, {}
    for mid, speaker, content, status, created_at, memory_type in rows:
        if status == "merged":
            continue
        words = WORD.findall((content if speaker is None else f"{speaker}: {content}").lower())
        counts = Counter(w for w in words if w not in STOP)
        docs[mid] = (len(words), list(counts.items()), created_at, memory_type)
        for term, tf in counts.items():
            postings[(term, mid)] = (tf, len(words))
    return postings, docs, (len(docs), sum(d[0] for d in docs.values()))


async def stored(conn, tenant: str, contact: str) -> tuple[dict, dict, tuple[int, int]]:
    cur = await conn.execute("SELECT term, memory_id, tf, length FROM memory_terms WHERE tenant_id=%s AND "
                             "contact_id=%s", (tenant, contact))
    postings = {(t, m): (tf, n) for t, m, tf, n in await cur.fetchall()}
    cur = await conn.execute("SELECT memory_id, length, terms, tfs, created_at, memory_type FROM memory_term_docs "
                             "WHERE tenant_id=%s AND contact_id=%s", (tenant, contact))
    docs = {m: (n, list(zip(terms, tfs)), at, mt) for m, n, terms, tfs, at, mt in await cur.fetchall()}
    cur = await conn.execute("SELECT docs, total_length FROM memory_term_stats WHERE tenant_id=%s AND contact_id=%s",
                             (tenant, contact))
    totals = await cur.fetchone()  # none: no memory searched (a row may also stay at 0 / 0)
    return postings, docs, tuple(totals) if totals is not None else (0, 0)


async def from_scratch(conn, tenant: str, contact: str) -> tuple[dict, dict, tuple[int, int]]:
    cur = await conn.execute("SELECT id, speaker, content, status, created_at, memory_type FROM memories "
                             "WHERE tenant_id=%s AND contact_id=%s", (tenant, contact))
    return scratch(await cur.fetchall())


def _env(contact: str, event_type: str, payload: dict, n: int, tenant: str = "default") -> Envelope:
    at = format_time(T0 + timedelta(minutes=n))
    return Envelope(event_id=f"e-{contact}-{n}-{event_type}", event_type=event_type,
                    schema_version=ev.CURRENT_VERSIONS[event_type], tenant_id=tenant, contact_id=contact,
                    occurred_at=at, recorded_at=at, payload=payload)


def _extracted(contact: str, i: int, text: str, speaker: str | None, memory_type: str = "episode") -> Envelope:
    m = new_memory(memory_id=f"{contact}-m{i}", tenant_id="default", contact_id=contact, memory_type=memory_type,
                   content=text, created_at=format_time(T0 + timedelta(minutes=i)), source_event_ids=[f"src-{i}"],
                   speaker=speaker)
    return _env(contact, ev.MEMORY_EXTRACTED, {"memory": m}, i)


async def _version(pg_url: str) -> tuple[str, psycopg.AsyncConnection]:
    v = "t" + uuid.uuid4().hex[:10]
    with psycopg.connect(pg_url, autocommit=True) as c:
        db.ensure_version(c, v, activate_if_none=False, status="building")
    return v, await db.connect_async(pg_url, schema=db.schema_of(v), autocommit=True)


async def test_the_statistics_equal_a_count_from_scratch_through_every_change_and_a_replay(pg_url, version):
    conn = await db.connect_async(pg_url, schema=db.schema_of(version), autocommit=True)
    a, b = "kw-a", "kw-b"
    new_text = "Caroline's support group moved to Tuesdays, the group meets at the café"
    batches = [
        Batch(derived=[
            _extracted(a, 0, "I went to the LGBTQ support group, the group was great", "Caroline"),
            _extracted(a, 1, "Caroline goes to a support group on Mondays", None, "fact"),
            _extracted(a, 2, "Melanie painted a sunset with the kids", "Melanie"),
            _extracted(a, 3, "We painted a sunset with the kids at camp", "Melanie"),
            _extracted(a, 4, "Pottery class again: pottery, pottery, clay", "Melanie"),
            _extracted(b, 0, "My brother Tom is a pilot in Denver", "Sam"),
            _extracted(b, 1, "Tom flies to Denver on Fridays", "Sam")]),
        # a correction of one memory's text (with its speaker, as the API sends it) and of another's type
        Batch(derived=[
            _env(a, ev.MEMORY_CORRECTED, {"memoryId": f"{a}-m1", "at": format_time(T0 + timedelta(hours=1)),
                                          "content": new_text, "contentHash": content_hash(new_text),
                                          "previousContentHash": content_hash("x")}, 10),
            _env(a, ev.MEMORY_CORRECTED, {"memoryId": f"{a}-m2", "at": format_time(T0 + timedelta(hours=1)),
                                          "memoryType": "fact", "decayRate": 0.001}, 11)]),
        # a near-duplicate merged into the other: searched no more
        Batch(derived=[_env(a, ev.MEMORY_MERGED, {
            "memoryId": f"{a}-m3", "into": f"{a}-m2", "importance": 0.5, "accessCount": 1,
            "sourceEventIds": ["src-2", "src-3"], "entityRefs": [], "similarity": 0.93,
            "at": format_time(T0 + timedelta(hours=2))}, 12)]),
        # a memory forgotten: its statistics are shredded with it
        Batch(derived=[_env(a, ev.MEMORY_FORGOTTEN, {"memoryId": f"{a}-m4",
                                                     "at": format_time(T0 + timedelta(hours=3))}, 13)]),
    ]
    erase_b = Batch(erasures=[Applied(_env(b, ev.CONTACT_ERASED, {}, 14), contact_seq=1)])

    # hand-counted, for the first memory: 12 words, of which "i", "to", "the" (twice) and "was" are stop words
    await project_segments(conn, batches[:1])
    postings, docs, totals = await stored(conn, "default", a)
    assert docs[f"{a}-m0"][:2] == (12, [("caroline", 1), ("went", 1), ("lgbtq", 1), ("support", 1), ("group", 2),
                                        ("great", 1)])
    assert postings[("pottery", f"{a}-m4")] == (3, 7) and ("the", f"{a}-m0") not in postings
    assert totals == (5, 12 + 8 + 8 + 10 + 7)
    for contact in (a, b):
        assert await stored(conn, "default", contact) == await from_scratch(conn, "default", contact)

    await project_segments(conn, batches[1:2])
    postings, docs, totals = await stored(conn, "default", a)
    assert ("tuesdays", f"{a}-m1") in postings and ("mondays", f"{a}-m1") not in postings
    assert docs[f"{a}-m2"][3] == "fact"
    assert (postings, docs, totals) == await from_scratch(conn, "default", a)

    await project_segments(conn, batches[2:3])
    postings, docs, totals = await stored(conn, "default", a)
    assert f"{a}-m3" not in docs and not any(m == f"{a}-m3" for _, m in postings)
    assert (postings, docs, totals) == await from_scratch(conn, "default", a)

    await project_segments(conn, batches[3:])
    postings, docs, totals = await stored(conn, "default", a)
    assert f"{a}-m4" not in docs and ("pottery", f"{a}-m4") not in postings and ("clay", f"{a}-m4") not in postings
    assert (postings, docs, totals) == await from_scratch(conn, "default", a)
    assert set(docs) == {f"{a}-m0", f"{a}-m1", f"{a}-m2"}
    assert totals == (3, 12 + 13 + 8)  # the corrected text is 13 words ("caroline", "s", ...)

    await project_segments(conn, [erase_b])
    assert await stored(conn, "default", b) == ({}, {}, (0, 0))
    assert (postings, docs, totals) == await stored(conn, "default", a)  # another contact's stay as they were

    # a replay of the same events into a new version builds the same rows
    v2, conn2 = await _version(pg_url)
    try:
        await project_segments(conn2, [*batches, erase_b])
        for contact in (a, b):
            assert await stored(conn2, "default", contact) == await stored(conn, "default", contact)
    finally:
        await conn2.close()
        with psycopg.connect(pg_url, autocommit=True) as c:
            c.execute(f"DROP SCHEMA {db.schema_of(v2)} CASCADE")
            c.execute("DELETE FROM rapport.projection_versions WHERE version=%s", (v2,))
    await conn.close()


def _builds() -> float:
    return metrics.KEYWORD_INDEX_BUILDS._value.get()


async def test_a_question_reads_the_statistics_and_builds_no_index(pg_url, version, monkeypatch):
    """/context with a query for a contact of the projection: no index built, the contact's texts never
    read; for a contact marked as predating the statistics, one build (the fallback), kept while its
    state stays (so the count can tell the two apart)."""
    conn = await db.connect_async(pg_url, schema=db.schema_of(version), autocommit=True)
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    contact = "kw-q"
    texts = ["We went camping with the kids near the lake", "The kids painted pottery", "Work was busy",
             "My sister Ana lives in Lisbon", "Ana started a pottery studio"]
    await project_segments(conn, [Batch(derived=[_extracted(contact, i, t, "Mel") for i, t in enumerate(texts)])])
    state = {"tenantId": "default", "contactId": contact, "firstSeen": "2024-01-01T00:00:00Z",
             "lastSeen": "2024-01-01T01:00:00Z", "sessionCount": 1, "activeStreak": 1, "lastActiveDay": "2024-01-01",
             "messageCount": 5, "userMessageCount": 5, "window": [], "seq": 5, "memoryVersion": 5}
    await conn.execute("INSERT INTO contacts (tenant_id, contact_id, state) VALUES ('default', %s, %s::jsonb)",
                       (contact, orjson.dumps(state).decode()))
    reads = []
    real_docs = Store.memory_docs

    async def memory_docs(self, tenant_id, contact_id):  # noqa: ANN001, ANN202
        reads.append(contact_id)
        return await real_docs(self, tenant_id, contact_id)

    monkeypatch.setattr(Store, "memory_docs", memory_docs)
    app, pool = await api_in_process(pg_url, redis=None)
    try:
        before = _builds()
        for q in ("Where did the kids go camping?", "What does Ana do?", "pottery"):
            body = await edge_routes.build_context("default", contact, query=q, persona_id=None, budget=2000, at=None)
            assert body["memories"]
        assert _builds() == before and reads == []
        body = await edge_routes.build_context("default", contact, query="camping lake", persona_id=None,
                                               budget=2000, at=None)
        assert body["memories"][0]["content"] == texts[0]

        # the same contact marked as predating the statistics: the API builds its index once
        await conn.execute("INSERT INTO memory_terms_pending (tenant_id, contact_id) VALUES ('default', %s)",
                           (contact,))
        for _ in range(2):
            body = await edge_routes.build_context("default", contact, query="camping lake", persona_id=None,
                                                   budget=2000, at=None)
            assert body["memories"][0]["content"] == texts[0]
        assert _builds() == before + 1 and reads == [contact]
    finally:
        await pool.close()
        await conn.close()


async def test_the_bench_load_writes_what_the_projector_would(pg_url, version):
    """`rapport bench context` copies memories in bulk beside their keyword statistics: they must be those
    of the projector (a wrong total would change every BM25 score the benchmark times)."""
    from ops.bench import bulk_load

    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    bulk_load(pg_url, 3, 4, archived=5)
    conn = await db.connect_async(pg_url, schema=db.schema_of(version), autocommit=True)
    try:
        for contact in ("s0", "s1", "s2"):
            got, want = await stored(conn, "scale", contact), await from_scratch(conn, "scale", contact)
            assert got == want and want[2][0] == 9
    finally:
        await conn.close()
