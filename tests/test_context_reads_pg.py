"""How /context reads PostgreSQL (issue 24): one pool connection per answer, the contact and the question's
keyword searches sent together in one round trip (the same results as read one by one), nothing kept
between answers (an answer after the contact changed shows the change), and the access records published
once per contact per flush."""
from __future__ import annotations

from datetime import timedelta

import pytest

from agents.pipeline import InteractionPipeline
from projections import metrics
from projections.edge_routes import keyword_searches
from projections.lexical import query_terms
from projections.service import AccessRecorder
from projections.store import Store
from schemas import events as ev
from streams import db
from tests.helpers import T0, interaction, records

SAID = ["Hi! I just moved into a new flat in Lisbon", "My brother Tom is a pilot in Denver",
        "I love hiking on weekends, we camped by the lake", "Work was busy today, lots of meetings",
        "Tom is flying to Tokyo next week", "My dog Bruno chewed the new sofa"]


def test_accesses_are_one_event_per_contact_per_flush():
    """Three answers for one contact within a flush: one event, each memory once in the order first
    served, at the latest serving; another contact's its own; a second drain has nothing left."""
    rec = AccessRecorder()
    rec.record("t", "a", ["m1", "m2"], "2026-01-01T10:00:00.100000Z")
    rec.record("t", "b", ["x"], "2026-01-01T10:00:00.200000Z")
    rec.record("t", "a", ["m3", "m1"], "2026-01-01T10:00:02.000000Z")
    rec.record("t", "a", ["m2"], "2026-01-01T10:00:01.000000Z")
    out = {e.contact_id: e for e in rec.drain()}
    assert set(out) == {"a", "b"}
    a = out["a"]
    assert a.event_type == ev.MEMORIES_ACCESSED and a.payload == {"memoryIds": ["m1", "m2", "m3"]}
    assert a.occurred_at == "2026-01-01T10:00:02.000000Z"
    assert out["b"].payload == {"memoryIds": ["x"]} and out["b"].occurred_at == "2026-01-01T10:00:00.200000Z"
    ev.validate_payload(a)
    assert rec.drain() == []


def test_an_erased_contacts_pending_accesses_are_never_published():
    """forget drops one contact's accesses not yet published (DELETE /contacts/{id}): another contact's stay."""
    rec = AccessRecorder()
    rec.record("t", "a", ["m1"], "2026-01-01T10:00:00.100000Z")
    rec.record("t", "b", ["x"], "2026-01-01T10:00:00.200000Z")
    rec.record("u", "a", ["y"], "2026-01-01T10:00:00.300000Z")
    rec.forget("t", "a")
    rec.forget("t", "nobody")
    assert sorted((e.tenant_id, e.contact_id) for e in rec.drain()) == [("t", "b"), ("u", "a")]


@pytest.mark.pg
@pytest.mark.asyncio
async def test_delete_drops_what_context_served_of_the_contact_before_the_erasure(pg_url, version, embedder):
    """A /context answer's accesses wait for the flush (RAPPORT_ACCESS_FLUSH_S); published after the erasure,
    they would put the erased contact's memory ids in the ledger again and make the worker fold a new state
    of it. DELETE drops them; another contact's are kept."""
    import httpx
    import psycopg

    from tests.helpers import api_in_process

    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    p = InteractionPipeline(conn, embedder, broker_epoch="e", version=version)
    await p.process(records([interaction(f"d{i}", text, contact=who, minutes=i)
                             for i, (who, text) in enumerate([("sam", SAID[1]), ("kim", SAID[5])])]))
    app, pool = await api_in_process(pg_url, embedder=embedder, redis=None)
    try:
        from projections import deps

        svc = deps.CURRENT.get()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            for who, q in (("sam", "what does Tom do?"), ("kim", "what did Bruno chew?")):
                r = await client.get(f"/context/{who}", params={"query": q, "budget": 1000})
                assert r.status_code == 200 and r.json()["memories"], r.text
            assert {("default", "sam"), ("default", "kim")} <= set(svc.accesses.pending)
            assert (await client.delete("/contacts/sam")).status_code == 202
        assert ("default", "sam") not in svc.accesses.pending and ("default", "kim") in svc.accesses.pending
        assert [e.contact_id for e in svc.accesses.drain()] == ["kim"]
    finally:
        await pool.close()
        await conn.close()


def test_many_memories_are_split_at_the_event_limit():
    rec = AccessRecorder()
    ids = [f"m{i}" for i in range(ev.MAX_ACCESSED_IDS + 5)]
    for i in range(0, len(ids), 5):
        rec.record("t", "a", ids[i:i + 5], f"2026-01-01T10:00:{i // 5:02d}.000000Z")
    out = rec.drain()
    assert [len(e.payload["memoryIds"]) for e in out] == [ev.MAX_ACCESSED_IDS, 5]
    assert [m for e in out for m in e.payload["memoryIds"]] == ids
    assert {e.occurred_at for e in out} == {f"2026-01-01T10:00:{(len(ids) - 1) // 5:02d}.000000Z"}


