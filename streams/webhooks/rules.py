"""Webhooks, the pure rules: which events a subscription receives, what a delivery's body is, when a
failed delivery is tried again or dead-lettered, and which URLs may be subscribed.

No I/O here: streams/webhooks/store.py keeps subscriptions and deliveries in PostgreSQL,
streams/webhooks/delivery.py reads the topics and sends.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable
from urllib.parse import urlsplit

import orjson

from schemas import events as ev
from schemas import validate
from schemas.envelope import Envelope, parse_time

# ------------------------------------------------------------------ what may be subscribed
TRIGGER_KINDS = ("check_in", "crisis", "owner_insight")
MEMORY_EVENTS = (ev.MEMORY_EXTRACTED, ev.MEMORY_REINFORCED, ev.MEMORY_SUPERSEDED, ev.MEMORY_MERGED,
                 ev.EPISODES_COMPRESSED, ev.MEMORY_EXPIRED, ev.MEMORY_PRUNED, ev.MEMORY_ARCHIVED, ev.MEMORY_DECAYED,
                 ev.MEMORY_CORRECTED, ev.MEMORY_FORGOTTEN)
# derived events (topic memory-events) and the erasure (topic interactions, clear payload)
DELIVERABLE = (ev.TRIGGER_CREATED, *MEMORY_EVENTS, ev.CONTACT_ERASED)
ALL = "*"
FILTERS = (ALL, *DELIVERABLE, *(f"{ev.TRIGGER_CREATED}:{k}" for k in TRIGGER_KINDS))
MAX_FILTERS = len(FILTERS)
MAX_URL_CHARS = 2048
MAX_DESCRIPTION_CHARS = 256
MAX_WEBHOOKS_PER_TENANT = 20
MAX_BODY_BYTES = 64 * 1024  # a larger event is sent without its data (`dataOmitted`): fetch it by id


def filter_problem(events: Any) -> str | None:
    """Why `events` is not a valid filter list, or None."""
    if not isinstance(events, list) or not events or len(events) > MAX_FILTERS:
        return f"a non-empty list of at most {MAX_FILTERS} of: {', '.join(FILTERS)}"
    unknown = [e for e in events if e not in FILTERS]
    if unknown:
        return f"unknown event {str(unknown[0])[:64]!r}; one of: {', '.join(FILTERS)}"
    return None


def memory_of(env: Envelope) -> str | None:
    """The memory an event is about (None for one about several or none), for keeping a forgotten
    memory's events out of the outbox (streams/webhooks/delivery.py). MemoryForgotten itself is sent."""
    if env.event_type == ev.MEMORY_FORGOTTEN:
        return None
    p = env.payload
    return p.get("memoryId") or (p.get("memory") or {}).get("id") or (p.get("pattern") or {}).get("id")


def trigger_kind(env: Envelope) -> str | None:
    return (env.payload.get("trigger") or {}).get("kind") if env.event_type == ev.TRIGGER_CREATED else None


def matches(filters: Iterable[str], event_type: str, kind: str | None = None) -> bool:
    """Does a subscription with these filters receive this event? `kind`: a trigger's kind."""
    if event_type not in DELIVERABLE:
        return False
    fs = set(filters)
    return ALL in fs or event_type in fs or (kind is not None and f"{event_type}:{kind}" in fs)


def may_match(filters: Iterable[str], event_type: str) -> bool:
    """`matches` for some kind: whether the event is worth opening (its kind is in the sealed payload)."""
    return event_type in DELIVERABLE and any(f == ALL or f.split(":", 1)[0] == event_type for f in filters)


@dataclass(frozen=True)
class Subscription:
    webhook_id: str
    tenant_id: str
    events: tuple[str, ...]
    created_at: datetime


def plan(envs: Iterable[Envelope], subs: Iterable[Subscription]) -> list[tuple[Subscription, Envelope]]:
    """(subscription, event) for every delivery these events make. A subscription receives the events
    recorded after it was created: a new one does not get the history still on the topics."""
    by_tenant: dict[str, list[Subscription]] = {}
    for s in subs:
        by_tenant.setdefault(s.tenant_id, []).append(s)
    out = []
    for e in envs:
        try:
            recorded = parse_time(e.recorded_at or e.occurred_at)
        except (ValueError, TypeError):  # a producer's unreadable recorded_at: no subscription can date it
            continue
        for s in by_tenant.get(e.tenant_id, ()):
            if recorded >= s.created_at and matches(s.events, e.event_type, trigger_kind(e)):
                out.append((s, e))
    return out


