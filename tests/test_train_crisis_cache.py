"""ops/train_crisis and ops/train_mood keep the training texts' vectors between runs (ops/vector_cache.py): a
cache file is named by the texts, so rows reordered at the same length are embedded anew (a cache named by the
set's name and length once fed a crisis retrain vectors of other rows: grouped CV recall 0.854 -> 0.770)."""
from __future__ import annotations

import numpy as np

from ops import train_crisis, train_mood, vector_cache


def test_the_cache_is_named_by_the_texts_and_their_order(tmp_path):
    a = vector_cache.cache_file(tmp_path, "own_train", ["i cut myself again", "my phone died"])
    assert a == vector_cache.cache_file(tmp_path, "own_train", ["i cut myself again", "my phone died"])
    assert a != vector_cache.cache_file(tmp_path, "own_train", ["my phone died", "i cut myself again"])
    assert a != vector_cache.cache_file(tmp_path, "own_train", ["i cut myself again", "my phone died!"])
    assert a != vector_cache.cache_file(tmp_path, "everyday", ["i cut myself again", "my phone died"])


def test_embed_reads_the_cache_of_the_same_texts_only(tmp_path, monkeypatch):
    texts = ["first row", "second row"]
    np.save(vector_cache.cache_file(tmp_path, "own_train", texts), np.full((2, 384), 7.0, np.float32))
    assert (train_crisis.embed(texts, tmp_path, "own_train") == 7.0).all()

    class Fake:
        def __init__(self, batch_size: int) -> None:
            pass

        def embed(self, batch: list[str]) -> np.ndarray:
            return np.array([[float(len(t))] * 384 for t in batch], np.float32)

    monkeypatch.setattr("domain.embedder.MiniLMEmbedder", Fake)
    swapped = train_crisis.embed(texts[::-1], tmp_path, "own_train")
    assert swapped[:, 0].tolist() == [10.0, 9.0]
    assert (train_crisis.embed(texts[::-1], tmp_path, "own_train") == swapped).all()


def test_the_mood_tool_reads_the_same_cache_by_the_texts_it_embeds(tmp_path, monkeypatch):
    calls = []

    class Fake:
        def __init__(self, batch_size: int) -> None:
            pass

        def embed(self, batch: list[str]) -> np.ndarray:
            calls.append(list(batch))
            return np.array([[float(len(t))] * 384 for t in batch], np.float32)

    monkeypatch.setattr("domain.embedder.MiniLMEmbedder", Fake)
    first = train_mood.embed_texts(["so  happy\ttoday", "meh"], tmp_path)
    assert calls == [["so happy today", "meh"]]          # the worker's whitespace-folded text is embedded
    again = train_mood.embed_texts(["so happy today", "meh"], tmp_path)  # the same folded texts: read back
    assert len(calls) == 1 and (again == first).all()
    train_mood.embed_texts(["meh", "so happy today"], tmp_path)          # reordered: embedded anew
    assert len(calls) == 2
