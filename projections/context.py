"""Context assembly: contact state + ranked candidates -> the /context response. Pure functions.

The response shape is fixed by CONTRACT.md; memories are ranked by projections.retrieval.score and
packed best-first into the memory budget (the stage's, or the caller's `budget`).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from agents.core.stages import STAGE_BUDGETS, effective_streak, relationship_stage
from projections.retrieval import WEIGHTS, estimate_tokens, pack, relevance, score
from schemas.envelope import parse_time


def iso(v: Any) -> str | None:
    return v.isoformat() if isinstance(v, datetime) else v


def memory_json(row: dict[str, Any], score_value: float | None = None) -> dict[str, Any]:
    return {"id": row["id"], "memoryType": row["memory_type"], "content": row["content"],
            "importance": round(float(row["importance"]), 4),
            "score": None if score_value is None else round(score_value, 4),
            "entityRefs": list(row["entity_refs"] or []), "sourceEventIds": list(row["source_event_ids"] or []),
            "createdAt": iso(row["created_at"])}


def memory_detail_json(row: dict[str, Any]) -> dict[str, Any]:
    return {**memory_json(row), "scope": row["scope"], "status": row["status"], "confidence": row["confidence"],
            "source": row["source"], "pinned": row["pinned"], "memoryKey": row["memory_key"],
            "topics": list(row["topics"] or []), "validFrom": iso(row["valid_from"]), "validTo": iso(row["valid_to"]),
            "expiresAt": iso(row["expires_at"]), "supersededBy": row["superseded_by"],
            "accessCount": row["access_count"], "accessedAt": iso(row["accessed_at"]),
            "updatedAt": iso(row["updated_at"]), "personaId": row["persona_id"]}


def rank(rows: list[dict[str, Any]], as_of: datetime, scope: str = "contact",
         keyword: dict[str, float] | None = None, matched_refs: set[str] | None = None,
         has_query: bool = True) -> list[tuple[float, dict]]:
    """Score every candidate with the multi-signal formula; `similarity` is the hybrid relevance of
    projections.retrieval.relevance (cosine and BM25 together), entity_match 1 when the memory is
    linked to an entity the query names."""
    w = WEIGHTS[scope]
    rel = relevance([float(r["similarity"] or 0.0) for r in rows], [(keyword or {}).get(r["id"], 0.0) for r in rows]) \
        if has_query else [0.0] * len(rows)
    refs = matched_refs or set()
    scored = [(score(similarity=rv, accessed_at=r["accessed_at"] or r["created_at"],
                     importance=float(r["importance"]), access_count=r["access_count"],
                     entity_match=1.0 if refs and refs & set(r["entity_refs"] or ()) else 0.0,
                     as_of=as_of, weights=w), r) for rv, r in zip(rel, rows)]
    scored.sort(key=lambda x: (-x[0], x[1]["id"]))
    return scored


def contact_state_json(state: dict[str, Any] | None, as_of: datetime) -> dict[str, Any]:
    if state is None:
        return {"mood": "neutral", "moodConfidence": 0.0, "energy": "medium", "style": "casual",
                "relationshipStage": "new", "activeStreak": 0, "sessionCount": 0, "churnRisk": 0.0}
    last_seen = parse_time(state["lastSeen"]) if state.get("lastSeen") else None
    streak = effective_streak(state.get("lastActiveDay"), state.get("activeStreak", 0), as_of)
    mood = state.get("mood") or {}
    return {"mood": mood.get("mood", "neutral"), "moodConfidence": mood.get("confidence", 0.0),
            "energy": mood.get("energy", "medium"), "style": mood.get("style", "casual"),
            "relationshipStage": relationship_stage(state["sessionCount"], streak, last_seen, as_of),
            "activeStreak": streak, "sessionCount": state["sessionCount"],
            "churnRisk": state.get("churnRisk", 0.0)}


def context_text(contact: dict[str, Any], st: dict[str, Any], memories: list[dict[str, Any]]) -> str:
    name = contact.get("displayName") or "this contact"
    lines = ["CONTACT CONTEXT:"]
    if st["relationshipStage"] == "new" and not memories:
        lines += [f"- New contact ({'first session' if st['sessionCount'] <= 1 else str(st['sessionCount']) + ' sessions'})",
                  "- No memories yet", f"- Mood: {st['mood']}", "", "BEHAVIOR:",
                  "- Ask discovery questions naturally (name, interests, pets, work)",
                  "- Don't overload with questions: 1-2 per response", "- Be warm and welcoming",
                  "- Focus on building rapport"]
        return "\n".join(lines)
    channel = f" ({contact['channel']})" if contact.get("channel") else ""
    lines += [f"- {name}{channel}: {st['relationshipStage']} relationship, {st['sessionCount']} sessions, "
              f"active streak {st['activeStreak']}", f"- Mood: {st['mood']} (energy: {st['energy']})"]
    if memories:
        lines += ["", "MEMORIES:"] + [f"- [{m['memoryType']}] {m['content']} (importance: {m['importance']:.2f})"
                                      for m in memories]
    return "\n".join(lines)


def assemble(*, contact_id: str, state: dict[str, Any] | None, candidates: list[dict[str, Any]],
             as_of: datetime, budget: int | None, history: list[dict[str, Any]],
             count_tokens: Callable[[str], int] | None = None, keyword: dict[str, float] | None = None,
             matched_refs: set[str] | None = None, has_query: bool = True) -> dict[str, Any]:
    st = contact_state_json(state, as_of)
    memory_budget = STAGE_BUDGETS[st["relationshipStage"]] if budget is None else budget
    ranked = rank(candidates, as_of, keyword=keyword, matched_refs=matched_refs, has_query=has_query)
    packed, _ = pack(ranked, memory_budget, lambda x: estimate_tokens(x[1]["content"], count_tokens))
    memories = [memory_json(r, sc) for sc, r in packed]
    contact = {"contactId": contact_id, "displayName": (state or {}).get("displayName"),
               "channel": (state or {}).get("channel")}
    return {"contact": contact, "state": st, "memories": memories, "entities": [], "history": history,
            "context_text": context_text(contact, st, memories), "memory_budget": memory_budget}
