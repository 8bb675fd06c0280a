"""Benchmark of the offline mood classifier against the seed's keyword fallback, in one run.

    .venv/bin/python -m ops.bench_mood [--data ../shared/data/emotion/goemotions] [--meld FILE] [--json]

Three systems: `classifier` (agents.core.mood.classify as the fold runs it: with the message's sentence
embedding, computed here by the local model, and the previous message's mood as context),
`words_only` (the same without a vector: another embedding model, or a fold without vectors) and
`keyword_baseline` (the seed's keyword list). For each:
  - GoEmotions dev split mapped onto our moods (data/README.md: kept only if all labels map to one mood):
    accuracy, macro-F1 and per-class F1 over the eight moods GoEmotions has (happy sad anxious excited
    neutral angry frustrated grateful; a flirty/bored prediction counts as a miss for the true class),
    and macro-F1 over the five moods MELD shares;
  - out of domain, MELD dev (TV dialogue, `--meld` or $RAPPORT_MELD_DEV, default
    ../shared/data/emotion/meld-dev/dev_sent_emo.csv; skipped with one line when absent): macro-F1 and
    per-label F1 over angry anxious happy neutral sad (anger fear joy neutral sadness; disgust and
    surprise dropped, any other prediction a miss). Each dialogue is a session and each speaker a
    contact: the context is the mood predicted for the speaker's previous line in the dialogue. Only
    measured here: nothing is trained or tuned on it;
  - the held-out parts (split "eval") of agents/core/data/mood_labelled.jsonl (chat messages, ten
    moods, with energy) and of agents/core/data/mood_dialogue.jsonl (everyday dialogue, five moods);
  - dialogue held-out, agents/core/data/mood_dialogue_heldout.jsonl: everyday two-person chat written for
    issue 21 apart from the model's tuning (five moods; never trained, calibrated or tuned on: ops/train_mood
    does not read it): macro-F1 and per-label F1. A line with a `previous` message (the same speaker's
    previous line) is read as the fold reads it: the mood the system gives that line is the context;
  - dialogue held-out 2, agents/core/data/mood_dialogue_heldout2.jsonl: 300 lines by a second independent
    writer, most of which imply the mood through the situation and tone rather than name it, and neutral
    lines that hold emotion words; measured the same way, reported beside the first;
  - latency per message (p50/p99, weights already loaded; the vector is an input, its embedding is
    the worker's batch step, not the fold) and the artifact's load time and size.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import time
from pathlib import Path
from collections import Counter
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from agents.core import mood as M  # noqa: E402
from ops.train_mood import (DEFAULT_DATA, DIALOGUE_MOODS, GOEMOTIONS_MOODS, embed_texts, load_dialogue,  # noqa: E402
                            load_goemotions, load_hand, macro_f1)

HELDOUT_DIALOGUE_PATH = REPO / "agents" / "core" / "data" / "mood_dialogue_heldout.jsonl"
HELDOUT2_DIALOGUE_PATH = REPO / "agents" / "core" / "data" / "mood_dialogue_heldout2.jsonl"
# the dialogue held-out sets by result key, each measured and reported alike (never trained or tuned on)
HELDOUT_DIALOGUE_SETS = {"dialogue_heldout": HELDOUT_DIALOGUE_PATH, "dialogue_heldout2": HELDOUT2_DIALOGUE_PATH}
DEFAULT_MELD = REPO.parent / "shared" / "data" / "emotion" / "meld-dev" / "dev_sent_emo.csv"
MELD_TO_MOOD = {"anger": "angry", "fear": "anxious", "joy": "happy", "neutral": "neutral", "sadness": "sad"}


def meld_path(given: str | None = None) -> Path:
    return Path(given or os.environ.get("RAPPORT_MELD_DEV") or DEFAULT_MELD)


def load_meld(path: str | Path) -> list[dict[str, Any]]:
    """MELD's utterances in dialogue order: text, speaker, dialogue, and `mood` (None for disgust and
    surprise: context only, never scored)."""
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        rows = list(csv.DictReader(f))
    rows.sort(key=lambda r: (int(r["Dialogue_ID"]), int(r["Utterance_ID"])))
    return [{"text": r["Utterance"], "speaker": r["Speaker"], "dialogue": int(r["Dialogue_ID"]),
             "mood": MELD_TO_MOOD.get(r["Emotion"].strip().lower())} for r in rows]


def classify_dialogues(rows: list[dict[str, Any]], vectors: Any, use_context: bool = True) -> list[dict]:
    """`classify` over dialogues as the fold sees them: a dialogue is a session, a speaker a contact, the
    context the mood given to the speaker's previous line in the same dialogue."""
    last: dict[tuple[int, str], str] = {}
    out = []
    for i, r in enumerate(rows):
        key = (r["dialogue"], r["speaker"])
        m = M.classify(r["text"], vector=None if vectors is None else vectors[i],
                       previous=last.get(key) if use_context else None)
        last[key] = m["mood"]
        out.append(m)
    return out


