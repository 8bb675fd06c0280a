"""Ingest: validate events, record them in the ledger, publish them to the interactions topic.

The ledger is written first (an outbox): an event the API answered 202 for is durable even when the
broker is down or, in the embedded default, restarted empty (its storage is memory-only). The relay
re-publishes ledger events that the live projection has not applied yet; the pipeline drops any
event it already applied, so a re-publish never doubles anything. Idempotency on event_id comes
from the ledger's unique (tenant_id, event_id): a re-sent event is not published again.
The ledger keeps plaintext (erasure deletes its rows); what goes to the broker has its payload sealed
with the contact's key (crypto-shredding, streams/shredding.py).
"""
from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Literal

import orjson
from opentelemetry.trace import SpanKind
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from streams import metrics
from schemas import events as ev
from schemas import recordsig, validate
from schemas.codec import decode
from schemas.envelope import Envelope, encode, format_time, new_event_id, now_utc, partition_key
from streams import outbox, shredding, tracing, tracking_key

log = logging.getLogger("rapport.ingest")

MAX_BATCH = 1000
CURSOR_SETTLE_S = 30.0  # the relay cursor passes only rows older than this (see relay_once)
MAX_NAME_CHARS = 256
Opt = validate.Name(MAX_NAME_CHARS) | None
EventId = validate.Id | None


class IngestEvent(BaseModel):
    """One event of POST /ingest (CONTRACT.md). Its fields' types carry the edge's rules and declare them
    in the OpenAPI document (schemas/validate.py). Unknown properties are ignored, as the document's
    schema allows (a newer client's fields reach an older server harmlessly)."""
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=False)

    contact_id: validate.ContactId  # `_tenant` is the service's, not a client's
    role: Literal["user", "assistant"]
    message: validate.Text(max_bytes=ev.MAX_MESSAGE_BYTES)
    tenant_id: EventId = None  # None: the key's
    event_id: EventId = None
    conversation_id: Opt = None
    session_id: Opt = None
    channel: Opt = None
    display_name: Opt = None
    persona_id: Opt = None
    occurred_at: Annotated[str, validate.Declared.of(validate.time_schema())] | None = None
    # extensions: business (tenant-scope) memory, and outcomes of earlier decisions (seed 002)
    scope: Literal["contact", "tenant"] = "contact"
    outcome_of: EventId = None
    outcome: Literal["positive", "negative", "neutral"] | None = None

    @field_validator("occurred_at")
    @classmethod
    def _rfc3339(cls, v: str | None) -> str | None:
        if v is None:
            return v
        at = validate.parse_rfc3339(v)  # ValueError naming the problem: 422 on occurred_at
        return validate.require(v, validate.check_time(at, now_utc()))


def ingest_body_schema() -> dict[str, Any]:
    """POST /ingest's body for the OpenAPI document: one event, or an array of 1..MAX_BATCH."""
    one = IngestEvent.model_json_schema()
    return {"anyOf": [one, {"type": "array", "items": one, "minItems": 1, "maxItems": MAX_BATCH}]}


def field_errors(e: ValidationError, index: int | None = None) -> list[dict[str, Any]]:
    """pydantic's errors as the API reports them: one {field, problem} per bad field."""
    at = {} if index is None else {"index": index}
    return [{**at, "field": ".".join(str(x) for x in err["loc"]) or "body", "problem": err["msg"]}
            for err in e.errors()]


class BadRequest(Exception):
    def __init__(self, status: int, body: dict[str, Any]):
        self.status, self.body = status, body


