"""Faust agents: thin shells that feed topic batches through agents/pipeline.py.

Run with `rapport worker` (ops/cli.py), which imports this module so the agents register on the app.
"""
from __future__ import annotations

import asyncio
import logging
import time

import psycopg
from opentelemetry.trace import SpanKind

from domain.embedder import default_embedder
from agents.pipeline import InteractionPipeline, Record, derived_record, record_outcomes
from agents.scheduler import due_ticks
from agents import metrics
from agents import projector
from streams import db
from schemas import events as ev
from schemas import recordsig
from schemas.cachekeys import worker_key
from schemas.envelope import encode, now_utc, partition_key
from streams.app import app, dead_letter_topic, interactions_topic, memory_events_topic, triggers_topic
from streams import shredding, tracing
from streams.config import settings
from streams.resilience import bounded, survive

log = logging.getLogger("rapport.agents")
_pipeline: InteractionPipeline | None = None
_extractor = None
_summarizer = None
_keys_conn = None


async def pipeline() -> InteractionPipeline:
    global _pipeline
    if _pipeline is None:
        import redis.asyncio as aioredis

        s = settings()
        if s.record_key is None:  # `rapport worker` refuses to start without one (ops/cli.py)
            raise RuntimeError("no record key: set RAPPORT_RECORD_KEY or RAPPORT_RECORD_KEY_FILE")
        version = db.prepare(s.database_url, s.projection_version)
        conn = await db.connect_async(s.database_url, schema=db.schema_of(version))
        from agents import llm

        global _extractor, _summarizer
        _extractor = llm.extractor_from_settings()
        _summarizer = llm.summarizer_from_settings()
        _pipeline = InteractionPipeline(conn, default_embedder(s), broker_epoch=await broker_epoch(),
                                        redis=aioredis.from_url(s.redis_url, socket_timeout=REDIS_TIMEOUT_S,
                                                                socket_connect_timeout=REDIS_TIMEOUT_S),
                                        version=version, follow_active=s.projection_version is None, moods=llm.from_settings(),
                                        signing_key=s.record_key, ledger_order=True)
    return _pipeline


async def keys_conn():  # noqa: ANN201
    """A connection of its own for contact keys: the pipeline's is inside its batch transactions, and
    publish_source runs in the LLM clients' background tasks."""
    global _keys_conn
    if _keys_conn is None or _keys_conn.closed or _keys_conn.broken:
        _keys_conn = await db.connect_async(settings().database_url, autocommit=True)
    return _keys_conn


async def publish_source(env) -> None:  # noqa: ANN001
    """A source event the workers produce themselves (LLM proposals, summaries), keyed like every other,
    its payload (personal content) sealed with the contact's key. Only an existing key: when there is
    none the contact was erased while the model worked on its message, and making it a new key would
    bring erased content back as a "later" event. Proposals are optional; it is dropped."""
    p = await pipeline()
    contact = (env.tenant_id, env.contact_id)
    keys = await p.keys.fetch(await keys_conn(), shredding.contacts_to_seal([env]))
    if shredding.needs_seal(env.payload) and contact not in keys:
        log.info("%s %s dropped: its contact has no key (erased)", env.event_type, env.event_id)
        return
    env = shredding.seal_envelope(env, keys.get(contact))
    await send_signed(interactions_topic, partition_key(*contact), encode(env))


async def send_signed(topic, key: bytes, value: bytes, headers: list | None = None) -> None:  # noqa: ANN001
    """Every record a worker publishes carries rapport's signature (schemas/recordsig.py)."""
    await topic.send(key=key, value=value, headers=recordsig.signed_headers(settings().record_key, key, value, headers))


async def seal_derived(p: InteractionPipeline, derived: list) -> list:
    """Derived events carry memory contents: the memory-events (and triggers) topics get them sealed
    with the contact's key, like the source events. Those of a contact this batch erased are dropped:
    their rows and key are gone, and a new key must not be made for an erased contact."""
    live = [e for e in derived if (e.tenant_id, e.contact_id) not in p.erased]
    keys = await p.keys.fetch(await keys_conn(), shredding.contacts_to_seal(live), create=True)
    return [shredding.seal_envelope(e, keys.get((e.tenant_id, e.contact_id))) for e in live]


async def broker_epoch() -> str:
    """The broker's identity: offsets are only comparable within one cluster id (see DESIGN).
    RAPPORT_BROKER_EPOCH if set (the embedded broker's fresh id per start), else the cluster id the
    brokers report in metadata (v2+: Apache Kafka, Tansu, Redpanda...)."""
    s = settings()
    if s.broker_epoch:
        return s.broker_epoch
    from streams.topics import describe

    cluster_id, _ = await describe(s)
    return epoch_of(cluster_id)


