"""The fold's invariants, drawn by hypothesis over the pipeline-free core (agents/core/contact.py):

- replay equality: the pipeline keeps a contact's state as JSON between batches; folding a stream with
  the state saved and loaded (an orjson round trip) at any points equals folding it in one go, byte for
  byte (state and derived events): a restart or a replay split elsewhere gives the same digests;
- independent contacts commute: interleaving two contacts' streams in any order (each contact's own
  order kept) gives each contact the same state and the same derived events as folding it alone;
- idempotency on redelivery: an event delivered again after a crash (before its batch committed) is
  folded again from the last saved state, and derives exactly the same events (ids and bytes), so the
  projection's keys and the ledger drop the copies; no two events derive the same id.
A failure on any of these is what `rapport replay --verify` would report as a digest mismatch.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.core.contact import apply_interaction, new_state, plan_memories
from schemas import events as ev
from schemas.envelope import encode

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
MESSAGES = ["Bruno ate my shoes again", "I moved to Berlin last month", "lol", "my sister Priya is visiting",
            "I hate my job, my boss yelled again", "I love sushi", "talk later", "I got the job!!",
            "feeling really low today", "my card is 4111 1111 1111 1111"]

step = st.tuples(st.integers(min_value=-30, max_value=2 * 24 * 60),  # minutes after the previous event (<0: late)
                 st.sampled_from(["user", "assistant"]), st.sampled_from(MESSAGES),
                 st.sampled_from([None, "chat-a"]))


def stream(contact: str, steps) -> list:
    at, out = T0, []
    for i, (delta, role, msg, sid) in enumerate(steps):
        at += timedelta(minutes=delta)
        out.append(ev.interaction(event_id=f"{contact}-{i}", tenant_id="t1", contact_id=contact,
                                  occurred_at=at.isoformat(), recorded_at=at.isoformat(), role=role, message=msg,
                                  session_id=sid))
    return out


def fold(events, states=None, saved_after: frozenset[int] = frozenset()):
    """Fold in order; after the i-th event of the stream (i in saved_after) every state goes through
    JSON, as the pipeline commits and reloads it."""
    states = dict(states or {})
    derived = []
    for i, e in enumerate(events):
        key = (e.tenant_id, e.contact_id)
        s, out = apply_interaction(states.get(key) or new_state(*key), e, plan_memories(e))
        states[key] = s
        derived += out
        if i in saved_after:
            states = {k: orjson.loads(orjson.dumps(v)) for k, v in states.items()}
    return states, derived


def digest(states, derived) -> tuple[bytes, list[bytes]]:
    return (orjson.dumps({"|".join(k): v for k, v in states.items()}, option=orjson.OPT_SORT_KEYS),
            [encode(e) for e in derived])


@settings(max_examples=40, deadline=None)
@given(st.lists(step, min_size=1, max_size=25), st.sets(st.integers(0, 24)))
def test_saving_and_loading_the_state_anywhere_changes_nothing(steps, cuts):
    events = stream("arjun", steps)
    assert digest(*fold(events, saved_after=frozenset(cuts))) == digest(*fold(events))


@settings(max_examples=30, deadline=None)
@given(st.lists(step, min_size=1, max_size=12), st.lists(step, min_size=1, max_size=12), st.randoms())
def test_two_contacts_interleaved_in_any_order_fold_as_each_alone(steps_a, steps_b, rnd):
    a, b = stream("arjun", steps_a), stream("bea", steps_b)
    merged, ia, ib = [], 0, 0  # a random interleaving that keeps each contact's order
    while ia < len(a) or ib < len(b):
        if ib >= len(b) or (ia < len(a) and rnd.random() < 0.5):
            merged.append(a[ia])
            ia += 1
        else:
            merged.append(b[ib])
            ib += 1
    states, derived = fold(merged)
    for contact, own in (("arjun", a), ("bea", b)):
        alone_states, alone_derived = fold(own)
        key = ("t1", contact)
        assert orjson.dumps(states[key], option=orjson.OPT_SORT_KEYS) == \
            orjson.dumps(alone_states[key], option=orjson.OPT_SORT_KEYS)
        assert [encode(e) for e in derived if e.contact_id == contact] == [encode(e) for e in alone_derived]


@settings(max_examples=30, deadline=None)
@given(st.lists(step, min_size=2, max_size=20), st.data())
def test_a_redelivered_event_derives_the_same_events_and_no_id_twice(steps, data):
    events = stream("arjun", steps)
    crash = data.draw(st.integers(1, len(events) - 1), label="events committed before the crash")
    committed, _ = fold(events[:crash])
    saved = {k: orjson.loads(orjson.dumps(v)) for k, v in committed.items()}
    # the uncommitted tail is folded, lost in a crash, delivered again and folded from the saved state
    _, first = fold(events[crash:], committed)
    _, again = fold(events[crash:], saved)
    assert [encode(e) for e in again] == [encode(e) for e in first]
    _, everything = fold(events)
    ids = [e.event_id for e in everything]
    assert len(ids) == len(set(ids)) and not set(ids) & {e.event_id for e in events}
    assert {e.causation_id for e in everything} <= {e.event_id for e in events}
