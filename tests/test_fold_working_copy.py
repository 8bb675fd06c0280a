"""The working copy a rule declares (agents/core/contact.py WRITES) against the whole state's deep copy.

A message's rule copies only what it changes in place and shares the rest with its input. That must be
invisible: over streams that open and close sessions, link entities, feel moods, reach the memory
caps and run the consolidation tiers (with vectors, so themes compress), folding with the declared
working copy gives the same states and the same derived events, byte for byte, as folding with every
rule on the whole state's deep copy; the input state is never changed (not a value, not a key's
place); and the order of the input's keys (a state read back from jsonb, which reorders them) changes
nothing, since the deep copy it replaces gave every rule sorted keys.
"""
from __future__ import annotations

import hashlib
import random
from datetime import datetime, timedelta, timezone

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.core import consolidation
from agents.core import contact as core
from schemas import events as ev
from schemas.envelope import encode

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
# a few topics, each said in several ways: the episodes of one topic share most of their vector, so
# the periodic tier finds themes to compress; names, kin and pets for the entity graph; secrets
TOPICS = {
    "dog": ["Bruno ate my shoes again", "took Bruno to the vet today", "Bruno the dog barked all night",
            "walked Bruno in the park", "Bruno chewed the sofa"],
    "work": ["I hate my job, my boss yelled again", "my boss Mukesh wants the report friday",
             "long day at the office", "I got the job!!", "I started a new job at Acme last week"],
    "family": ["my sister Priya is visiting", "Priya and mom are coming on sunday", "my mom called again",
               "dinner with my dad tonight", "my brother Karan moved to Pune"],
    "mood": ["feeling really low today", "I'm so happy today", "I can't sleep, everything feels heavy",
             "so anxious about tomorrow", "great day honestly"],
    "misc": ["lol", "talk later", "I love sushi", "I moved to Berlin last month", "I live in Munich now",
             "my card is 4111 1111 1111 1111", "I prefer tea over coffee", "call me Sam"],
}
MESSAGES = [(topic, m) for topic, ms in TOPICS.items() for m in ms]
SAID = ["", " today", " again", " this morning", " last night", " honestly", " at last", " for once"]
_TOPIC_VEC = {t: np.random.default_rng(i).standard_normal(32) for i, t in enumerate(TOPICS)}


def vector(topic: str, text: str) -> list[float]:
    """The topic's direction plus the text's own: cosine ~0.6 within a topic (a theme, not a duplicate)."""
    own = np.random.default_rng(int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)).standard_normal(32)
    v = _TOPIC_VEC[topic] + 0.8 * own
    return [float(x) for x in (v / np.linalg.norm(v)).astype(np.float32)]


step = st.tuples(st.sampled_from([-5, 1, 2, 30, 90, 60 * 20, 60 * 24 * 3, 60 * 24 * 9]),  # minutes on
                 st.sampled_from(["user", "user", "assistant"]), st.sampled_from(MESSAGES),
                 st.sampled_from([None, "chat-a"]), st.booleans(), st.sampled_from(SAID))


def stream(contact: str, steps) -> list:
    at, out = T0, []
    for i, (delta, role, (topic, msg), sid, tick, said) in enumerate(steps):
        at += timedelta(minutes=delta)
        if tick and i:
            out.append(ev.contact_tick(tenant_id="t1", contact_id=contact, due_at=at.isoformat(),
                                       recorded_at=at.isoformat()))
        out.append(ev.interaction(event_id=f"{contact}-{i}", tenant_id="t1", contact_id=contact,
                                  occurred_at=at.isoformat(), recorded_at=at.isoformat(), role=role, message=msg + said,
                                  session_id=sid))
        out[-1].payload["_topic"] = topic  # read by the test's embedder below, dropped before folding
    return out


def shuffled(value, rnd: random.Random):
    """The same JSON with every object's keys in a random order (as jsonb, or anything, may give them)."""
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        return {k: shuffled(value[k], rnd) for k in keys}
    if isinstance(value, list):
        return [shuffled(v, rnd) for v in value]
    return value


