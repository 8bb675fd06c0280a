"""Event types, their current schema versions and payload checks.

Source event (producers -> topic `interactions`):
  InteractionRecorded v2  {role, message, conversation_id, session_id, channel, display_name, persona_id}
  (v1 is upcast: see schemas/upcasters.py)

Control events (same topic, same key, so they are ordered with the contact's messages):
  ContactErased v1        {}  -- right to erasure
  MemoriesAccessed v1     {memoryIds}  -- what /context served (access statistics)
  MemoriesProposed v1     {memories: [{memory, topics, expiration, importance}], profileUpdate, model}
                          -- an LLM's extraction for one message (deferred; merged like the rules' memories)
  SummaryProposed v1      {sessionId, personaId, endedAt, summary}  -- a model's summary of a closed session
  ContactTick v1          {}  -- time has reached work the contact has due (a session to close, ...);
                              occurred_at is the due time, in the contact's event time
  MemoryCorrectionRequested v1 {memoryId, content?, memoryType?, importance?, pinned?, previousContentHash?,
                          speaker?}
                          -- PATCH /contacts/{id}/memories/{memoryId}: an operator's or the contact's correction
  MemoryForgetRequested v1 {memoryId, contentHash?, sourceEventIds?}  -- DELETE /contacts/{id}/memories/{memoryId}

Derived events (agents -> topic `memory-events`, projected into PostgreSQL):
  SessionStarted, SessionClosed, ContactProfileUpdated, MemoryExtracted, MemoryEmbedded,
  MemoryReinforced, MemorySuperseded, MemoryArchived, EntityUpserted, and the consolidation tiers'
  MemoryMerged, MemoryDecayed, EpisodesCompressed, MemoryPruned, MemoryExpired (agents/core/consolidation.py)
  MemoryCorrected v1      {memoryId, at, and what changed: content, contentHash, previousContentHash, speaker,
                          embedding, embeddingModel; memoryType, decayRate; importance; pinned} -- what a MemoryCorrectionRequested changed (agents/core/curation.py)
  MemoryForgotten v1      {memoryId, at}  -- a MemoryForgetRequested applied: the memory's content is shredded
  MemoryAccessed v2       {memoryIds, at}  -- one per MemoriesAccessed (v1 {memoryId, at}, one per memory,
                          is upcast: schemas/upcasters.py)
"""
from __future__ import annotations

from typing import Any

import orjson

from schemas.envelope import Envelope, InvalidEvent, derived_id

INTERACTION_RECORDED = "InteractionRecorded"
CONTACT_ERASED = "ContactErased"
MEMORIES_ACCESSED = "MemoriesAccessed"
CONTACT_TICK = "ContactTick"
MEMORIES_PROPOSED = "MemoriesProposed"
SUMMARY_PROPOSED = "SummaryProposed"
LABEL_PROPOSED = "LabelProposed"
SESSION_SUMMARIZED = "SessionSummarized"
ROLLING_SUMMARY_UPDATED = "RollingSummaryUpdated"
PROFILE_REWRITTEN = "ProfileRewritten"
MOOD_CLASSIFIED = "MoodClassified"
TRIGGER_CREATED = "TriggerCreated"
PATTERN_DETECTED = "PatternDetected"
CHURN_RISK_CHANGED = "ChurnRiskChanged"
MEMORY_ACCESSED = "MemoryAccessed"

