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
from typing import Iterator

from agents.core import contact as core
from schemas import events as ev

TZ = timezone(timedelta(hours=5, minutes=30))
FACTS = {0: ["I'm Arjun, I work at Infosys as a software engineer", "I live in Pune",
             "I have a golden retriever named Bruno", "My mom lives in Chennai"],
         1: ["My sister Meera lives in Delhi", "I grew up in Chennai"], 2: ["I have a younger brother named Dev"],
         3: ["I am allergic to peanuts", "My best friend is Rahul"],
         4: ["I moved to Bangalore last week"], 5: ["I am vegetarian"], 6: ["I play the guitar"],
         7: ["I just started a new job at Flipkart"], 9: ["I adopted a cat named Miso"],
         11: ["I'm 30 now, turned 30 yesterday"]}
PREFS = ["I love biryani", "I don't like spicy food", "I prefer tea over coffee", "I love playing Valorant",
         "I don't really like talking about politics", "I enjoy long walks with Bruno", "I hate waking up early",
         "My favourite team is CSK", "My favourite movie is Interstellar", "I prefer working from home",
         "I love trekking in the mountains", "I hate traffic"]
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


START = datetime(2026, 1, 1, 22, tzinfo=TZ)


def nights(days: int = 365, seed: int = 3, start: datetime = START) -> Iterator[tuple[int, datetime, list[str]]]:
    """The contact's year as a script: (day, when the night's chat starts, its messages; [] on a quiet
    night). The same seed gives the same year, whoever consumes it (the fold here, or the real pipeline)."""
    rng = random.Random(seed)
    told: set[int] = set()
    for day in range(days):
        month = day // 30
        t = start + timedelta(days=day, minutes=rng.randint(0, 60))
        if rng.random() < 0.15:
            yield day, t, []
            continue
        msgs = [] if month in told else list(FACTS.get(month, []))
        told.add(month)
        if rng.random() < 0.2:
            msgs.append(rng.choice(PREFS))
        msgs += [_fill(rng.choice(TOPICS), rng) for _ in range(rng.randint(3, 8))]
        msgs += [rng.choice(SMALL) for _ in range(rng.randint(2, 5))]
        yield day, t, msgs


def message_time(night: datetime, i: int) -> datetime:
    return night + timedelta(minutes=2 * i)


def simulate(days: int = 365, seed: int = 3, embedder=None, accesses: bool = True,  # noqa: ANN001
             final: dict | None = None) -> list[dict]:
    """`accesses`: each night the first message asks /context for the top ACCESSED memories (ranked
    with the service's multi-signal score), as the chat engine does before answering. `final`, when
    given, receives the contact's state and the tiers' `known` at the end."""
    from agents.core.memory import embedding_text
    from domain.embedder import default_embedder
    from streams.config import settings
    from agents.core.consolidation import known_entry

    emb = embedder or default_embedder(settings())
    s = core.new_state("sim", "arjun")
    known: dict[str, dict] = {}  # what the shell supplies to the consolidation tiers
    rows_held: dict[str, int] = {}  # every memory row the projection holds -> its bytes (content + vector)
    left_out: set[str] = set()
    hot: dict[str, list[float]] = {}
    rows, n = [], 0

    def apply(e, candidates):
        nonlocal s
        if candidates:
            for m, v in zip(candidates, emb.embed([embedding_text(m) for m in candidates])):
                m["embedding"], m["embeddingModel"] = [float(x) for x in v], emb.model_name
        if e.event_type == ev.CONTACT_TICK:
            s, out = core.apply_tick(s, e, known=known)
        elif e.event_type == ev.MEMORIES_ACCESSED:
            s, out = core.apply_access(s, e)
        else:
            s, out = core.apply_interaction(s, e, candidates, hot_vectors=hot, known=known)
        for d in out:
            if d.event_type == ev.MEMORY_EXTRACTED:
                m = d.payload["memory"]
                known[m["id"]] = known_entry(m)
                rows_held[m["id"]] = _row_bytes(m)
                if m.get("embedding"):
                    hot[m["id"]] = m["embedding"]
            elif d.event_type == ev.EPISODES_COMPRESSED:
                rows_held[d.payload["pattern"]["id"]] = _row_bytes(d.payload["pattern"])
            elif d.event_type in (ev.MEMORY_MERGED, ev.MEMORY_SUPERSEDED):
                left_out.add(d.payload["memoryId"])  # not in the archive: merged into another / replaced

    def catch_up(until: datetime) -> None:
        """The scheduler's ticks for work that came due while the contact was quiet."""
        while s.get("dueAt") and datetime.fromisoformat(s["dueAt"]) <= until:
            apply(ev.contact_tick(tenant_id="sim", contact_id="arjun", due_at=s["dueAt"], recorded_at=s["dueAt"]), [])

    for day, t, msgs in nights(days, seed):
        catch_up(t)
        if not msgs:  # a quiet night
            _month_row(rows, day, days, n, s, rows_held, left_out)
            continue
        if accesses:
            served = _context_top(s, known, msgs[0], emb.embed([msgs[0]])[0], t)
            if served:
                n += 1
                apply(ev.memories_accessed(event_id=f"a{n}", tenant_id="sim", contact_id="arjun", memory_ids=served,
                                           at=t.isoformat(), recorded_at=t.isoformat()), [])
        for i, text in enumerate(msgs):
            n += 1
            e = ev.interaction(event_id=f"y{n}", tenant_id="sim", contact_id="arjun",
                               occurred_at=message_time(t, i).isoformat(), recorded_at=t.isoformat(),
                               role="user", message=text)
            apply(e, core.plan_memories(e))
        _month_row(rows, day, days, n, s, rows_held, left_out)
    if final is not None:
        final.update(state=s, known=known)
    return rows


