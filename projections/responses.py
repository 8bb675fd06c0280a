"""The HTTP API's answers as pydantic models, for /openapi.json: the JSON shapes CONTRACT.md fixes
(camelCase fields, and `context_text`, `memory_budget`, `as_of` as the contract spells them).

They describe, they do not filter: the handlers return their JSON themselves (orjson, no second
validation on the hot path), and every model allows extra fields, because the contract lets an answer
carry additive fields. tests/test_openapi.py holds them to what the routes really answer (every field a
real answer carries is declared, every required one is there) and to the client's result types
(clients/python)."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Stage = Literal["new", "building", "established", "deep", "fading", "dormant"]


class Answer(BaseModel):
    # open: an answer may gain fields (CONTRACT.md: extend, never break)
    model_config = ConfigDict(extra="allow")


# ------------------------------------------------------------------------------------------ errors
class FieldProblem(Answer):
    field: str = Field(description="the bad field: a parameter, a body field, or `body`")
    problem: str
    index: int | None = Field(None, description="the event's position in an /ingest batch")


class ErrorBody(Answer):
    error: str
    errors: list[FieldProblem] | None = None
    detail: str | None = Field(None, description="the JSON parser's message, when the body is not JSON")


class Unavailable(ErrorBody):
    """503: the database does not answer (projections/api.DatabaseGuard); retry later."""
    reason: str = Field(description="why, e.g. \"the database did not answer within 1 s\"")


class Backlogged(ErrorBody):
    """429 from /ingest: the tenant has too many unprocessed events (sent with Retry-After)."""
    tenantId: str
    backlog: int
    limit: int


class NotReflected(ErrorBody):
    """504 from /context?after=: the event is not in the projections within 5 s."""
    event_id: str


# ------------------------------------------------------------------------------------------ health
class Lag(Answer):
    events: int = Field(description="ledger events the live projection has not applied")
    oldestAgeS: float | None = Field(description="age of the oldest of them, seconds")


class Health(Answer):
    status: Literal["ok", "degraded", "starting", "unavailable"]
    degraded: bool
    reasons: list[str]
    broker: bool
    database: bool
    cache: bool
    workers: int = Field(description="live worker processes")
    ok: bool
    lag: Lag | None = Field(None, description="absent while the database is unreachable")


# ------------------------------------------------------------------------------------------ ingest
class IngestAccepted(Answer):
    accepted: int
    eventIds: list[str] = Field(description="one per event, in order (generated where the event named none)")
    duplicates: int = Field(description="events whose event_id was accepted before (changed nothing)")


# ----------------------------------------------------------------------------------------- context
class ContactInfo(Answer):
    contactId: str
    displayName: str | None
    channel: str | None


class OutreachHours(Answer):
    startHour: int
    endHour: int
    label: str


class ContactState(Answer):
    mood: str
    moodConfidence: float
    energy: str
    style: str
    relationshipStage: Stage
    activeStreak: int
    sessionCount: int
    churnRisk: float
    moodUsual: str | None = Field(None, description="the contact's baseline, when this mood departs from it")
    preferredOutreachHours: OutreachHours | None = None


class Memory(Answer):
    id: str
    memoryType: str = Field(description="fact, preference, episode, pattern, ...")
    content: str
    importance: float
    score: float | None = Field(description="rank score; null for an entity card's memory")
    entityRefs: list[str]
    sourceEventIds: list[str]
    createdAt: datetime | None
    tier: Literal["active", "archive"] | None = Field(None, description="working set or archive")


class ContextMemory(Memory):
    section: Literal["profile", "memories", "cards"] = Field(
        description="where context_text states it: the Knows/Preferences lines, the MEMORIES list, an entity card")


class Entity(Answer):
    ref: str = Field(description='"<type>:<slug>", e.g. "pet:bruno"')
    entityType: str
    displayName: str | None
    metadata: dict[str, Any]


class Turn(Answer):
    role: str
    content: str
    occurredAt: datetime | None


class Context(Answer):
    contact: ContactInfo
    state: ContactState
    memories: list[ContextMemory] = Field(description="ranked, best first, packed into memory_budget tokens")
    entities: list[Entity]
    history: list[Turn] = Field(description="the recent session window")
    context_text: str
    memory_budget: int
    as_of: datetime = Field(description="the time recency and decay were evaluated at")


# --------------------------------------------------------------------------------------- memories
class MemoryDetail(Memory):
    scope: str
    status: str = Field(description="active, expired, superseded, merged, compressed, pruned or archived")
    confidence: float | None
    source: str | None
    pinned: bool
    memoryKey: str | None
    topics: list[str]
    validFrom: datetime | None
    validTo: datetime | None
    retiredAt: datetime | None
    expiresAt: datetime | None
    supersededBy: str | None
    accessCount: int
    accessedAt: datetime | None
    updatedAt: datetime | None
    personaId: str | None


class MemoryList(Answer):
    contactId: str
    tenantId: str
    memories: list[MemoryDetail] = Field(description="oldest first (created, then id)")
    nextCursor: str | None = Field(None, description=(
        "with `limit` or `cursor`: pass it as `cursor` for the next page; null on the last page "
        "(without either: every memory, and null)"))


# ---------------------------------------------------------------------------------------- contacts
class ContactSummary(Answer):
    contactId: str
    displayName: str | None
    channel: str | None
    lastSeenAt: datetime | None = Field(description="the contact's latest message (its event time)")
    firstSeenAt: datetime | None
    relationshipStage: Stage
    memoryCount: int = Field(description="active memories (the working set and those not yet marked expired)")
    messageCount: int
    sessionCount: int
    mood: str | None = Field(description="the latest classified mood (null: none yet)")


class ContactList(Answer):
    tenantId: str
    contacts: list[ContactSummary]
    nextCursor: str | None = Field(description="pass it as `cursor` for the next page; null on the last page")


class TenantCount(Answer):
    tenantId: str
    contacts: int


class TenantList(Answer):
    tenantId: str = Field(description="the key's own tenant")
    admin: bool = Field(description="whether the key may act for other tenants")
    tenants: list[TenantCount] = Field(description="by id: every tenant with contacts for an admin key (at most "
                                                   "1,000), else the key's own")


class MoodPoint(Answer):
    at: datetime = Field(description="the message's time")
    mood: str
    energy: str = Field(description="high, medium or low")
    style: str
    confidence: float
    unusual: bool = Field(description="departs from the contact's baseline")
    source: str = Field(description="offline, llm or previous")
    sourceEventId: str = Field(description="the message classified")


class Span(Answer):
    kind: Literal["difficult_period", "pattern"] = Field(description=(
        "difficult_period: a run of negative moods the fold flags (3 or more in a row); pattern: the episodes "
        "consolidation compressed into one pattern memory"))
    start: datetime
    end: datetime
    label: str
    count: int = Field(description="messages in the run, or episodes in the pattern")
    memoryId: str | None = Field(None, description="the pattern memory")


class Timeline(Answer):
    contactId: str
    tenantId: str
    moods: list[MoodPoint] = Field(description="oldest first: the last `limit` classified messages")
    spans: list[Span] = Field(description="by start time")
    truncated: bool = Field(description="older moods exist beyond `limit`")


class MemoryHistoryEntry(Answer):
    event_id: str = Field(description="the derived event's id (events table)")
    kind: str = Field(description="extracted, reinforced, corrected, superseded, merged, absorbed, embedded, "
                                  "compressed, relabelled, archived, expired, pruned, accessed, ...")
    content: str | None = Field(None, description="the memory's text from this event on, when the event changed it")
    at: datetime | None
    eventType: str = Field(description='the event type, e.g. "MemoryCorrected"')
    causationId: str | None = Field(description="the event it was derived from (a message, a correction request)")


class MemoryWithHistory(MemoryDetail):
    """GET /contacts/{id}/memories/{memoryId}: the memory as GET /contacts/{id}/memories lists it, and
    every derived event about it, oldest first."""
    contactId: str
    tenantId: str
    history: list[MemoryHistoryEntry]


class CurationAccepted(Answer):
    """202 from PATCH or DELETE /contacts/{id}/memories/{memoryId}: the request is recorded (a
    MemoryCorrectionRequested or MemoryForgetRequested event); pass `eventId` as `after=` to read it."""
    eventId: str
    memoryId: str


class NoSuchMemory(ErrorBody):
    """404: the contact has no memory of this id (never had one, or it was forgotten)."""
    memory_id: str


class Erasure(Answer):
    accepted: bool
    erasureEventId: str


# ---------------------------------------------------------------------------------------- triggers
class Trigger(Answer):
    id: str
    kind: str = Field(description="check_in, crisis, owner_insight")
    dueAt: datetime | None
    reason: str
    status: str
    severity: str | None
    humanReview: bool
    sourceEventIds: list[str]
    createdAt: datetime | None
    category: str | None = Field(None, description="a crisis flag's category")
    level: str | None = Field(None, description=(
        "a crisis flag's clinical level: a C-SSRS level (wish_to_be_dead, ideation, method, intent, plan, "
        "preparatory, attempt), self_harm, a warning sign (farewell, giving_away, arrangements, burden, means, "
        "timeline, decided), hopelessness, third_party or help_seeking"))
    cue: str | None = Field(None, description=(
        "a crisis flag's cue: the phrase a rule matched or the sentence the model scored highest"))
    score: float | None = Field(None, description="a crisis flag's risk-model probability (the conversation included)")
    detector: str | None = Field(None, description="what raised a crisis flag: rules, model or rules+model")
    context: str | None = Field(None, description="what the conversation so far added to a crisis flag's score")
    audience: str | None = Field(None, description="who an insight is for (owner)")


class TriggerList(Answer):
    contactId: str
    tenantId: str
    triggers: list[Trigger]


# ----------------------------------------------------------------------------------------- payload
class ChatMessage(Answer):
    role: str
    content: str


class SectionBudget(Answer):
    used: int
    limit: int
    items: int | None = None
    dropped: int | None = None
    filtered: bool | None = None
    summarized: bool | None = None


class Payload(Answer):
    messages: list[ChatMessage] = Field(description="ready for an OpenAI-compatible chat completion")
    budget: dict[str, SectionBudget] = Field(description="per section (and total): tokens used and the limit")
    tools: list[dict[str, Any]] | None = Field(None, description="the tools that fit their budget")


# ------------------------------------------------------------------------------------------ export
class MemoryEvent(Answer):
    eventId: str
    eventType: str
    occurredAt: datetime | None
    causationId: str | None


class ExportedMemory(MemoryDetail):
    history: list[MemoryEvent]


class ExportedEntity(Entity):
    aliases: list[str]
    firstSeen: datetime | None
    lastSeen: datetime | None
    mentions: int


class ExportedSession(Answer):
    session_id: str
    idx: int
    persona_id: str | None
    started_at: datetime | None
    last_activity_at: datetime | None
    ended_at: datetime | None
    turn_count: int


class ExportedMessage(Answer):
    """A ledger row: its ids and times, then the event's payload fields (role, message, ...)."""
    eventId: str
    eventType: str
    occurredAt: datetime | None
    recordedAt: datetime | None
    forgotten: bool | None = Field(None, description="true: its text was a forgotten episode, left out (message null)")


