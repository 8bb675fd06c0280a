"""The worker's composition root: `build_worker(settings)` wires, once, from settings parsed once
(streams/config.Settings), what a worker process runs with: the interaction pipeline (its PostgreSQL
connection, embedder, Redis and the model's moods), the optional LLM steps, the connections its timers
use, and the topics it sends to. agents/app_agents.py only registers the Faust agent and timers, each
a call into the worker built at start-up; a test builds the worker it needs (its own pipeline, topics
that record what is sent) instead of patching module globals.
"""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

import orjson
import psycopg
from opentelemetry.trace import SpanKind

from agents import metrics
from agents.pipeline import InteractionPipeline, Record, derived_record, record_outcomes
from agents.scheduler import due_ticks
from agents import projector
from streams import db
from schemas import events as ev
from schemas import recordsig
from schemas.cachekeys import worker_key
from schemas.envelope import encode, now_utc, partition_key
from streams import shredding, tracing
from streams.config import Settings
from streams.resilience import backoff, bounded

log = logging.getLogger("rapport.agents")

RECONNECT_MAX_S = 1.0  # a local database back from a crash answers within a second of its recovery
REDIS_TIMEOUT_S = 2.0
CONNECTION_LOST = (psycopg.OperationalError, psycopg.InterfaceError)
FLUSH_ON_STOP_S = 10.0
OUTBOX_GRACE_S = 30.0  # a live worker publishes within its batch; older rows are a worker that died


@dataclass(frozen=True)
class Topics:
    """Where a worker sends: Faust topics, or anything with their `send(key=, value=, headers=)`."""
    interactions: Any
    memory_events: Any
    triggers: Any
    dead_letter: Any


def epoch_of(cluster_id: str | None) -> str:
    """A cluster id as the epoch; a broker too old to report one (metadata before v2) cannot be told
    apart from its successor, so the worker refuses to guess."""
    if not cluster_id:
        raise RuntimeError("the broker reports no cluster id (Kafka metadata before v2): set "
                           "RAPPORT_BROKER_EPOCH to a name that changes whenever the broker's log starts over")
    return str(cluster_id)


async def broker_epoch(s: Settings) -> str:
    """The broker's identity: offsets are only comparable within one cluster id (see DESIGN).
    RAPPORT_BROKER_EPOCH if set (the embedded broker's fresh id per start), else the cluster id the
    brokers report in metadata (v2+: Apache Kafka, Tansu, Redpanda...)."""
    if s.broker_epoch:
        return s.broker_epoch
    from streams.topics import describe

    cluster_id, _ = await describe(s)
    return epoch_of(cluster_id)


