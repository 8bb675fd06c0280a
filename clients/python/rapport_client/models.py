"""What the rapport API answers, as typed results, and the event you send.

Attributes are snake_case (`memory.memory_type`); the JSON names are the API's (`memoryType`), kept as
aliases, so `model_dump(by_alias=True)` gives the API's JSON back. Every result keeps fields it does not
know (a newer server may add some): they are attributes under their JSON name, and in `model_dump()`.
The server's twins are projections/responses.py; tests/test_openapi.py holds the two together."""
from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any, Dict, List, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError
from pydantic.alias_generators import to_camel


class Result(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class SnakeResult(BaseModel):
    """For the few answers whose JSON names are snake_case already."""
    model_config = ConfigDict(populate_by_name=True, extra="allow")


# ------------------------------------------------------------------------------------------ sending
def new_event_id() -> str:
    return str(uuid.uuid4())


class Body(BaseModel):
    """What the client sends. A missing or mistyped field raises the client's InvalidRequest (a
    RapportError and a ValueError, naming each field), not pydantic's own ValidationError."""

    if not TYPE_CHECKING:  # type checkers keep pydantic's signature: each field, typed
        def __init__(self, **data: Any):
            try:
                super().__init__(**data)
            except ValidationError as e:
                from rapport_client.errors import from_pydantic  # errors imports this module
                raise from_pydantic(type(self).__name__, e) from None

    @classmethod
    def model_validate(cls, obj: Any, **options: Any) -> Any:
        """As pydantic's, raising InvalidRequest (pydantic runs the __init__ above, and wraps its error)."""
        try:
            return super().model_validate(obj, **options)
        except ValidationError as e:
            from rapport_client.errors import InvalidRequest, from_pydantic
            inner = [problem.get("ctx", {}).get("error") for problem in e.errors()]
            if len(inner) == 1 and isinstance(inner[0], InvalidRequest):
                raise inner[0] from None
            raise from_pydantic(cls.__name__, e) from None


class Event(Body):
    """One chat message for POST /ingest (a dict with these keys does as well). `event_id` is the
    idempotency key: the client fills in a fresh one when it is left out, so a retried request can
    never record the message twice. Values are checked by the API, which names every bad field."""
    model_config = ConfigDict(extra="allow")

    contact_id: str
    role: str = Field(description='"user" or "assistant"')
    message: str
    tenant_id: Optional[str] = None
    event_id: Optional[str] = None
    conversation_id: Optional[str] = None
    session_id: Optional[str] = None
    channel: Optional[str] = None
    display_name: Optional[str] = None
    persona_id: Optional[str] = None
    occurred_at: Optional[datetime] = Field(None, description="timezone-aware; default: when the API receives it")
    scope: Optional[str] = Field(None, description='"contact" (default) or "tenant": business memory')
    outcome_of: Optional[str] = Field(None, description="the event_id of an earlier decision this reports on")
    outcome: Optional[str] = Field(None, description='"positive", "negative" or "neutral"')


class PayloadRequest(Body):
    """The body of POST /payload."""
    contact_id: str
    message: str
    tenant_id: Optional[str] = None
    persona_id: Optional[str] = None
    system_prompt: Optional[str] = None
    service_data: Any = None
    tools: Optional[List[Dict[str, Any]]] = None
    after: Optional[str] = None


class CorrectionRequest(Body):
    """The body of PATCH /contacts/{id}/memories/{memory_id}: at least one of the changes."""
    model_config = ConfigDict(populate_by_name=True)
    content: Optional[str] = None
    memory_type: Optional[str] = Field(None, alias="memoryType", description="fact, preference, episode or pattern")
    importance: Optional[float] = Field(None, description="0 to 1")
    pinned: Optional[bool] = None
    tenant_id: Optional[str] = None


class WebhookRequest(Body):
    """The body of POST /webhooks."""
    url: str
    events: List[str] = Field(description='"TriggerCreated", "TriggerCreated:crisis", "MemoryExtracted", ..., "*"')
    description: Optional[str] = None
    tenant_id: Optional[str] = None


# ------------------------------------------------------------------------------------------ errors
class FieldProblem(Result):
    field: str
    problem: str
    index: Optional[int] = None


# ------------------------------------------------------------------------------------------ health
class Lag(Result):
    events: int
    oldest_age_s: Optional[float] = Field(alias="oldestAgeS")


class Health(Result):
    status: Literal["ok", "degraded", "starting", "unavailable"]
    degraded: bool
    reasons: List[str]
    broker: bool
    database: bool
    cache: bool
    workers: int
    ok: bool
    lag: Optional[Lag] = None


# ------------------------------------------------------------------------------------------ ingest
class Receipt(Result):
    """POST /ingest's answer. Pass it as `after=` to read your own writes: the client waits for the
    last event it recorded for that contact."""
    accepted: int
    event_ids: List[str]
    duplicates: int
    _last: Dict[str, str] = PrivateAttr(default_factory=dict)  # contact -> its last event id sent

    def last_event_id(self, contact_id: str) -> str:
        try:
            return self._last[contact_id]
        except KeyError:
            from rapport_client.errors import invalid
            raise invalid("after", [{"field": "after", "problem": f"this receipt holds no event of contact "
                                                                    f"{contact_id!r}"}]) from None

    @property
    def contacts(self) -> List[str]:
        return list(self._last)

    def merged(self, other: "Receipt") -> "Receipt":
        out = Receipt(accepted=self.accepted + other.accepted, event_ids=self.event_ids + other.event_ids,
                      duplicates=self.duplicates + other.duplicates)
        out._last = {**self._last, **other._last}
        return out


# ----------------------------------------------------------------------------------------- context
class ContactInfo(Result):
    contact_id: str
    display_name: Optional[str]
    channel: Optional[str]


class OutreachHours(Result):
    start_hour: int
    end_hour: int
    label: str


class ContactState(Result):
    mood: str
    mood_confidence: float
    energy: str
    style: str
    relationship_stage: Literal["new", "building", "established", "deep", "fading", "dormant"]
    active_streak: int
    session_count: int
    churn_risk: float
    mood_usual: Optional[str] = None
    preferred_outreach_hours: Optional[OutreachHours] = None


class Memory(Result):
    id: str
    memory_type: str
    content: str
    importance: float
    score: Optional[float]
    entity_refs: List[str]
    source_event_ids: List[str]
    created_at: Optional[datetime]
    tier: Optional[Literal["active", "archive"]] = None


class ContextMemory(Memory):
    section: str = Field(description="where context_text states it: profile (Knows/Preferences), memories, cards")


class Entity(Result):
    ref: str
    entity_type: str
    display_name: Optional[str]
    metadata: Dict[str, Any]


class Turn(Result):
    role: str
    content: str
    occurred_at: Optional[datetime]


class Context(Result):
    contact: ContactInfo
    state: ContactState
    memories: List[ContextMemory]
    entities: List[Entity]
    history: List[Turn]
    context_text: str = Field(alias="context_text")
    memory_budget: int = Field(alias="memory_budget")
    as_of: datetime = Field(alias="as_of")


# --------------------------------------------------------------------------------------- memories
class MemoryDetail(Memory):
    scope: str
    status: str
    confidence: Optional[float]
    source: Optional[str]
    pinned: bool
    memory_key: Optional[str]
    topics: List[str]
    valid_from: Optional[datetime]
    valid_to: Optional[datetime]
    retired_at: Optional[datetime]
    expires_at: Optional[datetime]
    superseded_by: Optional[str]
    access_count: int
    accessed_at: Optional[datetime]
    updated_at: Optional[datetime]
    persona_id: Optional[str]


class MemoryList(Result):
    contact_id: str
    tenant_id: str
    memories: List[MemoryDetail]
    next_cursor: Optional[str] = Field(None, description="with limit or cursor: the next page's cursor (None: last)")


# ---------------------------------------------------------------------------------------- contacts
class ContactSummary(Result):
    contact_id: str
    display_name: Optional[str]
    channel: Optional[str]
    last_seen_at: Optional[datetime]
    first_seen_at: Optional[datetime]
    relationship_stage: Literal["new", "building", "established", "deep", "fading", "dormant"]
    memory_count: int
    message_count: int
    session_count: int
    mood: Optional[str]


class ContactList(Result):
    tenant_id: str
    contacts: List[ContactSummary]
    next_cursor: Optional[str] = Field(description="the next page's cursor (None: the last page)")


class TenantCount(Result):
    tenant_id: str
    contacts: int


class TenantList(Result):
    tenant_id: str
    admin: bool
    tenants: List[TenantCount]


class MoodPoint(Result):
    at: datetime
    mood: str
    energy: str
    style: str
    confidence: float
    unusual: bool
    source: str
    source_event_id: str


class Span(Result):
    kind: Literal["difficult_period", "pattern"]
    start: datetime
    end: datetime
    label: str
    count: int
    memory_id: Optional[str] = None


class Timeline(Result):
    contact_id: str
    tenant_id: str
    moods: List[MoodPoint]
    spans: List[Span]
    truncated: bool


class MemoryHistoryEntry(Result):
    """One derived event about a memory: `kind` extracted, reinforced, corrected, superseded, ...;
    `content` the memory's text from this event on, when the event changed it."""
    event_id: str = Field(alias="event_id")
    kind: str
    content: Optional[str] = None
    at: Optional[datetime]
    event_type: str
    causation_id: Optional[str]


class MemoryWithHistory(MemoryDetail):
    """GET /contacts/{id}/memories/{memory_id}: the memory and its history, oldest first."""
    contact_id: str
    tenant_id: str
    history: List[MemoryHistoryEntry]


class CurationReceipt(Result):
    """A correction or a forgetting recorded (202): pass `event_id` as `after=` to read it back."""
    event_id: str
    memory_id: str


class Erasure(Result):
    accepted: bool
    erasure_event_id: str


# ---------------------------------------------------------------------------------------- triggers
class Trigger(Result):
    id: str
    kind: str
    due_at: Optional[datetime]
    reason: str
    status: str
    severity: Optional[str]
    human_review: bool
    source_event_ids: List[str]
    created_at: Optional[datetime]
    category: Optional[str] = None
    audience: Optional[str] = None
    level: Optional[str] = None
    cue: Optional[str] = None
    score: Optional[float] = None
    detector: Optional[str] = None
    context: Optional[str] = None


class TriggerList(Result):
    contact_id: str
    tenant_id: str
    triggers: List[Trigger]


# ----------------------------------------------------------------------------------------- payload
class ChatMessage(Result):
    role: str
    content: str


class SectionBudget(Result):
    used: int
    limit: int
    items: Optional[int] = None
    dropped: Optional[int] = None
    filtered: Optional[bool] = None
    summarized: Optional[bool] = None


class Payload(Result):
    messages: List[ChatMessage]
    budget: Dict[str, SectionBudget]
    tools: Optional[List[Dict[str, Any]]] = None

    def chat_messages(self) -> List[Dict[str, Any]]:
        """The messages as plain dicts, as an OpenAI-compatible chat completion takes them."""
        return [m.model_dump(by_alias=True) for m in self.messages]


# ------------------------------------------------------------------------------------------ export
class MemoryEvent(Result):
    event_id: str
    event_type: str
    occurred_at: Optional[datetime]
    causation_id: Optional[str]


class ExportedMemory(MemoryDetail):
    history: List[MemoryEvent]


class ExportedEntity(Entity):
    aliases: List[str]
    first_seen: Optional[datetime]
    last_seen: Optional[datetime]
    mentions: int


class ExportedSession(SnakeResult):
    session_id: str
    idx: int
    persona_id: Optional[str]
    started_at: Optional[datetime]
    last_activity_at: Optional[datetime]
    ended_at: Optional[datetime]
    turn_count: int


class ExportedMessage(Result):
    """A recorded event: ids and times, then its payload's fields (role, message, ...) as extras."""
    event_id: str
    event_type: str
    occurred_at: Optional[datetime]
    recorded_at: Optional[datetime]
    forgotten: Optional[bool] = Field(None, description="True: its text was a forgotten episode (message None)")


class Export(Result):
    contact_id: str
    tenant_id: str
    exported_at: datetime
    state: Optional[Dict[str, Any]]
    memories: List[ExportedMemory]
    entities: List[ExportedEntity]
    sessions: List[ExportedSession]
    triggers: List[Trigger]
    messages: List[ExportedMessage]


# ---------------------------------------------------------------------------------------- webhooks
class Webhook(Result):
    """A subscription: where the tenant's events of `events` are POSTed, signed (verify_webhook)."""
    id: str
    tenant_id: str
    url: str
    events: List[str]
    description: Optional[str]
    created_at: datetime
    pending: int = Field(description="deliveries waiting for their next attempt")
    dead: int = Field(description="dead-lettered deliveries: webhook_deliveries(id, status='dead') says why")


class WebhookCreated(Webhook):
    secret: str = Field(description="the signing secret (whsec_...): keep it, it is shown this once only")


class WebhookList(Result):
    tenant_id: str
    webhooks: List[Webhook]


class WebhookDeleted(Result):
    id: str
    deleted: bool


class Delivery(Result):
    delivery_id: int
    event_id: str = Field(description="also the webhook-id header: the same on every attempt")
    event_type: str
    contact_id: str
    status: Literal["pending", "delivered", "dead"]
    attempts: int
    next_attempt_at: Optional[datetime]
    last_status: Optional[int]
    last_error: Optional[str]
    created_at: datetime
    finished_at: Optional[datetime]


class DeliveryList(Result):
    webhook_id: str
    deliveries: List[Delivery]


class Redelivery(Result):
    delivery_id: int
    status: Literal["pending"]
