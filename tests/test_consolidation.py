"""The deferred and periodic consolidation tiers (agents/core/consolidation.py) and the decay closed form
(domain/decay.py), with hand-computed expectations."""
from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.core import consolidation as cons
from agents.core import contact as core
from agents.core import remember
from domain import decay
from agents.core.memory import new_memory
from schemas import events as ev
from tests.helpers import T0, interaction


def at(days: float = 0, **kw) -> str:
    return (T0 + timedelta(days=days, **kw)).isoformat()


# ------------------------------------------------------------------------------------------- decay
def test_decay_waits_seven_days_then_loses_the_daily_rate():
    assert decay.importance_at(0.5, at(0), 0.008, at(7)) == 0.5
    assert decay.importance_at(0.5, at(0), 0.008, at(17)) == pytest.approx(0.5 - 0.008 * 10)  # 0.42
    assert decay.importance_at(0.7, at(0), 0.003, at(107)) == pytest.approx(0.7 - 0.3)      # fact: 0.4
    assert decay.importance_at(0.5, at(0), 0.008, at(400)) == 0.0                            # floored at 0
    assert decay.importance_at(0.5, at(0), 0.008, at(400), pinned=True) == 0.5


def test_prune_needs_both_low_importance_and_thirty_idle_days():
    # an episode: 0.5 - 0.008 x (d - 7) < 0.1 from d = 57 on
    assert not decay.prunable(0.5, at(0), 0.008, at(56))
    assert decay.prunable(0.5, at(0), 0.008, at(57.5))
    # already low, but used 20 days ago: kept until 30 idle days
    assert not decay.prunable(0.05, at(0), 0.008, at(20))
    assert decay.prunable(0.05, at(0), 0.008, at(30))
    assert not decay.prunable(0.05, at(0), 0.008, at(300), pinned=True)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 1), st.sampled_from([0.003, 0.004, 0.005, 0.008, 0.01]), st.floats(0, 400), st.floats(0, 400))
def test_decay_never_rises_and_touch_locks_it_in(imp, rate, d1, d2):
    a, b = sorted((d1, d2))
    assert decay.importance_at(imp, at(0), rate, at(b)) <= decay.importance_at(imp, at(0), rate, at(a)) + 1e-9
    item = {"importance": imp, "accessedAt": at(0), "decayRate": rate, "pinned": False, "accessCount": 0}
    touched = remember.touch(item, at(a))
    assert touched["importance"] == pytest.approx(round(decay.importance_at(imp, at(0), rate, at(a)), 4))
    assert touched["accessedAt"] == at(a) and touched["accessCount"] == 1


def test_uses_compare_times_not_strings_across_offsets():
    # created 22:00 +05:30 (16:30Z); an access recorded in UTC at 17:00Z is later, though "17" < "22"
    item = {"importance": 0.5, "accessedAt": "2026-04-03T22:00:00+05:30", "decayRate": 0.008, "pinned": False,
            "accessCount": 0}
    assert remember.touch(item, "2026-04-03T17:00:00+00:00")["accessedAt"] == "2026-04-03T17:00:00+00:00"
    assert decay.latest("2026-04-03T16:00:00+00:00", "2026-04-03T22:00:00+05:30") == "2026-04-03T22:00:00+05:30"
    s = core.new_state("default", "arjun")
    e = interaction("m1", "I have a golden retriever named Bruno")  # 21:00 +05:30
    s, _ = core.apply_interaction(s, e, core.plan_memories(e))
    mid = next(iter(s["memoryIndex"]["items"]))
    before = s["memoryIndex"]["items"][mid]
    s, out = core.apply_access(s, ev.memories_accessed(event_id="a1", tenant_id="default", contact_id="arjun",
                                                       memory_ids=[mid], at="2026-04-03T23:00:00+05:30",
                                                       recorded_at="2026-04-03T23:00:00+05:30"))
    # being served is recorded, but is not being used: the decay clock and the count stay (issue 23)
    assert [e.event_type for e in out] == ["MemoryAccessed"]
    assert s["memoryIndex"]["items"][mid] == before and before["accessCount"] == 0


# ------------------------------------------------------------------------------------------ helpers
def unit(*xs: float) -> list[float]:
    v = np.asarray(xs + (0.0,) * (8 - len(xs)), dtype=np.float32)
    return [float(x) for x in v / np.linalg.norm(v)]


