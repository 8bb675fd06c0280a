"""Background loops that outlive one failing pass, and waiting out a dependency that is away.

Faust timers and the API's background tasks run forever; an exception escaping one pass ends the timer
(Faust then crashes the worker) or the task. `survive` makes one pass's failure a logged line and
lets the next pass run; `bounded` puts a deadline on one awaited call (a stalled Redis blocks a
client forever otherwise); `backoff` retries a call while a dependency is away (tenacity)."""
from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import Any, Awaitable, Callable, TypeVar

from tenacity import AsyncRetrying, retry_if_exception_type, wait_exponential

from schemas import logsafe

T = TypeVar("T")
log = logging.getLogger("rapport.resilience")
REPEAT_LOG_S = 60.0  # the same loop failing again logs its traceback at most once a minute


def survive(name: str) -> Callable[[Callable[..., Awaitable[Any]]], Callable[..., Awaitable[Any]]]:
    """Decorate one pass of a periodic loop: an exception is logged and the pass returns None."""
    def wrap(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        last_trace = [0.0]

        @functools.wraps(fn)
        async def run(*args: Any, **kw: Any) -> Any:
            try:
                return await fn(*args, **kw)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # one pass; the loop goes on
                now = time.monotonic()
                trace = now - last_trace[0] >= REPEAT_LOG_S
                if trace:
                    last_trace[0] = now
                log.warning("%s: one pass failed (%s); continuing", name, logsafe.where(err), exc_info=trace)
                return None
        return run
    return wrap


async def bounded(aw: Awaitable[T], seconds: float, what: str) -> T:
    """`aw` with a deadline; TimeoutError names what stalled."""
    try:
        return await asyncio.wait_for(aw, seconds)
    except asyncio.TimeoutError:
        raise TimeoutError(f"{what} did not answer within {seconds:g} s") from None


async def within(aw: Awaitable[T], seconds: float, what: str) -> T:
    """`aw` with a deadline that holds even when cancelling it does not: past `seconds` it is cancelled
    and left to finish on its own (psycopg, cancelled mid-query, waits up to 10 s for a server that
    stopped answering to confirm), and TimeoutError names what stalled. `bounded` waits for that."""
    task = asyncio.ensure_future(aw)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        task.add_done_callback(_consume)
        raise TimeoutError(f"{what} did not answer within {seconds:g} s")
    return task.result()


def _consume(task: "asyncio.Future[Any]") -> None:
    if not task.cancelled():
        task.exception()  # retrieved: no "exception was never retrieved" at exit


def backoff(on: tuple[type[BaseException], ...], what: str, *, first_s: float, max_s: float,
            give_up: Callable[[], bool] = lambda: False, level: int = logging.WARNING, **kw: Any) -> AsyncRetrying:
    """tenacity's retrying loop for waiting out a dependency that is away: retry on the exceptions `on`,
    sleeping `first_s`, then doubling to at most `max_s`, each wait logged as "<what> (<error>); again in
    <n> s"; forever unless `give_up()` says stop (the last error is then raised as it was). Use it as
    `async for attempt in backoff(...): with attempt: ...`; other exceptions pass through at once."""
    def log_wait(state: Any) -> None:
        log.log(level, "%s (%s); again in %.1f s", what, type(state.outcome.exception()).__name__,
                    state.next_action.sleep)

    return AsyncRetrying(retry=retry_if_exception_type(on), wait=wait_exponential(multiplier=first_s, max=max_s),
                         stop=lambda _state: give_up(), before_sleep=log_wait, reraise=True, **kw)
