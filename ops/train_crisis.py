"""Rebuild agents/core/data/crisis_model.npz, the learned half of crisis detection (agents/core/crisis_model.py).

    .venv/bin/pip install scikit-learn   # training only; the detector itself needs numpy alone
    .venv/bin/python -m ops.train_crisis [--public ../shared/data/crisis/suicidal_data.csv] [--cache DIR]

Data: the `train` part of agents/core/data/crisis_set.jsonl (messages written for the project from public
clinical warning-sign lists, half risk, half hard negatives; the conversation items with `before` are not
trained on: they check the context shift) and, weighted PUBLIC_WEIGHT, a sample of PUBLIC_SAMPLE rows of a
weakly labelled public set (label noise, long posts; its text never ships, only these weights). The
`heldout` part is never read here.

Models (scikit-learn logistic regression, L2, lbfgs; exported as float32 weights numpy evaluates):
  full_*    risk, over the MiniLM sentence embedding + hashed word uni/bigrams + the rules' verdict (RULES_FEATURE)
  lex_*     risk, the same without the embedding (a message that comes with no vector)
  catfull_*, catlex_*   the level of a risk message (C-SSRS level or warning sign), own risk messages only
  proto_proj  [384, PROTO_DIM]: the exemplars' top right-singular directions; the margin's cosines are taken there
  proto_risk, proto_neg, knn_weight   exemplars (unit, projected, float16) for the nearest-exemplar margin the
            full model adds to its log-odds: own train risk messages; own hard negatives and the KNN_EVERYDAY
            everyday messages nearest to a risk message
Thresholds: from grouped 5-fold cross-validation on the own train part (whole author batches per fold,
BATCH_STARTS; a training row within MiniLM cosine PURGE_COSINE of a test row is left out of that fold's
training, so that a paraphrase of one template never sits on both sides; the public and everyday rows stay in
every fold's training side): the lowest probability at which the out-of-fold false alarms (rules or model) stay at
or below TARGET_FALSE_ALARMS, then the midpoint up to the next negative's score; raised, if need be, until
at most EVERYDAY_FALSE_ALARMS of the everyday messages (in-sample) score above it.
Deterministic: fixed seed, fixed data order, a deterministic solver.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agents.core import crisis, crisis_model as CM  # noqa: E402
from ops import vector_cache  # noqa: E402

SET_PATH = REPO / "agents" / "core" / "data" / "crisis_set.jsonl"
DEFAULT_PUBLIC = REPO.parent / "shared" / "data" / "crisis" / "suicidal_data.csv"
MOOD_SET = REPO / "agents" / "core" / "data" / "mood_labelled.jsonl"
GOEMOTIONS = REPO.parent / "shared" / "data" / "emotion" / "goemotions" / "original_train.tsv"
EVERYDAY_SAMPLE = 4000   # GoEmotions train comments: everyday text, negatives (round 6: 1500 -> 4000, see the README)
EVERYDAY_WEIGHT = 0.3
SEED = 20261125
PUBLIC_SAMPLE = 4000
PUBLIC_WEIGHT = 0.0      # tried 0.02-0.15: lower cross-validated recall on the own hard negatives (see --public-weight)
PUBLIC_CHARS = 300       # the first characters of a long post (the embedder truncates too)
EMB_SCALE = 4.0          # the embedding's features against the lexical ones (both unit norm)
LEX_SCALE_FULL = 0.3     # the words' weight beside the embedding (the lexical model alone: 1)
C_RISK = 1.0
C_LEVEL = 4.0
TARGET_FALSE_ALARMS = 0.03   # round 6 (was 0.04, and the everyday floor raised the threshold to ~0.03)
# own train rows weighted (mean count / their category's count) ** this, risk and negatives apart (round 6, grouped
# CV recall at false alarms <= 0.03: 0 0.874, 0.5 0.872, 1 0.870: no category is rare enough to be out-voted)
CATEGORY_BALANCE = 0.0
KNN_WEIGHT = 15.0        # the nearest-exemplar margin's weight in the log-odds (grouped CV on train: 10 < 15)
KNN_EVERYDAY = 300       # everyday messages nearest to a risk message kept as negative exemplars
NEG_PROTO_VETOED = False  # hard negatives the rules clear anyway are no negative exemplars (see prototypes)
EVERYDAY_FALSE_ALARMS = 0.005  # and at most this share of the everyday messages above the threshold
RULES_FEATURE = True     # the rules' verdict as a feature of the risk models (at 128 directions, without it: grouped
# CV recall 0.914 vs 0.917 at false alarms 0.04; at the shipped threshold 0.866 at 0.017 vs 0.870 at 0.020)
PURGE_COSINE = 0.85      # grouped CV: a training row this close (MiniLM cosine) to a row of the test fold is left out
PROTO_DIM = 192          # the exemplars' cosines in the top PROTO_DIM directions of the exemplars (0: all 384; grouped
# CV at the shipped threshold: 384 0.892 at false alarms 0.025, 192 0.888 at 0.023, 128 0.870 at 0.020)
# Held-out parts trained on since round 6 (issue 21): each was read to write rules (heldout3's and heldout4's misses
# by rounds 5 and 6), so none was a measure of unseen text any more; as training data they are four more writers
# (grouped CV keeps each on one side of a fold). Read with heldout5, the part nobody has read: explicit / implicit
# recall 0.755 / 0.616 -> 0.783 / 0.698 at false alarms 0.032 both (the rules and the train rows of round 6).
# `rapport bench safety --split heldoutN` still reads such a part, now in-sample.
RETIRED_HELDOUT = ("heldout", "heldout2", "heldout3", "heldout4")
# Author batches of the train part, each by its first train message in file order (the rows after it, up to the
# next start, are that batch): cross-validation keeps a batch on one side of every fold (the rows of one batch
# share templates and one author's habits; a random split puts paraphrases of one row on both sides). Rows after
# the last start listed are one more batch.
BATCH_STARTS = (
    "i wish i could fall asleep and just never wake up", "i just want to go to sleep forever",
    "thank you for everything. goodbye", "i just want to not exist anymore",
    "honestly if i got hit by a bus tomorrow i wouldnt even mind",
    "wish i could just not exist for a while. or forever",
    "had a rough week at work and honestly when i go to bed i kind of hope thats it for me",
    "tbh i'd welcome a heart attack at this point", "i'm sitting on the railway bridge with my legs over the side",
    "that line in the movie 'i just want to die' made the whole cinema laugh", "i'm gonna murder this burger",
    "honestly if i got hit by a bus tomorrow that'd be fine by me",
    "i'd honestly be ok if i didn't make it through the night",
    "tbh if i got hit by a bus on the way home i dont think i'd mind much",   # round 5 (issue 21), 356 rows
    "took like 30 of my sertraline about an hour ago and my heart is going crazy",   # round 6 (issue 21), 399 rows
    "every nite since monday my head goes to killing myself, weird that an app is who i tell first",   # round 7 (issue 21), 279 rows
    "the boiler broke again and the landlord is not answering. some nights i lie there and hope i simply don't wake "
    "up in the morning. anyway did you see the match",   # round 8 (issue 21), 310 rows
    "ok pls dont freak out on me... lowkey praying this all-nighter ends w me never getting up again",   # round 9 (issue 21), 304 rows
    "sorting the rota for december and part of me is hoping i'm not around to work any of it, like not alive, not just "
    "off sick",   # round 10 (issue 21), 340 rows
    "lease ends on the 30th. so do i",   # round 11 (issue 21), 330 rows
)


def load_set(split: str) -> list[dict]:
    """The rows of one split; train rows carry `batch` (their author batch, BATCH_STARTS). "train" also holds
    the held-out parts RETIRED_HELDOUT, each an author batch of its own (`batch` 100, 101, ...): the model learns
    from every writer whose part has been read, and the newest part stays the measure."""
    starts = {t: i for i, t in enumerate(BATCH_STARTS)}
    out, batch = [], -1
    for r in (json.loads(line) for line in SET_PATH.read_text().splitlines() if line.strip()):
        if r["split"] == "train":
            batch = starts.get(r["text"], batch)
            r = dict(r, batch=batch)
        elif split == "train" and r["split"] in RETIRED_HELDOUT:
            out.append(dict(r, batch=100 + RETIRED_HELDOUT.index(r["split"])))
            continue
        if r["split"] == split:
            out.append(r)
    return out


def batch_folds(batches: list[int], k: int = 5) -> np.ndarray:
    """Whole batches to k folds, largest first into the smallest fold (deterministic)."""
    sizes: dict[int, int] = {}
    for b in batches:
        sizes[b] = sizes.get(b, 0) + 1
    load, fold_of = [0] * k, {}
    for b in sorted(sizes, key=lambda b: (-sizes[b], b)):
        f = int(np.argmin(load))
        fold_of[b] = f
        load[f] += sizes[b]
    return np.array([fold_of[b] for b in batches])


def fold_train_rows(v: np.ndarray, folds: np.ndarray, f: int, purge: float = PURGE_COSINE) -> np.ndarray:
    """Training rows for test fold f: the other folds minus rows within cosine `purge` of a test row."""
    u = _unit(v)
    te = folds == f
    near = np.zeros(len(v), bool)
    idx = np.where(~te)[0]
    near[idx] = (u[idx] @ u[te].T).max(axis=1) >= purge
    return ~te & ~near


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


def load_everyday(n: int = EVERYDAY_SAMPLE) -> list[str]:
    """Everyday messages as negatives (without them the model has only seen hard negatives, and calls
    "you always make me laugh" risky): the train part of the project's hand-labelled mood set and a sample
    of GoEmotions train comments, minus anything the rules flag (a few talk about self-harm)."""
    texts = [json.loads(line)["text"] for line in MOOD_SET.read_text().splitlines()
             if line.strip() and json.loads(line)["split"] == "train"]
    if GOEMOTIONS.exists():
        rows = [line.split("\t")[0] for line in GOEMOTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
        random.Random(11).shuffle(rows)
        texts += rows[:n]
    return [t for t in dict.fromkeys(texts) if crisis.detect_crisis(t) is None]


def embed(texts: list[str], cache: Path | None, name: str) -> np.ndarray:
    return vector_cache.cached_vectors(texts, cache, name)


def features(texts: list[str], vecs: np.ndarray | None, lex_scale: float = 1.0, rules_feature: bool = True
             ) -> tuple[np.ndarray, list[dict | None]]:
    hits = [crisis.detect_crisis(t) for t in texts]
    lex = np.stack([CM.lexical_dense(t) for t in texts]) if texts else np.zeros((0, CM.LEX_DIM), np.float32)
    rules = np.stack([CM.rule_features(h) for h in hits]) if texts else np.zeros((0, 2), np.float32)
    if not rules_feature:
        rules = np.zeros_like(rules)
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


def model_vetoed(texts: list[str]) -> np.ndarray:
    """Messages whose model-alone hit assess() clears anyway: the speaker denies it, or the rules' whole-message
    reading says what else it is (a past that is over, work on the topic, hyperbole, an everyday meeting)."""
    return np.array([crisis.denied_by_speaker(t) or crisis.everyday_reading(t, False) is not None for t in texts])


def prototypes(v: np.ndarray, y: np.ndarray, everyday_v: np.ndarray, keep_neg: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Risk exemplars (own risk messages) and negative exemplars (own hard negatives and the KNN_EVERYDAY
    everyday messages closest to any risk exemplar; the others are never the nearest where it matters).
    keep_neg: which own negatives may be exemplars (NEG_PROTO_VETOED off: not those the rules clear anyway --
    "I'm not going to kill myself" sits next to "I'm going to kill myself" in MiniLM's space and would cancel
    the margin of every message near both, while assess() clears it by the denial alone)."""
    pr = _unit(v[y == 1])
    ev = _unit(everyday_v)
    near = np.argsort(-(ev @ pr.T).max(axis=1), kind="stable")[:KNN_EVERYDAY]
    neg = (y == 0) if keep_neg is None else (y == 0) & keep_neg
    return pr, np.vstack([_unit(v[neg]), ev[np.sort(near)]])