def state_with(memories: list[dict], periodic_due: str | None = None) -> tuple[dict, dict]:
    """A contact whose index holds `memories` (each with an 8-d `embedding`), and what the shell knows."""
    s = core.new_state("t", "c")
    idx = remember.empty_index()
    for m in memories:
        remember._add(idx, m)
    s["memoryIndex"] = idx
    s["consolidation"] = {"pending": [], "deferredDue": None, "periodicDue": periodic_due, "themes": {}}
    s["lastSeen"] = memories[-1]["createdAt"] if memories else at(0)
    known = {m["id"]: cons.known_entry(m) for m in memories}
    return s, known


def memory(mid: str, content: str, mtype: str = "episode", days: float = 0, vec=None, refs=(), importance=None,
           speaker=None) -> dict:
    m = new_memory(memory_id=mid, tenant_id="t", contact_id="c", memory_type=mtype, content=content,
                   created_at=at(days), source_event_ids=[f"src-{mid}"], entity_refs=list(refs),
                   importance=importance, speaker=speaker)
    if vec is not None:
        m["embedding"], m["embeddingModel"] = vec, "all-MiniLM-L6-v2"
    return m


def tick(when: str):
    return ev.contact_tick(tenant_id="t", contact_id="c", due_at=when, recorded_at=when)


# --------------------------------------------------------------------------------------- deferred
def test_deferred_merge_more_specific_wins_with_max_plus_005():
    old = memory("old", "Prefers short blog posts", "preference", days=0, vec=unit(1, 0.1), importance=0.8)
    new = memory("new", "Prefers blog posts under 800 words", "preference", days=20, vec=unit(1, 0.12),
                 importance=0.6)
    s, known = state_with([old, new])
    s["consolidation"].update(pending=["new"], deferredDue=at(20, minutes=5))
    env = tick(at(20, minutes=5))
    out = cons.run_due(s, env, known)
    merged = [e for e in out if e.event_type == ev.MEMORY_MERGED]
    assert len(merged) == 1
    p = merged[0].payload
    # the newer one names a number and one more content word: it is more specific and wins
    assert (p["memoryId"], p["into"]) == ("old", "new")
    # max(old at day 20: 0.8 - 0.005 x 13 = 0.735, new: 0.6) + 0.05
    assert p["importance"] == pytest.approx(0.785)
    assert p["sourceEventIds"] == ["src-new", "src-old"]
    assert "old" not in s["memoryIndex"]["items"] and s["consolidation"]["pending"] == []
    assert s["consolidation"]["deferredDue"] is None


def test_deferred_merge_respects_type_negation_and_threshold():
    a = memory("a", "Likes jazz", "preference", vec=unit(1, 0.1))
    b = memory("b", "Doesn't like jazz", "preference", days=1, vec=unit(1, 0.1))       # negation differs
    c = memory("c", "Likes jazz music", "fact", days=1, vec=unit(1, 0.1))              # another type
    d = memory("d", "Likes cooking", "preference", days=1, vec=unit(0.1, 1))           # far apart
    s, known = state_with([a, b, c, d])
    s["consolidation"].update(pending=["b", "c", "d"], deferredDue=at(1))
    out = cons.run_due(s, tick(at(1)), known)
    assert [e for e in out if e.event_type == ev.MEMORY_MERGED] == []


def test_deferred_embeds_memories_stored_without_a_vector():
    m = memory("m", "Has a cat named Miso", "fact")
    s, known = state_with([m])
    s["consolidation"].update(pending=["m"], deferredDue=at(0, minutes=5))
    fresh = {"m": {"embedding": unit(1), "embeddingModel": "all-MiniLM-L6-v2"}}
    out = cons.run_due(s, tick(at(0, minutes=5)), known, fresh)
    assert [e.event_type for e in out] == [ev.MEMORY_EMBEDDED]
    assert out[0].payload["memoryId"] == "m" and s["memoryIndex"]["items"]["m"]["embedded"]


def test_tiers_wait_for_complete_inputs():
    m = memory("m", "Has a cat named Miso", "fact")
    s, _ = state_with([m], periodic_due=at(1))
    assert cons.run_due(s, tick(at(2)), {}) == []  # the shell did not load `known`: still due
    assert cons.is_due(s, at(2))


