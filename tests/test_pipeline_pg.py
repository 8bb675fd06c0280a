"""The interaction pipeline against a real PostgreSQL: projection, tracking, idempotency, dead letters."""
from __future__ import annotations

import pytest

from agents.pipeline import InteractionPipeline, Record
from streams import db
from schemas import events as ev
from schemas.envelope import encode
from tests.helpers import FakeEmbedder, interaction, records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


async def pipeline_for(pg_url: str, version: str, epoch: str = "epoch-a", embedder=None, **kw) -> InteractionPipeline:
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    return InteractionPipeline(conn, embedder or FakeEmbedder(), broker_epoch=epoch, **kw)


def rows(pg_url: str, version: str, sql: str, *args):
    with db.connect(pg_url) as conn:
        conn.execute(f"SET search_path TO {db.schema_of(version)}, rapport, public")
        return conn.execute(sql, args).fetchall()


CONVERSATION = [
    ("e1", "user", "Hey, I'm Arjun and I work at Infosys"),
    ("e2", "assistant", "Nice to meet you Arjun!"),
    ("e3", "user", "lol"),
    ("e4", "user", "My dog Bruno ate my shoes again"),
]


async def test_batch_projects_memories_state_sessions_and_tracking(pg_url, version):
    p = await pipeline_for(pg_url, version)
    envs = [interaction(i, m, role=r, minutes=n, display_name="Arjun", channel="whatsapp")
            for n, (i, r, m) in enumerate(CONVERSATION)]
    out = await p.process(records(envs))
    assert (out.applied, out.skipped, out.dead_letters) == (4, 0, [])

    mems = rows(pg_url, version, "SELECT content, memory_type, source_event_ids, embedding_model, embedding_dim "
                                 "FROM memories WHERE memory_type='episode' ORDER BY created_at")
    # one episode per meaningful *user* message: not the assistant turn, not "lol"
    assert [(m[0], m[1], m[2]) for m in mems] == [
        ("Hey, I'm Arjun and I work at Infosys", "episode", ["e1"]),
        ("My dog Bruno ate my shoes again", "episode", ["e4"])]
    assert all(m[3] == "fake-8" and m[4] == 8 for m in mems)

    (state,) = rows(pg_url, version, "SELECT state, message_count, session_count, display_name FROM contacts")
    assert state[1:] == (4, 1, "Arjun")
    assert [t["content"] for t in state[0]["window"]] == [m for _, _, m in CONVERSATION]
    assert rows(pg_url, version, "SELECT count(*) FROM sessions")[0][0] == 1
    assert rows(pg_url, version, "SELECT event_id, contact_seq FROM processed_events ORDER BY contact_seq") == [
        ("e1", 1), ("e2", 2), ("e3", 3), ("e4", 4)]
    assert rows(pg_url, version, "SELECT partition, broker_epoch, next_offset FROM watermarks") == [(0, "epoch-a", 4)]
    assert rows(pg_url, version, "SELECT count(*) FROM rapport.ledger WHERE event_id = ANY(%s)",
                ["e1", "e2", "e3", "e4"])[0][0] == 4


async def test_redelivery_is_skipped_by_watermark_and_by_tracking(pg_url, version):
    envs = [interaction(f"r{i}", f"I went hiking on trail number {i}", minutes=i) for i in range(5)]
    p = await pipeline_for(pg_url, version)
    await p.process(records(envs))
    # same broker, same offsets (a redelivery after a crash before the offset commit)
    again = await p.process(records(envs))
    assert (again.applied, again.skipped) == (0, 5)
    # a restarted worker (no cache) on a fresh broker: new epoch, new offsets -> tracking records catch it
    p2 = await pipeline_for(pg_url, version, epoch="epoch-b")
    moved = await p2.process(records(envs, start_offset=100))
    assert (moved.applied, moved.skipped) == (0, 5)
    assert rows(pg_url, version, "SELECT count(*) FROM memories")[0][0] == 5
    assert rows(pg_url, version, "SELECT message_count FROM contacts")[0][0] == 5
    # duplicates inside one batch count once
    dup = interaction("r9", "I bought a new bike today", minutes=30)
    out = await p2.process(records([dup, dup], start_offset=200))
    assert (out.applied, out.skipped) == (1, 1)


