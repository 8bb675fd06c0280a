"""The one memo of the fold's message classifiers (agents/core/textmemo.py): an answer is reused only for the
same `by` (by identity), text, vector bits and extra; both classifiers fill the one memo; `forget` empties it."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from agents.core import crisis_model as CM, emotion, textmemo


def _unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
    return v / np.linalg.norm(v)


VECTORS = [None, _unit(1), _unit(2), _unit(1).astype(np.float64), _unit(1)[:4]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["ok", "lol", "ok!"]), st.integers(0, len(VECTORS) - 1),
                          st.sampled_from([None, "sad"]), st.integers(0, 1)), max_size=30),
       st.integers(1, 6))
def test_answers_are_those_computed_afresh_and_computed_once_per_key(calls, size):
    memo, asked, fns = textmemo.TextMemo(size), [], [object(), object()]
    for text, v, extra, f in calls:
        vector = VECTORS[v]

        def compute(text=text, v=v, extra=extra, f=f):
            asked.append((text, v, extra, f))
            return (text, v, extra, f)

        assert memo.answer(compute, (fns[f],), text, vector, extra) == (text, v, extra, f)
        assert len(memo) <= size
    if len({(t, v, e, f) for t, v, e, f in calls}) <= size:  # nothing evicted: each key asked once
        assert len(asked) == len(set(asked))


def test_an_id_reused_by_another_object_is_not_a_match():
    memo = textmemo.TextMemo(4)
    a = [1]
    memo.answer(lambda: "first", (a,), "ok", None)
    b = [1]
    assert memo.answer(lambda: "second", (b,), "ok", None) == "second"  # a and b live: other ids anyway
    memo._answers.clear()
    key_a = (id(a),), "ok", None, ()
    memo._answers[key_a] = ((object(),), "stale")  # as if a's id were reused by a new object
    assert memo.answer(lambda: "fresh", (a,), "ok", None) == "fresh"


def test_a_list_vector_is_never_a_key():
    memo, asked = textmemo.TextMemo(4), []
    for _ in range(2):
        memo.answer(lambda: asked.append(1), (), "ok", [0.5, 0.5])
    assert len(asked) == 2 and len(memo) == 0


def test_the_mood_and_the_crisis_score_share_one_memo_and_an_erasure_empties_it():
    emotion.forget_texts()
    v = _unit(3)
    CM._scored("i want to die", v)
    emotion._classify("i want to die", v, None)
    assert len(textmemo.MESSAGES) == 2
    emotion.forget_texts()
    assert len(textmemo.MESSAGES) == 0
