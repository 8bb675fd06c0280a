"""Memory curation in the fold (agents/core/curation.py): corrections and forgetting as events, and
what extraction may bring back afterwards. Pure: no database, no broker."""
from __future__ import annotations

import orjson
from hypothesis import given, settings, strategies as st

from agents.core import contact as core
from agents.core import memory as mem
from schemas import events as ev
from schemas.codec import decode
from schemas.envelope import encode

T, C = "t", "c"


def at(minute: int) -> str:
    return f"2026-01-01T10:{minute:02d}:00+00:00"


def msg(i: int, text: str, minute: int | None = None) -> ev.Envelope:
    when = at(i if minute is None else minute)
    return ev.interaction(event_id=f"m{i}", tenant_id=T, contact_id=C, occurred_at=when, recorded_at=when,
                          role="user", message=text)


def fold(s, e):
    if e.event_type == ev.INTERACTION_RECORDED:
        return core.apply_interaction(s, e, core.plan_memories(e))
    if e.event_type == ev.MEMORY_CORRECTION_REQUESTED:
        return core.apply_correction(s, e)
    if e.event_type == ev.MEMORY_FORGET_REQUESTED:
        return core.apply_forget(s, e)
    if e.event_type == ev.MEMORIES_PROPOSED:
        return core.apply_proposals(s, e, core.plan_proposals(e))
    raise AssertionError(e.event_type)


def correct(i: int, mid: str, **changes) -> ev.Envelope:
    return ev.memory_correction_requested(event_id=f"x{i}", tenant_id=T, contact_id=C, memory_id=mid, at=at(i),
                                          changes=changes)


def forget(i: int, mid: str) -> ev.Envelope:
    return ev.memory_forget_requested(event_id=f"f{i}", tenant_id=T, contact_id=C, memory_id=mid, at=at(i))


def extracted(out) -> dict[str, dict]:
    return {d.payload["memory"]["memoryKey"] or d.payload["memory"]["content"]: d.payload["memory"]
            for d in out if d.event_type == ev.MEMORY_EXTRACTED}


def test_a_correction_is_what_the_state_and_the_profile_hold_and_its_event_says():
    s, out = fold(core.new_state(T, C), msg(1, "I live in Mumbai and I have a dog named Bruno"))
    lives = extracted(out)["fact|self|lives_in"]
    s, out = fold(s, correct(2, lives["id"], content="Lives in Pune"))
    [corrected] = [d for d in out if d.event_type == ev.MEMORY_CORRECTED]
    assert corrected.payload["content"] == "Lives in Pune"
    assert corrected.payload["previousContentHash"] == mem.content_hash("Lives in Mumbai")
    assert corrected.causation_id == "x2"
    item = s["memoryIndex"]["items"][lives["id"]]
    assert item["contentHash"] == mem.content_hash("Lives in Pune") and item["corrected"]
    assert s["memoryIndex"]["hashes"][mem.content_hash("Lives in Pune")] == lives["id"]
    assert mem.content_hash("Lives in Mumbai") not in s["memoryIndex"]["hashes"]
    assert "Pune" in s["profile"] and "Mumbai" not in s["profile"]
    assert any(d.event_type == ev.PROFILE_REWRITTEN for d in out)


def test_restating_the_corrected_content_does_not_bring_it_back_but_something_new_supersedes():
    s, out = fold(core.new_state(T, C), msg(1, "I live in Mumbai"))
    lives = extracted(out)["fact|self|lives_in"]
    s, _ = fold(s, correct(2, lives["id"], content="Lives in Pune"))
    s, out = fold(s, msg(3, "I live in Mumbai"))  # the old, wrong content said again
    types = [d.event_type for d in out]
    assert ev.MEMORY_SUPERSEDED not in types
    assert "fact|self|lives_in" not in extracted(out)
    assert not any(d.event_type == ev.MEMORY_REINFORCED and d.payload["memoryId"] == lives["id"] for d in out)
    assert s["memoryIndex"]["keys"]["fact|self|lives_in"] == lives["id"]
    s, out = fold(s, msg(4, "I live in Delhi"))  # something new: a fact like any other
    sup = [d for d in out if d.event_type == ev.MEMORY_SUPERSEDED]
    assert [d.payload["memoryId"] for d in sup] == [lives["id"]]
    assert extracted(out)["fact|self|lives_in"]["content"] == "Lives in Delhi"


