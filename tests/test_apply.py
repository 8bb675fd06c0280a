"""The fold's one entry point (agents/core/contact.apply): dispatch by event type, the closing steps every
kind shares (profile, schedule, seq), and its invariants over any mixed log of several contacts. Pure:
no database, no broker."""
from __future__ import annotations

import copy
import dataclasses
import random
from datetime import datetime, timedelta, timezone

import orjson
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from agents.core import contact as core
from agents.core import consolidation
from agents.core.memory import embedding_text
from schemas import events as ev
from tests.helpers import FakeEmbedder

T = "t"
START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
EMB = FakeEmbedder()


def iso(minutes: float) -> str:
    return (START + timedelta(minutes=minutes)).isoformat()


def say(cid: str, i: int, text: str, minutes: float, role: str = "user") -> ev.Envelope:
    return ev.interaction(event_id=f"{cid}-m{i}", tenant_id=T, contact_id=cid, occurred_at=iso(minutes),
                          recorded_at=iso(minutes), role=role, message=text, display_name="Sam")


def sb(x) -> bytes:  # noqa: ANN001
    return orjson.dumps(x, option=orjson.OPT_SORT_KEYS)


# ------------------------------------------------------------------------------ dispatch and closing
def test_every_source_event_but_an_erasure_has_a_rule_and_an_unknown_type_is_refused():
    assert set(core.RULES) == ev.SOURCE_TYPES - {ev.CONTACT_ERASED}  # an erasure is the shell's: a new state
    e = say("c", 1, "hello", 0)
    with pytest.raises(ValueError, match="NotAnEvent"):
        core.apply(core.new_state(T, "c"), dataclasses.replace(e, event_type="NotAnEvent"))


def test_each_kind_moves_seq_by_one_and_never_touches_its_input():
    s = core.new_state(T, "c")
    e1 = say("c", 1, "I live in Pune and I have a dog named Bruno", 0)
    s1, out = core.apply(s, e1, core.Inputs(candidates=core.plan_memories(e1)))
    mid = next(d.payload["memory"]["id"] for d in out if d.event_type == ev.MEMORY_EXTRACTED)
    kinds = [ev.memories_accessed(event_id="a1", tenant_id=T, contact_id="c", memory_ids=[mid], at=iso(1),
                                  recorded_at=iso(1)),
             ev.memory_correction_requested(event_id="k1", tenant_id=T, contact_id="c", memory_id=mid, at=iso(2),
                                            changes={"importance": 0.9}),
             ev.contact_tick(tenant_id=T, contact_id="c", due_at=iso(45), recorded_at=iso(45)),
             ev.memory_forget_requested(event_id="f1", tenant_id=T, contact_id="c", memory_id=mid, at=iso(46))]
    state = s1
    for i, e in enumerate(kinds, start=2):
        before = sb(state)
        new, _ = core.apply(state, e)
        assert sb(state) == before, e.event_type
        assert new["seq"] == i, e.event_type
        state = new


def test_an_llm_proposal_is_scheduled_and_the_profile_follows_it():
    """apply_proposals used to run due tiers and note new memories for the deferred tier, but neither
    rescheduled the contact nor updated its profile: a contact whose session had closed kept the
    periodic tier's time (6 hours on), so the deferred tier for the model's memories, due 5 minutes
    after them, waited hours; and the model's facts never reached the profile."""
    e1 = say("c", 1, "hi there", 0)
    s, _ = core.apply(core.new_state(T, "c"), e1, core.Inputs(candidates=core.plan_memories(e1)))
    s, _ = core.apply(s, ev.contact_tick(tenant_id=T, contact_id="c", due_at=iso(30), recorded_at=iso(30)))
    assert s["session"] is None and s["dueAt"] == iso(6 * 60)  # closed; the periodic tier next
    p = ev.memories_proposed(source=e1, model="m", profileUpdate=None, memories=[
        {"memory": "Sam is training for the Mumbai marathon", "expiration": "permanent", "importance": "high",
         "topics": ["running"]}])
    s2, out = core.apply(s, p, core.Inputs(candidates=core.plan_proposals(p)))
    extracted = [d for d in out if d.event_type == ev.MEMORY_EXTRACTED]
    assert len(extracted) == 1
    # the deferred tier runs DEFERRED_DELAY after the memory's event time (e1's: 09:00)
    assert s2["dueAt"] == (START + consolidation.DEFERRED_DELAY).isoformat()
    assert [d.payload["profile"] for d in out if d.event_type == ev.PROFILE_REWRITTEN] == [s2["profile"]]
    assert "Sam is training for the Mumbai marathon" in s2["profile"]
    # the model's own paragraph, when it gives one, is the profile (one rewrite, marked as the model's)
    p2 = ev.memories_proposed(source=say("c", 2, "hello again", 60), model="m", profileUpdate="Sam runs marathons.",
                              memories=[{"memory": "Sam lives in Thane", "expiration": "permanent",
                                         "importance": "medium", "topics": []}])
    s3, out3 = core.apply(s2, p2, core.Inputs(candidates=core.plan_proposals(p2)))
    rewrites = [d.payload for d in out3 if d.event_type == ev.PROFILE_REWRITTEN]
    assert rewrites == [{"profile": "Sam runs marathons.", "source": "llm"}]
    assert (s3["profile"], s3["profileSource"]) == ("Sam runs marathons.", "llm")
    assert any(f["content"] == "Sam lives in Thane" for f in s3["profileFacts"].values())