async def test_poison_records_become_dead_letters_and_the_batch_goes_on(pg_url, version):
    good1 = interaction("g1", "I moved to Berlin last month")
    good2 = interaction("g2", "Berlin is cold but I love it", minutes=1)
    bad_role = interaction("b1", "hello there friend", role="user").with_payload(role="robot")
    recs = [Record(encode(good1), "t", 0, 0), Record(b"\xff not json", "t", 0, 1),
            Record(b'{"event_id": "x"}', "t", 0, 2), Record(encode(bad_role), "t", 0, 3),
            Record(encode(good2), "t", 0, 4)]
    p = await pipeline_for(pg_url, version)
    out = await p.process(recs)
    assert out.applied == 2
    reasons = [d.reason for d in out.dead_letters]
    assert len(reasons) == 3
    assert reasons[0].startswith("not JSON")
    assert "missing envelope field" in reasons[1]
    assert "payload.role" in reasons[2]
    assert [r[0] for r in rows(pg_url, version, "SELECT event_id FROM processed_events ORDER BY contact_seq")] == [
        "g1", "g2"]
    # the dead-letter record carries the reason and the original bytes
    import orjson
    dl = orjson.loads(out.dead_letters[0].to_bytes())
    assert dl["offset"] == 1 and dl["reason"] == reasons[0]


async def test_state_survives_a_worker_restart(pg_url, version):
    p = await pipeline_for(pg_url, version)
    await p.process(records([interaction("s1", "I play Valorant on weekends")]))
    p2 = await pipeline_for(pg_url, version)  # new process: empty cache, state from PostgreSQL
    await p2.process(records([interaction("s2", "Bruno is learning a new trick", minutes=45)], start_offset=1))
    (r,) = rows(pg_url, version, "SELECT message_count, session_count, seq FROM contacts")
    assert r == (2, 2, 2)  # 45 minutes of silence: a second session


async def test_real_embeddings_are_stored_with_model_and_dimension(pg_url, version, embedder):
    p = await pipeline_for(pg_url, version, embedder=embedder)
    await p.process(records([interaction("v1", "I have a golden retriever named Bruno")]))
    (r,) = rows(pg_url, version, "SELECT embedding_model, embedding_dim, vector_norm(embedding) FROM memories "
                                 "WHERE memory_type='episode'")
    assert r[0] == "all-MiniLM-L6-v2" and r[1] == 384 and abs(r[2] - 1.0) < 1e-4


async def test_repeats_reinforce_instead_of_duplicating(pg_url, version, embedder):
    p = await pipeline_for(pg_url, version, embedder=embedder)
    envs = [interaction("d1", "My dog Bruno ate my shoes again"),
            interaction("d2", "my dog bruno ate my shoes AGAIN", minutes=1),      # same normalized text
            interaction("d3", "Bruno ate my shoes again!", minutes=2),            # a paraphrase (cosine 0.84)
            interaction("d4", "My cat Miso knocked over a plant", minutes=3)]     # something else
    await p.process(records(envs))
    # three unhappy messages in a row (the mood reads sad, sad, angry) also make the sustained-mood episode
    difficult = "content LIKE 'Went through a difficult period%%'"
    assert rows(pg_url, version, f"SELECT source_event_ids FROM memories WHERE {difficult}") == [(["d3"],)]
    mems = rows(pg_url, version, "SELECT content, importance, access_count, source_event_ids FROM memories "
                                 f"WHERE memory_type='episode' AND NOT {difficult} ORDER BY created_at")
    assert [(m[0], m[2], m[3]) for m in mems] == [
        ("My dog Bruno ate my shoes again", 2, ["d1", "d2", "d3"]),
        ("My cat Miso knocked over a plant", 0, ["d4"])]
    assert mems[0][1] == pytest.approx(0.6)  # 0.5 + 2 x 0.05
    layers = [r[0] for r in rows(pg_url, version, "SELECT payload->>'layer' FROM events "
                                                  "WHERE event_type='MemoryReinforced' ORDER BY causation_id")]
    assert layers == ["hash", "embedding"]
    # a new worker (cold caches) still finds the hot set through PostgreSQL
    p2 = await pipeline_for(pg_url, version, embedder=embedder)
    await p2.process(records([interaction("d5", "Bruno ate my shoes again!!", minutes=50)], start_offset=10))
    assert rows(pg_url, version, "SELECT count(*) FROM memories WHERE memory_type='episode' AND NOT "
                                 f"{difficult}")[0][0] == 2


