"""Two and more tenants through HTTP on the embedded stack: keys, tenant binding and 0 cross-tenant
reads on every route, Redis keys included. Tenant and contact ids are chosen to collide under a naive
`tenant:contact` join (issue 11: tenant `acme:x` / contact `y` read tenant `acme` / contact `x:y`)."""
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


def test_every_route_stays_within_the_keys_tenant(tmp_path):
    seed = int(os.environ.get("RAPPORT_TEST_SEED", random.randrange(10**6)))
    rng = random.Random(seed)
    pairs = {(t, c) for t in TENANTS for c in rng.sample(CONTACTS, 4)} | {("acme:x", "y"), ("acme", "x:y"),
                                                                          ("a:b", "c"), ("a", "b:c")}
    marker = {p: "kw" + "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(10)) for p in sorted(pairs)}
    stack = RunningStack(tmp_path / "data")
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
