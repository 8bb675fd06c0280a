"""agents/core/memory.py (memory records, the low-content rule, content hashes) and the per-contact fold
agents/core/contact.py: (state, interaction) -> (state, derived events), deterministic and pure."""
from __future__ import annotations

import copy
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.core import memory as mem
from agents.core.contact import CoreConfig, apply_interaction, new_state, plan_memories
from schemas import events as ev
from schemas.codec import decode
from schemas.envelope import derived_id, encode, scoped_id

T0 = datetime(2026, 4, 3, 22, 15, tzinfo=timezone(timedelta(hours=5, minutes=30)))


# ============================================================================ memory.py
@pytest.mark.parametrize("text", ["lol", "ok", "hmm", "haha", "hahahaha", "ok thanks!!", "👍", "Ok.",
                                  "LOL", "hmmmmm", "okkkk", "  ", "", "!!!", "👍👍 🙂", "haha ok", "thx!",
                                  "lol xd", "ok :P", "k.", "?"])
def test_low_content_messages(text: str):
    assert mem.is_low_content(text) is True


@pytest.mark.parametrize("text", ["Bruno ate my shoes again", "I moved to Berlin", "my mom is visiting",
                                  "I love sushi", "ok so I got the job!", "Я переехал в Берлин",
                                  "我搬到了柏林"])
def test_meaningful_messages(text: str):
    assert mem.is_low_content(text) is False


def test_small_talk_is_low_content_but_a_message_with_news_is_not():
    for text in ("hi there!", "talk later", "what a day", "How are you doing today?", "see you tomorrow!",
                 "that's great, thanks so much", "good night guys"):
        assert mem.is_low_content(text) is True, text
    for text in ("what a day at the hospital", "talk later, the plumber is here", "see you at Priya's wedding",
                 "good night, my exam is tomorrow"):
        assert mem.is_low_content(text) is False, text


def test_small_talk_said_on_many_days_makes_and_reinforces_no_memory():
    events = [ix(f"bye-{d}", T0 + timedelta(days=d), "talk later") for d in range(31)]
    events.insert(5, ix("dog", T0 + timedelta(days=5, minutes=1), "My dog Bruno ate my shoes again"))
    s, out = run(events)
    assert not [e for e in out if e.event_type == ev.MEMORY_REINFORCED]
    made = [(e.causation_id, e.payload["memory"]["memoryType"]) for e in out if e.event_type == ev.MEMORY_EXTRACTED]
    # what the words said: the dog message's fact and episode; the sign-offs only show when they chat
    assert [m for m in made if m[1] != "pattern"] == [("dog", "fact"), ("dog", "episode")]


@pytest.mark.parametrize("text", ["yesss", "nooo", "lmaooo", "hiiii", "yayyy"])
def test_stretched_filler_words_are_low_content(text: str):
    assert mem.is_low_content(text) is True


@pytest.mark.parametrize("memory_type,importance,decay", [
    ("fact", 0.7, 0.003), ("preference", 0.8, 0.005), ("episode", 0.5, 0.008), ("pattern", 0.8, 0.004)])
def test_new_memory_defaults_per_type(memory_type: str, importance: float, decay: float):
    m = mem.new_memory(memory_id="m1", tenant_id="t", contact_id="c", memory_type=memory_type,
                       content="Bruno is a beagle", created_at="2026-04-03T10:00:00+00:00",
                       source_event_ids=["e1"])
    assert m["importance"] == importance
    assert m["decayRate"] == decay
    assert m["memoryType"] == memory_type
    assert (m["status"], m["pinned"], m["accessCount"], m["scope"], m["source"]) == ("active", False, 0,
                                                                                    "contact", "rules")
    assert m["sourceEventIds"] == ["e1"]
    assert m["createdAt"] == m["updatedAt"] == m["validFrom"] == m["accessedAt"] == "2026-04-03T10:00:00+00:00"
    assert m["contentHash"] == mem.content_hash("Bruno is a beagle")