SESSION_STARTED = "SessionStarted"
SESSION_CLOSED = "SessionClosed"
CONTACT_PROFILE_UPDATED = "ContactProfileUpdated"
MEMORY_EXTRACTED = "MemoryExtracted"
MEMORY_EMBEDDED = "MemoryEmbedded"
MEMORY_REINFORCED = "MemoryReinforced"
MEMORY_SUPERSEDED = "MemorySuperseded"
MEMORY_ARCHIVED = "MemoryArchived"
MEMORY_MERGED = "MemoryMerged"
MEMORY_DECAYED = "MemoryDecayed"
MEMORY_PRUNED = "MemoryPruned"
MEMORY_EXPIRED = "MemoryExpired"
EPISODES_COMPRESSED = "EpisodesCompressed"
PATTERN_RELABELLED = "PatternRelabelled"
ENTITY_UPSERTED = "EntityUpserted"
MEMORY_CORRECTION_REQUESTED = "MemoryCorrectionRequested"
MEMORY_FORGET_REQUESTED = "MemoryForgetRequested"
MEMORY_CORRECTED = "MemoryCorrected"
MEMORY_FORGOTTEN = "MemoryForgotten"

CURRENT_VERSIONS: dict[str, int] = {
    INTERACTION_RECORDED: 2,
    CONTACT_ERASED: 1,
    MEMORIES_ACCESSED: 1,
    CONTACT_TICK: 1,
    MEMORIES_PROPOSED: 1,
    SUMMARY_PROPOSED: 1,
    LABEL_PROPOSED: 1,
    SESSION_SUMMARIZED: 1,
    ROLLING_SUMMARY_UPDATED: 1,
    PROFILE_REWRITTEN: 1,
    MOOD_CLASSIFIED: 1,
    TRIGGER_CREATED: 1,
    PATTERN_DETECTED: 1,
    CHURN_RISK_CHANGED: 1,
    MEMORY_ACCESSED: 2,
    SESSION_STARTED: 1,
    SESSION_CLOSED: 1,
    CONTACT_PROFILE_UPDATED: 1,
    MEMORY_EXTRACTED: 1,
    MEMORY_EMBEDDED: 1,
    MEMORY_REINFORCED: 1,
    MEMORY_SUPERSEDED: 1,
    MEMORY_ARCHIVED: 1,
    MEMORY_MERGED: 1,
    MEMORY_DECAYED: 1,
    MEMORY_PRUNED: 1,
    MEMORY_EXPIRED: 1,
    EPISODES_COMPRESSED: 1,
    PATTERN_RELABELLED: 1,
    ENTITY_UPSERTED: 1,
    MEMORY_CORRECTION_REQUESTED: 1,
    MEMORY_FORGET_REQUESTED: 1,
    MEMORY_CORRECTED: 1,
    MEMORY_FORGOTTEN: 1,
}

SOURCE_TYPES = frozenset({INTERACTION_RECORDED, CONTACT_ERASED, MEMORIES_ACCESSED, CONTACT_TICK, MEMORIES_PROPOSED,
                          SUMMARY_PROPOSED, LABEL_PROPOSED, MEMORY_CORRECTION_REQUESTED, MEMORY_FORGET_REQUESTED})
MAX_LABEL_CHARS = 120
SUMMARY_FIELDS = ("one_liner", "what_mattered", "open_loops", "commitments", "people", "tone")
MAX_ACCESSED_IDS = 200

