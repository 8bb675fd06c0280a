"""Webhooks on a real PostgreSQL (a database of its own per test): subscriptions per tenant, the outbox
(enqueue from sealed topic records, leases, the retry schedule, dead letters), the sender against local
receivers that verify signatures, erasure, and the /webhooks routes in-process."""
from __future__ import annotations

import asyncio
import dataclasses
import time
from datetime import timedelta

import httpx
import orjson
import psycopg
import pytest

from projections.service import ApiSettings
from agents.projector import erase_contact
from schemas import events as ev
from schemas.envelope import encode, format_time, now_utc
from streams import shredding, tracking_key
from streams.config import settings
from streams.webhooks import delivery, rules, signing, store
from tests.helpers import Receiver, api_in_process, interaction
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own)

pytestmark = [pytest.mark.pg]  # async tests run under asyncio_mode=auto


async def connect(url: str) -> psycopg.AsyncConnection:
    return await psycopg.AsyncConnection.connect(url, autocommit=True)


def now_event(event_id: str, tenant: str, contact: str, kind: str | None = None, seconds_ago: float = 0):
    """A derived event (a trigger of that kind, else a memory) recorded now (or seconds_ago)."""
    src = interaction(event_id, "I can't go on", tenant=tenant, contact=contact)
    at = format_time(now_utc() - timedelta(seconds=seconds_ago))
    src = dataclasses.replace(src, occurred_at=at, recorded_at=at)
    if kind:
        return ev.derived(src, ev.TRIGGER_CREATED, f"trigger:{kind}", {"trigger": {"id": "t-" + event_id, "kind": kind,
                                                                                  "reason": "crisis language"}})
    return ev.derived(src, ev.MEMORY_EXTRACTED, "memory", {"memory": {"id": "mem-" + event_id, "content": "Has a dog"}})


async def sealed(conn, envs) -> list[bytes]:
    keys = await shredding.get_or_create_keys(conn, shredding.contacts_to_seal(envs))
    return [encode(shredding.seal_envelope(e, keys.get((e.tenant_id, e.contact_id)))) for e in envs]


async def rows(conn, sql: str, *params) -> list[tuple]:
    cur = await conn.execute(sql, params)
    return await cur.fetchall()


async def test_subscriptions_are_per_tenant_and_capped(fresh_db):  # noqa: F811
    conn = await connect(fresh_db)
    a1, secret = await store.create(conn, "acme", "https://a.example/1", ["TriggerCreated:crisis"], "ops pager")
    await store.create(conn, "acme", "https://a.example/2", ["*", "*"])
    b1, _ = await store.create(conn, "beta", "https://b.example/1", ["MemoryExtracted"])
    assert secret.startswith("whsec_") and a1["webhook_id"].startswith("wh_")
    assert a1["events"] == ["TriggerCreated:crisis"]
    listed = await store.list_for(conn, "acme")
    assert [r["url"] for r in listed] == ["https://a.example/1", "https://a.example/2"]
    assert listed[1]["events"] == ["*"] and all("secret" not in r for r in listed)
    assert await store.get(conn, "beta", a1["webhook_id"]) is None          # another tenant's id: not found
    assert not await store.delete(conn, "beta", a1["webhook_id"])
    assert await store.delete(conn, "acme", a1["webhook_id"])
    assert [r["webhook_id"] for r in await store.list_for(conn, "beta")] == [b1["webhook_id"]]
    for i in range(rules.MAX_WEBHOOKS_PER_TENANT - 1):
        await store.create(conn, "acme", f"https://a.example/{i}", ["*"])
    with pytest.raises(store.TooMany):
        await store.create(conn, "acme", "https://a.example/over", ["*"])
    await conn.close()