def test_correcting_back_to_a_replaced_content_makes_it_current_again():
    s, out = fold(core.new_state(T, C), msg(1, "I live in Mumbai"))
    mid = extracted(out)["fact|self|lives_in"]["id"]
    s, _ = fold(s, correct(2, mid, content="Lives in Pune"))
    s, _ = fold(s, correct(3, mid, content="Lives in Mumbai"))
    assert mem.content_hash("Lives in Mumbai") not in s["curation"]["rejected"]
    assert s["curation"]["rejected"][mem.content_hash("Lives in Pune")]["memoryId"] == mid
    s, out = fold(s, msg(4, "I live in Mumbai"))
    assert any(d.event_type == ev.MEMORY_REINFORCED and d.payload["memoryId"] == mid for d in out)


def test_type_importance_and_pin_corrections():
    s, out = fold(core.new_state(T, C), msg(1, "I live in Mumbai"))
    mid = extracted(out)["fact|self|lives_in"]["id"]
    s, out = fold(s, correct(5, mid, memoryType="preference", importance=0.95, pinned=True))
    [d] = [d for d in out if d.event_type == ev.MEMORY_CORRECTED]
    assert d.payload == {"memoryId": mid, "at": at(5), "memoryType": "preference",
                         "decayRate": mem.MEMORY_TYPES["preference"][1], "importance": 0.95, "pinned": True}
    item = s["memoryIndex"]["items"][mid]
    assert (item["memoryType"], item["importance"], item["pinned"], item["accessedAt"]) == \
        ("preference", 0.95, True, at(5))


def test_a_forgotten_memory_leaves_the_state_and_the_profile_once():
    s, out = fold(core.new_state(T, C), msg(1, "I live in Mumbai and I have a dog named Bruno"))
    dog = extracted(out)["fact|self|has_pet|dog"]
    s, out = fold(s, forget(2, dog["id"]))
    assert [d.event_type for d in out][0] == ev.MEMORY_FORGOTTEN
    assert out[0].payload == {"memoryId": dog["id"], "at": at(2)}
    assert dog["id"] not in s["memoryIndex"]["items"]
    assert "fact|self|has_pet|dog" not in s["memoryIndex"]["keys"]
    assert "Bruno" not in s["profile"]
    s2, out = fold(s, forget(3, dog["id"]))  # again: nothing more happens
    assert out == [] and s2["seq"] == s["seq"] + 1
    s3, out = fold(s2, correct(4, dog["id"], content="Has a cat named Bruno"))  # a forgotten one stays gone
    assert out == []


def test_a_forgotten_memory_does_not_come_back_from_its_message_but_a_new_message_is_remembered():
    first = msg(1, "I have a dog named Bruno")
    s, out = fold(core.new_state(T, C), first)
    dog = extracted(out)["fact|self|has_pet|dog"]
    s, _ = fold(s, forget(2, dog["id"]))
    # an LLM's proposal for the old message, arriving late, with the same content
    late = ev.memories_proposed(source=first, model="m", profileUpdate="Arjun has a dog named Bruno.", memories=[
        {"memory": "Has a dog named Bruno", "topics": [], "expiration": "permanent", "importance": "high"}])
    s, out = fold(s, late)
    assert not [d for d in out if d.event_type == ev.MEMORY_EXTRACTED]
    assert "Bruno" not in (s.get("profile") or "") and not [d for d in out if d.event_type == ev.PROFILE_REWRITTEN]
    s, out = fold(s, msg(3, "I have a dog named Bruno"))  # said again: new information
    assert extracted(out)["fact|self|has_pet|dog"]["content"] == "Has a dog named Bruno"


