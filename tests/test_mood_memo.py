"""The fold's memo of the offline mood classifier (agents/core/emotion.py `_classify`): an answer is reused
only for the same text, the same vector bits and the same previous mood, and the fold's states and
events are the same as when every message is classified afresh."""
from __future__ import annotations

import numpy as np
import orjson

from agents.core import contact as core
from agents.core import emotion
from agents.core import mood as mood_model
from schemas.envelope import encode
from tests.helpers import interaction


def _spy(monkeypatch):
    asked = []
    real = mood_model.classify

    def classify(text, vector=None, previous=None):
        asked.append((text, None if vector is None else np.asarray(vector).tobytes(), previous))
        return real(text, vector=vector, previous=previous)

    monkeypatch.setattr(mood_model, "classify", classify)
    return asked


def _unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def test_an_answer_is_reused_only_for_the_same_text_vector_and_previous_mood(monkeypatch):
    asked = _spy(monkeypatch)
    a, b = _unit(1), _unit(2)
    b_near = b.copy()
    b_near[0] = np.nextafter(b_near[0], np.float32(2))  # one bit of one component differs
    calls = [("ok", a, None), ("ok", a.copy(), None), ("ok", a, "sad"), ("ok", b, None), ("ok", b_near, None),
             ("ok!", a, None), ("ok", None, None), ("ok", None, None), ("ok", a, None)]
    answers = [emotion._classify(t, v, p) for t, v, p in calls]
    # asked: the first, the other previous mood, the other vector, the one bit, the other text, no vector
    assert len(asked) == 6
    assert [x[0] for x in asked] == ["ok", "ok", "ok", "ok", "ok!", "ok"]
    assert answers[1] == answers[0] and answers[8] == answers[0] and answers[7] == answers[6]
    answers[0]["mood"] = "changed by a caller"
    assert emotion._classify("ok", a, None)["mood"] != "changed by a caller"  # each caller gets its own copy
    assert len(asked) == 6
    emotion.forget_texts()  # after an erasure: asked again
    emotion._classify("ok", a, None)
    assert len(asked) == 7


def test_a_list_vector_is_never_a_key(monkeypatch):
    asked = _spy(monkeypatch)
    v = [float(x) for x in _unit(3)]
    emotion._classify("fine thanks", v, None)
    emotion._classify("fine thanks", v, None)
    assert len(asked) == 2


def test_the_fold_gives_the_same_states_and_events_with_the_memo(monkeypatch):
    texts = ["ok", "lol", "I'm so sad today", "ok", "thanks!!", "lol", "ugh my train is late again", "ok",
             "I'm so sad today", "thanks!!"] * 3
    vectors = {t: _unit(i) for i, t in enumerate(dict.fromkeys(texts))}

    def fold() -> list[bytes]:
        s, out = core.new_state("default", "arjun"), []
        for i, t in enumerate(texts):
            e = interaction(f"m{i}", t, minutes=i * (400 if i % 7 == 6 else 3))  # a new session now and then
            s, derived = core.apply_interaction(s, e, core.plan_memories(e), message_vector=vectors[t].copy())
            out.append(orjson.dumps(s, option=orjson.OPT_SORT_KEYS))
            out.extend(encode(d) for d in derived)
        return out

    emotion.forget_texts()
    with_memo = fold()
    asked = _spy(monkeypatch)
    afresh_memo = fold()  # the spy is another function: a memo of its own, filled through it
    assert len(set(asked)) == len(asked) < len(texts)  # each (text, vector, previous mood) asked once
    monkeypatch.setattr(emotion, "_classify", lambda text, vector, previous: mood_model.classify(
        text, vector=vector, previous=previous))
    without = fold()
    assert with_memo == without == afresh_memo
