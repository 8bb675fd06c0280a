"""A PostgreSQL that stops answering (issue 20): /healthz answers within a second (503 naming the
database), and requests answer 503 with a reason within a couple of seconds instead of hanging;
when the server answers again, so does the API. The API runs in-process over a proxy that can stall."""
from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from projections import responses as out
from tests.helpers import api_in_process
from tests.stall import StallingProxy
from tests.test_replay_pg import fresh_db  # noqa: F401

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


class Ping:
    async def ping(self):
        return True

    async def scan_iter(self, pattern):
        yield b"rapport:worker:w1"

    async def aclose(self):
        pass


async def timed(client: httpx.AsyncClient, method: str, path: str, **kw) -> tuple[float, httpx.Response]:
    t0 = time.monotonic()
    r = await client.request(method, path, **kw)
    return time.monotonic() - t0, r


async def test_a_stalled_database_answers_503_fast_and_healthz_within_a_second(fresh_db, monkeypatch):  # noqa: F811
    proxy = StallingProxy(fresh_db)
    app, pool = await api_in_process(proxy.url, redis=Ping(), broker_ok=True, ready_once=True)
    watch = app.state.svc.start_database_watch()
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
                                     base_url="http://api", timeout=30) as client:
            took, r = await timed(client, "GET", "/healthz")
            assert r.status_code == 200 and r.json()["database"] is True and took < 1.0, r.text
            assert (await client.get("/contacts/c/memories")).status_code == 200

            proxy.stall()
            # requests already waiting on the database when it stalls, and new ones: 503 with the reason
            results = await asyncio.gather(*[timed(client, "GET", f"/contacts/c{i}/memories") for i in range(6)],
                                           timed(client, "POST", "/ingest", json={"contact_id": "c", "role": "user",
                                                                                  "message": "hi"}))
            for took, r in results:
                assert r.status_code == 503, r.text
                assert "database" in r.json()["error"] and took < 3.0, (took, r.text)
                assert out.Unavailable.model_validate(r.json()).reason  # as the OpenAPI document says
            for _ in range(3):
                took, r = await timed(client, "GET", "/healthz")
                assert r.status_code == 503 and took < 1.0, (took, r.text)
                assert r.json()["database"] is False and "database unreachable" in r.json()["reasons"]
            took, r = await timed(client, "GET", "/contacts/c/triggers")
            assert r.status_code == 503 and took < 0.5, (took, r.text)  # known down: no wait at all

            proxy.resume()
            deadline = time.monotonic() + 20
            while (r := await client.get("/healthz")).status_code != 200:
                assert time.monotonic() < deadline, r.text
                await asyncio.sleep(0.2)
            assert (await client.get("/contacts/c/memories")).status_code == 200
    finally:
        watch.cancel()
        await pool.close()
        proxy.close()


async def test_a_pool_in_full_use_is_busy_not_down(fresh_db):  # noqa: F811
    """Every pooled connection held by requests waiting on a slow PostgreSQL (8 clients and an ingest on a
    loaded machine) is not a database that stopped answering: the watch probes on a connection of its own,
    so requests are not all answered 503 while each would get its connection in turn."""
    app, pool = await api_in_process(fresh_db, redis=Ping(), broker_ok=True, ready_once=True)
    svc = app.state.svc
    held = [await pool.getconn() for _ in range(pool.max_size)]  # the pool is empty: a getconn now waits
    watch = svc.start_database_watch()
    try:
        await asyncio.sleep(2.5)  # five probes, each given 1 s
        assert svc.db_down is None
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
                                     base_url="http://api", timeout=30) as client:
            took, r = await timed(client, "GET", "/healthz")
            assert r.json()["database"] is True and took < 1.0, (took, r.text)
            for conn in held:  # the connections come back: a request waiting for one is served
                await pool.putconn(conn)
            held = []
            assert (await client.get("/contacts/c/memories")).status_code == 200
    finally:
        for conn in held:
            await pool.putconn(conn)
        watch.cancel()
        await svc.stop()


