"""Context assembly: contact state + ranked candidates -> the /context response. Pure functions.

The response shape is fixed by CONTRACT.md; memories are ranked by projections.retrieval.score and
packed best-first into the memory budget (the stage's, or the caller's `budget`).
"""
from __future__ import annotations

import heapq
import re
from datetime import datetime
from functools import lru_cache
from typing import Any, Callable

from domain.decay import importance_at, in_working_set
from domain.stages import STAGE_BUDGETS, effective_streak, relationship_stage
from projections.retrieval import (QUERY_WEIGHTS, WEIGHTS, estimate_tokens, pack, relevance, score,
                                   speaker_weighted, spread_to_neighbours)
from schemas.envelope import parse_time
from agents.core import summaries
from agents.core.memory import normalize_text
from projections import fence  # user text in prompts (kept apart from the ranking imports)
from domain.text import STOP, WORD, words


def iso(v: Any) -> str | None:
    return v.isoformat() if isinstance(v, datetime) else v


def as_of_then(r: dict[str, Any], as_of: datetime) -> tuple[datetime, int]:
    """Access statistics as they were at `as_of`: accesses after it had not happened yet (only the
    latest access time is kept, so a memory last accessed later counts as not accessed then)."""
    accessed = r["accessed_at"] or r["created_at"]
    if accessed > as_of:
        return r["created_at"], 0
    return accessed, r["access_count"]


def importance_then(r: dict[str, Any], as_of: datetime) -> float:
    """The memory's importance at `as_of`, decayed since its last use then (domain/decay.py)."""
    return importance_at(float(r["importance"]), as_of_then(r, as_of)[0], float(r["decay_rate"]), as_of,
                         bool(r["pinned"]))


def tier(r: dict[str, Any], as_of: datetime) -> str:
    """"active" (the working set at `as_of`) or "archive" (retired by a consolidation tier, expired or
    decayed, but still searched)."""
    return "active" if in_working_set(
        status=r["status"], retired_at=r.get("retired_at"), expires_at=r.get("expires_at"),
        importance=float(r["importance"]), rate=float(r["decay_rate"]), accessed_at=r.get("accessed_at"),
        created_at=r["created_at"], pinned=bool(r["pinned"]), at=as_of) else "archive"


def memory_json(row: dict[str, Any], score_value: float | None = None) -> dict[str, Any]:
    out = {"id": row["id"], "memoryType": row["memory_type"], "content": row["content"],
           "importance": round(float(row["importance"]), 4),
           "score": None if score_value is None else round(score_value, 4),
           "entityRefs": list(row["entity_refs"] or []), "sourceEventIds": list(row["source_event_ids"] or []),
           "createdAt": iso(row["created_at"])}
    if "tier" in row:
        out["tier"] = row["tier"]
    return out


def memory_status(row: dict[str, Any], now: datetime | None = None) -> str:
    """The stored status, except that an active memory past its expiry reads as expired."""
    exp = row.get("expires_at")
    if row["status"] == "active" and exp is not None and exp <= (now or datetime.now(exp.tzinfo)):
        return "expired"
    return row["status"]


