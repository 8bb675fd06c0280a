"""The outbox's bookkeeping against a real PostgreSQL: the relay sweeps the unapplied ledger in pages,
its cursor is persisted and only passes applied, settled rows, and the backlog counts per tenant."""
from __future__ import annotations

import dataclasses
from datetime import timedelta

import orjson
import pytest
from psycopg_pool import AsyncConnectionPool

from agents.pipeline import InteractionPipeline
from streams import db
from schemas.envelope import format_time, now_utc
from streams import ingest, outbox
from tests.helpers import FakeEmbedder, interaction, records
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own)
from tests.backends import pg_url  # noqa: F401  (every test here runs on each PostgreSQL backend)

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


class Publisher:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def publish_raw(self, rows) -> None:  # noqa: ANN001
        self.sent += [orjson.loads(v)["event_id"] for _, v in rows]


async def open_pool(url: str) -> AsyncConnectionPool:
    pool = AsyncConnectionPool(url, min_size=1, max_size=2, open=False, configure=db.configure_pool_conn,
                               kwargs={"autocommit": True})
    await pool.open(wait=True)
    return pool


def aged(event_id: str, contact: str, tenant: str = "default", minutes_ago: float = 10):
    """An event recorded `minutes_ago` (the relay's cursor only passes settled rows)."""
    t = format_time(now_utc() - timedelta(minutes=minutes_ago))
    e = interaction(event_id, f"I like topic number {event_id}", contact=contact, tenant=tenant)
    return dataclasses.replace(e, recorded_at=t)


async def test_relay_pages_cursor_and_backlog(fresh_db):  # noqa: F811
    pool = await open_pool(fresh_db)
    try:
        old = [aged(f"o{i}", f"c{i % 3}", tenant="t1" if i < 6 else "t2") for i in range(10)]
        await ingest.record(pool, old)
        p = InteractionPipeline(await db.connect_async(fresh_db, schema="proj_v1"), FakeEmbedder(), broker_epoch="e")
        out = await p.process(records(old[:4]))  # o0..o3 applied; o4..o9 not
        assert out.applied == 4
        # a sweep in pages of 3: every unapplied row once, the cursor just past the applied prefix
        pub, covered, cursor = Publisher(), 0, 0
        while True:
            _, cursor, upto = await ingest.relay_once(pool, pub, "proj_v1", after_seq=covered, cursor=cursor, limit=3)
            if upto <= covered:
                break
            covered = upto
        assert pub.sent == [f"o{i}" for i in range(4, 10)]
        assert cursor > 0
        await outbox.save_cursor(pool, "proj_v1", cursor)
        await outbox.save_cursor(pool, "proj_v1", 1)  # never backwards
        assert await outbox.load_cursor(pool, "proj_v1") == cursor
        # the backlog: 6 unprocessed, per tenant 2 of t1 and 4 of t2; capped counts stop at the cap
        n, age = await outbox.backlog(pool, "proj_v1", cursor)
        assert n == 6 and 540 < age < 660
        assert (await outbox.backlog(pool, "proj_v1", cursor, "t1"))[0] == 2
        assert (await outbox.backlog(pool, "proj_v1", cursor, "t2"))[0] == 4
        assert (await outbox.backlog(pool, "proj_v1", cursor, "t2", cap=3))[0] == 3
        # a fresh row applied after the backlog does not move the cursor past the unapplied ones,
        # and one just recorded does not move it either (an earlier seq may still commit)
        await p.process(records(old[4:], start_offset=4))
        fresh = interaction("new1", "Something brand new", contact="c9", tenant="t1")
        await ingest.record(pool, [fresh])
        await p.process(records([fresh], start_offset=10))
        _, cursor2, _ = await ingest.relay_once(pool, Publisher(), "proj_v1", after_seq=cursor)
        assert cursor2 > cursor
        n, _ = await outbox.backlog(pool, "proj_v1", cursor2)
        assert n == 0
        _, cursor3, _ = await ingest.relay_once(pool, Publisher(), "proj_v1", after_seq=cursor2)
        assert cursor3 == cursor2  # "new1" is applied but not settled: the cursor stays before it
    finally:
        await pool.close()


async def test_the_cursor_advances_without_publishing_when_nothing_is_old_enough(fresh_db):  # noqa: F811
    """The API's cursor pass (older_than_s=inf): the applied, settled prefix is passed, nothing is sent."""
    pool = await open_pool(fresh_db)
    try:
        envs = [aged(f"p{i}", "c1") for i in range(4)]
        await ingest.record(pool, envs)
        p = InteractionPipeline(await db.connect_async(fresh_db, schema="proj_v1"), FakeEmbedder(), broker_epoch="e")
        await p.process(records(envs[:2]))
        pub = Publisher()
        sent, cursor, _ = await ingest.relay_once(pool, pub, "proj_v1", older_than_s=float("inf"))
        assert (sent, pub.sent) == (0, [])
        n, _ = await outbox.backlog(pool, "proj_v1", cursor)
        assert cursor > 0 and n == 2  # p2 and p3 stay counted; the cursor stopped before them
    finally:
        await pool.close()