def load_heldout_dialogue(path: str | Path = HELDOUT_DIALOGUE_PATH) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def classify_with_previous(fn: Callable[..., dict], rows: list[dict], vectors: Any, prev_vectors: dict[int, Any],
                           use_context: bool = True) -> list[str]:
    """The mood `fn` gives each row; a row's `previous` line is classified first (its vector in `prev_vectors`
    by row index) and the mood given to it is the context, as the fold passes the contact's previous mood."""
    out = []
    for i, r in enumerate(rows):
        prev = None
        if use_context and r.get("previous"):
            prev = fn(r["previous"], prev_vectors.get(i))["mood"]
        out.append(fn(r["text"], vectors[i], prev)["mood"])
    return out


f1_scores = macro_f1  # (macro-F1 over labels, per-label F1): one implementation, in train_mood


def _accuracy(gold: list[str], pred: list[str]) -> float:
    return sum(g == p for g, p in zip(gold, pred)) / max(1, len(gold))


def _percentile(sorted_values: list[float], q: float) -> float:
    i = min(len(sorted_values) - 1, max(0, round(q / 100 * (len(sorted_values) - 1))))
    return sorted_values[i]


def _timed(fn: Callable[..., dict], texts: list[str], vectors: Any = None) -> tuple[list[dict], dict[str, float]]:
    out, times = [], []
    clock = time.perf_counter
    for i, t in enumerate(texts):
        v = None if vectors is None else vectors[i]
        t0 = clock()
        out.append(fn(t, v))
        times.append((clock() - t0) * 1000)
    times.sort()
    return out, {"p50_ms": _percentile(times, 50), "p99_ms": _percentile(times, 99),
                 "mean_ms": statistics.fmean(times)}


