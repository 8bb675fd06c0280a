"""agents/core/patterns.py: mood history, baseline, sustained negative mood, check-in time, timing pattern,
engagement decline. All event-time driven and pure."""
from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.core import patterns as p

IST = timezone(timedelta(hours=5, minutes=30))
PST = timezone(timedelta(hours=-8))
T0 = datetime(2026, 3, 1, 10, 0, tzinfo=timezone.utc)


def iso(dt: datetime) -> str:
    return dt.isoformat()


def mood(m: str, energy: str = "medium", style: str = "casual", confidence: float | None = None) -> dict:
    d = {"mood": m, "energy": energy, "style": style}
    if confidence is not None:
        d["confidence"] = confidence
    return d


def history_of(moods: list, start: datetime = T0, step: timedelta = timedelta(minutes=1)) -> dict:
    h = p.new_history()
    for k, m in enumerate(moods):
        h = p.push_mood(h, m if isinstance(m, dict) else mood(m), iso(start + k * step))
    return h


# ------------------------------------------------------------------------------------- mood history
def test_push_mood_records_the_classification_with_its_time():
    h = p.push_mood(None, mood("happy", "high", "playful", 0.91), "2026-03-01T10:00:00Z")
    assert h == {"entries": [{"at": "2026-03-01T10:00:00+00:00", "mood": "happy", "energy": "high",
                              "style": "playful", "confidence": 0.91}]}
    json.dumps(h)  # JSON-able


def test_push_mood_keeps_the_last_50():
    h = history_of([mood("happy")] * 49 + [mood("sad")] * 6)
    assert len(h["entries"]) == p.HISTORY_SIZE == 50
    assert h["entries"][-1]["mood"] == "sad" and h["entries"][0]["at"] == iso(T0 + timedelta(minutes=5))


def test_push_mood_orders_by_event_time_and_keeps_ties_in_arrival_order():
    h = p.push_mood(None, mood("happy"), iso(T0 + timedelta(hours=2)))
    h = p.push_mood(h, mood("sad"), iso(T0))  # a late event
    h = p.push_mood(h, mood("angry"), iso(T0 + timedelta(hours=2)))  # same time as the first
    assert [e["mood"] for e in h["entries"]] == ["sad", "happy", "angry"]


def test_push_mood_compares_instants_across_offsets():
    h = p.push_mood(None, mood("happy"), "2026-03-01T10:00:00+05:30")  # 04:30Z
    h = p.push_mood(h, mood("sad"), "2026-03-01T05:00:00+00:00")       # later instant, earlier wall time
    assert [e["mood"] for e in h["entries"]] == ["happy", "sad"]


def test_push_mood_does_not_mutate_its_input():
    h = history_of(["happy", "sad"])
    before = copy.deepcopy(h)
    p.push_mood(h, mood("angry"), iso(T0))
    assert h == before


def test_push_mood_rejects_a_bad_timestamp():
    with pytest.raises(ValueError):
        p.push_mood(None, mood("happy"), "yesterday")


# ----------------------------------------------------------------------------------------- baseline
def test_baseline_is_the_most_common_mood_energy_and_style():
    h = history_of([mood("happy", "medium", "playful")] * 4 + [mood("sad", "low", "supportive")] * 2)
    assert p.baseline(h) == {"mood": "happy", "energy": "medium", "style": "playful", "samples": 6, "days": 1,
                             "seen": {"mood": {"happy": 4, "sad": 2}, "energy": {"medium": 4, "low": 2}}}


def test_baseline_of_nothing_is_none():
    assert p.baseline(None) is None and p.baseline(p.new_history()) is None


def test_baseline_ties_go_to_the_most_recent_value():
    assert p.baseline(history_of(["happy", "sad", "sad", "happy"]))["mood"] == "happy"
    assert p.baseline(history_of(["happy", "sad", "happy", "sad"]))["mood"] == "sad"


def test_baseline_window_is_the_last_20_messages():
    h = history_of(["sad"] * 15 + ["happy"] * 20)
    b = p.baseline(h)
    assert b["mood"] == "happy" and b["samples"] == 20
    h = history_of(["sad"] * 11 + ["happy"] * 9)  # 20 messages: 11 sad
    assert p.baseline(h)["mood"] == "sad"
    h = history_of(["sad"] * 11 + ["happy"] * 10)  # 21 messages: the oldest sad falls out -> 10/10, happy newer
    assert p.baseline(h)["mood"] == "happy"


