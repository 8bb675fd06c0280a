"""The relay's choice of what to re-send (streams/ingest.plan_relay) and its retry delay
(projections/service.relay_delay): pure functions over plain data, property-tested (issue 24)."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from projections import service
from streams.ingest import LedgerRow, plan_relay

NOW = 1_000_000.0


@st.composite
def ledgers(draw):  # noqa: ANN001, ANN201
    n = draw(st.integers(0, 40))
    seqs = sorted(draw(st.sets(st.integers(1, 200), min_size=n, max_size=n)))
    rows = [LedgerRow(s, NOW - draw(st.floats(0, 600)), draw(st.booleans()), draw(st.booleans()))
            for s in seqs]
    after = draw(st.integers(0, seqs[0] - 1)) if seqs else draw(st.integers(0, 10))
    cursor = draw(st.integers(0, after))
    return rows, after, cursor


@given(ledgers(), st.sampled_from([0.0, 30.0, 120.0, float("inf")]), st.floats(0, 120))
def test_what_is_resent_and_how_far_the_window_moves(ledger, older_than_s, settle_s) -> None:
    rows, after, cursor = ledger
    plan = plan_relay(rows, NOW, after_seq=after, cursor=cursor, older_than_s=older_than_s, settle_s=settle_s)
    due = {r.seq for r in rows if not r.applied and not r.erased_later and r.recorded_at <= NOW - older_than_s}
    # only what is due: never an applied row, one younger than the minimum age, or one erased later
    assert set(plan.resend) <= due and list(plan.resend) == sorted(plan.resend)
    # nothing due is skipped: the next pass starts after `covered`, and every due row up to it is sent now
    assert {s for s in due if s <= plan.covered} == set(plan.resend)
    assert all(s <= plan.covered for s in plan.resend)
    # the window stops before the first unapplied row too young to send (it may be in flight)
    young = [r.seq for r in rows if not r.applied and r.recorded_at > NOW - older_than_s]
    assert plan.covered < min(young, default=float("inf"))
    assert plan.covered == (max((r.seq for r in rows if r.seq < min(young)), default=after) if young else
                            max((r.seq for r in rows), default=after))
    assert plan.covered >= after
    # the cursor passes only an unbroken, settled, applied run (from a cursor that was at after_seq)
    assert plan.cursor >= cursor
    if plan.cursor > cursor:
        assert cursor == after
        assert all(r.applied and r.recorded_at <= NOW - settle_s for r in rows if r.seq <= plan.cursor)
    # the same window planned again from `covered` re-sends nothing this plan sent
    again = plan_relay([r for r in rows if r.seq > plan.covered], NOW, after_seq=plan.covered,
                       cursor=min(plan.cursor, plan.covered), older_than_s=older_than_s, settle_s=settle_s)
    assert not set(again.resend) & set(plan.resend)


def test_young_unapplied_rows_are_left_for_a_later_pass() -> None:
    rows = [LedgerRow(1, NOW - 600, True), LedgerRow(2, NOW - 300, False), LedgerRow(3, NOW - 5, False),
            LedgerRow(4, NOW - 400, False), LedgerRow(5, NOW - 400, False, erased_later=True)]
    plan = plan_relay(rows, NOW, after_seq=0, cursor=0, older_than_s=120)
    # 3 may be in flight: the window stops before it; 4 waits for the next pass after it
    assert plan.resend == (2,) and plan.cursor == 1 and plan.covered == 2
    later = plan_relay([LedgerRow(3, NOW - 5, True)] + rows[3:], NOW + 1, after_seq=2, cursor=1, older_than_s=120)
    assert later.resend == (4,) and later.covered == 5  # 5 was erased later: passed over, never sent


def test_a_cursor_past_the_window_is_refused() -> None:
    with pytest.raises(ValueError, match="past after_seq"):
        plan_relay([], NOW, after_seq=3, cursor=5, older_than_s=0)


@given(st.integers(0, 10_000))
def test_retry_delay_backs_off_up_to_the_regular_period(failures: int) -> None:
    d = service.relay_delay(failures)
    assert 0 < d <= service.RELAY_EVERY_S
    if failures == 0:
        assert d == service.RELAY_EVERY_S
    else:  # after a failure: sooner than the regular pass at first, never sooner as failures go on
        assert service.relay_delay(failures + 1) >= d


def test_retry_delay_starts_short_and_refuses_a_negative_count() -> None:
    assert service.relay_delay(1) == service.RELAY_RETRY_S < service.RELAY_EVERY_S
    with pytest.raises(ValueError):
        service.relay_delay(-1)


@given(st.integers(0, 1000), st.integers(0, 1000), st.floats(0, 10_000), st.floats(0, 10_000))
def test_the_rows_at_a_held_cursor_are_sent_once_more_only_past_the_window_and_the_period(
        cursor: int, ahead: int, moved_at: float, later: float) -> None:
    again = service.relay_rewind(cursor, cursor + ahead, moved_at, moved_at + later)
    assert again == (ahead > 0 and later >= service.RELAY_REWIND_S)


def test_a_window_before_the_cursor_is_refused() -> None:
    with pytest.raises(ValueError, match="before the cursor"):
        service.relay_rewind(5, 3, 0.0, 1000.0)
