"""The console's read routes on a real PostgreSQL (issue 26), fed through the worker's pipeline:
`GET /contacts` pages in a total order (ties on last activity broken by id), no contact existing when
paging starts is skipped or repeated while new contacts arrive between pages, the search treats `%`
and `_` as text, one tenant never sees another's contacts or uses its cursors; memories page by
cursor to exactly the unpaged list; the timeline carries every classified message."""
from __future__ import annotations

import contextlib
import uuid
from datetime import datetime, timedelta

import httpx
import psycopg
import pytest

from agents.pipeline import InteractionPipeline
from streams import db
from tests.helpers import T0, FakeEmbedder, api_in_process, interaction, records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


@contextlib.asynccontextmanager
async def stack(pg_url, version, monkeypatch, **service):
    """(feed(envs): through the worker's pipeline, an HTTP client on the API over the result)."""
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    pipeline = InteractionPipeline(conn, FakeEmbedder(), broker_epoch=uuid.uuid4().hex, version=version)
    offset = 0

    async def feed(envs):
        nonlocal offset
        await pipeline.process(records(envs, start_offset=offset))
        offset += len(envs)

    app, pool = await api_in_process(pg_url, **{"redis": None, **service})
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api") as client:
            yield feed, client
    finally:
        await pool.close()
        await conn.close()


def said(contact: str, minutes: float, tenant: str = "acme", name: str | None = None, text: str = "I love jazz piano"):
    return interaction(f"{tenant}-{contact}-{minutes}", text, contact=contact, tenant=tenant, minutes=minutes,
                       **({"display_name": name} if name else {}))


