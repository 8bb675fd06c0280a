"""Deferred LLM extraction against a local OpenAI-compatible stub: proposals merge through the same
dedup path, and a slow, broken or absent model never loses what the rules stored."""
from __future__ import annotations

import json

import pytest

from agents.llm import LLMExtractor, parse_proposals
from agents.pipeline import InteractionPipeline, Record
from streams import db
from datetime import timedelta

from schemas.envelope import encode, parse_time
from tests.helpers import FakeEmbedder, interaction, records
from tests.llm_stub import Stub

ARGS = json.dumps({"memories": [
    {"memory": "Has a golden retriever named Bruno", "topics": ["pets"], "expiration": "permanent", "importance": "high"},
    {"memory": "Bruno is afraid of thunderstorms", "topics": ["pets"], "expiration": "permanent", "importance": "medium"},
    {"memory": "Has a vet appointment for Bruno tomorrow", "topics": ["pets"], "expiration": "3d", "importance": "low"},
    {"memory": "x", "topics": [], "expiration": "forever", "importance": "huge"}],  # invalid: dropped
    "profile_update": "Arjun, software engineer, devoted owner of Bruno the golden retriever."})


def test_parse_proposals_keeps_only_valid_items():
    p = parse_proposals(ARGS)
    assert [m["memory"] for m in p["memories"]] == ["Has a golden retriever named Bruno",
                                                   "Bruno is afraid of thunderstorms",
                                                   "Has a vet appointment for Bruno tomorrow"]
    assert p["profileUpdate"].startswith("Arjun")
    assert parse_proposals("{not json") is None and parse_proposals('{"memories": 3}') is None


@pytest.mark.asyncio
@pytest.mark.pg
async def test_proposals_merge_through_dedup_and_failures_lose_nothing(pg_url, version):
    stub = Stub()
    stub.tool_args = ARGS
    try:
        conn = await db.connect_async(pg_url, schema=db.schema_of(version))
        p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="e", version=version)
        msg = interaction("x1", "I have a golden retriever named Bruno, he hates thunder")
        out = await p.process(records([msg]))
        ex = LLMExtractor(stub.url, "k", "haiku-class", timeout_s=0.5)
        proposal = await ex.propose(out.sources[0], None)
        assert proposal is not None and proposal.causation_id == "x1"
        await p.process([Record(encode(proposal), "t", 0, 5)])
        cur = await conn.execute("SELECT content, source, source_event_ids, importance, expires_at IS NOT NULL "
                                 "FROM memories WHERE memory_type <> 'episode' OR source = 'llm' ORDER BY content")
        rows = {r[0]: r[1:] for r in await cur.fetchall()}
        # the model's duplicate of the rules' fact reinforced it (hash layer) instead of duplicating it
        assert rows["Has a golden retriever named Bruno"][0] == "rules"
        assert rows["Has a golden retriever named Bruno"][2] == pytest.approx(0.75)
        assert rows["Bruno is afraid of thunderstorms"][:2] == ("llm", ["x1"])
        assert rows["Has a vet appointment for Bruno tomorrow"][3] is True
        cur = await conn.execute("SELECT state->>'profile' FROM contacts")
        assert (await cur.fetchone())[0].startswith("Arjun, software engineer")
        # slow, garbage, down: no proposal, nothing lost
        stub.mode, stub.delay = "slow", 2.0
        assert await ex.propose(out.sources[0], None) is None
        for mode in ("garbage", "down"):
            stub.mode = mode
            assert await ex.propose(out.sources[0], None) is None
        cur = await conn.execute("SELECT count(*) FROM memories WHERE source = 'rules'")
        assert (await cur.fetchone())[0] >= 1
        await conn.close()
    finally:
        stub.close()


