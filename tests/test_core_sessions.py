"""domain/sessions.py: sessions, active-day streaks and the session window, all in event time."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from domain import sessions

GAP = 30 * 60
T0 = datetime(2026, 4, 3, 22, 15, tzinfo=timezone(timedelta(hours=5, minutes=30)))


def session_at(at: datetime, producer_session_id: str | None = None) -> dict:
    return sessions.open_session(1, "s-1", at, producer_session_id, None)


# ------------------------------------------------------------------------------------------ sessions
def test_no_session_yet_starts_one():
    assert sessions.starts_new_session(None, T0, GAP, None) is True


def test_29_minutes_of_silence_keeps_the_session():
    s = session_at(T0)
    assert sessions.starts_new_session(s, T0 + timedelta(minutes=29), GAP, None) is False


def test_exactly_30_minutes_keeps_the_session_31_starts_a_new_one():
    s = session_at(T0)
    assert sessions.starts_new_session(s, T0 + timedelta(minutes=30), GAP, None) is False
    assert sessions.starts_new_session(s, T0 + timedelta(minutes=30, seconds=1), GAP, None) is True
    assert sessions.starts_new_session(s, T0 + timedelta(minutes=31), GAP, None) is True


def test_gap_is_measured_from_the_last_activity_not_the_start():
    s = session_at(T0)
    for minutes in (20, 40, 60, 80):  # every step is 20 min after the previous one
        at = T0 + timedelta(minutes=minutes)
        assert sessions.starts_new_session(s, at, GAP, None) is False
        s = sessions.touch_session(s, at, "user")
    assert sessions.starts_new_session(s, T0 + timedelta(minutes=80 + 31), GAP, None) is True


def test_gap_is_event_time_across_utc_offsets():
    s = session_at(T0)  # 22:15 +05:30 == 16:45 UTC
    same_instant_plus_10 = datetime(2026, 4, 3, 16, 55, tzinfo=timezone.utc)
    assert sessions.starts_new_session(s, same_instant_plus_10, GAP, None) is False
    plus_45 = datetime(2026, 4, 3, 17, 30, tzinfo=timezone.utc)
    assert sessions.starts_new_session(s, plus_45, GAP, None) is True


def test_a_different_producer_session_id_starts_a_new_session():
    s = session_at(T0, "chat-1")
    soon = T0 + timedelta(minutes=1)
    assert sessions.starts_new_session(s, soon, GAP, "chat-2") is True
    assert sessions.starts_new_session(s, soon, GAP, "chat-1") is False
    assert sessions.starts_new_session(s, soon, GAP, None) is False  # no id named: time decides


def test_out_of_order_events_stay_in_the_current_session():
    s = sessions.touch_session(session_at(T0), T0 + timedelta(minutes=10), "user")
    late = T0 - timedelta(hours=3)  # arrives now, happened long before the session's last activity
    assert sessions.starts_new_session(s, late, GAP, None) is False
    touched = sessions.touch_session(s, late, "user")
    # last activity never moves backwards; the turn still counts
    assert touched["lastActivityAt"] == (T0 + timedelta(minutes=10)).isoformat()
    assert touched["turnCount"] == s["turnCount"] + 1


def test_touch_session_counts_turns_and_user_turns():
    s = session_at(T0)
    s = sessions.touch_session(s, T0 + timedelta(seconds=5), "user")
    s = sessions.touch_session(s, T0 + timedelta(seconds=9), "assistant")
    s = sessions.touch_session(s, T0 + timedelta(seconds=20), "user")
    assert (s["turnCount"], s["userTurns"]) == (3, 2)
    assert s["lastActivityAt"] == (T0 + timedelta(seconds=20)).isoformat()
    assert s["startedAt"] == T0.isoformat()


def test_open_session_records_the_producer_fields():
    s = sessions.open_session(4, "sid", T0, "chat-9", "coach")
    assert s == {"sessionId": "sid", "index": 4, "startedAt": T0.isoformat(), "lastActivityAt": T0.isoformat(),
                 "turnCount": 0, "userTurns": 0, "producerSessionId": "chat-9", "personaId": "coach"}


# ------------------------------------------------------------------------------------------ streaks
def test_first_activity_starts_a_streak_of_one():
    assert sessions.next_streak(None, 0, date(2026, 4, 3)) == ("2026-04-03", 1)


def test_consecutive_days_extend_the_streak():
    assert sessions.next_streak("2026-04-03", 4, date(2026, 4, 4)) == ("2026-04-04", 5)


def test_same_day_leaves_the_streak_unchanged():
    assert sessions.next_streak("2026-04-03", 4, date(2026, 4, 3)) == ("2026-04-03", 4)


def test_a_missed_day_resets_the_streak_to_one():
    assert sessions.next_streak("2026-04-03", 9, date(2026, 4, 5)) == ("2026-04-05", 1)
    assert sessions.next_streak("2026-04-03", 9, date(2026, 6, 1)) == ("2026-06-01", 1)


def test_a_late_event_from_an_earlier_day_changes_nothing():
    assert sessions.next_streak("2026-04-05", 3, date(2026, 4, 2)) == ("2026-04-05", 3)


def test_streak_across_month_and_year_boundaries():
    assert sessions.next_streak("2026-01-31", 2, date(2026, 2, 1)) == ("2026-02-01", 3)
    assert sessions.next_streak("2025-12-31", 7, date(2026, 1, 1)) == ("2026-01-01", 8)


def test_local_day_is_the_contacts_own_calendar_day():
    # 22:15 on the 3rd in India is 16:45 UTC: still the 3rd; 01:30 on the 4th in India is the 3rd in UTC
    assert sessions.local_day(T0) == date(2026, 4, 3)
    ist_after_midnight = datetime(2026, 4, 4, 1, 30, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    assert sessions.local_day(ist_after_midnight) == date(2026, 4, 4)


# ------------------------------------------------------------------------------------------ window
def turn(i: int) -> dict:
    return {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}", "occurredAt": str(i)}


def test_window_keeps_every_turn_up_to_its_size():
    w: list = []
    for i in range(20):
        w = sessions.push_window(w, turn(i), 20)
    assert w == [turn(i) for i in range(20)]


def test_window_keeps_the_first_turn_and_the_last_19():
    w: list = []
    for i in range(50):
        w = sessions.push_window(w, turn(i), 20)
    assert len(w) == 20
    assert w[0] == turn(0)
    assert w[1:] == [turn(i) for i in range(31, 50)]


def test_push_window_does_not_mutate_its_input():
    w = [turn(0), turn(1)]
    before = list(w)
    sessions.push_window(w, turn(2), 2)
    assert w == before


@settings(max_examples=200, deadline=None)
@given(n=st.integers(min_value=1, max_value=80), size=st.integers(min_value=1, max_value=25))
def test_window_property(n: int, size: int):
    pushed = [turn(i) for i in range(n)]
    w: list = []
    for t in pushed:
        w = sessions.push_window(w, t, size)
        assert len(w) <= size
    assert len(w) == min(n, size)
    assert w[0] == pushed[0]  # the first turn ever pushed is always kept
    tail = w[1:]
    # the rest is the most recent turns, in order
    assert tail == pushed[len(pushed) - len(tail):]