async def test_erasure_removes_every_row_and_later_events_start_from_zero(pg_url, version):
    from schemas.events import contact_erased
    from agents.projector import CONTACT_TABLES

    p = await pipeline_for(pg_url, version)
    before = [interaction("x1", "I live in Lisbon", contact="zoe"), interaction("x2", "My cat is Miso", contact="zoe",
                                                                               minutes=1),
              interaction("k1", "I keep bees on my roof", contact="kim")]
    erase = contact_erased(event_id="erase-zoe", tenant_id="default", contact_id="zoe", at=before[0].occurred_at)
    after = interaction("x3", "Hello again, I just moved to Porto", contact="zoe", minutes=90)
    out = await p.process(records(before + [erase, after]))  # one batch: before, erasure, after
    assert out.applied == 5
    for table in CONTACT_TABLES:
        rows_left = rows(pg_url, version, f"SELECT count(*) FROM {table} WHERE contact_id='zoe'")[0][0]
        if table in ("contacts", "processed_events", "memories", "memory_terms", "memory_term_docs", "sessions",
                     "events"):
            assert rows_left >= 1, table  # the event after the erasure
    assert [r[0] for r in rows(pg_url, version, "SELECT content FROM memories WHERE contact_id='zoe' "
                                                "AND memory_type='episode'")] == ["Hello again, I just moved to Porto"]
    assert rows(pg_url, version, "SELECT message_count, session_count FROM contacts WHERE contact_id='zoe'") == [(1, 1)]
    assert rows(pg_url, version, "SELECT event_id FROM rapport.ledger WHERE contact_id='zoe' "
                                 "AND event_id = ANY(%s)", ["x1", "x2", "x3", "erase-zoe"]) == [("x3",)]
    # other contacts untouched; the erasure's own tracking record does not name the contact
    assert rows(pg_url, version, "SELECT count(*) FROM memories WHERE contact_id='kim' "
                                 "AND memory_type='episode'")[0][0] == 1
    (tracking,) = rows(pg_url, version, "SELECT contact_id FROM processed_events WHERE event_id='erase-zoe'")
    assert tracking[0].startswith("erased:") and "zoe" not in tracking[0]
    # erase again with nothing after: zero rows of zoe anywhere
    await p.process(records([contact_erased(event_id="erase-zoe-2", tenant_id="default", contact_id="zoe",
                                            at=after.occurred_at)], start_offset=10))
    for table in CONTACT_TABLES:
        assert rows(pg_url, version, f"SELECT count(*) FROM {table} WHERE contact_id='zoe'")[0][0] == 0, table
    assert rows(pg_url, version, "SELECT count(*) FROM rapport.ledger WHERE contact_id='zoe'")[0][0] == 0


async def test_access_events_are_recorded_but_move_neither_statistics_nor_sessions(pg_url, version):
    from schemas.events import memories_accessed

    p = await pipeline_for(pg_url, version)
    await p.process(records([interaction("a1", "I run marathons every spring")]))
    (mid,) = rows(pg_url, version, "SELECT id FROM memories")[0]
    at = "2026-05-01T10:00:00+00:00"
    acc = memories_accessed(event_id="acc-1", tenant_id="default", contact_id="arjun", memory_ids=[mid, mid, "gone"],
                            at=at, recorded_at=at)
    out = await p.process(records([acc], start_offset=1))
    # one event for the response, each id once; an id no longer held is named too (its row may be archived)
    assert out.applied == 1 and [(d.event_type, d.payload["memoryIds"]) for d in out.derived] == [
        ("MemoryAccessed", [mid, "gone"])]
    # being shown is not being used (issue 23): ranking's access frequency and recency, and the decay
    # clock, stay where the contact's own messages left them
    (r,) = rows(pg_url, version, "SELECT access_count, accessed_at = created_at FROM memories")
    assert r == (0, True)
    (c,) = rows(pg_url, version, "SELECT message_count, session_count, seq FROM contacts")
    assert c == (1, 1, 2)  # ordered in the contact's log, but not a message


