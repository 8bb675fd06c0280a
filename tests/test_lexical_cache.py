"""The API's cache of BM25 indexes for contacts that predate the keyword tables (projections/lexical.py,
IndexCache): bounded at 2000 contacts, least recently used out first (a hit counts as a use), and an
index is served only for the contact state (`seq`) it was built from."""
from __future__ import annotations

from projections.lexical import BM25Index, IndexCache


def index(text: str) -> BM25Index:
    return BM25Index([(text, text)])


def test_bounded_least_recently_used_out_first():
    cache = IndexCache()
    assert cache.size == 2000
    built = {n: index(f"memory {n}") for n in range(2001)}
    for n in range(2000):
        cache.put(("s", "t", f"c{n}"), 1, built[n])
    assert cache.get(("s", "t", "c0"), 1) is built[0]  # used: now the most recent
    cache.put(("s", "t", "c2000"), 1, built[2000])  # one over: the least recently used (c1) goes
    assert cache.get(("s", "t", "c1"), 1) is None
    assert cache.get(("s", "t", "c0"), 1) is built[0] and cache.get(("s", "t", "c2000"), 1) is built[2000]
    assert cache.get(("s", "t", "c2"), 1) is built[2] and len(cache._d) == 2000


def test_an_index_of_an_older_state_is_not_served():
    cache, old, new = IndexCache(size=2), index("lives in Mumbai"), index("lives in Pune")
    key = ("s", "t", "c")
    cache.put(key, 3, old)
    assert cache.get(key, 4) is None  # the contact changed since (its seq)
    cache.put(key, 4, new)
    assert cache.get(key, 4) is new and cache.get(key, 3) is None and len(cache._d) == 1
