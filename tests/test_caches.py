"""The in-process caches (cachetools): each is bounded, evicts the least recently used entry, and a hit
skips the work it caches. Expected sizes and survivors are counted by hand from the sequence of calls."""
from __future__ import annotations

import asyncio
from concurrent.futures import Future

import numpy as np
from opentelemetry.sdk.trace import TracerProvider

from projections import service as service_mod
from projections.service import Service
from streams import shredding, tracing


def test_recent_traces_keep_the_last_size_events_and_evict_the_oldest():
    traces = tracing.RecentTraces(size=3)
    with TracerProvider().get_tracer("t").start_as_current_span("ingest"):
        traces.remember([("t", "e1"), ("t", "e2"), ("t", "e3")])
        assert traces.links("t", "e1")  # read: e1 is now the most recently used
        traces.remember([("t", "e4")])  # evicts e2, the least recently used
    assert [bool(traces.links("t", e)) for e in ("e1", "e2", "e3", "e4")] == [True, False, True, True]
    assert traces.links("other", "e1") == []  # another tenant's event id is not this one


def test_key_ring_is_bounded_and_keeps_the_key_it_reads_often(monkeypatch):
    reads: list[set] = []

    async def fetch_keys(conn, missing):
        reads.append(set(missing))
        return {c: c[1].encode() * 4 for c in missing}

    monkeypatch.setattr(shredding, "fetch_keys", fetch_keys)
    ring = shredding.KeyRing(size=2)

    async def run():
        a, b, c = ("t", "a"), ("t", "b"), ("t", "c")
        assert await ring.fetch(None, [a, b]) == {a: b"aaaa", b: b"bbbb"}
        assert await ring.fetch(None, [a]) == {a: b"aaaa"}  # a hit: no read, a most recent
        await ring.fetch(None, [c])  # evicts b
        assert await ring.fetch(None, [a, c]) == {a: b"aaaa", c: b"cccc"}
        await ring.fetch(None, [b])
        return reads

    assert asyncio.run(run()) == [{("t", "a"), ("t", "b")}, {("t", "c")}, {("t", "b")}]
    assert len(ring._cache) == 2


class _CountingBatcher:
    def __init__(self):
        self.asked: list[str] = []

    def submit(self, text: str) -> Future:
        self.asked.append(text)
        done: Future = Future()
        done.set_result(np.array([float(len(self.asked))]))
        return done


def test_query_vectors_skip_the_model_for_a_repeated_question_and_are_bounded(monkeypatch):
    monkeypatch.setattr(service_mod, "QUERY_VECTORS_KEPT", 2)
    svc = Service()  # nothing connects before start()
    batcher = _CountingBatcher()
    monkeypatch.setattr(Service, "queries", property(lambda self: batcher))

    async def run():
        first = await svc.query_vector("how is max")
        assert (await svc.query_vector("how is max"))[0] == first[0] == 1.0  # the kept vector, no model call
        await svc.query_vector("b")
        await svc.query_vector("how is max")  # most recent again
        await svc.query_vector("c")  # evicts "b", the least recently asked
        await svc.query_vector("how is max")  # still kept
        await svc.query_vector("b")  # asked again

    asyncio.run(run())
    assert batcher.asked == ["how is max", "b", "c", "b"]
