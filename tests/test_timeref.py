"""Relative times resolved at ingest (agents/core/timeref.py): dates counted by hand from a calendar."""
from datetime import datetime, timedelta, timezone

import pytest

from agents.core import contact as core
from agents.core.timeref import until

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
