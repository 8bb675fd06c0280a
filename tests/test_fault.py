"""The fault suite: `rapport up` under load while its parts are killed, restarted and stalled.

Scaled down from `rapport bench chaos` (ops/chaos.py, which runs the full version and prints the
table) to fit CI: 3 SIGKILLs of the worker, one of the API, a PostgreSQL restart and an 8 s Redis
stall while 1,800 events stream in. Every event is applied exactly once, each fault recovers, and the
live projection equals a clean rebuild from the ledger (`rapport replay --verify`)."""
from __future__ import annotations

import pytest

from ops.chaos import run_chaos, table

pytestmark = [pytest.mark.fault, pytest.mark.e2e]


def test_kills_restarts_and_stalls_lose_nothing_and_double_nothing():
    lines: list[str] = []
    r = run_chaos(events=1800, contacts=40, worker_kills=3, workers=1, gap_s=12.0, say=lines.append)
    report = "\n".join(lines) + "\n" + table(r) + "\n" + "\n".join(r.notes)
    assert [f.kind for f in r.faults].count("worker-kill") == 3, report
    assert all(f.recovery_s is not None for f in r.faults), report
    # a Redis stall and a database restart are ridden out: no worker or API restarted for them
    assert [(f.kind, f.collateral) for f in r.faults if f.collateral] == [], report
    assert (r.sent, r.applied, r.lost, r.duplicated) == (1800, 1800, 0, 0), report
    assert r.digest_equal, report
    assert r.supervisor_exit == 0, report  # and the stack still stops cleanly after all that
