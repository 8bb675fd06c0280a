"""POST /ingest refuses a tenant whose unprocessed backlog reached the limit (429 + Retry-After); other
tenants are accepted (the API in-process over a real PostgreSQL, no broker: the ledger is the outbox)."""
from __future__ import annotations

import httpx
import pytest

from projections import api
from streams import outbox
from tests.helpers import api_in_process
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own)

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def events(tenant: str, n: int, start: int = 0) -> list[dict]:
    return [{"tenant_id": tenant, "contact_id": f"c{i % 3}", "role": "user", "event_id": f"{tenant}-{i}",
             "message": f"message number {i}"} for i in range(start, start + n)]


async def test_a_tenant_over_its_backlog_limit_gets_429_and_others_are_accepted(fresh_db, monkeypatch):  # noqa: F811
    pool = await api_in_process(monkeypatch, fresh_db, broker_ok=False)  # nothing is processed: the backlog grows
    monkeypatch.setattr(api.svc, "backlogs", outbox.Cached(api.svc._backlog, ttl_s=0))
    monkeypatch.setattr(api, "BACKLOG_LIMIT", 5)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=api.app), base_url="http://api") as c:
            first = await c.post("/ingest", json=events("busy", 5))
            refused = await c.post("/ingest", json=events("busy", 1, start=5))
            other = await c.post("/ingest", json=events("calm", 3))
            again = await c.post("/ingest", json=events("busy", 5))  # a retry of accepted ids is refused too
    finally:
        await pool.close()
    assert first.status_code == 202
    assert refused.status_code == 429 and refused.headers["Retry-After"] == str(api.RETRY_AFTER_S)
    assert refused.json() == {"error": "too many unprocessed events for this tenant; retry later",
                              "tenantId": "busy", "backlog": 5, "limit": 5}
    assert other.status_code == 202
    assert again.status_code == 429
