"""Integrating candidate memories into a contact's memory: new, reinforced or superseding.

The contact state carries an index of its memories (agents/core/dedup.py says how it is used):
memoryKey -> id for current structured facts, content hash -> id for recent memories, the hot set of
the last HOT_SET_SIZE memories (whose vectors the shell supplies), and for every active memory what
dedup and consolidation need (type, key, hash, signature, importance and its decay anchor, expiry).
`items` holds every active memory: the consolidation tiers (agents/core/consolidation.py) keep that
bounded. Every outcome is an event: MemoryExtracted, MemoryReinforced, MemorySuperseded, MemoryArchived.
"""
from __future__ import annotations

from typing import Any

from agents.core import dedup
from domain.decay import importance_at, latest
from schemas import events as ev
from schemas.envelope import Envelope

HASH_INDEX_SIZE = 100  # exact repeats among the last 100 memories; keyed facts are indexed without limit
SOURCE_INDEX_SIZE = 200  # which memories the last 200 messages produced (for outcomes of decisions)
OUTCOME_BOOST = 0.1      # seed 002: importance += 0.1 when a decision's outcome was positive
EXPIRING_CAP = 50  # seed 003: at most 50 expiring memories per contact


def empty_index() -> dict[str, Any]:
    return {"keys": {}, "hashes": {}, "items": {}, "recent": [], "expiring": []}


def index_item(m: dict[str, Any]) -> dict[str, Any]:
    return {"memoryType": m["memoryType"], "memoryKey": m.get("memoryKey"), "contentHash": m["contentHash"],
            "sig": dedup.signature(m["content"]), "importance": m["importance"], "accessCount": m["accessCount"],
            "pinned": m["pinned"], "expiresAt": m.get("expiresAt"), "createdAt": m["createdAt"],
            "refs": sorted(m.get("entityRefs") or []), "accessedAt": m["accessedAt"], "decayRate": m["decayRate"],
            "embedded": m.get("embedding") is not None}


def touch(item: dict[str, Any], at: str, boost: float = 0.0, count: int = 1) -> dict[str, Any]:
    """The memory was used (reinforced, merged, a decision's good outcome) at `at`: the decay so far is locked in, the
    decay clock restarts, and `boost` is added (capped at 1)."""
    now = importance_at(item["importance"], item["accessedAt"], item["decayRate"], at, item["pinned"])
    return {**item, "importance": round(min(1.0, now + boost), 4), "accessedAt": latest(at, item["accessedAt"]),
            "accessCount": item["accessCount"] + count}


def _add(idx: dict[str, Any], m: dict[str, Any]) -> None:
    mid = m["id"]
    by_source = idx.setdefault("bySource", {})
    for src in m["sourceEventIds"][:1]:
        by_source[src] = by_source.get(src, []) + [mid]
        while len(by_source) > SOURCE_INDEX_SIZE:
            by_source.pop(next(iter(by_source)))
    idx["items"][mid] = index_item(m)
    if m.get("memoryKey"):
        idx["keys"][m["memoryKey"]] = mid
    idx["hashes"][m["contentHash"]] = mid
    if len(idx["hashes"]) > HASH_INDEX_SIZE:  # oldest first (dicts keep insertion order)
        idx["hashes"].pop(next(iter(idx["hashes"])))
    idx["recent"].append(mid)
    if len(idx["recent"]) > dedup.HOT_SET_SIZE:
        idx["recent"].pop(0)
    if m.get("expiresAt"):
        idx["expiring"].append(mid)


def drop(idx: dict[str, Any], mid: str) -> None:
    """A memory that is no longer current: out of every lookup."""
    item = idx["items"].get(mid, {})
    if item.get("memoryKey") and idx["keys"].get(item["memoryKey"]) == mid:
        del idx["keys"][item["memoryKey"]]
    if idx["hashes"].get(item.get("contentHash")) == mid:
        del idx["hashes"][item["contentHash"]]
    idx["recent"] = [x for x in idx["recent"] if x != mid]
    idx["expiring"] = [x for x in idx["expiring"] if x != mid]
    idx["items"].pop(mid, None)