def test_the_request_events_validate_and_round_trip():
    e = correct(1, "m-1", content="Lives in Pune", pinned=False)
    assert decode(encode(e)) == e
    bad = [
        ({"memoryId": "m"}, "content"),
        ({"memoryId": "m", "content": "   "}, "content"),
        ({"memoryId": "m", "content": "x" * (ev.MAX_MESSAGE_BYTES + 1)}, "content"),
        ({"memoryId": "m", "memoryType": "secret"}, "memoryType"),
        ({"memoryId": "m", "importance": 1.5}, "importance"),
        ({"memoryId": "m", "importance": True}, "importance"),
        ({"memoryId": "m", "pinned": "yes"}, "pinned"),
        ({"content": "x"}, "memoryId"),
    ]
    for payload, field in bad:
        assert field in [f for f, _ in ev.correction_errors(payload)], payload
    assert ev.correction_errors({"memoryId": "m", "pinned": False}) == []


WORDS = ["I live in Mumbai", "I live in Pune", "I have a dog named Bruno", "I love green tea",
         "My sister Maya is a doctor", "I work at Siemens"]
STEP = st.one_of(st.tuples(st.just("say"), st.sampled_from(WORDS)),
                 st.tuples(st.just("correct"), st.integers(0, 20), st.sampled_from(WORDS)),
                 st.tuples(st.just("forget"), st.integers(0, 20)))


@settings(max_examples=60, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=14))
def test_any_history_of_messages_corrections_and_forgets(steps):
    """Whatever the order: a forgotten memory is never named by a later event, never back in the state;
    no memory is ever extracted with a content a correction replaced (while that correction stands);
    and the fold is the same on a state read back from PostgreSQL (keys re-ordered by jsonb)."""
    s = core.new_state(T, C)
    seen: list[str] = []
    forgotten: set[str] = set()
    rows: dict[str, dict] = {}  # what the projection holds of each memory (the shell reads it for a forget)
    gone_texts: set[str] = set()
    for i, step in enumerate(steps):
        if step[0] == "say":
            e = msg(i, step[1], minute=i)
        elif not seen:
            continue
        elif step[0] == "correct":
            e = correct(i, seen[step[1] % len(seen)], content=mem.content_hash(step[2])[:6] + " " + step[2])
        else:
            e = forget(i, seen[step[1] % len(seen)])
        again = orjson.loads(orjson.dumps(s, option=orjson.OPT_SORT_KEYS))
        if e.event_type == ev.MEMORY_FORGET_REQUESTED:
            row = rows.get(e.payload["memoryId"])
            s, out = core.apply_forget(s, e, row)
            s2, out2 = core.apply_forget(again, e, row)
            if row and row["memoryType"] == "episode" and e.payload["memoryId"] not in forgotten:
                gone_texts.add(mem.normalize_text(row["content"]))
        else:
            s, out = fold(s, e)
            s2, out2 = fold(again, e)
        assert orjson.dumps(s, option=orjson.OPT_SORT_KEYS) == orjson.dumps(s2, option=orjson.OPT_SORT_KEYS)
        assert out == out2
        rejected = set((s.get("curation") or {}).get("rejected", {}))
        for d in out:
            named = d.payload.get("memoryId") or (d.payload.get("memory") or {}).get("id")
            if d.event_type == ev.MEMORY_FORGOTTEN:
                forgotten.add(named)
                continue
            assert named not in forgotten, (d.event_type, named)
            if d.event_type == ev.MEMORY_EXTRACTED:
                seen.append(named)
                rows[named] = {"content": d.payload["memory"]["content"],
                               "memoryType": d.payload["memory"]["memoryType"]}
                assert d.payload["memory"]["contentHash"] not in rejected
            if d.event_type == ev.MEMORY_CORRECTED and named in rows and "content" in d.payload:
                rows[named] = {**rows[named], "content": d.payload["content"]}
        assert not forgotten & set(s["memoryIndex"]["items"])
        assert not forgotten & set(s["memoryIndex"]["hashes"].values())
        # a forgotten episode's message is out of the window (until the contact says it again)
        if e.event_type == ev.INTERACTION_RECORDED:
            gone_texts.discard(mem.normalize_text(e.payload["message"]))
        assert not gone_texts & {mem.normalize_text(t["content"]) for t in s["window"]}


