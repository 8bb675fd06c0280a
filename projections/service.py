"""The API's service: what the handlers share (the pool, the store, the publisher, Redis, the embedder,
the relay and the database watch), built once per app by projections/api.create_app from ApiSettings."""
from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import psycopg
from cachetools import LRUCache
from psycopg_pool import AsyncConnectionPool

from domain.embedder import BatchingEmbedder, query_embedder
from projections import auth, metrics
from streams import db
from projections.lexical import BM25Index, IndexCache
from projections.retrieval import Timeline
from projections.store import Store
from schemas import events as ev
from schemas.cachekeys import WORKER_PREFIX
from schemas.envelope import format_time, new_event_id, now_utc
from streams import ingest as ingest_mod
from streams import outbox, tracing
from streams.config import Settings, settings
from streams.resilience import within
from streams.webhooks import rules as webhook_rules

log = logging.getLogger("rapport.api")

AFTER_TIMEOUT_S = 5.0
KEYWORD_K = 40  # BM25 candidates per query, beside the vector top k (Store.candidates)
QUERY_VECTORS_KEPT = 4096  # recent queries whose vectors are kept (a repeated question skips the model)
TOKEN_COUNTS_KEPT = 200_000  # texts whose token counts are kept (~20 MB)
# the memories a reply most likely used (the top of the packed list) count as accessed; 0 = no statistics
ACCESSED_PER_RESPONSE = 5  # RAPPORT_ACCESSED_PER_RESPONSE
# accesses are published once per contact per window (AccessRecorder): the longer, the fewer events the
# workers fold while clients ask (a memory's history then shows it served once per window, at the latest)
ACCESS_FLUSH_S = 10.0  # RAPPORT_ACCESS_FLUSH_S
GC_YOUNG_THRESHOLD = 20_000  # allocations between collections of the youngest generation (default 700)
REDIS_TIMEOUT_S = 1.0
RELAY_PAGE = 20_000      # ledger rows per relay query while sweeping
RELAY_EVERY_S = 30.0     # later passes: events stuck unapplied for RELAY_STUCK_S (a failed publish)
RELAY_STUCK_S = 120.0
RELAY_FOLLOW_S = 5.0     # an API process that does not relay re-reads the saved cursor this often
RELAY_RETRY_S = 2.0      # after a failed pass: the first retry, doubling per failure up to RELAY_EVERY_S
# the cursor held this long at a row re-sent before (the broker took it and lost it): that row and the stuck
# ones in the next RELAY_REWIND_ROWS ledger rows are sent once more, at most once per RELAY_REWIND_S
RELAY_REWIND_S = 600.0
RELAY_REWIND_ROWS = 1000
# per-tenant unprocessed events at which POST /ingest answers 429 (README: Backpressure)
BACKLOG_LIMIT = 50000  # RAPPORT_BACKLOG_LIMIT
RETRY_AFTER_S = 5
# /healthz says degraded (still 200) past either of these
LAG_DEGRADED_EVENTS = 10000  # RAPPORT_LAG_DEGRADED_EVENTS
LAG_DEGRADED_AGE_S = 60.0  # RAPPORT_LAG_DEGRADED_AGE_S
# every database call is bounded (issue 20: a stalled PostgreSQL made requests hang ~10 s and /healthz
# hang): a connection from the pool within DB_POOL_TIMEOUT_S, a new one within DB_CONNECT_TIMEOUT_S, a
# statement within DB_STATEMENT_TIMEOUT_S on the server; a probe every DB_PROBE_EVERY_S that gets no
# answer within DB_PROBE_TIMEOUT_S marks the database down: requests in flight and new ones answer 503
# with the reason at once (DatabaseGuard), /healthz within HEALTH_BUDGET_S, until a probe answers again
DB_POOL_TIMEOUT_S = 3.0  # RAPPORT_DB_POOL_TIMEOUT_S
DB_CONNECT_TIMEOUT_S = 3
DB_STATEMENT_TIMEOUT_S = 15.0  # RAPPORT_DB_STATEMENT_TIMEOUT_S
DB_PROBE_EVERY_S = 0.5
DB_PROBE_TIMEOUT_S = 1.0
# a probe past DB_PROBE_TIMEOUT_S counts as the database's silence only after the API's event loop has
# turned this many times more (what is ready is read: a process kept off the CPU wakes to its timer and to
# the answer at once) and only if no pooled connection came back from a statement meanwhile (a database
# that answers the requests is slow, not down): see Service.start_database_watch
DB_PROBE_LOOP_TURNS = 8
HEALTH_BUDGET_S = 0.8


