"""The per-contact fold: (contact state, source event) -> (new state, derived events).

This is the functional core of the interaction processor. It never reads a clock, a database or a
broker: time is the event's `occurred_at`, ids are derived from the source event id, so processing the
same events again (a redelivery, a replay) gives the same state and the same events, byte for byte.

Processing one batch is two phases so that embeddings can be computed for a whole batch at once:
  1. `plan_memories(event)`   -> candidate memories of one event (state-free)
  2. the shell embeds all candidates' contents in one call
  3. `apply(state, event, Inputs(candidates, hot_vectors, ...))` -> (state, events), in log order;
     candidates are deduplicated against the contact's memory (agents/core/remember.py)

`apply` is the one entry point: it dispatches on the event type to that kind's rule (RULES: a
message, a tick, an access, a correction, a forget request, a model's proposals, summary or label),
then runs the closing steps every kind shares in one place (the profile follows the memory events,
the next due work is scheduled, seq moves on). The `apply_<kind>` functions are its one-kind entries.
"""
from __future__ import annotations

import orjson
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Callable

from agents.core import memory as mem
from domain.decay import latest
from agents.core.redaction import DEFAULT_POLICY, Carry, Policy, admit, admitted
from agents.core import consolidation, curation, emotion, extraction, remember, summaries, timeref
from domain import clock, entities, sessions
from schemas import events as ev
from schemas.envelope import Envelope, derived_id, parse_time

State = dict[str, Any]


def _copy(state: State) -> State:
    """The fold never mutates its input. States are plain JSON, so a JSON round trip is an exact copy,
    and orjson's is ~10x faster than copy.deepcopy. Keys come out sorted: a state read back from
    PostgreSQL (jsonb reorders keys) folds exactly like one kept in a worker's memory, so a restarted
    worker and a replay give the same projections (nothing may depend on a dict's insertion order)."""
    return orjson.loads(orjson.dumps(state, option=orjson.OPT_SORT_KEYS))


@dataclass(frozen=True)
class CoreConfig:
    session_gap_s: int = sessions.SESSION_GAP_S
    window_size: int = 20
    # which kinds of secrets are redacted for which tenant (agents/core/redaction.py): an input of the
    # fold like the others, so a replay with the same settings redacts the same way
    redaction: Policy = field(default=DEFAULT_POLICY)


def new_state(tenant_id: str, contact_id: str) -> State:
    return {"tenantId": tenant_id, "contactId": contact_id, "displayName": None, "channel": None,
            "personaId": None, "firstSeen": None, "lastSeen": None, "messageCount": 0, "userMessageCount": 0,
            "sessionCount": 0, "session": None, "lastActiveDay": None, "activeStreak": 0, "window": [],
            "memoryIndex": remember.empty_index(), "seq": 0}


def link_entities(s: State, env: Envelope, candidates: list[dict[str, Any]]
                  ) -> tuple[list[dict[str, Any]], list[Envelope]]:
    """Resolve the candidates' entities against the contact's graph (a later "Bruno" -> pet:bruno,
    "Mukesh" -> person:makesh), count mentions (also of known entities the message names), and
    rewrite refs and memory keys to the canonical refs. EntityUpserted for every entity touched."""
    graph = s.setdefault("entities", {})
    rename: dict[str, str] = {}
    touched: dict[str, None] = {}
    for m in candidates:
        for e in m.get("entities") or []:
            ref = entities.canonical_ref(e["ref"], graph, e.get("metadata"))
            rename[e["ref"]] = ref
            node = graph.get(ref)
            if node is None:
                node = {"ref": ref, "entityType": e["entityType"], "displayName": e["displayName"],
                        "metadata": dict(e.get("metadata") or {}), "aliases": [], "firstSeen": env.occurred_at,
                        "lastSeen": env.occurred_at, "mentions": 0}
            else:
                node = {**node, "metadata": {**node["metadata"], **(e.get("metadata") or {})}}
                if e["displayName"] != node["displayName"] and e["displayName"] not in node["aliases"]:
                    node["aliases"] = node["aliases"] + [e["displayName"]]
            graph[ref] = node
            touched[ref] = None
    for ref in entities.find_mentions(env.payload["message"], graph) if graph else []:
        touched[ref] = None
    out_candidates = []
    for m in candidates:
        m = {k: v for k, v in m.items() if k != "entities"}
        refs = [rename.get(r, r) for r in m["entityRefs"]]
        if m["memoryType"] == "episode":
            refs += [r for r in touched if r not in refs]
        m["entityRefs"] = list(dict.fromkeys(refs))
        for field in ("memoryKey", "replaces"):
            if m.get(field):
                for old, new in rename.items():
                    if old != new:
                        m[field] = m[field].replace(f"|{old}|", f"|{new}|")
        out_candidates.append(m)
    events = []
    for ref in touched:
        graph[ref] = {**graph[ref], "lastSeen": env.occurred_at, "mentions": graph[ref]["mentions"] + 1}
        events.append(ev.derived(env, ev.ENTITY_UPSERTED, f"entity:{ref}", {"entity": graph[ref]}))
    if s.get("session") is not None:
        people = s["session"].setdefault("people", [])
        people += [r for r in touched if r.startswith("person:") and r not in people]
    return out_candidates, events