def test_the_flush_window_is_a_setting():
    from projections.service import ACCESS_FLUSH_S, ApiSettings

    assert ApiSettings.from_env({}).access_flush_s == ACCESS_FLUSH_S
    assert ApiSettings.from_env({"RAPPORT_ACCESS_FLUSH_S": "2.5"}).access_flush_s == 2.5
    assert ApiSettings.from_env({"RAPPORT_ACCESS_FLUSH_S": "0"}).access_flush_s == 0.1  # never a busy loop


@pytest.mark.pg
@pytest.mark.asyncio
async def test_context_reads_on_one_connection_and_sees_every_change(pg_url, version, embedder):
    import httpx
    import psycopg

    from tests.helpers import api_in_process

    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    p = InteractionPipeline(conn, embedder, broker_epoch="e", version=version)
    await p.process(records([interaction(f"r{i}", text, contact="sam", minutes=i) for i, text in enumerate(SAID)]))
    app, pool = await api_in_process(pg_url, embedder=embedder, redis=None)
    store = Store(pool)
    try:
        # the contact and both keyword searches ("camping" for "camped") in one round trip: what the
        # three statements return one by one
        q = "where did we go camping with Tom?"
        terms = query_terms(q)
        searches = keyword_searches(terms)
        assert len(searches) == 2  # the other forms are searched too, so three statements go together
        state, entities, speakers, found = await store.contact_and_searches("default", "sam", terms, searches, 40)
        assert (state, entities, speakers) == await store.contact_entities_speakers("default", "sam", terms)
        assert found == [await store.keyword_search("default", "sam", t, 40) for t in searches]
        assert found[0] and all(isinstance(v, float) for v in found[0].values())
        assert await store.contact_and_searches("default", "nobody", terms, searches, 40) == (
            None, [], [], [await store.keyword_search("default", "nobody", t, 40) for t in searches])

        at = (T0 + timedelta(hours=1)).isoformat()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            checkouts, statements = metrics.DB_CHECKOUTS._value.get(), metrics.DB_STATEMENTS._value.get()
            r = await client.get("/context/sam", params={"query": q, "budget": 1000, "as_of": at})
            assert r.status_code == 200, r.text
            # one connection for the whole answer (there was one per statement: 7-9), one for the access's
            # contact clock, and one when the active version is re-read (once a second)
            assert 2 <= metrics.DB_CHECKOUTS._value.get() - checkouts <= 3
            # contact + 2 searches, candidates, neighbours, cards (an entity is in play), the clock, the version
            assert 7 <= metrics.DB_STATEMENTS._value.get() - statements <= 8
            before = r.json()
            assert any("camped" in m["content"] for m in before["memories"])
            assert not any("Porto" in m["content"] for m in before["memories"])

            # the card memories read ahead with the neighbours are those the answer's own entities give: the
            # same answer when they are read again after the ranking
            from projections import edge_routes

            def used() -> tuple[float, float]:
                return (metrics.CARD_ROWS_AHEAD.labels("used")._value.get(),
                        metrics.CARD_ROWS_AHEAD.labels("read_again")._value.get())

            tom = {"query": "what does my brother Tom do?", "budget": 60, "as_of": at}
            was = used()
            ahead = (await client.get("/context/sam", params=tom)).json()
            assert used() == (was[0] + 1, was[1])
            assert {"person:tom", "pet:bruno"} <= {r for m in ahead["memories"] for r in m["entityRefs"]}
            orig = edge_routes.card_refs_ahead
            edge_routes.card_refs_ahead = lambda *a: set()  # nothing read ahead: read for the answer's refs
            try:
                again = (await client.get("/context/sam", params=tom)).json()
            finally:
                edge_routes.card_refs_ahead = orig
            assert used() == (was[0] + 1, was[1] + 1)
            assert again == ahead
            # why: the card statement's rows of fewer refs are its rows of more, filtered, in the same order
            when = T0 + timedelta(hours=1)
            both = await store.card_memories("default", "sam", ["person:tom", "pet:bruno"], when, None, 0.0)
            assert {r for row in both for r in row["entity_refs"]} >= {"person:tom", "pet:bruno"} and len(both) >= 3
            for one in ("person:tom", "pet:bruno"):
                assert await store.card_memories("default", "sam", [one], when, None, 0.0) == [
                    r for r in both if one in r["entity_refs"]]

            # the contact changes: the next answer shows it (nothing read is kept between answers)
            await p.process(records([interaction("r50", "Tom and I camped in Porto last summer", contact="sam",
                                                 minutes=30)], start_offset=50))
            after = (await client.get("/context/sam", params={"query": q, "budget": 1000, "as_of": at})).json()
            assert any("Porto" in m["content"] for m in after["memories"]), [m["content"] for m in after["memories"]]
            assert after["state"]["sessionCount"] >= before["state"]["sessionCount"]
            # read-your-writes is unchanged: after= waits for the event, then answers from the projection
            r = await client.get("/context/sam", params={"query": q, "after": "r50"})
            assert r.status_code == 200 and any("Porto" in m["content"] for m in r.json()["memories"])
    finally:
        await pool.close()
        await conn.close()
