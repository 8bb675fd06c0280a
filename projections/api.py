"""The context API (FastAPI): thin handlers over streams/ingest.py, projections/store.py and
projections/context.py. Routes and JSON fields are fixed by CONTRACT.md."""
from __future__ import annotations

import asyncio
import gc
import inspect
import logging
import os
import re
import time
from collections import OrderedDict
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Annotated, Any

import numpy as np
import orjson
import psycopg
from fastapi import Depends, FastAPI, Path as FastPath, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from opentelemetry.trace import SpanKind, Status, StatusCode
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from agents.embedder import BatchingEmbedder, query_embedder
from projections import metrics
from projections import auth, db, fence, pages
from projections import responses as out
from agents.core.entities import find_mentions
from agents.core.curation import exported, forgotten_messages
from projections.context import (CARD_MIN_IMPORTANCE, assemble, entity_json, importance_then, iso,
                                 memory_detail_json, memory_histories, rank, refs_in_play, top_anchors)
from projections.retrieval import NEIGHBOUR_ANCHORS, NEIGHBOUR_WIDTH, NEIGHBOUR_WITHIN_S, Timeline, asks_about_past
from projections.lexical import BM25Index, IndexCache, query_terms
from projections.payload import LIMITS, build_payload
from projections.store import Store
from schemas import events as ev
from schemas import logsafe, validate
from schemas.cachekeys import WORKER_PREFIX, window_key
from schemas.envelope import format_time, new_event_id, now_utc
from streams import ingest as ingest_mod
from streams import shredding
from streams import outbox, tracing
from streams.config import loopback, settings
from streams.resilience import bounded, within
from streams.webhooks import store as webhook_store

log = logging.getLogger("rapport.api")


