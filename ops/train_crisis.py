"""Rebuild agents/core/data/crisis_model.npz, the learned half of crisis detection (agents/core/crisis_model.py).

    .venv/bin/pip install scikit-learn   # training only; the detector itself needs numpy alone
    .venv/bin/python -m ops.train_crisis [--public ../shared/data/crisis/suicidal_data.csv] [--cache DIR]

Data: the `train` part of agents/core/data/crisis_set.jsonl (messages written for the project from public
clinical warning-sign lists, half risk, half hard negatives; the conversation items with `before` are not
trained on: they check the context shift) and, weighted PUBLIC_WEIGHT, a sample of PUBLIC_SAMPLE rows of a
weakly labelled public set (label noise, long posts; its text never ships, only these weights). The
`heldout` part is never read here.

Models (scikit-learn logistic regression, L2, lbfgs; exported as float32 weights numpy evaluates):
  full_*    risk, over the MiniLM sentence embedding + hashed word uni/bigrams + the rules' verdict
  lex_*     risk, the same without the embedding (a message that comes with no vector)
  catfull_*, catlex_*   the level of a risk message (C-SSRS level or warning sign), own risk messages only
  proto_risk, proto_neg, knn_weight   exemplars (unit MiniLM vectors, float16) for the nearest-exemplar margin the
            full model adds to its log-odds: own train risk messages; own hard negatives and the KNN_EVERYDAY
            everyday messages nearest to a risk message
Thresholds: from 5-fold cross-validation on the own train part (the public and everyday rows stay in every
fold's training side): the lowest probability at which the out-of-fold false alarms (rules or model) stay at
or below TARGET_FALSE_ALARMS, then the midpoint up to the next negative's score; raised, if need be, until
at most EVERYDAY_FALSE_ALARMS of the everyday messages (in-sample) score above it.
Deterministic: fixed seed, fixed data order, a deterministic solver.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agents.core import crisis, crisis_model as CM  # noqa: E402

SET_PATH = REPO / "agents" / "core" / "data" / "crisis_set.jsonl"
DEFAULT_PUBLIC = REPO.parent / "shared" / "data" / "crisis" / "suicidal_data.csv"
MOOD_SET = REPO / "agents" / "core" / "data" / "mood_labelled.jsonl"
GOEMOTIONS = REPO.parent / "shared" / "data" / "emotion" / "goemotions" / "original_train.tsv"
EVERYDAY_SAMPLE = 1500   # GoEmotions train comments: everyday text, negatives
EVERYDAY_WEIGHT = 0.3
SEED = 20261125
PUBLIC_SAMPLE = 4000
PUBLIC_WEIGHT = 0.0      # tried 0.02-0.15: lower cross-validated recall on the own hard negatives (see --public-weight)
PUBLIC_CHARS = 300       # the first characters of a long post (the embedder truncates too)
EMB_SCALE = 4.0          # the embedding's features against the lexical ones (both unit norm)
LEX_SCALE_FULL = 0.3     # the words' weight beside the embedding (the lexical model alone: 1)
C_RISK = 1.0
C_LEVEL = 4.0
TARGET_FALSE_ALARMS = 0.04
KNN_WEIGHT = 10.0        # the nearest-exemplar margin's weight in the full model's log-odds (CV on train: 5-14 alike)
KNN_EVERYDAY = 300       # everyday messages nearest to a risk message kept as negative exemplars
EVERYDAY_FALSE_ALARMS = 0.005  # and at most this share of the everyday messages above the threshold


def load_set(split: str) -> list[dict]:
    return [r for r in (json.loads(line) for line in SET_PATH.read_text().splitlines() if line.strip())
            if r["split"] == split]


def load_public(path: Path, n: int = PUBLIC_SAMPLE) -> list[tuple[int, str]]:
    rows, seen = [], set()
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            lab, _, text = line.rstrip("\n").partition(",")  # text holds unquoted commas: split on the first
            text = text.strip()
            if lab in ("0", "1") and text and text not in seen:
                seen.add(text)
                rows.append((int(lab), text[:PUBLIC_CHARS]))
    random.Random(7).shuffle(rows)
    return rows[:n]


def load_everyday() -> list[str]:
    """Everyday messages as negatives (without them the model has only seen hard negatives, and calls
    "you always make me laugh" risky): the train part of the project's hand-labelled mood set and a sample
    of GoEmotions train comments, minus anything the rules flag (a few talk about self-harm)."""
    texts = [json.loads(line)["text"] for line in MOOD_SET.read_text().splitlines()
             if line.strip() and json.loads(line)["split"] == "train"]
    if GOEMOTIONS.exists():
        rows = [line.split("\t")[0] for line in GOEMOTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
        random.Random(11).shuffle(rows)
        texts += rows[:EVERYDAY_SAMPLE]
    return [t for t in dict.fromkeys(texts) if crisis.detect_crisis(t) is None]


def embed(texts: list[str], cache: Path | None, name: str) -> np.ndarray:
    if cache is not None and (cache / f"{name}.npy").exists():
        v = np.load(cache / f"{name}.npy")
        if len(v) == len(texts):
            return v
    from domain.embedder import MiniLMEmbedder
    e = MiniLMEmbedder(batch_size=32)
    t0 = time.perf_counter()
    v = np.concatenate([e.embed(texts[k:k + 500]) for k in range(0, len(texts), 500)]) if texts else \
        np.zeros((0, 384), np.float32)
    print(f"embedded {len(texts)} {name} texts in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.save(cache / f"{name}.npy", v)
    return v


def features(texts: list[str], vecs: np.ndarray | None, lex_scale: float = 1.0) -> tuple[np.ndarray, list[dict | None]]:
    hits = [crisis.detect_crisis(t) for t in texts]
    lex = np.stack([CM.lexical_dense(t) for t in texts]) if texts else np.zeros((0, CM.LEX_DIM), np.float32)
    rules = np.stack([CM.rule_features(h) for h in hits]) if texts else np.zeros((0, 2), np.float32)
    parts = [lex * lex_scale, rules] + ([vecs * EMB_SCALE] if vecs is not None else [])
    return np.hstack(parts).astype(np.float32), hits


def fit(X: np.ndarray, y: np.ndarray, w: np.ndarray, C: float):
    from sklearn.linear_model import LogisticRegression
    return LogisticRegression(C=C, max_iter=3000, solver="lbfgs", random_state=SEED).fit(X, y, sample_weight=w)


def split_weights(clf, with_emb: bool, prefix: str, lex_scale: float) -> dict[str, np.ndarray]:
    coef = clf.coef_.T.astype(np.float32)          # [features, k] (k = 1 for the binary model)
    out = {f"{prefix}lex": coef[:CM.LEX_DIM] * lex_scale, f"{prefix}rule": coef[CM.LEX_DIM:CM.LEX_DIM + 2],
           f"{prefix}b": clf.intercept_.astype(np.float32)}
    out[f"{prefix}emb"] = coef[CM.LEX_DIM + 2:] * EMB_SCALE if with_emb else np.zeros((384, coef.shape[1]), np.float32)
    return out


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)).astype(np.float32)


def prototypes(v: np.ndarray, y: np.ndarray, everyday_v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Risk exemplars (own risk messages) and negative exemplars (own hard negatives and the KNN_EVERYDAY
    everyday messages closest to any risk exemplar; the others are never the nearest where it matters)."""
    pr = _unit(v[y == 1])
    ev = _unit(everyday_v)
    near = np.argsort(-(ev @ pr.T).max(axis=1), kind="stable")[:KNN_EVERYDAY]
    return pr, np.vstack([_unit(v[y == 0]), ev[np.sort(near)]])


