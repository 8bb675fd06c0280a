"""Issue 21, round 5 of the learned crisis model: the exemplar margin in a projection (one pass over one
contiguous matrix), the grouped cross-validation of ops/train_crisis (author batches, near-duplicates left out),
and what the retrained model catches where no rule matches, with a hard negative of the same surface each.
Expected values by hand."""
from __future__ import annotations

import numpy as np
import pytest

from agents.core import crisis, crisis_model as CM
from ops import train_crisis as T


def test_knn_margin_in_a_projection_by_hand():
    e = np.eye(384, dtype=np.float32)
    proj = np.stack([e[0], e[1]], axis=1)                      # [384, 2]: the first two axes
    m = {"proto_risk": np.array([[1.0, 0.0]], np.float32), "proto_neg": np.array([[0.0, 1.0]], np.float32),
         "proto_proj": proj}
    v = 3.0 * e[0] + 4.0 * e[1] + 12.0 * e[2]                  # projected (3, 4): unit (0.6, 0.8)
    assert CM.knn_margin(m, v) == pytest.approx(0.6 - 0.8)
    assert CM.knn_margin(m, v, projected=np.array([3.0, 4.0], np.float32)) == pytest.approx(-0.2)
    assert CM.knn_margin(m, e[5]) == 0.0                       # nothing in the projection: no margin
    del m["proto_proj"]
    m["proto_risk"], m["proto_neg"] = e[:1], e[1:2]            # without a projection: cosines in all 384
    assert CM.knn_margin(m, v) == pytest.approx(3 / 13 - 4 / 13)


def test_the_cosines_in_chunks_equal_one_product():
    rng = np.random.RandomState(1)
    protos = rng.randn(2000, 384).astype(np.float32)           # more rows than one chunk holds
    u = rng.randn(384).astype(np.float32)
    assert np.allclose(CM._cosines(protos, u), protos @ u, atol=1e-4)


def test_the_shipped_score_is_the_linear_model_plus_the_weighted_margin():
    m = CM._load()
    assert m is not None and float(m["knn_weight"]) > 0
    v = np.random.RandomState(2).randn(384).astype(np.float32)
    v /= np.linalg.norm(v)
    z, kind = CM.model_score("i gave my guitar away", v)
    assert kind == "full"
    lin = float(CM._logits(m, "full_", CM.lexical("i gave my guitar away"), CM.rule_features(None), v)[0])
    assert z == pytest.approx(lin + float(m["knn_weight"]) * CM.knn_margin(m, v), abs=1e-4)
    assert m["_protos"].flags["C_CONTIGUOUS"] and m["_protos"].dtype == np.float32


def test_batch_folds_keep_a_batch_on_one_side_largest_first():
    # sizes: batch 0: 3, 1: 2, 2: 1, 3: 1 -> 0 to fold 0, 1 to fold 1, 2 to fold 1 (2 < 3), 3 to fold 0 (3 = 3: first)
    assert T.batch_folds([0, 0, 0, 1, 1, 2, 3], k=2).tolist() == [0, 0, 0, 1, 1, 1, 0]


def test_a_near_duplicate_of_a_test_row_is_left_out_of_training():
    a = np.zeros(384, np.float32)
    a[0] = 1.0
    a2 = a.copy()
    a2[1] = 0.1                                                 # cosine 0.995 to a
    b = np.zeros(384, np.float32)
    b[2] = 1.0
    v = np.stack([a, a2, b])
    assert T.fold_train_rows(v, np.array([0, 1, 1]), 0).tolist() == [False, False, True]
    assert T.fold_train_rows(v, np.array([0, 1, 1]), 0, purge=0.999).tolist() == [False, True, True]


def test_train_rows_carry_their_author_batch_in_file_order():
    rows = T.load_set("train")
    own = [r for r in rows if r["split"] == "train"]
    batches = [r["batch"] for r in own]
    assert batches == sorted(batches) and batches[0] == 0
    assert set(batches) == set(range(len(T.BATCH_STARTS)))
    assert [r["text"] for r in own if r["batch"] == len(T.BATCH_STARTS) - 1][0] == T.BATCH_STARTS[-1]
    # the retired held-out parts follow, each an author batch of its own
    retired = {r["split"]: r["batch"] for r in rows if r["split"] != "train"}
    assert retired == {part: 100 + i for i, part in enumerate(T.RETIRED_HELDOUT)}
    assert len(rows) == len(own) + sum(len(T.load_set(part)) for part in T.RETIRED_HELDOUT)


