"""Relative times resolved at ingest (agents/core/timeref.py): dates counted by hand from a calendar."""
from datetime import datetime, timedelta, timezone

import pytest

from agents.core import contact as core
from agents.core.timeref import looks_ahead, tense, until

IST = timezone(timedelta(hours=5, minutes=30))
TUE = datetime(2025, 12, 2, 19, 30, tzinfo=IST)  # Tuesday 2 December 2025, 7:30 pm in Bengaluru


@pytest.mark.parametrize("text,end", [
    ("Going to a concert next week", "2025-12-15"),                     # Mon 8 - Sun 14 December
    ("I have a dentist appointment on Friday", "2025-12-06"),           # Friday the 5th
    ("going out with friends tonight", "2025-12-03"),
    ("tomorrow is my interview", "2025-12-04"),
    ("this weekend we are hiking", "2025-12-08"),                       # Sat 6 - Sun 7
    ("I will visit her in 3 weeks", "2025-12-24"),
    ("next year I want to travel", "2027-01-01"),
    ("Going to a concert this week", "2025-12-08"),
    ("Karthik is visiting on the 15th", "2025-12-16"),
    ("Karthik is visiting on the 1st", "2026-01-02"),                   # the 1st of December has passed
    ("Work was stressful, the sprint deadline is next week", "2025-12-15"),  # "was": another clause
    ("Karthik is visiting on Friday", "2025-12-06"),
])
def test_a_time_ahead_resolves_to_the_end_of_that_time(text, end):
    got = until(text, TUE)
    assert got is not None and got.isoformat() == f"{end}T00:00:00+05:30"


@pytest.mark.parametrize("text", ["We went there on Friday", "I went to a concert last week", "Happy birthday!",
                                  "see you Monday", "I was sick last month",
                                  "I went to see Karthik on the 15th", "It was fun on Friday, but tiring"])
def test_the_past_and_plain_text_never_expire(text):
    assert until(text, TUE) is None


def test_next_month_in_december_is_january_of_the_next_year():
    # month arithmetic crosses the year: the end of January 2026 is 1 February
    assert until("Thinking about learning the guitar next month", TUE).date().isoformat() == "2026-02-01"


def test_the_episode_of_a_plan_expires_when_its_time_has_passed():
    from schemas import events as ev

    e = ev.interaction(event_id="g1", tenant_id="default", contact_id="arjun", role="user",
                       message="Thinking about learning the guitar next month", occurred_at=TUE.isoformat(), recorded_at=TUE.isoformat())
    (episode,) = [m for m in core.plan_memories(e) if m["memoryType"] == "episode"]
    assert episode["expiresAt"] == "2026-02-01T00:00:00+05:30"
    e2 = ev.interaction(event_id="g2", tenant_id="default", contact_id="arjun", role="user",
                        message="I learned a new song on the guitar", occurred_at=TUE.isoformat(), recorded_at=TUE.isoformat())
    assert [m["expiresAt"] for m in core.plan_memories(e2) if m["memoryType"] == "episode"] == [None]


# the tense of the clause decides, not the time word: the same "tonight", "this evening", "over the
# weekend", "on Friday" is a plan in a clause that looks ahead and a dated past event in one that reports
# (LoCoMo and the year simulator: "Watched a movie with my sister tonight" was an open loop that expired)
@pytest.mark.parametrize("text,end", [
    ("I'm seeing Tom on Friday", "2025-12-06"),                         # present progressive, Friday the 5th
    ("I'm going to practise the guitar tonight", "2025-12-03"),
    ("Will watch a movie with my sister tonight", "2025-12-03"),
    ("I booked tickets for tonight", "2025-12-03"),                     # a past verb about a time ahead
    ("I bought tickets for next week", "2025-12-15"),                   # "next week" can only lie ahead
    ("I've got a date tonight", "2025-12-03"),                          # "'ve got a": having, not a past
    ("I won't be home tonight", "2025-12-03"),                          # "won't" is no past "won"
    ("Excited for tonight!", "2025-12-03"),                             # a feeling, not a past verb
    ("I finished work and I'm going out tonight", "2025-12-03"),        # the verb nearest the time decides
    ("Planning to go hiking over the weekend", "2025-12-08"),
])
def test_a_clause_that_looks_ahead_is_a_plan_until_its_time(text, end):
    got = until(text, TUE)
    assert got is not None and got.isoformat() == f"{end}T00:00:00+05:30"
    assert looks_ahead(text)


