"""The worker's contact-state cache is bounded by size (agents/pipeline.py): a long run over many
contacts, or a few very large states, cannot grow the worker without limit."""
from __future__ import annotations

import orjson

from agents.pipeline import InteractionPipeline, state_size


def state(n: int, filler: int = 1000) -> dict:
    return {"seq": n, "window": [{"role": "user", "content": "x" * filler}]}


def test_states_past_the_byte_budget_are_evicted_least_recent_first():
    one = state_size(state(0))
    assert one == 4 * len(orjson.dumps(state(0)))  # the estimate: 4x the JSON
    p = InteractionPipeline(None, None, broker_epoch="test", cache_bytes=3 * one)  # type: ignore[arg-type]
    for i in range(5):
        p._remember(("t", f"c{i}"), state(i))
    assert set(p.cache) == {("t", "c2"), ("t", "c3"), ("t", "c4")}   # three fit; the two oldest went
    assert p.cache.currsize <= 3 * one
    p.cache[("t", "c2")]                                              # read: now the most recent
    p._remember(("t", "c5"), state(5))
    assert set(p.cache) == {("t", "c2"), ("t", "c4"), ("t", "c5")}    # c3 was the least recent
    p._remember(("t", "huge"), state(6, filler=20_000))                # above the whole budget: not kept
    assert ("t", "huge") not in p.cache and len(p.cache) == 3


def test_the_count_limit_still_holds():
    p = InteractionPipeline(None, None, broker_epoch="test", cache_size=2, cache_bytes=10**9)  # type: ignore[arg-type]
    for i in range(4):
        p._remember(("t", f"c{i}"), state(i, filler=10))
    assert set(p.cache) == {("t", "c2"), ("t", "c3")}


def test_hot_vectors_are_bounded_and_the_least_recent_goes_first():
    p = InteractionPipeline(None, None, broker_epoch="test", cache_size=3)  # type: ignore[arg-type]
    for i in range(3):
        p._remember_vector(f"m{i}", [float(i)])
    p._remember_vector("m0", [0.0])  # kept again: now the most recent
    p._remember_vector("m3", [3.0])
    assert set(p.vectors) == {"m0", "m2", "m3"} and p.vectors["m3"] == [3.0]