def test_baseline_window_is_the_last_14_days_in_event_time():
    old = [(T0, "sad")] * 6
    h = p.new_history()
    for k, (t, m) in enumerate(old):
        h = p.push_mood(h, mood(m), iso(t + timedelta(minutes=k)))
    recent_start = T0 + timedelta(days=20)
    for k in range(3):
        h = p.push_mood(h, mood("happy"), iso(recent_start + timedelta(minutes=k)))
    b = p.baseline(h)
    assert b["mood"] == "happy" and b["samples"] == 3


def test_baseline_window_includes_exactly_14_days_back():
    newest = T0 + timedelta(days=14)
    h = p.push_mood(None, mood("sad"), iso(T0))                     # exactly 14 days before: included
    h = p.push_mood(h, mood("sad"), iso(T0 - timedelta(seconds=1)))  # 14 days + 1s: excluded
    h = p.push_mood(h, mood("happy"), iso(newest))
    assert p.baseline(h)["samples"] == 2


# --------------------------------------------------------------------------------------- is_unusual
DAILY = timedelta(hours=20)  # one message a day, over several days


def test_unusual_needs_at_least_5_messages_over_3_days():
    four = p.baseline(history_of([mood("happy", "medium", "playful")] * 4, step=DAILY))
    five = p.baseline(history_of([mood("happy", "medium", "playful")] * 5, step=DAILY))
    assert p.is_unusual(mood("sad", "low"), four) is False
    assert p.is_unusual(mood("sad", "low"), five) is True
    # a first conversation of eleven messages is no baseline, however many messages it has
    one_evening = p.baseline(history_of([mood("sad", "medium", "venting")] * 11))
    assert one_evening["days"] == 1 and p.is_unusual(mood("neutral", "medium"), one_evening) is False
    two_days = p.baseline(history_of([mood("sad", "medium", "venting")] * 11, step=timedelta(hours=3)))
    assert two_days["days"] == 2 and p.is_unusual(mood("neutral", "medium"), two_days) is False


def test_a_mood_they_often_have_is_not_unusual():
    # mostly neutral evenings, grateful on a quarter of them: grateful is in character, sad is not
    b = p.baseline(history_of([mood("neutral")] * 6 + [mood("grateful")] * 2, step=DAILY))
    assert b["mood"] == "neutral"
    assert p.is_unusual(mood("grateful"), b) is False
    assert p.is_unusual(mood("sad"), b) is True


def test_unusual_when_mood_or_energy_differ():
    b = p.baseline(history_of([mood("happy", "medium", "playful")] * 8, step=DAILY))
    assert p.is_unusual(mood("happy", "medium"), b) is False
    assert p.is_unusual(mood("sad", "medium"), b) is True
    assert p.is_unusual(mood("happy", "low"), b) is True
    assert p.is_unusual(mood("happy", "medium", "deep"), b) is False  # style alone is not unusual


def test_unusual_without_baseline_or_mood_is_false():
    b = p.baseline(history_of(["happy"] * 8))
    assert p.is_unusual(mood("sad"), None) is False
    assert p.is_unusual({}, b) is False
    assert p.is_unusual({"mood": None, "energy": "low"}, b) is False


def test_a_baseline_without_samples_is_trusted():
    assert p.is_unusual(mood("sad", "low"), {"mood": "happy", "energy": "medium", "style": "playful"}) is True


def test_describe_baseline():
    assert p.describe_baseline({"mood": "happy", "energy": "medium", "style": "playful"}) == \
        "normally playful and medium-energy"
    assert p.describe_baseline({"mood": "neutral", "energy": "low", "style": "deep"}) == \
        "normally reflective and low-energy"
    assert p.describe_baseline({"mood": "sad", "energy": None, "style": None}) == "normally sad"
    assert p.describe_baseline(None) == ""


