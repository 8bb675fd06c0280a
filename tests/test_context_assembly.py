"""Context assembly (pure): stage budgets and templates, entity cards, packing of cards and memories."""
from datetime import datetime, timedelta, timezone

import pytest

from projections.context import CARD_BUDGET_SHARE, assemble, context_text, entity_cards, rank

NOW = datetime(2026, 4, 20, 12, tzinfo=timezone.utc)


def mem(i, content, mtype="fact", importance=0.7, refs=(), sim=0.5, created=NOW - timedelta(days=2), pinned=False):
    return {"id": i, "memory_type": mtype, "content": content, "importance": importance, "entity_refs": list(refs),
            "source_event_ids": [f"e-{i}"], "created_at": created, "accessed_at": None, "access_count": 0,
            "similarity": sim, "pinned": pinned, "decay_rate": 0.003, "status": "active"}


def state(sessions, streak=1, first=NOW - timedelta(days=10), last=NOW - timedelta(hours=1)):
    return {"displayName": "Arjun", "channel": "whatsapp", "sessionCount": sessions, "activeStreak": streak,
            "lastActiveDay": last.date().isoformat(), "firstSeen": first.isoformat(), "lastSeen": last.isoformat()}


def test_entity_cards_list_other_memories_top3_in_given_order():
    rows = [mem("a", "Golden retriever, 3 years old", refs=["pet:bruno"], importance=0.9),
            mem("b", "Loves belly rubs", "preference", refs=["pet:bruno"], importance=0.8),
            mem("c", "Had a vet appointment", refs=["pet:bruno"], importance=0.75),
            mem("d", "Ate shoes again", refs=["pet:bruno"], importance=0.7),
            mem("e", "Lives in Chennai", refs=["person:mom"], importance=0.8)]
    cards = entity_cards(["pet:bruno", "person:mom", "topic:none"], rows, shown={"a"})
    assert [c["text"] for c in cards] == [
        "[pet:bruno]: Loves belly rubs; Had a vet appointment; Ate shoes again",
        "[person:mom]: Lives in Chennai"]