# --------------------------------------------------------------------------------------- periodic
def test_periodic_decay_event_and_prune():
    ep = memory("ep", "We talked about the weather", days=0, vec=unit(0, 1))
    fact = memory("f", "Lives in Pune", "fact", days=0, vec=unit(1))
    s, known = state_with([ep, fact], periodic_due=at(60))
    out = cons.run_due(s, tick(at(60)), known)
    types = [e.event_type for e in out]
    decayed = next(e for e in out if e.event_type == ev.MEMORY_DECAYED).payload["memories"]
    # 53 idle days past the grace: episode 0.5 - 0.424 = 0.076, fact 0.7 - 0.159 = 0.541
    assert {d["memoryId"]: d["importance"] for d in decayed} == {"ep": pytest.approx(0.076), "f": pytest.approx(0.541)}
    assert ev.MEMORY_PRUNED in types and next(e for e in out if e.event_type == ev.MEMORY_PRUNED).payload["memoryId"] == "ep"
    assert set(s["memoryIndex"]["items"]) == {"f"}
    assert s["consolidation"]["periodicDue"] == at(60, hours=6)


def test_expired_memories_leave_at_the_next_periodic_run():
    m = memory("x", "Has a dentist appointment", "fact", vec=unit(1))
    m["expiresAt"] = at(1)
    s, known = state_with([m], periodic_due=at(2))
    out = cons.run_due(s, tick(at(2)), known)
    assert [(e.event_type, e.payload["memoryId"], e.payload["at"]) for e in out] == [(ev.MEMORY_EXPIRED, "x", at(1))]


def episodes_about_bruno(n: int, start: float = 0) -> list[dict]:
    return [memory(f"b{i}", f"Bruno did thing number {i}", days=start + i, vec=unit(1, 0.05 * i), refs=["pet:bruno"],
                   speaker="Arjun") for i in range(n)]


def test_five_settled_episodes_about_one_entity_become_a_pattern():
    s, known = state_with(episodes_about_bruno(5), periodic_due=at(11.5))
    s["entities"] = {"pet:bruno": {"displayName": "Bruno"}}
    out = cons.run_due(s, tick(at(11.5)), known)  # the newest episode is 7.5 days old
    comp = [e for e in out if e.event_type == ev.EPISODES_COMPRESSED]
    assert len(comp) == 1
    p = comp[0].payload
    pattern = p["pattern"]
    assert p["episodeIds"] == [f"b{i}" for i in range(5)] and p["created"]
    assert pattern["memoryType"] == "pattern" and pattern["importance"] == 0.8 and pattern["entityRefs"][0] == "pet:bruno"
    assert pattern["sourceEventIds"] == [f"src-b{i}" for i in range(5)]
    assert pattern["content"].startswith("Arjun often talks about Bruno")
    assert "(5 times, Apr 3 – Apr 7, 2026), e.g. Bruno did thing number" in pattern["content"]
    assert set(s["memoryIndex"]["items"]) == {pattern["id"]}
    assert abs(np.linalg.norm(pattern["embedding"]) - 1) < 1e-5


def test_four_episodes_or_unsettled_ones_are_not_compressed():
    s, known = state_with(episodes_about_bruno(4), periodic_due=at(30))
    assert [e for e in cons.run_due(s, tick(at(30)), known) if e.event_type == ev.EPISODES_COMPRESSED] == []
    s, known = state_with(episodes_about_bruno(5), periodic_due=at(6.5))  # the newest is 2.5 days old
    assert [e for e in cons.run_due(s, tick(at(6.5)), known) if e.event_type == ev.EPISODES_COMPRESSED] == []


def test_a_theme_that_has_a_pattern_extends_it():
    s, known = state_with(episodes_about_bruno(5), periodic_due=at(11.5))
    first = next(e for e in cons.run_due(s, tick(at(11.5)), known) if e.event_type == ev.EPISODES_COMPRESSED)
    pid = first.payload["pattern"]["id"]
    for m in episodes_about_bruno(5, start=20):  # (one would do: the theme has its pattern)
        m["id"], m["sourceEventIds"] = "n" + m["id"], ["src-n" + m["id"]]
        remember._add(s["memoryIndex"], m)
        known[m["id"]] = cons.known_entry(m)
    s["consolidation"]["periodicDue"] = at(32)
    second = next(e for e in cons.run_due(s, tick(at(32)), known) if e.event_type == ev.EPISODES_COMPRESSED)
    p = second.payload["pattern"]
    assert p["id"] == pid and not second.payload["created"]
    assert "(10 times, Apr 3 – Apr 27, 2026)" in p["content"] and len(p["sourceEventIds"]) == 10
    # importance at day 32: 0.8 - 0.004 x (32 - 11.5 - 7) = 0.746, + 0.05 for the new evidence
    assert p["importance"] == pytest.approx(0.796)