def memory_detail_json(row: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    return {**memory_json(row), "scope": row["scope"], "status": memory_status(row, now),
            "confidence": row["confidence"],
            "source": row["source"], "pinned": row["pinned"], "memoryKey": row["memory_key"],
            "topics": list(row["topics"] or []), "validFrom": iso(row["valid_from"]), "validTo": iso(row["valid_to"]),
            "retiredAt": iso(row.get("retired_at")),
            "expiresAt": iso(row["expires_at"]), "supersededBy": row["superseded_by"],
            "accessCount": row["access_count"], "accessedAt": iso(row["accessed_at"]),
            "updatedAt": iso(row["updated_at"]), "personaId": row["persona_id"]}


def memory_histories(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Memory id -> the derived events about it (rows of `events`, in their order), for the export.
    MemoryAccessed v2 names several memories (memoryIds); rows written before it, one (memoryId)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        pl = e["payload"]
        one = (pl.get("memory") or {}).get("id") or pl.get("memoryId")
        for mid in pl.get("memoryIds") or ([one] if one else []):
            out.setdefault(mid, []).append({"eventId": e["event_id"], "eventType": e["event_type"],
                                            "occurredAt": iso(e["occurred_at"]), "causationId": e["causation_id"]})
    return out


def relevance_by_id(rows: list[dict[str, Any]], keyword: dict[str, float] | None) -> dict[str, float]:
    """Each candidate's hybrid relevance to the query (projections.retrieval.relevance)."""
    rel = relevance([float(r["similarity"] or 0.0) for r in rows], [(keyword or {}).get(r["id"], 0.0) for r in rows])
    return {r["id"]: v for r, v in zip(rows, rel)}


def share_with_facts(rel: dict[str, float], rows: list[dict[str, Any]]) -> dict[str, float]:
    """A fact or preference is as relevant as the message it was read from: "Lives in Berlin" answers
    "where do I live?" as well as the episode "I moved to Berlin last month" does, and being the current,
    structured form it then ranks above it (by importance) rather than being dropped as its repeat. Of
    several facts read from one message, the one that matches the question best on its own takes the
    message's relevance; the others keep REPEAT_SHARE of it (or their own match, when higher), so one
    message's three preferences ("Loves serenity", "Loves camping trips with their fam", ...) do not take
    three of the first ten places from other messages, while "what does Tom do?" still finds "Brother Tom
    is a pilot" first and "Has a brother named Tom" after it."""
    out = dict(rel)
    by_source: dict[str, float] = {}
    for r in rows:
        for e in r["source_event_ids"] or ():
            by_source[e] = max(by_source.get(e, 0.0), out[r["id"]])
    facts = sorted((r for r in rows if r["memory_type"] in ("fact", "preference") and r["source_event_ids"]),
                   key=lambda r: (-rel[r["id"]], r["id"]))
    led: set[str] = set()  # messages whose best-matching fact took their relevance
    for r in facts:
        sources = r["source_event_ids"]
        inherited = max(by_source[e] for e in sources)
        if set(sources) <= led:
            inherited *= REPEAT_SHARE
        led.update(sources)
        out[r["id"]] = max(out[r["id"]], inherited)
    return out


def rank(rows: list[dict[str, Any]], as_of: datetime, scope: str = "contact",
         keyword: dict[str, float] | None = None, matched_refs: set[str] | None = None,
         has_query: bool = True, neighbours: list[dict[str, Any]] | None = None,
         speakers: set[str] | None = None) -> list[tuple[float, dict]]:
    """Score every candidate with the multi-signal formula, each row marked with its tier. With a query
    `similarity` is the hybrid relevance (cosine and BM25 together), raised for the neighbours of the
    most relevant memories, lowered for what another speaker than the one the query names said
    (`speakers`: retrieval.speaker_weighted), and relevance leads (QUERY_WEIGHTS); without one the
    seeds' weights rank the working set. entity_match is 1 when the memory is linked to an entity the
    query names."""
    w = QUERY_WEIGHTS if has_query else WEIGHTS[scope]
    rel: dict[str, float] = {}
    if has_query and rows:
        rel = relevance_by_id(rows, keyword)
        if neighbours:
            cos = [float(r["similarity"] or 0.0) for r in rows]
            lo, hi = min(cos), max(cos)

            def own(n: dict[str, Any]) -> float:  # its cosine on the candidates' scale, the semantic half
                return min(1.0, max(0.0, (float(n["similarity"] or 0.0) - lo) / (hi - lo))) * 0.5 if hi > lo else 0.0

            rel = spread_to_neighbours(rel, neighbours, own)
            seen = {r["id"] for r in rows}
            rows = rows + [n for n in {n["id"]: n for n in neighbours}.values() if n["id"] not in seen]
        rel = speaker_weighted(share_with_facts(rel, rows), rows, speakers or set())
    refs = matched_refs or set()

    scored = []
    for r in rows:
        accessed_at, access_count = as_of_then(r, as_of)
        r = {**r, "importance": importance_then(r, as_of), "tier": tier(r, as_of)}
        scored.append((score(similarity=rel.get(r["id"], 0.0), accessed_at=accessed_at, importance=r["importance"],
                             access_count=access_count,
                             entity_match=1.0 if refs and refs & set(r["entity_refs"] or ()) else 0.0,
                             as_of=as_of, weights=w), r))
    scored.sort(key=lambda x: (-x[0], x[1]["id"]))
    return scored


def top_anchors(rows: list[dict[str, Any]], keyword: dict[str, float] | None, n: int) -> list[str]:
    """The ids of the n most relevant candidates: whose neighbours to look up."""
    rel = relevance_by_id(rows, keyword)
    return sorted(rel, key=lambda i: (-rel[i], i))[:n]


def contact_state_json(state: dict[str, Any] | None, as_of: datetime) -> dict[str, Any]:
    if state is None:
        return {"mood": "neutral", "moodConfidence": 0.0, "energy": "medium", "style": "casual",
                "relationshipStage": "new", "activeStreak": 0, "sessionCount": 0, "churnRisk": 0.0}
    last_seen = parse_time(state["lastSeen"]) if state.get("lastSeen") else None
    streak = effective_streak(state.get("lastActiveDay"), state.get("activeStreak", 0), as_of)
    mood = state.get("mood") or {}
    out = {"mood": mood.get("mood", "neutral"), "moodConfidence": mood.get("confidence", 0.0),
           "energy": mood.get("energy", "medium"), "style": mood.get("style", "casual"),
           "relationshipStage": relationship_stage(state["sessionCount"], streak, last_seen, as_of),
           "activeStreak": streak, "sessionCount": state["sessionCount"],
           "churnRisk": state.get("churnRisk", 0.0)}
    if mood.get("unusual"):
        out["moodUsual"] = mood.get("usual")  # extension: the baseline this mood departs from
    if state.get("preferredHours"):
        out["preferredOutreachHours"] = state["preferredHours"]  # extension (seed 000 §4.2)
    return out


# the memory budget of a question asked without `budget` at a stage with less (a new contact's is 0)
QUERY_MIN_BUDGET = 200

CARD_MIN_IMPORTANCE = 0.6   # seed 004 keeps importance >= 2 of 0..3 (or pinned) on cards
CARD_FACTS = 3
CARD_BUDGET_SHARE = 0.15    # cards may use at most this share of the memory budget


def entity_cards(refs: list[str], rows: list[dict[str, Any]], shown: set[str]) -> list[dict[str, Any]]:
    """Seed 004 entity cards: per entity (in `refs` order), its top memories (rows come pinned first,
    then by importance, newest), skipping memories already listed or on an earlier card (a memory
    about Bruno and mom is on Bruno's card, not on both); `[pet:bruno]: a; b; c`."""
    cards, shown = [], set(shown)
    for ref in dict.fromkeys(refs):
        facts = [r for r in rows if ref in (r["entity_refs"] or ()) and r["id"] not in shown][:CARD_FACTS]
        if facts:
            shown |= {r["id"] for r in facts}
            cards.append({"ref": ref, "memoryIds": [r["id"] for r in facts],
                          "text": f"[{ref}]: " + "; ".join(r["content"] for r in facts)})
    return cards


def _span_days(state: dict[str, Any] | None) -> int:
    if not state or not state.get("firstSeen") or not state.get("lastSeen"):
        return 0
    # calendar days spanned, inclusive, in the contact's own local dates
    return max(1, (parse_time(state["lastSeen"]).date() - parse_time(state["firstSeen"]).date()).days + 1)


def _mood_line(st: dict[str, Any]) -> str:
    line = f"- Mood: {st['mood']} (energy: {st['energy']})"
    if st.get("moodUsual"):
        line += f" - unusual: {st['moodUsual']}"
    return line


KNOWS_CHARS = 300          # the Knows line: who they are
HABITS_CHARS = 240         # what they keep coming back to
PREFERENCES_CHARS = 220
THEME_GIST = "Often talks about "


# one-valued places in a life: a theme about one the current facts no longer name is about the past
PAST_KINDS = {"workplace": "a past job", "school": "a past school"}


def past_places(items: list[dict[str, Any]], entities: list[dict[str, Any]] | None) -> dict[str, str]:
    """Lower-cased name -> label ("a past job") of the workplaces and schools the contact has named whose
    kind the current facts name with another one: "Infosys" once "Works at Flipkart" superseded it."""
    current = " ".join(normalize_text(i["content"]) for i in items if i["type"] == "fact")
    out: dict[str, str] = {}
    for kind, label in PAST_KINDS.items():
        names = [normalize_text(e["display_name"]) for e in entities or () if e.get("entity_type") == kind
                 and e.get("display_name")]
        named = [n for n in names if f" {n} " in f" {current} "]
        if named:
            out.update({n: label for n in names if n not in named})
    return out


def what_is_known(state: dict[str, Any] | None, memories: list[dict[str, Any]],
                  entities: list[dict[str, Any]] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The items ({"id", "type", "content"}) of the Knows, Often-talks-about and Preferences lines: the
    profile's (the fold keeps them ranked, most telling first, none repeating another:
    agents/core/summaries.profile_items), or, for a state without one, the working set's facts and
    preferences among the memories served. "elsewhere": a habit another block already says (the
    chat-time pattern is the emotional block's outreach line)."""
    items = list((state or {}).get("profileItems") or [])
    if not items:
        items = [{"id": m["id"], "type": m["memoryType"], "content": m["content"]} for m in memories
                 if m["memoryType"] in ("fact", "preference") and m.get("tier", "active") == "active"]
    said = ((state or {}).get("preferredHours") or {}).get("label")
    elsewhere = [i for i in items if i["type"] == "habit" and i["content"] == said]
    themes = [i for i in items if i["type"] == "habit" and i["content"].startswith(THEME_GIST)]
    past = past_places(items, entities)
    return {"knows": summaries.fit([i for i in items if i["type"] == "fact" or i["type"] == "habit" and
                                    i not in themes and i not in elsewhere], KNOWS_CHARS),
            "habits": summaries.fit([{**i, "content": theme_gist(i["content"], past)} for i in themes], HABITS_CHARS),
            "preferences": summaries.fit([i for i in items if i["type"] == "preference"], PREFERENCES_CHARS),
            "elsewhere": elsewhere}


def theme_gist(habit: str, past: dict[str, str] | None = None) -> str:
    """"Often talks about dinner: pizza, pho" -> "dinner (pizza, pho)": one of several on a line. A
    theme about a place of the past says so: "Infosys, a past job (work, sprint deadline)"."""
    topic, _, details = habit.removeprefix(THEME_GIST).partition(": ")
    label = (past or {}).get(normalize_text(topic))
    topic = f"{topic}, {label}" if label else topic
    return f"{topic} ({details})" if details else topic


def stated_ids(known: dict[str, list[dict[str, Any]]]) -> set[str]:
    return {i["id"] for items in known.values() for i in items}


def stated(known: dict[str, list[dict[str, Any]]]) -> Callable[[str, str], bool]:
    """Whether a memory (id, content) is already said by the profile lines or elsewhere: by id, or by its
    words (a pattern detected again under a new id says the same "Usually chats between ...")."""
    ids = stated_ids(known)
    texts = {normalize_text(i["content"]) for items in known.values() for i in items}
    return lambda mid, content: mid in ids or normalize_text(content) in texts


def context_text(contact: dict[str, Any], st: dict[str, Any], memories: list[dict[str, Any]],
                 cards: list[dict[str, Any]] | None = None, state: dict[str, Any] | None = None,
                 extra_blocks: list[str] | None = None,
                 known: dict[str, list[dict[str, Any]]] | None = None,
                 said_again: dict[str, str] | None = None, happened: dict[str, str] | None = None) -> str:
    """The system-prompt block, by relationship stage (seed 000 §5.1-5.4, seed 001 §3.4). Each thing is
    said once: what the Knows and Preferences lines state is not listed again under MEMORIES, and a
    memory on a card is not in the list. `said_again`: memory id -> when the contact last said it again
    (a reinforced episode reads with that date too, not as a year-old event); `happened`: memory id -> the
    day an episode's event happened when it was said on a later day."""
    known = known if known is not None else what_is_known(state, memories)
    said = stated(known)
    # user-originated text: one line each, names capped (projections/fence.py)
    contact, cards = fence.contact(contact), fence.cards(cards)
    memories = fence.memories([m for m in memories if not said(m["id"], m["content"])])
    name = contact.get("displayName") or "this contact"
    stage, n, days = st["relationshipStage"], st["sessionCount"], _span_days(state)
    lines = ["CONTACT CONTEXT:"]
    if stage == "new" and not memories and not any(known.values()):
        lines += [f"- New contact ({'first session' if n <= 1 else f'{n} sessions'})", "- No memories yet",
                  _mood_line(st), "", "BEHAVIOR:",
                  "- Ask discovery questions naturally (name, interests, pets, work)",
                  "- Don't overload with questions: 1-2 per response", "- Be warm and welcoming",
                  "- Focus on building rapport"]
    else:
        channel = f" ({contact['channel']})" if contact.get("channel") else ""
        headline = {
            "new": f"New contact{channel}: {name} ({n} session{'s' if n != 1 else ''})",
            "building": f"Building relationship with {name}{channel} ({n} sessions over {days} days)",
            "established": f"Established relationship with {name}{channel} ({n} sessions over {days} days, "
                           f"active streak: {st['activeStreak']})",
            "deep": f"Deep relationship with {name}{channel} ({n} sessions over {days} days, active streak: "
                    f"{st['activeStreak']}): they expect you to truly know them",
            "fading": f"Fading relationship with {name}{channel}: {n} sessions, quiet for a while - re-engage "
                      f"warmly with what you know",
            "dormant": f"Dormant contact {name}{channel}: {n} sessions, long silent - keep it light, mention "
                       f"the last topic",
        }[stage]
        lines.append(f"- {headline}")
        for label, key in (("Knows", "knows"), ("Often talks about", "habits"), ("Preferences", "preferences")):
            if known[key]:
                lines.append(f"- {label}: " + "; ".join(fence.inline(i["content"]).rstrip(".") for i in known[key]))
        lines.append(_mood_line(st))
        if stage == "new":
            lines += ["- Still getting to know them: ask 1-2 natural discovery questions"]
    for block in extra_blocks or []:
        lines += ["", block]
    if cards:
        lines += ["", "ENTITY CARDS:"] + [c["text"] for c in cards]
    if memories:
        detailed = stage in ("established", "deep")
        lines += ["", "MEMORIES:"] + [memory_line(m, detailed, (said_again or {}).get(m["id"]),
                                                                (happened or {}).get(m["id"])) for m in memories]
    return "\n".join(lines)


def memory_line(m: dict[str, Any], detailed: bool, again: str | None = None, happened: str | None = None) -> str:
    """One MEMORIES line. Episodes carry the date they were said, so the reader can answer "when", and the
    last day the contact said it again when that was another day ("Called mom today" said every week
    since December is not a year-old event); an archive hit reads as a dated past event, never as
    something current (a plan for "tonight" served after that night is history). `happened`: the day the
    event happened when the message named an earlier one ("We went there on Friday", said on Monday 8
    December: "2025-12-08, happened 2025-12-05")."""
    said = day = (m.get("createdAt") or "")[:10]
    if said and happened and happened[:10] < said:
        day = f"{day}, happened {happened[:10]}"
    if said and again and again[:10] > said:
        day = f"{day}, again {again[:10]}"
    if m.get("tier") == "archive":
        return f"- [past, {day}] {m['content']}"
    label = f"{m['memoryType']}, {day}" if m["memoryType"] == "episode" and day else m["memoryType"]
    return f"- [{label}] {m['content']}" + (f" (importance: {m['importance']:.2f})" if detailed else "")


def emotional_blocks(state: dict[str, Any] | None, st: dict[str, Any], as_of: datetime) -> list[str]:
    """CONTACT EMOTIONAL CONTEXT and ADAPTATION (seed 000 §4.3), and helpline guidance first when crisis
    language was used recently (never dependent on an LLM)."""
    from agents.core.crisis import helpline_guidance
    from agents.core.emotion import crisis_active
    from agents.core.tone import adaptation

    if not state or not state.get("mood"):
        return []
    m = state["mood"]
    blocks = []
    c = crisis_active(state, as_of.isoformat())
    if c:
        blocks.append(f"SAFETY FIRST (crisis language at {c['at']}: \"{fence.inline(c['phrase'], 200)}\"; flagged for human review):\n"
                      + helpline_guidance(None))
    lines = ["CONTACT EMOTIONAL CONTEXT:", f"- Current mood: {m['mood']} (energy: {m['energy']}, style: {m['style']})"]
    if m.get("unusual") and m.get("usual"):
        lines.append(f"- This is unusual: {m['usual']}")
    lines.append(f"- Relationship stage: {st['relationshipStage']} ({st['sessionCount']} sessions)")
    last = next(iter((state.get("lastSessionSummary") or {}).values()), None)
    if last:
        lines.append(f"- Recent context: {fence.inline(last['one_liner'])}")
    if state.get("preferredHours"):
        lines.append(f"- {state['preferredHours']['label']}")
    blocks.append("\n".join(lines))
    blocks.append("ADAPTATION:\n" + "\n".join(f"- {x}" for x in adaptation(
        m["mood"], m["energy"], bool(m.get("unusual")), fence.inline(last["one_liner"]) if last else None)))
    return blocks


def summary_blocks(state: dict[str, Any] | None, persona_id: str | None) -> list[str]:
    """The permanent profile (seed 003), the latest closed session's summary for this persona and the
    rolling summary of the session in progress (seed 004)."""
    if not state:
        return []
    blocks = []
    if state.get("profile") and state.get("profileSource") == "llm":
        # a model's own paragraph; the extractive profile is what the Knows and Preferences lines say
        blocks.append("PROFILE: " + fence.inline(state["profile"]))
    last = (state.get("lastSessionSummary") or {}).get(persona_id or "")
    if last:
        lines = [f"LAST SESSION: {fence.inline(last['one_liner'])}"]
        for label, key in (("What mattered", "what_mattered"), ("Open loops", "open_loops"),
                           ("Commitments", "commitments"), ("People", "people")):
            if last.get(key):
                lines.append(f"- {label}: " + "; ".join(fence.inline(x) for x in last[key]))
        if last.get("tone"):
            lines.append(f"- Tone: {fence.inline(last['tone'])}")
        blocks.append("\n".join(lines))
    session = state.get("session") or {}
    if session.get("rollingSummary") and (session.get("personaId") or None) == (persona_id or None):
        blocks.append("THIS SESSION SO FAR: " + fence.inline(session["rollingSummary"]))
    return blocks


@lru_cache(maxsize=100_000)
def _content_words(text: str) -> frozenset[str]:
    """Memoised: a contact's memories come back in its answers again and again, and their texts do not
    change (the tokenising regex was ~3% of the API's Python time under load)."""
    return frozenset(t.rstrip("s") for t in words(text) if t not in STOP and len(t) > 2)


REDUNDANT_EXTRA_WORDS = 2
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|[\"(]\s*)$")


@lru_cache(maxsize=100_000)
def _telling_words(text: str) -> frozenset[str]:
    """The content words of a text that are names or numbers: capitalised inside a sentence ("Denver",
    "Tom") or holding a digit ("30", "5k"), as _content_words spells them."""
    out = set()
    for m in WORD.finditer(text):
        w = m.group(0)
        if any(c.isdigit() for c in w) or (w[0].isupper() and w != "I" and not _SENTENCE_START.search(text[:m.start()])):
            out.add(w.lower().rstrip("s"))
    return frozenset(out) & _content_words(text) if out else frozenset()


def drop_redundant(ranked: list[tuple[float, dict]]) -> list[tuple[float, dict]]:
    """Skip a memory that says nothing new: all its source messages are already covered by better-ranked
    memories and it adds at most two content words to theirs (a fact or preference: none), none of them a
    name or a number. The rules' "Loves biryani" and the episode "I love biryani!" are one piece of
    information; "Has a dog named Bruno" and "My dog Bruno ate my shoes again" come from one message but
    are not, and neither are the two facts of "My brother Tom is a pilot": "Has a brother named Tom" and
    "Brother Tom is a pilot" (one new word, the one a question about Tom's job needs), nor those facts and
    the message "My brother Tom is a pilot in Denver" (one new word, a place: where Tom lives)."""
    covered: dict[str, set[str]] = {}
    whole: set[str] = set()  # messages a listed memory says in full (an episode is the message itself)
    said: set[str] = set()
    out = []
    for sc, r in ranked:
        text = normalize_text(r["content"])
        if text in said:  # the same words twice (a fact said again after the first was let go of)
            continue
        said.add(text)
        sources = set(r["source_event_ids"] or ())
        if sources and sources <= covered.keys():
            known = set().union(*(covered[s] for s in sources))
            # a fact next to other facts of its message is a fact of its own unless it adds nothing
            extra = 0 if r["memory_type"] in ("fact", "preference") and not sources & whole else REDUNDANT_EXTRA_WORDS
            new = _content_words(r["content"]) - known
            if len(new) <= extra and not new & _telling_words(r["content"]):
                continue
        words = _content_words(r["content"])
        for s in sources:
            covered[s] = covered.get(s, set()) | words
        if r["memory_type"] == "episode":
            whole |= sources
        out.append((sc, r))
    return out


# A memory that repeats messages already shown by better-ranked listed memories keeps this share of its
# score: it follows the next memories that bring a message not yet shown instead of taking their place
# near the top (what a reader of the first ten gets is ten messages' worth, not three). A repeat is an
# episode (or pattern) all of whose messages are shown, or a fact or preference whose messages were shown
# whole (as episodes): the facts of one message are facts of their own beside each other, as in
# drop_redundant ("Has a brother named Tom" and "Brother Tom is a pilot"). 1.0 keeps the score order.
REPEAT_SHARE = 0.5


def novelty_first(ranked: list[tuple[float, dict]], share: float | None = None) -> list[tuple[float, dict]]:
    """`ranked` (best first) with each repeat's score lowered to `share` (REPEAT_SHARE) of its own and
    moved to where that score places it, judged against the memories above it in the new order. Memories
    without sources are never repeats."""
    share = REPEAT_SHARE if share is None else share
    if share >= 1.0:
        return ranked
    out: list[tuple[float, dict]] = []
    deferred: list[tuple[float, int, dict]] = []  # (-lowered score, original position, row): a heap
    shown: set[str] = set()
    whole: set[str] = set()  # messages an episode listed says in full
    for i, (sc, r) in enumerate(ranked):
        while deferred and -deferred[0][0] >= sc:
            low, _, d = heapq.heappop(deferred)
            out.append((-low, d))  # its messages were shown: it stays a repeat
        sources = set(r["source_event_ids"] or ())
        if sources and sources <= (whole if r["memory_type"] in ("fact", "preference") else shown):
            heapq.heappush(deferred, (-sc * share, i, r))
            continue
        out.append((sc, r))
        shown |= sources
        if r["memory_type"] == "episode":
            whole |= sources
    while deferred:
        low, _, d = heapq.heappop(deferred)
        out.append((-low, d))
    return out


def refs_in_play(ranked: list[tuple[float, dict]], matched_refs: set[str] | None, top: int = 10) -> list[str]:
    """Entities to put on cards: those the query names, then those of the best-ranked memories."""
    refs = list(matched_refs or [])
    for _, r in ranked[:top]:
        refs.extend(r["entity_refs"] or [])
    return list(dict.fromkeys(refs))


def entity_json(e: dict[str, Any]) -> dict[str, Any]:
    return {"ref": e["ref"], "entityType": e["entity_type"], "displayName": e["display_name"],
            "metadata": e["metadata"] or {}}


def assemble(*, contact_id: str, state: dict[str, Any] | None, ranked: list[tuple[float, dict]],
             as_of: datetime, budget: int | None, history: list[dict[str, Any]],
             count_tokens: Callable[[str], int] | None = None, card_rows: list[dict[str, Any]] | None = None,
             entities: list[dict[str, Any]] | None = None, matched_refs: set[str] | None = None,
             extra_blocks: list[str] | None = None, persona_id: str | None = None,
             query: str | None = None) -> dict[str, Any]:
    st = contact_state_json(state, as_of)
    memory_budget = STAGE_BUDGETS[st["relationshipStage"]] if budget is None else budget
    if budget is None and query:
        # the stage shapes the profile, not whether a direct question is answered: a new contact's
        # best matches come back too
        memory_budget = max(memory_budget, QUERY_MIN_BUDGET)

    costs: dict[str, int] = {}  # a text is costed once, though packing asks again for what did not fit

    def cost(text: str) -> int:
        if text not in costs:
            costs[text] = estimate_tokens(text, count_tokens)
        return costs[text]

    # cards may take up to CARD_BUDGET_SHARE of the budget; the ranked memories get the rest, and the
    # cards then show the entities' other memories (those not already listed)
    refs = refs_in_play(ranked, matched_refs)
    listed = novelty_first(drop_redundant(ranked)) if query else drop_redundant(ranked)
    known = what_is_known(state, [memory_json(r) for _, r in listed], entities)  # rank() marked each row's tier
    said = stated(known)
    # the memories the profile lines already say: theirs, and any other saying the same words
    in_profile = stated_ids(known) | {r["id"] for r in [*(card_rows or []), *(r for _, r in listed)]
                                      if said(r["id"], r["content"])}
    wanted = entity_cards(refs, card_rows or [], shown=in_profile)
    reserve = min(int(memory_budget * CARD_BUDGET_SHARE), sum(cost(c["text"]) for c in wanted))
    packed, used = pack(listed, memory_budget - reserve, lambda x: cost(x[1]["content"]))
    shown = {r["id"] for _, r in packed} | in_profile
    cards, card_used = pack(entity_cards(refs, card_rows or [], shown), memory_budget - used, lambda c: cost(c["text"]))
    # what the cards left of their reserve goes back to the ranked memories, in rank order
    on_cards = shown | {mid for c in cards for mid in c["memoryIds"]}
    more, _ = pack([x for x in listed if x[1]["id"] not in on_cards], memory_budget - used - card_used,
                   lambda x: cost(x[1]["content"]))
    packed += more
    by_id = {r["id"]: r for r in card_rows or []}
    # where each memory is in context_text: a Knows/Preferences line, the MEMORIES list or a card
    memories = [{**memory_json(r, sc), "section": "profile" if r["id"] in in_profile else "memories"}
                for sc, r in packed]
    memories += [{**memory_json(by_id[mid]), "section": "cards"}  # score: null (card)
                 for c in cards for mid in c["memoryIds"]]
    contact = {"contactId": contact_id, "displayName": (state or {}).get("displayName"),
               "channel": (state or {}).get("channel")}
    # the last time the contact said a listed memory again, as of then (a reinforcement; serving is none)
    said_again = {r["id"]: iso(last) for _, r in packed
                  if r.get("access_count") and (last := as_of_then(r, as_of)[0]) > r["created_at"]}
    # the day a listed episode's event happened when the message named another ("on Friday", said on Monday)
    happened = {r["id"]: iso(r["valid_from"]) for _, r in packed if r["memory_type"] == "episode"
                and isinstance(r.get("valid_from"), datetime) and r["valid_from"].date() < r["created_at"].date()}
    involved = set(refs) | {ref for m in memories for ref in m["entityRefs"]}
    ents = [entity_json(e) for e in entities or [] if e["ref"] in involved]
    return {"contact": contact, "state": st, "memories": memories, "entities": ents, "history": history,
            "context_text": context_text(contact, st, memories[:len(packed)], cards, state,
                                         emotional_blocks(state, st, as_of) + (extra_blocks or [])
                                         + summary_blocks(state, persona_id), known=known, said_again=said_again,
                                         happened=happened),
            "memory_budget": memory_budget}