async def test_enqueue_opens_sealed_events_once_and_never_an_erased_contacts(fresh_db):  # noqa: F811
    conn = await connect(fresh_db)
    crisis, _ = await store.create(conn, "acme", "https://a.example/c", ["TriggerCreated:crisis"])
    everything, _ = await store.create(conn, "acme", "https://a.example/all", ["*"])
    await store.create(conn, "beta", "https://b.example/all", ["*"])
    mem, trig = now_event("m1", "acme", "c1"), now_event("m2", "acme", "c2", kind="crisis")
    checkin = now_event("m3", "acme", "c2", kind="check_in")
    old = now_event("m0", "acme", "c1", seconds_ago=3600)  # recorded before the subscriptions
    erased = ev.contact_erased(event_id="del-1", tenant_id="acme", contact_id="c3", at=format_time(now_utc()))
    msg = dataclasses.replace(interaction("m4", "hello", tenant="acme", contact="c1"),
                              recorded_at=format_time(now_utc()))
    values = await sealed(conn, [mem, trig, checkin, old, msg]) + [encode(erased), b"\x00not json", b"[1]"]
    assert orjson.loads(values[0])["payload"].keys() == {"enc", "nonce", "ct"}  # as the workers publish them

    assert await delivery.enqueue_batch(conn, values) == 5
    got = await rows(conn, "SELECT webhook_id, contact_id, event_id, event_type, body FROM rapport.webhook_deliveries "
                           "ORDER BY delivery_id")
    assert {(w, c, e) for w, c, e, _, _ in got} == {
        (crisis["webhook_id"], "c2", trig.event_id), (everything["webhook_id"], "c1", mem.event_id),
        (everything["webhook_id"], "c2", trig.event_id), (everything["webhook_id"], "c2", checkin.event_id),
        (everything["webhook_id"], tracking_key.erased_tracking_id("acme", "c3"), "del-1")}
    body = orjson.loads(next(b for _, _, e, _, b in got if e == mem.event_id))
    assert body["data"] == {"memory": {"id": "mem-m1", "content": "Has a dog"}} and body["contactId"] == "c1"

    await delivery.enqueue_batch(conn, values)  # the batch read again (a crash before the commit)
    assert (await rows(conn, "SELECT count(*) FROM rapport.webhook_deliveries"))[0][0] == 5

    # c2 erased: its key is gone, so what is still on the topic for it is never enqueued
    await shredding.forget_keys_before(conn, "acme", "c2", None)
    late = now_event("m5", "acme", "c2", kind="crisis")
    keyless = encode(shredding.seal_envelope(late, shredding.new_key()))
    assert await delivery.enqueue_batch(conn, [keyless]) == 0
    assert (await rows(conn, "SELECT count(*) FROM rapport.webhook_deliveries"))[0][0] == 5
    await conn.close()


async def test_claims_lease_share_fairly_and_never_hand_a_delivery_out_twice(fresh_db):  # noqa: F811
    conn, other = await connect(fresh_db), await connect(fresh_db)
    w1, _ = await store.create(conn, "acme", "https://a.example/1", ["*"])
    w2, _ = await store.create(conn, "acme", "https://a.example/2", ["*"])
    subs = [rules.Subscription(w["webhook_id"], "acme", ("*",), now_utc()) for w in (w1, w2)]
    async with conn.cursor() as cur:
        await store.enqueue(cur, [(subs[0], now_event(f"a{i}", "acme", "c")) for i in range(6)] +
                            [(subs[1], now_event(f"b{i}", "acme", "c")) for i in range(2)])
    first, second = await asyncio.gather(store.claim(conn, 10, 4, 60), store.claim(other, 10, 4, 60))
    ids = [c.delivery_id for c in first + second]
    assert len(ids) == len(set(ids)) == 8  # two processes: everything due is handed out, none twice
    for claimed in (first, second):  # each process takes at most its share of one subscription
        assert [c.webhook_id for c in claimed].count(w1["webhook_id"]) <= 4
    assert {c.attempt for c in first + second} == {1}
    assert await store.claim(conn, 10, 4, 60) == []  # leased
    # leases run out; this process still has 3 of w1 in flight: w1 gets one more, w2 both
    await conn.execute("UPDATE rapport.webhook_deliveries SET next_attempt_at = now()")
    again = await store.claim(conn, 10, 4, 60, {w1["webhook_id"]: 3})
    assert sorted(c.webhook_id for c in again) == sorted([w1["webhook_id"]] + [w2["webhook_id"]] * 2)
    assert {c.attempt for c in again} == {2}
    await conn.close()
    await other.close()


