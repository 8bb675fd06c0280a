"""`rapport replay` sets its rate beside the live workers' (ops/replay.py `run`): a ratio only when both rates
are positive, "n/a" otherwise; never a crash (a stack whose workers applied nothing yet has a live rate of 0)."""
from __future__ import annotations

import pytest

from ops import replay as rp

RESULT = {"events": 12, "version": "v2", "seconds": 0.5, "events_per_s": 24.0, "digest": "d", "live_version": "v1",
          "texts_recorded": 3, "texts_embedded": 1, "switched": True, "live_digest": "d", "verified": True}


def _run(monkeypatch, live, result=RESULT) -> int:
    async def replay(*args, **kwargs):
        return dict(result)

    monkeypatch.setattr(rp, "replay", replay)
    monkeypatch.setattr(rp, "live_worker_rate", lambda data_dir: live)
    return rp.run("v2", "log", True, None, None)


@pytest.mark.parametrize("live", [{"events": 0, "batch_seconds": 1.5, "events_per_s": 0.0},
                                  {"events": 0, "batch_seconds": 1.5, "events_per_s": None},
                                  {"events": 0, "batch_seconds": 1.5}])
def test_a_live_rate_of_zero_or_none_prints_no_ratio(monkeypatch, capsys, live):
    assert _run(monkeypatch, live) == 0
    out = capsys.readouterr().out
    assert "live workers: 0 events applied in 1.5 s of batches" in out
    assert "= n/a" in out and "x live" not in out
    assert "digest d: MATCH" in out


def test_positive_rates_give_the_ratio(monkeypatch, capsys):
    assert _run(monkeypatch, {"events": 30, "batch_seconds": 2.5, "events_per_s": 12.0}) == 0
    assert "replay 24.0 events/s = 2.0x live" in capsys.readouterr().out


def test_no_live_workers_or_no_replay_rate_prints_no_live_line(monkeypatch, capsys):
    _run(monkeypatch, None)
    assert "live workers" not in capsys.readouterr().out
    _run(monkeypatch, {"events": 30, "batch_seconds": 2.5, "events_per_s": 12.0}, {**RESULT, "events_per_s": None})
    assert "live workers" not in capsys.readouterr().out


@pytest.mark.parametrize("replay_rate,live_rate,want", [(24.0, 12.0, "2.0x live"), (24.0, 0.0, "n/a"),
                                                         (24.0, None, "n/a"), (None, 12.0, "n/a"), (0.0, 12.0, "n/a"),
                                                         (5.0, -1.0, "n/a")])
def test_times_live(replay_rate, live_rate, want):
    assert rp.times_live(replay_rate, live_rate) == want