def relay_delay(failures: int) -> float:
    """Seconds before the next relay pass after `failures` failed passes in a row (0: the regular
    RELAY_EVERY_S). Pure. A pass that failed under load is retried soon, then ever less often: retrying
    a timed-out query every second only adds to the load that made it slow."""
    if failures < 0:
        raise ValueError(f"failures must be >= 0, not {failures}")
    if failures == 0:
        return RELAY_EVERY_S
    return min(RELAY_EVERY_S, RELAY_RETRY_S * 2.0 ** min(failures - 1, 16))


def relay_rewind(cursor: int, covered: int, cursor_moved_at: float, now: float) -> bool:
    """Whether the relay sends the stuck rows at its cursor once more. Pure. A pass re-sends a stuck row
    once and moves its window past it; if the broker took it and lost it (a broker restarted without its
    log), nothing would send it again and the cursor would stay at it for good, holding every later
    row's backlog count. So: when the window is past the cursor and the cursor has not moved for
    RELAY_REWIND_S, once more, for the rows just after the cursor only (a worker fleet that is merely
    down also holds the cursor: its whole backlog is not re-sent every RELAY_REWIND_S)."""
    if covered < cursor:
        raise ValueError(f"window end {covered} is before the cursor {cursor}")
    return covered > cursor and now - cursor_moved_at >= RELAY_REWIND_S


class AnsweringPool(AsyncConnectionPool):
    """The API's connection pool, counting the connections given back idle (`answered`): each is a
    statement (or several) the database answered. The database watch reads it: while requests are being
    answered the database is slow, not down (Service.start_database_watch)."""

    answered = 0

    async def putconn(self, conn: psycopg.AsyncConnection) -> None:
        if conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            self.answered += 1
        await super().putconn(conn)


def silent(probe_done: bool, answered_before: int | None, answered_now: int | None) -> bool:
    """Whether the database stayed silent over a probe's window: the probe unanswered, and no pooled
    connection came back from a statement since the window began (None: a pool that does not count)."""
    return not probe_done and (answered_before is None or answered_now == answered_before)


@dataclass(frozen=True)
class ApiSettings:
    """The API's settings, parsed once (from_env) and handed to create_app: the shared ones
    (streams/config.py: database, broker, Redis, auth, host) and the API's own, with the environment
    variables and defaults the API has always read."""
    base: Settings
    accessed_per_response: int = ACCESSED_PER_RESPONSE  # RAPPORT_ACCESSED_PER_RESPONSE
    access_flush_s: float = ACCESS_FLUSH_S              # RAPPORT_ACCESS_FLUSH_S
    backlog_limit: int = BACKLOG_LIMIT                  # RAPPORT_BACKLOG_LIMIT
    lag_degraded_events: int = LAG_DEGRADED_EVENTS      # RAPPORT_LAG_DEGRADED_EVENTS
    lag_degraded_age_s: float = LAG_DEGRADED_AGE_S      # RAPPORT_LAG_DEGRADED_AGE_S
    db_pool_timeout_s: float = DB_POOL_TIMEOUT_S        # RAPPORT_DB_POOL_TIMEOUT_S
    db_statement_timeout_s: float = DB_STATEMENT_TIMEOUT_S  # RAPPORT_DB_STATEMENT_TIMEOUT_S
    # what POST /webhooks accepts (RAPPORT_WEBHOOK_*: ALLOW_PRIVATE lets a URL name a private address)
    webhooks: webhook_rules.Config = field(default_factory=webhook_rules.Config)

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ, base: Settings | None = None) -> ApiSettings:
        return cls(base=base if base is not None else settings(),
                   accessed_per_response=int(env.get("RAPPORT_ACCESSED_PER_RESPONSE", str(ACCESSED_PER_RESPONSE))),
                   access_flush_s=max(0.1, float(env.get("RAPPORT_ACCESS_FLUSH_S", str(ACCESS_FLUSH_S)))),
                   backlog_limit=int(env.get("RAPPORT_BACKLOG_LIMIT", str(BACKLOG_LIMIT))),
                   lag_degraded_events=int(env.get("RAPPORT_LAG_DEGRADED_EVENTS", str(LAG_DEGRADED_EVENTS))),
                   lag_degraded_age_s=float(env.get("RAPPORT_LAG_DEGRADED_AGE_S", str(LAG_DEGRADED_AGE_S))),
                   db_pool_timeout_s=float(env.get("RAPPORT_DB_POOL_TIMEOUT_S", str(DB_POOL_TIMEOUT_S))),
                   db_statement_timeout_s=float(env.get("RAPPORT_DB_STATEMENT_TIMEOUT_S",
                                                        str(DB_STATEMENT_TIMEOUT_S))),
                   webhooks=webhook_rules.Config.from_env(dict(env)))