# Written for this file (in no part of the crisis set: checked below), the level from its definition. Each risk
# message has no rule hit (the model alone decides), and each has an everyday message of the same surface.
MODEL_CATCHES = [
    ("kinda want to just stop being a person for good", "wish_to_be_dead"),
    ("sunday is the last day i'll have to feel like this", "timeline"),
    ("so i looked up how many of my sleeping pills would stop my heart", "method"),
]
SAME_SURFACE = [
    "sunday is the last day i'll have to wear this cast",
    "i keep picturing my own wedding and honestly it feels like a dream",
    "everyone would breathe easier if i were out of the office for a week",
    "my cat goes to my neighbour from sunday while i'm in lisbon",
]
# the model's misses of round 5 (no rule matched either; they were strict xfails): since the sixth round a rule family
# reads each (gratitude for the bond + a mark that this is the end, `farewell_thanks`; others better off with the
# speaker gone for good, `burden_if_gone`), with paraphrases and hard negatives in tests/test_crisis_round6.py
MISSES = [
    ("thank you for every single chat, you made the end easier", "farewell"),
    ("everyone would breathe easier if i were out of the picture for good", "burden"),
]


@pytest.fixture(scope="module")
def vectors(embedder):
    texts = [t for t, _ in MODEL_CATCHES + MISSES] + SAME_SURFACE
    return dict(zip(texts, embedder.embed(texts).astype(np.float32)))


def test_the_round5_messages_are_in_no_part_of_the_crisis_set():
    from tests.helpers import crisis_set_texts
    known = crisis_set_texts()
    assert not [t for t, _ in MODEL_CATCHES + MISSES if t.lower() in known]
    assert not [t for t in SAME_SURFACE + [KNOWN_FALSE_ALARM] if t.lower() in known]


@pytest.mark.parametrize("text,level", MODEL_CATCHES)
def test_the_model_alone_catches_a_paraphrase_with_its_level_and_reason(text, level, vectors):
    assert crisis.detect_crisis(text) is None
    hit, own = CM.assess(text, vectors[text])
    assert CM.raises_alarm(hit) and hit["source"] == "model" and hit["level"] == level, hit
    assert hit["severity"] == "high" and hit["phrase"] == text and own is not None and own >= 0.9
    head = f'crisis language ({hit["category"]}, {level.replace("_", " ")}): "{text}"; risk model '
    assert CM.reason(hit).startswith(head)


@pytest.mark.parametrize("text", SAME_SURFACE)
def test_an_everyday_message_of_the_same_surface_raises_no_alarm(text, vectors):
    assert not CM.raises_alarm(CM.assess(text, vectors[text])[0])


@pytest.mark.parametrize("text,level", MISSES)
def test_the_round5_misses_are_caught_by_a_rule_family(text, level, vectors):
    hit, _ = CM.assess(text, vectors[text])
    assert CM.raises_alarm(hit) and hit["level"] == level
    assert crisis.detect_crisis(text)["level"] == level


# the model's false alarm of round 5 on the same surface as the method message above (score 0.875 against the
# threshold 0.873 when written; a strict xfail until the sixth round): a dosing question for an everyday purpose is an
# everyday reading of the model-alone hit (`crisis.everyday_reading`: "a dose for an everyday purpose")
KNOWN_FALSE_ALARM = "so i looked up how many of my sleeping pills i can take for the long flight"


def test_the_round5_false_alarm_is_read_as_an_everyday_dose(embedder):
    assert crisis.everyday_reading(KNOWN_FALSE_ALARM, False) == "a dose for an everyday purpose"
    assert not CM.raises_alarm(CM.assess(KNOWN_FALSE_ALARM, embedder.embed([KNOWN_FALSE_ALARM])[0])[0])
