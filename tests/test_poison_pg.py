"""Poison-proof processing against a real PostgreSQL: an event the worker cannot apply is dead-lettered
once and marked done (no re-send by the relay, no second dead letter on redelivery), the rest of its
batch is applied, and the scheduler survives a contact with an unrepresentable due time."""
from __future__ import annotations

from datetime import datetime, timezone

import orjson
import pytest

from agents.pipeline import InteractionPipeline
from agents.scheduler import due_ticks
from streams import db
from schemas import events as ev
from streams.ingest import relay_once
from tests.helpers import FakeEmbedder, interaction, records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


async def pipeline_for(pg_url: str, version: str, epoch: str = "epoch-a") -> InteractionPipeline:
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    return InteractionPipeline(conn, FakeEmbedder(), broker_epoch=epoch)


def rows(pg_url: str, version: str, sql: str, *args):
    with db.connect(pg_url) as conn:
        conn.execute(f"SET search_path TO {db.schema_of(version)}, rapport, public")
        return conn.execute(sql, args).fetchall()


def at(event_id: str, contact: str, when: str):
    return ev.interaction(event_id=event_id, tenant_id="default", contact_id=contact, occurred_at=when,
                          recorded_at="2026-04-03T21:00:00+00:00", role="user", message="I love hiking in the Alps")


class RecordingPublisher:
    def __init__(self) -> None:
        self.sent: list[tuple[bytes, bytes]] = []

    async def publish_raw(self, rows_) -> None:  # noqa: ANN001
        self.sent += rows_


def ledger(pg_url: str, envs) -> None:
    """The API's outbox rows for these events (what the relay reads)."""
    from agents.projector import LEDGER_INSERT, ledger_row

    with db.connect(pg_url, autocommit=True) as conn:
        for e in envs:
            conn.execute(LEDGER_INSERT, ledger_row(e))


@pytest.mark.parametrize("when", ["9999-12-31T23:59:59Z", "0001-01-01T00:00:00+14:00"])
async def test_a_time_the_fold_cannot_hold_is_dead_lettered_once_and_never_relayed(pg_url, version, when):
    tag = when[:4]
    good1, bad, good2 = (interaction(f"g1-{tag}", "I moved to Berlin last month", contact=f"c1-{tag}"),
                         at(f"bad-{tag}", f"c2-{tag}", when),
                         interaction(f"g2-{tag}", "Berlin is cold but I love it", contact=f"c1-{tag}", minutes=1))
    ledger(pg_url, [good1, bad, good2])
    p = await pipeline_for(pg_url, version)
    out = await p.process(records([good1, bad, good2]))
    assert out.applied == 2
    assert [(d.record.offset, "occurred_at" in d.reason) for d in out.dead_letters] == [(1, True)]
    assert f"bad-{tag}" not in {e.event_id for e in out.sources}  # nothing downstream acts on it
    # done in the tracking records, so the relay has nothing to re-send ...
    assert rows(pg_url, version, "SELECT event_id FROM processed_events WHERE event_id=%s", f"bad-{tag}") == [
        (f"bad-{tag}",)]
    pub = RecordingPublisher()
    sent, _, _ = await relay_once(_Pool(pg_url), pub, db.schema_of(version))
    assert [orjson.loads(v)["event_id"] for _, v in pub.sent if f"-{tag}" in orjson.loads(v)["event_id"]] == []
    # ... and a redelivery (a fresh broker, new offsets) is skipped, not dead-lettered again
    p2 = await pipeline_for(pg_url, version, epoch="epoch-b")
    again = await p2.process(records([bad], start_offset=50))
    assert (again.applied, again.skipped, again.dead_letters) == (0, 1, [])
    # no row of the bad contact holds a time outside what Python can read
    assert rows(pg_url, version, "SELECT count(*) FROM contacts WHERE contact_id=%s", f"c2-{tag}") == [(0,)]


