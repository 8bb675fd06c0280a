"""The webhook delivery process (`rapport webhooks-worker`; supervised by `rapport up`).

Two loops in one process, apart from the workers (a slow or dead receiver never holds up the pipeline):

- **enqueue**: a consumer group of its own (`<app id>-webhooks`) reads the topics the workers already
  publish: `memory-events` (memory events and triggers) and `interactions` (only `ContactErased`, whose
  payload is clear), once some tenant has a subscription. A batch's events that a subscription of their
  tenant wants are opened with their contacts' keys, share-locked in the same transaction, and written to the outbox
  (`rapport.webhook_deliveries`, one row per subscription and event); the offsets are committed
  after that transaction. So a crash re-reads the batch and the unique (subscription, event) pair
  makes the re-read enqueue nothing twice, and an event whose contact was erased is never enqueued
  (its key is gone: crypto-shredding) nor left behind (the erasure deletes the contact's rows after
  the key, waiting for this transaction).
- **send**: due deliveries are claimed with a lease, POSTed signed (streams/webhooks/signing.py) through
  drawbridge (streams/webhooks/addresses.py: no private addresses, no redirects), and recorded as
  delivered, to be tried again on the schedule (rules.RetrySchedule), or dead. Any number of these
  processes may run against one database.

At least once: a receiver may get an event twice (a crash after its 2xx, a lease that ran out), with
the same `webhook-id`: receivers dedupe on it.
"""
from __future__ import annotations

import asyncio
import logging
import random
import signal
from typing import Any, Callable

import drawbridge
import httpx
import psycopg
from psycopg_pool import AsyncConnectionPool

from schemas import recordsig
from schemas.codec import decode
from schemas.envelope import InvalidEvent
from streams import shredding
from streams.config import Settings, settings
from streams.resilience import survive
from streams.webhooks import addresses, rules, signing, store

log = logging.getLogger("rapport.webhooks")

MAX_ERROR_CHARS = 300
PRUNE_EVERY_S = 600.0
SUBSCRIPTION_CHECK_S = 2.0
# the embedded broker holds a fetch for the whole wait even when data arrives: webhooks can wait half a
# second, and polling less often keeps this consumer's load on the broker small
FETCH_MAX_WAIT_MS = 500


# ------------------------------------------------------------------ enqueue
async def enqueue_batch(conn: psycopg.AsyncConnection, values: list[bytes]) -> int:
    """Topic record values -> outbox rows, in one transaction; returns the deliveries planned."""
    candidates = [d for d in map(shredding.parse, values) if isinstance(d, dict)
                  and d.get("event_type") in rules.DELIVERABLE and isinstance(d.get("tenant_id"), str)]
    if not candidates:
        return 0
    async with conn.transaction():
        subs = await store.subscriptions(conn, {d["tenant_id"] for d in candidates})
        wanted = [d for d in candidates
                  if any(s.tenant_id == d["tenant_id"] and rules.may_match(s.events, d["event_type"]) for s in subs)]
        if not wanted:
            return 0
        keys = await shredding.fetch_keys(conn, shredding.sealed_contacts(wanted), lock=True)
        envs = []
        for d in wanted:
            try:
                envs.append(decode(shredding.open_dict(d, keys.get((d.get("tenant_id"), d.get("contact_id"))))))
            except shredding.Shredded as gone:  # its contact was erased: nothing of it is sent
                gone.event_id = d.get("event_id")
                gone.skip()
            except (InvalidEvent, KeyError, TypeError) as err:
                log.warning("event %s not delivered: %s", str(d.get("event_id"))[:128], type(err).__name__)
        # read under the key locks: a memory forgotten since these events were published is not sent
        # (agents/projector.forget_memory locks the keys, then deletes what was enqueued before)
        gone = await store.forgotten(conn, envs)
        if gone:
            envs = [e for e in envs if (e.tenant_id, e.contact_id, rules.memory_of(e)) not in gone]
        planned = rules.plan(envs, subs)
        async with conn.cursor() as cur:
            return await store.enqueue(cur, planned)