def test_the_seed_example_end_to_end():
    h = history_of([mood("happy", "medium", "playful")] * 10 + [mood("excited", "high", "playful")] * 3, step=DAILY)
    b = p.baseline(h)
    current = mood("sad", "low", "supportive")
    assert p.is_unusual(current, b)
    assert f"This is unusual: {p.describe_baseline(b)}" == "This is unusual: normally playful and medium-energy"


# ------------------------------------------------------------------------------- sustained negative
@pytest.mark.parametrize("moods,expected", [
    (["sad", "sad"], False),
    (["sad", "sad", "sad"], True),
    (["happy", "sad", "anxious", "angry"], True),
    (["sad", "anxious", "happy", "angry", "sad"], False),
    (["sad", "sad", "frustrated"], False),  # frustrated is not in the seed's set
    (["sad", "sad", "neutral", "sad"], False),
    ([], False),
])
def test_sustained_negative(moods, expected):
    assert p.sustained_negative(history_of(moods)) is expected


def test_sustained_negative_skips_unclassified_entries():
    h = history_of(["sad", "sad", {"mood": None, "energy": None, "style": None}, "sad"])
    assert p.sustained_negative(h) is True


def run_sustained(moods: list) -> tuple[dict, list[bool]]:
    s, fired = p.new_sustained_state(), []
    for k, m in enumerate(moods):
        s, f = p.step_sustained(s, m, iso(T0 + timedelta(minutes=k)))
        fired.append(f)
    return s, fired


def test_step_sustained_fires_on_the_third_negative_message_only():
    _, fired = run_sustained(["sad", "sad"])
    assert fired == [False, False]
    s, fired = run_sustained(["sad", "anxious", "angry", "sad", "sad"])
    assert fired == [False, False, True, False, False]
    assert s["run"] == 5 and s["fired"] is True and s["episodes"] == 1
    assert s["since"] == iso(T0)


def test_step_sustained_rearms_after_a_non_negative_mood():
    s, fired = run_sustained(["sad"] * 3 + ["neutral"] + ["sad"] * 3 + ["happy", "sad"])
    assert fired == [False, False, True, False, False, False, True, False, False]
    assert s["episodes"] == 2 and s["run"] == 1 and s["fired"] is False


def test_step_sustained_ignores_unclassified_messages():
    s, fired = run_sustained(["sad", "sad", None, "sad"])
    assert fired == [False, False, False, True]


def test_step_sustained_accepts_a_classification_dict_and_does_not_mutate():
    s0 = p.new_sustained_state()
    s1, f = p.step_sustained(s0, mood("sad"), iso(T0))
    assert s0 == p.new_sustained_state() and s1["run"] == 1 and f is False
    json.dumps(s1)


# ------------------------------------------------------------------------------------- next morning
@pytest.mark.parametrize("at,expected", [
    ("2026-04-03T22:15:00+05:30", "2026-04-04T09:00:00+05:30"),
    ("2026-04-03T08:59:00+05:30", "2026-04-04T09:00:00+05:30"),   # before 9 but after 5: next day
    ("2026-04-03T04:59:59+05:30", "2026-04-03T09:00:00+05:30"),   # still night: the same day
    ("2026-04-03T05:00:00+05:30", "2026-04-04T09:00:00+05:30"),
    ("2026-04-03T00:10:00+05:30", "2026-04-03T09:00:00+05:30"),
    ("2026-04-03T23:30:00-08:00", "2026-04-04T09:00:00-08:00"),
    ("2026-04-03T02:30:00-08:00", "2026-04-03T09:00:00-08:00"),
    ("2026-04-03T09:00:00-08:00", "2026-04-04T09:00:00-08:00"),   # exactly 09:00: strictly after
    ("2026-04-03T12:00:00Z", "2026-04-04T09:00:00+00:00"),
    ("2026-04-03T12:00:00", "2026-04-04T09:00:00+00:00"),          # no offset: UTC
    ("2026-12-31T21:00:00+05:30", "2027-01-01T09:00:00+05:30"),
    ("2028-02-28T18:00:00-08:00", "2028-02-29T09:00:00-08:00"),
])
def test_next_morning(at, expected):
    assert p.next_morning(at) == expected


