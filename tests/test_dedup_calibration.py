"""The embedding-layer threshold for the local model, checked on labelled pairs with the real model:
no distinct pair is ever merged, and most paraphrases are."""
import json
from pathlib import Path

from agents.core.dedup import compatible, signature, threshold_for
from agents.core.memory import content_hash

PAIRS = [json.loads(line) for line in (Path(__file__).parent / "data" / "dedup_pairs.jsonl").open()]


def merged(a: str, b: str, sim: float) -> bool:
    cand = {"memoryType": "fact", "content": a, "contentHash": content_hash(a)}
    item = {"memoryType": "fact", "sig": signature(b)}
    return compatible(cand, item) and sim >= threshold_for("all-MiniLM-L6-v2")


def test_threshold_separates_labelled_pairs(embedder):
    va = embedder.embed([p["a"] for p in PAIRS])
    vb = embedder.embed([p["b"] for p in PAIRS])
    sims = (va * vb).sum(1)
    wrong = [(p["a"], p["b"], float(s)) for p, s in zip(PAIRS, sims) if not p["same"] and merged(p["a"], p["b"], s)]
    assert wrong == []
    same = [p for p in PAIRS if p["same"]]
    hits = sum(merged(p["a"], p["b"], s) for p, s in zip(PAIRS, sims) if p["same"])
    assert hits / len(same) >= 0.8, hits


def test_guards():
    assert signature("Doesn't like talking about politics")["neg"] is True
    assert signature("Likes talking about politics")["neg"] is False
    assert signature("Is 29 years old")["nums"] == ["29"]
    a = {"memoryType": "preference", "content": "x", "memoryKey": "preference|self|prefers|tea|coffee"}
    b = {"memoryType": "preference", "sig": signature("x"), "memoryKey": "preference|self|prefers|coffee|tea"}
    assert not compatible(a, b)