def parse_ingest_body(raw: bytes, tenant: Callable[[str | None, int], str] = lambda named, i: named or "default"
                      ) -> list[Envelope]:
    """Request body -> envelopes, or BadRequest (400/413/422) naming every bad field. `tenant` gives
    each event's tenant from the one it names (None: none) and its index; it may raise (the API's
    key check: projections/auth.py)."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise BadRequest(400, {"error": "body is not valid JSON", "detail": str(e)}) from None
    if (where := validate.too_deep(data)) is not None:
        raise BadRequest(422, {"error": f"JSON nested deeper than {validate.MAX_JSON_DEPTH} levels",
                               "errors": [{"field": where, "problem": f"at most {validate.MAX_JSON_DEPTH} levels"}]})
    items = data if isinstance(data, list) else [data]
    if not items:
        raise BadRequest(422, {"error": "empty batch", "errors": [{"field": "body", "problem": "no events"}]})
    if len(items) > MAX_BATCH:
        raise BadRequest(413, {"error": f"at most {MAX_BATCH} events per request",
                               "errors": [{"field": "body", "problem": f"{len(items)} events"}]})
    errors, models = [], []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            errors.append({"index": i, "field": "body", "problem": "event must be a JSON object"})
            continue
        try:
            models.append(IngestEvent.model_validate(item))
        except ValidationError as e:
            errors += field_errors(e, i)
    if errors:
        raise BadRequest(422, {"error": "invalid events; nothing was accepted", "errors": errors})
    tenants = [tenant(m.tenant_id, i) for i, m in enumerate(models)]
    now = format_time(now_utc())
    return [ev.interaction(event_id=m.event_id or new_event_id(), tenant_id=t,
                           contact_id=ev.TENANT_CONTACT if m.scope == "tenant" else m.contact_id,
                           occurred_at=m.occurred_at or now, recorded_at=now, role=m.role, message=m.message,
                           conversation_id=m.conversation_id, session_id=m.session_id, channel=m.channel,
                           display_name=m.display_name, persona_id=m.persona_id,
                           scope=m.scope if m.scope == "tenant" else None, outcome_of=m.outcome_of,
                           outcome=m.outcome)
            for m, t in zip(models, tenants)]


class Publisher:
    """An aiokafka producer that keys every event by tenant/contact."""

    def __init__(self, bootstrap: str, topic: str, signing_key: bytes | None = None):
        self.bootstrap, self.topic = bootstrap, topic
        self.signing_key = signing_key  # every record signed with it (schemas/recordsig.py); None: unsigned
        self._producer = None

    async def start(self) -> None:
        from aiokafka import AIOKafkaProducer

        self._producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all", linger_ms=2,
                                          enable_idempotence=False, request_timeout_ms=10000)
        await self._producer.start()

    async def stop(self) -> None:
        if self._producer is not None:
            await self._producer.stop()

    async def publish(self, envs: list[Envelope]) -> None:
        await self.publish_raw([(partition_key(e.tenant_id, e.contact_id), encode(e)) for e in envs])

    async def publish_raw(self, rows: list[tuple[bytes, bytes]]) -> None:
        """Send and wait for the broker's acks. With tracing on, one producer span per call, whose
        context every record carries in its headers (streams/tracing.py)."""
        assert self._producer is not None
        with tracing.tracer.start_as_current_span(f"publish {self.topic}", kind=SpanKind.PRODUCER, attributes={
                "messaging.system": "kafka", "messaging.operation.type": "send",
                "messaging.destination.name": self.topic, "messaging.batch.message_count": len(rows)}):
            headers = tracing.record_headers()
            futs = [await self._producer.send(self.topic, key=k, value=v,
                                              headers=recordsig.signed_headers(self.signing_key, k, v, headers))
                    for k, v in rows]
            await asyncio.gather(*futs)


# An event id is new when its tenant's ledger does not hold it and no erasure left its tombstone
# (rapport.erased_events: a re-send of an erased contact's events is a duplicate, not a resurrection).
# The tombstones of the request's keys are read once (an InitPlan) and filter the rows in the request's
# order (a join could reorder them, and the ledger's seq is the contact's order). The arrays go in binary
# (%b), as the projector's batch inserts: psycopg builds a text array literal in Python, quoting and
# escaping each envelope's JSON character by character.
LEDGER_INSERT_MANY = (
    "INSERT INTO rapport.ledger (tenant_id, contact_id, event_id, event_type, schema_version, occurred_at, "
    "recorded_at, envelope) SELECT u.t, u.c, u.e, u.ty, u.v, u.oa, u.ra, u.env FROM unnest(%b::text[], %b::text[], "
    "%b::text[], %b::text[], %b::int[], %b::timestamptz[], %b::timestamptz[], %b::jsonb[], %b::text[]) "
    "AS u(t, c, e, ty, v, oa, ra, env, k) WHERE u.k <> ALL (ARRAY(SELECT x.event_key FROM rapport.erased_events x "
    "WHERE x.tenant_id = ANY(%b::text[]) AND x.event_key = ANY(%b::text[]))) "
    "ON CONFLICT (tenant_id, event_id) DO NOTHING RETURNING tenant_id, event_id")


SYNCHRONOUS = "SET LOCAL synchronous_commit = on"


async def record(pool: Any, envs: list[Envelope], admission: outbox.Admission | None = None) -> set[tuple[str, str]]:
    """Insert into the ledger, committed durably (synchronous commit: a PostgreSQL crash right after
    cannot lose it); return the (tenant, event id)s that were new (not in the ledger, not erased: see
    rapport.erased_events). `pool` yields dict rows (streams.db.configure_pool_conn), as in relay_once.
    With an `admission`, in the same transaction as the tenants' backlog check (raises outbox.Backlogged,
    nothing recorded)."""
    cols = list(zip(*[(e.tenant_id, e.contact_id, e.event_id, e.event_type, e.schema_version, e.occurred_at,
                       e.recorded_at, orjson.dumps(e.to_dict()).decode(),
                       tracking_key.event_tombstone(e.tenant_id, e.event_id)) for e in envs]))
    async with pool.connection() as conn, conn.transaction():
        # a 202 acknowledges this row: its commit waits for the WAL flush whatever the server's (or the
        # session's) synchronous_commit says; the projections' commits may stay asynchronous
        await conn.execute(SYNCHRONOUS)
        if admission is not None:
            await admission.admit(conn, Counter(e.tenant_id for e in envs))
        cur = await conn.execute(LEDGER_INSERT_MANY, [list(c) for c in cols] + [list(cols[0]), list(cols[8])])
        new = {(r["tenant_id"], r["event_id"]) for r in await cur.fetchall()}
        if admission is not None:
            await admission.admitted(conn, Counter(t for t, _ in new))
    return new


async def ingest(pool: Any, publisher: Publisher | None, envs: list[Envelope],
                 admission: outbox.Admission | None = None) -> tuple[list[Envelope], int]:
    """Record, then publish the new events. Returns (new events, duplicates); raises outbox.Backlogged
    when an `admission` refuses. A publish failure is logged, not raised: the events are durable in the
    ledger and the relay will publish them."""
    new = await record(pool, envs, admission)
    seen: set[tuple[str, str]] = set()
    fresh = []
    for e in envs:
        k = (e.tenant_id, e.event_id)
        if k in new and k not in seen:
            fresh.append(e)
            seen.add(k)
    new = Counter(e.event_type for e in fresh)
    for event_type, n in Counter(e.event_type for e in envs).items():
        metrics.INGESTED.labels("new", event_type).inc(new[event_type])
        metrics.INGESTED.labels("duplicate", event_type).inc(n - new[event_type])
    if fresh and publisher is not None:
        # recorded: the publish goes on even if the request is cancelled now (a client that gave up)
        await asyncio.shield(_keep(publish_now(pool, publisher, fresh)))
    return fresh, len(envs) - len(fresh)


_retrying: set[asyncio.Task] = set()  # publishes in flight (kept from the garbage collector)


def _keep(coro) -> asyncio.Task:  # noqa: ANN001
    task = asyncio.get_running_loop().create_task(coro)
    _retrying.add(task)
    task.add_done_callback(_retrying.discard)
    return task


async def publish_now(pool: Any, publisher: Publisher, envs: list[Envelope]) -> None:
    try:
        await publisher.publish(await seal(pool, envs))
    except Exception as err:
        # durable already (the 202 stands): sent again in the background within seconds, else by the
        # relay; a worker that meets the contact's next event first folds these from the ledger
        log.warning("publish failed for %d events (%s); retrying in the background", len(envs), type(err).__name__)
        _keep(publish_later(pool, publisher, envs))
REPUBLISH_FOR_S = 30.0


async def publish_later(pool: Any, publisher: Publisher, envs: list[Envelope]) -> None:
    """Seal and publish recorded events whose publish failed (PostgreSQL restarting under the seal, the
    broker away), with backoff for REPUBLISH_FOR_S; then the relay's pass over stuck rows takes over. A
    copy the worker already has from elsewhere is a duplicate it drops."""
    from tenacity import AsyncRetrying, RetryError, stop_after_delay, wait_exponential

    try:
        async for attempt in AsyncRetrying(stop=stop_after_delay(REPUBLISH_FOR_S),
                                           wait=wait_exponential(multiplier=0.25, max=4.0)):
            with attempt:
                await publisher.publish(await seal(pool, envs))
        log.info("published %d events after a failed first attempt", len(envs))
    except RetryError:
        log.warning("%d recorded events still unpublished after %.0f s; left to the relay", len(envs), REPUBLISH_FOR_S)


async def seal(pool: Any, envs: list[Envelope]) -> list[Envelope]:
    """The envelopes as the broker gets them: payloads sealed with their contacts' keys (created for a
    contact that has none: a new one, or one erased before these events were recorded). The keys are
    read on every call, never cached here: this process cannot see a worker's erasure, and an event
    recorded after it must be sealed with the contact's new key (streams/shredding.py)."""
    async with pool.connection() as conn, conn.transaction():
        await conn.execute(SYNCHRONOUS)  # a key the broker's copy is sealed with must outlive a crash
        keys = await shredding.get_or_create_keys(conn, shredding.contacts_to_seal(envs))
    return [shredding.seal_envelope(e, keys.get((e.tenant_id, e.contact_id))) for e in envs]