PROFILE_FACTS = 40
# what takes an item out of the profile: a fact replaced, merged into another or past its time. One the
# working set merely let go of (decayed, pruned, over the cap) is still true of the person; a habit is
# a habit while its pattern is in use
NO_LONGER_TRUE = frozenset({ev.MEMORY_SUPERSEDED, ev.MEMORY_MERGED, ev.MEMORY_EXPIRED})
RETIRING = NO_LONGER_TRUE | {ev.MEMORY_PRUNED, ev.MEMORY_ARCHIVED}


class _Facts:
    """The profile's items being updated: `put` keeps an item's place ("n": the order items arrived in,
    kept in the item since dict order does not survive jsonb), `drop` takes one out; `changed` says
    whether the paragraph must be rebuilt."""

    def __init__(self, facts: dict[str, Any]) -> None:
        self.facts = dict(facts)
        self.last_n = max((f.get("n", 0) for f in self.facts.values()), default=0)
        self.changed = False

    def put(self, mid: str, entry: dict[str, Any]) -> None:
        text = mem.normalize_text(entry["content"])
        for o in [o for o, f in self.facts.items() if o != mid and mem.normalize_text(f["content"]) == text]:
            self.facts.pop(o)  # said again after its first memory was let go of: one item
        if mid in self.facts and "n" in self.facts[mid]:
            n = self.facts[mid]["n"]
        else:
            self.last_n = n = self.last_n + 1
        self.facts[mid] = {**entry, "n": n}
        self.changed = True

    def drop(self, mid: str) -> None:
        self.changed |= self.facts.pop(mid, None) is not None


def _profile_corrected(f: _Facts, e: Envelope) -> None:
    """The profile says what the memory now says."""
    mid, item = e.payload["memoryId"], f.facts.get(e.payload["memoryId"])
    if item is not None and ("content" in e.payload or "importance" in e.payload):
        f.put(mid, {**{k: v for k, v in item.items() if k != "n"}, "content": e.payload.get("content", item["content"]),
                    **({"importance": e.payload["importance"]} if "importance" in e.payload else {})})


def _profile_extracted(f: _Facts, e: Envelope) -> None:
    m = e.payload["memory"]
    if m["memoryType"] in ("fact", "preference") and not m.get("expiresAt"):
        # a new value of a one-value slot ("lives_in"), or one that says it replaces the slot's values
        # ("a new job at ..."), retires what the profile held there, even a value the working set has
        # let go of (which supersession no longer sees)
        replaces = e.payload.get("replaces")
        for o in [o for o, item in f.facts.items() if o != m["id"] and item.get("key") and (
                item["key"] == m.get("memoryKey") or replaces and
                (item["key"] == replaces or item["key"].startswith(replaces + "|")))]:
            f.facts.pop(o)
        f.put(m["id"], {"type": m["memoryType"], "content": m["content"], "key": m.get("memoryKey"),
                        "importance": round(float(m.get("importance", 0.5)), 4)})
    elif m["memoryType"] == "pattern":  # a habit the detectors found ("Usually chats between ...")
        f.put(m["id"], {"type": "habit", "content": m["content"], "count": 1})


def _profile_event(f: _Facts, e: Envelope, items: dict[str, Any]) -> None:
    """One memory event's effect on the profile's items."""
    if e.event_type == ev.MEMORY_FORGOTTEN:
        f.drop(e.payload["memoryId"])
    elif e.event_type == ev.MEMORY_CORRECTED:
        _profile_corrected(f, e)
    elif e.event_type in RETIRING:
        mid = e.payload["memoryId"]
        if e.event_type in NO_LONGER_TRUE or (f.facts.get(mid) or {}).get("type") == "habit":
            f.drop(mid)
    elif e.event_type == ev.MEMORY_EXTRACTED:
        _profile_extracted(f, e)
    elif e.event_type in (ev.EPISODES_COMPRESSED, ev.PATTERN_RELABELLED):
        pid = e.payload["pattern"]["id"] if e.event_type == ev.EPISODES_COMPRESSED else e.payload["memoryId"]
        theme = (items.get(pid) or {}).get("theme")
        if theme:
            f.put(pid, {"type": "habit", "content": consolidation.gist(theme), "count": theme["count"]})