def epoch_of(cluster_id: str | None) -> str:
    """A cluster id as the epoch; a broker too old to report one (metadata before v2) cannot be told
    apart from its successor, so the worker refuses to guess."""
    if not cluster_id:
        raise RuntimeError("the broker reports no cluster id (Kafka metadata before v2): set "
                           "RAPPORT_BROKER_EPOCH to a name that changes whenever the broker's log starts over")
    return str(cluster_id)


RECONNECT_MAX_S = 1.0  # a local database back from a crash answers within a second of its recovery
REDIS_TIMEOUT_S = 2.0


async def process_reconnecting(p: InteractionPipeline, records: list[Record]):  # noqa: ANN201
    """p.process, waiting out a lost PostgreSQL connection (a database restart): reconnect with backoff
    and run the batch again; its transaction rolled back, so nothing of it was applied."""
    delay = 0.2
    while True:
        try:
            return await p.process(records)
        except (psycopg.OperationalError, psycopg.InterfaceError) as err:
            log.warning("database connection lost (%s); reconnecting in %.1f s", err, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX_S)
            try:
                if not p.conn.closed:
                    await p.conn.close()
                p.conn = await db.connect_async(settings().database_url, schema=db.schema_of(p.version),
                                                connect_timeout=5)
                p.forget_cache()
            except psycopg.Error as again:
                log.warning("reconnect failed: %s", again)


@app.on_partitions_revoked.connect
async def _on_revoked(app_, revoked, **kwargs) -> None:  # noqa: ANN001
    if _pipeline is not None:
        _pipeline.forget_cache()
    metrics.forget_partitions(revoked)  # another worker reports their lag now


@app.agent(interactions_topic)
async def process_interactions(stream):  # noqa: ANN001
    s = settings()
    p = await pipeline()
    try:
        async for events in stream.take_events(s.batch_size, within=s.batch_window_s):
            records = [Record(e.message.value, e.message.topic, e.message.partition, e.message.offset, e.message.key,
                              e.message.headers) for e in events]
            # one span per batch; each record's producer trace continues in a span of its own (streams/tracing.py)
            with tracing.tracer.start_as_current_span(f"process {interactions_topic.get_topic_name()}",
                                                      kind=SpanKind.CONSUMER) as span:
                started = time.time_ns()
                with metrics.BATCH_SECONDS.time(), metrics.stage("open"):  # the pipeline moves on through the stages
                    outcome = await process_reconnecting(p, records)
                metrics.observe_batch(outcome, p.erased, now_utc())
                metrics.observe_lag(records, partition_end)
                if span.is_recording():
                    tracing.consumed(span, traced_records(records, outcome), started)
                with metrics.stage("publish"):
                    await publish_outcome(p, outcome)
    finally:  # the last batch's sends, before the worker stops (else the leader's outbox relay sends them)
        await finish_publishing(FLUSH_ON_STOP_S)


# A batch's sends run in the background while the next batch is processed: at most one batch's in
# flight, in batch order (publish_outcome waits for the previous one before it starts the next).
_publishing: asyncio.Task | None = None
FLUSH_ON_STOP_S = 10.0


async def publish_outcome(p: InteractionPipeline, outcome) -> None:  # noqa: ANN001
    """A committed batch's dead letters and derived events to their topics (the derived ones with the
    batch's trace context), and its sources to the optional LLM steps. The derived events are sealed
    here, with the keys as of this batch (the next batch may erase a contact: no key is made for it
    again); the sends and the outbox's clean-up run in the background while the next batch is
    processed (`_send_batch`)."""
    global _publishing
    if _extractor is not None and outcome.sources:  # deferred LLM extraction, off the stream's path
        _extractor.submit(outcome.sources, outcome.profiles, publish_source)
    if _summarizer is not None:
        _summarizer.submit(outcome.derived, publish_source)
    for dl in outcome.dead_letters:  # logged in the batch's span (its trace id), sent with the batch's sends
        # the reason's kind only: its details can quote the message (they are in the dead-letter record)
        log.warning("dead letter %s/%s@%s: %s", dl.record.topic, dl.record.partition, dl.record.offset,
                    dl.reason.split(":", 1)[0])
    kinds = metrics.trigger_kinds(outcome.derived)  # read before sealing hides the payload
    sealed = await seal_derived(p, outcome.derived)
    headers = tracing.record_headers()
    await finish_publishing()
    _publishing = asyncio.create_task(_send_batch(p, outcome, sealed, headers, kinds))


async def finish_publishing(timeout: float | None = None) -> None:
    """Wait for the batch being sent (if any). A send that failed leaves its events in the outbox, for
    the leader's relay (OUTBOX_GRACE_S later)."""
    global _publishing
    task, _publishing = _publishing, None
    if task is None:
        return
    try:
        await asyncio.wait_for(asyncio.shield(task), timeout)
    except asyncio.TimeoutError:
        log.warning("a batch's sends did not finish within %.0f s; the outbox relay sends what is left", timeout)
    except Exception as err:  # noqa: BLE001 (the outbox keeps them)
        log.warning("publishing a batch's derived events failed (%s); the outbox relay sends them",
                    type(err).__name__)


