"""ops/soak.py's verdict is pure: the slope of a part's memory over the run's second half."""
from __future__ import annotations

import pytest

from ops.soak import Sample, SoakResult, growth_per_10k, table


def samples(rss: list[float], part: str = "worker-0", step: int = 10_000) -> list[Sample]:
    return [Sample(i * step, {part: v}) for i, v in enumerate(rss)]


def test_a_cache_that_fills_then_levels_off_has_no_growth_in_the_second_half():
    # +60 MiB per 10k until the cache is full at 20k events, then flat within a few MiB of noise
    s = samples([300, 360, 420, 421, 419, 422, 420, 421, 420, 419, 421])
    assert growth_per_10k(s, "worker-0") == pytest.approx(0.0, abs=0.5)


def test_a_leak_keeps_its_slope():
    s = samples([300 + 11 * i for i in range(11)])  # 11 MiB per 10k events, to the end
    assert growth_per_10k(s, "worker-0") == pytest.approx(11.0)


def test_too_few_samples_give_no_verdict_and_the_table_says_so():
    s = samples([300, 310])
    assert growth_per_10k(s, "worker-0") is None
    t = table(SoakResult(s + [Sample(20_000, {"broker": 40.0})]))
    assert t.splitlines()[0] == "| events | s | broker MiB | worker-0 MiB |"
    assert t.splitlines()[-1] == "| growth, 2nd half | MiB/10k | — | — |"
    assert "| 20000 | 0 | 40 | — |" in t


def test_the_load_bench_breakdown_is_the_difference_of_two_readings_in_stage_order():
    from ops.bench import breakdown

    before = {"fold": 1.0, "model": 2.0, "open": 0.5}
    after = {"open": 0.75, "model": 5.0, "fold": 1.5, "project": 0.4, "custom": 0.1}
    assert list(breakdown(before, after).items()) == [
        ("open", 0.25), ("model", 3.0), ("fold", 0.5), ("project", 0.4), ("custom", 0.1)]


def test_a_restart_in_the_second_half_gives_no_slope_and_is_marked():
    s = [Sample(i * 10_000, {"worker-0": v}, pids={"worker-0": pid})
         for i, (v, pid) in enumerate([(300, 1), (400, 1), (420, 1), (300, 2), (330, 2), (360, 2)])]
    assert growth_per_10k(s, "worker-0") is None  # a fresh process at 30k: no verdict on one process
    rows = table(SoakResult(s)).splitlines()
    assert rows[5].startswith("| 30000 |") and "300*" in rows[5] and "*" not in rows[6]


def test_the_load_bench_shares_leave_out_what_runs_beside_the_batches(capsys):
    """A batch's sends ('send') run while the next batch does: their seconds overlap the batch stages', so
    they are printed beside the shares, not in them (50/50 here, not 25/25/50)."""
    from ops.bench import print_load

    lat = {"p50_ms": 1, "p95_ms": 2, "p99_ms": 3}
    print_load({"events": 10, "contacts": 1, "ingest": {"accepted_events_per_s": 1, "post_latency": lat},
                "processing": {"end_to_end_events_per_s": 1, "seconds": 1},
                "stages": {"fold": 1.0, "project": 1.0, "send": 2.0},
                "worker_cpu": {"seconds": 0.5, "ms_per_event": 50.0}, "freshness": lat, "context": {}})
    out = capsys.readouterr().out
    assert "fold 1.00 (50%), project 1.00 (50%); send 2.00 beside them" in out
    assert "50.0 ms/event" in out


def test_the_load_bench_prices_a_request_in_the_api_processes_cpu(tmp_path, capsys):
    """bench load reads the API processes' /metrics (run.json names them beside the workers') before and
    after each timed phase: CPU seconds over requests served is what a request costs the API, whatever
    share of the cores the machine leaves it."""
    import json

    from ops.bench import CONTEXT_ROUTE, api_cost, print_load
    from ops.worker_metrics import metrics_urls

    (tmp_path / "run.json").write_text(json.dumps({"metrics": {
        "worker-0": "http://w0/metrics", "api": "http://a0/metrics", "api-1": "http://a1/metrics"}}))
    assert metrics_urls(tmp_path) == ["http://w0/metrics"]
    assert metrics_urls(tmp_path, "api") == ["http://a0/metrics", "http://a1/metrics"]

    cost = api_cost({"cpu": 10.0, "requests": 100.0, "context": 80.0}, {"cpu": 12.5, "requests": 600.0, "context": 480.0})
    assert cost == {"cpu_s": 2.5, "requests": 500, "context_requests": 400, "cpu_ms_per_request": 5.0,
                    "checkouts_per_request": 0.0, "statements_per_request": 0.0, "cards_read_again": 0,
                    "cards_ahead_used": 0, "access_events": 0}  # an API without the read counters: zeros
    cost = api_cost({"cpu": 10.0, "requests": 100.0, "context": 80.0, "checkouts": 100.0, "statements": 500.0,
                     "cards_read_again": 1.0, "cards_used": 10.0, "accesses": 3.0},
                    {"cpu": 12.5, "requests": 600.0, "context": 480.0, "checkouts": 650.0, "statements": 3300.0,
                     "cards_read_again": 5.0, "cards_used": 390.0, "accesses": 40.0})
    # by hand: 550 checkouts and 2,800 statements over 500 requests; 4 cards read again, 380 read ahead, 37 accesses
    assert cost == {"cpu_s": 2.5, "requests": 500, "context_requests": 400, "cpu_ms_per_request": 5.0,
                    "checkouts_per_request": 1.1, "statements_per_request": 5.6, "cards_read_again": 4,
                    "cards_ahead_used": 380, "access_events": 37}
    assert CONTEXT_ROUTE == "/context/{contact_id:path}"  # the label projections/api.Timing gives the route

    lat = {"p50_ms": 1, "p95_ms": 2, "p99_ms": 3}
    print_load({"events": 10, "contacts": 1, "ingest": {"accepted_events_per_s": 1, "post_latency": lat},
                "processing": {"end_to_end_events_per_s": 1, "seconds": 1}, "freshness": lat, "context": {},
                "api_during_ingest": cost})
    assert "5.0 ms/request   during the ingest: 2.5 s over 500 requests (400 /context)" in capsys.readouterr().out
