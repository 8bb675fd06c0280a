"""Read-your-writes (`after=`): projections.deps.reflected polls the store with a growing wait (5 ms, x1.5,
at most 100 ms) until the event is applied or AFTER_TIMEOUT_S passes (tenacity)."""
from __future__ import annotations

import asyncio
import time

from projections import deps


class _Store:
    def __init__(self, applied_at_read: int | None):
        self.reads, self.applied_at_read = 0, applied_at_read

    async def is_processed(self, tenant_id: str, event_id: str) -> bool:
        assert (tenant_id, event_id) == ("acme", "e1")
        self.reads += 1
        return self.applied_at_read is not None and self.reads >= self.applied_at_read


class _Service:
    def __init__(self, store):
        from streams import tracing

        self.store, self.traces = store, tracing.RecentTraces()


def _reflected(store, timeout_s: float, monkeypatch) -> tuple[bool, float]:
    monkeypatch.setattr(deps, "AFTER_TIMEOUT_S", timeout_s)
    token = deps.CURRENT.set(_Service(store))
    try:
        t0 = time.monotonic()
        return asyncio.run(deps.reflected("acme", "e1")), time.monotonic() - t0
    finally:
        deps.CURRENT.reset(token)


def test_an_applied_event_answers_at_once_and_a_late_one_when_it_lands(monkeypatch):
    store = _Store(applied_at_read=1)
    assert _reflected(store, 5.0, monkeypatch)[0] is True and store.reads == 1
    store = _Store(applied_at_read=4)
    ok, took = _reflected(store, 5.0, monkeypatch)
    assert ok is True and store.reads == 4 and took >= 0.005 + 0.0075 + 0.01125  # the three waits, by hand


def test_an_event_never_applied_answers_false_after_the_timeout_without_spinning(monkeypatch):
    store = _Store(applied_at_read=None)
    ok, took = _reflected(store, 0.3, monkeypatch)
    # waits 5, 7.5, 11.25 ... 100 ms add up past 0.3 s after the 9th (0.346 s): 10 reads, fewer on a slow machine
    assert ok is False and 0.3 <= took < 2.0 and 3 <= store.reads <= 10