def run(data_dir: str = str(DEFAULT_DATA), meld: str | None = None) -> dict[str, Any]:
    t0 = time.perf_counter()
    M._load.cache_clear()
    M._load()
    load_ms = (time.perf_counter() - t0) * 1000
    texts, gold = load_goemotions(data_dir, "dev")
    hand = load_hand(split="eval")
    dialogue = load_dialogue(split="eval")
    path = meld_path(meld)
    meld_rows = load_meld(path) if path.is_file() else None
    all_texts = texts + [r["text"] for r in hand] + [r["text"] for r in dialogue] + \
        [r["text"] for r in meld_rows or []]
    t0 = time.perf_counter()
    vecs = embed_texts(all_texts)
    embed_s = time.perf_counter() - t0
    g_vec, rest = vecs[:len(texts)], vecs[len(texts):]
    held_sets = {}  # key -> (rows, gold moods, vectors, previous lines' vectors by row index)
    for key, held_path in HELDOUT_DIALOGUE_SETS.items():
        held = load_heldout_dialogue(held_path)
        held_prev = [i for i, r in enumerate(held) if r.get("previous")]
        hv = embed_texts([r["text"] for r in held] + [held[i]["previous"] for i in held_prev])
        held_sets[key] = (held, [r["mood"] for r in held], hv[:len(held)], dict(zip(held_prev, hv[len(held):])))
    h_vec, rest = rest[:len(hand)], rest[len(hand):]
    d_vec, m_vec = rest[:len(dialogue)], rest[len(dialogue):]
    five = tuple(sorted(DIALOGUE_MOODS))
    result: dict[str, Any] = {"goemotions_dev_n": len(gold), "hand_eval_n": len(hand), "dialogue_eval_n": len(dialogue),
                              **{f"{key}_n": len(h) for key, (h, *_) in held_sets.items()},
                              **{f"{key}_with_previous": len(pv) for key, (*_, pv) in held_sets.items()},
                              "meld_path": str(path), "artifact_bytes": M.MODEL_PATH.stat().st_size,
                              "artifact_load_ms": load_ms, "embedding_s": embed_s}
    if meld_rows is not None:
        result["meld_dev_n"] = sum(r["mood"] is not None for r in meld_rows)
    systems: dict[str, Callable[..., dict]] = {
        "classifier": lambda t, v=None, p=None: M.classify(t, vector=v, previous=p),
        "words_only": lambda t, v=None, p=None: M.classify(t, previous=p),
        "keyword_baseline": lambda t, v=None, p=None: M.keyword_baseline(t)}
    for name, fn in systems.items():
        preds, lat = _timed(fn, texts, g_vec)
        moods = [p["mood"] for p in preds]
        f1, per = f1_scores(gold, moods, GOEMOTIONS_MOODS)
        in_five = [i for i, g in enumerate(gold) if g in five]
        hp, _ = _timed(fn, [r["text"] for r in hand], h_vec)
        hm, he = [p["mood"] for p in hp], [p["energy"] for p in hp]
        h_mood, h_energy = [r["mood"] for r in hand], [r["energy"] for r in hand]
        dp, _ = _timed(fn, [r["text"] for r in dialogue], d_vec)
        d_f1, d_per = f1_scores([r["mood"] for r in dialogue], [p["mood"] for p in dp], five)
        result[name] = {
            "goemotions_dev": {"accuracy": _accuracy(gold, moods), "macro_f1": f1, "per_class_f1": per,
                               "macro_f1_five": f1_scores([gold[i] for i in in_five], [moods[i] for i in in_five],
                                                          five)[0]},
            "hand_eval": {"mood_accuracy": _accuracy(h_mood, hm), "mood_macro_f1": f1_scores(h_mood, hm, M.MOODS)[0],
                          "mood_per_class_f1": f1_scores(h_mood, hm, M.MOODS)[1],
                          "energy_accuracy": _accuracy(h_energy, he),
                          "energy_macro_f1": f1_scores(h_energy, he, M.ENERGIES)[0]},
            "dialogue_eval": {"macro_f1": d_f1, "per_label_f1": d_per},
            "latency": lat,
        }
        for key, (held, held_gold, held_vec, held_prev_vec) in held_sets.items():
            held_pred = classify_with_previous(fn, held, held_vec, held_prev_vec)
            held_f1, held_per = f1_scores(held_gold, held_pred, five)
            result[name][key] = {"macro_f1": held_f1, "per_label_f1": held_per,
                                 "predicted": dict(Counter(held_pred).most_common())}
        if meld_rows is not None:
            if name == "keyword_baseline":
                mp = [M.keyword_baseline(r["text"]) for r in meld_rows]
            else:
                mp = classify_dialogues(meld_rows, m_vec if name == "classifier" else None)
            scored = [(r["mood"], p["mood"]) for r, p in zip(meld_rows, mp) if r["mood"] is not None]
            m_f1, m_per = f1_scores([g for g, _ in scored], [p for _, p in scored], five)
            result[name]["meld_dev"] = {"macro_f1": m_f1, "per_label_f1": m_per,
                                        "predicted": dict(Counter(p for _, p in scored).most_common())}
    for key, (held, held_gold, held_vec, held_prev_vec) in held_sets.items():
        h_pred = classify_with_previous(systems["classifier"], held, held_vec, held_prev_vec, use_context=False)
        result["classifier"][key]["macro_f1_without_context"] = f1_scores(held_gold, h_pred, five)[0]
    if meld_rows is not None:  # the context's share: the same classifier without the previous mood
        mp = classify_dialogues(meld_rows, m_vec, use_context=False)
        scored = [(r["mood"], p["mood"]) for r, p in zip(meld_rows, mp) if r["mood"] is not None]
        result["classifier"]["meld_dev"]["macro_f1_without_context"] = f1_scores(
            [g for g, _ in scored], [p for _, p in scored], five)[0]
    result["macro_f1_gain"] = (result["classifier"]["goemotions_dev"]["macro_f1"]
                               - result["keyword_baseline"]["goemotions_dev"]["macro_f1"])
    return result


