"""streams/resilience.py: a periodic loop outlives one failing pass; a stalled call has a deadline."""
from __future__ import annotations

import asyncio

import pytest

from streams.resilience import bounded, survive

pytestmark = pytest.mark.asyncio


async def test_a_failing_pass_is_logged_and_the_next_one_runs(caplog):
    calls = []

    @survive("heartbeat")
    async def beat(fail: bool) -> str:
        calls.append(fail)
        if fail:
            raise TimeoutError("redis did not answer within 2 s")
        return "ok"

    assert await beat(True) is None
    assert await beat(False) == "ok"
    assert calls == [True, False]
    assert "heartbeat: one pass failed (TimeoutError at test_resilience.py:" in caplog.text  # where, never the message


async def test_cancellation_still_stops_the_loop():
    @survive("scheduler")
    async def tick() -> None:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await tick()


async def test_bounded_names_what_stalled():
    never = asyncio.get_running_loop().create_future()
    with pytest.raises(TimeoutError, match="redis did not answer within 0.05 s"):
        await bounded(never, 0.05, "redis")
