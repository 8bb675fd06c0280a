"""The keyword statistics the projector keeps, on real PostgreSQL: BM25 with feedback computed from them
(Store.keyword_search) is lexical.BM25Index.search over the same memories, score for score and in the
same order; the neighbouring episodes read from them are retrieval.Timeline's; a memory's terms follow its
text through a pattern's growth, a relabelling and a merge; contacts whose memories predate them are
marked and searched the old way."""
from __future__ import annotations

import uuid
from datetime import timedelta

import numpy as np
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from psycopg_pool import AsyncConnectionPool

from agents.core.memory import content_hash, new_memory
from streams import db
from domain.text import doc_terms, doc_text
from projections import lexical
from projections.lexical import BM25Index, query_terms
from agents.projector import Batch, project_segments
from projections.retrieval import NEIGHBOUR_WIDTH, Timeline
from projections.store import MEMORY_COLUMNS, Store
from schemas import events as ev
from schemas.envelope import Envelope, format_time
from tests.helpers import T0
from tests.backends import pg_url  # noqa: F401  (every test here runs on each PostgreSQL backend)

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]

# few words, so that documents tie, share feedback terms and cross the feedback's document-frequency
# limit; stop words, a two-letter word, digits, an underscore and non-ASCII letters for the tokenizer
WORDS = ["caroline", "support", "group", "the", "of", "Pottery", "camp", "kids", "ok", "2023", "café", "ÉCOLE",
         "x_y", "melanie's", "run", "painting", "lgbtq", "mom"]
SPEAKERS = [None, "Caroline", "Melanie", ""]


def _env(tenant: str, contact: str, event_type: str, payload: dict, n: int) -> Envelope:
    at = format_time(T0 + timedelta(minutes=n))
    return Envelope(event_id=f"e-{contact}-{n}-{event_type}", event_type=event_type,
                    schema_version=ev.CURRENT_VERSIONS[event_type], tenant_id=tenant, contact_id=contact,
                    occurred_at=at, recorded_at=at, payload=payload)


def _memory(tenant: str, contact: str, i: int, text: str, speaker: str | None, minutes: int,
            memory_type: str = "episode") -> dict:
    return new_memory(memory_id=f"{contact}-m{i:02d}", tenant_id=tenant, contact_id=contact, memory_type=memory_type,
                      content=text, created_at=format_time(T0 + timedelta(minutes=minutes)),
                      source_event_ids=[f"src-{i}"], speaker=speaker)


def _merged(tenant: str, contact: str, loser: str, winner: str, n: int) -> Envelope:
    return _env(tenant, contact, ev.MEMORY_MERGED, {
        "memoryId": loser, "into": winner, "importance": 0.5, "accessCount": 1, "sourceEventIds": ["src"],
        "entityRefs": [], "similarity": 0.9, "at": format_time(T0 + timedelta(days=1))}, n)


@pytest.fixture
async def live(pg_url, version):
    """(a connection on the version's schema, a Store reading it): the version is made the live one."""
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    pool = AsyncConnectionPool(pg_url, min_size=1, max_size=2, open=False, configure=db.configure_pool_conn,
                               kwargs={"autocommit": True})
    await pool.open()
    try:
        yield conn, Store(pool)
    finally:
        await pool.close()
        await conn.close()


async def _reference(store: Store, tenant: str, contact: str, terms: list[str], k: int) -> dict[str, float]:
    docs = await store.memory_docs(tenant, contact)
    return BM25Index((d["id"], d["text"]) for d in docs).search(terms, k)


corpus = st.lists(st.tuples(st.lists(st.sampled_from(WORDS), min_size=0, max_size=9), st.sampled_from(SPEAKERS),
                            st.sampled_from([0, 1, 5, 5, 20, 40, 90]), st.booleans()), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=corpus, query=st.lists(st.sampled_from(WORDS), min_size=0, max_size=5), k=st.integers(1, 12),
       merges=st.lists(st.integers(0, 29), max_size=4), anchors=st.lists(st.integers(0, 31), max_size=6))
