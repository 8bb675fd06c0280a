"""`rapport bench year`: a year of realistic daily chat for one contact through the real fold (rules,
dedup with the local model's embeddings, sessions closed by ticks), reporting active memories per month
by type. Seed 000 §6.3 expects ~100 active memories after a year once consolidation compresses and
prunes (issue 6); this table is how that is measured.

The contact's life, written for this simulator: facts introduced over time and sometimes changed
(moves city in month 5, new job in month 8, a second pet in month 10), preferences, recurring topics
(work, the dog, gaming, food, family), plans with lifetimes, and small talk; 6-14 messages a night
between 22:00 and 23:30 local time, most nights.
"""
from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta, timezone

from agents.core import contact as core
from schemas import events as ev

TZ = timezone(timedelta(hours=5, minutes=30))
FACTS = {0: ["I'm Arjun, I work at Infosys as a software engineer", "I live in Pune",
             "I have a golden retriever named Bruno", "My mom lives in Chennai"],
         4: ["I moved to Bangalore last week"], 7: ["I just started a new job at Flipkart"],
         9: ["I adopted a cat named Miso"], 11: ["I'm 30 now, turned 30 yesterday"]}
PREFS = ["I love biryani", "I don't like spicy food", "I prefer tea over coffee", "I love playing Valorant",
         "I don't really like talking about politics", "I enjoy long walks with Bruno", "I hate waking up early"]
TOPICS = ["Bruno chewed my {thing} again", "Work was stressful, the sprint deadline is {when}",
          "Played Valorant with friends, we {result}", "Had {food} for dinner, it was great",
          "Called mom today, she says hi", "Took Bruno to the park, he made a new friend",
          "My manager praised my {thing} today", "Watched a movie about {movie} tonight",
          "Going to a concert {when}", "Thinking about learning the guitar next month",
          "Met {person} at {place}, we talked for hours", "{person} is visiting {when}",
          "Today I {activity} with {person}", "Spent the evening at {place} and {activity}",
          "{person} recommended {food} at {place}", "I {activity} after work, feeling good"]
SMALL = ["lol", "ok", "haha", "hmm", "good night!", "yeah", "true", "thanks!"]
FILL = {"thing": ["shoes", "slippers", "charger", "presentation", "code review", "headphones", "sofa cushion",
                  "design doc", "demo", "garden hose", "notebook", "yoga mat"],
        "when": ["tomorrow", "this week", "next week", "tonight", "on Friday", "on the 15th"],
        "result": ["won", "lost badly", "ranked up", "tied", "carried the team"],
        "food": ["biryani", "dosa", "pizza", "ramen", "paneer tikka", "pho", "tacos", "idli"],
        "movie": ["space travel", "a heist", "dragons", "a chess prodigy", "time loops", "a cooking contest"],
        "person": ["Priya", "Rahul", "Sneha", "Vikram", "Ananya", "Karthik", "Meera", "Dev", "Ishaan", "Kavya"],
        "place": ["Cubbon Park", "the mall", "Indiranagar", "the lake", "a new cafe", "the gym", "the office"],
        "activity": ["went running", "baked bread", "fixed my bike", "cleaned the flat", "read a novel",
                     "tried pottery", "went swimming", "painted the balcony", "learned a new song"]}


def _fill(t: str, rng: random.Random) -> str:
    return t.format(**{k: rng.choice(v) for k, v in FILL.items() if "{" + k + "}" in t})


def simulate(days: int = 365, seed: int = 3, embedder=None) -> list[dict]:  # noqa: ANN001
    from agents.embedder import default_embedder
    from agents.core.memory import embedding_text

    emb = embedder or default_embedder()
    rng = random.Random(seed)
    s = core.new_state("sim", "arjun")
    active: dict[str, str] = {}  # memory id -> type
    hot: dict[str, list[float]] = {}
    rows, n = [], 0
    start = datetime(2026, 1, 1, 22, tzinfo=TZ)

    def apply(e, candidates):
        nonlocal s
        if candidates:
            for m, v in zip(candidates, emb.embed([embedding_text(m) for m in candidates])):
                m["embedding"], m["embeddingModel"] = [float(x) for x in v], emb.model_name
        if e.event_type == ev.CONTACT_TICK:
            s, out = core.apply_tick(s, e)
        else:
            s, out = core.apply_interaction(s, e, candidates, hot_vectors=hot)
        for d in out:
            if d.event_type == ev.MEMORY_EXTRACTED:
                m = d.payload["memory"]
                active[m["id"]] = m["memoryType"]
                if m.get("embedding"):
                    hot[m["id"]] = m["embedding"]
            elif d.event_type in (ev.MEMORY_SUPERSEDED, ev.MEMORY_ARCHIVED):
                active.pop(d.payload["memoryId"], None)

    told: set[int] = set()
    for day in range(days):
        month = day // 30
        if rng.random() < 0.15:  # a quiet night
            _month_row(rows, day, days, n, active)
            continue
        t = start + timedelta(days=day, minutes=rng.randint(0, 60))
        msgs = [] if month in told else list(FACTS.get(month, []))
        told.add(month)
        if rng.random() < 0.2:
            msgs.append(rng.choice(PREFS))
        msgs += [_fill(rng.choice(TOPICS), rng) for _ in range(rng.randint(3, 8))]
        msgs += [rng.choice(SMALL) for _ in range(rng.randint(2, 5))]
        for i, text in enumerate(msgs):
            n += 1
            e = ev.interaction(event_id=f"y{n}", tenant_id="sim", contact_id="arjun",
                               occurred_at=(t + timedelta(minutes=2 * i)).isoformat(), recorded_at=t.isoformat(),
                               role="user", message=text)
            apply(e, core.plan_memories(e))
        if s.get("dueAt"):
            apply(ev.contact_tick(tenant_id="sim", contact_id="arjun", due_at=s["dueAt"], recorded_at=t.isoformat()),
                  [])
        _month_row(rows, day, days, n, active)
    return rows


def _month_row(rows: list[dict], day: int, days: int, n: int, active: dict[str, str]) -> None:
    if (day + 1) % 30 == 0 or day == days - 1:
        rows.append({"month": day // 30 + 1, "messages": n, "active": len(active), **Counter(active.values())})


def main() -> None:
    rows = simulate()
    print("month  messages  active  fact  preference  episode  pattern")
    for r in rows:
        print(f"{r['month']:>5}  {r['messages']:>8}  {r['active']:>6}  {r.get('fact', 0):>4}  {r.get('preference', 0):>10}"
              f"  {r.get('episode', 0):>7}  {r.get('pattern', 0):>7}")


if __name__ == "__main__":
    main()