def margins(v: np.ndarray, pr: np.ndarray, pn: np.ndarray, skip_self: bool = False) -> np.ndarray:
    """crisis_model.knn_margin for many rows; skip_self: a row's own copy among the negatives is not its nearest."""
    u = _unit(v)
    sn = u @ pn.T
    if skip_self:
        sn = np.where(sn > 0.9999, -1.0, sn)
    return (u @ pr.T).max(axis=1) - sn.max(axis=1)


def choose_threshold(p: np.ndarray, y: np.ndarray, rule_hit: np.ndarray) -> tuple[float, dict]:
    """Lowest threshold with out-of-fold false alarms (rule hits count too) <= TARGET_FALSE_ALARMS."""
    neg = y == 0
    base_fa = int((rule_hit & neg).sum())
    allowed = int(TARGET_FALSE_ALARMS * neg.sum()) - base_fa
    cand = np.sort(p[neg & ~rule_hit])[::-1]   # the negatives the model alone would raise, highest first
    allowed = max(0, allowed)
    t = float(cand[allowed]) if allowed < len(cand) else 0.0
    hi = float(cand[allowed - 1]) if allowed >= 1 else 1.0
    threshold = (t + hi) / 2 if allowed >= 1 else min(0.999, t + 1e-3)
    flag = rule_hit | (p >= threshold)
    return threshold, {"threshold": round(threshold, 4), "recall": round(float(flag[~neg].mean()), 3),
                       "false_alarms": round(float(flag[neg].mean()), 3)}


