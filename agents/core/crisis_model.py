"""Crisis risk beside the rules: a small learned model over what the worker already has, and the
conversation so far. Pure and deterministic (numpy only, no I/O after the weights are loaded once).

`assess(text, vector, context)` -> a crisis hit or None:
    {"severity": "high"|"medium", "category": crisis.CATEGORIES, "level": crisis.LEVELS,
     "phrase": the cue (the rule's span, or the sentence the model scored highest),
     "score": the model's risk probability (context included), "source": "rules"|"model"|"rules+model",
     "context": what the conversation added ("3 of the last 5 messages negative"), or None}
`raises_alarm(hit)`: whether the hit makes a crisis trigger for human review (not for concern about
somebody else, `third_party_concern`: that one only puts the helpline guidance into the context).

How the two halves combine
    - a rule hit is kept as it is (exact, explainable; the rules already handle negation, a past that is
      over, third persons, quotes, help-seeking and idioms, agents/core/crisis.py); the model's score is
      attached so a reviewer sees both;
    - without a rule hit, the model decides: logistic regression over the message's sentence embedding
      (all-MiniLM-L6-v2, computed by the shell and passed in as `vector`) and hashed word uni/bigrams
      (the rules' normalised words: chat spellings, typos and negation folded); with no vector, the
      same model family trained on the lexical features alone, with its own threshold;
    - the conversation moves the score: a message after days of negative moods or after messages the
      model found risky gets CONTEXT_BETA * context added to its log-odds (a farewell after a week of
      hopelessness is not a farewell after a holiday); a calm history adds nothing;
    - with a vector, the nearest-exemplar margin is added to the log-odds: KNN_WEIGHT x (the highest cosine
      to a train risk message minus the highest cosine to a train hard negative or a near-risk everyday
      message). A paraphrase close to a known risk message moves up even when its words are new; a
      linear model over the embedding alone misses many of these (5-fold CV on train: recall 0.49 -> 0.57
      at the same false alarms). The cosines are taken in the exemplars' top `proto_proj` directions (192 of
      384: half the memory read per message; grouped CV on train at the shipped threshold: recall 0.888 vs
      0.892 in all 384), the exemplars in one contiguous float32 matrix, and the message vector's products
      (the risk model's embedding term, the projection) in one more: two matrix-vector products per message;
    - a model hit needs the speaker not to deny it: when the rules find a risk phrase negated in the speaker's
      own voice and nothing else ("I'm not going to kill myself, just tired"), the model does not overrule them;
    - a model hit's level (C-SSRS or warning sign) comes from a second, multinomial model over the same
      features; C-SSRS levels, self-harm and every warning sign but `burden` are `high` (each calls for a
      human to read the conversation now), `burden` is `medium`.

The weights (agents/core/data/crisis_model.npz) are built by `python -m ops.train_crisis` from the
`train` part of agents/core/data/crisis_set.jsonl and a weakly labelled public set; thresholds are chosen
by cross-validation on the train part only (folds by author batch, near-duplicates of a test row left out of
training). The held-out parts are what `rapport bench safety` reports.
"""
from __future__ import annotations

import copy
import math
import re
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agents.core import crisis, textmemo

LEX_DIM = 4096
MODEL_PATH = Path(__file__).parent / "data" / "crisis_model.npz"
CONTEXT_BETA = 3.0     # log-odds added per unit of context (-1..1)
CONTEXT_TURNS = 5      # user messages the context looks back over
CONTEXT_MIN = 0.4      # two negative messages of five (or an earlier risk of 0.5+); a calm history: two of five
# the conversation only tips a message the model finds risky on its own more likely than not: without
# this floor, one crisis message lifted every later one over the threshold ("my dog is sleeping next to
# me" flagged as means, words-only), which buries the alarm that matters under ones that do not
CONTEXT_FLOOR = 0.5
NEGATIVE_MOODS = frozenset({"sad", "anxious", "angry"})
POSITIVE_MOODS = frozenset({"happy", "excited", "grateful"})
_WARNING_CATEGORY = "warning_sign"
_LEVEL_CATEGORY = {
    "wish_to_be_dead": "suicidal_ideation", "ideation": "suicidal_ideation", "method": "suicide_plan",
    "intent": "suicide_plan", "plan": "suicide_plan", "preparatory": "suicide_plan", "attempt": "suicide_plan",
    "self_harm": "self_harm", "burden": "hopelessness",
}


