"""Benchmark of the offline mood classifier against the seed's keyword fallback, in one run.

    .venv/bin/python -m ops.bench_mood [--data ../shared/data/emotion/goemotions] [--json]

Reports, for both `agents.core.mood.classify` and `agents.core.mood.keyword_baseline`:
  - GoEmotions dev split mapped onto our moods (data/README.md: kept only if all labels map to one mood):
    accuracy, macro-F1 and per-class F1 over the eight moods GoEmotions has (happy sad anxious excited
    neutral angry frustrated grateful; a flirty/bored prediction counts as a miss for the true class);
  - the held-out part (split "eval") of agents/core/data/mood_labelled.jsonl, hand-written chat messages:
    mood accuracy and macro-F1 over all ten moods, energy accuracy and macro-F1;
  - latency per message (p50/p99, model already loaded) and the artifact's load time and size.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from agents.core import mood as M  # noqa: E402
from ops.train_mood import DEFAULT_DATA, GOEMOTIONS_MOODS, load_goemotions, load_hand, macro_f1  # noqa: E402


f1_scores = macro_f1  # (macro-F1 over labels, per-label F1): one implementation, in train_mood


def _accuracy(gold: list[str], pred: list[str]) -> float:
    return sum(g == p for g, p in zip(gold, pred)) / max(1, len(gold))


def _percentile(sorted_values: list[float], q: float) -> float:
    i = min(len(sorted_values) - 1, max(0, round(q / 100 * (len(sorted_values) - 1))))
    return sorted_values[i]


def _timed(fn: Callable[[str], dict], texts: list[str]) -> tuple[list[dict], dict[str, float]]:
    out, times = [], []
    clock = time.perf_counter
    for t in texts:
        t0 = clock()
        out.append(fn(t))
        times.append((clock() - t0) * 1000)
    times.sort()
    return out, {"p50_ms": _percentile(times, 50), "p99_ms": _percentile(times, 99),
                 "mean_ms": statistics.fmean(times)}


def run(data_dir: str = str(DEFAULT_DATA)) -> dict[str, Any]:
    t0 = time.perf_counter()
    M._load.cache_clear()
    M._load()
    load_ms = (time.perf_counter() - t0) * 1000
    texts, gold = load_goemotions(data_dir, "dev")
    hand = load_hand(split="eval")
    h_texts = [r["text"] for r in hand]
    h_mood = [r["mood"] for r in hand]
    h_energy = [r["energy"] for r in hand]
    systems = {"classifier": M.classify, "keyword_baseline": M.keyword_baseline}
    result: dict[str, Any] = {"goemotions_dev_n": len(gold), "hand_eval_n": len(hand),
                              "artifact_bytes": M.MODEL_PATH.stat().st_size, "artifact_load_ms": load_ms}
    for name, fn in systems.items():
        preds, lat = _timed(fn, texts)
        moods = [p["mood"] for p in preds]
        f1, per = f1_scores(gold, moods, GOEMOTIONS_MOODS)
        hp, _ = _timed(fn, h_texts)
        hm, he = [p["mood"] for p in hp], [p["energy"] for p in hp]
        result[name] = {
            "goemotions_dev": {"accuracy": _accuracy(gold, moods), "macro_f1": f1, "per_class_f1": per},
            "hand_eval": {"mood_accuracy": _accuracy(h_mood, hm), "mood_macro_f1": f1_scores(h_mood, hm, M.MOODS)[0],
                          "mood_per_class_f1": f1_scores(h_mood, hm, M.MOODS)[1],
                          "energy_accuracy": _accuracy(h_energy, he),
                          "energy_macro_f1": f1_scores(h_energy, he, M.ENERGIES)[0]},
            "latency": lat,
        }
    result["macro_f1_gain"] = (result["classifier"]["goemotions_dev"]["macro_f1"]
                               - result["keyword_baseline"]["goemotions_dev"]["macro_f1"])
    return result


def format_table(r: dict[str, Any]) -> str:
    c, k = r["classifier"], r["keyword_baseline"]
    rows = [("metric", "classifier", "keyword baseline")]

    def add(label: str, a: float, b: float, fmt: str = "{:.3f}") -> None:
        rows.append((label, fmt.format(a), fmt.format(b)))

    n = r["goemotions_dev_n"]
    add(f"GoEmotions dev (n={n}) accuracy", c["goemotions_dev"]["accuracy"], k["goemotions_dev"]["accuracy"])
    add(f"GoEmotions dev (n={n}) macro-F1", c["goemotions_dev"]["macro_f1"], k["goemotions_dev"]["macro_f1"])
    for m in GOEMOTIONS_MOODS:
        add(f"  F1 {m}", c["goemotions_dev"]["per_class_f1"][m], k["goemotions_dev"]["per_class_f1"][m])
    h = r["hand_eval_n"]
    add(f"hand eval (n={h}) mood accuracy", c["hand_eval"]["mood_accuracy"], k["hand_eval"]["mood_accuracy"])
    add(f"hand eval (n={h}) mood macro-F1", c["hand_eval"]["mood_macro_f1"], k["hand_eval"]["mood_macro_f1"])
    add(f"hand eval (n={h}) energy accuracy", c["hand_eval"]["energy_accuracy"], k["hand_eval"]["energy_accuracy"])
    add(f"hand eval (n={h}) energy macro-F1", c["hand_eval"]["energy_macro_f1"], k["hand_eval"]["energy_macro_f1"])
    add("latency p50 (ms/message)", c["latency"]["p50_ms"], k["latency"]["p50_ms"], "{:.4f}")
    add("latency p99 (ms/message)", c["latency"]["p99_ms"], k["latency"]["p99_ms"], "{:.4f}")
    w = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"{a:<{w[0]}}  {b:>{w[1]}}  {d:>{w[2]}}" for a, b, d in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines.append("-" * len(lines[0]))
    lines.append(f"macro-F1 gain over the baseline (GoEmotions dev): {r['macro_f1_gain']:+.3f}")
    lines.append(f"artifact {M.MODEL_PATH.name}: {r['artifact_bytes'] / 1e6:.2f} MB, "
                 f"loaded in {r['artifact_load_ms']:.0f} ms")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="mood classifier vs keyword baseline")
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="GoEmotions folder (original_*.tsv)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    a = ap.parse_args(argv)
    r = run(a.data)
    print(json.dumps(r, indent=2) if a.json else format_table(r))


if __name__ == "__main__":
    main()