def test_next_morning_is_in_the_events_own_offset_not_utc():
    # the same instant, 2026-04-03T17:45Z: evening in India, morning in California
    assert p.next_morning("2026-04-03T23:15:00+05:30") == "2026-04-04T09:00:00+05:30"
    assert p.next_morning("2026-04-03T09:45:00-08:00") == "2026-04-04T09:00:00-08:00"


def test_next_morning_other_hours():
    assert p.next_morning("2026-04-03T22:00:00+05:30", hour=8) == "2026-04-04T08:00:00+05:30"
    assert p.next_morning("2026-04-03T02:00:00+05:30", hour=3) == "2026-04-03T03:00:00+05:30"
    assert p.next_morning("2026-04-03T04:00:00+05:30", hour=3) == "2026-04-04T03:00:00+05:30"
    for bad in (-1, 24, 9.5, True):
        with pytest.raises(ValueError):
            p.next_morning("2026-04-03T22:00:00Z", hour=bad)


# ------------------------------------------------------------------------------------------- timing
def timing_of(times: list[datetime]) -> dict:
    s = p.new_timing_state()
    for t in times:
        s = p.step_timing(s, iso(t))
    return s


def nightly(days: int, per_day: int, hour: int, tz=IST, start=datetime(2026, 3, 1)) -> list[datetime]:
    return [start.replace(tzinfo=tz) + timedelta(days=d, hours=hour, minutes=5 + 7 * k)
            for d in range(days) for k in range(per_day)]


def test_timing_pattern_the_seed_example():
    s = timing_of(nightly(14, 2, 22) + nightly(14, 1, 23))
    assert p.timing_pattern(s) == {"startHour": 22, "endHour": 0, "share": 1.0, "days": 14,
                                   "label": "Usually chats between 10pm-12am"}


def test_timing_needs_14_days_13_is_not_enough():
    assert p.timing_pattern(timing_of(nightly(13, 1, 22))) is None
    assert p.timing_pattern(timing_of(nightly(14, 1, 22)))["days"] == 14


def test_timing_days_count_first_and_last_day():
    s = timing_of([datetime(2026, 3, 1, 22, tzinfo=IST)] * 9 + [datetime(2026, 3, 14, 22, tzinfo=IST)])
    assert p.timing_days(s) == 14 and p.timing_pattern(s) is not None
    s = timing_of([datetime(2026, 3, 1, 22, tzinfo=IST)] * 9 + [datetime(2026, 3, 13, 22, tzinfo=IST)])
    assert p.timing_days(s) == 13 and p.timing_pattern(s) is None


def test_timing_70_percent_fires_69_does_not():
    inside = nightly(14, 5, 22)[:70]
    outside = nightly(14, 3, 13)[:30]
    r = p.timing_pattern(timing_of(inside + outside))
    assert r is not None and r["share"] == 0.7 and r["startHour"] == 22
    r = p.timing_pattern(timing_of(inside[:69] + nightly(14, 3, 13)[:31]))
    assert r is None


def test_timing_7_of_10_fires_exactly_at_the_threshold():
    day = [datetime(2026, 3, 1, tzinfo=IST) + timedelta(days=d) for d in range(14)]
    times = [d + timedelta(hours=22, minutes=30) for d in day[:7]] + \
            [d + timedelta(hours=9) for d in (day[8], day[10], day[13])]
    assert p.timing_pattern(timing_of(times))["share"] == 0.7
    times[0] = day[0] + timedelta(hours=15)  # 6 of 10
    assert p.timing_pattern(timing_of(times)) is None


def test_timing_needs_10_messages():
    times = [datetime(2026, 3, 1, 22, tzinfo=IST) + timedelta(days=d) for d in (0, 3, 6, 9, 11, 13)]
    assert p.timing_pattern(timing_of(times[:6] + times[:3])) is None  # 9 messages
    assert p.timing_pattern(timing_of(times[:6] + times[:4])) is not None


def test_timing_window_wraps_midnight():
    s = timing_of(nightly(14, 1, 23) + nightly(14, 1, 0, start=datetime(2026, 3, 2)))
    r = p.timing_pattern(s)
    assert (r["startHour"], r["endHour"], r["label"]) == (23, 1, "Usually chats between 11pm-1am")