class Worker:
    """One worker process's parts, built by `build_worker`. The pipeline is made on first use (it needs
    the event loop: an async connection, the broker's epoch) unless one is given."""

    def __init__(self, settings: Settings, topics: Topics, *, pipeline: InteractionPipeline | None = None,
                 keys_conn: psycopg.AsyncConnection | None = None, extractor: Any = None, summarizer: Any = None,
                 make_pipeline: Callable[[Worker], Any] | None = None, consumer: Callable[[], Any] | None = None):
        self.settings = settings
        self.topics = topics
        self._pipeline = pipeline
        self._make_pipeline = make_pipeline or _live_pipeline
        self._keys_conn = keys_conn
        self.extractor = extractor
        self.summarizer = summarizer
        self.consumer = consumer or (lambda: None)  # the Faust consumer (its assignment, high water marks)
        # a batch's sends run in the background while the next batch is processed: at most one batch's
        # in flight, in batch order (publish_outcome waits for the previous one before it starts the next)
        self.publishing: asyncio.Task | None = None
        self._outbox: tuple[str, psycopg.AsyncConnection] | None = None  # (the version's schema, its connection)
        self._scheduler_conn: psycopg.AsyncConnection | None = None

    async def pipeline(self) -> InteractionPipeline:
        if self._pipeline is None:
            self._pipeline = await self._make_pipeline(self)
        return self._pipeline

    def forget_cache(self) -> None:
        """Partitions moved to another worker: its writes make the pipeline's cached states stale."""
        if self._pipeline is not None:
            self._pipeline.forget_cache()

    async def keys_conn(self) -> psycopg.AsyncConnection:
        """A connection of its own for contact keys: the pipeline's is inside its batch transactions, and
        publish_source runs in the LLM clients' background tasks."""
        c = self._keys_conn
        if c is None or c.closed or c.broken:
            self._keys_conn = await db.connect_async(self.settings.database_url, autocommit=True)
        return self._keys_conn  # type: ignore[return-value]

    # ------------------------------------------------------------------ the stream
    async def consume(self, stream: Any) -> None:
        """The agent's loop: batches of the interactions topic through the pipeline, then published."""
        s, p = self.settings, await self.pipeline()
        try:
            async for events in stream.take_events(s.batch_size, within=s.batch_window_s):
                records = [Record(e.message.value, e.message.topic, e.message.partition, e.message.offset,
                                  e.message.key, e.message.headers) for e in events]
                await self.process_batch(p, records)
        finally:  # the last batch's sends, before the worker stops (else the leader's outbox relay sends them)
            await self.finish_publishing(FLUSH_ON_STOP_S)

    async def process_batch(self, p: InteractionPipeline, records: list[Record]) -> None:
        # one span per batch; each record's producer trace continues in a span of its own (streams/tracing.py)
        with tracing.tracer.start_as_current_span(f"process {self.settings.interactions_topic}",
                                                  kind=SpanKind.CONSUMER) as span:
            started = time.time_ns()
            with metrics.BATCH_SECONDS.time(), metrics.stage("open"):  # the pipeline moves on through the stages
                outcome = await self.process_reconnecting(p, records)
            metrics.observe_batch(outcome, p.erased, now_utc())
            metrics.observe_lag(records, self.partition_end)
            if span.is_recording():
                tracing.consumed(span, traced_records(records, outcome), started)
            with metrics.stage("publish"):
                await self.publish_outcome(outcome)

    async def process_reconnecting(self, p: InteractionPipeline, records: list[Record]):  # noqa: ANN201
        """p.process, waiting out a lost PostgreSQL connection (a database restart): reconnect with
        backoff and run the batch again; its transaction rolled back, so nothing of it was applied."""
        try:  # the usual case builds no retry loop (tenacity's costs tens of microseconds a batch)
            return await p.process(records)
        except CONNECTION_LOST as err:
            log.warning("database connection lost (%s); reconnecting", err)
        async for tried in backoff(CONNECTION_LOST, "database connection lost", first_s=0.2, max_s=RECONNECT_MAX_S):
            with tried:
                await self._reconnect(p)
                return await p.process(records)

    async def _reconnect(self, p: InteractionPipeline) -> None:
        """A new connection for the pipeline; a failure is logged, and the batch's next attempt fails and waits."""
        try:
            if not p.conn.closed:
                await p.conn.close()
            p.conn = await db.connect_async(self.settings.database_url, schema=db.schema_of(p.version),
                                            connect_timeout=5)
            p.forget_cache()
        except psycopg.Error as again:
            log.warning("reconnect failed: %s", again)

    def partition_end(self, topic: str, partition: int) -> int | None:
        """The broker's high water mark of a partition this worker consumes, as last fetched (None: unknown)."""
        from faust.types import TP

        try:
            return self.consumer().highwater(TP(topic, partition))
        except Exception:  # no started consumer (Faust's test context) or a partition moved away: unknown
            return None

    # ------------------------------------------------------------------ sending
    async def send_signed(self, topic: Any, key: bytes, value: bytes, headers: list | None = None) -> None:
        """Every record a worker publishes carries rapport's signature (schemas/recordsig.py)."""
        await topic.send(key=key, value=value,
                         headers=recordsig.signed_headers(self.settings.record_key, key, value, headers))

    async def publish_source(self, env) -> None:  # noqa: ANN001
        """A source event the workers produce themselves (LLM proposals, summaries), keyed like every
        other, its payload (personal content) sealed with the contact's key. Only an existing key: when
        there is none the contact was erased while the model worked on its message, and making it a new
        key would bring erased content back as a "later" event. Proposals are optional; it is dropped."""
        p = await self.pipeline()
        contact = (env.tenant_id, env.contact_id)
        keys = await p.keys.fetch(await self.keys_conn(), shredding.contacts_to_seal([env]))
        if shredding.needs_seal(env.payload) and contact not in keys:
            log.info("%s %s dropped: its contact has no key (erased)", env.event_type, env.event_id)
            return
        env = shredding.seal_envelope(env, keys.get(contact))
        await self.send_signed(self.topics.interactions, partition_key(*contact), encode(env))

    async def seal_derived(self, derived: list) -> list:
        """Derived events carry memory contents: the memory-events (and triggers) topics get them sealed
        with the contact's key, like the source events. Those of a contact this batch erased are
        dropped: their rows and key are gone, and a new key must not be made for an erased contact."""
        p = await self.pipeline()
        live = [e for e in derived if (e.tenant_id, e.contact_id) not in p.erased]
        keys = await p.keys.fetch(await self.keys_conn(), shredding.contacts_to_seal(live), create=True)
        return [shredding.seal_envelope(e, keys.get((e.tenant_id, e.contact_id))) for e in live]

    async def publish_outcome(self, outcome) -> None:  # noqa: ANN001
        """A committed batch's dead letters and derived events to their topics (the derived ones with the
        batch's trace context), and its sources to the optional LLM steps. The derived events are
        sealed here, with the keys as of this batch (the next batch may erase a contact: no key is made
        for it again); the sends and the outbox's clean-up run in the background while the next batch
        is processed (`_send_batch`)."""
        if self.extractor is not None and outcome.sources:  # deferred LLM extraction, off the stream's path
            self.extractor.submit(outcome.sources, outcome.profiles, self.publish_source)
        if self.summarizer is not None:
            self.summarizer.submit(outcome.derived, self.publish_source)
        for dl in outcome.dead_letters:  # logged in the batch's span (its trace id), sent with the batch's sends
            # the reason's kind only: its details can quote the message (they are in the dead-letter record)
            log.warning("dead letter %s/%s@%s: %s", dl.record.topic, dl.record.partition, dl.record.offset,
                        dl.reason.split(":", 1)[0])
        kinds = metrics.trigger_kinds(outcome.derived)  # read before sealing hides the payload
        sealed = await self.seal_derived(outcome.derived)
        headers = tracing.record_headers()
        await self.finish_publishing()
        self.publishing = asyncio.create_task(self._send_batch(outcome, sealed, headers, kinds))

    async def finish_publishing(self, timeout: float | None = None) -> None:
        """Wait for the batch being sent (if any). A send that failed leaves its events in the outbox,
        for the leader's relay (OUTBOX_GRACE_S later)."""
        task, self.publishing = self.publishing, None
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except asyncio.TimeoutError:
            log.warning("a batch's sends did not finish within %.0f s; the outbox relay sends what is left", timeout)
        except Exception as err:  # noqa: BLE001 (the outbox keeps them)
            log.warning("publishing a batch's derived events failed (%s); the outbox relay sends them",
                        type(err).__name__)

    async def _send_batch(self, outcome, sealed: list, headers: list, kinds: dict[str, str]) -> None:  # noqa: ANN001
        with metrics.background("send"):
            await self.send_sealed(sealed, headers, kinds)
            for dl in outcome.dead_letters:
                await self.topics.dead_letter.send(key=dl.record.key, value=dl.to_bytes())
        # sent (or dropped with an erased contact): out of the outbox; a death before this line leaves
        # them to relay_outbox, and their consumers dedup by event id
        await (await self.pipeline()).mark_published(outcome.derived)

    async def send_derived(self, derived: list) -> None:
        """Derived events, sealed, to the memory-events topic (triggers also to the triggers topic), with
        the current trace context."""
        kinds = metrics.trigger_kinds(derived)  # read before sealing hides the payload
        await self.send_sealed(await self.seal_derived(derived), tracing.record_headers(), kinds)

    async def send_sealed(self, sealed: list, headers: list, kinds: dict[str, str]) -> None:
        for e in sealed:
            key, value = derived_record(e)
            await self.send_signed(self.topics.memory_events, key, value, headers)
            if e.event_type == ev.TRIGGER_CREATED:  # for services that act on triggers
                await self.send_signed(self.topics.triggers, key, value, headers)
                metrics.TRIGGERS_PUBLISHED.labels(kinds[e.event_id]).inc()

    # ------------------------------------------------------------------ the timers' passes
    async def relay_outbox(self) -> None:
        """Derived events committed by a worker that died before sending them go out now (at least once)."""
        p = await self.pipeline()
        schema = db.schema_of(p.version)
        if self._outbox is None or self._outbox[0] != schema or self._outbox[1].closed or self._outbox[1].broken:
            if self._outbox is not None and not self._outbox[1].closed:
                await self._outbox[1].close()
            self._outbox = (schema, await db.connect_async(self.settings.database_url, schema=schema,
                                                           connect_timeout=5))
        n = await projector.relay_unpublished(self._outbox[1], OUTBOX_GRACE_S, self.send_derived)
        if n:
            log.warning("outbox relay: published %d derived events a worker had committed but not sent", n)

    async def schedule_due_work(self) -> None:
        """Wall-clock time reaching a contact's due work becomes a ContactTick on the contact's
        partition, so the work happens in order with its messages and replay sees it
        (agents/scheduler.py)."""
        c = self._scheduler_conn
        if c is None or c.closed or c.broken:
            self._scheduler_conn = c = await db.connect_async(self.settings.database_url, autocommit=True,
                                                              connect_timeout=5)
        with metrics.stage("scheduler"):
            for env in await due_ticks(c, now_utc()):
                await self.send_signed(self.topics.interactions, partition_key(env.tenant_id, env.contact_id),
                                       encode(env))

    async def heartbeat(self) -> None:
        """Tell /healthz this worker is up (a key that expires if the worker dies). A stalled Redis costs
        this pass (bounded wait), never the timer."""
        p = await self.pipeline()
        if p.redis is not None:
            consumer = self.consumer()
            topic = self.settings.interactions_topic
            assigned = sorted(tp.partition for tp in consumer.assignment() if tp.topic == topic)
            await bounded(p.redis.set(worker_key(self.settings.worker_id), orjson.dumps({"partitions": assigned}),
                                      ex=15), REDIS_TIMEOUT_S, "redis")