class JSONBody(JSONResponse):
    """orjson-encoded JSON (FastAPI's ORJSONResponse is deprecated); a JSONResponse, so the OpenAPI
    document shows the routes' response models."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)
AFTER_TIMEOUT_S = 5.0
KEYWORD_K = 40  # BM25 candidates per query, beside the vector top k (Store.candidates)
QUERY_VECTORS_KEPT = 4096  # recent queries whose vectors are kept (a repeated question skips the model)
TOKEN_COUNTS_KEPT = 200_000  # texts whose token counts are kept (~20 MB)
# the memories a reply most likely used (the top of the packed list) count as accessed; 0 = no statistics
ACCESSED_PER_RESPONSE = int(os.environ.get("RAPPORT_ACCESSED_PER_RESPONSE", "5"))
ACCESS_FLUSH_S = 1.0
GC_YOUNG_THRESHOLD = 20_000  # allocations between collections of the youngest generation (default 700)
REDIS_TIMEOUT_S = 1.0
RELAY_PAGE = 20_000      # ledger rows per relay query while sweeping
RELAY_EVERY_S = 30.0     # later passes: events stuck unapplied for RELAY_STUCK_S (a failed publish)
RELAY_STUCK_S = 120.0
RELAY_FOLLOW_S = 5.0     # an API process that does not relay re-reads the saved cursor this often
# per-tenant unprocessed events at which POST /ingest answers 429 (README: Backpressure)
BACKLOG_LIMIT = int(os.environ.get("RAPPORT_BACKLOG_LIMIT", "50000"))
RETRY_AFTER_S = 5
# /healthz says degraded (still 200) past either of these
LAG_DEGRADED_EVENTS = int(os.environ.get("RAPPORT_LAG_DEGRADED_EVENTS", "10000"))
LAG_DEGRADED_AGE_S = float(os.environ.get("RAPPORT_LAG_DEGRADED_AGE_S", "60"))
# every database call is bounded (issue 20: a stalled PostgreSQL made requests hang ~10 s and /healthz
# hang): a connection from the pool within DB_POOL_TIMEOUT_S, a new one within DB_CONNECT_TIMEOUT_S, a
# statement within DB_STATEMENT_TIMEOUT_S on the server; a probe every DB_PROBE_EVERY_S that gets no
# answer within DB_PROBE_TIMEOUT_S marks the database down: requests in flight and new ones answer 503
# with the reason at once (DatabaseGuard), /healthz within HEALTH_BUDGET_S, until a probe answers again
DB_POOL_TIMEOUT_S = float(os.environ.get("RAPPORT_DB_POOL_TIMEOUT_S", "3"))
DB_CONNECT_TIMEOUT_S = 3
DB_STATEMENT_TIMEOUT_S = float(os.environ.get("RAPPORT_DB_STATEMENT_TIMEOUT_S", "15"))
DB_PROBE_EVERY_S = 0.5
DB_PROBE_TIMEOUT_S = 1.0
HEALTH_BUDGET_S = 0.8


class AccessRecorder:
    """Collects what /context served and publishes it as MemoriesAccessed events, batched per contact
    once a second, off the response path. Repeats within one flush count once."""

    def __init__(self) -> None:
        self.pending: dict[tuple[str, str], dict[str, str]] = {}

    def record(self, tenant_id: str, contact_id: str, memory_ids: list[str], at: str) -> None:
        if memory_ids:
            slot = self.pending.setdefault((tenant_id, contact_id), {})
            for mid in memory_ids:
                slot[mid] = max(slot.get(mid, at), at)

    def drain(self) -> list:
        pending, self.pending = self.pending, {}
        now = format_time(now_utc())
        out = []
        for (t, c), ids in pending.items():
            by_time: dict[str, list[str]] = {}
            for mid, at in ids.items():
                by_time.setdefault(at, []).append(mid)
            for at, mids in sorted(by_time.items()):
                for i in range(0, len(mids), ev.MAX_ACCESSED_IDS):
                    out.append(ev.memories_accessed(event_id=new_event_id(), tenant_id=t, contact_id=c,
                                                    memory_ids=mids[i:i + ev.MAX_ACCESSED_IDS], at=at,
                                                    recorded_at=now))
        return out


class Service:
    """What the handlers share: the pool, the store, the publisher, Redis and the embedder."""

    def __init__(self) -> None:
        self.s = settings()
        self.pool: AsyncConnectionPool | None = None
        self.store: Store | None = None
        self.publisher: ingest_mod.Publisher | None = None
        self.redis: Any = None
        self.embedder = None
        self._batched: tuple[Any, BatchingEmbedder, Any] | None = None  # (embedder, its batcher, its counter)
        self.query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()  # recent queries' vectors
        self.broker_ok = False
        self.relay_task: asyncio.Task | None = None
        self.relay_lock: psycopg.AsyncConnection | None = None  # holds db.RELAY_LOCK in the relaying process
        self.relay_leading = False
        self.lexical = IndexCache()
        self.accesses = AccessRecorder()
        self.access_task: asyncio.Task | None = None
        self.keys = auth.KeyCache(lambda key_id: auth.stored_key_async(self.pool, key_id))
        self.relay_cursor = 0  # every ledger row at or below it is applied (streams/outbox.py)
        self.ready_once = False
        self.backlogs = outbox.Cached(self._backlog, ttl_s=1.0)
        self.traces = tracing.RecentTraces()  # event id -> the ingest request's span (tracing on only)
        # why the database is taken to be down (None: it answers), and a future resolved when it goes
        # down, which requests in flight wait on beside their own work (DatabaseGuard)
        self.db_down: str | None = None
        self.db_went_down: asyncio.Future | None = None
        self.db_watch: asyncio.Task | None = None

    async def _backlog(self, tenant_id: str | None) -> tuple[int, float | None]:
        return await outbox.backlog(self.pool, await self.store.schema(), self.relay_cursor, tenant_id)

    async def start(self) -> None:
        import redis.asyncio as aioredis

        s = self.s
        await asyncio.to_thread(db.prepare, s.database_url, s.projection_version)
        self.pool = AsyncConnectionPool(
            s.database_url, min_size=4, max_size=16, open=False, timeout=DB_POOL_TIMEOUT_S,
            configure=db.configure_pool_conn,
            kwargs={"autocommit": True, "connect_timeout": DB_CONNECT_TIMEOUT_S,
                    "options": f"-c statement_timeout={int(DB_STATEMENT_TIMEOUT_S * 1000)}"})
        await self.pool.open(wait=True)
        self.db_watch = self.start_database_watch()
        self.store = Store(self.pool)
        self.relay_cursor = await outbox.load_cursor(self.pool, await self.store.schema())
        # a stalled Redis costs a request at most REDIS_TIMEOUT_S, then the PostgreSQL fallback answers
        self.redis = aioredis.from_url(s.redis_url, socket_timeout=REDIS_TIMEOUT_S,
                                       socket_connect_timeout=REDIS_TIMEOUT_S)
        self.embedder = await asyncio.to_thread(query_embedder)
        # what start-up made (modules, the model, the pool) lives as long as the process: kept out of the
        # collector's full passes, which otherwise walk it all while every request in flight waits
        gc.collect()
        gc.freeze()
        # a request allocates a few thousand containers, nearly all freed when it ends (reference counts
        # do that); at the default 700 the young generation was collected every few requests: 4.6% of
        # the API's CPU under 8 clients, 1.9% at 20,000 (cycles are rare here: the rest is garbage anyway)
        gc.set_threshold(GC_YOUNG_THRESHOLD, 50, 100)
        if s.record_key is None:
            log.error("no record key (RAPPORT_RECORD_KEY or RAPPORT_RECORD_KEY_FILE): the records this API "
                      "publishes are unsigned, and the workers dead-letter them")
        self.publisher = ingest_mod.Publisher(s.kafka_bootstrap, s.interactions_topic, s.record_key)
        self.relay_task = asyncio.create_task(self._start_publisher_and_relay())
        self.access_task = asyncio.create_task(self._flush_accesses())

    async def _flush_accesses(self) -> None:
        while True:
            await asyncio.sleep(ACCESS_FLUSH_S)
            envs = self.accesses.drain()
            if envs:
                try:
                    await ingest_mod.ingest(self.pool, self.publisher if self.broker_ok else None, envs)
                except Exception:  # statistics only: never let them disturb serving
                    log.exception("could not record %d access events", len(envs))

    async def _start_publisher_and_relay(self) -> None:
        """Connect to the broker (retrying), then re-publish unapplied ledger events: after a restart of
        the memory-only broker that is everything accepted but not yet projected."""
        from streams.topics import ensure_topics

        while True:
            try:
                await ensure_topics(self.s)
                await self.publisher.start()
                self.broker_ok = True
                break
            except Exception as e:  # broker still starting
                log.info("broker not reachable yet: %s", e)
                await asyncio.sleep(1.0)
        await self._relay_loop()

    async def _relay_loop(self) -> None:
        """First a sweep from the persisted cursor over the whole unapplied ledger, page by page; then
        every RELAY_EVERY_S the rows stuck unapplied since RELAY_STUCK_S and not re-published yet.
        The cursor is saved after each pass: a restart resumes from it, not from the ledger's start.
        One API process relays at a time (`relay_leader`); the others follow the saved cursor, for their
        backlog counts, and take over when the relaying one is gone."""
        schema, covered = None, 0
        while True:
            try:
                if not await self.relay_leader():
                    self.relay_cursor = max(self.relay_cursor,
                                            await outbox.load_cursor(self.pool, await self.store.schema()))
                    schema = None  # if this one leads later, it starts with a sweep
                    await asyncio.sleep(RELAY_FOLLOW_S)
                    continue
                now_schema = await self.store.schema()
                if now_schema != schema:  # first pass, or readers switched version: sweep again
                    schema = now_schema
                    self.relay_cursor = await outbox.load_cursor(self.pool, schema)
                    covered, sweep = self.relay_cursor, True
                else:
                    sweep = False
                    await self._advance_cursor(schema)
                sent = 0
                while True:
                    n, cursor, upto = await ingest_mod.relay_once(
                        self.pool, self.publisher, schema, after_seq=max(covered, self.relay_cursor),
                        cursor=self.relay_cursor, older_than_s=0 if sweep else RELAY_STUCK_S, limit=RELAY_PAGE)
                    sent += n
                    if cursor > self.relay_cursor:
                        self.relay_cursor = cursor
                        await outbox.save_cursor(self.pool, schema, cursor)
                    if upto <= covered:
                        break
                    covered = upto
                if sent:
                    log.info("relayed %d ledger events to the broker", sent)
                n_backlog, age = await outbox.backlog(self.pool, schema, self.relay_cursor)
                metrics.LEDGER_BACKLOG.set(n_backlog)
                metrics.LEDGER_BACKLOG_AGE.set(age or 0.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("relay pass failed")
                schema = None  # sweep again: what this pass did not publish may never have reached the broker
            await asyncio.sleep(1.0 if schema is None else RELAY_EVERY_S)

    async def relay_leader(self) -> bool:
        """Whether this process relays: it holds the relay lock, on a connection of its own that keeps it
        while the process lives (PostgreSQL lets it go when the process or the connection dies)."""
        try:
            if self.relay_lock is None or self.relay_lock.closed:
                self.relay_lock, self.relay_leading = await psycopg.AsyncConnection.connect(
                    self.s.database_url, autocommit=True), False
            if self.relay_leading:  # still connected, so still holding it
                await self.relay_lock.execute("SELECT 1")
            else:
                cur = await self.relay_lock.execute("SELECT pg_try_advisory_lock(%s)", (db.RELAY_LOCK,))
                (self.relay_leading,) = await cur.fetchone()
            return self.relay_leading
        except psycopg.Error:
            log.warning("relay lock unavailable", exc_info=True)
            self.relay_leading = False
            if self.relay_lock is not None:
                await self.relay_lock.close()
            return False

    async def _advance_cursor(self, schema: str) -> None:
        """Move the cursor over the applied prefix of the ledger (publishing nothing), so backlog counts
        and a restart start from where the projection really is."""
        while True:
            _, cursor, _ = await ingest_mod.relay_once(self.pool, self.publisher, schema, after_seq=self.relay_cursor,
                                                       older_than_s=float("inf"), limit=RELAY_PAGE)
            if cursor <= self.relay_cursor:
                return
            self.relay_cursor = cursor
            await outbox.save_cursor(self.pool, schema, cursor)

    async def stop(self) -> None:
        for task in (self.relay_task, self.access_task, self.db_watch):
            if task:
                task.cancel()
        envs = self.accesses.drain()
        if envs and self.pool:
            try:
                await ingest_mod.ingest(self.pool, self.publisher if self.broker_ok else None, envs)
            except Exception:
                log.exception("could not record %d access events at shutdown", len(envs))
        if self.relay_lock is not None:
            await self.relay_lock.close()
        if self.publisher:
            await self.publisher.stop()
        if self.pool:
            await self.pool.close()
        if self.redis:
            await self.redis.aclose()
        if self._batched is not None:
            self._batched[1].close()
            self._batched = None

    def went_down(self) -> asyncio.Future:
        """A future the watch resolves when the database goes down: one per event loop (a future of
        another loop, a service reused by a second loop, would never wake this one's requests)."""
        loop = asyncio.get_running_loop()
        if self.db_went_down is None or self.db_went_down.done() or self.db_went_down.get_loop() is not loop:
            self.db_went_down = loop.create_future()
        return self.db_went_down

    async def _probe_database(self) -> None:
        async with self.pool.connection(timeout=DB_PROBE_TIMEOUT_S) as conn:
            await conn.execute("SELECT 1")

    def start_database_watch(self) -> asyncio.Task:
        """Probe the database every DB_PROBE_EVERY_S; one probe runs at a time (a stalled one is left to
        psycopg's own cancellation, the database counting as down until a probe answers)."""
        async def watch() -> None:
            probe: asyncio.Task | None = None
            while True:
                if probe is None or probe.done():
                    probe = asyncio.ensure_future(self._probe_database())
                done, _ = await asyncio.wait({probe}, timeout=DB_PROBE_TIMEOUT_S)
                problem = None
                if not done:
                    problem = f"the database did not answer within {DB_PROBE_TIMEOUT_S:g} s"
                elif probe.exception() is not None:
                    problem = f"the database is unreachable ({type(probe.exception()).__name__})"
                if problem and self.db_down is None:
                    log.error("database down: %s", problem)
                    self.db_down = problem
                    self.went_down().set_result(problem)
                elif problem is None and self.db_down is not None:
                    log.warning("database answers again")
                    self.db_down = None
                await asyncio.sleep(DB_PROBE_EVERY_S)

        return asyncio.ensure_future(watch())

    async def health(self) -> dict[str, Any]:
        """Every check at once, each within HEALTH_BUDGET_S: /healthz answers within a second whatever
        stalls (a database known to be down is not asked again)."""
        checks: dict[str, Any] = {"broker": self.broker_ok}

        async def cache() -> int:
            await self.redis.ping()
            return len(await self._workers())

        database = (asyncio.ensure_future(within(self._probe_database(), HEALTH_BUDGET_S, "the database"))
                    if self.db_down is None else None)
        cached = asyncio.ensure_future(within(cache(), HEALTH_BUDGET_S, "redis"))
        try:
            await database if database is not None else None
            checks["database"] = database is not None
        except Exception:
            checks["database"] = False
        try:
            checks["workers"] = await cached
            checks["cache"] = True
        except Exception:
            checks["cache"], checks["workers"] = False, 0
        checks["ok"] = bool(checks["broker"] and checks["database"] and checks["cache"] and checks["workers"])
        if checks["database"]:
            try:  # what is left of the budget (the count is cached for a second)
                n, age = await within(self.backlogs.get(None), 0.3, "the backlog count")
                checks["lag"] = {"events": n, "oldestAgeS": None if age is None else round(age, 1)}
            except Exception:
                checks["lag"] = None
        if self.db_down is not None:
            checks["databaseProblem"] = self.db_down
        return checks

    async def _workers(self) -> list:
        return [k async for k in self.redis.scan_iter(WORKER_PREFIX + "*")]

    async def contact_index(self, tenant_id: str, contact_id: str, seq: Any) -> tuple[BM25Index, Timeline]:
        """The contact's BM25 index and timeline over all its memories (archive included), rebuilt when its
        state has moved on (a new event was applied): for a contact whose memories predate the projection's
        postings (memory_terms_pending; the others are searched in SQL, Store.keyword_search)."""
        key = (await self.store.schema(), tenant_id, contact_id)
        index = self.lexical.get(key, seq)
        if index is None:
            docs = await self.store.memory_docs(tenant_id, contact_id)
            index = (BM25Index((d["id"], d["text"]) for d in docs), Timeline(docs))
            self.lexical.put(key, seq, index)
        return index

    def _of_embedder(self) -> tuple[BatchingEmbedder, Any]:
        """The current embedder's query batcher and memoised token counter, made on first use (a test
        may swap the embedder)."""
        if self._batched is None or self._batched[0] is not self.embedder:
            if self._batched is not None:
                self._batched[1].close()
            self.query_vectors.clear()  # another model's vectors
            count = getattr(self.embedder, "count_tokens", None)
            # a memory's token count is asked for on every /context that packs it, and the tokenizer holds
            # the GIL (~15% of the API's Python time under load); a text's count does not change
            self._batched = (self.embedder, BatchingEmbedder(self.embedder),
                             lru_cache(maxsize=TOKEN_COUNTS_KEPT)(count) if count else None)
        return self._batched[1], self._batched[2]

    @property
    def queries(self) -> BatchingEmbedder:
        """Query embeddings of concurrent requests, batched."""
        return self._of_embedder()[0]

    @property
    def count_tokens(self) -> Any:
        return self._of_embedder()[1]

    async def query_vector(self, text: str) -> np.ndarray:
        """A query's vector: a recent query's from memory, else embedded together with whatever the
        other requests of the moment ask (BatchingEmbedder)."""
        vec = self.query_vectors.get(text)
        if vec is None:
            vec = await asyncio.wrap_future(self.queries.submit(text))
            self.query_vectors[text] = vec
            if len(self.query_vectors) > QUERY_VECTORS_KEPT:
                self.query_vectors.popitem(last=False)
        else:
            self.query_vectors.move_to_end(text)
        return vec


svc = Service()


@asynccontextmanager
async def lifespan(app: FastAPI):
    await svc.start()
    yield
    await svc.stop()


# FastAPI's own telemetry (recent versions trace every request once a TracerProvider is set) records the
# path (contact ids) and the query (`query` is the user's message): off; Timing makes the server span
# without them, named by the route's template.
NATIVE_TELEMETRY_OFF = ({"telemetry": {"tracing": False, "metrics": False, "logs": False}}
                        if "telemetry" in inspect.signature(FastAPI.__init__).parameters else {})
# no unauthenticated surface beyond /healthz (and /metrics on loopback): no /docs or /redoc, and the
# OpenAPI document is a route of its own that needs a key (GET /openapi.json below)
app = FastAPI(title="rapport", version="0.1.0", default_response_class=JSONBody, lifespan=lifespan, docs_url=None,
              redoc_url=None, openapi_url=None, **NATIVE_TELEMETRY_OFF,
              description="Per-contact memory and emotional intelligence for AI chat agents (CONTRACT.md). "
                          "Every route but /healthz needs `Authorization: Bearer <key>`.")


def answers(model: type, status: int = 200, errors: dict[int, type] | None = None) -> dict[str, Any]:
    """A route's documented answers: `model` (the handlers return their JSON themselves, so the model
    only describes it: projections/responses.py), and its `errors` beside those any keyed route gives."""
    documented = {401: out.ErrorBody, 403: out.ErrorBody, 422: out.ErrorBody, 500: out.ErrorBody,
                  503: out.Unavailable, **(errors or {})}
    return {"response_model": model, "status_code": status,
            "responses": {code: {"model": m} for code, m in documented.items()}}


def request_body(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON request body for the OpenAPI document, for handlers that read and validate the raw body
    themselves (to bound its size and name every bad field)."""
    return {"openapi_extra": {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}}


@app.exception_handler(psycopg.DataError)
async def unreadable_data(request: Request, exc: psycopg.DataError) -> JSONBody:
    """Stored rows that cannot be read back (a BC timestamp stored before ingest rejected such times):
    that contact's requests fail with a clear error, every other contact is served."""
    log.error("%s %s: stored data cannot be read (%s)", request.method, request.url.path, type(exc).__name__)
    return error(500, "the stored data of this contact cannot be read; other contacts are unaffected",
                 path=request.url.path)


def error(status: int, message: str, **extra: Any) -> JSONBody:
    return JSONBody({"error": message, **extra}, status_code=status)


def bad_param(field: str, problem: str) -> JSONBody:
    return error(400, f"invalid {field}", errors=[{"field": field, "problem": problem}])


# ----------------------------------------------------------------------------------------- the edge
MAX_PAYLOAD_BODY = 256 * 1024  # POST /payload (message 16 KiB + system prompt 64 KiB + service data, tools)
MAX_INGEST_BODY = ingest_mod.MAX_BATCH * 20 * 1024
MAX_QUERY_BYTES = ev.MAX_MESSAGE_BYTES  # `query` is the user's current message
AS_OF_HORIZON = timedelta(days=3653)
MAX_PERSONA_CHARS = 256
# superseded: a newer fact replaced it; merged: a near-duplicate took it in; compressed: a pattern took
# it in; pruned: decayed below 0.1 unused for 30 days; archived: over a cap
MEMORY_STATUSES = ("active", "expired", "superseded", "merged", "compressed", "pruned", "archived")


def declared(schema: dict[str, Any], description: str) -> Any:
    """A string parameter's rules for the OpenAPI document (schemas/validate.py): the handler's checks
    enforce them, answering 400 naming the parameter (a body field's answer is 422)."""
    return Annotated[str, validate.Declared.of(schema), Field(description=description)]


# the routes' parameters, each with the rules its handler enforces
ContactIdPath = Annotated[declared(validate.contact_id_schema(), "1-128 characters, no '/' or control "
                                  "characters; a leading '_' is reserved"), FastPath()]
TenantParam = Annotated[declared(validate.id_schema(), "default: the key's tenant (another only with an admin key)")
                        | None, Query()]
QueryParam = Annotated[declared(validate.utf8_schema(MAX_QUERY_BYTES), "the user's current message (at most "
                                f"{MAX_QUERY_BYTES} bytes of UTF-8)") | None, Query()]
PersonaParam = Annotated[declared(validate.name_schema(MAX_PERSONA_CHARS, min_chars=1), "the persona speaking")
                         | None, Query()]
AsOfParam = Annotated[declared(validate.time_schema(), "RFC 3339: evaluate recency and decay at that time, from "
                               "1970 to ten years ahead") | None, Query()]
AfterParam = Annotated[declared(validate.id_schema(), "an event_id: wait, up to 5 s, until it is in the "
                                "projections (504 if it is not)") | None, Query()]
MemoryStatusParam = Annotated[declared({"enum": list(MEMORY_STATUSES)}, "only the memories of this status")
                              | None, Query()]
CursorParam = Annotated[declared({"minLength": 1, "maxLength": pages.MAX_CURSOR_CHARS, "pattern": pages.CURSOR_PATTERN},
                                 "the `nextCursor` of the previous page (opaque)") | None, Query()]


class BadParam(Exception):
    def __init__(self, status: int, field: str, problem: str, message: str | None = None):
        super().__init__(problem)
        self.status, self.field, self.problem = status, field, problem
        self.message = message or f"invalid {field}"


class Denied(Exception):
    """No valid key (401)."""


_bearer = HTTPBearer(auto_error=False, description="an API key: `rapport keys create --tenant T`")


async def principal(cred: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> auth.Principal:
    """Who the request acts as. Keys are validated through a cache (auth.CACHE_TTL_S), so this costs
    no database round trip per request. RAPPORT_AUTH=off: keyless, every caller an admin of `default`."""
    if not svc.s.auth:
        return auth.Principal("default", admin=True)
    if cred is None:
        raise Denied("missing API key: send Authorization: Bearer <key>")
    p = await svc.keys.principal(cred.credentials)
    if p is None:
        raise Denied("invalid or revoked API key")
    return p


def tenant_of(p: auth.Principal, tenant_id: str | None) -> str:
    """The request's tenant: the key's, or the one named (checked as an id; another tenant's only with
    an admin key: 403)."""
    if tenant_id is not None and (problem := validate.check_id(tenant_id)) is not None:
        raise BadParam(400, "tenant_id", problem)
    return auth.tenant_for(p, tenant_id)


def check_param(field: str, value: str | None, problem: str | None) -> None:
    if value is not None and problem is not None:
        raise BadParam(400, field, problem)


def contact_param(contact_id: str) -> str:
    check_param("contact_id", contact_id, validate.check_contact_id(contact_id))
    return contact_id


def parse_as_of(value: str | None) -> datetime | None:
    """An explicit evaluation time: RFC 3339, from 1970 to AS_OF_HORIZON ahead (decay arithmetic on a
    year-1 or year-9999 time overflows)."""
    if value is None:
        return None  # the contact's own now (contact_now)
    try:
        at = validate.parse_rfc3339(value)  # the same rule as occurred_at (schemas/validate.py)
    except ValueError as e:
        raise BadParam(400, "as_of", f"must be an RFC 3339 timestamp: {e}") from None
    if not validate.EARLIEST <= at <= now_utc() + AS_OF_HORIZON:
        raise BadParam(400, "as_of", "must lie between 1970-01-01T00:00:00Z and ten years from now")
    return at


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused (413, naming the limit) as soon as it passes `limit` bytes: a huge
    body is never held in memory."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BadParam(413, "body", f"at most {limit} bytes", f"request body too large (limit {limit} bytes)")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BadParam(413, "body", f"at most {limit} bytes", f"request body too large (limit {limit} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


@app.exception_handler(BadParam)
async def _bad_param(request: Request, e: BadParam) -> JSONBody:
    return error(e.status, e.message, errors=[{"field": e.field, "problem": e.problem}])


@app.exception_handler(Denied)
async def _denied(request: Request, e: Denied) -> JSONBody:
    return JSONBody({"error": str(e)}, status_code=401, headers={"WWW-Authenticate": "Bearer"})


@app.exception_handler(auth.Forbidden)
async def _forbidden(request: Request, e: auth.Forbidden) -> JSONBody:
    return error(403, "this key's tenant may not act for another tenant",
                 errors=[{"field": e.field, "problem": f"not this key's tenant ({e.tenant_id!r})"}])


@app.exception_handler(RequestValidationError)
async def _invalid(request: Request, e: RequestValidationError) -> JSONBody:
    return error(422, "invalid request", errors=[{"field": str(err["loc"][-1]) if err.get("loc") else "body",
                                                  "problem": err["msg"]} for err in e.errors()])


class Timing:
    """Latency per route, and with tracing on a server span per request (continuing a caller's
    `traceparent`), named by the route's template: never the path, which holds contact ids. A plain
    ASGI middleware: Starlette's `@app.middleware("http")` streams every response through a task
    group and memory streams, which cost more than a whole /context without a query."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        t0, method, status = time.perf_counter(), scope["method"], 500
        started = False

        async def send_noting_status(message: dict) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = message["status"], True
            await send(message)

        carrier = {k.decode("latin-1"): v for k, v in scope["headers"] if k in (b"traceparent", b"tracestate")}
        with tracing.tracer.start_as_current_span(method, context=tracing.context_from_headers(carrier),
                                                  kind=SpanKind.SERVER) as span:
            try:
                await self.app(scope, receive, send_noting_status)
            except Exception as e:  # logged by route and type only: no body, no locals, no message
                log.error("%s %s failed: %s", method, getattr(scope.get("route"), "path", "unmatched"),
                          logsafe.where(e))
                if not started:
                    await error(500, "internal error")(scope, receive, send)
                status = 500
            route = getattr(scope.get("route"), "path", "unmatched")
            metrics.REQUEST_SECONDS.labels(route).observe(time.perf_counter() - t0)
            if span.is_recording():
                span.update_name(f"{method} {route}")
                span.set_attributes({"http.request.method": method, "http.route": route,
                                     "http.response.status_code": status})
                if status >= 500:
                    span.set_status(Status(StatusCode.ERROR))


class DatabaseGuard:
    """Requests while the database is down (Service.start_database_watch) answer 503 with the reason
    at once; a request in flight when it goes down answers 503 then, its work cancelled and left to
    finish in the background (its late answer dropped): nothing waits on a stalled PostgreSQL.
    /healthz and /metrics answer for themselves."""

    OWN = frozenset({"/healthz", "/metrics"})

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] in self.OWN or svc.pool is None:
            return await self.app(scope, receive, send)
        if svc.db_down is not None:
            return await self._unavailable(svc.db_down, scope, receive, send)
        down = svc.went_down()
        answered = False

        async def send_unless_late(message: dict) -> None:
            nonlocal answered
            if answered is None:  # this request was answered 503: the late answer goes nowhere
                raise asyncio.CancelledError
            answered = True
            await send(message)

        work = asyncio.ensure_future(self.app(scope, receive, send_unless_late))
        await asyncio.wait({work, down}, return_when=asyncio.FIRST_COMPLETED)
        if work.done() or answered:
            return await work
        answered = None
        work.cancel()
        work.add_done_callback(lambda t: t.cancelled() or t.exception())
        await self._unavailable(svc.db_down or "the database went down", scope, receive, send)

    @staticmethod
    async def _unavailable(reason: str, scope: dict, receive: Any, send: Any) -> None:
        await error(503, "the database is unavailable; retry later", reason=reason)(scope, receive, send)


@app.exception_handler(psycopg.OperationalError)
async def database_gone(request: Request, exc: psycopg.OperationalError) -> JSONBody:
    """A connection lost or refused mid-request (the server restarting): 503, not a 500."""
    log.error("%s %s: database unavailable (%s)", request.method, request.url.path, type(exc).__name__)
    return error(503, "the database is unavailable; retry later", reason=type(exc).__name__)


@app.exception_handler(PoolTimeout)
async def database_busy(request: Request, exc: PoolTimeout) -> JSONBody:
    log.error("%s %s: no database connection within %g s", request.method, request.url.path, DB_POOL_TIMEOUT_S)
    return error(503, "the database is unavailable; retry later",
                 reason=f"no database connection within {DB_POOL_TIMEOUT_S:g} s")


@app.exception_handler(StarletteHTTPException)
async def _http_error(request: Request, e: StarletteHTTPException) -> JSONBody:
    """Starlette's own answers (404: no route has this path) in the documented ErrorBody shape."""
    return JSONBody({"error": str(e.detail)}, status_code=e.status_code, headers=e.headers)


# ---------------------------------------------------------------------------------------- routing
Template = tuple[re.Pattern, frozenset[str], int]  # a path template's regex, its methods, its literal length


def templates_of(routes: list[Any]) -> list[Template]:
    """The app's path templates with every method declared on each (GET and POST /webhooks are two
    routes of one template), most specific (the most literal text) first."""
    by_path: dict[str, tuple[re.Pattern, set[str]]] = {}
    for r in routes:
        if getattr(r, "methods", None):
            by_path.setdefault(r.path, (r.path_regex, set()))[1].update(r.methods)
    return sorted(((rx, frozenset(m), len(re.sub(r"\{[^}]*\}", "", path))) for path, (rx, m) in by_path.items()),
                  key=lambda t: -t[2])


def allowed_methods(templates: list[Template], path: str) -> frozenset[str] | None:
    """The methods of the path's own template: the most specific one that matches it (None: no route).
    `/contacts/{contact_id:path}` (DELETE) matches `/contacts/c/memories` too, whose template is
    `/contacts/{contact_id:path}/memories` (GET): DELETE there is 405, not an erasure of "c/memories"."""
    return next((methods for rx, methods, _ in templates if rx.match(path)), None)


def whole_path(route: Any) -> None:
    """A route's regex over the whole path: `{x:path}` takes line breaks too, and `$` no longer matches
    before a final one (`/context/a%0A` was contact "a"; `/context/%0A` a 404): a contact id with a line
    break reaches the handler, which refuses it naming the field."""
    pattern = route.path_regex.pattern
    route.path_regex = re.compile((pattern[:-1] + r"\Z") if pattern.endswith("$") else pattern, re.DOTALL)


class Methods:
    """405 with an `Allow` header naming the methods the path's template declares (the OpenAPI
    document's operations), for any other method, OPTIONS and HEAD included (none is served)."""

    def __init__(self, app: Any):
        self.app = app
        self.templates: list[Template] | None = None  # on the first request: every route is registered

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            if self.templates is None:
                self.templates = templates_of(app.routes)
            allowed = allowed_methods(self.templates, scope["path"])
            if allowed is not None and scope["method"] not in allowed:
                answer = error(405, f"{scope['method']} is not an operation of this path",
                               allowed=sorted(allowed))
                answer.headers["Allow"] = ", ".join(sorted(allowed))
                return await answer(scope, receive, send)
        await self.app(scope, receive, send)


app.add_middleware(DatabaseGuard)
app.add_middleware(Methods)
app.add_middleware(Timing)


def health_status(h: dict[str, Any], ready_once: bool) -> tuple[str, bool, list[str], int]:
    """(status, degraded, reasons, HTTP status). Before the stack was first ready: 503 "starting".
    Once ready, 200 "ok" while healthy; 200 "degraded" (with the reasons) while it still answers
    but something is behind or impaired: a stalled cache, no live worker, a backlog; 503
    "unavailable" when the database or broker is gone (nothing can be served or accepted)."""
    reasons = []
    lag = h.get("lag") or {}
    if not h["cache"]:
        reasons.append("cache unreachable")
    if not h["workers"]:
        reasons.append("no live worker")
    if lag.get("events", 0) >= LAG_DEGRADED_EVENTS:
        reasons.append(f"{lag['events']} events unprocessed")
    if (lag.get("oldestAgeS") or 0) >= LAG_DEGRADED_AGE_S:
        reasons.append(f"oldest unprocessed event {lag['oldestAgeS']:.0f} s old")
    if h["ok"] and not reasons:
        return "ok", False, [], 200
    if not ready_once:
        return "starting", bool(reasons), reasons, 503
    if not (h["database"] and h["broker"]):
        return "unavailable", True, reasons + [k + " unreachable" for k in ("database", "broker") if not h[k]], 503
    return "degraded", True, reasons, 200


@app.get("/healthz", response_model=out.Health, responses={503: {"model": out.Health}})
async def healthz() -> JSONBody:
    h = await svc.health()
    problem = h.pop("databaseProblem", None)
    status, degraded, reasons, code = health_status(h, svc.ready_once)
    if problem and not h["database"]:
        reasons.append(problem)
    if h["ok"]:
        svc.ready_once = True
    return JSONBody({"status": status, "degraded": degraded, "reasons": reasons, **h}, status_code=code)


@app.post("/ingest", **answers(out.IngestAccepted, 202, {400: out.ErrorBody, 413: out.ErrorBody, 429: out.Backlogged}),
          **request_body(ingest_mod.ingest_body_schema()))
async def post_ingest(request: Request, p: auth.Principal = Depends(principal)) -> JSONBody:
    raw = await read_body(request, MAX_INGEST_BODY)
    try:
        envs = ingest_mod.parse_ingest_body(raw, lambda named, i: auth.tenant_for(p, named, f"{i}.tenant_id"))
    except ingest_mod.BadRequest as e:
        return JSONBody(e.body, status_code=e.status)
    # backpressure, atomic across requests and API processes (streams/outbox.py; README "Backpressure")
    admission = outbox.Admission(BACKLOG_LIMIT, await svc.store.schema(), svc.relay_cursor)
    try:
        fresh, dups = await ingest_mod.ingest(svc.pool, svc.publisher if svc.broker_ok else None, envs, admission)
    except outbox.Backlogged as b:
        return JSONBody({"error": "too many unprocessed events for this tenant; retry later",
                         "tenantId": b.tenant_id, "backlog": b.backlog, "limit": b.limit},
                        status_code=429, headers={"Retry-After": str(RETRY_AFTER_S)})
    svc.traces.remember((e.tenant_id, e.event_id) for e in envs)  # what /context?after= links to
    return JSONBody({"accepted": len(envs), "eventIds": [e.event_id for e in envs], "duplicates": dups},
                          status_code=202)


@app.get("/context/{contact_id:path}", **answers(out.Context, errors={400: out.ErrorBody, 504: out.NotReflected}))
async def get_context(contact_id: ContactIdPath, query: QueryParam = None, tenant_id: TenantParam = None,
                      persona_id: PersonaParam = None, budget: int | None = Query(None, ge=0, le=1_000_000),
                      as_of: AsOfParam = None, after: AfterParam = None,
                      p: auth.Principal = Depends(principal)) -> Response:
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    if query is not None and len(query.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES:
        raise BadParam(400, "query", f"at most {MAX_QUERY_BYTES} bytes of UTF-8")
    if persona_id is not None:  # a problem is text (it was `False` for a valid one: 400 on every persona)
        check_param("persona_id", persona_id, validate.check_name(persona_id) or (
            None if 1 <= len(persona_id) <= MAX_PERSONA_CHARS else f"must be 1-{MAX_PERSONA_CHARS} characters"))
    if after is not None:
        check_param("after", after, validate.check_id(after))
    at = parse_as_of(as_of)
    if after and not await reflected(tenant_id, after):
        return not_reflected(after)
    body = await build_context(tenant_id, contact_id, query=query, persona_id=persona_id, budget=budget, at=at)
    # an access happens in the contact's now, whatever earlier `as_of` the caller evaluates at
    svc.accesses.record(tenant_id, contact_id, [m["id"] for m in body["memories"][:ACCESSED_PER_RESPONSE]],
                        body["as_of"] if at is None else format_time(now_utc()))
    return JSONBody(body)


async def reflected(tenant_id: str, event_id: str) -> bool:
    """Read-your-writes (`after=`, on /context and /payload): wait, up to AFTER_TIMEOUT_S, until the
    event is in the projections."""
    with tracing.tracer.start_as_current_span("rapport.context.after", links=svc.traces.links(tenant_id, event_id),
                                              attributes={"rapport.event_id": event_id}):
        deadline, delay = time.monotonic() + AFTER_TIMEOUT_S, 0.005
        while not await svc.store.is_processed(tenant_id, event_id):
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 0.1)
        return True


def not_reflected(event_id: str) -> JSONBody:
    return error(504, "event not reflected in the projections yet", event_id=event_id)


def entity_record(row: dict) -> dict:
    """A projected entity row in the shape agents/core/entities.py reads."""
    e = entity_json(row)
    e["metadata"] = {**e["metadata"], "aliases": list(row.get("aliases") or [])}
    return e


def contact_now(state: dict | None) -> datetime:
    """The contact's event time now: the wall clock less how far its events run behind it (clockSkewS,
    agents/core/contact._advance_clock). A live contact's is the wall clock; a contact imported with
    2023 timestamps is read in its own timeline, as the scheduler advances it, not decayed to today."""
    return now_utc() - timedelta(seconds=max(0.0, float((state or {}).get("clockSkewS") or 0.0)))


async def build_context(tenant_id: str, contact_id: str, *, query: str | None, persona_id: str | None,
                        budget: int | None, at: datetime | None) -> dict:
    """The /context answer (also the memory part of /payload). With an explicit as_of the memories are
    those served then: retired since (compressed, pruned, ...) included, created later left out."""
    # the query embedding (CPU, in the embedder's thread) overlaps the reads that do not need it
    embedding = asyncio.ensure_future(svc.query_vector(query)) if query else None
    (state, entities), history = await asyncio.gather(svc.store.contact_and_entities(tenant_id, contact_id),
                                                      cached_history(tenant_id, contact_id))
    explicit_as_of = at is not None
    at = at if at is not None else contact_now(state)
    ranked: list = []
    card_rows: list[dict] = []
    matched: set[str] = set()
    keyword: dict[str, float] = {}
    if state is not None:
        where = dict(as_of=at, persona_id=persona_id, explicit_as_of=explicit_as_of, past=asks_about_past(query))
        scope = "tenant" if contact_id == ev.TENANT_CONTACT else "contact"  # seed 002's weights for the business
        if query:
            candidates, keyword, neighbours, matched = await query_candidates(
                tenant_id, contact_id, state, entities, query, embedding, where)
        else:
            candidates, neighbours = await svc.store.candidates(
                tenant_id, contact_id, query_vec=None, model=svc.embedder.model_name, **where), []
        ranked = rank(candidates, at, scope=scope, keyword=keyword, matched_refs=matched, has_query=bool(query),
                      neighbours=neighbours)
        card_rows = [r for r in await svc.store.card_memories(tenant_id, contact_id, refs_in_play(ranked, matched),
                                                              at, persona_id, CARD_MIN_IMPORTANCE, explicit_as_of)
                     if r["pinned"] or importance_then(r, at) >= CARD_MIN_IMPORTANCE]
    elif embedding is not None:
        await embedding
    if not history and state:  # the cache was cold: the session window from the projected state
        history = list(state.get("window") or [])
    body = assemble(contact_id=contact_id, state=state, ranked=ranked, as_of=at, budget=budget, history=history,
                    count_tokens=svc.count_tokens, card_rows=card_rows, entities=entities, matched_refs=matched,
                    persona_id=persona_id, query=query)
    body["as_of"] = format_time(at)
    return body


async def query_candidates(tenant_id: str, contact_id: str, state: dict, entities: list[dict], query: str,
                           embedding: asyncio.Future, where: dict[str, Any]
                           ) -> tuple[list[dict], dict[str, float], list[dict], set[str]]:
    """(candidates, BM25 scores, neighbour rows, entities the query names) for a question: the keyword
    search runs on the projection's postings while the query is embedded; then one query fetches the
    vector, keyword and entity candidates, and another the neighbours of the most relevant."""
    keywords = asyncio.ensure_future(keyword_search(tenant_id, contact_id, state, query_terms(query)))
    matched = set(find_mentions(query, {e["ref"]: entity_record(e) for e in entities}))
    query_vec = await embedding
    model = svc.embedder.model_name
    keyword, timeline = await keywords
    candidates = await svc.store.candidates(tenant_id, contact_id, query_vec=query_vec, model=model,
                                            entity_refs=sorted(matched), ids=list(keyword), **where)
    anchors = top_anchors(candidates, keyword, NEIGHBOUR_ANCHORS)
    if timeline is None:
        neighbours = await svc.store.neighbours(tenant_id, contact_id, anchors, NEIGHBOUR_WITHIN_S, NEIGHBOUR_WIDTH,
                                                query_vec=query_vec, model=model, **where)
        return candidates, keyword, neighbours, matched
    near = timeline.around(anchors, NEIGHBOUR_WITHIN_S)
    rows = {r["id"]: r for r in await svc.store.retrievable_by_id(
        tenant_id, contact_id, list({n for n, _ in near}), query_vec=query_vec, model=model, **where)}
    return candidates, keyword, [{**rows[n], "anchor": a} for n, a in near if n in rows], matched


async def keyword_search(tenant_id: str, contact_id: str, state: dict, terms: list[str]
                         ) -> tuple[dict[str, float], Timeline | None]:
    """BM25 scores (with feedback) of the contact's best KEYWORD_K keyword matches, from the postings the
    projector keeps; for a contact whose memories predate them, from an index built of their texts (cached
    while its state stays), with the timeline that index's build reads too."""
    found = await svc.store.keyword_search(tenant_id, contact_id, terms, KEYWORD_K)
    if found is not None:
        return found, None
    bm25, timeline = await svc.contact_index(tenant_id, contact_id,
                                             (state.get("firstSeen"), state.get("memoryVersion", 0)))
    return bm25.search(terms, KEYWORD_K), timeline


async def cached_history(tenant_id: str, contact_id: str) -> list[dict]:
    """The session window from Redis ([] when the cache is cold or down: build_context then reads the
    projected state's window)."""
    try:
        raw = await svc.redis.get(window_key(tenant_id, contact_id))
        if raw:
            return orjson.loads(raw)["turns"]
    except Exception:
        log.warning("redis unavailable; history from PostgreSQL", exc_info=True)
    return []


@app.get("/contacts/{contact_id:path}/memories", **answers(out.MemoryList, errors={400: out.ErrorBody}))
async def get_memories(contact_id: ContactIdPath, tenant_id: TenantParam = None, status: MemoryStatusParam = None,
                       limit: int | None = Query(None, ge=1, le=200, description="a page of at most this many "
                                                 "(with `limit` or `cursor`: pages of 50 by default)"),
                       cursor: CursorParam = None, p: auth.Principal = Depends(principal)) -> Response:
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    if status is not None and status not in MEMORY_STATUSES:
        return bad_param("status", "one of " + ", ".join(MEMORY_STATUSES))
    next_cursor = None
    if limit is None and cursor is None:  # every memory, as before pages existed
        rows = await svc.store.memories(tenant_id, contact_id, status)
    else:  # a page: oldest first, after the cursor's (created_at, id); bound to contact and status
        scope, size = f"{contact_id}\n{status or ''}", limit or 50
        rows = await svc.store.memories_page(tenant_id, contact_id, status, size + 1,
                                             pages_position(cursor, "memories", tenant_id, scope))
        if len(rows) > size:
            rows = rows[:size]
            next_cursor = pages.encode_cursor("memories", tenant_id, scope, rows[-1]["created_at"], rows[-1]["id"])
    # importance in the contact's now: decayed since last use (agents/core/decay.py)
    now = contact_now(await svc.store.contact(tenant_id, contact_id))
    return JSONBody({"contactId": contact_id, "tenantId": tenant_id, "nextCursor": next_cursor,
                     "memories": [memory_detail_json({**r, "importance": importance_then(r, now)}, now) for r in rows]})


def pages_position(cursor: str | None, kind: str, tenant_id: str, scope: str) -> tuple[datetime | None, str] | None:
    """The position a cursor names (None: the first page); 400 naming `cursor` for anything else."""
    if cursor is None:
        return None
    try:
        return pages.decode_cursor(cursor, kind, tenant_id, scope)
    except pages.BadCursor as e:
        raise BadParam(400, "cursor", str(e)) from None


@app.delete("/contacts/{contact_id:path}", **answers(out.Erasure, 202, {400: out.ErrorBody}))
async def delete_contact(contact_id: ContactIdPath, tenant_id: TenantParam = None,
                         p: auth.Principal = Depends(principal)) -> JSONBody:
    """Right to erasure: a ContactErased event, ordered after the contact's earlier events; its
    processing removes every projection row, cache key and ledger row of the contact."""
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    now = format_time(now_utc())
    env = ev.contact_erased(event_id=new_event_id(), tenant_id=tenant_id, contact_id=contact_id, at=now)
    await ingest_mod.ingest(svc.pool, svc.publisher if svc.broker_ok else None, [env])
    async with svc.pool.connection() as conn:  # what the contact sends from now on gets a new key
        await shredding.forget_keys_before(conn, tenant_id, contact_id, env.event_id)
        await webhook_store.forget_contact(conn, tenant_id, contact_id)  # its webhook deliveries, unsent
    return JSONBody({"accepted": True, "erasureEventId": env.event_id}, status_code=202)


class PayloadRequest(BaseModel):
    """The body of POST /payload: its fields' types carry the edge's rules and declare them in the
    OpenAPI document (schemas/validate.py); an unknown property is refused (additionalProperties: false)."""
    model_config = ConfigDict(extra="forbid")
    contact_id: validate.ContactId
    message: validate.Text(max_chars=16 * 1024)
    tenant_id: validate.Id | None = None  # None: the key's
    persona_id: validate.Name(256) | None = None
    system_prompt: validate.Text(max_chars=64 * 1024) | None = None
    service_data: Any = Field(default=None, description=f"any JSON, at most {validate.MAX_JSON_DEPTH} levels deep")
    tools: list[dict[str, Any]] | None = None
    # read-your-writes, as GET /context's: an event_id to wait for (up to 5 s; 504 if not reflected)
    after: validate.Id | None = None


@app.post("/payload", **answers(out.Payload, errors={400: out.ErrorBody, 413: out.ErrorBody, 504: out.NotReflected}),
          **request_body(PayloadRequest.model_json_schema()))
async def post_payload(request: Request, p: auth.Principal = Depends(principal)) -> JSONBody:
    """An LLM chat payload built with the AI Brain's section budgets and overflow rules (seed 002 §6)."""
    raw = await read_body(request, MAX_PAYLOAD_BODY)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        return error(400, "body is not valid JSON", detail=str(e))
    if (where := validate.too_deep(data)) is not None:
        raise BadParam(422, where, f"at most {validate.MAX_JSON_DEPTH} levels of nesting",
                       f"JSON nested deeper than {validate.MAX_JSON_DEPTH} levels")
    try:
        req = PayloadRequest.model_validate(data)
    except ValidationError as e:
        return error(422, "invalid payload request", errors=ingest_mod.field_errors(e))
    tenant_id = auth.tenant_for(p, req.tenant_id)
    if req.after and not await reflected(tenant_id, req.after):
        return not_reflected(req.after)
    ctx = await build_context(tenant_id, req.contact_id, query=req.message, persona_id=req.persona_id,
                              budget=LIMITS["memories"], at=None)
    svc.accesses.record(tenant_id, req.contact_id,
                        [m["id"] for m in ctx["memories"][:ACCESSED_PER_RESPONSE]], ctx["as_of"])
    tenant = await build_context(tenant_id, ev.TENANT_CONTACT, query=req.message, persona_id=None,
                                 budget=LIMITS["tenant_profile"], at=None)
    profile = "\n".join(f"- [{m['memoryType']}] {fence.inline(m['content'])}" for m in tenant["memories"]) or None
    # token counting and packing are CPU work: off the event loop, so /healthz and others keep answering
    return JSONBody(await asyncio.to_thread(
        build_payload, message=req.message, system_prompt=req.system_prompt, tenant_profile=profile,
        context_text=ctx["context_text"], memories=ctx["memories"], service_data=req.service_data,
        history=ctx["history"], tools=req.tools, count=svc.count_tokens))


def trigger_json(t: dict) -> dict:
    return {"id": t["id"], "kind": t["kind"], "dueAt": iso(t["due_at"]), "reason": t["reason"], "status": t["status"],
            "severity": t["severity"], "humanReview": t["human_review"], "sourceEventIds": t["source_event_ids"],
            "createdAt": iso(t["created_at"]), **(t["details"] or {})}


@app.get("/contacts/{contact_id:path}/triggers", **answers(out.TriggerList, errors={400: out.ErrorBody}))
async def get_triggers(contact_id: ContactIdPath, tenant_id: TenantParam = None,
                       p: auth.Principal = Depends(principal)) -> Response:
    """Check-ins, crisis flags and owner insights, with due time, reason and source events."""
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    rows = await svc.store.triggers(tenant_id, contact_id)
    return JSONBody({"contactId": contact_id, "tenantId": tenant_id, "triggers": [trigger_json(t) for t in rows]})


@app.get("/contacts/{contact_id:path}/export", **answers(out.Export, errors={400: out.ErrorBody}))
async def export_contact(contact_id: ContactIdPath, tenant_id: TenantParam = None,
                         p: auth.Principal = Depends(principal)) -> Response:
    """Everything held about the contact (GDPR export): state, memories with their event history,
    entities, sessions, triggers and the ledger's messages."""
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    rows = await svc.store.export(tenant_id, contact_id)
    history = memory_histories(rows.get("events", []))
    # what was forgotten is listed without its text (agents/core/curation.py)
    state = rows["contact"][0]["state"] if rows["contact"] else None
    hidden = forgotten_messages(state)
    return JSONBody({
        "contactId": contact_id, "tenantId": tenant_id, "exportedAt": format_time(now_utc()),
        "state": rows["contact"][0]["state"] if rows["contact"] else None,
        "memories": [{**memory_detail_json(m), "history": history.get(m["id"], [])} for m in rows.get("memories", [])],
        "entities": [{**entity_json(e), "aliases": e["aliases"], "firstSeen": iso(e["first_seen"]),
                      "lastSeen": iso(e["last_seen"]), "mentions": e["mentions"]} for e in rows.get("entities", [])],
        "sessions": [{k: iso(v) for k, v in s.items()} for s in rows.get("sessions", [])],
        "triggers": [trigger_json(t) for t in rows.get("triggers", [])],
        "messages": [{"eventId": r["event_id"], "eventType": r["event_type"], "occurredAt": iso(r["occurred_at"]),
                      "recordedAt": iso(r["recorded_at"]),
                      **exported(r["event_id"], r["event_type"], r["payload"] or {}, state, hidden)}
                     for r in rows.get("ledger", [])],
    })


@app.get("/metrics", response_class=Response,
         responses={200: {"content": {CONTENT_TYPE_LATEST: {}}, "description": "Prometheus text format"},
                    403: {"model": out.ErrorBody}})
async def get_metrics(cred: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> Response:
    """Open when the API listens on loopback only; otherwise an admin key (the numbers span tenants)."""
    if not loopback(svc.s.http_host) and not (await principal(cred)).admin:
        raise BadParam(403, "Authorization", "an admin key: the API listens beyond loopback", "forbidden")
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


@app.get("/openapi.json", include_in_schema=False)
async def openapi_document(p: auth.Principal = Depends(principal)) -> JSONBody:
    """The OpenAPI document of these routes, with typed answers (projections/responses.py); any valid key."""
    return JSONBody(app.openapi())


# the /webhooks routes (projections/webhook_routes.py) register on `app`; last: they use the names above
import projections.webhook_routes  # noqa: E402,F401
import projections.memory_routes  # noqa: E402,F401  (GET/PATCH/DELETE /contacts/{id}/memories/{memoryId})
import projections.contacts_routes  # noqa: E402,F401  (GET /contacts, /timeline, the console)

for _route in app.routes:
    whole_path(_route)
