"""The memo of the crisis rules' hit and the model's log-odds (agents/core/crisis_model.py `_scored`): reused only
for the same text and the same vector bits, dropped after an erasure, and `assess` answers exactly as when every
message is scored afresh, whatever the conversation around it."""
from __future__ import annotations

import numpy as np

from agents.core import crisis, crisis_model as CM, emotion


def _spy(monkeypatch):
    asked = []
    real = crisis.detect_crisis

    def detect(text):
        asked.append(text)
        return real(text)

    monkeypatch.setattr(crisis, "detect_crisis", detect)
    return asked


def _unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def test_a_score_is_reused_only_for_the_same_text_and_vector_bits(monkeypatch):
    asked = _spy(monkeypatch)
    a, b = _unit(1), _unit(2)
    a_near = a.copy()
    a_near[0] = np.nextafter(a_near[0], np.float32(2))  # one bit of one component differs
    text = "i took all of my pills an hour ago"
    calls = [(text, a), (text, a.copy()), (text, b), (text, a_near), (text + ".", a), (text, None), (text, None)]
    got = [CM._scored(t, v) for t, v in calls]
    # asked: the first, the other vector, the one bit, the other text, no vector
    assert asked == [text, text, text, text + ".", text]
    assert got[1] == got[0] and got[6] == got[5]
    assert got[0][0] is not None and got[0][0]["level"] == "attempt"  # the rules' hit of an attempt
    got[0][0]["level"] = "changed by a caller"
    assert CM._scored(text, a)[0]["level"] == "attempt"  # each caller gets its own copy
    assert len(asked) == 5
    emotion.forget_texts()  # after an erasure the fold drops every memo of texts: asked again
    CM._scored(text, a)
    assert len(asked) == 6


def test_a_list_vector_is_never_a_key(monkeypatch):
    asked = _spy(monkeypatch)
    v = [float(x) for x in _unit(3)]
    CM._scored("fine thanks", v)
    CM._scored("fine thanks", v)
    assert asked == ["fine thanks", "fine thanks"]


def test_assess_answers_the_same_with_the_memo_as_without_in_any_conversation():
    texts = ["ok", "i took all of my pills an hour ago", "thank you for everything, goodbye",
             "my phone died again lol", "ok", "i took all of my pills an hour ago", "thank you for everything, goodbye"]
    vectors = {t: _unit(10 + i) for i, t in enumerate(dict.fromkeys(texts))}
    calm = {"recent": [{"pos": True, "p": 0.0}] * 5}
    dark = {"recent": [{"neg": True, "p": 0.9}] * 5}
    contexts = [None, calm, dark, None, None, dark, calm]
    CM.forget_texts()
    memo = [CM.assess(t, vectors[t], c) for t, c in zip(texts, contexts)]
    fresh = []
    for t, c in zip(texts, contexts):
        CM.forget_texts()
        fresh.append(CM.assess(t, vectors[t], c))
    assert memo == fresh
    # the farewell said twice, after a calm and after a dark conversation, is answered for each conversation
    assert memo[2] != memo[6]