def test_assemble_stage_budget_and_card_reservation():
    rows = [mem(f"m{i}", f"Memory number {i} about the weekend trip to the lake house", sim=1 - i / 50)
            for i in range(40)]
    card_rows = [mem("c1", "Golden retriever named Bruno, 3 years old", refs=["pet:bruno"], importance=0.9)]
    ranked = rank(rows + [], NOW)
    body = assemble(contact_id="arjun", state=state(8), ranked=ranked, as_of=NOW, budget=None, history=[],
                    card_rows=card_rows, entities=[], matched_refs={"pet:bruno"})
    assert body["state"]["relationshipStage"] == "building" and body["memory_budget"] == 500
    tokens = sum(-(-len(m["content"]) // 4) for m in body["memories"])
    assert tokens <= 500
    assert "[pet:bruno]: Golden retriever named Bruno, 3 years old" in body["context_text"]
    assert body["memories"][-1]["id"] == "c1" and body["memories"][-1]["score"] is None
    # the card took at most its share; the ranked memories are in score order before it
    scores = [m["score"] for m in body["memories"][:-1]]
    assert scores == sorted(scores, reverse=True) and len(scores) >= int(500 * (1 - CARD_BUDGET_SHARE)) // 16


def test_new_contact_gets_discovery_text_and_zero_budget():
    body = assemble(contact_id="x", state=None, ranked=[], as_of=NOW, budget=None, history=[])
    assert body["memory_budget"] == 0 and body["memories"] == []
    assert "discovery questions" in body["context_text"] and body["state"]["relationshipStage"] == "new"


def test_stage_templates_say_each_thing_once():
    contact = {"displayName": "Arjun", "channel": "whatsapp"}
    mems = [{"id": "f", "memoryType": "fact", "content": "Software engineer at Infosys", "importance": 0.85},
            {"id": "p", "memoryType": "preference", "content": "Likes playful banter", "importance": 0.8},
            {"id": "e", "memoryType": "episode", "content": "Passed over for promotion", "importance": 0.7,
             "createdAt": "2026-03-02T10:00:00+00:00"}]
    st = {"relationshipStage": "established", "sessionCount": 22, "activeStreak": 20, "mood": "frustrated",
          "energy": "high"}
    text = context_text(contact, st, mems, state=state(22, 20, first=NOW - timedelta(days=19)))
    assert "Established relationship with Arjun (whatsapp) (22 sessions over 20 days, active streak: 20)" in text
    assert "- Knows: Software engineer at Infosys" in text and "- Preferences: Likes playful banter" in text
    # stated on the Knows/Preferences lines, so not listed again under MEMORIES
    assert text.count("Software engineer at Infosys") == 1 and text.count("Likes playful banter") == 1
    assert "- [episode, 2026-03-02] Passed over for promotion (importance: 0.70)" in text
    st["relationshipStage"] = "building"
    assert "(importance:" not in context_text(contact, st, mems, state=state(8))


def test_the_knows_line_is_the_profile_most_telling_first_without_repeats():
    from projections.context import what_is_known

    facts = {"a": {"type": "fact", "content": "Is a software engineer", "importance": 0.7, "n": 1},
             "b": {"type": "fact", "content": "Works at Infosys as a software engineer", "importance": 0.7, "n": 2},
             "c": {"type": "habit", "content": "Often talks about the gym: leg day, deadlifts", "count": 40, "n": 3},
             "d": {"type": "preference", "content": "Loves biryani", "importance": 0.8, "n": 4},
             "e": {"type": "fact", "content": "Name is Arjun", "importance": 0.7, "n": 5}}
    from agents.core.summaries import profile_items

    known = what_is_known({"profileItems": profile_items(facts, "Arjun"), "displayName": "Arjun"}, [])
    assert [i["content"] for i in known["knows"]] == ["Works at Infosys as a software engineer"]
    assert [(i["id"], i["content"]) for i in known["habits"]] == [("c", "the gym (leg day, deadlifts)")]
    assert [i["id"] for i in known["preferences"]] == ["d"]


def test_summary_blocks_profile_last_session_for_the_persona_and_rolling():
    from projections.context import summary_blocks

    st = {"profile": "Arjun. Software engineer at Infosys. Loves biryani.", "profileSource": "llm",
          "lastSessionSummary": {"coach": {"one_liner": "Planned a 5k run", "what_mattered": ["the 5k"],
                                           "open_loops": [], "commitments": ["I'll run on Sunday"], "people": [],
                                           "tone": "excited"}},
          "session": {"personaId": "coach", "rollingSummary": "User: I bought running shoes."}}
    blocks = summary_blocks(st, "coach")
    assert blocks[0] == "PROFILE: Arjun. Software engineer at Infosys. Loves biryani."
    assert blocks[1].startswith("LAST SESSION: Planned a 5k run") and "- Commitments: I'll run on Sunday" in blocks[1]
    assert blocks[2] == "THIS SESSION SO FAR: User: I bought running shoes."
    assert summary_blocks(st, None) == ["PROFILE: Arjun. Software engineer at Infosys. Loves biryani."]
    # the extractive profile is what the Knows and Preferences lines say: not a second time as a block
    assert summary_blocks({**st, "profileSource": None}, None) == []


def test_memories_from_already_covered_messages_are_not_repeated():
    from projections.context import drop_redundant

    a, b, c = mem("a", "Loves biryani", "preference"), mem("b", "I love biryani!!", "episode"), mem("c", "x")
    b["source_event_ids"] = ["e-a"]           # the episode of the same message as the fact: nothing new
    c["source_event_ids"] = ["e-a", "e-c"]    # reinforced by another message: brings e-c
    d = mem("d", "My dog Bruno ate my shoes again this morning", "episode")
    d["source_event_ids"] = ["e-a"]           # same message, but says more than the memories before it
    kept = [r["id"] for _, r in drop_redundant([(0.9, a), (0.8, b), (0.7, c), (0.6, d)])]
    assert kept == ["a", "c", "d"]


def test_accesses_after_as_of_do_not_count():
    before = mem("a", "x", sim=0.5, created=NOW - timedelta(days=100))
    before.update(accessed_at=NOW - timedelta(days=1), access_count=20)
    later = mem("b", "y", sim=0.5, created=NOW - timedelta(days=100))
    later.update(accessed_at=NOW + timedelta(days=30), access_count=20)  # happened after as_of
    scores = {r["id"]: sc for sc, r in rank([before, later], NOW, has_query=False)}
    # a: recency from yesterday's access and full access frequency; b: as if never accessed
    assert scores["a"] == pytest.approx(0.25 * (1 - 1 / 365) + 0.2 * 0.7 + 0.1)
    # ... and its importance decayed since creation: 0.7 - 0.003/day x (100 - 7 grace days) = 0.421
    assert scores["b"] == pytest.approx(0.25 * (1 - 100 / 365) + 0.2 * 0.421)


def test_a_memory_saying_what_the_profile_lines_say_is_not_listed_again_whatever_its_id():
    from agents.core.summaries import profile_items

    # the chat-time pattern detected again under a new id: the emotional block says it, once
    facts = {"h1": {"type": "habit", "content": "Usually chats between 2pm-4pm", "count": 1, "n": 1},
             "f1": {"type": "fact", "content": "Works at Stripe", "importance": 0.7, "n": 2}}
    st_ = {**state(22, 20, first=NOW - timedelta(days=19)), "profileItems": profile_items(facts),
           "preferredHours": {"label": "Usually chats between 2pm-4pm"}}
    mems = [{"id": "p2", "memoryType": "pattern", "content": "Usually chats between 2pm-4pm", "importance": 0.7},
            {"id": "f9", "memoryType": "fact", "content": "Works at Stripe", "importance": 0.7}]
    text = context_text({"displayName": "Maya"}, {"relationshipStage": "established", "sessionCount": 22,
                                                  "activeStreak": 20, "mood": "neutral", "energy": "medium"},
                        mems, state=st_)
    assert "MEMORIES:" not in text and text.count("Works at Stripe") == 1


def test_export_history_names_each_memory_an_event_is_about_either_access_version():
    from projections.context import memory_histories

    at = datetime(2026, 5, 1, 10, tzinfo=timezone.utc)

    def row(event_id, event_type, payload):
        return {"event_id": event_id, "event_type": event_type, "occurred_at": at, "causation_id": "src",
                "payload": payload}

    h = memory_histories([
        row("e1", "MemoryExtracted", {"memory": {"id": "m1", "content": "x"}}),
        row("e2", "MemoryAccessed", {"memoryId": "m1", "at": "2026-05-01T10:00:00+00:00"}),  # v1, as stored
        row("e3", "MemoryAccessed", {"memoryIds": ["m1", "m2"], "at": "2026-05-01T10:00:00+00:00"}),  # v2
        row("e4", "SessionStarted", {"sessionId": "s"}),  # about no memory
    ])
    assert {m: [e["eventId"] for e in es] for m, es in h.items()} == {"m1": ["e1", "e2", "e3"], "m2": ["e3"]}
    assert h["m2"][0] == {"eventId": "e3", "eventType": "MemoryAccessed", "occurredAt": at.isoformat(),
                          "causationId": "src"}


def test_two_facts_of_one_message_are_both_returned():
    """"My brother Tom is a pilot in Denver": asked what Tom does, the memories carry the job, not only the
    brother (issue 23: the pilot was on the Knows line but never in `memories`)."""
    from projections.context import drop_redundant

    brother, pilot = mem("b", "Has a brother named Tom", refs=["person:tom"]), mem("p", "Brother Tom is a pilot",
                                                                                 refs=["person:tom"])
    episode = mem("e", "My brother Tom is a pilot in Denver", "episode")
    for m in (brother, pilot, episode):
        m["source_event_ids"] = ["msg-1"]
    kept = [r["id"] for _, r in drop_redundant([(0.9, brother), (0.8, pilot), (0.7, episode)])]
    assert kept == ["b", "p", "e"]  # the episode adds one word, but a place: where Tom lives
    # a message that adds no name or number to its facts is still one piece of information with them
    loves, said = mem("l", "Loves biryani", "preference"), mem("s", "I really love biryani!", "episode")
    for m in (loves, said):
        m["source_event_ids"] = ["msg-2"]
    assert [r["id"] for _, r in drop_redundant([(0.9, loves), (0.8, said)])] == ["l"]


def test_a_question_to_a_new_contact_still_returns_its_best_matches():
    rows = [mem("p", "Brother Tom is a pilot", sim=0.9), mem("b", "Has a brother named Tom", sim=0.5)]
    new = state(1)
    body = assemble(contact_id="x", state=new, ranked=rank(rows, NOW), as_of=NOW, budget=None, history=[],
                    query="what does Tom do?")
    assert body["state"]["relationshipStage"] == "new"
    assert [m["content"] for m in body["memories"]][:1] == ["Brother Tom is a pilot"]
    assert body["memory_budget"] == 200
    # without a question the stage decides: a new contact gets the discovery text, no memory list
    bare = assemble(contact_id="x", state=new, ranked=rank(rows, NOW, has_query=False), as_of=NOW, budget=None,
                    history=[])
    assert bare["memory_budget"] == 0 and bare["memories"] == []
    # an explicit budget is the caller's, question or not
    zero = assemble(contact_id="x", state=new, ranked=rank(rows, NOW), as_of=NOW, budget=0, history=[],
                    query="what does Tom do?")
    assert zero["memories"] == []


def test_a_theme_about_a_superseded_job_reads_as_past():
    from projections.context import what_is_known

    items = [{"id": "f", "type": "fact", "content": "Works at Flipkart"},
             {"id": "h", "type": "habit", "content": "Often talks about Infosys: work, sprint deadline, stressful"},
             {"id": "g", "type": "habit", "content": "Often talks about the gym: leg day"}]
    ents = [{"ref": "workplace:infosys", "entity_type": "workplace", "display_name": "Infosys"},
            {"ref": "workplace:flipkart", "entity_type": "workplace", "display_name": "Flipkart"}]
    known = what_is_known({"profileItems": items}, [], ents)
    assert [i["content"] for i in known["habits"]] == [
        "Infosys, a past job (work, sprint deadline, stressful)", "the gym (leg day)"]
    # still working there (no other job stated): the theme is current
    known = what_is_known({"profileItems": [{"id": "f", "type": "fact", "content": "Works at Infosys"}, items[1]]},
                          [], ents)
    assert [i["content"] for i in known["habits"]] == ["Infosys (work, sprint deadline, stressful)"]


def test_an_episode_said_again_reads_with_the_last_day_it_was_said():
    """Issue 23: "Called mom today, she says hi", first said in December and again every week since, read
    "[episode, 2025-12-01]" at the top of a year's MEMORIES, as if a year old. It says when it was last
    said too; as of a day before that, the day it was said again then (accesses later had not happened)."""
    first, again = NOW - timedelta(days=140), NOW - timedelta(days=3)
    called = {**mem("c", "Called mom today, she says hi", "episode", created=first), "accessed_at": again,
              "access_count": 12}
    once = mem("o", "Went swimming after work", "episode", created=NOW - timedelta(days=5))
    body = assemble(contact_id="x", state=state(30, 20, first=NOW - timedelta(days=200)),
                    ranked=rank([called, once], NOW, has_query=False), as_of=NOW, budget=500, history=[])
    text = body["context_text"]
    assert f"- [episode, {first.date()}, again {again.date()}] Called mom today, she says hi" in text
    assert f"- [episode, {(NOW - timedelta(days=5)).date()}] Went swimming after work" in text
    then = NOW - timedelta(days=10)
    earlier = assemble(contact_id="x", state=state(30, 20, first=NOW - timedelta(days=200)),
                       ranked=rank([called], then, has_query=False), as_of=then, budget=500, history=[])
    assert f"- [episode, {first.date()}] Called mom today, she says hi" in earlier["context_text"]


def test_a_memory_repeating_shown_messages_follows_those_that_bring_new_ones():
    """Issue 23 (R@10): an episode whose message a fact above already comes from, or a fact whose message
    an episode above says whole, no longer takes the place of other messages near the top: it keeps half
    its score (by hand: 0.9 x 0.5 = 0.45 sits between 0.5 and 0.4) and goes where that puts it. Two facts
    of one message are each a fact of their own ("what does Tom do?" needs the second)."""
    from projections.context import novelty_first

    brother, pilot = mem("b", "Has a brother named Tom"), mem("p", "Brother Tom is a pilot")
    ep = mem("ep", "My brother Tom is a pilot in Denver", "episode")
    for m in (brother, pilot, ep):
        m["source_event_ids"] = ["msg-1"]
    said, loves = mem("s", "I love biryani, had it twice this week", "episode"), mem("l", "Loves biryani", "preference")
    for m in (said, loves):
        m["source_event_ids"] = ["msg-2"]
    both = mem("w", "Weekend: hiking and biryani", "pattern")
    both["source_event_ids"] = ["msg-2", "msg-3"]  # msg-3 not shown yet when it comes: not a repeat
    hike = mem("h", "Went hiking on Saturday", "episode")
    hike["source_event_ids"] = ["msg-3"]  # shown by the pattern above it: a repeat
    other = mem("o", "Started a new job at Zalando")
    ranked = [(1.0, brother), (0.95, pilot), (0.9, ep), (0.85, said), (0.8, loves), (0.75, both), (0.5, other),
              (0.4, hike)]
    out = novelty_first(ranked, 0.5)
    assert [(round(s, 3), r["id"]) for s, r in out] == [
        (1.0, "b"), (0.95, "p"), (0.85, "s"), (0.75, "w"), (0.5, "o"), (0.45, "ep"), (0.4, "l"), (0.2, "h")]
    assert novelty_first(ranked, 1.0) == ranked  # the plain order kept
    # without a query (the working set for the profile) the order is the scores'
    body = assemble(contact_id="x", state=state(8), ranked=ranked, as_of=NOW, budget=10_000, history=[])
    assert [m["id"] for m in body["memories"] if m["section"] != "cards"][:3] == ["b", "p", "ep"]
    asked = assemble(contact_id="x", state=state(8), ranked=ranked, as_of=NOW, budget=10_000, history=[],
                     query="what does Tom do?")
    assert [m["id"] for m in asked["memories"] if m["section"] != "cards"][:3] == ["b", "p", "s"]


def test_an_episode_about_an_earlier_day_reads_with_the_day_it_happened():
    """"We went to the climbing gym on Friday", said on Monday 13 April 2026 (the fold dates the episode
    valid from Friday the 10th: agents/core/timeref.happened): its MEMORIES line names both days; an
    episode about the day it was said, one."""
    monday = datetime(2026, 4, 13, 9, tzinfo=timezone.utc)
    gym = {**mem("g", "We went to the climbing gym on Friday", "episode", created=monday),
           "valid_from": datetime(2026, 4, 10, tzinfo=timezone.utc)}
    today = {**mem("t", "Went swimming after work", "episode", created=monday), "valid_from": monday}
    body = assemble(contact_id="x", state=state(30, 20, first=NOW - timedelta(days=200)),
                    ranked=rank([gym, today], NOW, has_query=False), as_of=NOW, budget=500, history=[])
    text = body["context_text"]
    assert "- [episode, 2026-04-13, happened 2026-04-10] We went to the climbing gym on Friday" in text
    assert "- [episode, 2026-04-13] Went swimming after work" in text


def test_of_one_messages_facts_the_best_matching_takes_its_relevance_and_the_others_half():
    """Issue 23 (multi-hop, R@10): three preferences read from one message ("Loves serenity", "Loves
    camping trips with their fam", ...) each took the message's full relevance and three of the first ten
    places. Now the one that matches the question best takes it, the others keep REPEAT_SHARE of it or
    their own match. By hand, with no keyword match, cosines min-max normalised over 0.1 .. 0.9: the
    episode 1.0, the facts 0.5 / 0.25 / 0.375, another message 0.625; the best fact takes 1.0, the others
    max(own, 0.5 x 1.0) = 0.5, below the other message."""
    from projections.context import REPEAT_SHARE, share_with_facts

    ep = mem("ep", "We love camping, nature brings such peace", "episode", sim=0.9)
    facts = [mem("p1", "Loves camping trips", "preference", sim=0.5), mem("p2", "Loves serenity", "preference", sim=0.3),
             mem("p3", "Loves 'cause nature brings such peace", "preference", sim=0.4)]
    for m in (ep, *facts):
        m["source_event_ids"] = ["msg-1"]
    other, low = mem("x", "Went camping at the beach", "episode", sim=0.6), mem("y", "Bought new shoes", "episode", sim=0.1)
    ranked = rank([ep, *facts, other, low], NOW)
    order = [r["id"] for _, r in ranked]
    assert order.index("x") < order.index("p2") and order.index("x") < order.index("p3")
    assert {order[0], order[1]} == {"ep", "p1"}
    rel = {"ep": 1.0, "p1": 0.5, "p2": 0.25, "p3": 0.375, "x": 0.625, "y": 0.0}
    assert share_with_facts(rel, [ep, *facts, other, low]) == pytest.approx(
        {"ep": 1.0, "p1": 1.0, "p2": REPEAT_SHARE, "p3": REPEAT_SHARE, "x": 0.625, "y": 0.0})
    # "what does Tom do?": the job matches better on its own, so it takes the message's relevance, and the
    # brother keeps his own match when that is above half of it
    brother, pilot = mem("b", "Has a brother named Tom", sim=0.58), mem("p", "Brother Tom is a pilot", sim=0.67)
    said = mem("s", "My brother Tom is a pilot in Denver", "episode", sim=0.7)
    for m in (brother, pilot, said):
        m["source_event_ids"] = ["msg-2"]
    assert share_with_facts({"b": 0.58, "p": 0.67, "s": 0.7}, [brother, pilot, said]) == pytest.approx(
        {"b": 0.58, "p": 0.7, "s": 0.7})