async def test_a_contact_whose_writes_fail_is_isolated_and_the_batch_goes_on(pg_url, version):
    """A projection write that raises for one contact (a trigger stands in for any such bug) used to fail
    the whole batch forever; now the batch is retried contact by contact."""
    schema = db.schema_of(version)
    with db.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE FUNCTION {schema}.boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                     f"IF NEW.contact_id = 'boom' THEN RAISE EXCEPTION 'cannot store %', NEW.contact_id; END IF; "
                     f"RETURN NEW; END $$")
        conn.execute(f"CREATE TRIGGER boom BEFORE INSERT ON {schema}.memories FOR EACH ROW "
                     f"EXECUTE FUNCTION {schema}.boom()")
    envs = [interaction("i1", "I keep bees on my roof", contact="ann"),
            interaction("i2", "My dog Bruno ate my shoes again", contact="boom"),
            interaction("i3", "I play the cello on Sundays", contact="ben", minutes=1),
            interaction("i4", "Bruno loves the beach", contact="boom", minutes=2)]
    p = await pipeline_for(pg_url, version)
    out = await p.process(records(envs))
    assert out.applied == 2
    assert [d.record.offset for d in out.dead_letters] == [1, 3]
    assert all("cannot store boom" in d.reason for d in out.dead_letters)
    assert sorted(rows(pg_url, version, "SELECT DISTINCT contact_id FROM memories")) == [("ann",), ("ben",)]
    assert sorted(r[0] for r in rows(pg_url, version, "SELECT event_id FROM processed_events")) == [
        "i1", "i2", "i3", "i4"]
    assert rows(pg_url, version, "SELECT next_offset FROM watermarks") == [(4,)]
    # the same batch redelivered: nothing applied twice, nothing dead-lettered twice
    p2 = await pipeline_for(pg_url, version, epoch="epoch-b")
    again = await p2.process(records(envs, start_offset=10))
    assert (again.applied, again.skipped, again.dead_letters) == (0, 4, [])
    # the contact's later events are still tried (the fault may be gone): the trigger dropped, it applies
    with db.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"DROP TRIGGER boom ON {schema}.memories")
    later = await p2.process(records([interaction("i5", "Bruno is learning to swim", contact="boom", minutes=3)],
                                     start_offset=20))
    assert (later.applied, later.dead_letters) == (1, [])


async def test_the_scheduler_skips_a_contact_with_an_unreadable_due_time(pg_url, version):
    p = await pipeline_for(pg_url, version)
    await p.process(records([interaction("s1", "I run marathons every spring", contact="fine"),
                             interaction("s2", "I run marathons every autumn", contact="ancient")]))
    schema = db.schema_of(version)
    with db.connect(pg_url, autocommit=True) as conn:  # what a year-0001 +14:00 event stored before the guard
        conn.execute(f"UPDATE {schema}.contacts SET next_due_at='0001-12-31 10:00:00+00 BC', "
                     f"next_due_wall='2000-01-01T00:00:00Z' WHERE contact_id='ancient'")
        conn.execute(f"UPDATE {schema}.contacts SET next_due_wall='2000-01-01T00:00:00Z' WHERE contact_id='fine'")
        conn.execute("INSERT INTO rapport.active_version (version) VALUES (%s) ON CONFLICT (singleton) "
                     "DO UPDATE SET version=EXCLUDED.version", (version,))
    conn = await db.connect_async(pg_url, autocommit=True)
    try:
        ticks = await due_ticks(conn, datetime(2026, 5, 1, tzinfo=timezone.utc))
    finally:
        await conn.close()
    assert [(t.contact_id, t.event_type) for t in ticks] == [("fine", ev.CONTACT_TICK)]


class _Pool:
    """psycopg's pool interface for relay_once, over one connection per use (dict rows, as the API's)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def connection(self):  # noqa: ANN201
        import contextlib

        from psycopg.rows import dict_row

        @contextlib.asynccontextmanager
        async def cm():
            conn = await db.connect_async(self.url, autocommit=True)
            conn.row_factory = dict_row
            try:
                yield conn
            finally:
                await conn.close()
        return cm()
