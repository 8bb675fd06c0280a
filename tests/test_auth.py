"""API keys: format, hashing, tenant rules, the validation cache, and storage on real PostgreSQL."""
from __future__ import annotations

import asyncio
import hashlib
import os
import stat

import psycopg
import pytest

from projections import auth
from streams import db
from projections.auth import Forbidden, Principal, StoredKey


def stored_for(key: str, tenant: str = "acme", admin: bool = False, revoked: bool = False) -> StoredKey:
    key_id, secret = auth.parse_key(key)
    return StoredKey(key_id, tenant, admin, hashlib.sha256(secret.encode()).hexdigest(), revoked)


def test_key_format_and_hash():
    key_id, secret, key = auth.new_key()
    assert key == f"rk_{key_id}_{secret}" and len(key_id) == 12 and len(secret) == 43
    assert auth.parse_key(key) == (key_id, secret)
    assert auth.hash_secret("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2
    assert len({auth.new_key()[2] for _ in range(100)}) == 100
    for bad in ("", "rk_", key[:-1], key + "x", "Bearer " + key, key.replace("rk_", "sk_"), key.upper()):
        assert auth.parse_key(bad) is None


def test_verify():
    _, _, key = auth.new_key()
    assert auth.verify(key, stored_for(key)) == Principal("acme", False, auth.parse_key(key)[0])
    assert auth.verify(key, stored_for(key, revoked=True)) is None
    assert auth.verify(key, None) is None
    _, _, other = auth.new_key()
    # same key id, another secret
    forged = key[:16] + other[16:]
    assert auth.verify(forged, stored_for(key)) is None
    assert auth.verify(other, stored_for(key)) is None  # a record of another key id


def test_tenant_rules():
    p = Principal("acme", False, "k")
    assert auth.tenant_for(p, None) == "acme"
    assert auth.tenant_for(p, "acme") == "acme"
    with pytest.raises(Forbidden) as e:
        auth.tenant_for(p, "acme:x", "3.tenant_id")
    assert e.value.field == "3.tenant_id"
    admin = Principal("ops", True, "k")
    assert auth.tenant_for(admin, None) == "ops" and auth.tenant_for(admin, "acme") == "acme"


def test_cache_reads_once_per_ttl_and_sees_revocation_after_it():
    _, _, key = auth.new_key()
    record = {"v": stored_for(key)}
    reads = []
    now = [100.0]

    async def fetch(key_id):
        reads.append(key_id)
        return record["v"]

    cache = auth.KeyCache(fetch, ttl=30, clock=lambda: now[0])

    async def run():
        assert (await cache.principal(key)).tenant_id == "acme"
        assert (await cache.principal(key)).tenant_id == "acme"
        assert len(reads) == 1
        record["v"] = stored_for(key, revoked=True)
        now[0] += 29.9
        assert await cache.principal(key) is not None  # still cached
        now[0] += 0.2
        assert await cache.principal(key) is None  # re-read after the TTL: revoked
        assert len(reads) == 2
        assert await cache.principal("not a key") is None and len(reads) == 2  # malformed: no read

    asyncio.run(run())


def test_cache_is_bounded():
    async def fetch(key_id):
        return None

    cache = auth.KeyCache(fetch, max_entries=10)

    async def run():
        for _ in range(50):
            assert await cache.principal(auth.new_key()[2]) is None

    asyncio.run(run())
    assert len(cache._entries) == 10


def test_storage_create_list_revoke(pg_url):
    with psycopg.connect(pg_url, autocommit=True) as conn:
        db.migrate_meta(conn)
        tenant = "t-" + os.urandom(4).hex()
        key_id, key = auth.create_key(conn, tenant)
        admin_id, admin_key = auth.create_key(conn, tenant, admin=True)
        # only the hash is stored
        row = conn.execute("SELECT secret_sha256 FROM rapport.api_keys WHERE key_id=%s", (key_id,)).fetchone()
        assert row[0] == hashlib.sha256(auth.parse_key(key)[1].encode()).hexdigest()
        assert auth.parse_key(key)[1] not in str(conn.execute("SELECT * FROM rapport.api_keys").fetchall())
        assert auth.verify(key, auth.stored_key(conn, key_id)) == Principal(tenant, False, key_id)
        assert auth.verify(admin_key, auth.stored_key(conn, admin_id)).admin
        listed = auth.list_keys(conn, tenant)
        assert sorted((r[0], r[1], r[2], r[4]) for r in listed) == sorted([(key_id, tenant, False, None),
                                                                           (admin_id, tenant, True, None)])
        assert not auth.revoke_key(conn, key_id, "someone-else")
        assert auth.revoke_key(conn, key_id, tenant)
        assert not auth.revoke_key(conn, key_id)  # already revoked
        assert auth.verify(key, auth.stored_key(conn, key_id)) is None
        assert auth.verify(admin_key, auth.stored_key(conn, admin_id)) is not None


def test_provision_writes_a_0600_file_and_keeps_a_valid_key(pg_url, tmp_path):
    from ops.keys import auth_headers, client_key, provision

    path, created = provision(tmp_path, pg_url)
    assert created and path == tmp_path / "api-key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert text.endswith("\n") and text.count("\n") == 1
    key = text.strip()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        stored = auth.verify(key, auth.stored_key(conn, auth.parse_key(key)[0]))
        assert stored.tenant_id == "default" and stored.admin  # the operator's key
    assert provision(tmp_path, pg_url) == (path, False) and path.read_text().strip() == key
    os.environ.pop("RAPPORT_API_KEY", None)
    assert client_key(tmp_path) == key and auth_headers(tmp_path) == {"Authorization": f"Bearer {key}"}
    with psycopg.connect(pg_url, autocommit=True) as conn:
        auth.revoke_key(conn, auth.parse_key(key)[0])
    path2, created = provision(tmp_path, pg_url)  # a revoked key is replaced
    assert created and path2.read_text().strip() != key


def test_keys_cli_on_a_stopped_data_dir(tmp_path, monkeypatch):
    """`rapport keys` starts a stopped data dir's embedded PostgreSQL for the while; the key is the last
    line of create's output and works; list never shows it; revoke by id."""
    from click.testing import CliRunner

    from ops.cli import main
    from ops.embedded import start_postgres

    monkeypatch.delenv("RAPPORT_DATABASE_URL", raising=False)
    (tmp_path / "logs").mkdir()
    child, url = start_postgres(tmp_path / "pg", tmp_path / "logs")  # a data dir as `rapport up` leaves it
    child.stop(timeout=20)
    run = CliRunner().invoke
    r = run(main, ["keys", "create", "--tenant", "acme:x", "--data-dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    key = r.output.splitlines()[-1]
    key_id = auth.parse_key(key)[0]
    r = run(main, ["keys", "list", "--data-dir", str(tmp_path)])
    assert r.exit_code == 0 and key not in r.output and auth.parse_key(key)[1] not in r.output
    line = next(ln for ln in r.output.splitlines() if ln.startswith(key_id))
    assert line.split()[1:3] == ["acme:x", "tenant"] and line.endswith(" -")
    assert run(main, ["keys", "revoke", key_id, "--tenant", "other", "--data-dir", str(tmp_path)]).exit_code == 1
    assert run(main, ["keys", "revoke", key_id, "--data-dir", str(tmp_path)]).exit_code == 0
    r = run(main, ["keys", "list", "--tenant", "acme:x", "--data-dir", str(tmp_path)])
    assert not r.output.splitlines()[-1].endswith(" -")  # a revocation time
    assert run(main, ["keys", "create", "--tenant", "a/b", "--data-dir", str(tmp_path)]).exit_code == 2
    assert not (tmp_path / "pg" / "postmaster.pid").exists()  # stopped again