def _profile_after(s: State, memory_events: list[Envelope]) -> str | None:
    """Track what the profile is made of: durable facts and preferences, and the habits and themes the
    patterns found; when they change, the profile paragraph is rebuilt whole (seed 003). Returns the new
    paragraph, or None when nothing changed."""
    f = _Facts(s.get("profileFacts") or {})
    items = (s.get("memoryIndex") or {}).get("items", {})
    for e in memory_events:
        _profile_event(f, e, items)
    if not f.changed:
        return None
    facts = f.facts
    # over the bound, what says least about the person goes first (then the oldest)
    ordered = sorted(facts, key=lambda mid: (summaries.item_weight(facts[mid]), facts[mid].get("n", 0), mid))
    for mid in ordered[:max(0, len(ordered) - PROFILE_FACTS)]:
        facts.pop(mid)
    s["profileFacts"] = facts
    s.pop("profileSource", None)  # rebuilt from the items: the extractive profile again
    # what readers need of it (the Knows and Preferences lines): the items, ranked and without repeats
    s["profileItems"] = summaries.profile_items(facts, s.get("displayName"))
    s["profile"] = summaries.profile_paragraph(s.get("displayName"), s["profileItems"])
    return s["profile"]


LIFETIME_DAYS = {"1d": 1, "3d": 3, "7d": 7, "30d": 30}  # seed 003; "permanent" never expires


LLM_IMPORTANCE = {"low": 0.4, "medium": 0.6, "high": 0.8}


def plan_proposals(env: Envelope) -> list[dict[str, Any]]:
    """Candidate memories from an LLM's MemoriesProposed (seed 003 tool output): permanent ones are facts,
    expiring ones episodes; source "llm"; provenance is the message they were extracted from."""
    p = env.payload
    out = []
    for i, item in enumerate(p["memories"]):
        days = LIFETIME_DAYS.get(item["expiration"])
        out.append(mem.new_memory(
            memory_id=derived_id(env, f"memory:llm:{i}"), tenant_id=env.tenant_id, contact_id=env.contact_id,
            memory_type="fact" if days is None else "episode", content=item["memory"], created_at=env.occurred_at,
            source_event_ids=[p["sourceEventId"]], source="llm", importance=LLM_IMPORTANCE[item["importance"]],
            confidence=0.8, topics=item["topics"],
            expires_at=(env.occurred + timedelta(days=days)).isoformat() if days else None))
    return out




CARRY_KEY = "redactionCarry"  # what the contact's last message left open to its next (redaction.Carry)


def redaction_carries(states: dict[tuple[str, str], State], envs: list[Envelope], cfg: CoreConfig = CoreConfig()
                      ) -> list[Carry | None]:
    """The carry each event's message is redacted with, in log order: from the contact's state, then
    from its previous message in `envs` (a batch), as apply_interaction will see it; an erasure starts
    afresh. What plan_memories needs before the batch is folded."""
    current = {key: s.get(CARRY_KEY) for key, s in states.items()}
    out = []
    for e in envs:
        key = (e.tenant_id, e.contact_id)
        carry = current.get(key)
        out.append(carry)
        if e.event_type == ev.INTERACTION_RECORDED:
            current[key] = admit(e, carry, cfg.redaction)[1]
        elif e.event_type == ev.CONTACT_ERASED:
            current[key] = None
    return out


def plan_memories(env: Envelope, cfg: CoreConfig = CoreConfig(), carry: Carry | None = None) -> list[dict[str, Any]]:
    """Candidate memories of one interaction, before entity linking and dedup: the rules' facts and
    preferences, and one episode for a meaningful user message. Memories are global to the contact
    (seed 004); sessions and summaries are the persona's. `carry`: what the contact's previous message
    left open (redaction_carries)."""
    env, _ = admit(env, carry, cfg.redaction)  # secrets never become memories (agents/core/redaction.py)
    p = env.payload
    if p["role"] != "user" or mem.is_low_content(p["message"]):
        return []
    scope = "tenant" if p.get("scope") == "tenant" else "contact"
    out = []
    for i, item in enumerate(extraction.extract(p["message"], role=p["role"], scope=scope)):
        days = LIFETIME_DAYS.get(item["lifetime"])
        m = mem.new_memory(
            memory_id=derived_id(env, f"memory:{i}:{item['memoryKey']}"), tenant_id=env.tenant_id,
            contact_id=env.contact_id, memory_type=item["memoryType"], content=item["content"],
            created_at=env.occurred_at, source_event_ids=[env.event_id], confidence=item["confidence"],
            entity_refs=item["entityRefs"], memory_key=item["memoryKey"], topics=item["topics"],
            expires_at=(env.occurred + timedelta(days=days)).isoformat() if days else None,
            speaker=p.get("display_name"), scope=scope)
        m["entities"] = item["entities"]  # linked to the contact's graph in the fold, then dropped
        if item.get("replaces"):
            m["replaces"] = item["replaces"]  # read by the dedup layer (remember), never stored
        out.append(m)
    # a message about a time ahead ("next month", "on Friday") is a plan until that time has gone by,
    # then a dated past event (agents/core/timeref.py: resolved in the event's time, so replays agree)
    ends = timeref.until(p["message"], env.occurred)
    episode = mem.new_memory(
        memory_id=episode_id(env), tenant_id=env.tenant_id,
        contact_id=env.contact_id, memory_type="episode", content=mem.episode_content(p["message"]),
        created_at=env.occurred_at, source_event_ids=[env.event_id],
        entity_refs=list(dict.fromkeys(r for m in out for r in m["entityRefs"])), speaker=p.get("display_name"),
        scope=scope, expires_at=ends.isoformat() if ends else None)
    # a past event on another day than the one it was said ("we went there on Friday", said on Monday):
    # the episode is valid from that day, which the MEMORIES line names beside the day it was said
    when = timeref.happened(p["message"], env.occurred)
    if when is not None:
        episode["validFrom"] = when.isoformat()
    return out + [episode]