PAST_ON_A_RELATIVE_DAY = ["Practised the guitar for an hour tonight", "Watched a movie with my sister tonight",
                          "Tonight I finally finished the book", "We had dinner at Nonna's this evening",
                          "Went hiking over the weekend", "We haven't talked in a few days",
                          "I met Karthik on the 15th", "Just got back from the gym this afternoon",
                          "My sister and I cooked dinner together tonight", "Rome wasn't built in a day"]
HABITS = ["I practise every night", "I go running every Friday", "I usually call my mum on Sunday",
          "I'm going to the gym every Friday"]


@pytest.mark.parametrize("text", PAST_ON_A_RELATIVE_DAY + HABITS)
def test_a_past_event_or_a_habit_on_a_relative_day_never_expires(text):
    assert until(text, TUE) is None and not looks_ahead(text)


def test_the_tense_of_a_clause_is_its_verb_nearest_the_time():
    text = "I went to the gym and I'm going to cook tonight"
    assert tense(text, text.index("tonight")) == "ahead" and tense(text, text.index("cook")) == "ahead"
    assert tense(text, text.index("to the gym")) == "past"                  # "went", before it
    assert tense("Tonight I watched a movie", 0) == "past"                 # nothing before: the first after
    assert tense("I usually go out", 10) == "habit" and tense("Concert tonight!", 8) is None


def test_the_fold_keeps_a_past_evening_as_an_episode_and_lets_only_the_plan_expire():
    """Through the fold (agents/core/contact.py): three messages on Friday 3 April 2026, 9 pm IST; the
    episodes' expiry, the working set two days on (domain/decay.py), and the closed session's open loops."""
    from domain.decay import in_working_set
    from schemas import events as ev
    from schemas.envelope import parse_time
    from tests.helpers import T0, interaction

    said = {"past": "Watched a movie with my sister tonight", "plan": "I'm going to the gym tomorrow",
            "habit": "I practise the guitar every night"}
    s, out = core.new_state("default", "arjun"), []
    for i, text in enumerate(said.values()):
        e = interaction(f"pt{i}", text, minutes=i)
        s, o = core.apply_interaction(s, e, core.plan_memories(e))
        out += o
    episodes = {e.payload["memory"]["content"]: e.payload["memory"] for e in out
                if e.event_type == ev.MEMORY_EXTRACTED and e.payload["memory"]["memoryType"] == "episode"}
    assert {k: episodes[v]["expiresAt"] for k, v in said.items()} == \
        {"past": None, "plan": "2026-04-05T00:00:00+05:30", "habit": None}   # tomorrow is Saturday the 4th

    def shown(m, at):
        return in_working_set(status=m["status"], retired_at=None, importance=m["importance"], rate=m["decayRate"],
                              expires_at=parse_time(m["expiresAt"]) if m["expiresAt"] else None, accessed_at=None,
                              created_at=parse_time(m["createdAt"]), pinned=m["pinned"], at=at)
    later = T0 + timedelta(days=2)
    assert {k: shown(episodes[v], later) for k, v in said.items()} == {"past": True, "plan": False, "habit": True}
    assert shown(episodes[said["plan"]], T0 + timedelta(hours=2))             # still ahead at 11 pm

    tick = ev.contact_tick(tenant_id="default", contact_id="arjun", due_at=(T0 + timedelta(hours=1)).isoformat(),
                           recorded_at="x")
    s, closed = core.apply_tick(s, tick)
    (summary,) = [e.payload["summary"] for e in closed if e.event_type == ev.SESSION_SUMMARIZED]
    assert summary["open_loops"] == [said["plan"]]


