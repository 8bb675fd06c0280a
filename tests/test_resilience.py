"""streams/resilience.py: a periodic loop outlives one failing pass; a stalled call has a deadline."""
from __future__ import annotations

import asyncio

import pytest

from streams.resilience import backoff, bounded, survive

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


async def test_backoff_waits_out_the_listed_errors_doubling_to_its_cap_and_passes_others_through():
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    calls = [0]
    async for tried in backoff((ConnectionError,), "db away", first_s=0.2, max_s=1.0, sleep=sleep):
        with tried:
            calls[0] += 1
            if calls[0] <= 5:
                raise ConnectionError("away")
    assert calls[0] == 6 and waits == pytest.approx([0.2, 0.4, 0.8, 1.0, 1.0])  # by hand: 0.2 * 2^n, at most 1

    with pytest.raises(ValueError):  # not listed: raised at the first attempt, no wait
        async for tried in backoff((ConnectionError,), "db away", first_s=0.2, max_s=1.0, sleep=sleep):
            with tried:
                raise ValueError("bad record")
    assert len(waits) == 5


async def test_backoff_gives_up_with_the_last_error_itself_when_told_to():
    stopping = asyncio.Event()

    async def sleep(s: float) -> None:
        stopping.set()

    attempts = []
    with pytest.raises(ConnectionError, match="second"):
        async for tried in backoff((ConnectionError,), "db away", first_s=0.2, max_s=1.0, sleep=sleep,
                                   give_up=stopping.is_set):
            with tried:
                attempts.append(1)
                raise ConnectionError("first" if len(attempts) == 1 else "second")
    assert len(attempts) == 2