def episode_id(env: Envelope) -> str:
    """The id of the episode memory a user message makes (plan_memories)."""
    return derived_id(env, "memory:episode")


def message_embedding_text(env: Envelope, carry: Any = None, cfg: CoreConfig = CoreConfig()) -> str | None:
    """The text whose sentence embedding the fold gets as `message_vector`: a user message redacted (with
    what the contact's previous message left open, `carry`, and the tenant's policy) and
    whitespace-folded (the episode's content, so an episode said without a speaker shares its vector),
    None for anything else."""
    if env.event_type != ev.INTERACTION_RECORDED:
        return None
    p = admitted(env, carry, cfg.redaction).payload
    if p.get("role") != "user" or not isinstance(p.get("message"), str):
        return None
    return mem.episode_content(p["message"])



def _close_session(s: State, env: Envelope, step: str) -> list[Envelope]:
    """End the open session: SessionClosed, and its structured summary (persona-scoped)."""
    session = {**s["session"], "endedAt": s["session"]["lastActivityAt"]}
    at = session["endedAt"]
    # each turn with its keys sorted, as the whole state's deep copy gave them (a message's working copy
    # shares the window: the event's bytes stay those of a replay from a state read back from jsonb)
    turns = [_copy(t) for t in s["window"] if t.get("sessionId", session["sessionId"]) == session["sessionId"]]
    summary = summaries.session_summary(turns, session.get("people", []), session.get("moods", []))
    s["session"] = None
    s.setdefault("lastSessionSummary", {})[session.get("personaId") or ""] = {"sessionId": session["sessionId"], **summary}
    return [ev.derived(env, ev.SESSION_CLOSED, f"{step}:closed", {"session": session, "turns": turns},
                       occurred_at=at),
            ev.derived(env, ev.SESSION_SUMMARIZED, f"{step}:summary",
                       {"sessionId": session["sessionId"], "personaId": session.get("personaId"),
                        "endedAt": at, "summary": summary}, occurred_at=at)] + \
        emotion.step_session_closed(s, env, session, step)


def _schedule(s: State, cfg: CoreConfig) -> None:
    """When this contact next has work due, in its event time (the scheduler turns it into a ContactTick):
    a session to close, a consolidation tier."""
    due = []
    if s["session"] is not None:
        due.append(parse_time(s["session"]["lastActivityAt"]) + timedelta(seconds=cfg.session_gap_s))
    tier = consolidation.due_at(s)
    if tier:
        due.append(parse_time(tier))
    s["dueAt"] = min(due).isoformat() if due else None


def _advance_clock(s: State, env: Envelope) -> None:
    """How far the contact's event time runs behind the wall clock (recorded_at - occurred_at of its
    newest event, never negative: domain/clock.py): the scheduler moves an idle contact's event time on at the wall clock's pace from
    there, so a historical import is not jumped to today (agents/app_agents.schedule_due_work)."""
    if s.get("clockAt") is None or latest(env.occurred_at, s["clockAt"]) == env.occurred_at:
        s["clockAt"] = env.occurred_at
        s["clockSkewS"] = clock.skew_s(env.occurred, parse_time(env.recorded_at))



# ------------------------------------------------------------------------------------------ one apply
@dataclass(frozen=True)
class Inputs:
    """What the shell gathers for one event before folding it; each kind reads the fields it needs.
    `candidates`: its planned memories, embedded (plan_memories, plan_proposals; for a correction, its
    new content with its vector: curation.plan_correction); `hot_vectors`: the embeddings of the
    memories in the state's hot set; `llm_mood`: a mood an OpenAI-compatible model gave for a message
    (else the offline classifier); `known`, `fresh`: what a due consolidation tier needs
    (agents/core/consolidation.py); `message_vector`: the sentence embedding of a user message's text as
    the fold sees it (`message_embedding_text`), a float32 numpy vector of the local model, or None (the
    detectors then work from the words alone); `memory`: for a forget request, the memory's
    {content, memoryType} as the log stands (the fold keeps no texts)."""
    config: CoreConfig = field(default_factory=CoreConfig)
    candidates: list[dict[str, Any]] = field(default_factory=list)
    hot_vectors: dict[str, Any] | None = None
    llm_mood: dict[str, Any] | None = None
    known: consolidation.Known | None = None
    fresh: consolidation.Known | None = None
    message_vector: Any = None
    memory: dict[str, Any] | None = None