async def _live_pipeline(w: Worker) -> InteractionPipeline:
    """The pipeline a worker process runs: the projection version's connection, the configured
    embedder, Redis, the model's moods (when configured) and the record key records are checked with."""
    import redis.asyncio as aioredis

    from agents import llm
    from domain.embedder import default_embedder

    s = w.settings
    if s.record_key is None:  # `rapport worker` refuses to start without one (ops/cli.py)
        raise RuntimeError("no record key: set RAPPORT_RECORD_KEY or RAPPORT_RECORD_KEY_FILE")
    version = db.prepare(s.database_url, s.projection_version)
    conn = await db.connect_async(s.database_url, schema=db.schema_of(version))
    return InteractionPipeline(conn, default_embedder(s), broker_epoch=await broker_epoch(s),
                               redis=aioredis.from_url(s.redis_url, socket_timeout=REDIS_TIMEOUT_S,
                                                       socket_connect_timeout=REDIS_TIMEOUT_S),
                               version=version, follow_active=s.projection_version is None, moods=llm.from_settings(s),
                               signing_key=s.record_key, ledger_order=True)


def build_worker(settings: Settings, topics: Topics, **deps: Any) -> Worker:
    """The worker of one process, from its settings: the LLM steps they configure (deferred extraction,
    summaries) unless given, the pipeline made on first use unless given (`deps`: Worker's keywords)."""
    from agents import llm

    deps.setdefault("extractor", llm.extractor_from_settings(settings))
    deps.setdefault("summarizer", llm.summarizer_from_settings(settings))
    return Worker(settings, topics, **deps)


def traced_records(records: list[Record], outcome) -> list:  # noqa: ANN001
    """(producer context, outcome, span attributes) per record of a batch, for tracing.consumed."""
    out = []
    for r, (what, ids) in zip(records, record_outcomes(records, outcome)):
        ctx = tracing.context_from_headers(r.headers)
        if ctx is None:
            continue
        out.append((ctx, what, {"messaging.system": "kafka", "messaging.destination.name": r.topic,
                                "messaging.destination.partition.id": str(r.partition),
                                "messaging.kafka.offset": r.offset if r.offset is not None else -1,
                                **{f"rapport.{k}": ids[k] for k in ("tenant_id", "event_id", "event_type") if k in ids}}))
    return out
