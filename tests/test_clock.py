"""The contact's event-time clock (domain/clock.py), written once and used by the fold, the scheduler and
the API: a hostile timestamp (an event dated ahead of the wall clock) must not carry a contact's time
into the future through any of them. Expected values are hand-computed from the timestamps."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from agents.core import contact as core
from agents.pipeline import InteractionPipeline
from agents.scheduler import due_ticks
from domain import clock
from streams import db
from projections.deps import contact_now
from schemas import events as ev
from schemas.envelope import now_utc, parse_time
from tests.helpers import FakeEmbedder, records

UTC = timezone.utc
WALL = datetime(2026, 4, 3, 21, 0, tzinfo=UTC)
DAY = 86400.0


def message(event_id: str, occurred_at: str, recorded_at: str, contact: str = "c"):
    return ev.interaction(event_id=event_id, tenant_id="t", contact_id=contact, occurred_at=occurred_at,
                          recorded_at=recorded_at, role="user", message="I started a pottery class")


def test_the_skew_is_how_far_an_event_ran_behind_the_wall_clock_and_never_ahead():
    assert clock.skew_s(datetime(2023, 4, 3, 21, 0, tzinfo=UTC), WALL) == 1096 * DAY  # 2024 is a leap year
    assert clock.skew_s(WALL - timedelta(milliseconds=1500), WALL) == 1.5
    assert clock.skew_s(WALL + timedelta(hours=23), WALL) == 0.0


def test_the_contact_now_and_the_wall_time_are_inverses_and_never_run_ahead_of_the_wall_clock():
    assert clock.contact_now(WALL, 3600.0) == datetime(2026, 4, 3, 20, 0, tzinfo=UTC)
    assert clock.wall_time(datetime(2026, 4, 3, 20, 0, tzinfo=UTC), 3600.0) == WALL
    assert clock.contact_now(WALL, None) == WALL
    # a skew stored negative (before the clamp) counts as none, both ways; a far one no longer overflows
    assert clock.contact_now(WALL, -82800.0) == WALL and clock.wall_time(WALL, -82800.0) == WALL
    assert clock.contact_now(WALL, -7000 * 365 * DAY) == WALL


def test_the_fold_records_no_negative_skew_for_an_event_dated_ahead_of_the_wall_clock():
    s = core.new_state("t", "c")
    # 23 hours ahead: the edge accepts up to 24 (schemas/validate.py)
    s, _ = core.apply_interaction(s, message("m1", "2026-04-04T20:00:00+00:00", "2026-04-03T21:00:00+00:00"), [])
    assert s["clockAt"] == "2026-04-04T20:00:00+00:00" and s["clockSkewS"] == 0.0
    # an import from 2023 behind it is older than the contact's clock: the clock stays
    s, _ = core.apply_interaction(s, message("m2", "2023-04-03T21:00:00+00:00", "2026-04-03T21:05:00+00:00"), [])
    assert s["clockSkewS"] == 0.0
    historical = core.new_state("t", "h")
    historical, _ = core.apply_interaction(
        historical, message("h1", "2023-04-03T21:00:00+00:00", "2026-04-03T21:00:00+00:00", contact="h"), [])
    assert historical["clockSkewS"] == 1096 * DAY


def test_the_api_reads_a_hostile_contact_in_the_wall_clocks_time():
    before = now_utc()
    hostile = contact_now({"clockSkewS": -82800.0})  # as a state recorded before the clamp holds it
    assert before <= hostile <= now_utc()
    historical = contact_now({"clockSkewS": 1096 * DAY})
    assert before - timedelta(days=1096) <= historical <= now_utc() - timedelta(days=1096)


@pytest.mark.pg
@pytest.mark.asyncio
async def test_the_scheduler_ticks_a_hostile_contact_at_the_wall_clock_not_in_the_future(pg_url, version):
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="epoch-a")
    await p.process(records([message("s1", "2026-04-03T20:00:00+00:00", "2026-04-03T21:00:00+00:00", contact="late"),
                             message("s2", "2026-04-03T20:00:00+00:00", "2026-04-03T21:00:00+00:00", contact="ahead")]))
    await conn.close()
    schema = db.schema_of(version)
    with db.connect(pg_url, autocommit=True) as c:
        # `ahead`: a row written before the clamp, its events 7000 years ahead of the wall clock
        c.execute(f"UPDATE {schema}.contacts SET clock_skew_s = %s WHERE contact_id = 'ahead'", (-7000 * 365 * DAY,))
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) ON CONFLICT (singleton) "
                  "DO UPDATE SET version=EXCLUDED.version", (version,))
        due = {r[0]: (r[1], r[2]) for r in c.execute(
            f"SELECT contact_id, next_due_at, clock_skew_s FROM {schema}.contacts").fetchall()}
    # work falls due within the hour after the message (the session closes 30 minutes after it), in the
    # contact's time; `late` runs an hour behind the wall clock
    assert due["late"][1] == 3600.0 and due["late"][0] <= datetime(2026, 4, 3, 21, 0, tzinfo=UTC)
    now = datetime(2026, 5, 1, tzinfo=UTC)
    conn = await db.connect_async(pg_url, autocommit=True)
    try:
        ticks = {t.contact_id: t for t in await due_ticks(conn, now)}
    finally:
        await conn.close()
    assert parse_time(ticks["late"].occurred_at) == now - timedelta(hours=1)
    assert parse_time(ticks["ahead"].occurred_at) == now  # not in year 9026