@dataclass
class Step:
    """What one kind's rule did on the working copy: the events it derived, the memory events the
    profile follows, and a profile paragraph the event itself gives (a model's rewrite), if any."""
    events: list[Envelope]
    memory_events: list[Envelope] = field(default_factory=list)
    profile_text: str | None = None


Rule = Callable[[State, Envelope, Inputs], Step]
RULES: dict[str, Rule] = {}  # event type -> its rule (a contact's erasure is the shell's: a new state)


# What a rule changes in place, declared with it: event type -> the top-level keys whose nested values
# the rule (and the closing steps) change in place, or put into its events as they are (an event's
# bytes follow its dicts' key order, which `_copy` sorts). Its working copy deep-copies those keys only
# (`_copy` of each) and shares the rest with the input, which the rule may only read or replace whole
# (`s[key] = new value`): a rule not in WRITES gets the whole state's deep copy. /context's accesses
# set only top-level keys (an empty declaration); a message changes a few small keys in place and the
# memory index through `remember` and the consolidation tiers (`_index_copy`), and the whole state's
# deep copy (~25 KB of JSON, ~80% of it the memory index) was a seventh of what a message cost.
WRITES: dict[str, frozenset[str]] = {}
INDEX = "memoryIndex"


def rule(event_type: str, writes: tuple[str, ...] | None = None) -> Callable[[Rule], Rule]:
    """Register `fn` as the rule of `event_type`. `writes`: the top-level keys whose nested values it
    changes in place (`()`: none, it sets top-level keys only); unset, its working copy is the whole
    state's deep copy."""
    def register(fn: Rule) -> Rule:
        RULES[event_type] = fn
        if writes is not None:
            WRITES[event_type] = frozenset(writes)
        return fn
    return register


def _sorted(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in sorted(d)}