async def test_supersession_expiry_and_the_entity_graph(pg_url, version):
    p = await pipeline_for(pg_url, version)
    await p.process(records([
        interaction("s1", "I live in Mumbai"),
        interaction("s2", "My dog's name is Bruno", minutes=1),
        interaction("s3", "I'm going to a concert tonight", minutes=2),
        interaction("s4", "I moved to Berlin last month", minutes=60 * 24 * 3),
        interaction("s5", "my dog's name is actually Max", minutes=60 * 24 * 3 + 1),
        interaction("s6", "I love biryani", minutes=60 * 24 * 3 + 2),
        interaction("s7", "I love pizza", minutes=60 * 24 * 3 + 3)]))
    facts = {r[0]: r[1:] for r in rows(pg_url, version,
             "SELECT content, status, superseded_by IS NOT NULL, valid_to IS NOT NULL, expires_at IS NOT NULL "
             "FROM memories WHERE memory_type <> 'episode'")}
    assert facts["Lives in Mumbai"][:3] == ("superseded", True, True)
    assert facts["Lives in Berlin"][:2] == ("active", False)
    assert facts["Is going to a concert tonight"][3] is True  # a one-day lifetime
    assert facts["Loves biryani"][0] == facts["Loves pizza"][0] == "active"  # unrelated facts never supersede
    names = {r[0]: r[1] for r in rows(pg_url, version, "SELECT content, status FROM memories "
                                                       "WHERE memory_key LIKE '%%pet_name%%'")}
    assert sorted(names.values()) == ["active", "superseded"]
    (by,) = rows(pg_url, version, "SELECT superseded_by FROM memories WHERE content='Lives in Mumbai'")
    assert rows(pg_url, version, "SELECT content FROM memories WHERE id=%s", by[0]) == [("Lives in Berlin",)]
    ents = {r[0]: r[1] for r in rows(pg_url, version, "SELECT ref, metadata FROM entities")}
    assert "place:berlin" in ents and "place:mumbai" in ents and "food:biryani" in ents
    linked = rows(pg_url, version, "SELECT m.content FROM memory_entities me JOIN memories m ON m.id = me.memory_id "
                                   "WHERE me.ref='place:berlin' ORDER BY m.content")
    assert ("Lives in Berlin",) in linked and ("I moved to Berlin last month",) in linked


async def test_tenant_scope_memory_and_outcome_boost(pg_url, version):
    from schemas import events as ev
    from streams.ingest import parse_ingest_body

    body = b'''[{"contact_id": "owner-priya", "scope": "tenant", "role": "user", "event_id": "b1",
                 "message": "We sell custom birthday cakes and we are located in Mumbai"},
                {"contact_id": "owner-priya", "scope": "tenant", "role": "user", "event_id": "b2",
                 "message": "Let's try a recipe post about mango cheesecake this week"},
                {"contact_id": "owner-priya", "scope": "tenant", "role": "user", "event_id": "b3",
                 "message": "The cheesecake post got 340 views!", "outcome_of": "b2", "outcome": "positive"}]'''
    envs = parse_ingest_body(body)
    assert {e.contact_id for e in envs} == {ev.TENANT_CONTACT} and envs[0].payload["scope"] == "tenant"
    p = await pipeline_for(pg_url, version)
    await p.process(records(envs))
    mems = rows(pg_url, version, "SELECT content, scope, decay_rate, importance, memory_type, source_event_ids "
                                 "FROM memories WHERE contact_id=%s ORDER BY created_at, content", ev.TENANT_CONTACT)
    assert mems and all(m[1] == "tenant" and m[2] == 0.01 for m in mems)
    assert any("cakes" in m[0].lower() and m[4] != "episode" for m in mems)  # business facts (seed 002 §4.2)
    decision = [m for m in mems if m[5][0] == "b2"]
    assert decision and all(m[3] == pytest.approx(0.6) for m in decision)  # 0.5 + 0.1 for the positive outcome
    assert all(m[5] == ["b2", "b3"] for m in decision)  # the outcome is part of their provenance


async def test_a_partition_back_from_another_worker_folds_on_the_committed_state(pg_url, version):
    """Two workers (a rebalance moved the partition from A to B and back): A's cached state of the
    contact is older than what B committed, and must not be folded on (it lost B's events from the
    contact's state while their tracking records stayed: a replay's digest then differed)."""
    a, b = await pipeline_for(pg_url, version), await pipeline_for(pg_url, version)
    envs = [interaction(f"mv{i}", f"Weekend story number {i} about the lake", minutes=i) for i in range(6)]
    assert (await a.process(records(envs[:2]))).applied == 2          # A owns the partition
    assert (await b.process(records(envs[2:4], start_offset=2))).applied == 2  # moved to B
    assert (await a.process(records(envs[4:], start_offset=4))).applied == 2   # and back to A
    (count, seq), = rows(pg_url, version, "SELECT message_count, seq FROM contacts")
    assert (count, seq) == (6, 6)
    assert [r[0] for r in rows(pg_url, version, "SELECT event_id FROM processed_events ORDER BY contact_seq")] == \
        [f"mv{i}" for i in range(6)]


