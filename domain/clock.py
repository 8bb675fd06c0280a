"""The contact's event-time clock, written once.

Sessions, decay and consolidation run in event time (`occurred_at`), never the wall clock. Between its
events a contact's time moves on at the wall clock's pace, behind it by the contact's skew: how far its
newest event's `occurred_at` ran behind its `recorded_at` (`clockSkewS` in the state, `clock_skew_s` in the
contacts table). A live contact's skew is about 0; a contact imported with 2023 timestamps keeps living
in 2023 instead of being decayed to today.

The skew is never negative: an event dated ahead of the wall clock (a producer whose clock runs fast,
a hostile timestamp) does not carry the contact's time ahead of the wall clock, where it would close
sessions and decay memories early (and, for a far-off date, overflow the date arithmetic). It is clamped
where it is measured (the fold, `skew_s`) and again where it is read (`contact_now`, `wall_time`), for a
state recorded before the clamp.

Used by the fold (agents/core/contact.py), the scheduler (agents/scheduler.py), the projector's due wall
time (agents/projector.py) and the read side (projections/deps.contact_now).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any


def skew_s(occurred: datetime, recorded: datetime) -> float:
    """How far an event's time runs behind the wall clock that recorded it, in seconds (to the ms), >= 0."""
    return max(0.0, round((recorded - occurred).total_seconds(), 3))


def _behind(skew: Any) -> timedelta:
    return timedelta(seconds=max(0.0, float(skew or 0.0)))


def contact_now(wall: datetime, skew: Any) -> datetime:
    """The contact's event time when the wall clock reads `wall` (a skew of None counts as 0)."""
    return wall - _behind(skew)


def wall_time(at: datetime, skew: Any) -> datetime:
    """When the wall clock reaches the contact's event time `at` (the inverse of `contact_now`)."""
    return at + _behind(skew)