def body(env: Envelope) -> bytes:
    """What a receiver gets, as bytes (signed as they are). Vectors are left out (`stored_payload`, as in
    the projection's event table); past MAX_BODY_BYTES the data is left out and `dataOmitted` says so."""
    head = {"id": env.event_id, "type": env.event_type, "tenantId": env.tenant_id, "contactId": env.contact_id,
            "occurredAt": env.occurred_at, "recordedAt": env.recorded_at, "causationId": env.causation_id}
    raw = orjson.dumps({**head, "data": orjson.Fragment(ev.stored_payload(env))})
    if len(raw) <= MAX_BODY_BYTES:
        return raw
    return orjson.dumps({**head, "data": None, "dataOmitted": True})


# ------------------------------------------------------------------ retries
@dataclass(frozen=True)
class RetrySchedule:
    """Attempt n (1-based) that fails is tried again after base_s * 2**(n-1), at most max_s, spread by
    +-jitter (so receivers coming back are not hit by every delivery at once); attempt `attempts` that
    fails is dead-lettered. Defaults: 12 attempts over about 12 hours. The next attempt's time is
    stored with the delivery (not held in memory), so a restart keeps the schedule."""
    attempts: int = 12
    base_s: float = 30.0
    max_s: float = 4 * 3600.0
    jitter: float = 0.2

    def delay(self, attempt: int, u: float = 0.5) -> float:
        """Seconds before the next try after failed attempt `attempt`; u in [0, 1] places the jitter."""
        d = min(self.base_s * 2.0 ** min(attempt - 1, 60), self.max_s)
        return d * (1.0 - self.jitter + 2.0 * self.jitter * u)

    def after_failure(self, attempt: int, u: float = 0.5, retry_after_s: float | None = None) -> float | None:
        """Seconds until the next try, or None: dead-lettered. A receiver's Retry-After is honoured
        up to max_s."""
        if attempt >= self.attempts:
            return None
        d = self.delay(attempt, u)
        if retry_after_s is not None and retry_after_s > d:
            d = min(retry_after_s, self.max_s)
        return d


def retry_after(value: str | None) -> float | None:
    """A Retry-After header in seconds (the HTTP-date form is ignored)."""
    return float(value) if value and value.strip().isdigit() else None


@dataclass(frozen=True)
class Config:
    """The delivery process's settings (RAPPORT_WEBHOOK_*). ALLOW_PRIVATE=1 lets subscriptions and
    deliveries reach loopback/private addresses and any port: for tests and trusted networks only."""
    schedule: RetrySchedule = RetrySchedule()
    allow_private: bool = False
    timeout_s: float = 10.0
    concurrency: int = 16       # deliveries in flight in one process
    per_webhook: int = 4        # of them to one subscription: a slow receiver cannot take every slot
    poll_s: float = 0.5
    retention_s: float = 7 * 24 * 3600.0  # delivered and dead deliveries are kept this long

    @staticmethod
    def from_env(env: dict[str, str] | None = None) -> "Config":
        e = os.environ if env is None else env
        d, s = Config(), RetrySchedule()

        def num(name: str, default: float) -> float:
            v = e.get(f"RAPPORT_WEBHOOK_{name}")
            return float(v) if v not in (None, "") else default

        return Config(
            schedule=RetrySchedule(attempts=max(1, int(num("MAX_ATTEMPTS", s.attempts))),
                                   base_s=num("RETRY_BASE_S", s.base_s), max_s=num("RETRY_MAX_S", s.max_s)),
            allow_private=e.get("RAPPORT_WEBHOOK_ALLOW_PRIVATE", "").lower() in ("1", "true", "yes", "on"),
            timeout_s=num("TIMEOUT_S", d.timeout_s), concurrency=max(1, int(num("CONCURRENCY", d.concurrency))),
            per_webhook=max(1, int(num("PER_WEBHOOK", d.per_webhook))), poll_s=num("POLL_S", d.poll_s),
            retention_s=num("RETENTION_S", d.retention_s))


# ------------------------------------------------------------------ URLs
def url_problem(url: Any) -> str | None:
    """Why `url` may not be subscribed, from its text alone: http(s), a host, no credentials (deliveries
    are signed instead) or fragment, bounded. Where it points (SSRF) is streams/webhooks/addresses.py."""
    if not isinstance(url, str) or not 1 <= len(url) <= MAX_URL_CHARS:
        return f"a string of 1-{MAX_URL_CHARS} characters"
    if validate.check_name(url) is not None or " " in url:
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError as err:
        return f"not a valid URL ({err})"
    if parts.scheme not in ("http", "https"):
        return "must be an http or https URL"
    if not parts.hostname:
        return "must name a host"
    if parts.username is not None or parts.password is not None:
        return "must not carry credentials (deliveries are signed: verify the signature instead)"
    if parts.fragment:
        return "must not have a fragment"
    return None