@pytest.mark.asyncio
async def test_llm_session_summary_replaces_the_extractive_one_and_failures_keep_it():
    from agents.core import contact as core
    from agents.llm import LLMSummarizer, parse_summary
    from schemas import events as ev

    assert parse_summary("nope") is None and parse_summary('{"one_liner": ""}') is None
    s = core.new_state("default", "arjun")
    msgs = [interaction(f"m{i}", t, minutes=i) for i, t in enumerate(
        ["Bruno has a vet appointment on Friday", "I'm nervous about the results", "I'll call the vet tomorrow"])]
    for e in msgs:
        s, _ = core.apply_interaction(s, e, core.plan_memories(e))
    closes = (parse_time(s["session"]["lastActivityAt"]) + timedelta(minutes=30)).isoformat()
    tick = ev.contact_tick(tenant_id="default", contact_id="arjun", due_at=closes, recorded_at="r")
    s, out = core.apply_tick(s, tick)
    closed = next(e for e in out if e.event_type == ev.SESSION_CLOSED)
    assert [t["content"] for t in closed.payload["turns"]][0] == "Bruno has a vet appointment on Friday"
    stub = Stub(reply=lambda prompt: json.dumps({
        "one_liner": "Worried about Bruno's vet results", "what_mattered": ["Bruno's health"],
        "open_loops": ["vet results Friday"], "commitments": ["call the vet tomorrow"], "people": [], "tone": "anxious"}))
    try:
        summ = LLMSummarizer(stub.url, "k", "haiku-class", timeout_s=0.5)
        proposal = await summ.propose(closed)
        s2, out2 = core.apply_summary(s, proposal)
        assert s2["lastSessionSummary"][""]["one_liner"] == "Worried about Bruno's vet results"
        assert out2[0].event_type == ev.SESSION_SUMMARIZED and out2[0].payload["source"] == "llm"
        for mode in ("garbage", "down"):
            stub.mode = mode
            assert await summ.propose(closed) is None  # the extractive summary stands
    finally:
        stub.close()


@pytest.mark.asyncio
async def test_a_model_may_write_a_theme_label_and_a_stale_or_bad_answer_changes_nothing():
    from agents.core import consolidation as cons
    from agents.core import contact as core
    from agents.llm import LLMSummarizer, parse_label
    from projections import hygiene
    from schemas import events as ev
    from tests.test_consolidation import at, episodes_about_bruno, state_with, tick

    assert parse_label('Label: "the dog: park walks, chewed shoes"') == "the dog: park walks, chewed shoes"
    assert parse_label("") is None and parse_label("x" * 500) is None
    s, known = state_with(episodes_about_bruno(5), periodic_due=at(11.5))
    s["entities"] = {"pet:bruno": {"displayName": "Bruno"}}
    compressed = next(e for e in cons.run_due(s, tick(at(11.5)), known) if e.event_type == ev.EPISODES_COMPRESSED)
    pid = compressed.payload["pattern"]["id"]
    stub = Stub(reply=lambda prompt: "Bruno the dog: his daily antics")
    try:
        summ = LLMSummarizer(stub.url, "k", "haiku-class", timeout_s=0.5)
        proposal = await summ.propose_label(compressed)
        assert proposal.event_type == ev.LABEL_PROPOSED and proposal.payload["count"] == 5
        ev.validate_payload(proposal)
        s2, out = core.apply_label(s, proposal)
        relabelled = next(e for e in out if e.event_type == ev.PATTERN_RELABELLED)
        assert relabelled.payload["content"].startswith("Arjun often talks about Bruno the dog: his daily antics (5 times")
        assert s2["memoryIndex"]["items"][pid]["theme"]["labelSource"] == "llm"
        assert "Often talks about Bruno the dog: his daily antics" in s2["profile"]
        assert hygiene.state_problems(s2) == []  # a model's words are not held to the episodes' words
        # an answer for a theme that has grown since is stale; a second identical answer changes nothing
        stale = ev.label_proposed(compressed=compressed, label="something else", model="m")
        stale.payload["count"] = 4
        assert core.apply_label(s2, stale)[1] == []
        assert core.apply_label(s2, proposal)[1] == []
        stub.mode = "down"
        assert await summ.propose_label(compressed) is None  # the offline label stands
    finally:
        stub.close()