def _over_cap(idx: dict[str, Any], now: str) -> list[str]:
    """Expiring memories beyond the cap, in the seed's deletion order: lowest importance first, then
    oldest; pinned never. Memories already past their expiry are dropped from the count first."""
    live = [m for m in idx["expiring"] if (idx["items"][m]["expiresAt"] or "") > now]
    excess = len(live) - EXPIRING_CAP
    if excess <= 0:
        return []
    order = sorted((m for m in live if not idx["items"][m]["pinned"]),
                   key=lambda m: (idx["items"][m]["importance"], idx["items"][m]["createdAt"], m))
    return order[:excess]


def boost_outcome(index: dict[str, Any], env: Envelope, decision_event_id: str) -> tuple[dict[str, Any], list[Envelope]]:
    """A decision turned out well: the memories it produced gain importance (seed 002 §4.3)."""
    idx = {**index, "items": dict(index["items"])}
    out = []
    for mid in (index.get("bySource") or {}).get(decision_event_id, []):
        item = idx["items"].get(mid)
        if item is None:
            continue
        item = touch(item, env.occurred_at, OUTCOME_BOOST, count=0)
        idx["items"][mid] = item
        out.append(ev.derived(env, ev.MEMORY_REINFORCED, f"outcome:{mid}", {
            "memoryId": mid, "importance": item["importance"], "sourceEventId": env.event_id, "layer": "outcome",
            "similarity": None, "at": env.occurred_at}))
    return idx, out


def remember(index: dict[str, Any], env: Envelope, candidates: list[dict[str, Any]],
             hot_vectors: dict[str, Any]) -> tuple[dict[str, Any], list[Envelope], list[dict[str, Any]]]:
    """-> (new index, events, memories created). `index` is not mutated."""
    idx = {"keys": dict(index["keys"]), "hashes": dict(index["hashes"]), "items": dict(index["items"]),
           "recent": list(index["recent"]), "expiring": list(index.get("expiring", [])),
           "bySource": dict(index.get("bySource", {}))}
    out: list[Envelope] = []
    created: list[dict[str, Any]] = []
    for m in candidates:
        # a replacement retires the slot's other values, never what this same message just said
        retired = [mid for mid in dedup.replaced(m, idx) if mid not in {c["id"] for c in created}]
        replaces = m.get("replaces")
        m = {k: v for k, v in m.items() if k != "replaces"}
        d = dedup.decide(m, idx, m.get("embedding"), hot_vectors, m.get("embeddingModel"))
        by = d.target if d.kind == "reinforce" else m["id"]
        for mid in retired:
            if mid == d.target:
                continue
            if d.kind != "reinforce":  # the new value keeps the weight the old one had earned
                m = {**m, "importance": max(m["importance"], idx["items"][mid]["importance"])}
            out.append(ev.derived(env, ev.MEMORY_SUPERSEDED, f"supersede:{mid}:{m['id']}", {
                "memoryId": mid, "supersededBy": by, "validTo": env.occurred_at}))
            drop(idx, mid)
        if d.kind == "reinforce":
            item = touch(idx["items"][d.target], env.occurred_at, dedup.REINFORCE_BOOST)
            idx["items"][d.target] = item
            out.append(ev.derived(env, ev.MEMORY_REINFORCED, f"reinforce:{m['id']}", {
                "memoryId": d.target, "importance": item["importance"], "sourceEventId": env.event_id,
                "layer": d.layer, "similarity": d.similarity, "at": env.occurred_at}))
            continue
        if d.kind == "supersede":
            old = idx["items"][d.target]
            # a corrected fact keeps the weight the old one had earned
            m = {**m, "importance": max(m["importance"], old["importance"])}
            out.append(ev.derived(env, ev.MEMORY_SUPERSEDED, f"supersede:{d.target}:{m['id']}", {
                "memoryId": d.target, "supersededBy": m["id"], "validTo": env.occurred_at}))
            drop(idx, d.target)
        # the event says what the memory replaces, for what holds values beyond the working set (the
        # profile); the memory itself does not keep it
        out.append(ev.derived(env, ev.MEMORY_EXTRACTED, f"memory:{m['id']}",
                              {"memory": m, **({"replaces": replaces} if replaces else {})}))
        created.append(m)
        _add(idx, m)
    for mid in _over_cap(idx, env.occurred_at):
        out.append(ev.derived(env, ev.MEMORY_ARCHIVED, f"archive:{mid}", {"memoryId": mid, "reason": "cap"}))
        drop(idx, mid)
    return idx, out, created
