"""Mood history and pattern detection (seed 000 §4.2, §4.3): pure functions over JSON-able dicts.

Nothing here reads a clock: every time is an event timestamp (RFC 3339; a missing offset means UTC, as
in schemas.envelope.parse_time), and the contact's local time is the event's own UTC offset (as in
sessions.local_day). Inputs are never mutated; every step returns a new state. The same sequence of
calls gives the same states and results, so replaying the log reproduces them exactly. The step
functions expect events in log order (per-contact partition order); late events are still handled
deterministically (the mood history is kept in event-time order, windows are anchored at the newest
event time seen).

Feed these with the contact's *user* messages only (assistant turns carry no contact mood/timing).

Mood history & baseline
    history = {"entries": [{"at", "mood", "energy", "style", "confidence"?}, ...]}, event-time order,
    at most HISTORY_SIZE (50) entries (the oldest are dropped).
    baseline(history) = the most common mood, energy and style over the recent window: the last
    BASELINE_MESSAGES (20) entries that fall within BASELINE_DAYS (14) days before the newest entry
    (both limits apply, so a contact returning after a month is compared with what they said since,
    not with stale history). Ties go to the value seen most recently. It also reports "samples", the
    window size, "days", the calendar days it covers (in each message's own offset), and "seen", how often
    each mood and energy occurs in it; is_unusual() asks for a mood or energy rare in the window and
    needs samples >= MIN_BASELINE_SAMPLES (5) over days >= MIN_BASELINE_DAYS (3): eleven messages of
    one first conversation are no "normally" to depart from (a baseline dict without "samples" or
    "days" is trusted as is). Compute the baseline *before* pushing the current message, then ask
    is_unusual(current, baseline).

Sustained negative mood
    sustained_negative(history): the last SUSTAINED_RUN (3) or more classified entries all have a mood in
    NEGATIVE_MOODS {sad, anxious, angry} (a level: true for as long as the run lasts).
    step_sustained(state, mood, at) -> (state, fired): the edge, once per episode. state =
    {"run": consecutive negative messages, "since": when the run started, "lastAt", "fired": whether
    this episode already fired, "episodes": how many episodes fired so far}. `fired` is True exactly on
    the message that brings the run to 3; any other mood (neutral, frustrated, happy, ...) ends the
    episode and re-arms the detector. A message without a mood (unclassified) changes nothing.

Check-in time
    next_morning(at, hour=9): the next local morning at hour:00 in the event's own offset, returned with
    that offset. Before EARLY_MORNING_HOUR (05:00) local time the night is not over yet, so "next
    morning" is the same calendar day (a message at 02:30 gets its check-in at 09:00 the same day);
    from 05:00 on it is the next day. Always strictly after `at` (at most 28 hours later for hour=9).

Consistent timing
    state = {"hours": [24 counts of messages per local hour], "total", "firstDay", "lastDay"}: bounded,
    whatever the number of messages. timing_pattern(state) reports the 2-hour window of the local day
    (start hour h covers h:00-h+2:00, wrapping midnight: 11pm-1am) holding the most messages when it
    holds at least TIMING_SHARE_PCT (70%) of them, the observations span at least TIMING_MIN_DAYS (14)
    calendar days (firstDay..lastDay inclusive: Mar 1 -> Mar 14 is 14 days) and there are at least
    TIMING_MIN_MESSAGES (10) messages (two messages two weeks apart are no habit). Ties between windows
    go to the one whose first hour has more messages (all messages at 22:xx -> "10pm-12am", not
    "9pm-11pm"), then to the earlier start hour. The share is compared exactly (count*100 >= 70*total).

Engagement decline
    state = {"sessions": [{"endedAt", "userTurns", "sessionId"?}], "declined", "reference"}; sessions
    older than 14 days before the newest one are dropped (and at most MAX_ENGAGEMENT_SESSIONS kept).
    With T = the newest endedAt: recent = sessions ended in (T-7d, T], previous = (T-14d, T-7d].
    Declined when avg(recent userTurns) <= 50% of avg(previous), i.e. a drop of 50% or more (exactly
    50% fires), with at least ENGAGEMENT_MIN_SESSIONS (3) sessions in each window and a non-zero
    previous average. It fires once, then stays quiet until it recovers: the previous-window average
    at the time of firing is kept as "reference", and the decline is over when the recent window
    (again with >= 3 sessions) averages at least ENGAGEMENT_RECOVERY (75%) of it; after that a new
    decline can fire. A summary whose sessionId is already in the state is ignored (redelivery).
"""
from __future__ import annotations