def project(pr: np.ndarray, pn: np.ndarray, d: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The exemplars in the top d (PROTO_DIM) right-singular directions of all of them, unit again, and the
    projection [384, d] (crisis_model.knn_margin projects the message the same way); d 0: unchanged, none."""
    d = PROTO_DIM if d is None else d
    if not d:
        return pr, pn, None
    _, _, vt = np.linalg.svd(np.vstack([pr, pn]).astype(np.float64), full_matrices=False)
    proj = np.ascontiguousarray(vt[:d].T, dtype=np.float32)
    return _unit(pr @ proj), _unit(pn @ proj), proj


def margins(v: np.ndarray, pr: np.ndarray, pn: np.ndarray, proj: np.ndarray | None = None,
            skip_self: bool = False) -> np.ndarray:
    """crisis_model.knn_margin for many rows; skip_self: a row's own copy among the negatives is not its nearest."""
    u = _unit(v) if proj is None else _unit(_unit(v) @ proj)
    sn = u @ pn.T
    if skip_self:
        sn = np.where(sn > 0.9999, -1.0, sn)
    return (u @ pr.T).max(axis=1) - sn.max(axis=1)


def category_weights(cats: list[str], y: np.ndarray, power: float) -> np.ndarray:
    """A weight per own train row: (mean row count of a category of its class / its category's count) ** power,
    risk and hard-negative categories apart, so that a rare category is not out-voted by a frequent one (power 0:
    all 1; 1: every category of a class weighs the same in all). The class totals are kept: the weights of each
    class are rescaled to sum to its row count."""
    w = np.ones(len(cats))
    if not power:
        return w
    cats_a = np.array(cats)
    for cls in (0, 1):
        sel = y == cls
        names, counts = np.unique(cats_a[sel], return_counts=True)
        mean = counts.mean()
        per = {n: (mean / c) ** power for n, c in zip(names, counts)}
        w[sel] = [per[c] for c in cats_a[sel]]
        w[sel] *= sel.sum() / w[sel].sum()
    return w


def choose_threshold(p: np.ndarray, y: np.ndarray, rule_hit: np.ndarray, target: float | None = None
                     ) -> tuple[float, dict]:
    """Lowest threshold with out-of-fold false alarms (rule hits count too) <= target (TARGET_FALSE_ALARMS)."""
    neg = y == 0
    base_fa = int((rule_hit & neg).sum())
    allowed = int((TARGET_FALSE_ALARMS if target is None else target) * neg.sum()) - base_fa
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
    ap.add_argument("--everyday-weight", type=float, default=EVERYDAY_WEIGHT)
    ap.add_argument("--knn-weight", type=float, default=KNN_WEIGHT)
    ap.add_argument("--everyday-sample", type=int, default=EVERYDAY_SAMPLE)
    ap.add_argument("--c-risk", type=float, default=C_RISK)
    ap.add_argument("--lex-scale", type=float, default=LEX_SCALE_FULL)
    ap.add_argument("--category-balance", type=float, default=CATEGORY_BALANCE)
    ap.add_argument("--target-false-alarms", type=float, default=TARGET_FALSE_ALARMS)
    a = ap.parse_args(argv)
    knn_weight = a.knn_weight
    cache = Path(a.cache) if a.cache else None

    own = [r for r in load_set("train") if "before" not in r]
    pub = load_public(Path(a.public)) if a.public_weight > 0 and Path(a.public).exists() else []
    pw = a.public_weight
    own_texts = [r["text"] for r in own]
    own_y = np.array([r["label"] for r in own])
    own_w = category_weights([r["category"] for r in own], own_y, a.category_balance)
    own_v = embed(own_texts, cache, "own_train")
    everyday = load_everyday(a.everyday_sample)
    pub_texts = [t for _, t in pub] + everyday
    pub_y = np.array([lab for lab, _ in pub] + [0] * len(everyday))
    pub_w = np.array([pw] * len(pub) + [a.everyday_weight] * len(everyday))
    everyday_v = embed(everyday, cache, "everyday")
    pub_v = np.vstack([embed([t for _, t in pub], cache, "public") if pub else np.zeros((0, 384), np.float32),
                       embed(everyday, cache, "everyday")])
    print(f"own train {len(own)} ({int(own_y.sum())} risk), public {len(pub)}, everyday negatives {len(everyday)}")

    vetoed = model_vetoed(own_texts)
    print(f"own train messages the rules clear of a model-alone hit: {int(vetoed.sum())} "
          f"({int((vetoed & (own_y == 1)).sum())} of them risk)")
    out: dict[str, np.ndarray] = {}
    folds = batch_folds([r["batch"] for r in own])
    train_rows = [fold_train_rows(own_v, folds, f) for f in range(5)]
    print(f"grouped 5-fold CV: {len(set(r['batch'] for r in own))} author batches, fold sizes "
          f"{np.bincount(folds).tolist()}, training rows left out as near-duplicates (cosine >= {PURGE_COSINE}) of "
          f"a test row: {[int((folds != f).sum() - t.sum()) for f, t in enumerate(train_rows)]}")
    for kind, with_emb in (("full", True), ("lex", False)):
        ls = a.lex_scale if with_emb else 1.0
        X_own, hits = features(own_texts, own_v if with_emb else None, ls, RULES_FEATURE)
        X_pub, _ = features(pub_texts, pub_v if with_emb else None, ls, RULES_FEATURE)
        rule_hit = np.array([CM.raises_alarm(h) for h in hits])  # concern for someone else: no trigger
        # as assess() does: a model-alone hit the rules clear (denial, a past that is over...) is no alarm
        cleared = vetoed & ~rule_hit
        keep_neg = None if NEG_PROTO_VETOED else ~vetoed
        oof = np.zeros(len(own))
        for f in range(5):
            tr, te = train_rows[f], folds == f
            X = np.vstack([X_own[tr], X_pub])
            y = np.concatenate([own_y[tr], pub_y])
            w = np.concatenate([own_w[tr], pub_w])
            z = fit(X, y, w, a.c_risk).decision_function(X_own[te])
            if with_emb:
                pr, pn = prototypes(own_v[tr], own_y[tr], everyday_v, None if keep_neg is None else keep_neg[tr])
                z = z + knn_weight * margins(own_v[te], *project(pr, pn))
            oof[te] = 1 / (1 + np.exp(-z))
        oof = np.where(cleared, 0.0, oof)
        threshold, cv = choose_threshold(oof, own_y, rule_hit, a.target_false_alarms)
        groups = np.array([r["group"] for r in own])
        for g in ("explicit", "implicit"):
            sel = groups == g
            cv[f"recall_{g}"] = round(float((rule_hit | (oof >= threshold))[sel].mean()), 3)
        print(f"{kind}: grouped 5-fold CV on own train: {cv}")
        print(f"{kind}: recall at out-of-fold false alarms <= 0.02 / 0.03 / 0.04: " + " / ".join(
            str(choose_threshold(oof, own_y, rule_hit, t)[1]["recall"]) for t in (0.02, 0.03, 0.04)))
        print(f"{kind}: per category (risk: recall; negatives: false-alarm rate), rules alone / rules + model: " +
              ", ".join(f"{c} {rate_rules:.2f}/{rate:.2f}" for c, rate_rules, rate in per_category(
                  own, rule_hit, rule_hit | (oof >= threshold))))
        clf = fit(np.vstack([X_own, X_pub]), np.concatenate([own_y, pub_y]),
                  np.concatenate([own_w, pub_w]), a.c_risk)
        out |= split_weights(clf, with_emb, f"{kind}_", ls)
        n_pub = len(pub)
        everyday_z = clf.decision_function(X_pub[n_pub:]) if len(everyday) else np.zeros(1)
        if with_emb:
            pr, pn = prototypes(own_v, own_y, everyday_v, keep_neg)
            pr, pn, proj = project(pr, pn)
            out |= {"proto_risk": pr.astype(np.float16), "proto_neg": pn.astype(np.float16),
                    "knn_weight": np.float32(knn_weight)}
            if proj is not None:
                out["proto_proj"] = proj
            # the everyday messages kept as exemplars would match themselves: score them against the rest
            everyday_z = everyday_z + knn_weight * margins(everyday_v, pr, pn, proj, skip_self=True)
        everyday_p = 1 / (1 + np.exp(-everyday_z))
        floor = float(np.quantile(everyday_p, 1 - EVERYDAY_FALSE_ALARMS))
        if floor > threshold:
            print(f"{kind}: threshold {threshold:.4f} -> {floor:.4f} (everyday messages, in-sample)")
            threshold = floor
        at = rule_hit | (oof >= threshold)
        print(f"{kind}: 5-fold CV at the shipped threshold {threshold:.4f}: recall "
              f"{at[own_y == 1].mean():.3f} (explicit {at[groups == 'explicit'].mean():.3f}, implicit "
              f"{at[groups == 'implicit'].mean():.3f}), false alarms {at[own_y == 0].mean():.3f}")
        batch = np.array([r["batch"] for r in own])

        def rate(sel: np.ndarray) -> str:
            return f"{at[sel].mean():.2f}" if sel.any() else "-"
        print(f"{kind}: the same per author batch (out of fold: never in its fold's training), recall / false alarms: "
              + ", ".join(f"{b} {rate((batch == b) & (own_y == 1))}/{rate((batch == b) & (own_y == 0))}"
                          for b in sorted(set(batch))))
        out[f"{kind}_threshold"] = np.float32(threshold)

        risk = own_y == 1
        levels = [r["category"] for r in own if r["label"] == 1]
        X_cat, _ = features([t for t, r in zip(own_texts, risk) if r], own_v[risk] if with_emb else None, ls)
        cat = fit(X_cat, np.array(levels), np.ones(int(risk.sum())), C_LEVEL)   # the rules' verdict kept here
        assert list(cat.classes_) == sorted(set(levels))
        out |= split_weights(cat, with_emb, f"cat{kind}_", ls)
        out["levels"] = np.array(cat.classes_, dtype="<U16")
    np.savez_compressed(a.out, **out)
    print(f"wrote {a.out} ({Path(a.out).stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
