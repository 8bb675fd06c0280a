"""Importance decay as a closed form of event time, shared by the fold and the read side.

Seed 002 §4.4 lowers the importance of memories not accessed for 7 days by their type's daily rate
(facts 0.003, preferences 0.005, episodes 0.008, patterns 0.004, tenant memories 0.01; seed 000
§2.2), floored at 0. A memory carries its importance at its anchor `accessedAt` (the last time it was
created, reinforced or merged: each of those locks the decay so far in and restarts the clock, see
remember.touch; being served by /context is not a use and moves nothing). So the importance at any later time t is

    importance_at(t) = max(0, importance - rate * max(0, days(t - accessedAt) - 7))

which is what running the seed's 6-hourly step would give, without its 6-hour rounding. Readers use
it to evaluate `as_of`; the periodic tier uses it to record MemoryDecayed and to prune (below 0.1 and
not accessed for 30 days). Pinned memories never decay.
"""
from __future__ import annotations

from datetime import datetime

from schemas.envelope import parse_time

GRACE_DAYS = 7
PRUNE_BELOW = 0.1
PRUNE_UNACCESSED_DAYS = 30


def days_between(earlier: str | datetime, later: str | datetime) -> float:
    a = parse_time(earlier) if isinstance(earlier, str) else earlier
    b = parse_time(later) if isinstance(later, str) else later
    return (b - a).total_seconds() / 86400


def latest(a: str, b: str) -> str:
    """The later of two RFC 3339 times. Not max() on the strings: offsets differ (a message at
    22:00+05:30 is earlier than an access recorded at 17:00Z the same day)."""
    return a if parse_time(a) >= parse_time(b) else b


def importance_at(importance: float, accessed_at: str | datetime, rate: float, at: str | datetime,
                  pinned: bool = False) -> float:
    if pinned:
        return importance
    idle = days_between(accessed_at, at) - GRACE_DAYS
    if idle <= 0:
        return importance
    return round(max(0.0, importance - rate * idle), 4)


def prunable(importance: float, accessed_at: str | datetime, rate: float, at: str | datetime,
             pinned: bool = False) -> bool:
    """Truly forgotten (seed 002 §4.4): under 0.1 and nobody accessed it for 30 days."""
    return (not pinned and importance_at(importance, accessed_at, rate, at) < PRUNE_BELOW
            and days_between(accessed_at, at) >= PRUNE_UNACCESSED_DAYS)


def in_working_set(*, status: str, retired_at: datetime | None, expires_at: datetime | None, importance: float,
                   rate: float, accessed_at: datetime | None, created_at: datetime, pinned: bool,
                   at: datetime) -> bool:
    """Whether a memory is in the working set at `at` (served without being asked for), else in the
    archive (retrieval still searches it). Twin of projections/store.visible, held to it by a parity
    test on PostgreSQL: not retired then, unexpired, and important enough then (an access after `at`
    had not happened yet, so decay runs from its creation)."""
    if not (status == "active" or (retired_at is not None and retired_at > at)):
        return False
    if expires_at is not None and expires_at <= at:
        return False
    anchor = accessed_at if accessed_at is not None and accessed_at <= at else created_at
    return pinned or importance_at(importance, anchor, rate, at) >= PRUNE_BELOW