async def consume(s: Settings, pool: AsyncConnectionPool, stopping: asyncio.Event) -> None:
    """Read the topics into the outbox until `stopping`; offsets are committed after each batch is stored."""
    from aiokafka import AIOKafkaConsumer
    from aiokafka.errors import KafkaError

    from streams.topics import ensure_topics

    if not await _wait_for_subscriptions(pool, stopping):
        return
    delay = 0.5
    while True:  # the broker may still be starting (or restarting)
        consumer = AIOKafkaConsumer(
            s.memory_events_topic, s.interactions_topic, bootstrap_servers=s.kafka_bootstrap,
            group_id=f"{s.app_id}-webhooks", enable_auto_commit=False, auto_offset_reset="earliest",
            fetch_max_wait_ms=FETCH_MAX_WAIT_MS, session_timeout_ms=int(s.rebalance_timeout_s * 1000),
            rebalance_timeout_ms=int(s.rebalance_timeout_s * 1000),
            heartbeat_interval_ms=int(min(3.0, s.rebalance_timeout_s / 3) * 1000))
        try:
            await ensure_topics(s)
            await consumer.start()
            break
        except (KafkaError, OSError) as err:
            log.info("broker not reachable yet: %s", err)
            await consumer.stop()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)
    try:
        while not stopping.is_set():
            batch = await consumer.getmany(timeout_ms=500, max_records=s.batch_size)
            if not batch:
                continue
            await _store_retrying(signed_values(s.record_key, [m for msgs in batch.values() for m in msgs]),
                                  pool, stopping)
            try:
                await consumer.commit({tp: msgs[-1].offset + 1 for tp, msgs in batch.items()})
            except KafkaError as err:  # a rebalance: the batch is read again and enqueues nothing twice
                log.warning("offset commit failed (%s); the batch will be read again", type(err).__name__)
    finally:
        await consumer.stop()


async def _wait_for_subscriptions(pool: AsyncConnectionPool, stopping: asyncio.Event) -> bool:
    """Until some tenant subscribes, nothing is read (no load on the broker): what was recorded before
    a subscription is not delivered to it anyway. False when stopping first."""

    @survive("webhook subscriptions check")
    async def any_subscription() -> bool:
        async with pool.connection() as conn:
            return await store.any_subscription(conn)

    while not stopping.is_set():
        if await any_subscription():
            return True
        try:
            await asyncio.wait_for(stopping.wait(), SUBSCRIPTION_CHECK_S)
        except asyncio.TimeoutError:
            pass
    return False


def signed_values(key: bytes | None, msgs: list) -> list[bytes]:
    """The values of the records rapport signed (schemas/recordsig.py): a record another local user or
    producer forged on the broker never becomes a webhook. The others are logged (kind only) and skipped."""
    if key is None:
        return [m.value for m in msgs]
    out = []
    for m in msgs:
        why = recordsig.problem(key, m.key, m.value, m.headers)
        if why:
            log.warning("record %s/%s@%s skipped: %s", m.topic, m.partition, m.offset, why.split(":", 1)[0])
        else:
            out.append(m.value)
    return out


async def _store_retrying(values: list[bytes], pool: AsyncConnectionPool, stopping: asyncio.Event) -> None:
    """enqueue_batch, waiting out a database that is away (the offsets are not committed meanwhile). A
    batch that fails otherwise is stored record by record, and a record that fails alone is skipped
    with a log line: one bad record must not stop every webhook."""
    delay = 0.2
    while True:
        try:
            async with pool.connection() as conn:
                await enqueue_batch(conn, values)
            return
        except (psycopg.OperationalError, psycopg.InterfaceError, asyncio.TimeoutError) as err:
            if stopping.is_set():
                raise
            log.warning("database unavailable (%s); storing the batch again in %.1f s", type(err).__name__, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)
        except Exception as err:
            log.error("storing a batch of %d records failed (%s); storing them one by one", len(values),
                      type(err).__name__)
            for v in values:
                try:
                    async with pool.connection() as conn:
                        await enqueue_batch(conn, [v])
                except (psycopg.OperationalError, psycopg.InterfaceError):
                    raise
                except Exception as one:
                    log.error("a record was not enqueued for webhooks: %s", type(one).__name__)
            return


# ------------------------------------------------------------------ send
async def attempt(client: drawbridge.Client, c: store.Claimed) -> tuple[int | None, str | None, float | None]:
    """POST one delivery: (HTTP status or None, None when delivered else why not, Retry-After seconds).
    The response body is never read."""
    headers = {"content-type": "application/json", **signing.sign(c.secret, c.event_id, c.body)}
    try:
        async with client.stream("POST", c.url, content=c.body, headers=headers) as r:
            if 200 <= r.status_code < 300:
                return r.status_code, None, None
            return r.status_code, f"HTTP {r.status_code}", rules.retry_after(r.headers.get("retry-after"))
    except drawbridge.DrawbridgeError as err:  # the SSRF rule refused the address (or DNS failed)
        return None, f"refused: {err}"[:MAX_ERROR_CHARS], None
    except httpx.TimeoutException:
        return None, "timed out", None
    except httpx.HTTPError as err:
        return None, f"{type(err).__name__}: {err}"[:MAX_ERROR_CHARS], None