def _bucket(token: str) -> int:
    return zlib.crc32(token.encode("utf-8")) % LEX_DIM


def lexical(text: str) -> np.ndarray:
    """Hashed word unigrams and within-sentence bigrams of the rules' normalised words: (bucket ids)."""
    words = crisis.parse(text).words if isinstance(text, str) and text.strip() else []
    ids: set[int] = set()
    prev = None
    for w in words:
        if w == "|":
            prev = None
            continue
        ids.add(_bucket(w))
        if prev is not None:
            ids.add(_bucket(prev + " " + w))
        prev = w
    return np.fromiter(sorted(ids), dtype=np.int64, count=len(ids))


def lexical_dense(text: str) -> np.ndarray:
    """The lexical features as a dense vector (training): 1/sqrt(n) on each bucket present."""
    x = np.zeros(LEX_DIM, dtype=np.float32)
    ids = lexical(text)
    if len(ids):
        x[ids] = 1.0 / math.sqrt(len(ids))
    return x


def rule_features(hit: dict[str, Any] | None) -> np.ndarray:
    return np.array([hit is not None and hit["severity"] == "high", hit is not None and hit["severity"] == "medium"],
                    dtype=np.float32)


@lru_cache(maxsize=1)
def _load() -> dict[str, Any] | None:
    if not MODEL_PATH.exists():
        return None
    with np.load(MODEL_PATH, allow_pickle=False) as z:
        m = {k: z[k] for k in z.files}
    for k in ("proto_risk", "proto_neg"):   # stored float16 (size); matrix-vector in float32
        if k in m:
            m[k] = m[k].astype(np.float32)
    if "proto_risk" in m:   # both exemplar sets in one contiguous matrix: one pass over it per message
        m["_protos"] = np.ascontiguousarray(np.vstack([m["proto_risk"], m["proto_neg"]]), dtype=np.float32)
    # the message vector's products in one matrix: the risk model's column, then the exemplar projection
    cols = [m["full_emb"]] + ([m["proto_proj"]] if "proto_proj" in m else [])
    m["_emb_all"] = np.ascontiguousarray(np.hstack(cols), dtype=np.float32)
    return m


def _logits(m: dict[str, Any], prefix: str, ids: np.ndarray, rules: np.ndarray, vector: np.ndarray | None
            ) -> np.ndarray:
    """Linear scores of one model: weights `prefix`lex [LEX_DIM, k], `prefix`rule [2, k], `prefix`emb [384, k],
    `prefix`b [k]."""
    lex = m[prefix + "lex"]
    z = m[prefix + "b"].astype(np.float64).copy()
    if len(ids):
        z += lex[ids].sum(axis=0) / math.sqrt(len(ids))
    z += rules @ m[prefix + "rule"]
    if vector is not None:
        z += np.asarray(vector, dtype=np.float32) @ m[prefix + "emb"]
    return z


def _usable(vector: Any) -> np.ndarray | None:
    if vector is None:
        return None
    try:
        v = np.asarray(vector, dtype=np.float32).reshape(-1)
    except (TypeError, ValueError):
        return None
    return v if v.shape == (384,) and bool(np.isfinite(v).all()) else None


def knn_margin(m: dict[str, Any], v: np.ndarray, projected: np.ndarray | None = None) -> float:
    """Highest cosine to a risk exemplar minus highest cosine to a negative exemplar. With `proto_proj` [384, d]
    the cosines are taken in the exemplars' top d directions (v @ proto_proj, unit; `projected`: that product
    already computed); without it, in the embedding's 384."""
    if "proto_risk" not in m:
        return 0.0
    if "proto_proj" in m:
        v = projected if projected is not None else np.asarray(v, dtype=np.float32) @ m["proto_proj"]
    n = float(np.linalg.norm(v))
    if n == 0.0:
        return 0.0
    u = np.asarray(v, dtype=np.float32) / n
    protos = m.get("_protos")
    if protos is None:
        protos = np.vstack([m["proto_risk"], m["proto_neg"]]).astype(np.float32)
    s = _cosines(protos, u)
    k = len(m["proto_risk"])
    return float(s[:k].max()) - float(s[k:].max())