@dataclass(frozen=True)
class LedgerRow:
    """What the relay reads of one ledger row after the cursor (plain data for `plan_relay`)."""
    seq: int
    recorded_at: float  # epoch seconds
    applied: bool
    erased_later: bool = False


@dataclass(frozen=True)
class RelayPlan:
    resend: tuple[int, ...]  # seqs to re-publish now
    cursor: int              # every row at or below it is applied (and settled)
    covered: int             # every row up to it is applied or re-published by this plan


def plan_relay(rows: list[LedgerRow], now: float, *, after_seq: int, cursor: int, older_than_s: float,
               settle_s: float = CURSOR_SETTLE_S) -> RelayPlan:
    """Which of `rows` (ledger rows after `after_seq`, in seq order) to re-publish, and how far the cursor
    and the covered window move. Pure. Re-sent: unapplied rows recorded at least `older_than_s` ago, up
    to the first unapplied row younger than that (it may be merely in flight): the window stops there,
    so the next pass, starting after `covered`, re-sends none of these again and skips nothing. A row
    whose contact was erased later is passed over, never sent (the erasure deletes it). The cursor
    passes only an unbroken run of applied rows older than `settle_s` (an ingest transaction that took
    its seq earlier may commit later)."""
    if cursor > after_seq:
        raise ValueError(f"cursor {cursor} is past after_seq {after_seq}")
    cutoff = now - older_than_s
    blocked, resend, covered = cursor < after_seq, [], after_seq
    for r in rows:
        if r.applied:
            if not blocked and r.recorded_at <= now - settle_s:
                cursor = r.seq
            else:
                blocked = True
        else:
            blocked = True
            if r.recorded_at > cutoff:
                break
            if not r.erased_later:
                resend.append(r.seq)
        covered = r.seq
    return RelayPlan(tuple(resend), cursor, covered)