async def test_keyword_search_and_neighbours_equal_the_reference(live, docs, query, k, merges, anchors):
    conn, store = live
    tenant, contact = "default", "c" + uuid.uuid4().hex[:8]
    minutes, envs = 0, []
    for i, (words, speaker, gap, fact) in enumerate(docs):
        minutes += gap
        m = _memory(tenant, contact, i, " ".join(words), speaker, minutes, "fact" if fact else "episode")
        envs.append(_env(tenant, contact, ev.MEMORY_EXTRACTED, {"memory": m}, i))
    for j, loser in enumerate(merges):
        if loser < len(docs) and loser != 0:
            envs.append(_merged(tenant, contact, f"{contact}-m{loser:02d}", f"{contact}-m00", 100 + j))
    await project_segments(conn, [Batch(derived=envs)])
    terms = query_terms(" ".join(query))
    got = await store.keyword_search(tenant, contact, terms, k)
    assert got is not None
    want = await _reference(store, tenant, contact, terms, k)
    assert list(got.items()) == list(want.items())  # the same doubles, in the same order

    # the neighbouring episodes of some memories (ids that do not exist, merged ones included)
    ids = [f"{contact}-m{a:02d}" for a in anchors]
    where = dict(query_vec=np.ones(384, dtype=np.float32), model=None, as_of=T0 + timedelta(days=400),
                 persona_id=None)
    rows = await store.neighbours(tenant, contact, ids, 1800, NEIGHBOUR_WIDTH, **where)  # as the API asks
    timeline = Timeline(await store.memory_docs(tenant, contact))
    near = timeline.around(ids, 1800)
    served = {r["id"] for r in await store.retrievable_by_id(tenant, contact, [n for n, _ in near], **where)}
    assert [(r["id"], r["anchor"]) for r in rows] == [(n, a) for n, a in near if n in served]


async def _terms_of(conn, contact: str) -> dict[str, dict[str, int]]:
    cur = await conn.execute("SELECT memory_id, term, tf FROM memory_terms WHERE contact_id=%s", (contact,))
    out: dict[str, dict[str, int]] = {}
    for memory_id, term, tf in await cur.fetchall():
        out.setdefault(memory_id, {})[term] = tf
    return out


async def test_a_patterns_terms_follow_its_text_and_a_merged_memory_leaves_the_postings(live):
    conn, store = live
    tenant, contact = "default", "pat"
    first = _memory(tenant, contact, 0, "Often talks about pottery class: kids, clay", None, 0, "pattern")
    grown = {**first, "content": "Often talks about pottery: camping trips, kids, clay (12 times)"}
    grown["contentHash"] = content_hash(grown["content"])

    def compressed(p: dict, n: int) -> Envelope:
        return _env(tenant, contact, ev.EPISODES_COMPRESSED, {"pattern": p, "episodeIds": [], "theme": "t",
                                                               "created": n == 1, "at": p["createdAt"], "count": 3}, n)

    dup = _memory(tenant, contact, 1, "I signed up for a pottery class", "Caroline", 3)
    other = _memory(tenant, contact, 2, "Pottery class again, the kids loved it", "Caroline", 4)
    # one batch: the pattern founded, grown (the same statement twice for one memory), two episodes, a merge
    await project_segments(conn, [Batch(derived=[compressed(first, 1), compressed(grown, 2),
                                                 _env(tenant, contact, ev.MEMORY_EXTRACTED, {"memory": dup}, 3),
                                                 _env(tenant, contact, ev.MEMORY_EXTRACTED, {"memory": other}, 4),
                                                 _merged(tenant, contact, dup["id"], other["id"], 5)])])
    terms = await _terms_of(conn, contact)
    assert terms == {first["id"]: dict(doc_terms(grown["content"])[1]),  # not "class" any more
                     other["id"]: dict(doc_terms(doc_text("Caroline", other["content"]))[1])}
    assert "class" not in terms[first["id"]] and terms[first["id"]]["camping"] == 1
    relabelled = "Often talks about the pottery studio (12 times)"
    await project_segments(conn, [Batch(derived=[_env(tenant, contact, ev.PATTERN_RELABELLED, {
        "memoryId": first["id"], "label": "pottery studio", "content": relabelled,
        "contentHash": content_hash(relabelled), "count": 12, "at": first["createdAt"]}, 6)])])
    terms = await _terms_of(conn, contact)
    assert terms[first["id"]] == {"often": 1, "talks": 1, "pottery": 1, "studio": 1, "12": 1, "times": 1}
    cur = await conn.execute("SELECT memory_id, length FROM memory_term_docs WHERE contact_id=%s ORDER BY 1",
                             (contact,))
    assert await cur.fetchall() == [(first["id"], 8), (other["id"], 8)]  # "about", "the", "it" count too
    for q in (["pottery"], ["kids", "class"], ["studio", "caroline"]):
        assert list((await store.keyword_search(tenant, contact, q, 5)).items()) == \
            list((await _reference(store, tenant, contact, q, 5)).items())