def test_new_memory_importance_override_and_unknown_type():
    m = mem.new_memory(memory_id="m1", tenant_id="t", contact_id="c", memory_type="fact", content="x",
                       created_at="2026-04-03T10:00:00+00:00", source_event_ids=[], importance=0.123456)
    assert m["importance"] == 0.1235
    assert m["decayRate"] == 0.003
    with pytest.raises(KeyError):
        mem.new_memory(memory_id="m1", tenant_id="t", contact_id="c", memory_type="rumour", content="x",
                       created_at="2026-04-03T10:00:00+00:00", source_event_ids=[])


def test_new_memory_copies_source_ids():
    ids = ["e1"]
    m = mem.new_memory(memory_id="m1", tenant_id="t", contact_id="c", memory_type="fact", content="x",
                       created_at="2026-04-03T10:00:00+00:00", source_event_ids=ids)
    ids.append("e2")
    assert m["sourceEventIds"] == ["e1"]


@pytest.mark.parametrize("a,b", [
    ("I moved to Berlin", "i MOVED   to berlin"),
    ("I moved to Berlin", "I moved to Berlin!!!"),
    ("I moved to Berlin", "  I moved, to Berlin.  "),
    ("I moved to Berlin", "I\tmoved\nto Berlin"),
    ("Café au lait", "cafe AU LAIT"),
])
def test_content_hash_is_case_space_and_punctuation_insensitive(a: str, b: str):
    assert mem.content_hash(a) == mem.content_hash(b)


@pytest.mark.parametrize("a,b", [
    ("I moved to Berlin", "I moved to Bern"),
    ("Bruno ate my shoes", "Bruno ate my socks"),
    ("my dog", "my cat"),
])
def test_content_hash_distinguishes_different_content(a: str, b: str):
    assert mem.content_hash(a) != mem.content_hash(b)


def test_content_hash_distinguishes_non_latin_texts():
    hashes = {mem.content_hash(t) for t in ("Я переехал в Берлин", "我搬到了柏林", "أنا أحب القهوة", "")}
    assert len(hashes) == 4


def test_episode_content_folds_whitespace_and_is_bounded():
    assert mem.episode_content("  Bruno   ate\nmy shoes  ") == "Bruno ate my shoes"
    long = " ".join(["word"] * 500)
    out = mem.episode_content(long)
    assert len(out) <= 600
    assert out.endswith("…")
    assert long.startswith(out[:-1])


# ============================================================================ contact.py (the fold)
def ix(i: int | str, at: datetime, message: str = "Bruno ate my shoes again", role: str = "user", **kw):
    eid = f"e{i}" if isinstance(i, int) else i
    return ev.interaction(event_id=eid, tenant_id="t1", contact_id="arjun", occurred_at=at.isoformat(),
                          recorded_at=at.isoformat(), role=role, message=message, **kw)


def run(events, state=None, cfg: CoreConfig = CoreConfig()):
    s = state if state is not None else new_state("t1", "arjun")
    out = []
    for e in events:
        s, derived = apply_interaction(s, e, plan_memories(e), cfg)
        out.extend(derived)
    return s, out


EMOTIONAL = {ev.MOOD_CLASSIFIED, ev.TRIGGER_CREATED, ev.PATTERN_DETECTED, ev.CHURN_RISK_CHANGED}


def types(events) -> list[str]:
    """Event types of the session and memory parts of the fold (the emotional layer has its own tests)."""
    return [e.event_type for e in events if e.event_type not in EMOTIONAL]


def test_new_state_is_empty():
    s = new_state("t1", "arjun")
    assert (s["tenantId"], s["contactId"], s["messageCount"], s["sessionCount"], s["activeStreak"],
            s["window"], s["session"]) == ("t1", "arjun", 0, 0, 0, [], None)


def test_first_message_opens_a_session_and_counts():
    e = ix(1, T0)
    s, out = run([e])
    assert types(out) == [ev.SESSION_STARTED, ev.MEMORY_EXTRACTED]
    assert (s["messageCount"], s["userMessageCount"], s["sessionCount"], s["activeStreak"]) == (1, 1, 1, 1)
    assert s["firstSeen"] == s["lastSeen"] == T0.isoformat()
    assert s["lastActiveDay"] == "2026-04-03"
    assert s["session"]["turnCount"] == 1 and s["session"]["userTurns"] == 1
    assert s["window"] == [{"role": "user", "content": e.payload["message"], "occurredAt": T0.isoformat()}]
    assert s["seq"] == 1
    started = out[0]
    assert started.payload["session"]["index"] == 1
    assert started.payload["session"]["sessionId"] == scoped_id("t1", "arjun", "e1", "session")
    assert started.causation_id == "e1"


