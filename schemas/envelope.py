"""The event envelope: one versioned shape for every event on every topic, encoded with orjson.

Wire format (a JSON object, UTF-8; the message key is `partition_key(tenant_id, contact_id)`):

    {"event_id": "...", "event_type": "InteractionRecorded", "schema_version": 2,
     "tenant_id": "default", "contact_id": "arjun", "occurred_at": "2026-04-03T22:15:00+05:30",
     "recorded_at": "2026-04-03T16:45:00.123456+00:00", "causation_id": null,
     "correlation_id": "...", "payload": {...}}

`occurred_at` keeps the producer's UTC offset (the contact's local time matters for check-ins);
`recorded_at` is when rapport accepted it. Decoding runs the upcaster chain (schemas/upcasters.py),
so code past `decode()` (schemas/codec.py) only ever sees the current version of each event type.
"""
from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

import orjson

ENVELOPE_FIELDS = ("event_id", "event_type", "schema_version", "tenant_id", "contact_id", "occurred_at",
                   "recorded_at", "causation_id", "correlation_id", "payload")

# Derived ids (events, memories, triggers, sessions, ...) are UUIDv5 in this namespace over (tenant,
# contact, source event id, step): replaying the same source event yields the same derived ids, so
# every projection can drop a redelivered one; and two tenants (or two contacts) whose producers reuse
# an event id ("msg-1") get different ids, so neither can reach the other's rows. This is id scheme 2
# (scheme 1 left tenant and contact out: a deployment that ran it moves by `rapport replay --into`).
DERIVED_NAMESPACE = uuid.UUID("6f1c4c5e-8a0e-4d53-9a47-3b0c1f2f9a10")
ID_SCHEME = 2


class InvalidEvent(ValueError):
    """An event that cannot be decoded or fails its schema; `reason` goes to the dead-letter topic."""

    def __init__(self, reason: str, raw: bytes | None = None):
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


@dataclass(frozen=True)
class Envelope:
    event_id: str
    event_type: str
    schema_version: int
    tenant_id: str
    contact_id: str
    occurred_at: str
    recorded_at: str
    payload: dict[str, Any] = field(default_factory=dict)
    causation_id: str | None = None
    correlation_id: str | None = None

    @property
    def occurred(self) -> datetime:
        return parse_time(self.occurred_at)

    def to_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in ENVELOPE_FIELDS}

    def with_payload(self, **changes: Any) -> "Envelope":
        return replace(self, payload={**self.payload, **changes})


def partition_key(tenant_id: str, contact_id: str) -> bytes:
    """Every event of one tenant/contact carries this key, so it lands in one partition, in order."""
    return f"{tenant_id}/{contact_id}".encode()


def derived_id(source: "Envelope", step: str) -> str:
    """The id of what `step` derives from the event `source`, scoped to its tenant and contact."""
    return scoped_id(source.tenant_id, source.contact_id, source.event_id, step)


def scoped_id(tenant_id: str, contact_id: str, source_event_id: str, step: str) -> str:
    # \x1f cannot occur in an id (schemas/validate.check_id refuses control characters), so the
    # parts cannot run into each other
    return str(uuid.uuid5(DERIVED_NAMESPACE, f"{tenant_id}\x1f{contact_id}\x1f{source_event_id}\x1f{step}"))


def legacy_derived_id(source_event_id: str, step: str) -> str:
    """Id scheme 1 (no tenant, no contact): only to find what a version built before scheme 2 recorded
    (a replay's recorded model moods, agents/llm.RecordedMoods); never for a new row."""
    return str(uuid.uuid5(DERIVED_NAMESPACE, f"{source_event_id}\x1f{step}"))


def new_event_id() -> str:
    return str(uuid.uuid4())


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def format_time(dt: datetime) -> str:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.isoformat()


def parse_time(s: str) -> datetime:
    """RFC 3339 -> aware datetime (a missing offset means UTC)."""
    if not isinstance(s, str) or not s:
        raise ValueError("not an RFC 3339 timestamp")
    return _parse_time(s)


@lru_cache(maxsize=50_000)  # the fold reads the same memories' times on every event (decay, expiry, sessions)
def _parse_time(s: str) -> datetime:  # datetimes are immutable: one may be shared
    t = s.strip()
    if t[-1:] in ("Z", "z"):
        t = t[:-1] + "+00:00"
    dt = datetime.fromisoformat(t)
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def encode(env: Envelope) -> bytes:
    return orjson.dumps(env.to_dict())


def digest_bytes(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.hexdigest()
