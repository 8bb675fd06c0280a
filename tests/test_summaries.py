"""Extractive summaries and the ContactTick path of the fold (pure)."""
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from agents.core import contact as core
from agents.core import consolidation
from agents.core import summaries as sm
from schemas.envelope import parse_time
from schemas import events as ev
from tests.helpers import T0, interaction

TURNS = [{"role": "user", "content": "Hey! Long day."},
         {"role": "assistant", "content": "Oh no, what happened?"},
         {"role": "user", "content": "My manager Priya moved the release to Friday. I'll have to work all weekend."},
         {"role": "assistant", "content": "That sounds stressful. I'll remind you to take breaks."},
         {"role": "user", "content": "Can you help me plan the weekend?"},
         {"role": "user", "content": "lol ok"}]


def test_session_summary_fields():
    s = sm.session_summary(TURNS, people=["person:priya"], moods=["frustrated", "frustrated", "neutral"])
    assert "release to Friday" in s["one_liner"] or "weekend" in s["one_liner"]
    assert len(s["what_mattered"]) == 3
    assert "Can you help me plan the weekend?" in s["open_loops"]  # asked last, never answered
    assert "I'll have to work all weekend." in s["commitments"] and "I'll remind you to take breaks." in s["commitments"]
    assert s["people"] == ["person:priya"] and s["tone"] == "frustrated"
    assert sm.session_summary([{"role": "user", "content": "ok"}], [], [])["one_liner"] == "Small talk"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["user", "assistant"]), st.text(max_size=200)), max_size=25))
def test_rolling_summary_is_bounded_and_deterministic(turns):
    t = [{"role": r, "content": c} for r, c in turns]
    a = sm.rolling_summary(t)
    assert len(a) <= sm.ROLLING_MAX_CHARS and a == sm.rolling_summary(t)


def test_profile_paragraph_reads_facts_then_habits_then_preferences_within_its_size():
    items = [{"id": "p", "type": "preference", "content": "Loves biryani"},
             {"id": "h", "type": "habit", "content": "Often talks about the gym: leg day"},
             {"id": "f", "type": "fact", "content": "Works at Infosys"}]
    assert sm.profile_paragraph("Arjun", items) == \
        "Arjun. Works at Infosys. Often talks about the gym: leg day. Loves biryani."
    many = [{"id": str(i), "type": "fact", "content": "x" * 300} for i in range(5)]
    assert len(sm.profile_paragraph(None, many)) <= sm.PROFILE_MAX_CHARS


@given(st.lists(st.tuples(st.sampled_from(["fact", "habit", "preference"]),
                          st.lists(st.sampled_from("works at infosys software engineer gym dog bruno lives pune "
                                                   "loves biryani tea".split()), min_size=1, max_size=5),
                          st.floats(0, 1), st.integers(1, 200)), max_size=12))
def test_no_profile_item_says_only_what_another_says(rows):
    facts = {f"m{i}": {"type": t, "content": " ".join(ws), "importance": imp, "count": n, "n": i}
             for i, (t, ws, imp, n) in enumerate(rows)}
    items = sm.profile_items(facts, "Arjun")
    said = [sm._said(i["content"]) for i in items]
    assert all(not (a <= b) for i, a in enumerate(said) for j, b in enumerate(said) if i != j)
    # and nothing is lost that is not said elsewhere: every item left out is covered by one kept
    kept = {i["id"] for i in items}
    for mid, f in facts.items():
        if mid not in kept and sm._said(f["content"]):
            assert any(sm._said(f["content"]) <= s for s in said)


def run(events):
    s = core.new_state("default", "arjun")
    out = []
    for e in events:
        if e.event_type == ev.CONTACT_TICK:
            s, o = core.apply_tick(s, e)
        else:
            s, o = core.apply_interaction(s, e, core.plan_memories(e))
        out += o
    return s, out


def test_due_time_tick_closes_the_silent_session_with_a_summary():
    msgs = [interaction(f"m{i}", t["content"], role=t["role"], minutes=i) for i, t in enumerate(TURNS)]
    s, out = run(msgs)
    due = T0 + timedelta(minutes=5 + 30)
    # the deferred consolidation tier (5 minutes after the first memory) comes due first
    assert parse_time(s["dueAt"]) < due and s["dueAt"] == consolidation.due_at(s)
    assert [e.event_type for e in out].count(ev.ROLLING_SUMMARY_UPDATED) == 1  # after turn 4
    early = ev.contact_tick(tenant_id="default", contact_id="arjun", due_at=(due - timedelta(minutes=1)).isoformat(),
                            recorded_at=due.isoformat())
    s2, out2 = core.apply_tick(s, early)
    assert out2 == [] and s2["session"] is not None  # not yet silent for 30 minutes
    tick = ev.contact_tick(tenant_id="default", contact_id="arjun", due_at=due.isoformat(), recorded_at="x")
    s3, out3 = core.apply_tick(s2, tick)
    assert [e.event_type for e in out3] == [ev.SESSION_CLOSED, ev.SESSION_SUMMARIZED]
    assert s3["session"] is None and s3["dueAt"] == consolidation.due_at(s3)  # only the tiers left
    assert s3["lastSessionSummary"][""]["people"] == ["person:priya"]  # "My manager Priya ..."
    assert tick.event_id == ev.contact_tick(tenant_id="default", contact_id="arjun", due_at=due.isoformat(),
                                            recorded_at="later").event_id
    # the next message opens session 2 (no second close)
    s4, out4 = core.apply_interaction(s3, interaction("m9", "I'm back", minutes=120), [])
    assert [e.event_type for e in out4][:1] == [ev.SESSION_STARTED] and s4["sessionCount"] == 2


def test_open_loops_are_plans_and_unanswered_questions_never_a_past_evening():
    turns = [{"role": "user", "content": "Watched a movie with my sister tonight."},
             {"role": "user", "content": "Practised the guitar for an hour tonight."},
             {"role": "user", "content": "I practise every night."},
             {"role": "user", "content": "I'm seeing Tom on Friday."},
             {"role": "user", "content": "Going to a concert next week."},
             {"role": "assistant", "content": "Have fun!"}]
    assert sm.session_summary(turns, [], [])["open_loops"] == ["I'm seeing Tom on Friday.",
                                                              "Going to a concert next week."]
