"""domain/stages.py: relationship stages, the running streak and the stage memory budgets, evaluated
as of a point in time (and their use in projections/context.py)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.stages import (DORMANT_AFTER_DAYS, FADING_AFTER_DAYS, STAGE_BUDGETS, effective_streak,
                                relationship_stage)
from projections.context import assemble, contact_state_json, rank

NOW = datetime(2026, 4, 3, 12, 0, tzinfo=timezone.utc)


def stage(sessions: int, streak: int = 0, silent_days: float | None = 0.0) -> str:
    last_seen = None if silent_days is None else NOW - timedelta(days=silent_days)
    return relationship_stage(sessions, streak, last_seen, NOW)


# ------------------------------------------------------------------------------------ stages
@pytest.mark.parametrize("sessions", [0, 1, 2])
def test_new_below_three_sessions(sessions: int):
    assert stage(sessions) == "new"
    assert stage(sessions, streak=30) == "new"


@pytest.mark.parametrize("sessions", [3, 4, 10, 14])
def test_building_from_3_to_14_sessions(sessions: int):
    assert stage(sessions) == "building"


@pytest.mark.parametrize("sessions", [15, 20, 29, 100])
def test_established_from_15_sessions(sessions: int):
    assert stage(sessions) == "established"
    assert stage(sessions, streak=13) == "established"


def test_deep_needs_30_sessions_and_a_14_day_streak():
    assert stage(30, streak=14) == "deep"
    assert stage(120, streak=60) == "deep"
    assert stage(30, streak=13) == "established"
    assert stage(29, streak=14) == "established"
    assert stage(14, streak=40) == "building"


def test_fading_after_14_silent_days():
    assert FADING_AFTER_DAYS == 14
    assert stage(20, silent_days=14) == "established"
    assert stage(20, silent_days=13.9) == "established"
    assert stage(20, silent_days=14.01) == "fading"
    assert stage(20, silent_days=30) == "fading"
    assert stage(5, silent_days=15) == "fading"
    assert stage(40, streak=20, silent_days=15) == "fading"  # silence overrides even a deep relationship


def test_dormant_after_45_silent_days():
    assert DORMANT_AFTER_DAYS == 45
    assert stage(20, silent_days=45) == "fading"
    assert stage(20, silent_days=45.5) == "dormant"
    assert stage(3, silent_days=400) == "dormant"


def test_new_contacts_stay_new_however_long_they_are_silent():
    assert stage(2, silent_days=400) == "new"


def test_without_last_seen_the_stage_follows_the_counts():
    assert stage(20, silent_days=None) == "established"


def test_activity_after_as_of_is_not_silence():
    assert stage(20, silent_days=-3) == "established"


@settings(max_examples=300, deadline=None)
@given(sessions=st.integers(0, 500), streak=st.integers(0, 400), silent=st.floats(-10, 1000))
def test_stage_is_total_and_has_a_budget(sessions: int, streak: int, silent: float):
    s = stage(sessions, streak, silent)
    assert s in STAGE_BUDGETS
    silent = timedelta(days=silent).total_seconds() / 86400  # what the function sees (microsecond precision)
    if sessions < 3:
        assert s == "new"
    elif silent > 45:
        assert s == "dormant"
    elif silent > 14:
        assert s == "fading"


# ------------------------------------------------------------------------------------ streaks
def test_streak_is_kept_on_the_same_day_and_the_next():
    assert effective_streak("2026-04-03", 7, datetime(2026, 4, 3, 23, 59, tzinfo=timezone.utc)) == 7
    assert effective_streak("2026-04-02", 7, datetime(2026, 4, 3, 23, 59, tzinfo=timezone.utc)) == 7


def test_streak_breaks_after_a_missed_day():
    assert effective_streak("2026-04-01", 7, datetime(2026, 4, 3, 0, 1, tzinfo=timezone.utc)) == 0
    assert effective_streak("2026-03-01", 7, NOW) == 0


def test_no_activity_no_streak():
    assert effective_streak(None, 5, NOW) == 0
    assert effective_streak("", 5, NOW) == 0


# ------------------------------------------------------------------------------------ budgets
def test_stage_budgets():
    assert STAGE_BUDGETS == {"new": 0, "building": 500, "established": 1200, "deep": 2000, "fading": 800,
                             "dormant": 200}


def contact(sessions: int, streak: int, last_day: str, last_seen: datetime) -> dict:
    return {"sessionCount": sessions, "activeStreak": streak, "lastActiveDay": last_day,
            "lastSeen": last_seen.isoformat(), "displayName": "Arjun", "channel": "whatsapp"}


@pytest.mark.parametrize("state,expected_stage", [
    (contact(5, 1, "2026-04-03", NOW - timedelta(hours=1)), "building"),
    (contact(20, 1, "2026-04-03", NOW - timedelta(hours=1)), "established"),
    (contact(35, 20, "2026-04-03", NOW - timedelta(hours=1)), "deep"),
    (contact(20, 1, "2026-03-10", NOW - timedelta(days=24)), "fading"),
    (contact(20, 1, "2026-01-10", NOW - timedelta(days=83)), "dormant"),
])
def test_context_memory_budget_follows_the_stage(state: dict, expected_stage: str):
    out = assemble(contact_id="arjun", state=state, ranked=[], as_of=NOW, budget=None, history=[])
    assert out["state"]["relationshipStage"] == expected_stage
    assert out["memory_budget"] == STAGE_BUDGETS[expected_stage]


def test_a_broken_streak_demotes_deep_to_established():
    # 35 sessions and a 20-day streak, but the last active day was 3 days ago (silent < 14 days)
    st_ = contact_state_json(contact(35, 20, "2026-03-31", NOW - timedelta(days=3)), NOW)
    assert st_["activeStreak"] == 0
    assert st_["relationshipStage"] == "established"


def test_unknown_contact_is_new_with_no_budget_and_a_discovery_context():
    out = assemble(contact_id="nobody", state=None, ranked=[], as_of=NOW, budget=None, history=[])
    assert out["state"]["relationshipStage"] == "new"
    assert out["memory_budget"] == 0
    assert out["memories"] == []
    assert "discovery" in out["context_text"].lower()
    assert out["contact"] == {"contactId": "nobody", "displayName": None, "channel": None}


def test_an_explicit_budget_overrides_the_stage_budget_and_is_respected():
    rows = [{"id": f"m{i}", "memory_type": "episode", "content": f"{i:02d}" + "x" * 38, "importance": 0.5, "similarity": 0.5,
             "accessed_at": NOW, "created_at": NOW, "access_count": 0, "entity_refs": [],
             "source_event_ids": [f"e{i}"], "decay_rate": 0.008, "pinned": False, "status": "active"} for i in range(10)]  # 10 tokens each
    state = contact(20, 1, "2026-04-03", NOW - timedelta(hours=1))
    out = assemble(contact_id="arjun", state=state, ranked=rank(rows, NOW), as_of=NOW, budget=35, history=[])
    assert out["memory_budget"] == 35
    assert len(out["memories"]) == 3
    out = assemble(contact_id="arjun", state=state, ranked=rank(rows, NOW), as_of=NOW, budget=None, history=[])
    assert out["memory_budget"] == 1200 and len(out["memories"]) == 10
