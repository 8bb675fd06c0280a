"""`rapport bench notes`: what the model reads about three contacts, at several points of their lives,
through the real service (POST /ingest with event times, then GET /context and POST /payload), with the
hygiene verdict of each (projections/hygiene.py).

The contacts:
  - year: the year simulator's Arjun (ops/simulate_year.py), read at months 1, 6 and 12;
  - daily: someone who chats every evening for 120 days about work, the gym and cooking, read at days
    30 and 120;
  - arjun: the seed's conversation (`rapport demo`), read when it ends.
Their scripts are plain data (`scenario`), so the tests feed the same conversations through the worker's
pipeline in-process.
"""
from __future__ import annotations

import random
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator

import httpx

from ops import demo, simulate_year
from projections import hygiene

Night = tuple[int, datetime, list[str]]
WORK = ["Work was hectic, {n} meetings about {topic}", "Spent the whole day debugging the {service} service",
        "We shipped the {feature} feature today", "My manager asked me to lead the {feature} project",
        "Long standup again, then a design review for {topic}", "Pair-programmed with {person} on the {service} bug"]
GYM = ["Leg day at the gym, {n} sets of squats", "Hit a new deadlift record: {kg} kg", "Did {n} km on the treadmill",
       "Gym was packed, so I ran outside instead", "Tried a spin class with {person}", "Rest day, my legs are sore"]
COOKING = ["Meal-prepped {dish} for the week", "Cooked {dish} for dinner, turned out great",
           "Tried a new recipe: {dish}", "Made {dish} with {person}, it was fun", "Bought fresh {veg} at the market"]
FILL = {"n": [str(i) for i in range(2, 9)], "kg": ["80", "85", "90", "95", "100"],
        "topic": ["pricing", "the mobile app", "onboarding", "the billing migration", "search"],
        "service": ["payments", "auth", "search", "notifications"],
        "feature": ["dark mode", "export", "saved searches", "team invites"],
        "person": ["Priya", "Tom", "Lena", "Sam"],
        "dish": ["chicken curry", "lentil soup", "a veggie stir-fry", "lasagna", "overnight oats", "tacos"],
        "veg": ["spinach", "tomatoes", "peppers", "mushrooms"]}
DAILY_FACTS = {0: ["I'm Maya, I work as a backend engineer at Stripe", "I live in Dublin with my partner Alex"],
               10: ["I've been going to the gym most mornings since January"],
               40: ["My sister Nora just had a baby girl"], 75: ["We adopted a rescue cat called Pixel"]}


def daily_life(days: int = 120, seed: int = 7, start: datetime | None = None) -> Iterator[Night]:
    """Every evening, a few messages about work, the gym and cooking, sometimes a new fact."""
    rng = random.Random(seed)
    start = start or datetime(2026, 1, 5, 19, tzinfo=timezone.utc)
    for day in range(days):
        t = start + timedelta(days=day, minutes=rng.randint(0, 90))
        msgs = list(DAILY_FACTS.get(day, []))
        for pool in (WORK, GYM, COOKING):
            if rng.random() < 0.8:
                tpl = rng.choice(pool)
                msgs.append(tpl.format(**{k: rng.choice(v) for k, v in FILL.items() if "{" + k + "}" in tpl}))
        msgs += rng.sample(["lol", "ok", "good night!", "haha"], rng.randint(0, 2))
        yield day, t, msgs


def seed_conversation(start: datetime) -> Iterator[Night]:
    yield 0, start, [text for role, text in demo.CONVERSATION if role == "user"]


def scenario(name: str, end: datetime) -> tuple[list[Night], list[int], str | None]:
    """(nights, the days to read the contact at, display name) of a contact whose life ends at `end`."""
    def ending_at(nights: list[Night]) -> list[Night]:
        offset = end - nights[-1][1]
        return [(d, t + offset, m) for d, t, m in nights]

    if name == "year":
        return ending_at(list(simulate_year.nights(365))), [29, 179, 364], None
    if name == "daily":
        return ending_at(list(daily_life(120))), [29, 119], "Maya"
    if name == "arjun":
        return list(seed_conversation(end - timedelta(minutes=30))), [0], "Arjun"
    raise ValueError(name)


SCENARIOS = ("year", "daily", "arjun")
QUERIES = {"year": "How is Bruno doing?", "daily": "What should I cook tonight?", "arjun": "How is Bruno doing?"}


def ingest_events(contact: str, nights: list[Night], name: str | None, run: str) -> list[dict[str, Any]]:
    return [{"contact_id": contact, "role": "user", "message": text, "event_id": f"{contact}-{day}-{i}",
             "occurred_at": simulate_year.message_time(t, i).isoformat(), **({"display_name": name} if name else {})}
            for day, t, msgs in nights for i, text in enumerate(msgs)]


def read(c: httpx.Client, contact: str, query: str, after: str | None, wait_s: float = 600) -> tuple[dict, dict]:
    """/context once `after` is processed (a long history takes the worker a while), and /payload."""
    deadline = time.monotonic() + wait_s
    while True:
        ctx = c.get(f"/context/{contact}", params={"budget": 1200, **({"after": after} if after else {})})
        if ctx.status_code != 504 or time.monotonic() > deadline:
            break
    ctx.raise_for_status()
    payload = c.post("/payload", json={"contact_id": contact, "message": query})
    payload.raise_for_status()
    return ctx.json(), payload.json()


def run(url: str, headers: dict[str, str], names: tuple[str, ...] = SCENARIOS, out=sys.stdout) -> int:  # noqa: ANN001
    """Ingest each scenario up to each reading day and print what the model reads; the number of
    hygiene problems found."""
    found = 0
    end = datetime.now(timezone.utc) - timedelta(hours=1)
    run_id = uuid.uuid4().hex[:6]
    with httpx.Client(base_url=url, headers=headers, timeout=60) as c:
        for name in names:
            nights, days, display = scenario(name, end)
            contact = f"notes-{name}-{run_id}"
            sent = 0
            for day in days:
                events = ingest_events(contact, [n for n in nights if sent <= n[0] <= day], display, run_id)
                sent = day + 1
                for i in range(0, len(events), 500):
                    r = c.post("/ingest", json=events[i:i + 500])
                    r.raise_for_status()
                ctx, payload = read(c, contact, QUERIES[name], events[-1]["event_id"] if events else None)
                problems = hygiene.context_problems(ctx) + hygiene.payload_problems(payload)
                found += len(problems)
                print(f"\n===== {name}: day {day + 1} ({len(events)} messages since the last reading) =====",
                      file=out)
                print(ctx["context_text"], file=out)
                print(f"--- hygiene: {'ok' if not problems else '; '.join(problems)}", file=out)
    return found