def test_assistant_turns_count_but_extract_nothing():
    s, out = run([ix(1, T0, "Hi! How was your day?", role="assistant")])
    assert types(out) == [ev.SESSION_STARTED]
    assert (s["messageCount"], s["userMessageCount"]) == (1, 0)
    assert s["session"]["userTurns"] == 0


def test_a_message_within_the_gap_stays_in_the_session():
    s, out = run([ix(1, T0), ix(2, T0 + timedelta(minutes=29), "lol")])
    assert types(out) == [ev.SESSION_STARTED, ev.MEMORY_EXTRACTED]
    assert s["sessionCount"] == 1
    assert s["session"]["turnCount"] == 2
    assert len(s["window"]) == 2


def test_silence_closes_the_session_and_opens_a_new_one():
    e1, e2, e3 = ix(1, T0), ix(2, T0 + timedelta(minutes=5), "ok"), ix(3, T0 + timedelta(minutes=40), "hmm")
    s, out = run([e1, e2, e3])
    assert types(out) == [ev.SESSION_STARTED, ev.MEMORY_EXTRACTED, ev.SESSION_CLOSED, ev.SESSION_SUMMARIZED,
                          ev.SESSION_STARTED]
    out = [e for e in out if e.event_type not in EMOTIONAL]
    closed, summary, started = out[2], out[3], out[4]
    assert summary.payload["summary"]["one_liner"] and summary.occurred_at == closed.occurred_at
    assert closed.payload["session"]["endedAt"] == (T0 + timedelta(minutes=5)).isoformat()
    assert closed.occurred_at == (T0 + timedelta(minutes=5)).isoformat()  # when it ended, in event time
    assert closed.payload["session"]["turnCount"] == 2
    assert closed.causation_id == "e3"
    assert started.payload["session"]["index"] == 2
    assert s["sessionCount"] == 2
    assert [t["content"] for t in s["window"]] == ["hmm"]  # the window is per session


def test_a_new_producer_session_id_opens_a_new_session():
    s, out = run([ix(1, T0, session_id="chat-1"), ix(2, T0 + timedelta(minutes=1), "ok", session_id="chat-2")])
    assert types(out) == [ev.SESSION_STARTED, ev.MEMORY_EXTRACTED, ev.SESSION_CLOSED, ev.SESSION_SUMMARIZED,
                          ev.SESSION_STARTED]
    assert s["session"]["producerSessionId"] == "chat-2"
    out = [e for e in out if e.event_type not in EMOTIONAL]
    assert out[4].payload["session"]["sessionId"] != out[0].payload["session"]["sessionId"]


def test_out_of_order_event_stays_in_the_session_and_keeps_last_seen():
    s, out = run([ix(1, T0), ix(2, T0 + timedelta(minutes=10), "ok"), ix(3, T0 - timedelta(hours=2), "hmm")])
    assert ev.SESSION_CLOSED not in types(out)
    assert s["sessionCount"] == 1
    assert s["lastSeen"] == (T0 + timedelta(minutes=10)).isoformat()
    assert s["messageCount"] == 3


def test_streak_over_days():
    day = timedelta(days=1)
    s, _ = run([ix(1, T0), ix(2, T0 + day), ix(3, T0 + day + timedelta(hours=1)), ix(4, T0 + 2 * day)])
    assert (s["activeStreak"], s["lastActiveDay"]) == (3, "2026-04-05")
    s, _ = run([ix(5, T0 + 4 * day)], s)  # the 6th was missed
    assert (s["activeStreak"], s["lastActiveDay"]) == (1, "2026-04-07")


