"""Sentence vectors of training texts, kept on disk between runs of the training tools (ops/train_crisis.py,
ops/train_mood.py): embedding a few thousand texts with the local model takes minutes, a retrain seconds.

A cache file is named by a digest of the texts themselves, in their order: a set whose rows were reordered,
edited or replaced at the same length is embedded anew, never read back misaligned (a cache once named by a
set's name and length fed a crisis retrain the vectors of other rows)."""
from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

DIM = 384  # the local model's width (domain.embedder.MiniLMEmbedder)


def cache_file(cache: Path, name: str, texts: list[str]) -> Path:
    digest = hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return Path(cache) / f"{name}-{digest}.npy"


def local_model(texts: list[str]) -> np.ndarray:
    """The worker's own embedding of each text (batches of 500, so progress shows on long sets)."""
    from domain.embedder import MiniLMEmbedder
    e = MiniLMEmbedder(batch_size=32)
    return np.concatenate([e.embed(texts[k:k + 500]) for k in range(0, len(texts), 500)])


def cached_vectors(texts: list[str], cache: str | Path | None, name: str,
                   embed: Callable[[list[str]], np.ndarray] = local_model) -> np.ndarray:
    """[len(texts), DIM] float32: read from `cache` when these exact texts were embedded before, else computed
    with `embed` (and kept there when `cache` is given)."""
    path = cache_file(Path(cache), name, texts) if cache is not None else None
    if path is not None and path.exists():
        return np.load(path)
    if not texts:
        return np.zeros((0, DIM), np.float32)
    t0 = time.perf_counter()
    v = embed(texts)
    print(f"embedded {len(texts)} {name} texts in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, v)
    return v
