"""The second independent held-out mood data of issue 21: agents/core/data/mood_dialogue_heldout2.jsonl,
written (with the crisis set's `heldout5` part, checked in tests/test_heldout_parts.py) by a writer who read
neither the mood model nor the other sets' texts. Measured on (`rapport bench mood`), never trained, tuned or
calibrated on: checked here on the rows the training code reads."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ops import bench_mood, train_mood

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "agents" / "core" / "data"
MOOD2_PATH = DATA / "mood_dialogue_heldout2.jsonl"
MOOD2 = bench_mood.load_heldout_dialogue(MOOD2_PATH)


def _norm(t: str) -> str:
    return " ".join(t.lower().split())


def test_the_second_mood_held_out_set_loads_balanced_over_the_five_moods():
    assert len(MOOD2) >= 300
    n = Counter(r["mood"] for r in MOOD2)
    assert set(n) == set(train_mood.DIALOGUE_MOODS)
    assert max(n.values()) - min(n.values()) <= len(MOOD2) * 0.05
    with_prev = sum(1 for r in MOOD2 if r.get("previous"))
    assert len(MOOD2) * 0.4 <= with_prev <= len(MOOD2) * 0.7
    bad = [i for i, row in enumerate(MOOD2)  # indices only: a failure prints no held-out text
           if not (set(row) <= {"text", "mood", "previous", "split"} and row["split"] == "heldout2")
           or not (row["text"].strip() and (row.get("previous") is None or row["previous"].strip()))]
    assert not bad, bad[:10]
    texts = [_norm(r["text"]) for r in MOOD2]
    assert len(texts) == len(set(texts))


def test_the_second_mood_held_out_set_shares_no_text_with_the_other_dialogue_files():
    mine = {_norm(r["text"]) for r in MOOD2}
    others = [p for p in sorted(DATA.glob("mood_dialogue*.jsonl")) if p != MOOD2_PATH]
    assert {p.name for p in others} >= {"mood_dialogue.jsonl", "mood_dialogue_heldout.jsonl"}
    for path in others:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        theirs = {_norm(r["text"]) for r in rows} | {_norm(r["previous"]) for r in rows if r.get("previous")}
        assert not mine & theirs, path.name
    assert not mine & {_norm(r["text"]) for r in train_mood.load_hand()}


def test_bench_mood_measures_and_reports_the_second_set_beside_the_first():
    assert bench_mood.HELDOUT_DIALOGUE_SETS == {"dialogue_heldout": bench_mood.HELDOUT_DIALOGUE_PATH,
                                                "dialogue_heldout2": MOOD2_PATH}
    # a result in the shape run() gives, with numbers set by hand, rendered by the report
    five = sorted(train_mood.DIALOGUE_MOODS)
    per = {m: 0.5 for m in five}
    block = {"macro_f1": 0.5, "per_label_f1": per, "predicted": {"neutral": 3}}
    system = {"goemotions_dev": {"accuracy": 0.5, "macro_f1": 0.5, "macro_f1_five": 0.5,
                                 "per_class_f1": {m: 0.5 for m in train_mood.GOEMOTIONS_MOODS}},
              "hand_eval": {"mood_accuracy": 0.5, "mood_macro_f1": 0.5, "energy_accuracy": 0.5},
              "dialogue_eval": {"macro_f1": 0.5}, "latency": {"p50_ms": 0.1, "p99_ms": 0.2},
              "dialogue_heldout": dict(block, macro_f1=0.111),
              "dialogue_heldout2": dict(block, macro_f1=0.222)}
    result = {"goemotions_dev_n": 10, "hand_eval_n": 5, "dialogue_eval_n": 5, "meld_path": "/nowhere",
              "dialogue_heldout_n": 310, "dialogue_heldout_with_previous": 60,
              "dialogue_heldout2_n": 300, "dialogue_heldout2_with_previous": 186,
              "artifact_bytes": 1, "artifact_load_ms": 1.0, "embedding_s": 1.0, "macro_f1_gain": 0.0,
              "classifier": dict(system, dialogue_heldout=dict(block, macro_f1=0.111, macro_f1_without_context=0.333),
                                 dialogue_heldout2=dict(block, macro_f1=0.222, macro_f1_without_context=0.444)),
              "words_only": system, "keyword_baseline": system}
    table = bench_mood.format_table(result)
    [row1] = [line for line in table.splitlines() if line.startswith("dialogue HELD-OUT (n=310)")]
    [row2] = [line for line in table.splitlines() if line.startswith("dialogue HELD-OUT 2 (n=300)")]
    assert row1.split()[-3:] == ["0.111"] * 3 and row2.split()[-3:] == ["0.222"] * 3
    assert "mood_dialogue_heldout2.jsonl, 186 lines with a previous line" in table and "0.444" in table
    assert "mood_dialogue_heldout.jsonl, 60 lines with a previous line" in table and "0.333" in table