def test_episode_only_for_meaningful_user_messages():
    msgs = [("user", "lol"), ("user", "I moved to Berlin"), ("assistant", "Berlin! How exciting, tell me more"),
            ("user", "👍"), ("user", "My sister Priya is visiting next week")]
    events = [ix(i, T0 + timedelta(minutes=i), m, role=r) for i, (r, m) in enumerate(msgs)]
    _, out = run(events)
    extracted = [e for e in out if e.event_type == ev.MEMORY_EXTRACTED
                 and e.payload["memory"]["memoryType"] == "episode"]
    assert [e.payload["memory"]["content"] for e in extracted] == ["I moved to Berlin",
                                                                   "My sister Priya is visiting next week"]
    facts = [e.payload["memory"]["content"] for e in out if e.event_type == ev.MEMORY_EXTRACTED
             and e.payload["memory"]["memoryType"] != "episode"]
    assert "Lives in Berlin" in facts  # the rules' fact beside the episode (agents/core/extraction.py)
    for e, src in zip(extracted, ("e1", "e4")):
        m = e.payload["memory"]
        assert m["memoryType"] == "episode" and m["importance"] == 0.5 and m["decayRate"] == 0.008
        assert m["id"] == scoped_id("t1", "arjun", src, "memory:episode")
        assert m["sourceEventIds"] == [src]
        assert m["contactId"] == "arjun" and m["tenantId"] == "t1"
        assert e.event_id == scoped_id("t1", "arjun", src, f"memory:{m['id']}")
        assert e.causation_id == src


def test_plan_memories_is_pure_and_deterministic():
    e = ix(1, T0, "I adopted a beagle called Bruno", persona_id="coach")
    a, b = plan_memories(e), plan_memories(e)
    assert a == b and [m["memoryType"] for m in a][-1] == "episode" and len(a) >= 2  # facts, then the episode
    assert all(m["personaId"] is None for m in a)  # memories are global to the contact; sessions carry the persona
    assert all(m["createdAt"] == T0.isoformat() for m in a)
    assert "pet:bruno" in a[-1]["entityRefs"]  # the episode is linked to the entities of the message
    assert plan_memories(ix(2, T0, "haha")) == []
    assert plan_memories(ix(3, T0, "I adopted a beagle", role="assistant")) == []


def test_profile_updates_only_when_something_changes():
    e1 = ix(1, T0, "hi", display_name="Arjun", channel="whatsapp")
    e2 = ix(2, T0 + timedelta(minutes=1), "hey", display_name="Arjun", channel="whatsapp")
    e3 = ix(3, T0 + timedelta(minutes=2), "yo", channel="telegram")
    s, out = run([e1, e2, e3])
    profile = [e for e in out if e.event_type == ev.CONTACT_PROFILE_UPDATED]
    assert [e.payload for e in profile] == [{"displayName": "Arjun", "channel": "whatsapp"},
                                            {"displayName": "Arjun", "channel": "telegram"}]
    assert [e.causation_id for e in profile] == ["e1", "e3"]
    assert (s["displayName"], s["channel"]) == ("Arjun", "telegram")


def test_persona_is_remembered():
    s, _ = run([ix(1, T0, "hi", persona_id="tutor")])
    assert s["personaId"] == "tutor"
    assert s["session"]["personaId"] == "tutor"


def test_window_inside_the_fold_keeps_first_and_last():
    events = [ix(i, T0 + timedelta(minutes=i), f"message number {i}") for i in range(25)]
    s, _ = run(events, cfg=CoreConfig(window_size=20))
    contents = [t["content"] for t in s["window"]]
    assert len(contents) == 20
    assert contents[0] == "message number 0"
    assert contents[1:] == [f"message number {i}" for i in range(6, 25)]


def test_apply_interaction_does_not_mutate_its_input_state():
    s1, _ = run([ix(1, T0)])
    snapshot = copy.deepcopy(s1)
    apply_interaction(s1, ix(2, T0 + timedelta(hours=2)), [])
    assert s1 == snapshot


def _active_facts(s, out) -> list[str]:
    said = {e.payload["memory"]["id"]: e.payload["memory"]["content"] for e in out
            if e.event_type == ev.MEMORY_EXTRACTED}
    return sorted(said[mid] for mid, item in s["memoryIndex"]["items"].items() if item["memoryType"] == "fact")