async def all_pages(client, path: str, rows: str, key: str, **params) -> tuple[list[str], int]:
    """Every id over all pages, and how many pages."""
    ids, cursor, n = [], None, 0
    while True:
        r = await client.get(path, params={**params, **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.text
        body = r.json()
        ids += [row[key] for row in body[rows]]
        n += 1
        cursor = body["nextCursor"]
        if cursor is None:
            return ids, n


async def test_contacts_page_newest_first_ties_by_id_and_none_skipped_or_repeated_while_contacts_arrive(
        pg_url, version, monkeypatch):
    async with stack(pg_url, version, monkeypatch) as (feed, client):
        # last activity (minutes after T0): ana 5, bo 10, cy 10, di 10 (a three-way tie), ed 3, fay 20
        await feed([said("ana", 5), said("bo", 10), said("cy", 10), said("di", 10), said("ed", 1), said("ed", 3),
                    said("fay", 20), said("other-1", 30, tenant="beta")])
        # newest first; the tie at 10 by id, descending (the order is total, so pages are stable)
        expected = ["fay", "di", "cy", "bo", "ana", "ed"]
        first = await client.get("/contacts", params={"tenant_id": "acme", "limit": 2})
        assert [c["contactId"] for c in first.json()["contacts"]] == expected[:2]
        seen = [c["contactId"] for c in first.json()["contacts"]]
        cursor, arrivals = first.json()["nextCursor"], 0
        while cursor:
            # a new contact writes between every two pages (now: the top of the list, before the cursor)
            arrivals += 1
            await feed([said(f"new{arrivals}", 40 + arrivals)])
            page = (await client.get("/contacts", params={"tenant_id": "acme", "limit": 2, "cursor": cursor})).json()
            seen += [c["contactId"] for c in page["contacts"]]
            cursor = page["nextCursor"]
        assert seen == expected  # each once, in order; the newcomers are on a fresh first page
        fresh = (await client.get("/contacts", params={"tenant_id": "acme", "limit": 3})).json()["contacts"]
        assert arrivals == 2 and [c["contactId"] for c in fresh] == ["new2", "new1", "fay"]
        ed = next(c for c in (await client.get("/contacts", params={"tenant_id": "acme"})).json()["contacts"]
                  if c["contactId"] == "ed")
        assert ed["messageCount"] == 2 and ed["relationshipStage"] in ("new", "building")
        assert datetime.fromisoformat(ed["lastSeenAt"]) == T0 + timedelta(minutes=3)
        # by id, ascending, in pages of 4
        ids, n = await all_pages(client, "/contacts", "contacts", "contactId", tenant_id="acme", sort="contact_id", limit=4)
        assert ids == ["ana", "bo", "cy", "di", "ed", "fay", "new1", "new2"] and n == 2  # a full last page ends it


async def test_search_and_tenants_apart(pg_url, version, monkeypatch):
    async with stack(pg_url, version, monkeypatch) as (feed, client):
        await feed([said("arjun", 1, name="Arjun Mehta"), said("priya_k", 2, name="Priya"),
                    said("mehta-2", 3, name="Someone"), said("zed", 4, name="Zed"),
                    said("arjun", 5, tenant="beta", name="Arjun Mehta (beta)"), said("b2", 6, tenant="beta")])
        hits = (await client.get("/contacts", params={"tenant_id": "acme", "q": "MEHTA"})).json()["contacts"]
        assert [c["contactId"] for c in hits] == ["mehta-2", "arjun"]  # display name or id, any case
        assert hits[1]["displayName"] == "Arjun Mehta" and hits[1]["memoryCount"] >= 1
        underscore = (await client.get("/contacts", params={"tenant_id": "acme", "q": "_"})).json()["contacts"]
        assert [c["contactId"] for c in underscore] == ["priya_k"]  # `_` is a character, not LIKE's wildcard
        assert (await client.get("/contacts", params={"tenant_id": "acme", "q": "%"})).json()["contacts"] == []
        beta = (await client.get("/contacts", params={"tenant_id": "beta"})).json()
        assert beta["tenantId"] == "beta" and [c["contactId"] for c in beta["contacts"]] == ["b2", "arjun"]
        assert beta["contacts"][1]["displayName"] == "Arjun Mehta (beta)"
        # a cursor is bound to its tenant and sort, and only the server's are cursors
        acme = (await client.get("/contacts", params={"tenant_id": "acme", "limit": 1})).json()
        for params in [{"tenant_id": "beta", "cursor": acme["nextCursor"]},
                       {"tenant_id": "acme", "sort": "contact_id", "cursor": acme["nextCursor"]},
                       {"tenant_id": "acme", "cursor": "bm90LWEtY3Vyc29y"},
                       {"tenant_id": "acme", "cursor": acme["nextCursor"][:-3]}]:
            r = await client.get("/contacts", params=params)
            assert r.status_code == 400 and r.json()["errors"][0]["field"] == "cursor", (params, r.text)
        for params, field in [({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"sort": "mood"}, "sort"),
                              ({"q": "x" * 129}, "q"), ({"q": "a\x00"}, "q")]:
            r = await client.get("/contacts", params={"tenant_id": "acme", **params})
            assert r.status_code in (400, 422) and r.json()["errors"][0]["field"] == field, (params, r.text)


async def test_memories_page_to_exactly_the_unpaged_list(pg_url, version, monkeypatch):
    texts = ["My dog Bruno ate my shoes again", "I moved to Berlin last month", "I work at Infosys as a tester",
             "My sister Meera lives in Pune", "I love jazz piano", "I hate early mornings",
             "We watched a documentary about octopuses"]
    async with stack(pg_url, version, monkeypatch) as (feed, client):
        await feed([said("asha", i, text=t) for i, t in enumerate(texts)] + [said("ravi", 1, text=texts[0])])
        whole = (await client.get("/contacts/asha/memories", params={"tenant_id": "acme"})).json()
        assert whole["nextCursor"] is None and len(whole["memories"]) >= len(texts)  # as before, every memory
        ids = [m["id"] for m in whole["memories"]]
        paged, n = await all_pages(client, "/contacts/asha/memories", "memories", "id", tenant_id="acme", limit=3)
        assert paged == ids and n == -(-len(ids) // 3)
        active = (await client.get("/contacts/asha/memories", params={"tenant_id": "acme", "status": "active"})).json()
        paged_active, _ = await all_pages(client, "/contacts/asha/memories", "memories", "id", tenant_id="acme", status="active",
                                          limit=2)
        assert paged_active == [m["id"] for m in active["memories"]]
        first = (await client.get("/contacts/asha/memories", params={"tenant_id": "acme", "limit": 2})).json()
        for path, params in [("/contacts/ravi/memories", {"tenant_id": "acme"}),  # another contact's
                             ("/contacts/asha/memories", {"tenant_id": "beta"}),  # another tenant's
                             ("/contacts/asha/memories", {"tenant_id": "acme", "status": "active"})]:  # filter
            r = await client.get(path, params={**params, "cursor": first["nextCursor"]})
            assert r.status_code == 400 and r.json()["errors"][0]["field"] == "cursor", (path, params, r.text)


async def test_the_timeline_has_every_classified_message_oldest_first(pg_url, version, monkeypatch):
    async with stack(pg_url, version, monkeypatch) as (feed, client):
        await feed([said("kai", i, text=t) for i, t in enumerate(
            ["I'm so happy today!", "ugh I'm furious at my landlord", "ok", "thanks so much for listening"])]
            + [interaction("acme-kai-reply", "Glad to hear it", contact="kai", tenant="acme", role="assistant",
                           minutes=5)])
        body = (await client.get("/contacts/kai/timeline", params={"tenant_id": "acme"})).json()
        assert [m["sourceEventId"] for m in body["moods"]] == [f"acme-kai-{i}" for i in range(4)]  # user turns only
        assert body["truncated"] is False and body["moods"][0]["mood"] == "happy"
        last2 = (await client.get("/contacts/kai/timeline", params={"tenant_id": "acme", "limit": 2})).json()
        assert [m["sourceEventId"] for m in last2["moods"]] == ["acme-kai-2", "acme-kai-3"] and last2["truncated"]
        other = (await client.get("/contacts/kai/timeline", params={"tenant_id": "beta"})).json()
        assert other["moods"] == [] and other["spans"] == []


async def test_a_pattern_spans_the_episodes_it_took_in(pg_url, version, monkeypatch):
    async with stack(pg_url, version, monkeypatch) as (feed, client):
        await feed([said("lin", i * 60, text=t) for i, t in enumerate(
            ["We watched a documentary about octopuses", "I cooked dal and rice for dinner",
             "The gym was packed so I ran outside", "Our team shipped the new onboarding flow"])])
        s = db.schema_of(version)
        with psycopg.connect(pg_url, autocommit=True) as c:  # consolidation took the middle two into a pattern
            episodes = c.execute(f"SELECT id, created_at FROM {s}.memories WHERE tenant_id='acme' AND contact_id='lin' "
                                 f"AND memory_type='episode' ORDER BY created_at").fetchall()
            assert len(episodes) == 4
            pattern = episodes[0][0]
            c.execute(f"UPDATE {s}.memories SET memory_type='pattern', content='Keeps busy in the evenings' "
                      f"WHERE tenant_id='acme' AND contact_id='lin' AND id=%s", (pattern,))
            c.execute(f"UPDATE {s}.memories SET status='compressed', superseded_by=%s WHERE tenant_id='acme' "
                      f"AND contact_id='lin' AND id = ANY(%s)", (pattern, [episodes[1][0], episodes[2][0]]))
        body = (await client.get("/contacts/lin/timeline", params={"tenant_id": "acme"})).json()
        spans = [x for x in body["spans"] if x["kind"] == "pattern"]
        assert len(spans) == 1 and spans[0]["memoryId"] == pattern and spans[0]["count"] == 2
        assert spans[0]["label"] == "Keeps busy in the evenings"
        assert datetime.fromisoformat(spans[0]["start"]) == T0 + timedelta(hours=1)
        assert datetime.fromisoformat(spans[0]["end"]) == T0 + timedelta(hours=2)
        beta = (await client.get("/contacts/lin/timeline", params={"tenant_id": "beta"})).json()
        assert beta["spans"] == []


async def test_an_admin_key_sees_every_tenant_another_key_only_its_own(pg_url, version, monkeypatch):
    import dataclasses
    import hashlib

    from projections import auth
    from streams.config import settings

    keys = {}

    def key(tenant: str, admin: bool) -> str:
        key_id, secret, whole = auth.new_key()
        keys[key_id] = auth.StoredKey(key_id, tenant, admin, hashlib.sha256(secret.encode()).hexdigest(), False)
        return whole

    async def stored(key_id):
        return keys.get(key_id)

    operator, beta = key("acme", True), key("beta", False)
    async with stack(pg_url, version, monkeypatch, s=dataclasses.replace(settings(), auth=True),
                     keys=auth.KeyCache(stored)) as (feed, client):
        await feed([said("a1", 1), said("a2", 2), said("b1", 3, tenant="beta"), said("g1", 4, tenant="gamma")])
        everyone = (await client.get("/tenants", headers={"Authorization": f"Bearer {operator}"})).json()
        assert everyone == {"tenantId": "acme", "admin": True, "tenants": [
            {"tenantId": "acme", "contacts": 2}, {"tenantId": "beta", "contacts": 1}, {"tenantId": "gamma", "contacts": 1}]}
        own = (await client.get("/tenants", headers={"Authorization": f"Bearer {beta}"})).json()
        assert own == {"tenantId": "beta", "admin": False, "tenants": [{"tenantId": "beta", "contacts": 1}]}
        # and what each may list
        r = await client.get("/contacts", params={"tenant_id": "gamma"}, headers={"Authorization": f"Bearer {operator}"})
        assert [c["contactId"] for c in r.json()["contacts"]] == ["g1"]
        r = await client.get("/contacts", params={"tenant_id": "gamma"}, headers={"Authorization": f"Bearer {beta}"})
        assert r.status_code == 403 and r.json()["errors"][0]["field"] == "tenant_id"
        r = await client.get("/contacts", headers={"Authorization": f"Bearer {beta}"})
        assert [c["contactId"] for c in r.json()["contacts"]] == ["b1"]
        assert (await client.get("/tenants")).status_code == 401