async def test_overlapping_batches_of_two_workers_apply_each_event_once(pg_url, version):
    """A worker still finishing a batch after a rebalance gave its partition to another, which got the
    same (uncommitted) records: the contact row lock makes the second wait, then skip what the first
    applied."""
    import asyncio

    a, b = await pipeline_for(pg_url, version), await pipeline_for(pg_url, version)
    first = [interaction("ov0", "I moved to Lisbon last spring", minutes=0)]
    assert (await a.process(records(first))).applied == 1  # the contact row exists (and is cached)
    batch = [interaction(f"ov{i}", f"Another note number {i} about Lisbon life", minutes=i) for i in range(1, 5)]
    outs = await asyncio.gather(a.process(records(batch, start_offset=1)),
                                b.process(records(batch, start_offset=1)))
    assert sorted(o.applied for o in outs) == [0, 4]
    (count, seq), = rows(pg_url, version, "SELECT message_count, seq FROM contacts")
    assert (count, seq) == (5, 5)


async def test_events_recorded_but_never_published_fold_first_in_ledger_order(pg_url, version):
    """The API recorded four events of a contact (each answered 202) but published only the last (the
    database or the broker went down between recording and publishing the others, as in a PostgreSQL
    SIGKILL): the worker folds the three missing ones from the ledger before it, in ledger order, so
    `after=` for the last never answers while earlier ones are missing. Their late copies from the relay
    are duplicates. An event recorded before an erasure of its contact is left to the erasure."""
    from psycopg_pool import AsyncConnectionPool

    from streams import ingest

    pool = AsyncConnectionPool(pg_url, min_size=1, max_size=2, open=False, configure=db.configure_pool_conn)
    await pool.open(wait=True)
    try:
        with db.connect(pg_url) as conn:  # the ledger as this version knows it: other tests' versions share it
            conn.execute("DELETE FROM rapport.ledger")
        envs = [interaction(f"gap-{i}", m, minutes=i) for i, m in enumerate(
            ["I moved to Berlin last month", "My sister Priya lives in Pune", "lol", "I started learning the cello"])]
        other = interaction("gap-x", "I love hiking in the Alps", contact="meera")
        await ingest.record(pool, envs + [other])
        p = await pipeline_for(pg_url, version, ledger_order=True)
        out = await p.process(records([envs[3]], start_offset=40))
        assert out.applied == 4 and out.skipped == 0
        assert [e.event_id for e in out.sources] == ["gap-0", "gap-1", "gap-2", "gap-3"]
        assert rows(pg_url, version, "SELECT event_id, contact_seq FROM processed_events ORDER BY contact_seq") == [
            ("gap-0", 1), ("gap-1", 2), ("gap-2", 3), ("gap-3", 4)]  # not meera's: another contact
        (state,) = rows(pg_url, version, "SELECT state, message_count FROM contacts WHERE contact_id='arjun'")
        assert state[1] == 4 and [t["content"] for t in state[0]["window"]] == [e.payload["message"] for e in envs]
        # the relay's re-publish of the three, later: nothing applied twice
        again = await p.process(records(envs[:3], start_offset=90))
        assert (again.applied, again.skipped) == (0, 3)
        assert rows(pg_url, version, "SELECT message_count FROM contacts WHERE contact_id='arjun'")[0][0] == 4

        # recorded, then the contact's erasure, neither published: the erasure folds first and takes the
        # event with it (never folded); the contact starts again from the next one
        lost = interaction("gap-5", "My new number is in my notes", contact="lena")
        erasure = ev.contact_erased(event_id="gap-6", tenant_id="default", contact_id="lena", at=lost.occurred_at)
        later = interaction("gap-7", "Hello again, I am back", contact="lena", minutes=5)
        await ingest.record(pool, [lost, erasure, later])
        out = await p.process(records([later], start_offset=120))
        assert [e.event_id for e in out.sources] == ["gap-7"]
        assert rows(pg_url, version, "SELECT message_count FROM contacts WHERE contact_id='lena'")[0][0] == 1
        assert rows(pg_url, version, "SELECT event_id FROM rapport.ledger WHERE contact_id='lena'") == [("gap-7",)]
    finally:
        await pool.close()