async def test_a_slow_probe_while_requests_are_answered_is_slow_not_down(fresh_db, monkeypatch):  # noqa: F811
    """A PostgreSQL whose backends wait for a core (a loaded machine, the worker's batches beside the
    requests) may take over a second for the probe while it answers the requests: that database is slow, not
    down, and no request is answered 503. When the requests stop being answered too, it is down."""
    from projections import service

    app, pool = await api_in_process(fresh_db, redis=Ping(), broker_ok=True, ready_once=True)
    svc = app.state.svc
    probe_gate = asyncio.Event()

    async def slow_probe() -> None:  # the probe's answer comes when the test says so
        await probe_gate.wait()

    monkeypatch.setattr(svc, "_probe_database", slow_probe)
    answering = True

    async def requests() -> None:  # a client's reads, answered all along
        while answering:
            async with pool.connection() as conn:
                await conn.execute("SELECT 1")
            await asyncio.sleep(0.05)

    client = asyncio.ensure_future(requests())
    watch = svc.start_database_watch()
    try:
        await asyncio.sleep(3 * service.DB_PROBE_TIMEOUT_S)  # three windows with the probe unanswered
        assert svc.db_down is None
        answering = False
        await client
        deadline = time.monotonic() + 2 * service.DB_PROBE_TIMEOUT_S + service.DB_PROBE_EVERY_S + 0.5
        while svc.db_down is None:  # nothing answered in a whole window: down
            assert time.monotonic() < deadline, "silent database not taken for down"
            await asyncio.sleep(0.05)
        probe_gate.set()
        deadline = time.monotonic() + 2 * service.DB_PROBE_TIMEOUT_S + service.DB_PROBE_EVERY_S
        while svc.db_down is not None:  # the probe answers: up again
            assert time.monotonic() < deadline, "database not taken for up again"
            await asyncio.sleep(0.05)
    finally:
        answering = False
        client.cancel()
        watch.cancel()
        await pool.close()


async def test_an_api_kept_off_the_cpu_does_not_take_the_database_for_down(fresh_db, monkeypatch):  # noqa: F811
    """The API's event loop held past the probe's timeout (its process waiting for a core on a loaded
    machine; here a callback that holds the loop for 1.5 s) while the probe's answer arrives: the loop
    wakes to the timer and the answer at once, and reading the answer takes a few turns of the loop
    (psycopg's wait, the probe's lock). The answer is in; the database is not down."""
    import threading

    from projections import service

    app, pool = await api_in_process(fresh_db, redis=Ping(), broker_ok=True, ready_once=True)
    svc = app.state.svc
    loop = asyncio.get_running_loop()
    probes = []

    async def probe() -> None:
        probes.append(time.monotonic())
        if len(probes) == 1:  # the first: answered at 0.2 s, while the loop is held from now for 1.5 s
            answer = loop.create_future()
            threading.Timer(0.2, loop.call_soon_threadsafe, args=(answer.set_result, None)).start()
            loop.call_soon(time.sleep, service.DB_PROBE_TIMEOUT_S + 0.5)
            await answer
        for _ in range(3):  # the answer read in a few turns
            await asyncio.sleep(0)

    monkeypatch.setattr(svc, "_probe_database", probe)
    down = svc.went_down()
    watch = svc.start_database_watch()
    try:
        while len(probes) < 3:
            await asyncio.sleep(0.05)
        assert not down.done() and svc.db_down is None, svc.db_down
    finally:
        watch.cancel()
        await pool.close()


async def test_silent_only_without_an_answer():
    from projections.service import silent

    assert silent(False, 3, 3)            # probe unanswered, no connection back: silent
    assert not silent(True, 3, 3)         # the probe answered
    assert not silent(False, 3, 4)        # a request's statement answered meanwhile: slow, not down
    assert silent(False, None, None)      # a pool that does not count: the probe alone decides