def format_table(r: dict[str, Any]) -> str:
    names = ("classifier", "words_only", "keyword_baseline")
    rows = [("metric", "classifier", "words only", "keyword baseline")]

    def add(label: str, get: Callable[[dict], float], fmt: str = "{:.3f}") -> None:
        rows.append((label, *(fmt.format(get(r[n])) for n in names)))

    n = r["goemotions_dev_n"]
    add(f"GoEmotions dev (n={n}) accuracy", lambda s: s["goemotions_dev"]["accuracy"])
    add(f"GoEmotions dev (n={n}) macro-F1, 8 moods", lambda s: s["goemotions_dev"]["macro_f1"])
    add("GoEmotions dev macro-F1, the 5 MELD moods", lambda s: s["goemotions_dev"]["macro_f1_five"])
    for m in GOEMOTIONS_MOODS:
        add(f"  F1 {m}", lambda s, m=m: s["goemotions_dev"]["per_class_f1"][m])
    if "meld_dev_n" in r:
        add(f"MELD dev (n={r['meld_dev_n']}) macro-F1, 5 moods", lambda s: s["meld_dev"]["macro_f1"])
        for m in sorted(DIALOGUE_MOODS):
            add(f"  F1 {m}", lambda s, m=m: s["meld_dev"]["per_label_f1"][m])
    d = r["dialogue_eval_n"]
    add(f"dialogue eval (n={d}) macro-F1, 5 moods", lambda s: s["dialogue_eval"]["macro_f1"])
    for key, title in (("dialogue_heldout", "dialogue HELD-OUT"), ("dialogue_heldout2", "dialogue HELD-OUT 2")):
        if f"{key}_n" in r:  # (a result of a build before the set)
            add(f"{title} (n={r[f'{key}_n']}) macro-F1, 5 moods", lambda s, key=key: s[key]["macro_f1"])
            for m in sorted(DIALOGUE_MOODS):
                add(f"  F1 {m}", lambda s, m=m, key=key: s[key]["per_label_f1"][m])
    h = r["hand_eval_n"]
    add(f"hand eval (n={h}) mood accuracy", lambda s: s["hand_eval"]["mood_accuracy"])
    add(f"hand eval (n={h}) mood macro-F1", lambda s: s["hand_eval"]["mood_macro_f1"])
    add(f"hand eval (n={h}) energy accuracy", lambda s: s["hand_eval"]["energy_accuracy"])
    add("latency p50 (ms/message)", lambda s: s["latency"]["p50_ms"], "{:.4f}")
    add("latency p99 (ms/message)", lambda s: s["latency"]["p99_ms"], "{:.4f}")
    w = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [f"{a:<{w[0]}}  {b:>{w[1]}}  {c:>{w[2]}}  {d:>{w[3]}}" for a, b, c, d in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines.append("-" * len(lines[0]))
    if "meld_dev_n" in r:
        c = r["classifier"]["meld_dev"]
        lines.append(f"MELD dev without the previous-turn context: macro-F1 {c['macro_f1_without_context']:.3f}; "
                     f"predicted {c['predicted']}")
    else:
        lines.append(f"MELD dev: skipped, no file at {r['meld_path']} (give --meld FILE or RAPPORT_MELD_DEV)")
    for key, held_path in HELDOUT_DIALOGUE_SETS.items():
        if f"{key}_n" in r:
            c = r["classifier"][key]
            lines.append(f"dialogue held-out ({held_path.name}, {r[f'{key}_with_previous']} lines "
                         f"with a previous line): without the previous-turn context macro-F1 "
                         f"{c['macro_f1_without_context']:.3f}; predicted {c['predicted']}")
    lines.append(f"macro-F1 gain over the baseline (GoEmotions dev): {r['macro_f1_gain']:+.3f}")
    lines.append(f"artifact {M.MODEL_PATH.name}: {r['artifact_bytes'] / 1e6:.2f} MB, "
                 f"loaded in {r['artifact_load_ms']:.0f} ms; sentence embeddings of the texts: "
                 f"{r['embedding_s']:.0f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="mood classifier vs keyword baseline")
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="GoEmotions folder (original_*.tsv)")
    ap.add_argument("--meld", default=None, help="MELD dev CSV (default: $RAPPORT_MELD_DEV or "
                                                   "../shared/data/emotion/meld-dev/dev_sent_emo.csv)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    a = ap.parse_args(argv)
    r = run(a.data, a.meld)
    print(json.dumps(r, indent=2) if a.json else format_table(r))


if __name__ == "__main__":
    main()
