"""The message's sentence embedding as an input of the fold: which text is embedded (redacted), that the
pipeline hands it to the emotional layer only for the model the mood weights know, and that a replay,
batched differently, gives the fold the same bits (the digest would show a single ulp through the mood)."""
from __future__ import annotations

import hashlib

import numpy as np
import psycopg
import pytest

from agents.core import contact as core
from agents.core import emotion
from agents.core import mood as mood_model
from agents.pipeline import InteractionPipeline
from ops import replay as rp
from projections.digest import digest
from tests.helpers import FakeEmbedder, interaction, records
from tests.test_replay_pg import fresh_db, live_run  # noqa: F401  (fresh_db: a database of its own)


def test_the_embedded_text_is_the_redacted_whitespace_folded_user_message():
    e = interaction("m1", "my  password is hunter2.\n I'm   so   tired")
    assert core.message_embedding_text(e) == "my password is [redacted password]. I'm so tired"
    assert core.message_embedding_text(interaction("m2", "hello there", role="assistant")) is None


def test_an_episode_said_without_a_speaker_shares_the_message_text():
    e = interaction("m1", "My dog Bruno ate my shoes again")
    episode = [m for m in core.plan_memories(e) if m["memoryType"] == "episode"][0]
    assert episode["id"] == core.episode_id(e)
    assert episode["content"] == core.message_embedding_text(e)


def _spy(monkeypatch):
    seen = []
    real = mood_model.classify

    def classify(text, vector=None, **kw):
        seen.append(vector)
        return real(text, vector=vector, **kw)

    monkeypatch.setattr(mood_model, "classify", classify)
    return seen


def test_the_fold_passes_the_vector_to_the_mood_and_works_without_one(monkeypatch):
    seen = _spy(monkeypatch)
    s0 = core.new_state("default", "arjun")
    e = interaction("m1", "I got the job, I'm so happy!")
    v = np.full(384, 1 / np.sqrt(384), dtype=np.float32)
    with_vec, out_with = core.apply_interaction(s0, e, core.plan_memories(e), message_vector=v)
    without, out_without = core.apply_interaction(s0, e, core.plan_memories(e))
    assert seen[0] is v and seen[1] is None
    for s, out in ((with_vec, out_with), (without, out_without)):
        assert s["mood"]["mood"] == "happy"
        assert [d for d in out if d.event_type == "MoodClassified"]
    # an assistant turn is not classified: no vector asked for
    core.apply_interaction(s0, interaction("a1", "Congratulations!", role="assistant"), [], message_vector=v)
    assert len(seen) == 2


def test_step_message_takes_the_vector_beside_an_llm_mood(monkeypatch):
    seen = _spy(monkeypatch)
    s = core.new_state("default", "arjun")
    e = interaction("m1", "fine")
    llm = {"mood": "sad", "energy": "low", "style": "supportive", "confidence": 0.9, "source": "llm"}
    emotion.step_message(s, e, llm, message_vector=np.zeros(384, np.float32))
    assert s["mood"]["mood"] == "sad" and s["mood"]["source"] == "llm" and seen == []  # the model's answer wins


class ShapedEmbedder(FakeEmbedder):
    """Named as the local model, with its flaw made visible: a vector moves with the batch it is computed
    in (the runtime's rounding depends on the batch's shape), here by 1e-6 per extra text."""
    model_name = mood_model.VECTOR_MODEL
    dim = 8

    def __init__(self):
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        out = super().embed(texts) + np.float32(1e-6) * (len(texts) - 1)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def _vector_shows(monkeypatch):
    """The mood's confidence made a fingerprint of the vector's bits: any difference reaches the digest."""
    real = mood_model.classify

    def classify(text, vector=None, **kw):
        m = real(text, **kw)
        if vector is not None:
            m["confidence"] = int.from_bytes(hashlib.sha256(np.asarray(vector).tobytes()).digest()[:4]) / 2**32
        return m

    monkeypatch.setattr(mood_model, "classify", classify)


def test_only_the_moods_embedding_model_gives_vectors():
    p = InteractionPipeline(None, FakeEmbedder(), broker_epoch="x")  # type: ignore[arg-type]
    assert p._messages([interaction("m1", "hello")]) == []
    p = InteractionPipeline(None, ShapedEmbedder(), broker_epoch="x")  # type: ignore[arg-type]
    e = interaction("m1", "hello  there")
    assert p._messages([e, interaction("a1", "hi", role="assistant")]) == [(("default", "m1"), core.episode_id(e), "hello there")]