async def test_contacts_with_memories_from_before_the_postings_are_searched_the_old_way(pg_url, live, monkeypatch):
    """The migration marks the contacts that already had memories; the API builds their index from the
    texts, as before, and answers as the postings would have."""
    conn, store = live
    tenant, contact = "default", "old"
    mems = [_memory(tenant, contact, i, t, "Mel", i) for i, t in
            enumerate(["We went camping with the kids", "The kids painted pottery", "Work was busy",
                       "We camped by the lake"])]
    await project_segments(conn, [Batch(derived=[_env(tenant, contact, ev.MEMORY_EXTRACTED, {"memory": m}, i)
                                                 for i, m in enumerate(mems)])])
    own = await store.keyword_search(tenant, contact, ["kids", "camping"], 10)
    assert set(own) == {mems[0]["id"], mems[1]["id"]}
    # the terms' other forms ("camped" for "camping") are a search of their own at a share (lexical.with_forms)
    forms = await store.keyword_search(tenant, contact, lexical.other_forms(["kids", "camping"]), 10)
    assert set(forms) == {mems[3]["id"]}
    want = lexical.with_forms(own, forms)
    assert want[mems[3]["id"]] == lexical.VARIANT_SHARE * forms[mems[3]["id"]] and want[mems[0]["id"]] == own[mems[0]["id"]]
    # a version migrated up to before the postings, with these memories, then migrated
    v = "t" + uuid.uuid4().hex[:10]
    s, live_schema = db.schema_of(v), (await store.schema())
    migrations = db._migrations("version")
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {s}")
        c.execute(f"SET search_path TO {s}, public")
        db._apply(c, s, [m for m in migrations if m[0] < "0009"])
        cols = MEMORY_COLUMNS + ", tenant_id, contact_id, content_hash, embedding, embedding_model, embedding_dim"
        c.execute(f"INSERT INTO {s}.memories ({cols}) SELECT {cols} FROM {live_schema}.memories WHERE contact_id=%s",
                  (contact,))
        c.execute(f"INSERT INTO {s}.contacts (tenant_id, contact_id, state) VALUES (%s, %s, %s)",
                  (tenant, contact, '{"firstSeen": "x", "memoryVersion": 1}'))
        db._apply(c, s, migrations)
        assert c.execute(f"SELECT tenant_id, contact_id FROM {s}.memory_terms_pending").fetchall() == [(tenant, contact)]
        c.execute("UPDATE rapport.active_version SET version=%s", (v,))
    store._version = None
    assert await store.keyword_search(tenant, contact, ["kids", "camping"], 10) is None
    from projections import edge_routes
    from tests.helpers import api_in_process

    app, pool = await api_in_process(pg_url, store=store, redis=None)
    try:
        got, timeline = await edge_routes.keyword_search(tenant, contact, {"firstSeen": "x", "memoryVersion": 1},
                                                         ["kids", "camping"])
    finally:
        await pool.close()
    assert list(got.items()) == list(want.items()) and timeline is not None
