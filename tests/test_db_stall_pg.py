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