class Sender:
    """Claims due deliveries and sends them, at most cfg.concurrency at once and cfg.per_webhook to one
    subscription."""

    def __init__(self, pool: AsyncConnectionPool, cfg: rules.Config, client: drawbridge.Client,
                 rand: Callable[[], float] = random.random):
        self.pool, self.cfg, self.client, self.rand = pool, cfg, client, rand
        self.in_flight: dict[str, int] = {}
        self.tasks: set[asyncio.Task] = set()
        # a claim outlives the slowest attempt (connect, write, read, pool: each up to the timeout)
        self.lease_s = 4 * cfg.timeout_s + 30.0

    @survive("webhook send")
    async def pass_once(self) -> int:
        free = self.cfg.concurrency - sum(self.in_flight.values())
        if free <= 0:
            return 0
        async with self.pool.connection() as conn:
            claimed = await store.claim(conn, free, self.cfg.per_webhook, self.lease_s,
                                        {k: n for k, n in self.in_flight.items() if n})
        for c in claimed:
            self.in_flight[c.webhook_id] = self.in_flight.get(c.webhook_id, 0) + 1
            task = asyncio.create_task(self.send(c))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        return len(claimed)

    async def send(self, c: store.Claimed) -> None:
        try:
            code, error, wait = await attempt(self.client, c)
            next_in = None if error is None else self.cfg.schedule.after_failure(c.attempt, self.rand(), wait)
            async with self.pool.connection() as conn:
                await store.record(conn, c, status_code=code, error=error, next_in_s=next_in)
            if error is not None and next_in is None:
                log.warning("delivery %s of event %s to %s dead-lettered after %d attempts: %s", c.delivery_id,
                            c.event_id, c.webhook_id, c.attempt, error)
            elif error is not None:
                log.info("delivery %s to %s failed (attempt %d: %s); next in %.0f s", c.delivery_id, c.webhook_id,
                         c.attempt, error, next_in)
        except Exception as err:  # recording failed: the lease runs out and the delivery is sent again
            log.warning("delivery %s: %s; it is retried when its lease ends", c.delivery_id, type(err).__name__)
        finally:
            self.in_flight[c.webhook_id] -= 1

    async def run(self, stopping: asyncio.Event) -> None:
        while not stopping.is_set():
            n = await self.pass_once()
            if not n:
                try:
                    await asyncio.wait_for(stopping.wait(), self.cfg.poll_s)
                except asyncio.TimeoutError:
                    pass


async def prune_forever(pool: AsyncConnectionPool, cfg: rules.Config, stopping: asyncio.Event) -> None:
    @survive("webhook prune")
    async def once() -> None:
        async with pool.connection() as conn:
            while await store.prune(conn, cfg.retention_s) > 0:
                pass

    while not stopping.is_set():
        await once()
        try:
            await asyncio.wait_for(stopping.wait(), PRUNE_EVERY_S)
        except asyncio.TimeoutError:
            pass


# ------------------------------------------------------------------ the process
async def run(s: Settings | None = None, cfg: rules.Config | None = None) -> None:
    """Until SIGTERM/SIGINT. Claimed deliveries still in flight then are left to their leases."""
    from streams import db

    s, cfg = s or settings(), cfg or rules.Config.from_env()
    with psycopg.connect(s.database_url, autocommit=True) as conn:
        db.migrate_meta(conn)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    pool = AsyncConnectionPool(s.database_url, min_size=1, max_size=4, open=False, kwargs={"autocommit": True})
    await pool.open(wait=True, timeout=30)
    client = addresses.client(cfg)
    sender = Sender(pool, cfg, client)
    tasks = [asyncio.create_task(consume(s, pool, stopping), name="consume"),
             asyncio.create_task(sender.run(stopping), name="send"),
             asyncio.create_task(prune_forever(pool, cfg, stopping), name="prune")]
    log.info("webhook delivery started (%d attempts, first retry after %g s)", cfg.schedule.attempts,
             cfg.schedule.base_s)
    try:
        done, _ = await asyncio.wait([*tasks, asyncio.create_task(stopping.wait())],
                                     return_when=asyncio.FIRST_COMPLETED)
        for t in done:
            if t in tasks and t.exception() is not None:
                raise t.exception()  # a loop died: exit non-zero, the supervisor restarts us
    finally:
        stopping.set()
        for t in [*tasks, *sender.tasks]:
            t.cancel()
        await asyncio.gather(*tasks, *sender.tasks, return_exceptions=True)
        await client.aclose()
        await pool.close()


def main() -> Any:
    return asyncio.run(run())