def fold(events, rnd: random.Random | None = None):
    """Fold as the pipeline does (candidates embedded, `known` for the tiers kept from the memories the
    fold created); with `rnd`, each state's keys are reordered before every event and the input is
    checked to come out of `apply` untouched."""
    states: dict = {}
    known: dict = {}
    derived = []
    for e in events:
        key = (e.tenant_id, e.contact_id)
        topic = e.payload.pop("_topic", "misc")
        s = states.get(key) or core.new_state(*key)
        if rnd is not None:
            s = shuffled(s, rnd)
        before = orjson.dumps(s)
        cands = core.plan_memories(e) if e.event_type == ev.INTERACTION_RECORDED else []
        for m in cands:
            m["embedding"], m["embeddingModel"] = vector(topic, m["content"]), "all-MiniLM-L6-v2"
        k = known.setdefault(key, {})
        hot = {mid: v["embedding"] for mid, v in k.items() if v["embedding"] is not None}
        # the vectors the shell computes for the memories the fold made without one (a mood's, a habit's)
        fresh = {mid: {"embedding": np.asarray(vector("mood", v["content"]), dtype=np.float32),
                       "embeddingModel": "all-MiniLM-L6-v2"} for mid, v in k.items() if v["embedding"] is None}
        s2, out = core.apply(s, e, core.Inputs(candidates=cands, hot_vectors=hot, known=k, fresh=fresh))
        assert orjson.dumps(s) == before, "apply changed its input state"
        for d in out:
            if d.event_type == ev.MEMORY_EXTRACTED:
                k[d.payload["memory"]["id"]] = consolidation.known_entry(d.payload["memory"])
        states[key] = s2
        derived += out
    return (orjson.dumps({"|".join(k): v for k, v in states.items()}, option=orjson.OPT_SORT_KEYS),
            [encode(e) for e in derived])


def deep_copy_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "WRITES", {})  # no declarations: every rule on the whole state's deep copy


def test_the_message_rule_declares_what_it_writes():
    assert core.WRITES[ev.INTERACTION_RECORDED] >= {"session", "consolidation", core.INDEX}
    assert core.WRITES[ev.MEMORIES_ACCESSED] == frozenset()
    assert ev.MEMORY_CORRECTION_REQUESTED not in core.WRITES  # changes index items in place: a deep copy


@settings(max_examples=25, deadline=None)
@given(st.lists(step, min_size=1, max_size=40), st.integers(0, 2 ** 32))
def test_the_declared_copy_folds_as_the_deep_copy(steps, seed):
    events = stream("arjun", steps)
    declared = fold([e for e in events], random.Random(seed))
    with pytest.MonkeyPatch.context() as mp:
        deep_copy_everywhere(mp)
        reference = fold(stream("arjun", steps))
    assert declared[0] == reference[0]
    assert declared[1] == reference[1]


def test_a_long_stream_reaches_the_tiers_and_the_caps_and_folds_as_the_deep_copy():
    """Hundreds of messages over months: sessions close, the deferred and periodic tiers run and
    compress themes, the expiring cap archives; the reference is the whole-state deep copy."""
    rnd = random.Random(3)
    steps = [(rnd.choice([2, 30, 60 * 20, 60 * 24 * 2, 60 * 24 * 8]), rnd.choice(["user", "user", "assistant"]),
              rnd.choice(MESSAGES), rnd.choice([None, "chat-a"]), rnd.random() < 0.2, rnd.choice(SAID))
             for _ in range(250)]
    declared = fold(stream("bea", steps), random.Random(5))
    with pytest.MonkeyPatch.context() as mp:
        deep_copy_everywhere(mp)
        reference = fold(stream("bea", steps))
    kinds = {orjson.loads(d)["event_type"] for d in reference[1]}
    assert {ev.EPISODES_COMPRESSED, ev.SESSION_CLOSED, ev.ENTITY_UPSERTED} <= kinds, kinds
    assert declared == reference
