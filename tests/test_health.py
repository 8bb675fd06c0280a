"""/healthz's status (projections/api.health_status): ok / degraded / starting / unavailable."""
from __future__ import annotations

from projections.edge_routes import health_status
from projections.service import LAG_DEGRADED_AGE_S, LAG_DEGRADED_EVENTS


def checks(**over):
    h = {"broker": True, "database": True, "cache": True, "workers": 1, "lag": {"events": 0, "oldestAgeS": None}}
    h.update(over)
    h["ok"] = bool(h["broker"] and h["database"] and h["cache"] and h["workers"])
    return h


def test_a_healthy_stack_is_ok_with_200_so_existing_clients_keep_working():
    assert health_status(checks(), ready_once=False) == ("ok", False, [], 200)
    assert health_status(checks(lag={"events": 12, "oldestAgeS": 0.4}), ready_once=True) == ("ok", False, [], 200)


def test_after_start_a_stalled_cache_or_a_backlog_is_degraded_but_still_200():
    status, degraded, reasons, code = health_status(checks(cache=False, workers=0), ready_once=True)
    assert (status, degraded, code) == ("degraded", True, 200)
    assert reasons == ["cache unreachable", "no live worker"]
    lag = {"events": LAG_DEGRADED_EVENTS, "oldestAgeS": LAG_DEGRADED_AGE_S + 5}
    status, _, reasons, code = health_status(checks(lag=lag), ready_once=True)
    assert (status, code, len(reasons)) == ("degraded", 200, 2)


def test_before_the_first_ready_anything_missing_is_503_starting():
    assert health_status(checks(workers=0), ready_once=False)[::3] == ("starting", 503)


def test_no_database_after_start_is_503_unavailable():
    status, _, reasons, code = health_status(checks(database=False, lag=None), ready_once=True)
    assert (status, code) == ("unavailable", 503) and "database unreachable" in reasons