def test_a_second_job_keeps_the_first_and_a_replacement_supersedes_both():
    day = timedelta(days=1)
    s, out = run([ix(1, T0, "I'm a nurse at Apollo Hospital"),
                  ix(2, T0 + day, "I work at Siemens as an electrician on weekends")])
    assert _active_facts(s, out) == ["Is a nurse", "Is an electrician", "Works at Apollo Hospital as a nurse",
                                     "Works at Siemens as an electrician"]
    assert not [e for e in out if e.event_type == ev.MEMORY_SUPERSEDED]
    s, more = run([ix(3, T0 + 2 * day, "I now work at Tesco")], s)
    out += more
    retired = {e.payload["memoryId"] for e in more if e.event_type == ev.MEMORY_SUPERSEDED}
    assert len(retired) == 2  # both workplaces; the job titles are another slot
    assert _active_facts(s, out) == ["Is a nurse", "Is an electrician", "Works at Tesco"]


def test_a_replacement_supersedes_a_fact_stored_under_the_old_single_valued_key():
    """State folded before value-specific keys holds "fact|self|works_at": a replacing message still
    retires it, a second job does not."""
    s, out = run([ix(1, T0, "I work at Infosys")])
    idx = s["memoryIndex"]
    (mid,) = [m for m, it in idx["items"].items() if it["memoryKey"] == "fact|self|works_at|infosys"]
    idx["keys"] = {("fact|self|works_at" if k == "fact|self|works_at|infosys" else k): v
                   for k, v in idx["keys"].items()}
    idx["items"][mid] = {**idx["items"][mid], "memoryKey": "fact|self|works_at"}
    legacy = copy.deepcopy(s)
    s2, more = run([ix(2, T0 + timedelta(days=1), "I work at Siemens on weekends")], copy.deepcopy(legacy))
    assert _active_facts(s2, out + more) == ["Works at Infosys", "Works at Siemens"]
    s3, more = run([ix(3, T0 + timedelta(days=1), "I left Infosys, I now work at Siemens")], copy.deepcopy(legacy))
    assert [e.payload["memoryId"] for e in more if e.event_type == ev.MEMORY_SUPERSEDED] == [mid]
    assert _active_facts(s3, out + more) == ["Works at Siemens"]
    stored = [e.payload["memory"] for e in more if e.event_type == ev.MEMORY_EXTRACTED]
    assert all("replaces" not in m for m in stored)  # read by dedup, never stored


def test_same_input_gives_identical_output_bytes():
    events = [ix(1, T0, display_name="Arjun"), ix(2, T0 + timedelta(minutes=3), "I moved to Berlin"),
              ix(3, T0 + timedelta(hours=3), "ok")]
    s_a, out_a = run(events)
    s_b, out_b = run(events)
    assert s_a == s_b
    assert [encode(e) for e in out_a] == [encode(e) for e in out_b]


def test_derived_events_are_valid_envelopes():
    _, out = run([ix(1, T0, display_name="Arjun"), ix(2, T0 + timedelta(hours=1), "I moved to Berlin")])
    for e in out:
        assert decode(encode(e)) == e
        assert e.schema_version == ev.CURRENT_VERSIONS[e.event_type]
        assert (e.tenant_id, e.contact_id) == ("t1", "arjun")
        assert e.correlation_id == e.causation_id  # the source interactions carry correlation = own id


def test_session_ids_are_unique_per_contact_even_when_the_producer_reuses_one():
    _, out = run([ix(1, T0, session_id="chat-1"), ix(2, T0 + timedelta(hours=2), "ok", session_id="chat-1")])
    started = [e.payload["session"]["sessionId"] for e in out if e.event_type == ev.SESSION_STARTED]
    assert len(started) == 2
    assert len(set(started)) == 2


def test_switching_producer_session_ids_after_an_unnamed_start():
    _, out = run([ix(1, T0), ix(2, T0 + timedelta(minutes=1), "ok", session_id="chat-1"),
                  ix(3, T0 + timedelta(minutes=2), "ok", session_id="chat-2")])
    assert types(out).count(ev.SESSION_STARTED) == 2


