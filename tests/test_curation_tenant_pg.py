"""PATCH /contacts/{id}/memories/{memoryId} resolves its tenant as GET and DELETE of the same route do:
the `tenant_id` query parameter (or, as documented, the body's `tenant_id`; both naming different
tenants is a 422 naming the field). An admin key corrects another tenant's memory; a tenant key never
reaches another tenant, by query or by body. Through the HTTP API on a real PostgreSQL."""
from __future__ import annotations

import dataclasses
import hashlib

import psycopg
import pytest

from projections import auth
from streams.config import settings
from tests.backends import pg_url  # noqa: F401  (every test here runs on each PostgreSQL backend)
from tests.test_contacts_pg import said, stack

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def ledger_tenant(pg_url: str, event_id: str) -> list[tuple[str, str]]:
    with psycopg.connect(pg_url, autocommit=True) as c:
        return c.execute("SELECT tenant_id, event_type FROM rapport.ledger WHERE event_id=%s", (event_id,)).fetchall()


async def test_patch_takes_the_tenant_from_the_query_as_get_and_delete_do(pg_url, version, monkeypatch):
    keys = {}

    def key(tenant: str, admin: bool) -> dict[str, str]:
        key_id, secret, whole = auth.new_key()
        keys[key_id] = auth.StoredKey(key_id, tenant, admin, hashlib.sha256(secret.encode()).hexdigest(), False)
        return {"Authorization": f"Bearer {whole}"}

    async def stored(key_id):
        return keys.get(key_id)

    admin, acme, beta = key("ops", True), key("acme", False), key("beta", False)
    async with stack(pg_url, version, monkeypatch, s=dataclasses.replace(settings(), auth=True),
                     keys=auth.KeyCache(stored)) as (feed, client):
        await feed([said("lin", 1, tenant="beta", text="I work at Siemens as an engineer")])
        listed = await client.get("/contacts/lin/memories", params={"tenant_id": "beta"}, headers=admin)
        assert listed.status_code == 200, listed.text
        memory = listed.json()["memories"][0]["id"]
        path = f"/contacts/lin/memories/{memory}"
        fix = {"content": "Works at Bosch as an engineer"}

        # GET and DELETE of this route honour ?tenant_id= for an admin key; PATCH now does too
        assert (await client.get(path, params={"tenant_id": "beta"}, headers=admin)).status_code == 200
        r = await client.patch(path, params={"tenant_id": "beta"}, headers=admin, json=fix)
        assert r.status_code == 202, r.text
        assert r.json()["memoryId"] == memory
        assert ledger_tenant(pg_url, r.json()["eventId"]) == [("beta", "MemoryCorrectionRequested")]

        # the body's tenant_id (README) still works, and naming the same tenant in both is fine
        r = await client.patch(path, headers=admin, json={**fix, "tenant_id": "beta"})
        assert r.status_code == 202 and ledger_tenant(pg_url, r.json()["eventId"])[0][0] == "beta"
        r = await client.patch(path, params={"tenant_id": "beta"}, headers=admin, json={**fix, "tenant_id": "beta"})
        assert r.status_code == 202 and ledger_tenant(pg_url, r.json()["eventId"])[0][0] == "beta"

        # two different tenants named: refused naming the field, nothing recorded
        r = await client.patch(path, params={"tenant_id": "beta"}, headers=admin, json={**fix, "tenant_id": "acme"})
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == "tenant_id", r.text

        # an admin key without a tenant is its own tenant's: no such memory there
        assert (await client.patch(path, headers=admin, json=fix)).status_code == 404

        # a tenant key never reaches another tenant: by query, by body, or by both agreeing
        for params, body in [({"tenant_id": "beta"}, fix), ({}, {**fix, "tenant_id": "beta"}),
                             ({"tenant_id": "beta"}, {**fix, "tenant_id": "beta"})]:
            r = await client.patch(path, params=params, headers=acme, json=body)
            assert r.status_code == 403 and r.json()["errors"][0]["field"] == "tenant_id", (params, body, r.text)
        assert (await client.patch(path, headers=acme, json=fix)).status_code == 404  # its own: none there
        r = await client.patch(path, params={"tenant_id": "ac\x00me"}, headers=acme, json=fix)
        assert r.status_code == 400 and r.json()["errors"][0]["field"] == "tenant_id"
        assert (await client.patch(path, params={"tenant_id": "beta"}, json=fix)).status_code == 401

        # the tenant's own key, query or not
        r = await client.patch(path, params={"tenant_id": "beta"}, headers=beta, json=fix)
        assert r.status_code == 202 and ledger_tenant(pg_url, r.json()["eventId"])[0][0] == "beta"
        with psycopg.connect(pg_url, autocommit=True) as c:
            n = c.execute("SELECT count(*) FROM rapport.ledger WHERE contact_id='lin' AND "
                          "event_type='MemoryCorrectionRequested'").fetchone()[0]
        assert n == 4  # the four 202s above, nothing from the refusals