class FlakyPublisher(Publisher):
    """Refuses its first `failures` publishes, as a broker away (or a seal on a restarting database) does."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def publish(self, envs) -> None:  # noqa: ANN001
        if self.failures:
            self.failures -= 1
            raise ConnectionError("broker away")
        self.sent += [e.event_id for e in envs]


async def test_a_failed_publish_is_retried_in_the_background_not_left_for_minutes(fresh_db, monkeypatch):  # noqa: F811
    """The 202 stands on the ledger row; the publish that failed after it is tried again with backoff
    within seconds (the relay's pass over stuck rows only comes minutes later), each event once."""
    import asyncio

    pool = await open_pool(fresh_db)
    try:
        envs = [interaction(f"pl-{i}", f"note {i} about my garden", contact="pl") for i in range(3)]
        pub = FlakyPublisher(failures=2)
        fresh, dups = await ingest.ingest(pool, pub, envs)
        assert ([e.event_id for e in fresh], dups, pub.sent) == (["pl-0", "pl-1", "pl-2"], 0, [])
        for _ in range(100):
            if pub.sent:
                break
            await asyncio.sleep(0.05)
        assert pub.sent == ["pl-0", "pl-1", "pl-2"]  # the first retry failed too; the second went out

        monkeypatch.setattr(ingest, "REPUBLISH_FOR_S", 0.3)
        never = FlakyPublisher(failures=10**6)  # the broker stays away: given up, left to the relay
        await ingest.ingest(pool, never, [interaction("pl-9", "still away", contact="pl")])
        await asyncio.sleep(1.0)
        assert never.sent == [] and not ingest._retrying
    finally:
        await pool.close()


async def test_a_relay_pass_reads_no_envelope_of_a_row_too_young_to_relay(fresh_db):  # noqa: F811
    """While the workers work through a backlog every pass reads the backlog's rows: only those it may
    re-publish (unapplied, older than the cutoff) bring their envelope, whose JSON the API would
    otherwise parse on the event loop /context runs on. The old one is still relayed."""
    import psycopg.types.json

    pool = await open_pool(fresh_db)
    try:
        await ingest.record(pool, [aged("old", "c1", minutes_ago=10)] +
                            [aged(f"young{i}", "c2", minutes_ago=0.01) for i in range(5)])
        parsed: list[bytes] = []

        def counting(data):  # noqa: ANN001, ANN202
            parsed.append(bytes(data))
            return orjson.loads(data)

        psycopg.types.json.set_json_loads(counting)
        try:
            pub = Publisher()
            sent, _, _ = await ingest.relay_once(pool, pub, "proj_v1", older_than_s=120)
        finally:
            psycopg.types.json.set_json_loads(orjson.loads)
        assert (sent, pub.sent) == (1, ["old"])
        assert len(parsed) == 1 and b'"old"' in parsed[0]  # the young rows' envelopes never left the server
    finally:
        await pool.close()


# ------------------------------------------------------------------ the relay loop after a failed pass
class Broker(Publisher):
    """A broker that can be away (its publishes fail) and come back."""

    def __init__(self) -> None:
        super().__init__()
        self.away, self.refused = False, 0

    async def publish_raw(self, rows) -> None:  # noqa: ANN001
        if self.away:
            self.refused += 1
            raise ConnectionError("broker away")
        await super().publish_raw(rows)


def relaying_service(pool: AsyncConnectionPool, broker: Broker, monkeypatch):  # noqa: ANN001, ANN201
    """An API service whose relay loop runs on `pool` and `broker`, with passes every 50 ms and a
    minimum age of 60 s for re-sending outside the start-up sweep."""
    from projections import service as service_mod
    from projections.store import Store
    from streams.config import settings

    monkeypatch.setattr(service_mod, "RELAY_EVERY_S", 0.05)
    monkeypatch.setattr(service_mod, "RELAY_RETRY_S", 0.05)
    monkeypatch.setattr(service_mod, "RELAY_STUCK_S", 60.0)
    svc = service_mod.Service(service_mod.ApiSettings(base=dataclasses.replace(settings(), database_url="unused")))
    svc.pool, svc.store, svc.publisher = pool, Store(pool), broker

    async def leading() -> bool:
        return True

    svc.relay_leader = leading
    return svc


async def until(cond, what: str) -> None:  # noqa: ANN001
    import asyncio

    for _ in range(200):
        if cond():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def test_an_event_whose_send_failed_is_sent_once_the_broker_is_back(fresh_db, monkeypatch):  # noqa: F811
    """The broker away for several passes, then back: the stuck event still reaches it (nothing valid is
    lost), and the failed passes re-sent nothing younger than the minimum age (issue 24)."""
    import asyncio

    pool = await open_pool(fresh_db)
    broker = Broker()
    svc = relaying_service(pool, broker, monkeypatch)
    task = asyncio.create_task(svc._relay_loop())
    try:
        await asyncio.sleep(0.3)  # the sweep of an empty ledger is done: the loop is in its stuck passes
        broker.away = True
        await ingest.record(pool, [aged("stuck", "c1", minutes_ago=5), aged("inflight", "c2", minutes_ago=0.01)])
        await until(lambda: broker.refused >= 3, "three refused passes")
        assert broker.sent == []
        broker.away = False
        await until(lambda: broker.sent, "a re-send once the broker is back")
        await asyncio.sleep(0.3)  # more passes: the window moved past it, nothing more is sent
        assert broker.sent == ["stuck"]  # once; the one in flight (younger than the minimum age) never
    finally:
        task.cancel()
        await pool.close()


async def test_a_failed_pass_does_not_turn_the_next_into_a_sweep(fresh_db, monkeypatch):  # noqa: F811
    """A pass whose backlog query fails (a statement timeout under load) sends nothing; the next one
    resumes its window: it re-sends the stuck event, but neither an event merely in flight nor one
    applied (before issue 24 it swept the whole backlog, whatever its age)."""
    import asyncio

    import psycopg

    pool = await open_pool(fresh_db)
    broker = Broker()
    svc = relaying_service(pool, broker, monkeypatch)
    real, failing = ingest.relay_once, {"left": 0}

    async def timing_out(*args, **kw):  # noqa: ANN002, ANN003, ANN202
        if failing["left"] and kw.get("older_than_s") != float("inf"):
            failing["left"] -= 1
            raise psycopg.errors.QueryCanceled("canceling statement due to statement timeout")
        return await real(*args, **kw)

    monkeypatch.setattr(ingest, "relay_once", timing_out)
    applied = aged("applied", "c3", minutes_ago=5)
    await ingest.record(pool, [applied])
    p = InteractionPipeline(await db.connect_async(fresh_db, schema="proj_v1"), FakeEmbedder(), broker_epoch="e")
    assert (await p.process(records([applied]))).applied == 1
    task = asyncio.create_task(svc._relay_loop())
    try:
        await asyncio.sleep(0.3)  # the start-up sweep (nothing unapplied), then stuck passes
        failing["left"] = 3
        await ingest.record(pool, [aged("stuck", "c1", minutes_ago=5), aged("inflight", "c2", minutes_ago=0.01)])
        await until(lambda: not failing["left"], "three timed-out passes")
        await until(lambda: broker.sent, "the stuck event re-sent")
        await asyncio.sleep(0.3)
        assert broker.sent == ["stuck"]
    finally:
        task.cancel()
        await pool.close()


async def test_a_re_sent_event_the_broker_lost_is_sent_once_more_when_the_cursor_stays_at_it(fresh_db, monkeypatch):  # noqa: F811
    """The broker takes a re-sent event and loses it (restarted without its log): the cursor stays at it.
    RELAY_REWIND_S later the relay sends it once more (before, it was left until the API restarted), and
    neither an applied event nor one merely in flight with it."""
    import asyncio

    from projections import service as service_mod

    pool = await open_pool(fresh_db)
    broker = Broker()
    svc = relaying_service(pool, broker, monkeypatch)
    monkeypatch.setattr(service_mod, "RELAY_REWIND_S", 0.6)
    applied = aged("applied", "c3", minutes_ago=5)
    await ingest.record(pool, [applied, aged("lost", "c1", minutes_ago=5)])
    p = InteractionPipeline(await db.connect_async(fresh_db, schema="proj_v1"), FakeEmbedder(), broker_epoch="e")
    assert (await p.process(records([applied]))).applied == 1
    task = asyncio.create_task(svc._relay_loop())
    try:
        await until(lambda: broker.sent, "the start-up sweep")
        assert broker.sent == ["lost"]
        await ingest.record(pool, [aged("inflight", "c2", minutes_ago=0.01)])
        await asyncio.sleep(0.3)  # passes within the period: nothing more
        assert broker.sent == ["lost"]
        await until(lambda: len(broker.sent) >= 2, "the lost event sent once more")
        await asyncio.sleep(0.2)
        assert broker.sent == ["lost", "lost"]  # once per period, and only the stuck one
    finally:
        task.cancel()
        await pool.close()