def _index_copy(idx: dict[str, Any]) -> dict[str, Any]:
    """The memory index as `_copy` gives it to a rule that changes it only as `remember` and the
    consolidation tiers do: its lookups (keys, hashes, items, bySource) copied with their keys sorted
    and its lists copied, so an entry can be put, replaced or dropped and the order a rule reads them
    in (the oldest hash `remember` evicts, the slots a replacement retires, the items a tier walks) is
    the sorted one as after a JSON round trip; the entries themselves (an item, a source's ids) are
    shared: they are replaced whole (`{**item, ...}`), never changed in place."""
    return {k: _sorted(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v
            for k, v in sorted(idx.items())}


def _working_copy(state: State, event_type: str) -> State:
    """The copy of `state` a rule runs on, by its declaration (WRITES): what it writes in place is
    copied, the rest shared; top-level keys sorted, as `_copy` gives them."""
    writes = WRITES.get(event_type)
    if writes is None:
        return _copy(state)
    s = _sorted(state)
    for k in writes & s.keys():
        s[k] = _index_copy(s[k]) if k == INDEX and isinstance(s[k], dict) else _copy(s[k])
    return s


# The source events that may start a contact: a message only (a contact writing after its erasure is a
# new contact). Every other one is about a contact the fold already holds, and on a contact with no state
# (erased while it was on its way, or never known) it has nothing to apply to: folded from `new_state` it
# would bring the contact back, holding what it names of the erased one. Per type:
#   - MemoriesAccessed: /context served memories of a state; none = erased after serving (the access
#     flush of another API process, or an access in flight in the broker at the erasure);
#   - MemoryCorrectionRequested / MemoryForgetRequested: the API refuses them (404) unless the memory is
#     stored; none = erased in between. Folded, a forget would keep the erased memory's id and its
#     source events in a new curation book, a correction the new text in the memory's history;
#   - ContactTick: the scheduler ticks contacts it reads from the contacts table; none = erased since;
#   - MemoriesProposed / SummaryProposed / LabelProposed: a model's late work on a message, session or
#     pattern the fold applied; none = erased since (or the message was dead-lettered): a proposal
#     would make memories of the erased contact's message again.
# A ContactErased is the shell's own step (a new state), whatever the contact held.
STARTS_CONTACT = frozenset({ev.INTERACTION_RECORDED, ev.CONTACT_ERASED})


def needs_contact(event_type: str) -> bool:
    """Does an event of this type apply only to a contact the fold already holds?"""
    return event_type not in STARTS_CONTACT


def has_state(state: State) -> bool:
    """Has anything been applied to this contact? (`new_state`'s seq is 0; every fold moves it on.)"""
    return state.get("seq", 0) > 0


def moot(state: State, env: Envelope) -> bool:
    """Nothing to apply: an event that needs an existing contact, for one with no state. The shell
    folds nothing (no state, derived event, profile or due time) and records it as handled."""
    return needs_contact(env.event_type) and not has_state(state)


def apply(state: State, env: Envelope, inputs: Inputs = Inputs()) -> tuple[State, list[Envelope]]:
    """The fold of one source event: (state, event, what the shell gathered) -> (new state, derived
    events). The event type's rule runs on a copy of the state (the input is never mutated); then the
    closing steps every event shares, here only: the profile follows the memory events the rule
    reports, the contact's next due work is scheduled, and its seq moves on by one."""
    fold = RULES.get(env.event_type)
    if fold is None:
        raise ValueError(f"{env.event_type} is not an event the fold applies")
    # the closing steps change only the profile's items (copied: _Facts) and top-level keys
    s = _working_copy(state, env.event_type)
    step = fold(s, env, inputs)
    out = step.events
    profile = _profile_after(s, step.memory_events)
    if step.profile_text is not None:  # the event's own paragraph wins over the one rebuilt from the items
        s["profile"], s["profileSource"] = step.profile_text, "llm"
        out.append(ev.derived(env, ev.PROFILE_REWRITTEN, "profile-text", {"profile": s["profile"], "source": "llm"}))
    elif profile is not None:
        out.append(ev.derived(env, ev.PROFILE_REWRITTEN, "profile-text", {"profile": profile}))
    _schedule(s, inputs.config)
    s["seq"] += 1
    return s, out


def _merge_memories(s: State, env: Envelope, candidates: list[dict[str, Any]], hot_vectors: dict[str, Any] | None,
                    boost_of: str | None = None) -> list[Envelope]:
    """Candidates through dedup and supersession into the contact's memory (agents/core/remember.py);
    nothing corrected or forgotten comes back. `boost_of`: the memory a positive outcome credits."""
    candidates = curation.admit(s, candidates)
    s["memoryIndex"], memory_events, _ = remember.remember(
        s.get("memoryIndex") or remember.empty_index(), env, candidates, hot_vectors or {})
    if boost_of:
        s["memoryIndex"], boosted = remember.boost_outcome(s["memoryIndex"], env, boost_of)
        memory_events += boosted
    if any(e.event_type != ev.MEMORY_REINFORCED for e in memory_events):
        # the set or text of memories changed (readers key their keyword index on this)
        s["memoryVersion"] = s.get("memoryVersion", 0) + 1
    return memory_events


@rule(ev.MEMORIES_ACCESSED, writes=())
def _access(s: State, env: Envelope, inputs: Inputs) -> Step:
    """/context served these memories at `occurred_at` (the wall clock): recorded (MemoryAccessed, in
    the memories' history), but being shown is not being used. Recency, access frequency and the decay
    clock move when the contact mentions a memory again (remember.touch), not when it is served: what
    was shown once would otherwise be shown forever (issue 23). Not a message: sessions, counters and
    the consolidation clock stay."""
    ids = list(dict.fromkeys(env.payload["memoryIds"]))
    # one event for the response, not one per memory: each derived event is a row written three times
    # (projection, outbox, history) and a record sent, and /context makes one of these per answer.
    # Archived ids stay in it: their rows' statistics move too, though the state no longer lists them.
    return Step([ev.derived(env, ev.MEMORY_ACCESSED, "access", {"memoryIds": ids, "at": env.occurred_at})]
                if ids else [])


@rule(ev.MEMORY_CORRECTION_REQUESTED)
def _correction(s: State, env: Envelope, inputs: Inputs) -> Step:
    """A memory corrected (agents/core/curation.py): MemoryCorrected with its new content's vector when
    the shell embedded it. Not a message: sessions, counters and the consolidation clock stay."""
    vec = inputs.candidates[0] if inputs.candidates else {}
    out = curation.correct(s, env, vec.get("embedding"), vec.get("embeddingModel"))
    return Step(out, memory_events=out)


@rule(ev.MEMORY_FORGET_REQUESTED)
def _forget(s: State, env: Envelope, inputs: Inputs) -> Step:
    """A memory forgotten (agents/core/curation.py): MemoryForgotten; an episode's message leaves the
    window too."""
    out = curation.forget(s, env, inputs.memory)
    return Step(out, memory_events=out)


@rule(ev.SUMMARY_PROPOSED)
def _summary(s: State, env: Envelope, inputs: Inputs) -> Step:
    """A model's summary of a closed session replaces the extractive one (seed 004's fields)."""
    p = env.payload
    key = p.get("personaId") or ""
    last = (s.get("lastSessionSummary") or {}).get(key)
    if last and last.get("sessionId") == p["sessionId"]:
        s["lastSessionSummary"][key] = {"sessionId": p["sessionId"], **p["summary"]}
    return Step([ev.derived(env, ev.SESSION_SUMMARIZED, "summary:llm", {
        "sessionId": p["sessionId"], "personaId": p.get("personaId"), "endedAt": p["endedAt"],
        "summary": p["summary"], "source": "llm"}, occurred_at=p["endedAt"])])


@rule(ev.LABEL_PROPOSED)
def _label(s: State, env: Envelope, inputs: Inputs) -> Step:
    """A model's label for a theme replaces the offline one (consolidation.relabel)."""
    p = env.payload
    out = consolidation.relabel(s, env, p["patternId"], p["label"], p["count"])
    return Step(out, memory_events=out)


@rule(ev.MEMORIES_PROPOSED)
def _proposals(s: State, env: Envelope, inputs: Inputs) -> Step:
    """An LLM's proposals through the same dedup/supersession path as the rules' memories. Consolidation
    due by this event's time runs first, as on a tick in between; the profile follows the tiers' and
    the proposals' memory events like a message's, and the model's own paragraph, when it gave one,
    is the profile (unless a memory of its message was forgotten since: it may still state it)."""
    tiers = consolidation.run_due(s, env, inputs.known, inputs.fresh)
    memory_events = _merge_memories(s, env, inputs.candidates, inputs.hot_vectors)
    consolidation.note_created(s, memory_events)
    rewrite = env.payload.get("profileUpdate")
    accepted = bool(rewrite) and not curation.from_forgotten(s, env.payload.get("sourceEventId"))
    return Step(tiers + memory_events, memory_events=tiers + memory_events, profile_text=rewrite if accepted else None)


@rule(ev.CONTACT_TICK)
def _tick(s: State, env: Envelope, inputs: Inputs) -> Step:
    """Time reached work the contact had due: close a session that has gone silent, run a due
    consolidation tier."""
    out: list[Envelope] = []
    session = s.get("session")
    if session is not None and env.occurred >= parse_time(session["lastActivityAt"]) + timedelta(
            seconds=inputs.config.session_gap_s):
        out += _close_session(s, env, "tick:session")
    tiers = consolidation.run_due(s, env, inputs.known, inputs.fresh)
    return Step(out + tiers, memory_events=tiers)


@rule(ev.INTERACTION_RECORDED, writes=("session", "entities", "lastSessionSummary", "consolidation", "curation", INDEX))
def _interaction(s: State, env: Envelope, inputs: Inputs) -> Step:
    """A message: consolidation due by its time first (as a tick in between would have run it), then
    sessions, counters, the producer's profile fields, the window, entities, mood, and its memories."""
    cfg = inputs.config
    # secrets never reach the window, episodes or summaries (agents/core/redaction.py)
    env, carry = admit(env, s.get(CARRY_KEY), cfg.redaction)
    if carry is None:
        s.pop(CARRY_KEY, None)
    else:
        s[CARRY_KEY] = carry
    tiers = consolidation.run_due(s, env, inputs.known, inputs.fresh)
    _advance_clock(s, env)
    out = tiers + _session_of(s, env, cfg)
    _count(s, env)
    out += _producer_fields(s, env) + _window(s, env, cfg)
    candidates = inputs.candidates
    if candidates:
        candidates, entity_events = link_entities(s, env, candidates)
        out += entity_events
    if env.payload["role"] == "user":
        emotion_events, emotion_memories = emotion.step_message(s, env, inputs.llm_mood,
                                                                message_vector=inputs.message_vector)
        out += emotion_events
        candidates = candidates + emotion_memories
    memory_events = _merge_memories(s, env, candidates, inputs.hot_vectors,
                                    env.payload.get("outcome_of") if env.payload.get("outcome") == "positive" else None)
    consolidation.note_created(s, memory_events)
    return Step(out + memory_events, memory_events=tiers + memory_events)


def _session_of(s: State, env: Envelope, cfg: CoreConfig) -> list[Envelope]:
    """Close the previous session and open a new one after the gap (or a new producer session id);
    the message joins the session."""
    p, at = env.payload, env.occurred
    out: list[Envelope] = []
    s.setdefault("lastSessionSummary", {})
    if sessions.starts_new_session(s["session"], at, cfg.session_gap_s, p.get("session_id")):
        if s["session"] is not None:
            out += _close_session(s, env, "session")
        s["sessionCount"] += 1
        # our own id: a producer may reuse its session id after the gap (it is kept as producerSessionId)
        sid = derived_id(env, "session")
        s["session"] = sessions.open_session(s["sessionCount"], sid, at, p.get("session_id"), p.get("persona_id"))
        s["window"] = []
        out.append(ev.derived(env, ev.SESSION_STARTED, "session:started", {"session": dict(s["session"])}))
    s["session"] = sessions.touch_session(s["session"], at, p["role"])
    if p.get("session_id") and not s["session"].get("producerSessionId"):
        s["session"]["producerSessionId"] = p["session_id"]  # named later: a later switch is detected
    return out


def _count(s: State, env: Envelope) -> None:
    """Counters, first and last seen, and the active-day streak."""
    p, at = env.payload, env.occurred
    s["messageCount"] += 1
    s["userMessageCount"] += p["role"] == "user"
    if s["firstSeen"] is None or at < parse_time(s["firstSeen"]):
        s["firstSeen"] = env.occurred_at
    if s["lastSeen"] is None or at >= parse_time(s["lastSeen"]):
        s["lastSeen"] = env.occurred_at
    s["lastActiveDay"], s["activeStreak"] = sessions.next_streak(
        s["lastActiveDay"], s["activeStreak"], sessions.local_day(at))


def _producer_fields(s: State, env: Envelope) -> list[Envelope]:
    """The profile fields the producer tells us about (a user's name and channel), and the persona."""
    p = env.payload
    out = []
    profile = {k: p.get(k) for k in ("display_name", "channel") if p.get(k)}
    if p["role"] == "user" and profile and (
            profile.get("display_name", s["displayName"]) != s["displayName"]
            or profile.get("channel", s["channel"]) != s["channel"]):
        s["displayName"] = profile.get("display_name", s["displayName"])
        s["channel"] = profile.get("channel", s["channel"])
        out.append(ev.derived(env, ev.CONTACT_PROFILE_UPDATED, "profile",
                              {"displayName": s["displayName"], "channel": s["channel"]}))
    if p.get("persona_id"):
        s["personaId"] = p["persona_id"]
    return out


def _window(s: State, env: Envelope, cfg: CoreConfig) -> list[Envelope]:
    """The session window (history for the chat engine), and the rolling summary every 4 turns."""
    p = env.payload
    s["window"] = sessions.push_window(
        s["window"], {"role": p["role"], "content": p["message"], "occurredAt": env.occurred_at}, cfg.window_size)
    if s["session"]["turnCount"] % summaries.ROLLING_EVERY != 0:
        return []
    s["session"]["rollingSummary"] = summaries.rolling_summary(s["window"])
    return [ev.derived(env, ev.ROLLING_SUMMARY_UPDATED, "rolling", {
        "sessionId": s["session"]["sessionId"], "personaId": s["session"].get("personaId"),
        "summary": s["session"]["rollingSummary"]})]


# ------------------------------------------------- one entry per kind, for callers that fold one kind
def apply_access(state: State, env: Envelope) -> tuple[State, list[Envelope]]:
    return apply(state, env)


def apply_correction(state: State, env: Envelope, vector: Any = None, model: str | None = None
                     ) -> tuple[State, list[Envelope]]:
    """`vector`: the embedding of the new content (the shell computes it, as for extracted memories)."""
    return apply(state, env, Inputs(candidates=[{"embedding": vector, "embeddingModel": model}]))


def apply_forget(state: State, env: Envelope, memory: dict[str, Any] | None = None) -> tuple[State, list[Envelope]]:
    return apply(state, env, Inputs(memory=memory))


def apply_summary(state: State, env: Envelope) -> tuple[State, list[Envelope]]:
    return apply(state, env)


def apply_label(state: State, env: Envelope) -> tuple[State, list[Envelope]]:
    return apply(state, env)


def apply_proposals(state: State, env: Envelope, candidates: list[dict[str, Any]],
                    hot_vectors: dict[str, Any] | None = None, known: consolidation.Known | None = None,
                    fresh: consolidation.Known | None = None) -> tuple[State, list[Envelope]]:
    return apply(state, env, Inputs(candidates=candidates, hot_vectors=hot_vectors, known=known, fresh=fresh))


def apply_tick(state: State, env: Envelope, cfg: CoreConfig = CoreConfig(), known: consolidation.Known | None = None,
               fresh: consolidation.Known | None = None) -> tuple[State, list[Envelope]]:
    return apply(state, env, Inputs(config=cfg, known=known, fresh=fresh))


def apply_interaction(state: State, env: Envelope, candidates: list[dict[str, Any]],
                      cfg: CoreConfig = CoreConfig(), hot_vectors: dict[str, Any] | None = None,
                      llm_mood: dict[str, Any] | None = None, known: consolidation.Known | None = None,
                      fresh: consolidation.Known | None = None, message_vector: Any = None
                      ) -> tuple[State, list[Envelope]]:
    return apply(state, env, Inputs(config=cfg, candidates=candidates, hot_vectors=hot_vectors, llm_mood=llm_mood,
                                    known=known, fresh=fresh, message_vector=message_vector))