# ------------------------------------------------------------------------------ invariants of any log
TEXTS = ["I live in Pune", "I moved to Mumbai last week", "I have a dog named Bruno", "I love green tea",
         "My sister Maya is a doctor", "I work at Siemens", "ok", "lol", "work was stressful today",
         "Bruno chewed my shoes again", "I hate waking up early", "my card is 4242 4242 4242 4242"]
STEP = st.one_of(st.tuples(st.just("say"), st.sampled_from(TEXTS), st.sampled_from(["user", "user", "assistant"]),
                           st.sampled_from([1, 5, 45, 60 * 26])),
                 st.tuples(st.just("access"), st.integers(0, 9)),
                 st.tuples(st.just("correct"), st.integers(0, 9), st.sampled_from(TEXTS)),
                 st.tuples(st.just("forget"), st.integers(0, 9)))


def embedded(cands: list[dict]) -> list[dict]:
    for m, v in zip(cands, EMB.embed([embedding_text(m) for m in cands])):
        m["embedding"], m["embeddingModel"] = [float(x) for x in v], EMB.model_name
    return cands


class Shell:
    """What the pipeline keeps beside the states, as a model: the hot sets' vectors, the tiers' view of
    each contact's memories, and the memory rows a forget request reads (from the derived events)."""

    def __init__(self) -> None:
        self.states: dict[tuple[str, str], dict] = {}
        self.hot: dict[str, list[float]] = {}
        self.known: dict[tuple[str, str], dict] = {}
        self.rows: dict[str, dict] = {}
        self.derived: dict[tuple[str, str], list[bytes]] = {}

    def inputs(self, e: ev.Envelope) -> core.Inputs:
        k = (e.tenant_id, e.contact_id)
        plan = core.plan_memories(e) if e.event_type == ev.INTERACTION_RECORDED else \
            core.curation.plan_correction(e) if e.event_type == ev.MEMORY_CORRECTION_REQUESTED else []
        return core.Inputs(candidates=embedded(plan), hot_vectors=self.hot, known=self.known.setdefault(k, {}),
                           memory=self.rows.get(e.payload.get("memoryId", "")))

    def fold(self, e: ev.Envelope) -> list[ev.Envelope]:
        k = (e.tenant_id, e.contact_id)
        s, out = core.apply(self.states.get(k) or core.new_state(*k), e, self.inputs(e))
        self.states[k] = s
        for d in out:
            if d.event_type == ev.MEMORY_EXTRACTED:
                m = d.payload["memory"]
                self.known[k][m["id"]] = consolidation.known_entry(m)
                self.rows[m["id"]] = {"content": m["content"], "memoryType": m["memoryType"]}
                if m.get("embedding"):
                    self.hot[m["id"]] = m["embedding"]
        self.derived.setdefault(k, []).extend(orjson.dumps(d.to_dict()) for d in out)
        return out


def contact_log(cid: str, steps: list[tuple]) -> list[ev.Envelope]:
    """One contact's events from `steps`, with the ticks its scheduler would send (at the state's dueAt
    before a later message), the memory ids of its corrections and forgets taken from what it derived."""
    shell, log, mids, minutes = Shell(), [], [], 0.0

    def put(e: ev.Envelope) -> None:
        if any(x.event_id == e.event_id for x in log):  # a tick for work still due: the shell skips it
            return
        log.append(e)
        mids.extend(d.payload["memory"]["id"] for d in shell.fold(e) if d.event_type == ev.MEMORY_EXTRACTED)

    for i, step in enumerate(steps):
        if step[0] == "say":
            minutes += step[3]
            due = (shell.states.get((T, cid)) or {}).get("dueAt")
            if due and due <= iso(minutes):
                put(ev.contact_tick(tenant_id=T, contact_id=cid, due_at=due, recorded_at=due))
            put(say(cid, i, step[1], minutes, step[2]))
        elif mids and step[0] == "access":
            put(ev.memories_accessed(event_id=f"{cid}-a{i}", tenant_id=T, contact_id=cid, at=iso(minutes),
                                     recorded_at=iso(minutes), memory_ids=[mids[step[1] % len(mids)]]))
        elif mids and step[0] == "correct":
            put(ev.memory_correction_requested(event_id=f"{cid}-k{i}", tenant_id=T, contact_id=cid, at=iso(minutes),
                                               memory_id=mids[step[1] % len(mids)], changes={"content": step[2]}))
        elif mids and step[0] == "forget":
            put(ev.memory_forget_requested(event_id=f"{cid}-f{i}", tenant_id=T, contact_id=cid, at=iso(minutes),
                                           memory_id=mids[step[1] % len(mids)]))
    return log