# cells per matrix-vector product: on larger products (1,565 x 384) OpenBLAS goes multithreaded, and on a busy
# 2-core machine its threads spin (1-30 ms per product instead of 0.1 ms; in chunks: as fast as before)
_CHUNK_CELLS = 512 * 384


def _cosines(protos: np.ndarray, u: np.ndarray) -> np.ndarray:
    step = max(1, _CHUNK_CELLS // protos.shape[1])
    if len(protos) <= step:
        return protos @ u
    return np.concatenate([protos[k:k + step] @ u for k in range(0, len(protos), step)])


def model_score(text: str, vector: Any = None, hit: dict[str, Any] | None = None) -> tuple[float, str] | None:
    """(log-odds of risk, which model) for one message, or None without weights."""
    m = _load()
    if m is None:
        return None
    v = _usable(vector)
    if v is None:
        return float(_logits(m, "lex_", lexical(text), rule_features(hit), None)[0]), "lex"
    e = v @ m["_emb_all"]   # one product: the risk model's embedding term, and the projected vector for the exemplars
    z = float(_logits(m, "full_", lexical(text), rule_features(hit), None)[0]) + float(e[0])
    if "knn_weight" in m:
        z += float(m["knn_weight"]) * knn_margin(m, v, e[1:] if "proto_proj" in m else None)
    return z, "full"


def _level(text: str, vector: Any, hit: dict[str, Any] | None) -> str:
    m = _load()
    assert m is not None
    v = _usable(vector)
    kind = "catfull" if v is not None else "catlex"
    z = _logits(m, f"{kind}_", lexical(text), rule_features(hit), v)
    return str(m["levels"][int(np.argmax(z))])


def context_value(context: dict[str, Any] | None) -> tuple[float, str | None]:
    """What the conversation so far says about this message, -1..1, and why (for a reviewer).

    Positive: the share of the last CONTEXT_TURNS user messages with a negative mood, or the highest risk
    the model found in them (counted from 0.5), whichever is more. Negative: a calm history (no negative
    message, positive moods in at least CONTEXT_MIN of them): a farewell after a holiday. Between: 0."""
    recent = (context or {}).get("recent") or []
    if not recent:
        return 0.0, None
    negatives = sum(1 for r in recent if r.get("neg"))
    positives = sum(1 for r in recent if r.get("pos"))
    risk = max((float(r.get("p", 0.0)) for r in recent), default=0.0)
    value = max(negatives / CONTEXT_TURNS, risk if risk >= 0.5 else 0.0)
    if value >= CONTEXT_MIN:
        why = []
        if negatives:
            why.append(f"{negatives} of the last {len(recent)} messages negative")
        if risk >= 0.5:
            why.append(f"an earlier message's risk {risk:.2f}")
        return round(value, 3), "; ".join(why)
    if negatives == 0 and risk < 0.5 and positives / CONTEXT_TURNS >= CONTEXT_MIN:
        return -round(positives / CONTEXT_TURNS, 3), f"{positives} of the last {len(recent)} messages positive"
    return 0.0, None


def step_context(context: dict[str, Any] | None, p: float, mood: str | None) -> dict[str, Any]:
    """The context after one user message: its (context-free) risk probability and whether its mood was negative."""
    recent = list((context or {}).get("recent") or [])
    recent.append({"p": round(float(p), 3), "neg": mood in NEGATIVE_MOODS, "pos": mood in POSITIVE_MOODS})
    return {"recent": recent[-CONTEXT_TURNS:]}


def raises_alarm(hit: dict[str, Any] | None) -> bool:
    """Does this hit call a human to read the conversation (a crisis trigger)? Every hit about the person's
    own risk does; concern for somebody else ("my friend said she wants to die, how do I help") does not:
    it is not this person's risk (the issue's hard negatives: third person), and the helpline guidance in
    the context (crisis lines counsel people worried about someone) is what it needs."""
    return hit is not None and hit.get("category") != "third_party_concern"


def reason(hit: dict[str, Any]) -> str:
    """One line a reviewer reads first: what, the cue, the model's score, what the conversation added."""
    out = f"crisis language ({hit['category']}, {hit['level'].replace('_', ' ')}): \"{hit['phrase']}\""
    if hit.get("score") is not None:
        out += f"; risk model {hit['score']:.2f}"
    out += f"; by {hit.get('source', 'rules')}"
    if hit.get("context"):
        out += f"; after {hit['context']}"
    return out


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def _best_sentence(text: str, hit: dict[str, Any] | None) -> str:
    """The sentence the lexical model finds riskiest: the cue a reviewer reads first."""
    m = _load()
    parts = [p.strip() for p in _SENTENCES.split(text) if p.strip()]
    if m is None or len(parts) <= 1:
        return text.strip()[:200]
    scores = [float(_logits(m, "lex_", lexical(p), rule_features(None), None)[0]) for p in parts[:20]]
    return parts[int(np.argmax(scores))][:200]


_SENTENCES = re.compile(r"(?<=[.!?\n])\s+")


# The rules' hit and the model's log-odds by (text, vector): both are pure in the two, so the fold asks them
# once per text and vector bits (agents/core/textmemo.py, one memo with the mood's); what depends on the
# conversation (context, level, readings) is computed every time. Keyed by the functions and the loaded
# weights too (a test's spy or another model file is asked afresh). Dropped with the other memos of texts
# after an erasure (`forget_texts`).
def _scored(text: str, vector: Any) -> tuple[dict[str, Any] | None, tuple[float, str] | None]:
    """(crisis.detect_crisis(text), model_score(text, vector, that hit)), from the memo when asked before."""
    detect, score = crisis.detect_crisis, model_score

    def compute() -> tuple[dict[str, Any] | None, tuple[float, str] | None]:
        hit = detect(text)
        return hit, score(text, vector, hit)

    hit, scored = textmemo.MESSAGES.answer(compute, (detect, score, _load()), text, vector, "crisis")
    return copy.deepcopy(hit), scored


def forget_texts() -> None:
    """Drop the memo of messages' answers (after an erasure: an erased contact's words are not kept)."""
    textmemo.MESSAGES.forget()


def assess(text: str, vector: Any = None, context: dict[str, Any] | None = None
           ) -> tuple[dict[str, Any] | None, float | None]:
    """(the crisis hit or None, the message's own risk probability without context, for the next step's
    context). Never raises on a string; `vector` may be None (rules + lexical model)."""
    if not isinstance(text, str) or not text.strip():
        return None, None
    hit, scored = _scored(text, vector)
    if scored is None:
        return (dict(hit, score=None, source="rules", context=None) if hit else None), None
    z, kind = scored
    m = _load()
    own = _sigmoid(z)
    ctx, why = context_value(context)
    if ctx > 0 and own < CONTEXT_FLOOR:
        ctx, why = 0.0, None
    p = _sigmoid(z + CONTEXT_BETA * ctx)
    threshold = float(m[f"{kind}_threshold"])
    if hit is not None:
        if hit["level"] in crisis.WARNING_SIGNS and ctx < 0 and p < threshold:
            return None, own  # a sign without a death word, in a calm conversation, and the model agrees
        return dict(hit, score=round(p, 3), source="rules+model" if p >= threshold else "rules",
                    context=why if ctx else None), own
    if p < threshold:
        return None, own
    if crisis.denied_by_speaker(text):
        return None, own  # "I don't wish I was dead, I wish I had a better job": the speaker's denial stands
    level = _level(text, vector, None)
    if crisis.everyday_reading(text, level in crisis.WARNING_SIGNS or level == "burden"):
        return None, own  # the rules' whole-message reading: a past that is over, work on the topic, a reason
    severity = "medium" if level in ("burden", "hopelessness") else "high"
    category = _LEVEL_CATEGORY.get(level, _WARNING_CATEGORY)
    return {"severity": severity, "phrase": _best_sentence(text, None), "category": category, "level": level,
            "score": round(p, 3), "source": "model", "context": why if ctx else None}, own
