"""An access event never brings an erased contact back (agents/core/contact.moot): a MemoriesAccessed (or a
curation request, a tick, a model's proposal) that reaches the fold after its contact was erased creates
nothing, and is recorded as handled. cb4de57 closed it for one API process (AccessRecorder.forget on
DELETE); here the cases it cannot see: another API process's flush after the erasure, and an access in
flight in the broker at the erasure (the same batch)."""
from __future__ import annotations

import json
from datetime import timedelta

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.core import contact as core
from agents.pipeline import InteractionPipeline
from agents.projector import CONTACT_TABLES, LEDGER_INSERT, ledger_row
from schemas import events as ev
from schemas.envelope import Envelope
from streams import db, tracking_key
from tests.helpers import T0, interaction, records

SAID = ["My brother Tom is a pilot in Denver", "My dog Bruno chewed the new sofa",
        "I love hiking on weekends, we camped by the lake"]


def _at(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).isoformat()


def _late_events(mids: list[str], tag: str, minutes: float) -> list[Envelope]:
    """What can still be on its way for sam at its erasure: /context's accesses of its memories, a
    correction and a forget of one of them, a tick of its due work."""
    at = _at(minutes)
    return [ev.memories_accessed(event_id=f"{tag}-acc", tenant_id="default", contact_id="sam", memory_ids=mids,
                                 at=at, recorded_at=at),
            ev.memory_correction_requested(event_id=f"{tag}-fix", tenant_id="default", contact_id="sam",
                                           memory_id=mids[0], at=at, changes={"content": "Tom flies for Lufthansa"}),
            ev.memory_forget_requested(event_id=f"{tag}-forget", tenant_id="default", contact_id="sam",
                                       memory_id=mids[-1], at=at, source_event_ids=["s0"]),
            ev.contact_tick(tenant_id="default", contact_id="sam", due_at=at, recorded_at=at)]


@pytest.mark.pg
@pytest.mark.asyncio
async def test_events_after_the_erasure_bring_no_contact_back(pg_url, version, embedder):
    import httpx

    from tests.helpers import api_in_process

    schema = db.schema_of(version)

    def q(sql: str, *args):  # noqa: ANN202
        with psycopg.connect(pg_url, autocommit=True) as c:
            c.execute(f"SET search_path TO {schema}, rapport, public")
            return c.execute(sql, args).fetchall()

    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    conn = await db.connect_async(pg_url, schema=schema)
    p = InteractionPipeline(conn, embedder, broker_epoch="e", version=version)
    try:
        await p.process(records([interaction(f"s{i}", t, contact="sam", minutes=i) for i, t in enumerate(SAID)]))
        mids = [r[0] for r in q("SELECT id FROM memories WHERE contact_id='sam' ORDER BY id")]
        assert mids

        # 1. in flight in the broker at the erasure: the same batch, after the ContactErased
        erase = ev.contact_erased(event_id="erase-sam", tenant_id="default", contact_id="sam", at=_at(10))
        inflight = _late_events(mids, "fly", 10)
        out = await p.process(records([erase, *inflight], start_offset=10))
        assert q("SELECT count(*) FROM contacts WHERE contact_id='sam'")[0][0] == 0  # not brought back
        assert (out.applied, out.skipped, out.dead_letters, out.derived) == (1, len(inflight), [], [])

        # 2. another API process's access flush (and curation requests) after the erasure: recorded in the
        # ledger by its ingest, then folded by a worker that knows nothing of the contact (a restart)
        late = [e for e in _late_events(mids, "late", 11) if e.event_type != ev.CONTACT_TICK]
        with psycopg.connect(pg_url, autocommit=True) as c:
            for e in late:
                c.execute(LEDGER_INSERT, ledger_row(e))
        p2 = InteractionPipeline(await db.connect_async(pg_url, schema=schema), embedder, broker_epoch="e2",
                                 version=version)
        try:
            out = await p2.process(records(late, start_offset=100))
            assert (out.applied, out.skipped, out.dead_letters, out.derived) == (0, len(late), [], [])
            # redelivered (a rebalance before the offset commit): still handled, nothing applied
            again = await p2.process(records(late, start_offset=200))
            assert (again.applied, again.skipped) == (0, len(late))
        finally:
            await p2.conn.close()

        # nothing of sam anywhere: no state row, no memories, no history
        for table in CONTACT_TABLES:
            assert q(f"SELECT count(*) FROM {table} WHERE contact_id='sam'")[0][0] == 0, table
        assert q("SELECT count(*) FROM rapport.ledger WHERE contact_id='sam'")[0][0] == 0
        # every late event is handled in this version, under the erased tracking id (naming no contact)
        handled = dict(q("SELECT event_id, contact_id FROM processed_events WHERE event_id = ANY(%s)",
                         [e.event_id for e in inflight + late]))
        assert handled == {e.event_id: tracking_key.erased_tracking_id("default", "sam") for e in inflight + late}
        # their ledger rows are gone, each leaving a keyed tombstone: a re-send is a duplicate
        keys = [tracking_key.event_tombstone("default", e.event_id) for e in late]
        assert q("SELECT count(*) FROM rapport.erased_events WHERE tenant_id='default' AND event_key = ANY(%s)",
                 keys)[0][0] == len(late)

        # the API answers as for a contact it never knew
        app, pool = await api_in_process(pg_url, embedder=embedder, redis=None)
        try:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
                for path in ("/context/{}", "/contacts/{}/memories", "/contacts/{}/export"):
                    params = {"query": "what does Tom do?"} if "context" in path else None
                    sam = await client.get(path.format("sam"), params=params)
                    nobody = await client.get(path.format("nobody"), params=params)
                    assert sam.status_code == nobody.status_code, path
                    if sam.status_code == 200:
                        body, none = sam.json(), json.loads(nobody.text.replace('"nobody"', '"sam"'))
                        for b in (body, none):
                            for k in ("as_of", "asOf", "exportedAt", "generatedAt"):
                                b.pop(k, None)
                        assert body == none, path
                ctx = await client.get("/context/sam", params={"after": "late-acc"})  # reflected: handled
                assert ctx.status_code == 200 and ctx.json()["memories"] == []
        finally:
            await pool.close()
    finally:
        await conn.close()