def test_timing_uses_the_contacts_local_hour():
    # 16:30Z every day: 10pm in India, 8:30am in California
    utc = [datetime(2026, 3, 1, 16, 30, tzinfo=timezone.utc) + timedelta(days=d) for d in range(14)]
    assert p.timing_pattern(timing_of([t.astimezone(IST) for t in utc]))["startHour"] == 22
    assert p.timing_pattern(timing_of([t.astimezone(PST) for t in utc]))["startHour"] == 8
    assert p.timing_pattern(timing_of([t.astimezone(PST) for t in utc]))["label"] == \
        "Usually chats between 8am-10am"


def test_timing_ties_pick_the_window_starting_where_activity_starts():
    r = p.timing_pattern(timing_of(nightly(14, 1, 12)))
    assert (r["startHour"], r["label"]) == (12, "Usually chats between 12pm-2pm")
    r = p.timing_pattern(timing_of(nightly(14, 1, 0)))
    assert (r["startHour"], r["label"]) == (0, "Usually chats between 12am-2am")


def test_timing_spread_out_messages_have_no_pattern():
    times = [datetime(2026, 3, 1, tzinfo=IST) + timedelta(hours=5 * k) for k in range(100)]
    assert p.timing_pattern(timing_of(times)) is None


def test_timing_state_is_bounded_and_out_of_order_safe():
    times = nightly(30, 10, 22)  # 22:05 .. 23:08 local, 30 days
    s = timing_of(list(reversed(times)))
    assert len(json.dumps(s)) < 300 and s["total"] == 300
    assert (s["firstDay"], s["lastDay"]) == ("2026-03-01", "2026-03-30")
    assert s == timing_of(times)
    big = timing_of(nightly(30, 10, 22) * 20)
    assert len(json.dumps(big)) < 300 and big["total"] == 6000


def test_timing_pattern_of_nothing():
    assert p.timing_pattern(None) is None and p.timing_pattern(p.new_timing_state()) is None


# --------------------------------------------------------------------------------------- engagement
def sessions(start: datetime, turns: list[int], every: timedelta = timedelta(days=2)) -> list[dict]:
    return [{"endedAt": iso(start + k * every), "userTurns": n} for k, n in enumerate(turns)]


def run_engagement(summaries: list[dict], state: dict | None = None) -> tuple[dict, list[bool]]:
    s, out = state or p.new_engagement_state(), []
    for x in summaries:
        s, d = p.step_engagement(s, x)
        out.append(d)
    return s, out


# previous week: sessions on days 0, 2, 4 (10 turns each); recent week: days 8, 10, 12
def two_weeks(prev: list[int], recent: list[int]) -> list[dict]:
    return sessions(T0, prev) + sessions(T0 + timedelta(days=8), recent)


def test_decline_of_exactly_50_percent_fires():
    s, out = run_engagement(two_weeks([10, 10, 10], [5, 5, 5]))
    assert out == [False] * 5 + [True]
    assert s["declined"] is True and s["reference"] == {"sum": 30, "sessions": 3}


def test_a_decline_just_under_50_percent_does_not_fire():
    _, out = run_engagement(two_weeks([10, 10, 10], [5, 5, 6]))  # 16/30 = 53%: a 47% drop
    assert not any(out)


def test_decline_needs_3_sessions_in_each_window():
    _, out = run_engagement(two_weeks([10, 10], [1, 1, 1]))
    assert not any(out)
    _, out = run_engagement(two_weeks([10, 10, 10], [1, 1]))
    assert not any(out)
    _, out = run_engagement(two_weeks([10, 10, 10], [1, 1, 1]))
    assert out[-1] is True