from collections import Counter
from datetime import date, datetime, time, timedelta
from typing import Any

State = dict[str, Any]

HISTORY_SIZE = 50
BASELINE_MESSAGES = 20
BASELINE_DAYS = 14
MIN_BASELINE_SAMPLES = 5
MIN_BASELINE_DAYS = 3
RARE_SHARE = 0.15   # a mood or energy seen in under this share of the baseline window is out of character
NEGATIVE_MOODS = frozenset({"sad", "anxious", "angry"})
SUSTAINED_RUN = 3
EARLY_MORNING_HOUR = 5
TIMING_WINDOW_HOURS = 2
TIMING_SHARE_PCT = 70
TIMING_MIN_DAYS = 14
TIMING_MIN_MESSAGES = 10
ENGAGEMENT_WINDOW_DAYS = 7
ENGAGEMENT_MIN_SESSIONS = 3
ENGAGEMENT_DROP_PCT = 50        # recent average <= 50% of the previous one
ENGAGEMENT_RECOVERY_PCT = 75    # recovered when the recent average is back to >= 75% of the reference
MAX_ENGAGEMENT_SESSIONS = 500


def parse_at(s: str) -> datetime:
    """RFC 3339 -> aware datetime; a missing offset means UTC (the envelope's rule, one place)."""
    from schemas.envelope import parse_time

    return parse_time(s)


def _mood_of(mood: Any) -> str | None:
    if isinstance(mood, dict):
        mood = mood.get("mood")
    return mood if isinstance(mood, str) and mood else None


# ------------------------------------------------------------------------------ mood history & baseline
def new_history() -> State:
    return {"entries": []}


def push_mood(history: State | None, mood: dict[str, Any], at: str) -> State:
    """Record one classification ({"mood", "energy", "style", "confidence"?}) at event time `at`."""
    t = parse_at(at)
    entry: dict[str, Any] = {"at": t.isoformat(), "mood": _mood_of(mood),
                             "energy": mood.get("energy") or None, "style": mood.get("style") or None}
    if isinstance(mood.get("confidence"), (int, float)):
        entry["confidence"] = float(mood["confidence"])
    entries = list((history or {}).get("entries") or [])
    idx = len(entries)  # after every entry at or before t: ties keep arrival order
    while idx > 0 and parse_at(entries[idx - 1]["at"]) > t:
        idx -= 1
    entries.insert(idx, entry)
    return {**(history or {}), "entries": entries[-HISTORY_SIZE:]}


def _most_common(values: list[str | None]) -> str | None:
    """The most frequent value; ties -> the one seen most recently (values are oldest first)."""
    counts = Counter(v for v in values if v)
    if not counts:
        return None
    last_seen = {v: i for i, v in enumerate(values) if v}
    return max(counts, key=lambda v: (counts[v], last_seen[v]))


def baseline_window(history: State | None) -> list[dict[str, Any]]:
    """The entries the baseline is computed from (see the module doc)."""
    entries = list((history or {}).get("entries") or [])[-BASELINE_MESSAGES:]
    if not entries:
        return []
    newest = max(parse_at(e["at"]) for e in entries)
    since = newest - timedelta(days=BASELINE_DAYS)
    return [e for e in entries if parse_at(e["at"]) >= since]


def baseline(history: State | None) -> dict[str, Any] | None:
    """{"mood", "energy", "style", "samples"} over the recent window, or None without history."""
    window = baseline_window(history)
    if not window:
        return None
    return {"mood": _most_common([e.get("mood") for e in window]),
            "energy": _most_common([e.get("energy") for e in window]),
            "style": _most_common([e.get("style") for e in window]),
            "samples": len(window), "days": len({e["at"][:10] for e in window}),
            "seen": {k: dict(Counter(e.get(k) for e in window if e.get(k))) for k in ("mood", "energy")}}


def is_unusual(current: dict[str, Any] | None, base: dict[str, Any] | None) -> bool:
    """The current mood or energy differs from the baseline and is rare in it (under RARE_SHARE of its
    window: a contact whose evenings are mostly neutral and often grateful is not out of character when
    grateful), given enough history (>= 5 samples over >= 3 days)."""
    if not current or not base or base.get("samples", MIN_BASELINE_SAMPLES) < MIN_BASELINE_SAMPLES \
            or base.get("days", MIN_BASELINE_DAYS) < MIN_BASELINE_DAYS:
        return False
    mood = _mood_of(current)
    if mood is None or base.get("mood") is None:
        return False
    seen = base.get("seen")

    def rare(kind: str, value: str) -> bool:  # without counts (an older baseline): any difference
        return seen is None or (seen.get(kind) or {}).get(value, 0) < RARE_SHARE * base.get("samples", 1)

    if mood != base["mood"]:
        return rare("mood", mood)
    energy, base_energy = current.get("energy"), base.get("energy")
    return bool(energy and base_energy and energy != base_energy) and rare("energy", energy)


