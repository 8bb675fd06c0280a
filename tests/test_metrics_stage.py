"""agents/metrics.stage and switch: a batch's time charged once, to the stage it was spent in."""
from __future__ import annotations

import asyncio
import time

from prometheus_client import CollectorRegistry, Counter

from agents import metrics


def seconds(c: Counter) -> dict[str, float]:
    return {s.labels["stage"]: s.value for m in c.collect() for s in m.samples if s.name.endswith("_total")}


def test_switches_and_a_nested_stage_add_up_to_the_wall_time_once():
    c = Counter("t_stage_seconds", "", ["stage"], registry=CollectorRegistry())
    t0 = time.perf_counter()
    with metrics.stage("open", c):
        time.sleep(0.02)
        metrics.switch("state", c)
        time.sleep(0.02)
        with metrics.stage("model", c):  # the outer stage pauses
            time.sleep(0.04)
        time.sleep(0.02)  # state again
        metrics.switch("fold", c)
        time.sleep(0.01)
    wall = time.perf_counter() - t0
    s = seconds(c)
    assert set(s) == {"open", "state", "model", "fold"}
    assert abs(sum(s.values()) - wall) < 0.005  # nothing counted twice, nothing lost
    assert 0.04 <= s["state"] < 0.055 and 0.04 <= s["model"] < 0.055 and 0.02 <= s["open"] < 0.035


def test_outside_a_stage_a_switch_does_nothing_and_tasks_keep_their_own_stage():
    c = Counter("t_stage_seconds2", "", ["stage"], registry=CollectorRegistry())
    metrics.switch("fold", c)
    assert seconds(c) == {}

    async def batch(name: str, other: str) -> None:
        with metrics.stage(name, c):
            await asyncio.sleep(0.02)
            metrics.switch(other, c)
            await asyncio.sleep(0.02)

    async def both() -> None:  # two interleaved tasks (a batch and the scheduler timer)
        await asyncio.gather(batch("a1", "a2"), batch("b1", "b2"))

    asyncio.run(both())
    s = seconds(c)
    assert set(s) == {"a1", "a2", "b1", "b2"} and all(0.015 < v < 0.05 for v in s.values())


def test_a_background_stage_started_inside_a_stage_neither_pauses_it_nor_charges_it():
    """A batch's sends run in a task created inside the batch's 'publish' stage (agents/app_agents.py):
    the task's context is a copy of the batch's, and its time must go to 'send' only, while the batch's
    stages go on counting their own time."""
    c = Counter("t_stage_seconds3", "", ["stage"], registry=CollectorRegistry())

    async def send() -> None:
        with metrics.background("send", c):
            await asyncio.sleep(0.05)

    async def run() -> None:
        with metrics.stage("publish", c):
            task = asyncio.create_task(send())  # inherits ("publish", t) in its context
            time.sleep(0.02)  # the task starts only once the batch yields
            await asyncio.sleep(0.01)
        with metrics.stage("fold", c):  # the next batch, while the sends go on
            await asyncio.sleep(0.03)
        await task

    asyncio.run(run())
    s = seconds(c)
    assert 0.045 <= s["send"] < 0.07  # its own wall time, from its start
    assert 0.03 <= s["publish"] < 0.045  # its own 30 ms, not also the 20 ms before the task started
    assert 0.03 <= s["fold"] < 0.045  # not paused by the task