# Contract limits (CONTRACT.md, POST /ingest); the worker enforces them too, for producers that
# publish straight to the topic.
MAX_MESSAGE_BYTES = 16 * 1024
MAX_ID_CHARS = 128
ROLES = ("user", "assistant")
OPTIONAL_STRINGS = ("conversation_id", "session_id", "channel", "display_name", "persona_id", "outcome_of")
# Tenant (business) memory (seed 002): events with scope "tenant" are recorded under this reserved
# contact of the tenant, so they are ordered on one key and fold through the same engine.
TENANT_CONTACT = "_tenant"
SCOPES = ("contact", "tenant")
OUTCOMES = ("positive", "negative", "neutral")
# a correction (MemoryCorrectionRequested): what it may change, and its bounds
MEMORY_TYPE_NAMES = ("fact", "preference", "episode", "pattern")
CORRECTION_FIELDS = ("content", "memoryType", "importance", "pinned")
# the characters JSON Schema's \s matches (ECMA-262): a content made only of these is blank
BLANK_CHARS = ("\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
               "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


def correction_errors(p: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, problem) pairs for a MemoryCorrectionRequested payload; empty when valid. The content is
    bounded like a message (MAX_MESSAGE_BYTES of UTF-8) and must say something (not only whitespace)."""
    errs: list[tuple[str, str]] = []
    mid = p.get("memoryId")
    if not isinstance(mid, str) or not 1 <= len(mid) <= MAX_ID_CHARS:
        errs.append(("memoryId", f"required string of 1-{MAX_ID_CHARS} characters"))
    if not any(p.get(f) is not None for f in CORRECTION_FIELDS):
        errs.append(("content", "give at least one of: " + ", ".join(CORRECTION_FIELDS)))
    c = p.get("content")
    if c is not None:
        if not isinstance(c, str) or not c.strip(BLANK_CHARS):
            errs.append(("content", "a string that is not blank"))
        elif len(c.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
            errs.append(("content", f"longer than {MAX_MESSAGE_BYTES} bytes of UTF-8"))
    if p.get("memoryType") is not None and p.get("memoryType") not in MEMORY_TYPE_NAMES:
        errs.append(("memoryType", "one of " + ", ".join(MEMORY_TYPE_NAMES)))
    imp = p.get("importance")
    if imp is not None and (isinstance(imp, bool) or not isinstance(imp, (int, float)) or not 0.0 <= imp <= 1.0):
        errs.append(("importance", "a number from 0 to 1"))
    if p.get("pinned") is not None and not isinstance(p.get("pinned"), bool):
        errs.append(("pinned", "true or false"))
    h = p.get("previousContentHash")
    if h is not None and (not isinstance(h, str) or len(h) > 64):
        errs.append(("previousContentHash", "a string of at most 64 characters"))
    sp = p.get("speaker")
    if sp is not None and (not isinstance(sp, str) or len(sp) > MAX_ID_CHARS * 2):
        errs.append(("speaker", "a string of at most 256 characters"))
    return errs


def interaction_errors(p: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, problem) pairs for an InteractionRecorded v2 payload; empty when valid."""
    errs: list[tuple[str, str]] = []
    if p.get("role") not in ROLES:
        errs.append(("role", "must be 'user' or 'assistant'"))
    m = p.get("message")
    if not isinstance(m, str):
        errs.append(("message", "required string"))
    elif len(m.encode("utf-8")) > MAX_MESSAGE_BYTES:
        errs.append(("message", f"longer than {MAX_MESSAGE_BYTES} bytes of UTF-8"))
    if p.get("scope") not in (None, *SCOPES):
        errs.append(("scope", "must be 'contact' or 'tenant'"))
    if p.get("outcome") not in (None, *OUTCOMES):
        errs.append(("outcome", "must be 'positive', 'negative' or 'neutral'"))
    for f in OPTIONAL_STRINGS:
        v = p.get(f)
        if v is not None and (not isinstance(v, str) or len(v) > MAX_ID_CHARS * 2):
            errs.append((f, "must be a string of at most 256 characters"))
    return errs


# the event types whose payload is checked field by field: [(field, why)], empty when it is valid
_PAYLOAD_ERRORS = {INTERACTION_RECORDED: interaction_errors, MEMORY_CORRECTION_REQUESTED: correction_errors}


def validate_payload(env: Envelope) -> None:
    """Raise InvalidEvent for a source event that the agents cannot process."""
    for name, value in (("contact_id", env.contact_id), ("tenant_id", env.tenant_id)):
        if not (1 <= len(value) <= MAX_ID_CHARS):
            raise InvalidEvent(f"{name} must be 1-{MAX_ID_CHARS} characters")
    errors_of = _PAYLOAD_ERRORS.get(env.event_type)
    if errors_of is not None:
        errs = errors_of(env.payload)
        if errs:
            raise InvalidEvent("; ".join(f"payload.{f}: {why}" for f, why in errs))
    elif env.event_type == MEMORIES_ACCESSED:
        ids = env.payload.get("memoryIds")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or len(ids) > MAX_ACCESSED_IDS:
            raise InvalidEvent(f"payload.memoryIds: a list of at most {MAX_ACCESSED_IDS} strings")
    elif env.event_type == MEMORIES_PROPOSED:
        items, src = env.payload.get("memories"), env.payload.get("sourceEventId")
        ok = isinstance(items, list) and isinstance(src, str) and all(
            isinstance(m, dict) and isinstance(m.get("memory"), str) and isinstance(m.get("topics"), list)
            and m.get("expiration") in ("1d", "3d", "7d", "30d", "permanent")
            and m.get("importance") in ("low", "medium", "high") for m in items)
        if not ok:
            raise InvalidEvent("payload: memories [{memory, topics, expiration, importance}] and sourceEventId")
    elif env.event_type == SUMMARY_PROPOSED:
        sm = env.payload.get("summary")
        if not (isinstance(env.payload.get("sessionId"), str) and isinstance(env.payload.get("endedAt"), str)
                and isinstance(sm, dict) and isinstance(sm.get("one_liner"), str)
                and all(isinstance(sm.get(f), list) for f in SUMMARY_FIELDS[1:5])):
            raise InvalidEvent("payload: sessionId, endedAt and summary {one_liner, what_mattered, open_loops, "
                               "commitments, people, tone}")
    elif env.event_type == LABEL_PROPOSED:
        label = env.payload.get("label")
        if not (isinstance(env.payload.get("patternId"), str) and isinstance(env.payload.get("count"), int)
                and isinstance(label, str) and 0 < len(label) <= MAX_LABEL_CHARS):
            raise InvalidEvent(f"payload: patternId, count and label (1-{MAX_LABEL_CHARS} characters)")
    elif env.event_type == MEMORY_FORGET_REQUESTED:
        mid, src, h = env.payload.get("memoryId"), env.payload.get("sourceEventIds"), env.payload.get("contentHash")
        if not isinstance(mid, str) or not 1 <= len(mid) <= MAX_ID_CHARS:
            raise InvalidEvent(f"payload.memoryId: required string of 1-{MAX_ID_CHARS} characters")
        if src is not None and not (isinstance(src, list) and len(src) <= MAX_ACCESSED_IDS
                                    and all(isinstance(x, str) and len(x) <= MAX_ID_CHARS for x in src)):
            raise InvalidEvent(f"payload.sourceEventIds: a list of at most {MAX_ACCESSED_IDS} ids")
        if h is not None and (not isinstance(h, str) or len(h) > 64):
            raise InvalidEvent("payload.contentHash: a string of at most 64 characters")
    elif env.event_type not in CURRENT_VERSIONS:
        raise InvalidEvent(f"unknown event_type {env.event_type!r}")


def interaction(*, event_id: str, tenant_id: str, contact_id: str, occurred_at: str, recorded_at: str,
                role: str, message: str, correlation_id: str | None = None, **optional: Any) -> Envelope:
    payload = {"role": role, "message": message}
    payload.update({k: optional.get(k) for k in OPTIONAL_STRINGS})
    for k in ("scope", "outcome"):  # additive fields: absent in events written before them
        if optional.get(k) is not None:
            payload[k] = optional[k]
    return Envelope(event_id=event_id, event_type=INTERACTION_RECORDED,
                    schema_version=CURRENT_VERSIONS[INTERACTION_RECORDED], tenant_id=tenant_id,
                    contact_id=contact_id, occurred_at=occurred_at, recorded_at=recorded_at, payload=payload,
                    causation_id=None, correlation_id=correlation_id or event_id)


def contact_erased(*, event_id: str, tenant_id: str, contact_id: str, at: str) -> Envelope:
    return Envelope(event_id=event_id, event_type=CONTACT_ERASED, schema_version=CURRENT_VERSIONS[CONTACT_ERASED],
                    tenant_id=tenant_id, contact_id=contact_id, occurred_at=at, recorded_at=at, payload={},
                    causation_id=None, correlation_id=event_id)


def memories_accessed(*, event_id: str, tenant_id: str, contact_id: str, memory_ids: list[str], at: str,
                      recorded_at: str) -> Envelope:
    return Envelope(event_id=event_id, event_type=MEMORIES_ACCESSED,
                    schema_version=CURRENT_VERSIONS[MEMORIES_ACCESSED], tenant_id=tenant_id, contact_id=contact_id,
                    occurred_at=at, recorded_at=recorded_at, payload={"memoryIds": memory_ids}, causation_id=None,
                    correlation_id=event_id)


def memory_correction_requested(*, event_id: str, tenant_id: str, contact_id: str, memory_id: str, at: str,
                                changes: dict[str, Any], previous_content_hash: str | None = None,
                                speaker: str | None = None) -> Envelope:
    """PATCH /contacts/{id}/memories/{memoryId}: `changes` holds the CORRECTION_FIELDS given (content,
    memoryType, importance, pinned). `previous_content_hash`: the content the caller saw (the fold's own
    record of the memory wins; this names what to keep out for a memory the fold no longer holds);
    `speaker`: the memory's speaker (who said it; never changes), which its new text is indexed with."""
    payload: dict[str, Any] = {"memoryId": memory_id,
                               **{k: changes[k] for k in CORRECTION_FIELDS if changes.get(k) is not None}}
    if previous_content_hash is not None:
        payload["previousContentHash"] = previous_content_hash
    if speaker is not None and "content" in payload:
        payload["speaker"] = speaker
    return Envelope(event_id=event_id, event_type=MEMORY_CORRECTION_REQUESTED,
                    schema_version=CURRENT_VERSIONS[MEMORY_CORRECTION_REQUESTED], tenant_id=tenant_id,
                    contact_id=contact_id, occurred_at=at, recorded_at=at, payload=payload, causation_id=None,
                    correlation_id=event_id)


def memory_forget_requested(*, event_id: str, tenant_id: str, contact_id: str, memory_id: str, at: str,
                            content_hash: str | None = None, source_event_ids: list[str] | None = None) -> Envelope:
    """DELETE /contacts/{id}/memories/{memoryId}. `content_hash`, `source_event_ids`: the memory as the
    caller saw it, for a memory the fold no longer holds (agents/core/curation.forget)."""
    payload: dict[str, Any] = {"memoryId": memory_id}
    if content_hash is not None:
        payload["contentHash"] = content_hash
    if source_event_ids:
        payload["sourceEventIds"] = list(source_event_ids)[:MAX_ACCESSED_IDS]
    return Envelope(event_id=event_id, event_type=MEMORY_FORGET_REQUESTED,
                    schema_version=CURRENT_VERSIONS[MEMORY_FORGET_REQUESTED], tenant_id=tenant_id,
                    contact_id=contact_id, occurred_at=at, recorded_at=at, payload=payload,
                    causation_id=None, correlation_id=event_id)


def memories_proposed(*, source: Envelope, model: str, memories: list[dict[str, Any]],
                      profileUpdate: str | None) -> Envelope:  # noqa: N803
    """Deterministic id from the message it is about: a redelivered message proposes the same event."""
    return Envelope(event_id=derived_id(source, "llm-extraction"), event_type=MEMORIES_PROPOSED,
                    schema_version=CURRENT_VERSIONS[MEMORIES_PROPOSED], tenant_id=source.tenant_id,
                    contact_id=source.contact_id, occurred_at=source.occurred_at, recorded_at=source.recorded_at,
                    payload={"memories": memories, "profileUpdate": profileUpdate, "model": model,
                             "sourceEventId": source.event_id},
                    causation_id=source.event_id, correlation_id=source.correlation_id or source.event_id)


def summary_proposed(*, closed: Envelope, summary: dict[str, Any], model: str) -> Envelope:
    """For the SessionClosed event `closed`; deterministic id (a redelivery proposes the same event)."""
    s = closed.payload["session"]
    return Envelope(event_id=derived_id(closed, "llm-summary"), event_type=SUMMARY_PROPOSED,
                    schema_version=CURRENT_VERSIONS[SUMMARY_PROPOSED], tenant_id=closed.tenant_id,
                    contact_id=closed.contact_id, occurred_at=s["endedAt"], recorded_at=closed.recorded_at,
                    payload={"sessionId": s["sessionId"], "personaId": s.get("personaId"), "endedAt": s["endedAt"],
                             "summary": summary, "model": model},
                    causation_id=closed.event_id, correlation_id=closed.correlation_id)


def label_proposed(*, compressed: Envelope, label: str, model: str) -> Envelope:
    """A model's label for the theme of the EpisodesCompressed event `compressed`, for the theme as it
    stood then (`count` episodes: a later growth makes it stale); deterministic id."""
    pattern = compressed.payload["pattern"]
    return Envelope(event_id=derived_id(compressed, "llm-label"), event_type=LABEL_PROPOSED,
                    schema_version=CURRENT_VERSIONS[LABEL_PROPOSED], tenant_id=compressed.tenant_id,
                    contact_id=compressed.contact_id, occurred_at=compressed.occurred_at,
                    recorded_at=compressed.recorded_at,
                    payload={"patternId": pattern["id"], "count": compressed.payload.get("count", 0),
                             "label": label, "model": model},
                    causation_id=compressed.event_id, correlation_id=compressed.correlation_id)


def contact_tick(*, tenant_id: str, contact_id: str, due_at: str, recorded_at: str,
                 occurred_at: str | None = None) -> Envelope:
    """Deterministic id: every scheduler pass that finds the same due work emits the same event.
    `occurred_at`: the contact's event time when the tick is emitted (default: the due time)."""
    import hashlib

    eid = "tick-" + hashlib.sha1(f"{tenant_id}/{contact_id}@{due_at}".encode()).hexdigest()[:24]
    return Envelope(event_id=eid, event_type=CONTACT_TICK, schema_version=CURRENT_VERSIONS[CONTACT_TICK],
                    tenant_id=tenant_id, contact_id=contact_id, occurred_at=occurred_at or due_at,
                    recorded_at=recorded_at, payload={}, causation_id=None, correlation_id=eid)


def derived(source: Envelope, event_type: str, step: str, payload: dict[str, Any],
            occurred_at: str | None = None) -> Envelope:
    """A derived event: deterministic id from (source, step), caused by and correlated with source."""
    return Envelope(event_id=derived_id(source, step), event_type=event_type,
                    schema_version=CURRENT_VERSIONS[event_type], tenant_id=source.tenant_id,
                    contact_id=source.contact_id, occurred_at=occurred_at or source.occurred_at,
                    recorded_at=source.recorded_at, payload=payload, causation_id=source.event_id,
                    correlation_id=source.correlation_id or source.event_id)


def stored_payload(e: Envelope) -> str:
    """A derived event's payload as kept (the projection's `events` table, webhook bodies): vectors are large
    and live in `memories` already; a closed session's turns are in the ledger."""
    p = e.payload
    if e.event_type == MEMORY_EXTRACTED and "embedding" in p["memory"]:
        p = {**p, "memory": {k: v for k, v in p["memory"].items() if k != "embedding"}}
    elif e.event_type == EPISODES_COMPRESSED and "embedding" in p["pattern"]:
        p = {**p, "pattern": {k: v for k, v in p["pattern"].items() if k != "embedding"}}
    elif e.event_type in (MEMORY_EMBEDDED, MEMORY_CORRECTED):
        p = {k: v for k, v in p.items() if k not in ("embedding", "embeddingModel")}
    elif e.event_type == SESSION_CLOSED:  # the turns are in the ledger already
        p = {k: v for k, v in p.items() if k != "turns"}
    return orjson.dumps(p).decode()