def test_one_settled_episode_joins_the_pattern_its_theme_already_has():
    s, known = state_with(episodes_about_bruno(5), periodic_due=at(11.5))
    pid = next(e for e in cons.run_due(s, tick(at(11.5)), known)
               if e.event_type == ev.EPISODES_COMPRESSED).payload["pattern"]["id"]
    m = memory("late", "Bruno found a stick", days=12, vec=unit(0, 1), refs=["pet:bruno"])
    remember._add(s["memoryIndex"], m)
    known["late"] = cons.known_entry(m)
    s["consolidation"]["periodicDue"] = at(16)
    comp = [e for e in cons.run_due(s, tick(at(16)), known) if e.event_type == ev.EPISODES_COMPRESSED]
    assert [(c.payload["pattern"]["id"], c.payload["episodeIds"]) for c in comp] == [(pid, ["late"])]


def test_episodes_without_a_shared_entity_group_by_theme_similarity():
    close = [memory(f"w{i}", f"Work was stressful, deadline {i}", days=i * 0.1, vec=unit(1, 0.1 + 0.01 * i))
             for i in range(6)]
    far = [memory(f"x{i}", f"Random thing {i}", days=i * 0.1, vec=unit(*([0] * (i % 6) + [1]))) for i in range(1, 5)]
    s, known = state_with(close + far, periodic_due=at(10))
    comp = [e for e in cons.run_due(s, tick(at(10)), known) if e.event_type == ev.EPISODES_COMPRESSED]
    assert len(comp) == 1 and sorted(comp[0].payload["episodeIds"]) == [f"w{i}" for i in range(6)]
    label = s["memoryIndex"]["items"][comp[0].payload["pattern"]["id"]]["theme"]["label"]
    assert set(label.lower().replace(":", "").replace(",", "").split()) == {"work", "stressful", "deadline"}


def test_a_star_of_loosely_related_episodes_is_no_theme():
    """Six episodes each 55 degrees from a seventh (cosine 0.57, within 0.55 of it) but about different
    things (neighbours on the cone 0.66 apart, the rest below 0): the hub's neighbourhood is no theme,
    because its members are not within the threshold of one another; a theme needs five that are."""
    import math
    a = math.radians(55)
    hub = memory("h", "Chatting about the week", days=0, vec=unit(0, 0, 1))
    spokes = [memory(f"s{k}", f"Something else {k}", days=0.1 * k,
                     vec=unit(math.sin(a) * math.cos(math.radians(60 * k)), math.sin(a) * math.sin(math.radians(60 * k)),
                              math.cos(a))) for k in range(6)]
    s, known = state_with([hub] + spokes, periodic_due=at(10))
    assert [e for e in cons.run_due(s, tick(at(10)), known) if e.event_type == ev.EPISODES_COMPRESSED] == []


def test_a_theme_takes_in_only_episodes_nearly_as_close_to_it_as_its_own():
    close = [memory(f"w{i}", f"Work was stressful, deadline {i}", days=i * 0.1, vec=unit(1, 0.1 + 0.01 * i))
             for i in range(6)]
    s, known = state_with(close, periodic_due=at(10))
    first = next(e for e in cons.run_due(s, tick(at(10)), known) if e.event_type == ev.EPISODES_COMPRESSED)
    pid = first.payload["pattern"]["id"]
    assert s["memoryIndex"]["items"][pid]["theme"]["joinAt"] > 0.99  # its episodes are all ~0.999 to it
    # 0.65 to the theme: within the bare 0.55, but not halfway from it to how close its own episodes are
    loose = memory("loose", "A different kind of day", days=11, vec=unit(1, 1.5))
    tight = memory("tight", "Work stress again, deadline 7", days=11, vec=unit(1, 0.12))
    for m in (loose, tight):
        remember._add(s["memoryIndex"], m)
        known[m["id"]] = cons.known_entry(m)
    s["consolidation"]["periodicDue"] = at(16)
    joined = [e.payload["episodeIds"] for e in cons.run_due(s, tick(at(16)), known)
              if e.event_type == ev.EPISODES_COMPRESSED and e.payload["pattern"]["id"] == pid]
    assert joined == [["tight"]]


def test_the_cap_archives_the_least_important():
    ms = [memory(f"m{i:03}", f"fact {i}", "fact", vec=unit(1), importance=0.3 + i / 1000) for i in range(cons.ACTIVE_CAP + 3)]
    s, known = state_with(ms, periodic_due=at(1))
    out = cons.run_due(s, tick(at(1)), known)
    assert [e.payload["memoryId"] for e in out if e.event_type == ev.MEMORY_ARCHIVED] == ["m000", "m001", "m002"]


