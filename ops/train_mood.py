"""Rebuild agents/core/data/mood_model.npz, the weights of the offline mood classifier (agents/core/mood.py).

    .venv/bin/pip install scikit-learn   # training only; the classifier itself needs numpy alone
    .venv/bin/python -m ops.train_mood [--data ../shared/data/emotion/goemotions] [--out PATH]

Data: the GoEmotions train split mapped onto our moods (data/README.md: an example is kept only when all
its labels map to one mood) plus the `train` part of agents/core/data/mood_labelled.jsonl, the only
source of `flirty` and `bored`, weighted HAND_WEIGHT. Hyper-parameters were chosen on the GoEmotions
dev split, which is also what this script reports; the test split is held out and never read.

Model: multinomial logistic regression (scikit-learn, L2, lbfgs) over the hashed features of
`agents.core.mood.featurize`, class weights (n / (k * n_class)) ** CLASS_WEIGHT_POWER. The weights are
exported as int8 with one scale per class (numpy alone evaluates them). Deterministic: fixed seed,
fixed data order, a deterministic solver.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agents.core import mood as M  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data" / "emotion" / "goemotions"
HAND_PATH = REPO / "agents" / "core" / "data" / "mood_labelled.jsonl"
SEED = 20240607

# GoEmotions label -> our mood (data/README.md)
GOEMOTIONS_TO_MOOD = {"joy": "happy", "amusement": "happy", "sadness": "sad", "grief": "sad",
                      "nervousness": "anxious", "fear": "anxious", "excitement": "excited", "neutral": "neutral",
                      "anger": "angry", "annoyance": "frustrated", "gratitude": "grateful"}
GOEMOTIONS_MOODS = ("happy", "sad", "anxious", "excited", "neutral", "angry", "frustrated", "grateful")

C = 2.0
CLASS_WEIGHT_POWER = 0.7
HAND_WEIGHT = 6.0


def load_goemotions(data_dir: str | Path, split: str) -> tuple[list[str], list[str]]:
    """(texts, moods) of one split, keeping an example only if all its labels map to one mood."""
    d = Path(data_dir)
    names = (d / "original_labels.txt").read_text(encoding="utf-8").split()
    texts, moods = [], []
    with open(d / f"original_{split}.tsv", encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 2:
                continue
            mapped = {GOEMOTIONS_TO_MOOD.get(names[int(i)]) for i in parts[1].split(",")}
            if None in mapped or len(mapped) != 1:
                continue
            texts.append(parts[0])
            moods.append(mapped.pop())
    return texts, moods


def load_hand(path: str | Path = HAND_PATH, split: str | None = None) -> list[dict]:
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split is None or r["split"] == split]


def design_matrix(texts: list[str]):
    from scipy.sparse import csr_matrix

    indptr, indices, values = [0], [], []
    for t in texts:
        idx, val = M.featurize(t)
        order = np.argsort(idx)
        indices.append(idx[order])
        values.append(val[order])
        indptr.append(indptr[-1] + len(idx))
    return csr_matrix((np.concatenate(values), np.concatenate(indices), np.array(indptr)),
                      shape=(len(texts), M.N_BUCKETS), dtype=np.float32)


def macro_f1(gold: list[str], pred: list[str], labels: tuple[str, ...]) -> tuple[float, dict[str, float]]:
    per = {}
    for c in labels:
        tp = sum(1 for g, p in zip(gold, pred) if g == c and p == c)
        fp = sum(1 for g, p in zip(gold, pred) if g != c and p == c)
        fn = sum(1 for g, p in zip(gold, pred) if g == c and p != c)
        per[c] = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return sum(per.values()) / len(per), per


def train(data_dir: str | Path, c_reg: float = C, power: float = CLASS_WEIGHT_POWER,
          hand_weight: float = HAND_WEIGHT, verbose: bool = True) -> dict[str, np.ndarray]:
    from sklearn.linear_model import LogisticRegression

    texts, moods = load_goemotions(data_dir, "train")
    hand = load_hand(split="train")
    texts += [r["text"] for r in hand]
    moods += [r["mood"] for r in hand]
    is_hand = np.array([0] * (len(texts) - len(hand)) + [1] * len(hand), dtype=bool)
    t0 = time.time()
    x = design_matrix(texts)
    y = np.array([M.MOODS.index(m) for m in moods])
    counts = Counter(moods)
    k = len(M.MOODS)
    cw = {m: (len(moods) / (k * n)) ** power for m, n in counts.items()}
    w = np.array([cw[m] for m in moods]) * np.where(is_hand, hand_weight, 1.0)
    if verbose:
        print(f"train: {len(texts)} examples ({len(hand)} hand-labelled), {x.nnz / len(texts):.0f} features "
              f"each, featurised in {time.time() - t0:.1f}s; classes {dict(sorted(counts.items()))}")
    t0 = time.time()
    clf = LogisticRegression(C=c_reg, max_iter=3000, tol=1e-4, random_state=SEED)
    clf.fit(x, y, sample_weight=w / w.mean())
    if verbose:
        print(f"fit in {time.time() - t0:.1f}s ({int(clf.n_iter_[0])} iterations)")
    coef = np.zeros((k, M.N_BUCKETS), dtype=np.float64)
    bias = np.zeros(k)
    coef[clf.classes_] = clf.coef_
    bias[clf.classes_] = clf.intercept_
    return export_arrays(coef.T, bias)


def export_arrays(w: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    scale = np.abs(w).max(axis=0) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return {"W": q, "scale": scale.astype(np.float32), "b": b.astype(np.float32),
            "classes": np.array(M.MOODS), "feature_version": np.array(M.FEATURE_VERSION),
            "n_buckets": np.array(M.N_BUCKETS)}


def evaluate(data_dir: str | Path) -> dict:
    texts, gold = load_goemotions(data_dir, "dev")
    pred = [M.classify(t)["mood"] for t in texts]
    f1, per = macro_f1(gold, pred, GOEMOTIONS_MOODS)
    acc = sum(g == p for g, p in zip(gold, pred)) / len(gold)
    hand = load_hand(split="eval")
    hp = [M.classify(r["text"]) for r in hand]
    hand_acc = sum(r["mood"] == p["mood"] for r, p in zip(hand, hp)) / len(hand)
    hand_f1, _ = macro_f1([r["mood"] for r in hand], [p["mood"] for p in hp], M.MOODS)
    energy_acc = sum(r["energy"] == p["energy"] for r, p in zip(hand, hp)) / len(hand)
    return {"dev_n": len(gold), "dev_accuracy": acc, "dev_macro_f1": f1, "dev_per_class_f1": per,
            "hand_eval_n": len(hand), "hand_mood_accuracy": hand_acc, "hand_mood_macro_f1": hand_f1,
            "hand_energy_accuracy": energy_acc}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="GoEmotions folder (original_*.tsv)")
    ap.add_argument("--out", default=str(M.MODEL_PATH))
    ap.add_argument("--C", type=float, default=C)
    ap.add_argument("--power", type=float, default=CLASS_WEIGHT_POWER)
    ap.add_argument("--hand-weight", type=float, default=HAND_WEIGHT)
    a = ap.parse_args(argv)
    np.random.seed(SEED)
    arrays = train(a.data, a.C, a.power, a.hand_weight)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **arrays)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
    r = evaluate_with(out, a.data)
    print(f"GoEmotions dev (mapped, n={r['dev_n']}): accuracy {r['dev_accuracy']:.3f}  "
          f"macro-F1 {r['dev_macro_f1']:.3f}")
    print("  per class: " + "  ".join(f"{m} {v:.2f}" for m, v in r["dev_per_class_f1"].items()))
    print(f"hand-labelled eval (n={r['hand_eval_n']}): mood accuracy {r['hand_mood_accuracy']:.3f}  "
          f"macro-F1 {r['hand_mood_macro_f1']:.3f}  energy accuracy {r['hand_energy_accuracy']:.3f}")


def evaluate_with(model_path: Path, data_dir: str | Path) -> dict:
    M._load.cache_clear()
    loaded = M._load(str(model_path))
    original = M._load
    M._load = lambda path=None: loaded  # type: ignore[assignment]
    try:
        return evaluate(data_dir)
    finally:
        M._load = original


if __name__ == "__main__":
    main()