_STYLE_WORDS = {"playful": "playful", "deep": "reflective", "casual": "casual", "supportive": "looking for support",
                "romantic": "flirty", "venting": "venting"}


def describe_baseline(base: dict[str, Any] | None) -> str:
    """{"style": "playful", "energy": "medium"} -> "normally playful and medium-energy" ("" without one)."""
    if not base:
        return ""
    style = base.get("style")
    word = _STYLE_WORDS.get(style, style) if style else base.get("mood")
    energy = base.get("energy")
    parts = [p for p in (word, f"{energy}-energy" if energy else None) if p]
    return "normally " + " and ".join(parts) if parts else ""


# -------------------------------------------------------------------------------- sustained negative
def sustained_negative(history: State | None) -> bool:
    """The last 3+ classified entries all have a negative mood (sad, anxious, angry)."""
    run = 0
    for e in reversed((history or {}).get("entries") or []):
        mood = e.get("mood")
        if mood is None:
            continue
        if mood not in NEGATIVE_MOODS:
            break
        run += 1
        if run >= SUSTAINED_RUN:
            return True
    return False


def new_sustained_state() -> State:
    return {"run": 0, "since": None, "lastAt": None, "fired": False, "episodes": 0}


def step_sustained(state: State | None, mood: str | dict[str, Any] | None, at: str) -> tuple[State, bool]:
    """(new state, fired): fired once per episode, on the message that makes 3 negative in a row."""
    s = {**new_sustained_state(), **(state or {})}
    m = _mood_of(mood)
    if m is None:
        return s, False
    at_iso = parse_at(at).isoformat()
    s["lastAt"] = at_iso
    if m not in NEGATIVE_MOODS:
        s.update(run=0, since=None, fired=False)
        return s, False
    s["run"] += 1
    if s["since"] is None:
        s["since"] = at_iso
    if s["run"] >= SUSTAINED_RUN and not s["fired"]:
        s["fired"] = True
        s["episodes"] += 1
        return s, True
    return s, False


# ------------------------------------------------------------------------------------- check-in time
def next_morning(at_iso: str, hour: int = 9) -> str:
    """The next local morning at hour:00, in the event's own UTC offset (see the module doc)."""
    if not isinstance(hour, int) or isinstance(hour, bool) or not 0 <= hour <= 23:
        raise ValueError("hour must be an int in 0..23")
    t = parse_at(at_iso)
    day = t.date() if t.hour < EARLY_MORNING_HOUR else t.date() + timedelta(days=1)
    candidate = datetime.combine(day, time(hour), tzinfo=t.tzinfo)
    while candidate <= t:  # only when hour < 05:00 and the morning hour has already passed
        candidate += timedelta(days=1)
    return candidate.isoformat()


# ----------------------------------------------------------------------------------- consistent timing
def new_timing_state() -> State:
    return {"hours": [0] * 24, "total": 0, "firstDay": None, "lastDay": None}


def step_timing(state: State | None, at_iso: str) -> State:
    """Count one user message at its local hour (the event's own offset)."""
    t = parse_at(at_iso)
    base = state or new_timing_state()
    hours = list(base.get("hours") or [0] * 24)
    hours[t.hour] += 1
    day = t.date().isoformat()
    first, last = base.get("firstDay"), base.get("lastDay")
    return {**base, "hours": hours, "total": int(base.get("total") or 0) + 1,
            "firstDay": day if first is None or day < first else first,
            "lastDay": day if last is None or day > last else last}


def _hour_label(h: int) -> str:
    h %= 24
    return f"{12 if h % 12 == 0 else h % 12}{'am' if h < 12 else 'pm'}"


def timing_days(state: State | None) -> int:
    """Calendar days spanned by the observations, first and last day included (0 without any)."""
    if not state or not state.get("firstDay") or not state.get("lastDay"):
        return 0
    return (date.fromisoformat(state["lastDay"]) - date.fromisoformat(state["firstDay"])).days + 1


