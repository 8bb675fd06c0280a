"""Where a candidate memory goes: layered dedup and supersession, as a pure decision.

Layers, first match wins:
  1. memoryKey — the contact already has an active memory with this key (a fact about the same
     subject and relation): the same content reinforces it; different content supersedes it
     ("I moved to Berlin" after "I live in Mumbai").
  2. exact normalized-content hash among the contact's indexed memories -> reinforce.
  3. embedding similarity against the contact's most recent memories of the same type (the hot
     set) >= the embedder's threshold -> reinforce.
  4. otherwise a new memory.
Replacement (`replaced`): a candidate that says it replaces a value of a multi-valued slot ("I now work
at Siemens": extraction sets `replaces` to the relation-level key prefix "fact|self|works_at") also
supersedes every other active memory under that prefix, whatever its value, and a memory stored under the
older single-valued key, which is the prefix itself.

Thresholds are per embedder because cosine scales differ between models: the seeds' 0.90/0.92 were
for OpenAI vectors; SIMILARITY_THRESHOLDS documents the calibration for the local model. Cosine
similarity cannot see negation, order or numbers ("prefers tea over coffee" / "prefers coffee over
tea" = 0.995), so the embedding layer only merges memories that are compatible: no two different
memoryKeys (structured facts are the key layer's job), the same negation polarity, the same numbers.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from agents.core.memory import normalize_text

# Calibrated on labelled pairs (tests/data/dedup_pairs.jsonl, tests/test_dedup_calibration.py): for
# all-MiniLM-L6-v2 paraphrases of one memory score 0.84-0.99 ("Has a dog named Bruno" / "Has a golden
# retriever named Bruno" 0.857), distinct memories up to 0.78 once the guards below apply
# ("Mom lives in Chennai" / "Dad lives in Chennai" 0.783).
SIMILARITY_THRESHOLDS = {"all-MiniLM-L6-v2": 0.83, "text-embedding-3-small": 0.90}
DEFAULT_THRESHOLD = 0.90
REINFORCE_BOOST = 0.05
HOT_SET_SIZE = 20


@dataclass(frozen=True)
class Decision:
    kind: str                 # "new" | "reinforce" | "supersede"
    target: str | None = None  # the existing memory reinforced or superseded
    layer: str = "none"        # "key" | "hash" | "embedding" | "none"
    similarity: float | None = None


_NEGATION = re.compile(r"\b(not|no|never|don'?t|doesn'?t|didn'?t|isn'?t|wasn'?t|can'?t|won'?t|hate|dislikes?)\b|n't\b",
                       re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def signature(text: str) -> dict[str, Any]:
    """What cosine similarity misses: polarity, the numbers mentioned, and word order (`bag` hashes the
    sorted words: the same bag in another order is a swap of roles, "tea over coffee" / "coffee over tea")."""
    neg, nums, bag, seq = _signature(text)
    return {"neg": neg, "nums": list(nums), "bag": bag, "seq": seq}


@lru_cache(maxsize=20_000)
def _signature(text: str) -> tuple[bool, tuple[str, ...], str, str]:
    # memoised: the consolidation tiers compare each memory with every other one of its contact
    words = normalize_text(text).split()
    return (bool(_NEGATION.search(text)), tuple(sorted(set(_NUMBER.findall(text)))),
            hashlib.sha1(" ".join(sorted(words)).encode()).hexdigest()[:16],
            hashlib.sha1(" ".join(words).encode()).hexdigest()[:16])


def compatible(candidate: dict[str, Any], item: dict[str, Any]) -> bool:
    if candidate["memoryType"] != item["memoryType"]:
        return False
    if candidate.get("memoryKey") and item.get("memoryKey") and candidate["memoryKey"] != item["memoryKey"]:
        return False
    a, b = signature(candidate["content"]), item["sig"]
    if a["bag"] == b["bag"] and a["seq"] != b["seq"]:
        return False
    return a["neg"] == b["neg"] and a["nums"] == b["nums"]


def threshold_for(model: str | None) -> float:
    return SIMILARITY_THRESHOLDS.get(model or "", DEFAULT_THRESHOLD)


def decide(candidate: dict[str, Any], index: dict[str, Any], vector: Sequence[float] | None,
           hot_vectors: dict[str, Sequence[float]], model: str | None) -> Decision:
    """`index`: {"keys": {memoryKey: id}, "hashes": {hash: id}, "recent": [ids, newest last],
    "items": {id: {"memoryType", "memoryKey", "contentHash", "sig", "importance", ...}}};
    `hot_vectors`: {id: vector} for the ids in recent."""
    key = candidate.get("memoryKey")
    if key and key in index["keys"]:
        target = index["keys"][key]
        item = index["items"].get(target, {})
        # the same content, or a restatement about the same entities ("Has a dog named Bruno" after
        # "Has a golden retriever named Bruno") reinforces; a different object supersedes
        same = item.get("contentHash") == candidate["contentHash"] or (
            bool(candidate.get("entityRefs")) and sorted(item.get("refs") or []) == sorted(candidate["entityRefs"]))
        return Decision("reinforce" if same else "supersede", target, "key")
    target = index["hashes"].get(candidate["contentHash"])
    if target is not None:
        return Decision("reinforce", target, "hash")
    if vector is not None:
        best, best_id = -1.0, None
        v = np.asarray(vector, dtype=np.float32)
        for mid in reversed(index["recent"]):
            item = index["items"].get(mid)
            hv = hot_vectors.get(mid)
            if item is None or hv is None or not compatible(candidate, item):
                continue
            sim = float(v @ np.asarray(hv, dtype=np.float32))
            if sim > best:
                best, best_id = sim, mid
        if best_id is not None and best >= threshold_for(candidate.get("embeddingModel")):
            return Decision("reinforce", best_id, "embedding", round(best, 4))
    return Decision("new")


def replaced(candidate: dict[str, Any], index: dict[str, Any]) -> list[str]:
    """The active memories a replacing candidate retires: those keyed on its `replaces` prefix (the same
    subject and relation) under another value, or under the prefix itself (the pre-value key scheme)."""
    prefix = candidate.get("replaces")
    if not prefix:
        return []
    own = candidate.get("memoryKey")
    return [mid for key, mid in index["keys"].items()
            if key != own and (key == prefix or key.startswith(prefix + "|"))]
