"""Issue 21, round 6 of the learned crisis model: the per-category weights and the false-alarm budget of
ops/train_crisis (expected values by hand), and the round's new author batch of the crisis set (its place in
BATCH_STARTS, no near-duplicate of any other row, nothing of a held-out part)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from rapidfuzz import fuzz, process

from agents.core import crisis_model as CM
from ops import train_crisis as T

ROUND6_START = "took like 30 of my sertraline about an hour ago and my heart is going crazy"


def test_category_weights_by_hand():
    cats = ["a", "a", "a", "b", "x", "y", "y"]
    y = np.array([1, 1, 1, 1, 0, 0, 0])
    assert T.category_weights(cats, y, 0.0).tolist() == [1.0] * 7
    w = T.category_weights(cats, y, 1.0)
    # risk: counts a 3, b 1, mean 2 -> a 2/3, b 2; sum 4 = the 4 risk rows, so no rescaling
    assert w[:4] == pytest.approx([2 / 3, 2 / 3, 2 / 3, 2.0])
    # negatives apart: x 1, y 2, mean 1.5 -> x 1.5, y 0.75; sum 3 = the 3 negative rows
    assert w[4:] == pytest.approx([1.5, 0.75, 0.75])
    # power 0.5: a sqrt(2/3), b sqrt(2), rescaled so the 4 risk rows sum to 4
    a, b = (2 / 3) ** 0.5, 2 ** 0.5
    k = 4 / (3 * a + b)
    assert T.category_weights(cats, y, 0.5)[:4] == pytest.approx([a * k] * 3 + [b * k])


def test_the_threshold_keeps_the_false_alarm_budget_it_is_given():
    # 10 negatives (one a rule hit), 4 risk; budget 0.2 -> 2 false alarms in all, 1 left for the model:
    # the highest model-only negative (0.9) may pass, the threshold sits between 0.9 and the next (0.7)
    p = np.array([0.95, 0.85, 0.6, 0.3] + [0.9, 0.7, 0.5, 0.4, 0.3, 0.2, 0.1, 0.1, 0.05, 0.99])
    y = np.array([1, 1, 1, 1] + [0] * 10)
    rule = np.zeros(14, bool)
    rule[-1] = True
    t, cv = T.choose_threshold(p, y, rule, 0.2)
    assert t == pytest.approx(0.8) and cv["false_alarms"] == pytest.approx(0.2) and cv["recall"] == 0.5
    t, cv = T.choose_threshold(p, y, rule, 0.1)       # budget 1: the rule hit uses it, the model gets none
    assert t > 0.9 and cv["recall"] == 0.25 and cv["false_alarms"] == pytest.approx(0.1)


def _rows() -> list[dict]:
    with open(CM.MODEL_PATH.parent / "crisis_set.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_the_round6_batch_is_an_author_batch_of_its_own_and_all_train():
    rows = T.load_set("train")
    mine = [r for r in rows if r["batch"] == T.BATCH_STARTS.index(ROUND6_START)]
    assert all(r["split"] == "train" for r in mine)
    assert mine[0]["text"] == ROUND6_START and len(mine) >= 390
    risk = sum(r["label"] for r in mine)
    assert 0.3 <= 1 - risk / len(mine) <= 0.5   # about 40% same-surface hard negatives
    assert {r["category"] for r in mine if r["label"]} >= {"attempt", "self_harm", "wish_to_be_dead", "ideation",
                                                           "farewell", "giving_away", "burden"}


def test_no_round6_row_is_a_near_duplicate_of_another_row():
    rows = _rows()
    start = next(i for i, r in enumerate(rows) if r["text"] == ROUND6_START)
    mine = [r["text"].lower() for r in rows[start:] if r["split"] == "train"]
    others = [r["text"].lower() for r in rows[:start]] + [r["text"].lower() for r in rows[start:]
                                                          if r["split"] != "train"]
    sim = process.cdist(mine, others, scorer=fuzz.ratio, workers=1)
    assert float(sim.max()) < 85
    inner = process.cdist(mine, mine, scorer=fuzz.ratio, workers=1)
    np.fill_diagonal(inner, 0)
    assert float(inner.max()) < 85


# Written for this file after the retraining (in no part of the crisis set: checked below), the level from its
# definition; no rule matches any of them, so the model alone decides. Each has an everyday message of the same
# surface that must raise nothing.
MODEL_CATCHES = [
    ("haven't stopped since thursday, new marks on my hip every evening and theyre getting deeper", "self_harm"),
    ("would be nice to just get sick and not get better tbh", "wish_to_be_dead"),
    # a known miss of round 6 (flagged, but at the level `means`) until the retrain over rounds 10-11
    ("sorted who gets my bass guitar and my records. wont be needing any of it", "giving_away"),
]
SAME_SURFACE = [
    "new marks on my hip every evening since thursday, the new jeans are too tight",
    "would be nice to just get a cold and have a few days off tbh",
    "put away most of the leftover lasagne with a can of cider twenty minutes ago, getting drowsy",
    "thanks for all the late nights talking, this is my last message before my exams",
    "sorted who gets my bass guitar and my records when i move to berlin next month",
]
# the retrained model's misses (no rule matches them either): strict, so that catching them is noticed. The
# overdose scored 0.66 against the threshold 0.881 in round 6
MISSES = [
    ("put away most of my mums diazepam with a can of cider twenty minutes ago, getting drowsy", "attempt"),
]


@pytest.fixture(scope="module")
def vectors(embedder):
    texts = [t for t, _ in MODEL_CATCHES + MISSES] + SAME_SURFACE
    return dict(zip(texts, embedder.embed(texts).astype(np.float32)))


def test_the_round6_test_messages_are_in_no_part_of_the_crisis_set():
    from tests.helpers import crisis_set_texts
    known = crisis_set_texts()
    assert not [t for t in [t for t, _ in MODEL_CATCHES + MISSES] + SAME_SURFACE if t.lower() in known]


@pytest.mark.parametrize("text,level", MODEL_CATCHES)
def test_the_model_alone_catches_the_paraphrase_with_its_level(text, level, vectors):
    from agents.core import crisis
    assert crisis.detect_crisis(text) is None
    hit, own = CM.assess(text, vectors[text])
    assert CM.raises_alarm(hit) and hit["source"] == "model" and hit["level"] == level, hit
    assert own >= float(CM._load()["full_threshold"])


@pytest.mark.parametrize("text", SAME_SURFACE)
def test_the_same_surface_raises_no_alarm(text, vectors):
    assert not CM.raises_alarm(CM.assess(text, vectors[text])[0])


@pytest.mark.xfail(strict=True, reason="round 6: the model misses this overdose")
@pytest.mark.parametrize("text,level", MISSES)
def test_known_misses(text, level, vectors):
    hit, _ = CM.assess(text, vectors[text])
    assert CM.raises_alarm(hit) and hit["level"] == level