def test_decline_fires_once_until_it_recovers_then_again():
    s, out = run_engagement(two_weeks([10, 10, 10], [4, 4, 4]))
    assert out[-1] is True
    # still low: no second alarm, even when the previous window becomes the low week
    s, out = run_engagement(sessions(T0 + timedelta(days=14), [2, 2, 2, 2]), s)
    assert not any(out) and s["declined"] is True
    # days 22..28: the recent week (21, 28] holds 8+8+8+8 -> 8 >= 75% of the reference average 10
    s, out = run_engagement(sessions(T0 + timedelta(days=22), [8, 8, 8]), s)
    assert s["declined"] is True  # (19, 26] still holds the 2-turn session of day 20: 6.5 < 7.5
    s, out = run_engagement(sessions(T0 + timedelta(days=28), [8]), s)
    assert not any(out) and s["declined"] is False and s["reference"] is None
    # engagement holds, then a new decline fires again: (33, 40] = 3, 3, 3 vs (26, 33] = 8, 8, 8, 8
    s, out = run_engagement(sessions(T0 + timedelta(days=29), [8, 8, 8]), s)
    assert not any(out)
    s, out = run_engagement(sessions(T0 + timedelta(days=36), [3, 3, 3]), s)
    assert out == [False, False, True]


def test_recovery_threshold_is_75_percent_of_the_reference():
    s, _ = run_engagement(two_weeks([8, 8, 8], [2, 2, 2]))
    assert s["declined"]
    low, _ = run_engagement(sessions(T0 + timedelta(days=16), [6, 6, 5]), s)  # 17/3 < 6
    assert low["declined"] is True
    ok, _ = run_engagement(sessions(T0 + timedelta(days=16), [6, 6, 6]), s)   # 6 = 75% of 8
    assert ok["declined"] is False


def test_no_decline_from_zero_and_no_decline_when_engagement_grows():
    _, out = run_engagement(two_weeks([0, 0, 0], [0, 0, 0]))
    assert not any(out)
    _, out = run_engagement(two_weeks([3, 3, 3], [9, 9, 9]))
    assert not any(out)


def test_engagement_windows_are_event_time_and_old_sessions_are_dropped():
    s, _ = run_engagement(sessions(T0, [10] * 10, every=timedelta(days=3)))
    newest = T0 + timedelta(days=27)
    assert all(p.parse_at(x["endedAt"]) > newest - timedelta(days=14) for x in s["sessions"])
    assert p.engagement_windows(s) == {"recent": [30, 3], "previous": [20, 2]}


def test_window_edges_are_half_open():
    # a session exactly 7 days before the newest belongs to the previous window
    s, _ = run_engagement([{"endedAt": iso(T0), "userTurns": 4},
                           {"endedAt": iso(T0 + timedelta(days=7)), "userTurns": 2}])
    assert p.engagement_windows(s) == {"recent": [2, 1], "previous": [4, 1]}


def test_redelivered_session_is_ignored():
    x = {"endedAt": iso(T0), "userTurns": 5, "sessionId": "s-1"}
    s1, _ = p.step_engagement(None, x)
    s2, d = p.step_engagement(s1, x)
    assert s2 == s1 and d is False


def test_out_of_order_summaries_give_the_same_windows():
    xs = two_weeks([10, 10, 10], [5, 5, 5])
    a, _ = run_engagement(xs)
    b, _ = run_engagement(list(reversed(xs)))
    assert p.engagement_windows(a) == p.engagement_windows(b)
    assert a["sessions"] == b["sessions"]


def test_step_engagement_does_not_mutate_and_is_json_able():
    s0 = p.new_engagement_state()
    s1, _ = p.step_engagement(s0, {"endedAt": "2026-03-01T10:00:00+05:30", "userTurns": 3})
    assert s0 == p.new_engagement_state()
    json.dumps(s1)


# ------------------------------------------------------------------------------------- properties
aware_datetimes = st.builds(
    lambda dt, minutes: dt.replace(tzinfo=timezone(timedelta(minutes=minutes))),
    st.datetimes(min_value=datetime(2000, 1, 2), max_value=datetime(2099, 12, 30)),
    st.integers(min_value=-12 * 60, max_value=14 * 60).map(lambda m: m - m % 15))


@settings(max_examples=500, deadline=None)
@given(aware_datetimes)
def test_next_morning_is_strictly_after_within_30_hours_same_offset(at):
    out = datetime.fromisoformat(p.next_morning(at.isoformat()))
    assert at < out <= at + timedelta(hours=30)
    assert out.utcoffset() == at.utcoffset()
    assert (out.hour, out.minute, out.second, out.microsecond) == (9, 0, 0, 0)