class AccessRecorder:
    """Collects what /context served and publishes it as MemoriesAccessed events off the response path:
    one event per contact per flush (every access_flush_s), naming each memory served in the window once,
    at the latest time it was served. An access moves no row (issue 23: being shown is not being used), it
    is the memories' history; one event per answer made the worker fold as many access events as messages
    under 8 busy clients (19,488 beside 9,051 in a 9,000-event ingest)."""

    def __init__(self) -> None:
        self.pending: dict[tuple[str, str], dict[str, str]] = {}

    def record(self, tenant_id: str, contact_id: str, memory_ids: list[str], at: str) -> None:
        if memory_ids:
            slot = self.pending.setdefault((tenant_id, contact_id), {})
            for mid in memory_ids:
                slot[mid] = max(slot.get(mid, at), at)

    def forget(self, tenant_id: str, contact_id: str) -> None:
        """Drop what was served of a contact and not yet published (its erasure): published after the
        ContactErased event, the accesses would be the erased contact's memory ids in the ledger again, and
        the worker would fold them into a new state of the contact."""
        self.pending.pop((tenant_id, contact_id), None)

    def drain(self) -> list:
        pending, self.pending = self.pending, {}
        now = format_time(now_utc())
        out = []
        for (t, c), ids in pending.items():
            at, mids = max(ids.values()), list(ids)  # in the order first served
            for i in range(0, len(mids), ev.MAX_ACCESSED_IDS):
                out.append(ev.memories_accessed(event_id=new_event_id(), tenant_id=t, contact_id=c,
                                                memory_ids=mids[i:i + ev.MAX_ACCESSED_IDS], at=at, recorded_at=now))
        return out