def test_a_message_vector_is_computed_alone_and_shared_with_its_episode():
    model = ShapedEmbedder()
    p = InteractionPipeline(None, model, broker_epoch="x")  # type: ignore[arg-type]
    envs = [interaction("m1", "My dog Bruno ate my shoes again"), interaction("m2", "lol", minutes=1),
            interaction("m3", "I moved to Berlin last month", minutes=2, display_name="Arjun")]
    plans = [m for e in envs for m in core.plan_memories(e)]
    by_text, by_event = p._embed_sync([m["content"] if not m.get("speaker") else f"{m['speaker']}: {m['content']}"
                                       for m in plans], p._messages(envs))
    alone = {t: ShapedEmbedder().embed([t])[0] for t in ("My dog Bruno ate my shoes again", "lol",
                                                         "I moved to Berlin last month")}
    assert np.array_equal(by_event[("default", "m1")], alone["My dog Bruno ate my shoes again"])
    assert np.array_equal(by_event[("default", "m2")], alone["lol"])
    assert np.array_equal(by_event[("default", "m3")], alone["I moved to Berlin last month"])
    # the episode of m1 (no speaker) reuses its message's vector; the texts left are one batched call
    assert np.array_equal(by_text["My dog Bruno ate my shoes again"], by_event[("default", "m1")])
    singles = [c for c in model.calls if len(c) == 1]
    assert sorted(c[0] for c in singles) == sorted(alone)
    assert sum(len(c) > 1 for c in model.calls) == 1


def _conversation():
    msgs = ["My dog Bruno ate my shoes again", "lol", "I'm worried about the exam tomorrow",
            "My dog Bruno ate my shoes again", "I moved to Berlin last month", "ugh"]
    envs = [interaction(f"c{i}", m, minutes=i * 7) for i, m in enumerate(msgs)]
    envs.append(interaction("c9", "Bruno learned a new trick", minutes=70, display_name="Arjun"))
    envs += [interaction(f"o{i}", f"Other contact message number {i}", contact="olga", minutes=i) for i in range(3)]
    return records(envs)


async def _live_shaped(url, monkeypatch):
    """The conversation through the live worker, with ShapedEmbedder's vectors as the message vectors and as
    the embedder each replay is given."""
    monkeypatch.setenv("RAPPORT_DATABASE_URL", url)
    _vector_shows(monkeypatch)
    await live_run(url, _conversation(), ShapedEmbedder())


@pytest.mark.pg
@pytest.mark.asyncio
async def test_a_replay_batched_otherwise_gives_the_fold_the_same_vectors(fresh_db, monkeypatch):
    await _live_shaped(fresh_db, monkeypatch)
    with psycopg.connect(fresh_db, autocommit=True) as c:
        confidences = [r[0] for r in c.execute("SELECT confidence FROM proj_v1.mood_log").fetchall()]
    assert len(confidences) == 10 and len(set(confidences)) >= 8  # fingerprints of vectors, not the words' model
    r = await rp.replay("v2", "ledger", verify=True, data_dir=None, batch_size=4, progress=False,
                        embedder=ShapedEmbedder())
    assert r["verified"] and r["switched"]
    # read from live's episodes where the text is the message's, computed alone for "lol", "ugh" (no
    # episode), the repeated message (merged into the first one's episode) and the one said by "Arjun"
    assert r["texts_recorded"] >= 5


@pytest.mark.pg
@pytest.mark.asyncio
async def test_the_same_replay_with_batched_message_vectors_would_not_verify(fresh_db, monkeypatch):
    """The control: were message vectors computed in the batch, the replay's digest would differ."""
    monkeypatch.setattr("agents.pipeline.embed_each", lambda emb, texts: list(emb.embed(texts)))
    await _live_shaped(fresh_db, monkeypatch)
    r = await rp.replay("v2", "ledger", verify=True, data_dir=None, batch_size=4, progress=False,
                        embedder=ShapedEmbedder())
    assert r["verified"] is False
    with psycopg.connect(fresh_db, autocommit=True) as c:
        assert digest(c, "proj_v1") != digest(c, "proj_v2")