async def test_failures_follow_the_schedule_then_dead_letter_and_stale_results_are_dropped(fresh_db):  # noqa: F811
    conn = await connect(fresh_db)
    w, _ = await store.create(conn, "acme", "https://a.example/1", ["*"])
    sub = rules.Subscription(w["webhook_id"], "acme", ("*",), now_utc())
    async with conn.cursor() as cur:
        await store.enqueue(cur, [(sub, now_event("x1", "acme", "c")), (sub, now_event("x2", "acme", "c"))])
    (c1, c2) = await store.claim(conn, 10, 4, 60)
    assert await store.record(conn, c1, status_code=500, error="HTTP 500", next_in_s=120)
    (status, attempts, wait, code, err), = await rows(
        conn, "SELECT status, attempts, extract(epoch FROM next_attempt_at - now()), last_status, last_error "
              "FROM rapport.webhook_deliveries WHERE delivery_id = %s", c1.delivery_id)
    assert (status, attempts, code, err) == ("pending", 1, 500, "HTTP 500") and 110 < wait <= 120
    # its retry is claimed (attempt 2); a late result of attempt 1 (a lease that ran out) changes nothing
    await conn.execute("UPDATE rapport.webhook_deliveries SET next_attempt_at = now() WHERE delivery_id = %s",
                       (c1.delivery_id,))
    (c1_again,) = await store.claim(conn, 10, 4, 60)
    assert c1_again.attempt == 2
    assert not await store.record(conn, c1, status_code=200, error=None, next_in_s=None)
    assert await store.record(conn, c1_again, status_code=503, error="HTTP 503", next_in_s=60)
    # the last attempt fails: dead-lettered with the reason, body kept for a retry
    assert await store.record(conn, c2, status_code=None, error="timed out", next_in_s=None)
    dead = await store.deliveries(conn, "acme", w["webhook_id"], "dead")
    assert [(d["event_id"], d["last_error"], d["attempts"]) for d in dead] == [(c2.event_id, "timed out", 1)]
    assert (await store.get(conn, "acme", w["webhook_id"]))["dead"] == 1
    assert await store.redeliver(conn, "acme", w["webhook_id"], c1.delivery_id) == "pending"
    assert await store.redeliver(conn, "beta", w["webhook_id"], c2.delivery_id) == "missing"
    assert await store.redeliver(conn, "acme", w["webhook_id"], c2.delivery_id) == "queued"
    (again,) = await store.claim(conn, 10, 4, 60)
    assert again.delivery_id == c2.delivery_id and again.attempt == 1 and again.body == c2.body
    assert await store.record(conn, again, status_code=204, error=None, next_in_s=None)
    assert (await rows(conn, "SELECT status, body FROM rapport.webhook_deliveries WHERE delivery_id = %s",
                       c2.delivery_id)) == [("delivered", None)]
    # delivered and dead rows go after the retention; pending ones never
    await conn.execute("UPDATE rapport.webhook_deliveries SET finished_at = now() - interval '8 days'")
    assert await store.prune(conn, 7 * 24 * 3600) == 1
    assert [r[0] for r in await rows(conn, "SELECT delivery_id FROM rapport.webhook_deliveries")] == [c1.delivery_id]
    await conn.close()


