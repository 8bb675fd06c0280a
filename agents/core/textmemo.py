"""The fold's memo of pure answers about one message: what a classifier says of (text, vector, ...).

A text said again ("ok", "lol", "thanks", a bot's template) has the same vector bits (a message is embedded
alone, agents/pipeline.py `_embed_sync`), so an answer that is a pure function of the two is computed once.
Both message classifiers of the fold use the one memo: the crisis rules' hit and the model's log-odds
(crisis_model `_scored`) and the offline mood (emotion `_classify`). A key is:
  - `by`: what the answer is computed with (the functions, the loaded weights), held by identity, so a
    test's spy or another model file is asked afresh, and an id reused by a new object never matches;
  - the text, the vector's dtype, shape and bytes (a vector that is not an array is never a key: it is
    asked afresh), and whatever else the answer depends on (`extra`: the previous mood).
It is dropped whole after an erasure (`forget`): keyed by text, an erased contact's words leave it too.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Hashable, TypeVar

import numpy as np
from cachetools import LRUCache

T = TypeVar("T")

# two answers a message (its mood, its crisis score), 4,096 messages: ~13 MB at ~1.6 KB a key
MEMO_SIZE = 8192


def vector_bits(vector: np.ndarray | None) -> tuple | None:
    """An array's identity as a key: dtype, shape and bytes (the same key, the same array)."""
    return None if vector is None else (vector.dtype.str, vector.shape, vector.tobytes())


class TextMemo:
    """A bounded, thread-safe memo (least recently used first out) of answers by (by, text, vector bits,
    extra). An answer is returned as stored: a caller that hands on a mutable one copies it."""

    def __init__(self, maxsize: int = MEMO_SIZE):
        self._answers: LRUCache[tuple, tuple[tuple, Any]] = LRUCache(maxsize)
        self._lock = threading.Lock()  # the fold runs on one thread; the memo must not break on two

    def answer(self, compute: Callable[[], T], by: tuple, text: str, vector: Any, *extra: Hashable) -> T:
        """compute(), or what it gave before for the same key."""
        if vector is not None and not isinstance(vector, np.ndarray):
            return compute()
        key = (tuple(map(id, by)), text, vector_bits(vector), extra)
        with self._lock:
            found = self._answers.get(key)
        if found is not None and all(a is b for a, b in zip(found[0], by)):
            return found[1]
        got = compute()
        with self._lock:
            self._answers[key] = (by, got)
        return got

    def forget(self) -> None:
        with self._lock:
            self._answers.clear()

    def __len__(self) -> int:
        return len(self._answers)


MESSAGES = TextMemo()  # the one memo of the fold's message classifiers
