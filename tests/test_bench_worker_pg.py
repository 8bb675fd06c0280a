"""`rapport bench worker`: the pipeline driven over bench load's events, its CPU and stages."""
from __future__ import annotations

import pytest

from ops import bench_worker
from tests.helpers import FakeEmbedder

pytestmark = [pytest.mark.pg]


def test_the_events_are_bench_loads_each_contact_in_order_with_every_third_turn_the_assistants():
    envs = bench_worker.events(12, 2, distinct=True)
    assert len(envs) == 12 and len({e.contact_id for e in envs}) == 2
    for c in {e.contact_id for e in envs}:
        mine = [e for e in envs if e.contact_id == c]
        assert [e.payload["role"] for e in mine] == ["user", "user", "assistant"] * 2
        assert [e.occurred_at for e in mine] == sorted(e.occurred_at for e in mine)
    assert len({e.payload["message"] for e in envs}) == 12  # --distinct: every text its own here


@pytest.mark.asyncio
async def test_every_event_is_applied_and_the_stages_account_for_the_wall_time(pg_url):
    envs = bench_worker.events(60, 3)
    r = await bench_worker.run_pipeline(pg_url, envs, FakeEmbedder(), batch=25)
    assert r["events"] == 60 and r["dead_letters"] == 0 and r["derived"] > 60
    # cpu_seconds is rounded to 10 ms
    assert r["cpu_seconds"] > 0 and r["cpu_ms_per_event"] == pytest.approx(r["cpu_seconds"] * 1000 / 60, abs=0.1)
    # the batches' stages add up to the wall time once (a batch's time is counted once, metrics.stage)
    assert sum(r["stages"].values()) == pytest.approx(r["seconds"], rel=0.1)
    assert {"fold", "project", "commit"} <= set(r["stages"])