def per_category(rows: list[dict], rule_hit: np.ndarray, flag: np.ndarray) -> list[tuple[str, float, float]]:
    """(category, share flagged by the rules, share flagged in all) for each category of the set."""
    cats = np.array([r["category"] for r in rows])
    return [(c, float(rule_hit[cats == c].mean()), float(flag[cats == c].mean())) for c in sorted(set(cats))]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--public", default=str(DEFAULT_PUBLIC))
    ap.add_argument("--cache", default=None, help="a directory for the embeddings (reused when present)")
    ap.add_argument("--out", default=str(CM.MODEL_PATH))
    ap.add_argument("--public-weight", type=float, default=PUBLIC_WEIGHT)
    a = ap.parse_args(argv)
    cache = Path(a.cache) if a.cache else None

    own = [r for r in load_set("train") if "before" not in r]
    pub = load_public(Path(a.public)) if a.public_weight > 0 and Path(a.public).exists() else []
    pw = a.public_weight
    own_texts = [r["text"] for r in own]
    own_y = np.array([r["label"] for r in own])
    own_v = embed(own_texts, cache, "own_train")
    everyday = load_everyday()
    pub_texts = [t for _, t in pub] + everyday
    pub_y = np.array([lab for lab, _ in pub] + [0] * len(everyday))
    pub_w = np.array([pw] * len(pub) + [EVERYDAY_WEIGHT] * len(everyday))
    everyday_v = embed(everyday, cache, "everyday")
    pub_v = np.vstack([embed([t for _, t in pub], cache, "public") if pub else np.zeros((0, 384), np.float32),
                       embed(everyday, cache, "everyday")])
    print(f"own train {len(own)} ({int(own_y.sum())} risk), public {len(pub)}, everyday negatives {len(everyday)}")

    out: dict[str, np.ndarray] = {}
    rng = np.random.RandomState(SEED)
    folds = np.array([i % 5 for i in range(len(own))])
    rng.shuffle(folds)
    for kind, with_emb in (("full", True), ("lex", False)):
        ls = LEX_SCALE_FULL if with_emb else 1.0
        X_own, hits = features(own_texts, own_v if with_emb else None, ls)
        X_pub, _ = features(pub_texts, pub_v if with_emb else None, ls)
        rule_hit = np.array([h is not None for h in hits])
        oof = np.zeros(len(own))
        for f in range(5):
            tr = folds != f
            X = np.vstack([X_own[tr], X_pub])
            y = np.concatenate([own_y[tr], pub_y])
            w = np.concatenate([np.ones(tr.sum()), pub_w])
            z = fit(X, y, w, C_RISK).decision_function(X_own[~tr])
            if with_emb:
                pr, pn = prototypes(own_v[tr], own_y[tr], everyday_v)
                z = z + KNN_WEIGHT * margins(own_v[~tr], pr, pn)
            oof[~tr] = 1 / (1 + np.exp(-z))
        threshold, cv = choose_threshold(oof, own_y, rule_hit)
        groups = np.array([r["group"] for r in own])
        for g in ("explicit", "implicit"):
            sel = groups == g
            cv[f"recall_{g}"] = round(float((rule_hit | (oof >= threshold))[sel].mean()), 3)
        print(f"{kind}: 5-fold CV on own train: {cv}")
        print(f"{kind}: per category (risk: recall; negatives: false-alarm rate), rules alone / rules + model: " +
              ", ".join(f"{c} {rate_rules:.2f}/{rate:.2f}" for c, rate_rules, rate in per_category(
                  own, rule_hit, rule_hit | (oof >= threshold))))
        clf = fit(np.vstack([X_own, X_pub]), np.concatenate([own_y, pub_y]),
                  np.concatenate([np.ones(len(own)), pub_w]), C_RISK)
        out |= split_weights(clf, with_emb, f"{kind}_", ls)
        n_pub = len(pub)
        everyday_z = clf.decision_function(X_pub[n_pub:]) if len(everyday) else np.zeros(1)
        if with_emb:
            pr, pn = prototypes(own_v, own_y, everyday_v)
            out |= {"proto_risk": pr.astype(np.float16), "proto_neg": pn.astype(np.float16),
                    "knn_weight": np.float32(KNN_WEIGHT)}
            # the everyday messages kept as exemplars would match themselves: score them against the rest
            everyday_z = everyday_z + KNN_WEIGHT * margins(everyday_v, pr, pn, skip_self=True)
        everyday_p = 1 / (1 + np.exp(-everyday_z))
        floor = float(np.quantile(everyday_p, 1 - EVERYDAY_FALSE_ALARMS))
        if floor > threshold:
            print(f"{kind}: threshold {threshold:.4f} -> {floor:.4f} (everyday messages, in-sample)")
            threshold = floor
        out[f"{kind}_threshold"] = np.float32(threshold)

        risk = own_y == 1
        levels = [r["category"] for r in own if r["label"] == 1]
        cat = fit(X_own[risk], np.array(levels), np.ones(int(risk.sum())), C_LEVEL)
        assert list(cat.classes_) == sorted(set(levels))
        out |= split_weights(cat, with_emb, f"cat{kind}_", ls)
        out["levels"] = np.array(cat.classes_, dtype="<U16")
    np.savez_compressed(a.out, **out)
    print(f"wrote {a.out} ({Path(a.out).stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