@pytest.mark.pg
@pytest.mark.asyncio
async def test_a_live_contact_still_folds_its_accesses_and_requests(pg_url, version, embedder):
    """The guard is for contacts with no state only: an access of a contact the fold holds is applied
    (MemoryAccessed), and a contact writing again after its erasure is a new contact whose own later
    events apply."""
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    p = InteractionPipeline(conn, embedder, broker_epoch="e", version=version)
    try:
        await p.process(records([interaction("k0", SAID[1], contact="sam")]))
        erase = ev.contact_erased(event_id="erase-sam", tenant_id="default", contact_id="sam", at=_at(1))
        again = interaction("k1", SAID[0], contact="sam", minutes=2)
        await p.process(records([erase, again], start_offset=1))
        with psycopg.connect(pg_url) as c:
            c.execute(f"SET search_path TO {db.schema_of(version)}, rapport, public")
            mids = [r[0] for r in c.execute("SELECT id FROM memories WHERE contact_id='sam'").fetchall()]
        assert mids
        acc = ev.memories_accessed(event_id="k-acc", tenant_id="default", contact_id="sam", memory_ids=mids,
                                   at=_at(3), recorded_at=_at(3))
        out = await p.process(records([acc], start_offset=3))
        assert out.applied == 1 and [d.event_type for d in out.derived] == [ev.MEMORY_ACCESSED]
        assert p.cache[("default", "sam")]["seq"] == 2
    finally:
        await conn.close()


def test_new_state_decision_is_pure_and_per_type():
    """Only a message starts a contact (an erasure is the shell's own step); every other source event
    needs one the fold holds."""
    assert {t for t in ev.SOURCE_TYPES if not core.needs_contact(t)} == {ev.INTERACTION_RECORDED, ev.CONTACT_ERASED}
    fresh = core.new_state("default", "sam")
    at = _at(0)
    acc = ev.memories_accessed(event_id="a", tenant_id="default", contact_id="sam", memory_ids=["m1"], at=at,
                               recorded_at=at)
    assert core.moot(fresh, acc) and not core.has_state(fresh)
    # folded from new_state anyway, it would make a contact: that is what the shell must not write
    made, derived = core.apply(fresh, acc)
    assert made["seq"] == 1 and derived
    assert not core.moot(made, acc)
    said = interaction("i", SAID[0], contact="sam")
    assert not core.moot(fresh, said)
    assert fresh == core.new_state("default", "sam")  # the decision reads, never writes


@given(st.sampled_from(sorted(ev.SOURCE_TYPES)), st.integers(min_value=0, max_value=10**9))
def test_moot_is_exactly_a_contact_event_without_state(event_type, seq):
    """For every source type and seq: nothing to apply iff the type needs an existing contact and nothing
    was ever applied (seq 0, as `new_state` has it)."""
    env = Envelope(event_id="x", event_type=event_type, schema_version=1, tenant_id="t", contact_id="c",
                      occurred_at=_at(0), recorded_at=_at(0), payload={})
    state = {**core.new_state("t", "c"), "seq": seq}
    assert core.moot(state, env) == (event_type not in (ev.INTERACTION_RECORDED, ev.CONTACT_ERASED) and seq == 0)