@pytest.mark.parametrize("text,end", [
    ("We'll have the most fun tonight", "2025-12-03"),                  # "most" is no habit
    ("I finished the slides, will send them later today", "2025-12-03"),
])
def test_more_plans_on_a_day_that_may_be_past(text, end):
    assert until(text, TUE).isoformat() == f"{end}T00:00:00+05:30"


def test_what_one_used_to_do_on_a_day_is_a_habit_of_the_past():  # "used" is no past verb, "used to" a habit
    assert until("I used to go swimming on Friday", TUE) is None


# the day a past event happened, counted by hand: Monday 8 December 2025, 10 am IST
MON = datetime(2025, 12, 8, 10, 0, tzinfo=IST)


@pytest.mark.parametrize("text,day", [
    ("We went there on Friday", "2025-12-05"),                   # said on Monday: the Friday before
    ("we went there on Monday", "2025-12-01"),                   # the same weekday: a week before, not today
    ("I met her last Monday", "2025-12-01"),
    ("Last Friday I went to the park", "2025-12-05"),
    ("I saw Tom yesterday", "2025-12-07"),
    ("Had a long chat with mom last night", "2025-12-07"),
    ("We finished it the day before yesterday", "2025-12-06"),
    ("I painted that three days ago", "2025-12-05"),
    ("I finished the course a week ago", "2025-12-01"),
    ("We went hiking over the weekend", "2025-12-06"),           # its Saturday
    ("I went camping last weekend", "2025-12-06"),
    ("We had a great time on Saturday, and I'm going again next Saturday", "2025-12-06"),  # the first time
])
def test_a_past_event_is_dated_to_the_day_it_happened(text, day):
    from agents.core.timeref import happened

    assert happened(text, MON).isoformat() == f"{day}T00:00:00+05:30"


@pytest.mark.parametrize("text", [
    "I'm seeing Tom on Friday", "I will visit her on Friday", "I go running every Friday", "see you Monday",
    "I used to go there on Sundays", "I went to a concert last week", "Watched a movie tonight", "Happy birthday!",
    "Going hiking next weekend"])
def test_plans_habits_and_today_name_no_earlier_day(text):
    from agents.core.timeref import happened

    assert happened(text, MON) is None


def test_a_weekday_ahead_is_the_next_one_and_behind_the_one_before():
    from agents.core.timeref import happened

    assert until("I'm seeing Tom on Friday", MON).isoformat() == "2025-12-13T00:00:00+05:30"  # Friday the 12th
    assert happened("I saw Tom on Friday", MON).date().isoformat() == "2025-12-05"


def test_the_episode_of_a_past_weekday_is_valid_from_that_day_and_says_both_days():
    """Through plan_memories and the MEMORIES line: said on Monday 8 December, about Friday the 5th."""
    from projections.context import memory_line
    from schemas import events as ev

    e = ev.interaction(event_id="w1", tenant_id="default", contact_id="arjun", role="user",
                       message="We went to the new climbing gym on Friday", occurred_at=MON.isoformat(),
                       recorded_at=MON.isoformat())
    (episode,) = [m for m in core.plan_memories(e) if m["memoryType"] == "episode"]
    assert episode["validFrom"] == "2025-12-05T00:00:00+05:30" and episode["createdAt"] == MON.isoformat()
    assert episode["expiresAt"] is None
    m = {"memoryType": "episode", "content": episode["content"], "createdAt": episode["createdAt"], "importance": 0.5}
    assert memory_line(m, False, happened=episode["validFrom"]) == \
        "- [episode, 2025-12-08, happened 2025-12-05] We went to the new climbing gym on Friday"
    assert memory_line(m, False) == "- [episode, 2025-12-08] We went to the new climbing gym on Friday"
    e2 = ev.interaction(event_id="w2", tenant_id="default", contact_id="arjun", role="user",
                        message="We're going to the climbing gym on Friday", occurred_at=MON.isoformat(),
                        recorded_at=MON.isoformat())
    (plan,) = [m for m in core.plan_memories(e2) if m["memoryType"] == "episode"]
    assert plan["validFrom"] == MON.isoformat() and plan["expiresAt"] == "2025-12-13T00:00:00+05:30"