def test_forgetting_an_episode_takes_its_message_out_of_the_window_and_the_summaries():
    s = core.new_state(T, C)
    texts = ["My sister Maya and I had a huge fight about the wedding", "I work at Siemens as an engineer",
             "Going to the gym later today", "The weather is lovely here"]
    for i, t in enumerate(texts):
        s, out = fold(s, msg(i, t))
    fight = next(mid for mid, it in s["memoryIndex"]["items"].items()
                 if it["memoryType"] == "episode" and it["contentHash"] == mem.content_hash(texts[0]))
    assert "huge fight" in s["session"]["rollingSummary"]  # the 4th turn built it
    s["lastSessionSummary"] = {"": {"sessionId": "old", "one_liner": "My sister Maya and I had a huge fight about "
                                    "the wedding", "what_mattered": ["My sister Maya and I had a huge fight about the "
                                    "wedding", "I work at Siemens as an engineer"], "open_loops": [],
                                    "commitments": [], "people": [], "tone": "sad"}}
    s, out = core.apply_forget(s, forget(9, fight), {"content": texts[0], "memoryType": "episode"})
    assert [t["content"] for t in s["window"]] == texts[1:]
    assert "fight" not in s["session"]["rollingSummary"] and "Siemens" in s["session"]["rollingSummary"]
    [rolling] = [d for d in out if d.event_type == ev.ROLLING_SUMMARY_UPDATED]
    assert rolling.payload["summary"] == s["session"]["rollingSummary"]
    last = s["lastSessionSummary"][""]
    assert last["what_mattered"] == ["I work at Siemens as an engineer"]
    assert last["one_liner"] == "I work at Siemens as an engineer"
    assert s["curation"]["forgotten"][fight] == {"sources": ["m0"], "episode": True, "n": 1}
    from agents.core.curation import forgotten_messages
    assert forgotten_messages(s) == {"m0"}
    # a fact's forgetting leaves the conversation as it was
    siemens = s["memoryIndex"]["keys"].get("fact|self|works_at|siemens") or next(
        mid for mid, it in s["memoryIndex"]["items"].items() if it["memoryType"] == "fact")
    s2, _ = core.apply_forget(s, forget(10, siemens), {"content": "Works at Siemens", "memoryType": "fact"})
    assert s2["window"] == s["window"] and forgotten_messages(s2) == {"m0"}


def test_the_export_shows_nothing_forgotten_of_the_ledger():
    from agents.core.curation import exported

    s, out = fold(core.new_state(T, C), msg(1, "I have a dog named Bruno"))
    dog = extracted(out)["fact|self|has_pet|dog"]["id"]
    episode = next(mid for mid, it in s["memoryIndex"]["items"].items() if it["memoryType"] == "episode")
    s, _ = fold(s, correct(2, dog, content="Has a cat named Bruno"))
    fix = {"memoryId": dog, "content": "Has a cat named Bruno"}
    assert exported("x2", ev.MEMORY_CORRECTION_REQUESTED, fix, s) == fix  # not forgotten: as recorded
    s, _ = core.apply_forget(s, forget(3, dog), {"content": "Has a cat named Bruno", "memoryType": "fact"})
    assert exported("x2", ev.MEMORY_CORRECTION_REQUESTED, fix, s) == {"memoryId": dog, "content": None,
                                                                       "forgotten": True}
    said = {"role": "user", "message": "I have a dog named Bruno"}
    assert exported("m1", ev.INTERACTION_RECORDED, said, s) == said  # a fact's message stays
    s, _ = core.apply_forget(s, forget(4, episode), {"content": "I have a dog named Bruno", "memoryType": "episode"})
    assert exported("m1", ev.INTERACTION_RECORDED, said, s) == {"role": "user", "message": None, "forgotten": True}