def timing_pattern(state: State | None) -> dict[str, Any] | None:
    """{"startHour", "endHour", "share", "days", "label"} when 70%+ of the messages fall in one 2-hour
    window over 14+ days (and 10+ messages), else None. endHour is exclusive: 22 -> 0 is 10pm-12am."""
    if not state:
        return None
    hours = list(state.get("hours") or [0] * 24)
    total = sum(hours)
    days = timing_days(state)
    if total < TIMING_MIN_MESSAGES or days < TIMING_MIN_DAYS:
        return None

    def in_window(h: int) -> int:
        return sum(hours[(h + k) % 24] for k in range(TIMING_WINDOW_HOURS))

    start = max(range(24), key=lambda h: (in_window(h), hours[h], -h))
    count = in_window(start)
    if count * 100 < TIMING_SHARE_PCT * total:
        return None
    end = (start + TIMING_WINDOW_HOURS) % 24
    return {"startHour": start, "endHour": end, "share": round(count / total, 4), "days": days,
            "label": f"Usually chats between {_hour_label(start)}-{_hour_label(end)}"}


# ---------------------------------------------------------------------------------- engagement decline
def new_engagement_state() -> State:
    return {"sessions": [], "declined": False, "reference": None}


def _window_stats(sessions: list[dict[str, Any]], lo: datetime, hi: datetime) -> tuple[int, int]:
    """(sum of userTurns, number of sessions) of the sessions that ended in (lo, hi]."""
    picked = [s for s in sessions if lo < parse_at(s["endedAt"]) <= hi]
    return sum(int(s["userTurns"]) for s in picked), len(picked)


def engagement_windows(state: State | None) -> dict[str, Any]:
    """The two 7-day windows anchored at the newest session: {"recent": [sum, n], "previous": [sum, n]}."""
    sessions = list((state or {}).get("sessions") or [])
    if not sessions:
        return {"recent": [0, 0], "previous": [0, 0]}
    newest = max(parse_at(s["endedAt"]) for s in sessions)
    week = timedelta(days=ENGAGEMENT_WINDOW_DAYS)
    return {"recent": list(_window_stats(sessions, newest - week, newest)),
            "previous": list(_window_stats(sessions, newest - 2 * week, newest - week))}


def step_engagement(state: State | None, session_summary: dict[str, Any]) -> tuple[State, bool]:
    """Add one closed session ({"endedAt", "userTurns", "sessionId"?}) -> (new state, declined now)."""
    s = {**new_engagement_state(), **(state or {})}
    ended = parse_at(session_summary["endedAt"])
    turns = max(0, int(session_summary.get("userTurns") or 0))
    sid = session_summary.get("sessionId")
    sessions = list(s.get("sessions") or [])
    if sid is not None and any(x.get("sessionId") == sid for x in sessions):
        return s, False  # redelivered summary
    entry: dict[str, Any] = {"endedAt": ended.isoformat(), "userTurns": turns}
    if sid is not None:
        entry["sessionId"] = sid
    idx = len(sessions)
    while idx > 0 and parse_at(sessions[idx - 1]["endedAt"]) > ended:
        idx -= 1
    sessions.insert(idx, entry)
    newest = max(parse_at(x["endedAt"]) for x in sessions)
    horizon = newest - timedelta(days=2 * ENGAGEMENT_WINDOW_DAYS)
    sessions = [x for x in sessions if parse_at(x["endedAt"]) > horizon][-MAX_ENGAGEMENT_SESSIONS:]
    s["sessions"] = sessions

    w = engagement_windows(s)
    (r_sum, r_n), (p_sum, p_n) = w["recent"], w["previous"]
    if s["declined"]:
        ref = s.get("reference") or {}
        ref_sum, ref_n = int(ref.get("sum") or 0), int(ref.get("sessions") or 0)
        # recent avg >= 75% of the reference avg: r_sum/r_n >= 0.75 * ref_sum/ref_n
        if r_n >= ENGAGEMENT_MIN_SESSIONS and ref_n and \
                100 * r_sum * ref_n >= ENGAGEMENT_RECOVERY_PCT * ref_sum * r_n:
            s["declined"], s["reference"] = False, None
        return s, False
    if r_n >= ENGAGEMENT_MIN_SESSIONS and p_n >= ENGAGEMENT_MIN_SESSIONS and p_sum > 0 and \
            100 * r_sum * p_n <= ENGAGEMENT_DROP_PCT * p_sum * r_n:  # r_sum/r_n <= 50% of p_sum/p_n
        s["declined"], s["reference"] = True, {"sum": p_sum, "sessions": p_n}
        return s, True
    return s, False
