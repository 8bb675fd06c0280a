"""POST /ingest refuses a tenant whose unprocessed backlog would pass the limit (429 + Retry-After); other
tenants are accepted (the API in-process over a real PostgreSQL, no broker: the ledger is the outbox).
The limit holds under concurrent posts from more than one API process (the admission is a transaction
on a shared row, streams/outbox.py), and once the backlog drains posts are accepted again."""
from __future__ import annotations

import asyncio
import time

import httpx
import orjson
import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from streams import db
from projections.service import RETRY_AFTER_S, ApiSettings
from streams.config import settings
from streams import ingest, outbox
from streams.ingest import parse_ingest_body
from tests.helpers import api_in_process
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own)

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def events(tenant: str, n: int, start: int = 0) -> list[dict]:
    return [{"tenant_id": tenant, "contact_id": f"c{i % 3}", "role": "user", "event_id": f"{tenant}-{i}",
             "message": f"message number {i}"} for i in range(start, start + n)]


async def test_a_tenant_over_its_backlog_limit_gets_429_and_others_are_accepted(fresh_db, monkeypatch):  # noqa: F811
    app, pool = await api_in_process(fresh_db, broker_ok=False,  # nothing is processed: the backlog grows
                                settings=ApiSettings(base=settings(), backlog_limit=5))
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api") as c:
            first = await c.post("/ingest", json=events("busy", 5))
            refused = await c.post("/ingest", json=events("busy", 1, start=5))
            other = await c.post("/ingest", json=events("calm", 3))
            again = await c.post("/ingest", json=events("busy", 5))  # a retry of accepted ids is refused too
            too_many = await c.post("/ingest", json=events("calm", 3, start=3))  # 3 + 3 > 5: all or nothing
    finally:
        await pool.close()
    assert first.status_code == 202
    assert refused.status_code == 429 and refused.headers["Retry-After"] == str(RETRY_AFTER_S)
    assert refused.json() == {"error": "too many unprocessed events for this tenant; retry later",
                              "tenantId": "busy", "backlog": 5, "limit": 5}
    assert other.status_code == 202
    assert again.status_code == 429
    assert too_many.status_code == 429 and too_many.json()["backlog"] == 3


async def test_admission_decisions():
    """The pure rule: a stale or missing bound is measured; a fresh one admits what fits, refuses
    what does not (measuring again once it is no longer very fresh: the worker may have caught up)."""
    assert outbox.admission(None, None, 10, 100) == "measure"
    assert outbox.admission(50, 5.5, 10, 100) == "measure"  # older than MEASURE_EVERY_S
    assert outbox.admission(50, 1.5, 10, 100) == "admit"    # a fresh bound that fits: no count
    assert outbox.admission(90, 0.1, 10, 100) == "admit"    # exactly up to the limit
    assert outbox.admission(91, 0.1, 10, 100) == "refuse"
    assert outbox.admission(91, 0.5, 10, 100) == "measure"
    assert outbox.admission(0, 0.1, 500, 100) == "admit"    # a batch above the limit, on an empty backlog
    assert outbox.fits(0, 500, 100) and outbox.fits(95, 5, 100) and not outbox.fits(96, 5, 100)


async def test_the_limit_holds_under_concurrent_posts_from_two_api_processes_and_reopens_after_the_drain(
        fresh_db, monkeypatch):  # noqa: F811
    """40 concurrent HTTP posts of 10 events to one API process and 40 batches of 10 admitted by a second
    one (its own connection pool, as another process has) race for a limit of 100: at most 110 (the
    10% the issue allows; the design gives exactly 100) are accepted, every refusal is a 429 with a
    Retry-After, and nothing refused is in the ledger. Then the worker catches up (tracking rows for all
    of them), and the next posts are accepted again."""
    limit, batch, tenant = 100, 10, "race"
    app, pool = await api_in_process(fresh_db, broker_ok=False,
                                settings=ApiSettings(base=settings(), backlog_limit=limit))
    other = AsyncConnectionPool(fresh_db, min_size=4, max_size=8, open=False, configure=db.configure_pool_conn,
                                kwargs={"autocommit": True})
    await other.open(wait=True)
    schema = db.schema_of("v1")
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api") as c:
            async def http_post(i: int) -> tuple[str, int, str | None, list[str]]:
                body = events(tenant, batch, start=i * batch)
                r = await c.post("/ingest", json=body)
                return "http", r.status_code, r.headers.get("Retry-After"), [e["event_id"] for e in body]

            async def other_process(i: int) -> tuple[str, int, str | None, list[str]]:
                envs = parse_ingest_body(orjson.dumps(events(tenant, batch, start=10_000 + i * batch)))
                try:
                    await ingest.ingest(other, None, envs, outbox.Admission(limit, schema))
                    return "other", 202, None, [e.event_id for e in envs]
                except outbox.Backlogged:
                    return "other", 429, str(RETRY_AFTER_S), [e.event_id for e in envs]

            results = await asyncio.gather(*[f(i) for i in range(40) for f in (http_post, other_process)])
            accepted = [eid for _, code, _, ids in results if code == 202 for eid in ids]
            refused = [r for r in results if r[1] != 202]
            assert {r[1] for r in refused} == {429} and all(r[2] == str(RETRY_AFTER_S) for r in refused)
            assert limit - batch <= len(accepted) <= limit * 1.1, len(accepted)
            with psycopg.connect(fresh_db, autocommit=True) as conn:
                in_ledger = {r[0] for r in conn.execute("SELECT event_id FROM rapport.ledger WHERE tenant_id=%s",
                                                        (tenant,))}
                assert in_ledger == set(accepted)
                # the worker catches up: every accepted event tracked as applied
                conn.execute(f"INSERT INTO {schema}.processed_events (tenant_id, event_id, contact_id, contact_seq) "
                             f"SELECT tenant_id, event_id, contact_id, seq FROM rapport.ledger WHERE tenant_id=%s",
                             (tenant,))
            time.sleep(outbox.MEASURE_AT_MOST_S)
            reopened = await c.post("/ingest", json=events(tenant, batch, start=50_000))
            assert reopened.status_code == 202, reopened.text
    finally:
        await other.close()
        await pool.close()
