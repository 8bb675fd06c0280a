"""Sessions, active-day streaks and the session window: pure functions of event time.

A session ends after `gap` of silence between two events of the contact (event time, never the wall
clock) or when the producer names a different session_id. The window keeps the last `size`
messages of the current session, always including the session's first turn (it carries the greeting
and the initial context).
"""
from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

Session = dict[str, Any]

# the silence that ends a session (seed 000): the fold's default (agents/core/contact.CoreConfig) and one
# conversation for the read side (projections/retrieval.NEIGHBOUR_WITHIN_S)
SESSION_GAP_S = 30 * 60


def starts_new_session(session: Session | None, at: datetime, gap_s: int, session_id: str | None) -> bool:
    if session is None:
        return True
    if session_id and session.get("producerSessionId") and session_id != session["producerSessionId"]:
        return True
    last = datetime.fromisoformat(session["lastActivityAt"])
    # Events that arrive out of order (at < last) belong to the current session.
    return (at - last).total_seconds() > gap_s


def open_session(index: int, session_id: str, at: datetime, producer_session_id: str | None,
                 persona_id: str | None) -> Session:
    return {"sessionId": session_id, "index": index, "startedAt": at.isoformat(),
            "lastActivityAt": at.isoformat(), "turnCount": 0, "userTurns": 0,
            "producerSessionId": producer_session_id, "personaId": persona_id}


def touch_session(session: Session, at: datetime, role: str) -> Session:
    last = datetime.fromisoformat(session["lastActivityAt"])
    return {**session, "lastActivityAt": max(at, last).isoformat(), "turnCount": session["turnCount"] + 1,
            "userTurns": session["userTurns"] + (role == "user")}


def local_day(at: datetime) -> date:
    """The contact's calendar day: the event's own UTC offset is the contact's local time."""
    return at.date()


def next_streak(last_day: str | None, streak: int, today: date) -> tuple[str, int]:
    """(last active day, consecutive active days) after activity on `today`."""
    if last_day is None:
        return today.isoformat(), 1
    prev = date.fromisoformat(last_day)
    if today <= prev:  # same day, or a late event from an earlier day
        return last_day, streak
    return today.isoformat(), streak + 1 if today - prev == timedelta(days=1) else 1


def push_window(window: list[dict[str, Any]], turn: dict[str, Any], size: int) -> list[dict[str, Any]]:
    """Append a turn; beyond `size`, drop the oldest turn after the first."""
    out = window + [turn]
    if len(out) > size:
        out = [out[0]] + out[len(out) - (size - 1):]
    return out