def test_churn_is_recomputed_from_silence_and_declines():
    m = memory("f", "Lives in Pune", "fact", vec=unit(1))
    s, known = state_with([m], periodic_due=at(20))
    s["lastSeen"] = at(0)
    out = cons.run_due(s, tick(at(20)), known)
    assert [e.payload["churnRisk"] for e in out if e.event_type == ev.CHURN_RISK_CHANGED] == [0.4]  # fading
    s["churnDecline"], s["engagement"] = 0.2, {"declined": True}
    s["consolidation"]["periodicDue"] = at(50)
    out = cons.run_due(s, tick(at(50)), known)
    assert [e.payload["churnRisk"] for e in out if e.event_type == ev.CHURN_RISK_CHANGED] == [0.8]  # dormant + decline


# ------------------------------------------------------------------------------- the fold's clock
def test_tiers_run_when_the_contacts_event_time_reaches_them():
    s = core.new_state("default", "arjun")
    e1 = interaction("m1", "I have a golden retriever named Bruno", minutes=0)
    s, _ = core.apply_interaction(s, e1, core.plan_memories(e1))
    c = s["consolidation"]
    assert c["deferredDue"] == at(0, minutes=5) and c["periodicDue"] == at(0, hours=6)
    assert s["dueAt"] == c["deferredDue"]
    assert s["clockSkewS"] == 0
    # a message 10 minutes later runs the deferred tier first (the shell supplies what it knows)
    known = {}
    for mid in s["memoryIndex"]["items"]:
        known[mid] = {"embedding": None, "embeddingModel": None, "content": "x", "sourceEventIds": ["m1"]}
    e2 = interaction("m2", "He is three", minutes=10)
    assert cons.needs_known(s, [e2.occurred_at])
    s2, _ = core.apply_interaction(s, e2, core.plan_memories(e2), known=known)
    assert s2["consolidation"]["lastRunAt"] == e2.occurred_at
    # ... and the second message's own memories wait for the next deferred run
    assert s2["consolidation"]["deferredDue"] == at(0, minutes=15) and s2["consolidation"]["pending"]


def test_needs_known_when_a_batch_spans_a_tier():
    s = core.new_state("default", "arjun")
    assert not cons.needs_known(s, [at(0)])
    s["consolidation"] = cons.new_consolidation(at(0))
    assert not cons.needs_known(s, [at(0), at(0, minutes=4)])
    assert cons.needs_known(s, [at(0), at(0, minutes=5)])  # a tier may come due in between
    assert cons.needs_known(s, [at(0, hours=7)])            # the periodic tier is due


def test_what_is_served_does_not_lock_itself_at_the_top_what_is_talked_about_rises():
    """Issue 23: a memory served by /context every night stayed first forever (each serving counted as a
    use: recency, access frequency and a restarted decay clock). Served 30 nights, it now ranks by what
    the contact said; the one the contact talks about again comes first."""
    from datetime import datetime

    from projections.context import rank

    s = core.new_state("default", "arjun")
    for i, text in enumerate(["Called mom today, she says hi", "Took Bruno to the park, he made a new friend"]):
        e = interaction(f"m{i}", text, minutes=i)
        s, _ = core.apply_interaction(s, e, core.plan_memories(e))
    items = s["memoryIndex"]["items"]
    mom = min((m for m in items if items[m]["memoryType"] == "episode"), key=lambda m: items[m]["createdAt"])
    for day in range(1, 31):
        at = (T0 + timedelta(days=day)).isoformat()
        s, _ = core.apply_access(s, ev.memories_accessed(event_id=f"a{day}", tenant_id="default", contact_id="arjun",
                                                         memory_ids=[mom], at=at, recorded_at=at))
    e = interaction("m9", "Took Bruno to the park, he made a new friend", minutes=31 * 24 * 60)
    s, _ = core.apply_interaction(s, e, core.plan_memories(e))
    items = s["memoryIndex"]["items"]

    def row(mid):
        it = items[mid]
        return {"id": mid, "memory_type": it["memoryType"], "content": mid, "importance": it["importance"],
                "decay_rate": it["decayRate"], "status": "active", "pinned": it["pinned"], "entity_refs": it["refs"],
                "source_event_ids": [], "created_at": datetime.fromisoformat(it["createdAt"]),
                "accessed_at": datetime.fromisoformat(it["accessedAt"]), "access_count": it["accessCount"],
                "expires_at": None, "similarity": 0.0}

    episodes = [m for m in items if items[m]["memoryType"] == "episode"]
    assert len(episodes) == 2 and items[mom]["accessCount"] == 0
    top = rank([row(m) for m in episodes], T0 + timedelta(days=31, hours=1), has_query=False)
    assert top[0][1]["id"] != mom