class Export(Answer):
    contactId: str
    tenantId: str
    exportedAt: datetime
    state: dict[str, Any] | None = Field(description="the contact's projected state, as the workers keep it")
    memories: list[ExportedMemory]
    entities: list[ExportedEntity]
    sessions: list[ExportedSession]
    triggers: list[Trigger]
    messages: list[ExportedMessage]


# ---------------------------------------------------------------------------------------- webhooks
class Webhook(Answer):
    id: str = Field(description='"wh_" and 16 hex digits')
    tenantId: str
    url: str
    events: list[str] = Field(description='event filters: "TriggerCreated", "TriggerCreated:crisis", ..., "*"')
    description: str | None
    createdAt: datetime
    pending: int = Field(description="deliveries waiting for their next attempt")
    dead: int = Field(description="dead-lettered deliveries (GET .../deliveries?status=dead says why)")


class WebhookCreated(Webhook):
    secret: str = Field(description='the signing secret ("whsec_..."): shown in this answer only')


class WebhookList(Answer):
    tenantId: str
    webhooks: list[Webhook] = Field(description="oldest first; never their secrets")


class WebhookDeleted(Answer):
    id: str
    deleted: bool


class Delivery(Answer):
    deliveryId: int
    eventId: str = Field(description="also the `webhook-id` header: the same on every attempt")
    eventType: str
    contactId: str
    status: Literal["pending", "delivered", "dead"]
    attempts: int
    nextAttemptAt: datetime | None = Field(description="when a pending delivery is tried next; null otherwise")
    lastStatus: int | None = Field(description="the receiver's last HTTP status (null: no answer)")
    lastError: str | None
    createdAt: datetime
    finishedAt: datetime | None


class DeliveryList(Answer):
    webhookId: str
    deliveries: list[Delivery] = Field(description="newest first")


class Redelivery(Answer):
    deliveryId: int
    status: Literal["pending"]


class NoSuchWebhook(ErrorBody):
    webhookId: str


class NoSuchDelivery(ErrorBody):
    deliveryId: int


class TooManyWebhooks(ErrorBody):
    """409 from POST /webhooks: the tenant has its maximum of subscriptions."""
    tenantId: str


class NotRetryable(ErrorBody):
    """409 from .../retry: only a dead delivery is sent again."""
    deliveryId: int
