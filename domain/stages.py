"""Relationship stages and their memory budgets (seed 000 §5, seed 001 §3.4), as of a point in time.

Thresholds for going quiet (the seeds name the stages but not when they start): a known contact
(building or beyond) silent for more than FADING_AFTER_DAYS is `fading`, for more than
DORMANT_AFTER_DAYS `dormant`. New contacts stay `new` however long they are silent.
"""
from __future__ import annotations

from datetime import datetime

FADING_AFTER_DAYS = 14
DORMANT_AFTER_DAYS = 45

STAGE_BUDGETS = {"new": 0, "building": 500, "established": 1200, "deep": 2000, "fading": 800, "dormant": 200}


def relationship_stage(session_count: int, active_streak: int, last_seen: datetime | None,
                       as_of: datetime) -> str:
    if session_count < 3:
        return "new"
    if last_seen is not None:
        silent_days = (as_of - last_seen).total_seconds() / 86400
        if silent_days > DORMANT_AFTER_DAYS:
            return "dormant"
        if silent_days > FADING_AFTER_DAYS:
            return "fading"
    if session_count >= 30 and active_streak >= 14:
        return "deep"
    if session_count >= 15:
        return "established"
    return "building"


def effective_streak(last_active_day: str | None, streak: int, as_of: datetime) -> int:
    """The streak still running at `as_of`: it breaks when a whole day passes without activity."""
    if not last_active_day:
        return 0
    gap = (as_of.date() - datetime.fromisoformat(last_active_day).date()).days
    return streak if gap <= 1 else 0