@st.composite
def logs(draw):
    """Two or three contacts' logs, and one interleaving of them that keeps each contact's order."""
    per_contact = {cid: contact_log(cid, draw(st.lists(STEP, min_size=1, max_size=10)))
                   for cid in draw(st.lists(st.sampled_from(["ana", "bo", "cy"]), min_size=2, max_size=3, unique=True))}
    rng = random.Random(draw(st.integers(0, 2**32)))
    queues = {c: list(es) for c, es in per_contact.items()}
    mixed = []
    while any(queues.values()):
        c = rng.choice(sorted(c for c, q in queues.items() if q))
        mixed.append(queues[c].pop(0))
    return per_contact, mixed, draw(st.integers(0, 2**32))


def outcome(shell: Shell) -> dict:
    return {k: (sb(s), shell.derived[k]) for k, s in shell.states.items()}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(logs())
def test_independent_contacts_commute_replays_agree_and_a_redelivery_derives_the_same_events(data):
    per_contact, mixed, seed = data
    together = Shell()
    for e in mixed:
        together.fold(e)
    # independent contacts commute: each contact ends as it does alone, whatever the interleaving
    for cid, log in per_contact.items():
        alone = Shell()
        for e in log:
            alone.fold(e)
        assert outcome(alone).get((T, cid)) == outcome(together).get((T, cid)), cid

    # replay equality: the same log in other batches, each state read back between them as PostgreSQL
    # hands it (jsonb: keys in another order), gives the same states and derived events byte for byte
    rng, replay = random.Random(seed), Shell()
    for e in mixed:
        if rng.random() < 0.4:
            replay.states = {k: orjson.loads(orjson.dumps(dict(reversed(list(s.items())))))
                             for k, s in replay.states.items()}
        replay.fold(e)
    assert outcome(replay) == outcome(together)

    # a redelivery after a lost commit folds the event again from the committed state: the same state
    # and the same derived events (same ids: consumers drop the copy they already have)
    again, ids = Shell(), set()
    for e in mixed:
        k = (e.tenant_id, e.contact_id)
        committed = orjson.loads(orjson.dumps(again.states.get(k) or core.new_state(*k)))
        inputs = again.inputs(e)  # the shell's inputs read again (the tiers may update theirs in place)
        first, out = core.apply(committed, e, dataclasses.replace(inputs, known=copy.deepcopy(inputs.known),
                                                                  hot_vectors=copy.deepcopy(inputs.hot_vectors)))
        out2 = again.fold(e)
        assert sb(first) == sb(again.states[k]) and [d.to_dict() for d in out] == [d.to_dict() for d in out2]
        # and no two derived events of the log share an id (a consumer would drop the second as a copy)
        assert not ids & {d.event_id for d in out2}
        ids |= {d.event_id for d in out2}


def test_an_access_shares_the_state_below_the_top_yet_a_later_event_leaves_both_untouched():
    """An access sets only top-level keys (seq, dueAt), so its working copy is shallow; the next event's
    rule copies deeply, so neither the state before the access nor the one after it changes under it."""
    s = core.new_state(T, "c")
    e1 = say("c", 1, "I live in Pune and I have a dog named Bruno", 0)
    s1, out = core.apply(s, e1, core.Inputs(candidates=core.plan_memories(e1)))
    mid = next(d.payload["memory"]["id"] for d in out if d.event_type == ev.MEMORY_EXTRACTED)
    acc = ev.memories_accessed(event_id="a1", tenant_id=T, contact_id="c", memory_ids=[mid], at=iso(1),
                               recorded_at=iso(1))
    s2, derived = core.apply(s1, acc)
    assert [d.event_type for d in derived] == [ev.MEMORY_ACCESSED] and derived[0].payload["memoryIds"] == [mid]
    assert s2["seq"] == s1["seq"] + 1
    assert {k: v for k, v in s2.items() if k not in ("seq", "dueAt")} == \
        {k: v for k, v in s1.items() if k not in ("seq", "dueAt")}
    before1, before2 = sb(s1), sb(s2)
    e3 = say("c", 2, "My sister Priya moved to Delhi", 30)
    s3, _ = core.apply(s2, e3, core.Inputs(candidates=core.plan_memories(e3)))
    assert sb(s1) == before1 and sb(s2) == before2
    assert len(s3["memoryIndex"]["items"]) > len(s2["memoryIndex"]["items"])