ACCESSED = 5  # the API records the first 5 memories of each answer as accessed (ACCESSED_PER_RESPONSE)


def _context_top(s: dict, known: dict, query: str, query_vec, t: datetime) -> list[str]:  # noqa: ANN001
    """The ids /context would serve first for this query (projections.retrieval's score and relevance)."""
    import numpy as np

    from domain.decay import importance_at
    from projections.retrieval import relevance, score

    from domain.entities import find_mentions

    items = s["memoryIndex"]["items"]
    ids = [m for m in items if known.get(m, {}).get("embedding") is not None]
    named = set(find_mentions(query, s.get("entities") or {})) if s.get("entities") else set()
    if not ids:
        return []
    q = np.asarray(query_vec, dtype=np.float32)
    rel = relevance([float(q @ np.asarray(known[m]["embedding"], dtype=np.float32)) for m in ids], [])
    scored = sorted(((score(similarity=r, accessed_at=datetime.fromisoformat(items[m]["accessedAt"]),
                            importance=importance_at(items[m]["importance"], items[m]["accessedAt"],
                                                     items[m]["decayRate"], t),
                            access_count=items[m]["accessCount"],
                            entity_match=1.0 if named & set(items[m]["refs"]) else 0.0, as_of=t), m)
                     for r, m in zip(rel, ids)), reverse=True)
    return [m for _, m in scored[:ACCESSED]]


def _row_bytes(m: dict) -> int:
    """What a memory row holds that grows with the archive: its text and its vector (float32)."""
    return len(m["content"].encode()) + 4 * len(m.get("embedding") or ())


def _month_row(rows: list[dict], day: int, days: int, n: int, s: dict, held: dict[str, int], left_out: set[str]) -> None:
    if (day + 1) % 30 == 0 or day == days - 1:
        items = s["memoryIndex"]["items"]
        archive = [b for mid, b in held.items() if mid not in items and mid not in left_out]
        rows.append({"month": day // 30 + 1, "messages": n, "active": len(items),
                     **Counter(it["memoryType"] for it in items.values()),
                     "archive": len(archive), "archiveKB": sum(archive) / 1024})


def main() -> None:
    rows = simulate()
    print("month  messages  active  fact  preference  episode  pattern  archive  archive KB")
    for r in rows:
        print(f"{r['month']:>5}  {r['messages']:>8}  {r['active']:>6}  {r.get('fact', 0):>4}  {r.get('preference', 0):>10}"
              f"  {r.get('episode', 0):>7}  {r.get('pattern', 0):>7}  {r['archive']:>7}  {r['archiveKB']:>10.0f}")
    year = next((r for r in rows if r["month"] == 12), rows[-1])
    print(f"per contact-year (month 12): {year['active']} active, archive {year['archive']} rows, "
          f"{year['archiveKB']:.0f} KB of text and vectors (384-d float32), searched by every query")


if __name__ == "__main__":
    main()