class Service:
    """What the handlers share: the pool, the store, the publisher, Redis and the embedder."""

    def __init__(self, settings: ApiSettings | None = None) -> None:
        self.settings = settings if settings is not None else ApiSettings.from_env()
        self.s = self.settings.base
        self.pool: AsyncConnectionPool | None = None
        self.store: Store | None = None
        self.publisher: ingest_mod.Publisher | None = None
        self.redis: Any = None
        self.embedder = None
        self._batched: tuple[Any, BatchingEmbedder, Any] | None = None  # (embedder, its batcher, its counter)
        # recent queries' vectors, least recently asked evicted first
        self.query_vectors: LRUCache[str, np.ndarray] = LRUCache(maxsize=QUERY_VECTORS_KEPT)
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
        self.db_probe: psycopg.AsyncConnection | None = None  # the watch's own connection (_probe_database)
        self.db_probe_lock = asyncio.Lock()

    async def _backlog(self, tenant_id: str | None) -> tuple[int, float | None]:
        return await outbox.backlog(self.pool, await self.store.schema(), self.relay_cursor, tenant_id)

    async def start(self) -> None:
        import redis.asyncio as aioredis

        s = self.s
        await asyncio.to_thread(db.prepare, s.database_url, s.projection_version)
        self.pool = AnsweringPool(
            s.database_url, min_size=4, max_size=16, open=False, timeout=self.settings.db_pool_timeout_s,
            configure=db.configure_pool_conn,
            kwargs={"autocommit": True, "connect_timeout": DB_CONNECT_TIMEOUT_S,
                    "options": f"-c statement_timeout={int(self.settings.db_statement_timeout_s * 1000)}"})
        await self.pool.open(wait=True)
        self.db_watch = self.start_database_watch()
        self.store = Store(self.pool)
        self.relay_cursor = await outbox.load_cursor(self.pool, await self.store.schema())
        # a stalled Redis costs a request at most REDIS_TIMEOUT_S, then the PostgreSQL fallback answers
        self.redis = aioredis.from_url(s.redis_url, socket_timeout=REDIS_TIMEOUT_S,
                                       socket_connect_timeout=REDIS_TIMEOUT_S)
        self.embedder = await asyncio.to_thread(query_embedder, s)
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
            await asyncio.sleep(self.settings.access_flush_s)
            envs = self.accesses.drain()
            for i in range(0, len(envs), ingest_mod.MAX_BATCH):  # one per contact asked in the window
                try:
                    await ingest_mod.ingest(self.pool, self.publisher if self.broker_ok else None,
                                            envs[i:i + ingest_mod.MAX_BATCH])
                except Exception:  # statistics only: never let them disturb serving
                    log.exception("could not record %d access events", len(envs[i:i + ingest_mod.MAX_BATCH]))

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
        backlog counts, and take over when the relaying one is gone.

        A failed pass keeps its window (issue 24): a query that failed (a statement timeout under load)
        sent nothing, so the next pass, after a backoff, resumes where it stood, in the same mode. A
        failed publish (the broker away, perhaps restarted empty) widens the window back to the cursor,
        but only for rows stuck RELAY_STUCK_S: never a sweep of every unapplied row, which re-sent events
        merely in flight by the tens of thousands and loaded the workers with duplicates. A re-sent row
        that is still not applied RELAY_REWIND_S later is sent once more (`relay_rewind`)."""
        schema, covered, sweeping, failures = None, 0, False, 0
        # when the cursor last moved (or the rows at it were last sent once more), and where it stood
        moved_at, last_cursor = time.monotonic(), self.relay_cursor
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
                    # the schema is taken only with its cursor: a failure between them sweeps again
                    self.relay_cursor = await outbox.load_cursor(self.pool, now_schema)
                    schema, covered, sweeping = now_schema, self.relay_cursor, True
                elif not sweeping:
                    await self._advance_cursor(schema)
                sent = 0
                if self.relay_cursor != last_cursor:
                    moved_at, last_cursor = time.monotonic(), self.relay_cursor
                if not sweeping and relay_rewind(self.relay_cursor, max(covered, self.relay_cursor), moved_at,
                                                 time.monotonic()):
                    n, _, _ = await ingest_mod.relay_once(
                        self.pool, self.publisher, schema, after_seq=self.relay_cursor, cursor=self.relay_cursor,
                        older_than_s=RELAY_STUCK_S, limit=RELAY_REWIND_ROWS)
                    if n:
                        log.warning("re-sent %d events stuck at the relay cursor (seq %d) for %.0f s",
                                    n, self.relay_cursor, RELAY_REWIND_S)
                    sent, moved_at = n, time.monotonic()
                while True:
                    n, cursor, upto = await ingest_mod.relay_once(
                        self.pool, self.publisher, schema, after_seq=max(covered, self.relay_cursor),
                        cursor=self.relay_cursor, older_than_s=0 if sweeping else RELAY_STUCK_S, limit=RELAY_PAGE)
                    sent += n
                    if cursor > self.relay_cursor:
                        self.relay_cursor = cursor
                        await outbox.save_cursor(self.pool, schema, cursor)
                    if upto <= covered:
                        break
                    covered = upto
                sweeping, failures = False, 0
                if sent:
                    log.info("relayed %d ledger events to the broker", sent)
                n_backlog, age = await outbox.backlog(self.pool, schema, self.relay_cursor)
                metrics.LEDGER_BACKLOG.set(n_backlog)
                metrics.LEDGER_BACKLOG_AGE.set(age or 0.0)
            except asyncio.CancelledError:
                raise
            except ingest_mod.PublishFailed:
                log.warning("relay pass could not publish; rows stuck %.0f s are sent again next pass",
                            RELAY_STUCK_S, exc_info=True)
                covered, sweeping = self.relay_cursor, False
                failures += 1
            except Exception:
                log.exception("relay pass failed; the next pass resumes its window")
                failures += 1
            await asyncio.sleep(relay_delay(failures))

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
        for conn in (self.relay_lock, self.db_probe):
            if conn is not None:
                await conn.close()
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
        """`SELECT 1` on a connection of the probe's own, beside the pool (its address and options): a pool
        whose connections are all in use is busy, not down. Under load (8 clients asking /context while a
        backlog was ingested, on a loaded machine) the probe waited over a second for a pooled connection,
        took the database for down, and every request answered 503 until the next probe."""
        async with self.db_probe_lock:  # the watch's and /healthz's probes, one at a time on it
            conn = self.db_probe
            if conn is None or conn.closed or conn.broken:
                if conn is not None:
                    await conn.close()
                kwargs = {**self.pool.kwargs, "autocommit": True}
                kwargs.setdefault("connect_timeout", DB_CONNECT_TIMEOUT_S)
                self.db_probe = conn = await psycopg.AsyncConnection.connect(self.pool.conninfo, **kwargs)
            await conn.execute("SELECT 1")

    def start_database_watch(self) -> asyncio.Task:
        """Probe the database every DB_PROBE_EVERY_S; one probe runs at a time (a stalled one is left to
        psycopg's own cancellation, the database counting as down until a probe answers).

        A probe unanswered after DB_PROBE_TIMEOUT_S is the database's silence only if, after the event loop
        has read what is ready (DB_PROBE_LOOP_TURNS turns), it is still unanswered and no pooled connection
        came back from a statement during that window (AnsweringPool). On a loaded machine the API's own
        process can be off the CPU for a second: it then wakes to its timer and to the probe's answer at
        once, and the timer ran first; and a PostgreSQL whose backends wait for a core can take over a
        second for the probe while it answers the requests. Both were taken for a dead database: every
        request in flight answered 503 (a `bench load --busy-clients 8` run died of it at load 16). A
        stopped database answers nothing: down after one window, or two when the first began before it
        stopped."""
        async def watch() -> None:
            probe: asyncio.Task | None = None
            while True:
                if probe is None or probe.done():
                    probe = asyncio.ensure_future(self._probe_database())
                answered = getattr(self.pool, "answered", None)
                done, _ = await asyncio.wait({probe}, timeout=DB_PROBE_TIMEOUT_S)
                for _ in range(0 if done else DB_PROBE_LOOP_TURNS):
                    if probe.done():
                        break
                    await asyncio.sleep(0)  # one turn of the loop: ready sockets are read
                problem = None
                if silent(probe.done(), answered, getattr(self.pool, "answered", None)):
                    problem = f"the database did not answer within {DB_PROBE_TIMEOUT_S:g} s"
                elif probe.done() and probe.exception() is not None:
                    problem = f"the database is unreachable ({type(probe.exception()).__name__})"
                if problem and self.db_down is None:
                    log.error("database down: %s", problem)
                    self.db_down = problem
                    self.went_down().set_result(problem)
                elif problem is None and self.db_down is not None and probe.done():
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
            metrics.KEYWORD_INDEX_BUILDS.inc()
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
            vec = self.query_vectors[text] = await asyncio.wrap_future(self.queries.submit(text))
        return vec