@settings(max_examples=300, deadline=None)
@given(aware_datetimes, st.integers(min_value=0, max_value=23))
def test_next_morning_any_hour_is_strictly_after_within_a_day_and_a_bit(at, hour):
    out = datetime.fromisoformat(p.next_morning(at.isoformat(), hour))
    assert at < out <= at + timedelta(hours=48) and out.hour == hour


timing_events = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 23), st.integers(0, 59),
                                   st.sampled_from([IST, PST, timezone.utc])), max_size=120)


def to_times(events) -> list[datetime]:
    return [datetime(2026, 3, 1, h, m, tzinfo=tz) + timedelta(days=d) for d, h, m, tz in events]


@settings(max_examples=300, deadline=None)
@given(timing_events)
def test_timing_pattern_properties(events):
    s = timing_of(to_times(events))
    assert s["total"] == len(events) == sum(s["hours"]) and len(s["hours"]) == 24
    r = p.timing_pattern(s)
    if r is not None:
        assert 0.7 <= r["share"] <= 1.0 and 0 <= r["startHour"] < 24
        assert r["endHour"] == (r["startHour"] + 2) % 24 and r["days"] >= 14
        assert r["label"].startswith("Usually chats between ")
    assert r == p.timing_pattern(timing_of(to_times(events)))  # deterministic


@settings(max_examples=300, deadline=None)
@given(timing_events)
def test_timing_is_order_independent(events):
    assert timing_of(to_times(events)) == timing_of(to_times(list(reversed(events))))


moods_seq = st.lists(st.sampled_from(["happy", "sad", "anxious", "angry", "neutral", "frustrated", "bored", None]),
                     max_size=80)


@settings(max_examples=300, deadline=None)
@given(moods_seq)
def test_step_sustained_fires_once_per_run_of_3_or_more(moods):
    _, fired = run_sustained(moods)
    # oracle: count runs of >= 3 consecutive negative classified moods (None skipped)
    runs, cur = 0, 0
    for m in moods:
        if m is None:
            continue
        if m in p.NEGATIVE_MOODS:
            cur += 1
            runs += cur == 3
        else:
            cur = 0
    assert sum(fired) == runs
    # the level agrees with the edge's state
    h = history_of([mood(m) if m else {"mood": None} for m in moods])
    assert p.sustained_negative(h) == (cur >= 3)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["happy", "sad", "neutral", "excited"]),
                          st.sampled_from(["high", "medium", "low"]), st.integers(0, 60 * 24 * 40)), max_size=80))
def test_history_and_baseline_properties(items):
    h = p.new_history()
    for m, e, minutes in items:
        h = p.push_mood(h, mood(m, e), iso(T0 + timedelta(minutes=minutes)))
    entries = h["entries"]
    assert len(entries) == min(len(items), 50)
    times = [p.parse_at(x["at"]) for x in entries]
    assert times == sorted(times)
    b = p.baseline(h)
    assert (b is None) == (not items)
    if b:
        assert 1 <= b["samples"] <= 20 and b["mood"] in {"happy", "sad", "neutral", "excited"}
    h2 = p.new_history()
    for m, e, minutes in items:
        h2 = p.push_mood(h2, mood(m, e), iso(T0 + timedelta(minutes=minutes)))
    assert h2 == h


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60 * 24 * 60), st.integers(0, 40)), max_size=60))
def test_engagement_is_deterministic_and_bounded(items):
    xs = [{"endedAt": iso(T0 + timedelta(minutes=mins)), "userTurns": n} for mins, n in items]
    a, da = run_engagement(xs)
    b, db = run_engagement(xs)
    assert (a, da) == (b, db)
    if xs:
        newest = max(p.parse_at(x["endedAt"]) for x in a["sessions"])
        assert all(p.parse_at(x["endedAt"]) > newest - timedelta(days=14) for x in a["sessions"])
    assert len(a["sessions"]) <= p.MAX_ENGAGEMENT_SESSIONS
    # it never fires twice without recovering in between
    state, declined = p.new_engagement_state(), False
    for x in xs:
        prev = state["declined"]
        state, d = p.step_engagement(state, x)
        if d:
            assert prev is False and state["declined"] is True
    json.dumps(a)