async def drain(sender: delivery.Sender, conn, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await sender.pass_once()
        await asyncio.sleep(0.05)
        if not sender.tasks and not (await rows(conn, "SELECT 1 FROM rapport.webhook_deliveries "
                                                      "WHERE status = 'pending' LIMIT 1")):
            return
    raise AssertionError("deliveries still pending")


async def test_sender_signs_retries_and_dead_letters_against_real_receivers(fresh_db):  # noqa: F811
    from psycopg_pool import AsyncConnectionPool

    good, flaky, down, moved = Receiver(), Receiver([500, 503, 200]), Receiver([500]), Receiver([302])
    pool = AsyncConnectionPool(fresh_db, min_size=1, max_size=4, open=False, kwargs={"autocommit": True})
    await pool.open(wait=True)
    conn = await connect(fresh_db)
    fast = rules.Config(schedule=rules.RetrySchedule(attempts=3, base_s=0.05, max_s=0.2), allow_private=True,
                        timeout_s=5)
    try:
        hooks = {}
        for name, r in (("good", good), ("flaky", flaky), ("down", down), ("moved", moved)):
            hooks[name] = await store.create(conn, "acme", r.url, ["*"])
        event = now_event("s1", "acme", "c1", kind="crisis")
        planned = [(rules.Subscription(h["webhook_id"], "acme", ("*",), now_utc()), event) for h, _ in hooks.values()]
        async with conn.cursor() as cur:
            await store.enqueue(cur, planned)
        async with delivery.addresses.client(fast) as client:
            await drain(delivery.Sender(pool, fast, client), conn)
        for r, (hook, secret) in zip((good, flaky, down, moved), hooks.values()):
            for headers, body in r.requests:  # every attempt is signed afresh with the subscription's secret
                assert signing.verify(secret, headers, body) == event.event_id
                assert orjson.loads(body)["data"]["trigger"]["kind"] == "crisis"
                assert headers["content-type"] == "application/json"
        assert [len(r.requests) for r in (good, flaky, down, moved)] == [1, 3, 3, 3]
        final = {name: (await store.deliveries(conn, "acme", h["webhook_id"]))[0] for name, (h, _) in hooks.items()}
        assert {n: (d["status"], d["attempts"], d["last_status"]) for n, d in final.items()} == {
            "good": ("delivered", 1, 200), "flaky": ("delivered", 3, 200), "down": ("dead", 3, 500),
            "moved": ("dead", 3, 302)}  # a redirect is not followed
        assert final["down"]["last_error"] == "HTTP 500"

        # without ALLOW_PRIVATE a loopback receiver is refused at every attempt, and never reached
        strict = dataclasses.replace(fast, allow_private=False)
        (hook, _) = hooks["good"]
        await conn.execute("UPDATE rapport.webhook_deliveries SET status = 'pending', attempts = 0, "
                           "next_attempt_at = now() WHERE webhook_id = %s", (hook["webhook_id"],))
        await conn.execute("UPDATE rapport.webhook_deliveries SET body = %s WHERE webhook_id = %s",
                           (rules.body(event), hook["webhook_id"]))
        async with delivery.addresses.client(strict) as client:
            await drain(delivery.Sender(pool, strict, client), conn)
        (d,) = await store.deliveries(conn, "acme", hook["webhook_id"])
        assert d["status"] == "dead" and d["last_error"].startswith("refused") and len(good.requests) == 1
    finally:
        await conn.close()
        await pool.close()
        for r in (good, flaky, down, moved):
            r.close()


async def test_erasure_drops_the_contacts_deliveries_and_keeps_the_erasure_notice(fresh_db):  # noqa: F811
    conn = await connect(fresh_db)
    w, _ = await store.create(conn, "acme", "https://a.example/1", ["*"])
    sub = rules.Subscription(w["webhook_id"], "acme", ("*",), now_utc())
    notice = ev.contact_erased(event_id="del-1", tenant_id="acme", contact_id="c1", at=format_time(now_utc()))
    async with conn.cursor() as cur:
        await store.enqueue(cur, [(sub, now_event("e1", "acme", "c1")), (sub, now_event("e2", "acme", "c1", "crisis")),
                                  (sub, now_event("e3", "acme", "c2")), (sub, now_event("e4", "beta", "c1")),
                                  (sub, notice)])
    await conn.execute("UPDATE rapport.webhook_deliveries SET status = 'dead' WHERE event_id = %s",
                       (now_event("e2", "acme", "c1", "crisis").event_id,))
    await conn.execute("SET search_path TO proj_v1, rapport, public")
    async with conn.cursor() as cur:
        await erase_contact(cur, "acme", "c1")
    left = await rows(conn, "SELECT tenant_id, contact_id FROM rapport.webhook_deliveries ORDER BY delivery_id")
    assert left == [("acme", "c2"), ("beta", "c1"), ("acme", tracking_key.erased_tracking_id("acme", "c1"))]
    await conn.close()


async def test_webhook_routes(fresh_db, monkeypatch):  # noqa: F811
    app, pool = await api_in_process(fresh_db, broker_ok=False,  # keyless: an admin of tenant default
                                     settings=ApiSettings(base=settings(), webhooks=rules.Config()))
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api") as c:
            hook = {"url": "http://127.0.0.1:9/hook", "events": ["TriggerCreated:crisis"], "tenant_id": "acme"}
            r = await c.post("/webhooks", json=hook)
            assert r.status_code == 422 and r.json()["errors"][0]["field"] == "url"  # loopback: SSRF
            r = await c.post("/webhooks", json={**hook, "events": ["TriggerCreated:panic"]})
            assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["events"]
            r = await c.post("/webhooks", json={**hook, "url": "gopher://x/", "secret": "mine"})
            assert r.status_code == 422 and {e["field"] for e in r.json()["errors"]} == {"url", "secret"}
            assert (await c.post("/webhooks", content=b"{")).status_code == 400

            svc = app.state.svc  # this app's own service: now private addresses are allowed
            svc.settings = dataclasses.replace(svc.settings, webhooks=rules.Config(allow_private=True))
            r = await c.post("/webhooks", json={**hook, "description": "pager"})
            assert r.status_code == 201, r.text
            made = r.json()
            wid, secret = made["id"], made.pop("secret")
            assert secret.startswith("whsec_")
            assert made == {"id": wid, "tenantId": "acme", "url": hook["url"], "events": ["TriggerCreated:crisis"],
                            "description": "pager", "createdAt": made["createdAt"], "pending": 0, "dead": 0}
            listed = (await c.get("/webhooks", params={"tenant_id": "acme"})).json()
            assert listed == {"tenantId": "acme", "webhooks": [made]}  # never the secret again
            assert (await c.get(f"/webhooks/{wid}")).status_code == 404  # tenant default: not its webhook
            assert (await c.get(f"/webhooks/{wid}", params={"tenant_id": "acme"})).json() == made

            sub = rules.Subscription(wid, "acme", ("*",), now_utc())
            async with pool.connection() as conn:
                async with conn.cursor() as cur:
                    await store.enqueue(cur, [(sub, now_event("r1", "acme", "c1", "crisis")),
                                              (sub, now_event("r2", "acme", "c2", "crisis"))])
                (d1, d2) = await store.claim(conn, 10, 4, 60)
                await store.record(conn, d1, status_code=500, error="HTTP 500", next_in_s=None)
            dead = (await c.get(f"/webhooks/{wid}/deliveries", params={"tenant_id": "acme", "status": "dead"})).json()
            assert [(d["deliveryId"], d["status"], d["lastError"], d["contactId"]) for d in dead["deliveries"]] == [
                (d1.delivery_id, "dead", "HTTP 500", "c1")]
            r = await c.get(f"/webhooks/{wid}/deliveries", params={"tenant_id": "acme", "status": "x"})
            assert r.status_code == 400 and r.json()["errors"][0]["field"] == "status"
            retry = f"/webhooks/{wid}/deliveries/{d1.delivery_id}/retry"
            assert (await c.post(retry, params={"tenant_id": "acme"})).status_code == 202
            assert (await c.post(retry, params={"tenant_id": "acme"})).status_code == 409  # pending now
            assert (await c.post(retry)).status_code == 404
            r = await c.post(f"/webhooks/{wid}/deliveries/{2 ** 63}/retry", params={"tenant_id": "acme"})
            assert r.status_code == 422 and r.json()["errors"][0]["field"] == "delivery_id"

            # erasing c1 drops its deliveries at once (before any worker applies the erasure)
            assert (await c.delete("/contacts/c1", params={"tenant_id": "acme"})).status_code == 202
            left = (await c.get(f"/webhooks/{wid}/deliveries", params={"tenant_id": "acme"})).json()["deliveries"]
            assert [d["contactId"] for d in left] == ["c2"]

            r = await c.delete(f"/webhooks/{wid}", params={"tenant_id": "acme"})
            assert r.json() == {"id": wid, "deleted": True}
            assert (await c.delete(f"/webhooks/{wid}", params={"tenant_id": "acme"})).status_code == 404
            async with pool.connection() as conn:
                assert await rows(conn, "SELECT * FROM rapport.webhook_deliveries") == []
    finally:
        await pool.close()


def test_cli_creates_lists_and_deletes(fresh_db, monkeypatch):  # noqa: F811
    from click.testing import CliRunner

    from ops.cli import main

    monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
    run = CliRunner().invoke
    made = run(main, ["webhooks", "create", "--tenant", "acme", "--url", "https://93.184.216.34/hook",
                      "--event", "TriggerCreated:crisis", "--event", "ContactErased"])
    assert made.exit_code == 0, made.output
    secret = made.output.strip().splitlines()[-1]
    wid = made.output.split()[2]
    assert secret.startswith("whsec_") and wid.startswith("wh_")
    listed = run(main, ["webhooks", "list", "--tenant", "acme"])
    assert wid in listed.output and "TriggerCreated:crisis,ContactErased -> https://93.184.216.34/hook" in listed.output
    assert "whsec_" not in listed.output
    refused = run(main, ["webhooks", "create", "--tenant", "acme", "--url", "http://127.0.0.1:8080/", "--event", "*"])
    assert refused.exit_code == 2 and "loopback" in refused.output
    assert run(main, ["webhooks", "create", "--tenant", "acme", "--url", "https://93.184.216.34/",
                      "--event", "Nope"]).exit_code == 2
    assert run(main, ["webhooks", "delete", wid, "--tenant", "beta"]).exit_code == 1
    assert run(main, ["webhooks", "delete", wid, "--tenant", "acme"]).exit_code == 0
    assert wid not in run(main, ["webhooks", "list"]).output


async def test_the_client_manages_webhooks_and_every_answer_is_what_the_spec_says(fresh_db, monkeypatch):  # noqa: F811
    """AsyncRapport (clients/python) on the API in-process, on a real PostgreSQL: every webhook method,
    errors included, and every answer, each of the six operations with real data, held to /openapi.json."""
    from rapport_client import AsyncRapport, Conflict, NotFound, ValidationError
    from tests import spec as S

    app, pool = await api_in_process(fresh_db, broker_ok=False,
                                     settings=ApiSettings(base=settings(), webhooks=rules.Config(allow_private=True)))
    answers: list[tuple[str, str, int, object]] = []

    class Recording(httpx.ASGITransport):  # the app in-process, keeping every answer (to hold it to the spec)
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            response = await super().handle_async_request(request)
            body = await response.aread()
            answers.append((request.method, request.url.path, response.status_code, orjson.loads(body)))
            return httpx.Response(response.status_code, headers=response.headers, content=body)

    try:
        async with AsyncRapport("http://api", api_key="unused", tenant_id="acme", retries=0,
                                transport=Recording(app=app)) as rapport:
            with pytest.raises(ValidationError) as bad:
                await rapport.create_webhook("gopher://x/", ["TriggerCreated:panic"])
            assert sorted(bad.value.fields) == ["events", "url"]
            made = await rapport.create_webhook("http://127.0.0.1:9/hook", ["TriggerCreated:crisis"],
                                                description="pager")
            assert made.secret.startswith("whsec_") and made.tenant_id == "acme" and (made.pending, made.dead) == (0, 0)
            listed = await rapport.webhooks()
            assert [w.id for w in listed.webhooks] == [made.id] and "secret" not in listed.webhooks[0].model_dump()
            assert (await rapport.webhook(made.id)).description == "pager"
            with pytest.raises(NotFound):
                await rapport.webhook(made.id, tenant_id="beta")  # another tenant's (keyless: an admin)

            sub = rules.Subscription(made.id, "acme", ("*",), now_utc())
            async with pool.connection() as conn:
                async with conn.cursor() as cur:
                    await store.enqueue(cur, [(sub, now_event("k1", "acme", "c1", "crisis")),
                                              (sub, now_event("k2", "acme", "c2", "crisis"))])
                d1, _ = await store.claim(conn, 10, 4, 60)
                await store.record(conn, d1, status_code=503, error="HTTP 503", next_in_s=None)
            assert (await rapport.webhook(made.id)).dead == 1
            (dead,) = (await rapport.webhook_deliveries(made.id, status="dead")).deliveries
            assert (dead.delivery_id, dead.contact_id, dead.last_status, dead.status) == (d1.delivery_id, "c1", 503,
                                                                                         "dead")
            assert len((await rapport.webhook_deliveries(made.id, limit=1)).deliveries) == 1
            assert (await rapport.retry_delivery(made.id, dead.delivery_id)).status == "pending"
            with pytest.raises(Conflict):
                await rapport.retry_delivery(made.id, dead.delivery_id)  # pending now
            with pytest.raises(NotFound):
                await rapport.retry_delivery(made.id, 10 ** 12)
            assert (await rapport.delete_webhook(made.id)).deleted
            with pytest.raises(NotFound):
                await rapport.webhook_deliveries(made.id)
    finally:
        await pool.close()

    spec = app.openapi()
    checked = set()
    for method, path, status, body in answers:
        template, op = S.operation(spec, method, path)
        assert str(status) in op["responses"], (method, template, status)
        schema = op["responses"][str(status)]["content"]["application/json"]["schema"]
        assert S.problems(schema, spec, body) == [], (method, template, status, body)
        checked.add((method, template, status))
    assert {(m, t) for m, t, s in checked if s < 300} == {
        (m.upper(), p) for p, ops in spec["paths"].items() if p.startswith("/webhooks") for m in ops}
    assert {s for _, _, s in checked if s >= 400} == {404, 409, 422}