# ---------------------------------------------------------------------------- property: determinism
MESSAGES = ["lol", "ok", "I moved to Berlin", "Bruno ate my shoes again", "👍", "My mom is visiting",
            "hmm", "I start the new job on Monday", "haha", "Thanks, that helps a lot"]

step = st.tuples(
    st.integers(min_value=-120, max_value=3 * 24 * 60),      # minutes after the previous event (<0: late)
    st.sampled_from(["user", "assistant"]),
    st.sampled_from(MESSAGES),
    st.sampled_from([None, None, "chat-a", "chat-b"]),
    st.sampled_from([None, "Arjun", "AJ"]),
    st.sampled_from([None, "whatsapp", "web"]),
)


def build(steps) -> list:
    at, events = T0, []
    for i, (delta, role, msg, sid, name, channel) in enumerate(steps):
        at = at + timedelta(minutes=delta)
        events.append(ix(f"ev-{i}", at, msg, role=role, session_id=sid, display_name=name, channel=channel))
    return events


@settings(max_examples=60, deadline=None)
@given(st.lists(step, min_size=1, max_size=40))
def test_processing_twice_gives_identical_states_and_events(steps):
    events = build(steps)
    s_a, out_a = run(events)
    s_b, out_b = run(events)
    assert s_a == s_b
    assert [encode(e) for e in out_a] == [encode(e) for e in out_b]

    # invariants of the fold
    assert s_a["messageCount"] == len(events)
    assert s_a["userMessageCount"] == sum(e.payload["role"] == "user" for e in events)
    assert s_a["sessionCount"] == types(out_a).count(ev.SESSION_STARTED)
    assert types(out_a).count(ev.SESSION_CLOSED) == s_a["sessionCount"] - 1
    assert len(s_a["window"]) <= 20
    assert 1 <= s_a["activeStreak"] <= len(events)
    ids = [e.event_id for e in out_a]
    assert len(ids) == len(set(ids))  # derived ids never collide
    sources = {e.event_id for e in events}
    assert all(e.causation_id in sources for e in out_a)
    expected_memories = sum(e.payload["role"] == "user" and not mem.is_low_content(e.payload["message"])
                            for e in events)
    # each meaningful user message becomes an episode, or reinforces the one it repeats (a mood negative for
    # 3+ messages adds the difficult period's episode, which no message is: its id is left out)
    periods = {derived_id(e, "memory:difficult-period") for e in events}
    episodes = [e for e in out_a if e.event_type in (ev.MEMORY_EXTRACTED, ev.MEMORY_REINFORCED)
                and (e.payload.get("memory") or {}).get("id", e.payload.get("memoryId")) not in periods
                and (e.payload.get("memory") or {}).get("memoryType", "episode") == "episode"
                and (e.event_type == ev.MEMORY_EXTRACTED or e.payload["memoryId"] in
                     {x.payload["memory"]["id"] for x in out_a if x.event_type == ev.MEMORY_EXTRACTED
                      and x.payload["memory"]["memoryType"] == "episode"})]
    assert len(episodes) == expected_memories
    distinct = {mem.content_hash(e.payload["message"]) for e in events
                if e.payload["role"] == "user" and not mem.is_low_content(e.payload["message"])}
    assert sum(e.event_type == ev.MEMORY_EXTRACTED for e in episodes) == len(distinct)


@settings(max_examples=40, deadline=None)
@given(st.lists(step, min_size=2, max_size=30), st.integers(min_value=1, max_value=29))
def test_processing_in_two_runs_equals_one_run(steps, cut):
    """A restart between events (state persisted, then resumed) gives the same result as one pass."""
    events = build(steps)
    cut = min(cut, len(events) - 1)
    s_one, out_one = run(events)
    s_mid, out_first = run(events[:cut])
    s_two, out_second = run(events[cut:], copy.deepcopy(s_mid))
    assert s_two == s_one
    assert [encode(e) for e in out_first + out_second] == [encode(e) for e in out_one]