async def _send_batch(p: InteractionPipeline, outcome, sealed: list, headers: list,  # noqa: ANN001
                      kinds: dict[str, str]) -> None:
    with metrics.background("send"):
        await send_sealed(sealed, headers, kinds)
        for dl in outcome.dead_letters:
            await dead_letter_topic.send(key=dl.record.key, value=dl.to_bytes())
    # sent (or dropped with an erased contact): out of the outbox; a death before this line leaves
    # them to relay_outbox, and their consumers dedup by event id
    await p.mark_published(outcome.derived)


async def send_derived(p: InteractionPipeline, derived: list) -> None:
    """Derived events, sealed, to the memory-events topic (triggers also to the triggers topic), with the
    current trace context."""
    kinds = metrics.trigger_kinds(derived)  # read before sealing hides the payload
    await send_sealed(await seal_derived(p, derived), tracing.record_headers(), kinds)


async def send_sealed(sealed: list, headers: list, kinds: dict[str, str]) -> None:
    for e in sealed:
        key, value = derived_record(e)
        await send_signed(memory_events_topic, key, value, headers)
        if e.event_type == ev.TRIGGER_CREATED:  # for services that act on triggers
            await send_signed(triggers_topic, key, value, headers)
            metrics.TRIGGERS_PUBLISHED.labels(kinds[e.event_id]).inc()


OUTBOX_RELAY_EVERY_S = 15.0
OUTBOX_GRACE_S = 30.0  # a live worker publishes within its batch; older rows are a worker that died
_outbox: tuple[str, psycopg.AsyncConnection] | None = None  # (the version's schema, its connection)


@app.timer(interval=OUTBOX_RELAY_EVERY_S, on_leader=True)
@survive("outbox relay")
async def relay_outbox() -> None:
    """Derived events committed by a worker that died before sending them go out now (at least once)."""
    global _outbox
    p = await pipeline()
    schema = db.schema_of(p.version)
    if _outbox is None or _outbox[0] != schema or _outbox[1].closed or _outbox[1].broken:
        if _outbox is not None and not _outbox[1].closed:
            await _outbox[1].close()
        _outbox = (schema, await db.connect_async(settings().database_url, schema=schema, connect_timeout=5))
    n = await projector.relay_unpublished(_outbox[1], OUTBOX_GRACE_S, lambda envs: send_derived(p, envs))
    if n:
        log.warning("outbox relay: published %d derived events a worker had committed but not sent", n)


def partition_end(topic: str, partition: int) -> int | None:
    """The broker's high water mark of a partition this worker consumes, as last fetched (None: unknown)."""
    from faust.types import TP

    try:
        return app.consumer.highwater(TP(topic, partition))
    except Exception:  # no started consumer (Faust's test context) or a partition moved away: unknown
        return None


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


if settings().web_port:
    from faust.sensors.prometheus import setup_prometheus_sensors

    setup_prometheus_sensors(app)  # Faust's own sensor: lag, commit latency, events/s per topic


SCHEDULE_EVERY_S = 5.0
_scheduler_conn = None


@app.timer(interval=SCHEDULE_EVERY_S, on_leader=True)
@survive("scheduler")
async def schedule_due_work() -> None:
    """Wall-clock time reaching a contact's due work becomes a ContactTick on the contact's partition,
    so the work happens in order with its messages and replay sees it (agents/scheduler.py). A failing
    pass (database restarting, a broker hiccup) is logged; the next one runs 5 s later."""
    global _scheduler_conn
    if _scheduler_conn is None or _scheduler_conn.closed or _scheduler_conn.broken:
        _scheduler_conn = await db.connect_async(settings().database_url, autocommit=True, connect_timeout=5)
    with metrics.stage("scheduler"):
        for env in await due_ticks(_scheduler_conn, now_utc()):
            await send_signed(interactions_topic, partition_key(env.tenant_id, env.contact_id), encode(env))


@app.timer(interval=5.0)
@survive("heartbeat")
async def heartbeat() -> None:
    """Tell /healthz this worker is up (a key that expires if the worker dies). A stalled Redis costs
    this pass (bounded wait), never the timer."""
    import orjson

    p = await pipeline()
    if p.redis is not None:
        assigned = sorted(tp.partition for tp in app.consumer.assignment() if tp.topic == interactions_topic.get_topic_name())
        await bounded(p.redis.set(worker_key(settings().worker_id), orjson.dumps({"partitions": assigned}), ex=15),
                      REDIS_TIMEOUT_S, "redis")
