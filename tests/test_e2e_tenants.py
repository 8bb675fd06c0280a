"""Two and more tenants through HTTP on each backend (the embedded broker, a 3-broker Kafka cluster): keys,
tenant binding and 0 cross-tenant reads on every route, Redis keys included. Tenant and contact ids are
chosen to collide under a naive `tenant:contact` join (issue 11: tenant `acme:x` / contact `y` read tenant
`acme` / contact `x:y`)."""
from __future__ import annotations

import os
import random
import stat
import subprocess
import sys
import time
from urllib.parse import quote

import orjson
import pytest

from schemas.cachekeys import WINDOW_PREFIX, parse_window_key
from tests.conftest import BACKENDS
from tests.stack import RunningStack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

TENANTS = ["acme", "acme:x", "a", "a:b", "ü🙂", "%61"]
CONTACTS = ["y", "x:y", "c", "b:c", "..", "etc:passwd", "a%3Ab", "ü🙂", "~root", "x"]


def keys_cli(stack: RunningStack, *args: str) -> str:
    r = subprocess.run([sys.executable, "-m", "ops.cli", "keys", *args, "--data-dir", str(stack.data_dir)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def path(contact: str) -> str:
    # every character escaped, dots too, so no client normalises a '..' segment away
    return "".join(f"%{b:02X}" for b in contact.encode())


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_every_route_stays_within_the_keys_tenant(tmp_path, backend):
    seed = int(os.environ.get("RAPPORT_TEST_SEED", random.randrange(10**6)))
    rng = random.Random(seed)
    pairs = {(t, c) for t in TENANTS for c in rng.sample(CONTACTS, 4)} | {("acme:x", "y"), ("acme", "x:y"),
                                                                          ("a:b", "c"), ("a", "b:c")}
    marker = {p: "kw" + "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(10)) for p in sorted(pairs)}
    stack = RunningStack(tmp_path / "data", env=backend)
    stack.start()
    try:
        key_file = stack.data_dir / "api-key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert str(key_file) in "".join(stack.output)
        keys = {}
        for t in TENANTS:
            out = keys_cli(stack, "create", "--tenant", t).splitlines()
            keys[t] = out[-1]
            assert keys[t].startswith("rk_") and keys[t] not in keys_cli(stack, "list")
        admin = keys_cli(stack, "create", "--tenant", "ops", "--admin").splitlines()[-1]

        last = {}
        for (t, c), word in marker.items():
            with stack.client(keys[t]) as h:
                evs = [{"contact_id": c, "role": "user", "event_id": f"{word}-{i}", "display_name": "Sam",
                        "message": m} for i, m in enumerate([f"My favourite word is {word}.",
                                                               f"I adopted a cat and named her {word}."])]
                r = h.post("/ingest", json=evs)
                assert r.status_code == 202, r.text
                last[(t, c)] = evs[-1]["event_id"]
        for (t, c), eid in last.items():
            with stack.client(keys[t]) as h:
                deadline = time.monotonic() + 90
                while (r := h.get(f"/context/{path(c)}", params={"after": eid})).status_code == 504:
                    assert time.monotonic() < deadline
                assert r.status_code == 200, r.text

        def reads(h, t, c):
            p = path(c)
            return {"context": h.get(f"/context/{p}", params={"query": "what is my favourite word?"}),
                    "memories": h.get(f"/contacts/{p}/memories"), "triggers": h.get(f"/contacts/{p}/triggers"),
                    "export": h.get(f"/contacts/{p}/export"),
                    "payload": h.post("/payload", json={"contact_id": c, "message": "what is my favourite word?"})}

        for t in TENANTS:
            with stack.client(keys[t]) as h:
                for c in CONTACTS:
                    own = marker.get((t, c))
                    for route, r in reads(h, t, c).items():
                        assert r.status_code == 200, (t, c, route, r.text)
                        seen = {w for w in marker.values() if w in r.text}
                        assert seen <= ({own} if own else set()), (seed, t, c, route, seen)
                        if own and route in ("context", "export", "payload"):  # its history / ledger messages
                            assert own in seen, (seed, t, c, route)
                    # naming another tenant is refused, on every route
                    other = rng.choice([x for x in TENANTS if x != t])
                    p = path(c)
                    for r in (h.get(f"/context/{p}", params={"tenant_id": other}),
                              h.get(f"/contacts/{p}/memories", params={"tenant_id": other}),
                              h.get(f"/contacts/{p}/triggers", params={"tenant_id": other}),
                              h.get(f"/contacts/{p}/export", params={"tenant_id": other}),
                              h.delete(f"/contacts/{p}", params={"tenant_id": other}),
                              h.post("/payload", json={"contact_id": c, "message": "hi", "tenant_id": other}),
                              h.post("/ingest", json={"contact_id": c, "role": "user", "message": "hi",
                                                      "tenant_id": other})):
                        assert r.status_code == 403, (t, other, r.request.url, r.text)

        # the Redis windows: one key per (tenant, contact), holding that contact's turns only
        import redis

        rd = redis.Redis.from_url(stack.run_info["redis_url"])
        windows = {parse_window_key(k.decode()): orjson.loads(rd.get(k)) for k in rd.scan_iter(WINDOW_PREFIX + "*")}
        assert set(windows) == pairs
        for p, w in windows.items():
            assert {x for x in marker.values() if x in orjson.dumps(w).decode()} == {marker[p]}

        # erasure of tenant acme's contact x:y leaves tenant acme:x's contact y (same naive key) alone
        with stack.client(keys["acme"]) as h:
            assert h.delete(f"/contacts/{path('x:y')}").status_code == 202
            deadline = time.monotonic() + 60
            while marker[("acme", "x:y")] in h.get(f"/contacts/{path('x:y')}/export").text:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        with stack.client(keys["acme:x"]) as h:
            assert marker[("acme:x", "y")] in h.get(f"/context/{path('y')}").text
        with stack.client(admin) as h:  # an admin key acts for the tenant it names
            assert marker[("acme:x", "y")] in h.get(f"/contacts/{path('y')}/export",
                                                    params={"tenant_id": "acme:x"}).text
            assert h.get(f"/contacts/{path('y')}/export").json()["tenantId"] == "ops"

        # no key, a wrong key, and a revoked key (within the cache's 30 s)
        with stack.client("") as h:
            assert h.get("/healthz").status_code == 200
            assert h.get("/context/y").status_code == 401
        with stack.client("rk_000000000000_" + "A" * 43) as h:
            assert h.get("/context/y").status_code == 401
        key_id = keys["a"].split("_")[1]
        assert "revoked key " + key_id in keys_cli(stack, "revoke", key_id, "--tenant", "a")
        listed = [ln for ln in keys_cli(stack, "list", "--tenant", "a").splitlines() if ln.startswith(key_id)]
        assert listed and not listed[0].endswith(" -")
        with stack.client(keys["a"]) as h:
            deadline = time.monotonic() + 40
            while h.get("/contacts/c/triggers").status_code != 401:
                assert time.monotonic() < deadline, "a revoked key still works after the cache TTL"
                time.sleep(1)

        # hostile input: refused with the field named, and the service stays up
        with stack.client() as h:
            for bad, field in (({"contact_id": "n\x00ul", "role": "user", "message": "x"}, "contact_id"),
                               ({"contact_id": "a/b", "role": "user", "message": "x"}, "contact_id"),
                               ({"contact_id": "c", "role": "user", "message": "x",
                                 "occurred_at": "0001-01-01T00:00:00+14:00"}, "occurred_at"),
                               ({"contact_id": "c", "role": "user", "message": "x",
                                 "occurred_at": "9999-12-31T23:59:59Z"}, "occurred_at")):
                r = h.post("/ingest", json=bad)
                assert r.status_code == 422 and r.json()["errors"][0]["field"] == field, r.text
            assert h.get(f"/contacts/{quote('a/b', safe='')}/memories").status_code == 400
            assert h.post("/payload", content=b"[" * 900 + b"]" * 900).status_code == 422
            assert h.get("/healthz").status_code == 200
    finally:
        stack.stop()


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_tenants_reusing_event_ids_never_touch_each_other(tmp_path, monkeypatch, backend):
    """Issue 20's reproduction through HTTP: tenant A sends facts as col-1 and a crisis as col-2, tenant B
    its own under the same ids and the same contact id. B gets all its memories and its crisis trigger;
    B's move (col-3) supersedes only B's fact; B's "as I said" (col-4) reinforces only B's memory; each
    tenant's webhook gets its own trigger only; every read holds exactly the tenant's own rows. Then B
    erases the contact and re-sends col-1..col-4: duplicates, and nothing comes back."""
    from tests.helpers import Receiver

    monkeypatch.setenv("RAPPORT_WEBHOOK_ALLOW_PRIVATE", "1")  # the receivers are on 127.0.0.1
    crisis = "honestly I can't take this anymore, I just want to die"
    first = [("col-1", "I live in Paris. I work at Airbus as an engineer."), ("col-2", crisis)]
    later = [("col-3", "I moved to Berlin last month."), ("col-4", "As I said, I am an engineer.")]
    hooks = {"A": Receiver(), "B": Receiver()}
    stack = RunningStack(tmp_path / "data", env=backend)
    stack.start()
    try:
        key_file = stack.data_dir / "tracking-key"  # the erasure tombstones' HMAC key, made on first start
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and len(key_file.read_text().strip()) == 64
        keys = {t: keys_cli(stack, "create", "--tenant", t).splitlines()[-1] for t in ("A", "B")}
        for t, r in hooks.items():
            with stack.client(keys[t]) as h:
                resp = h.post("/webhooks", json={"url": r.url, "events": ["TriggerCreated"]})
                assert resp.status_code == 201, resp.text

        def send(t: str, msgs) -> dict:
            with stack.client(keys[t]) as h:
                r = h.post("/ingest", json=[{"contact_id": "sam", "role": "user", "event_id": i, "message": m}
                                            for i, m in msgs])
                assert r.status_code == 202, r.text
                deadline = time.monotonic() + 90
                while h.get("/context/sam", params={"after": msgs[-1][0]}).status_code == 504:
                    assert time.monotonic() < deadline
                return r.json()

        def memories(t: str) -> list[dict]:
            with stack.client(keys[t]) as h:
                r = h.get("/contacts/sam/memories")
                assert r.status_code == 200 and r.json()["tenantId"] == t
                return r.json()["memories"]

        def triggers(t: str) -> list[dict]:
            with stack.client(keys[t]) as h:
                return h.get("/contacts/sam/triggers").json()["triggers"]

        assert send("A", first)["duplicates"] == 0
        assert send("B", first)["duplicates"] == 0  # the same ids in another tenant are new events
        a0, b0 = memories("A"), memories("B")
        # the same messages make the same memories: all of B's, none shared with A's
        assert sorted(m["content"] for m in b0) == sorted(m["content"] for m in a0) and len(b0) >= 4
        assert not {m["id"] for m in a0} & {m["id"] for m in b0}
        assert "Lives in Paris" in [m["content"] for m in b0]
        assert [t["kind"] for t in triggers("B")].count("crisis") == 1
        assert [t["kind"] for t in triggers("A")].count("crisis") == 1

        send("B", later)
        a1, b1 = {m["content"]: m for m in memories("A")}, {m["content"]: m for m in memories("B")}
        assert a1["Lives in Paris"]["status"] == "active"
        assert b1["Lives in Paris"]["status"] == "superseded"
        assert all(m["sourceEventIds"] == ["col-1"] for c, m in a1.items() if "engineer" in c.lower())
        assert any("col-4" in m["sourceEventIds"] for c, m in b1.items() if "engineer" in c.lower())
        own = {t: {m["id"] for m in memories(t)} for t in ("A", "B")}
        for t, other in (("A", "B"), ("B", "A")):
            with stack.client(keys[t]) as h:
                # a budget: a new contact's stage serves no memories by default
                ctx = h.get("/context/sam", params={"budget": 2000}).json()
                served = {m["id"] for m in ctx["memories"]}
                assert served and served <= own[t] and not served & own[other], ctx
                assert ("Berlin" in ctx["context_text"]) == (t == "B")  # only B moved
                export = h.get("/contacts/sam/export").text
                assert not any(i in export for i in own[other])
            trig = {x["id"] for x in triggers(t)}
            deadline = time.monotonic() + 60
            while not received_triggers(hooks[t]):
                assert time.monotonic() < deadline, f"{t}'s webhook got no trigger"
                time.sleep(0.25)
            time.sleep(1.0)  # anything misrouted would have arrived with it
            docs = received_triggers(hooks[t])
            assert {d["tenantId"] for d in docs} == {t}
            assert {d["data"]["trigger"]["id"] for d in docs} <= trig
            assert "crisis" in {d["data"]["trigger"]["kind"] for d in docs}

        # erasure, then a re-send of the erased ids: duplicates, not a resurrection
        with stack.client(keys["B"]) as h:
            assert h.delete("/contacts/sam").status_code == 202
            deadline = time.monotonic() + 60
            while h.get("/contacts/sam/memories").json()["memories"]:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        again = send("B", first + later)
        assert (again["duplicates"], again["accepted"]) == (4, 4), again
        send("B", [("col-5", "I started learning the guitar")])
        assert {s for m in memories("B") for s in m["sourceEventIds"]} == {"col-5"}
        assert {m["id"] for m in memories("A")} == own["A"]  # A untouched by B's erasure
    finally:
        stack.stop()
        for r in hooks.values():
            r.close()


def received_triggers(r) -> list[dict]:
    return [orjson.loads(body) for _, body in list(r.requests)]