class PublishFailed(Exception):
    """The relay's re-publish failed (the broker away): what it held back is still to send."""


async def relay_once(pool: Any, publisher: Publisher, schema: str, *, after_seq: int = 0,
                     older_than_s: float = 0.0, limit: int = 5000, cursor: int | None = None
                     ) -> tuple[int, int, int]:
    """Re-publish ledger events (seq > after_seq) that the projection in `schema` has not applied and
    that were recorded at least `older_than_s` ago (`plan_relay` decides, over at most `limit` rows).

    Returns (events re-published, new cursor, covered), as `plan_relay`. A failed query raises what the
    database raised (nothing was sent); a failed publish raises PublishFailed."""
    # the clock read before the query: a row recorded meanwhile counts as younger (relayed by a later pass)
    now = now_utc().timestamp()
    async with pool.connection() as conn:
        # no envelope in this scan: while the workers work through a backlog, every pass reads the whole
        # backlog, and parsing each young row's JSON (~9,000 of them in a 9,000-event ingest) blocked the
        # API's event loop that /context runs on; the envelopes of the rows chosen are read after. The
        # erasure probe only for unapplied rows, on the partial index ledger_erasures (meta 0012).
        cur = await conn.execute(
            f"SELECT l.seq, (p.event_id IS NOT NULL) AS applied, l.recorded_at, "
            f"(p.event_id IS NULL AND EXISTS (SELECT 1 FROM rapport.ledger e WHERE e.tenant_id = l.tenant_id "
            f"AND e.contact_id = l.contact_id AND e.seq > l.seq AND e.event_type = '{ev.CONTACT_ERASED}')) "
            f"AS erased_later "
            f"FROM rapport.ledger l LEFT JOIN {schema}.processed_events p "
            f"ON p.tenant_id = l.tenant_id AND p.event_id = l.event_id "
            f"WHERE l.seq > %s ORDER BY l.seq LIMIT %s", (after_seq, limit))
        rows = await cur.fetchall()
    cursor = after_seq if cursor is None else cursor
    plan = plan_relay([LedgerRow(r["seq"], r["recorded_at"].timestamp(), bool(r["applied"]), bool(r["erased_later"]))
                       for r in rows], now, after_seq=after_seq, cursor=cursor, older_than_s=older_than_s)
    todo = []
    if plan.resend:
        async with pool.connection() as conn:
            cur = await conn.execute("SELECT envelope FROM rapport.ledger WHERE seq = ANY(%s) ORDER BY seq",
                                     (list(plan.resend),))
            for r in await cur.fetchall():  # a row erased meanwhile is gone, and needs no sending
                e = decode(r["envelope"])
                todo.append((partition_key(e.tenant_id, e.contact_id), r["envelope"]))
    if todo:
        # the ledger holds plaintext; the broker gets sealed payloads, under the contact's current key
        async with pool.connection() as conn, conn.transaction():
            await conn.execute(SYNCHRONOUS)
            keys = await shredding.get_or_create_keys(conn, shredding.contacts_to_seal(d for _, d in todo))
        todo = [(k, orjson.dumps(shredding.seal_dict(d, keys.get((d["tenant_id"], d["contact_id"])))))
                for k, d in todo]
        try:
            await publisher.publish_raw(todo)
        except Exception as err:
            raise PublishFailed(f"re-publishing {len(todo)} ledger events failed: {err!r}") from err
        metrics.RELAYED.inc(len(todo))
    return len(todo), plan.cursor, plan.covered
