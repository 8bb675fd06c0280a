"""API keys: the pure rules (format, hashing, which tenant a request acts for), the few SQL statements
behind `rapport keys`, and the API's short-lived cache of validated keys.

A key reads `rk_<key id>_<secret>`: the key id (12 hex digits) is public and is how the key is found;
the secret (32 random bytes, URL-safe base64) is stored only as its SHA-256, compared in constant
time. A plain hash suffices: the secret has 256 bits of entropy, so there is nothing to brute-force
that a slow hash would protect.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from cachetools import TTLCache

PREFIX = "rk_"
_KEY_RE = re.compile(r"^rk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
CACHE_TTL_S = 30.0  # a revoked key stops working within this time (the API's cache of validated keys)


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: a tenant, and whether it may act for others (an admin key, or keyless
    mode). key_id is None in keyless mode."""
    tenant_id: str
    admin: bool = False
    key_id: str | None = None


@dataclass(frozen=True)
class StoredKey:
    key_id: str
    tenant_id: str
    admin: bool
    secret_sha256: str
    revoked: bool


class Forbidden(Exception):
    """A request names a tenant its key does not belong to."""

    def __init__(self, field: str, tenant_id: str):
        super().__init__(f"{field}: this key may not act for tenant {tenant_id!r}")
        self.field, self.tenant_id = field, tenant_id


def new_key() -> tuple[str, str, str]:
    """(key id, secret, the key as the client sends it)."""
    key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
    return key_id, secret, f"{PREFIX}{key_id}_{secret}"


def parse_key(key: str) -> tuple[str, str] | None:
    """(key id, secret) of a well-formed key, else None."""
    m = _KEY_RE.match(key)
    return (m.group(1), m.group(2)) if m else None


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def verify(key: str, stored: StoredKey | None) -> Principal | None:
    """The principal a presented key stands for, or None (malformed, unknown, wrong secret, revoked)."""
    parsed = parse_key(key)
    if parsed is None or stored is None or stored.key_id != parsed[0]:
        return None
    if not hmac.compare_digest(hash_secret(parsed[1]), stored.secret_sha256) or stored.revoked:
        return None
    return Principal(stored.tenant_id, stored.admin, stored.key_id)


def tenant_for(principal: Principal, named: str | None, field: str = "tenant_id") -> str:
    """The tenant a request acts for: the one it names, which must be the key's own unless the key is
    an admin key; the key's own when it names none."""
    if named is None or named == principal.tenant_id:
        return principal.tenant_id
    if principal.admin:
        return named
    raise Forbidden(field, named)


# ----------------------------------------------------------------------------------------- storage
_SELECT = "SELECT key_id, tenant_id, admin, secret_sha256, revoked_at IS NOT NULL AS revoked FROM rapport.api_keys"


def create_key(conn: Any, tenant_id: str, admin: bool = False) -> tuple[str, str]:
    """Store a new key; returns (key id, the key). The key itself is not kept anywhere."""
    key_id, secret, key = new_key()
    conn.execute("INSERT INTO rapport.api_keys (key_id, tenant_id, admin, secret_sha256) VALUES (%s, %s, %s, %s)",
                 (key_id, tenant_id, admin, hash_secret(secret)))
    return key_id, key


def list_keys(conn: Any, tenant_id: str | None = None) -> list[tuple]:
    """(key id, tenant, admin, created_at, revoked_at) of every key (of one tenant), oldest first."""
    sql = "SELECT key_id, tenant_id, admin, created_at, revoked_at FROM rapport.api_keys"
    if tenant_id is None:
        return conn.execute(sql + " ORDER BY created_at, key_id").fetchall()
    return conn.execute(sql + " WHERE tenant_id = %s ORDER BY created_at, key_id", (tenant_id,)).fetchall()


def revoke_key(conn: Any, key_id: str, tenant_id: str | None = None) -> bool:
    """Revoke a key (of that tenant, when given); False if there is no such unrevoked key."""
    cur = conn.execute("UPDATE rapport.api_keys SET revoked_at = now() WHERE key_id = %s AND revoked_at IS NULL "
                       "AND (%s::text IS NULL OR tenant_id = %s) RETURNING key_id", (key_id, tenant_id, tenant_id))
    return cur.fetchone() is not None


def stored_key(conn: Any, key_id: str) -> StoredKey | None:
    row = conn.execute(_SELECT + " WHERE key_id = %s", (key_id,)).fetchone()
    return StoredKey(*row) if row else None


async def stored_key_async(pool: Any, key_id: str) -> StoredKey | None:
    async with pool.connection() as conn:
        cur = await conn.execute(_SELECT + " WHERE key_id = %s", (key_id,))
        row = await cur.fetchone()
    if row is None:
        return None
    return StoredKey(**row) if isinstance(row, dict) else StoredKey(*row)


class KeyCache:
    """Validated keys by key id for `ttl` seconds (unknown ids too, so random ids cost one read each
    per TTL), so authentication costs no database round trip per request. Revocation therefore takes
    effect within `ttl`. At most `max_entries` ids are held (cachetools' TTLCache: expired first, then
    the least recently used)."""

    def __init__(self, fetch: Callable[[str], Awaitable[StoredKey | None]], ttl: float = CACHE_TTL_S,
                 max_entries: int = 10_000, clock: Callable[[], float] = time.monotonic):
        self.fetch = fetch
        self._entries: TTLCache[str, StoredKey | None] = TTLCache(maxsize=max_entries, ttl=ttl, timer=clock)

    async def principal(self, key: str) -> Principal | None:
        parsed = parse_key(key)
        if parsed is None:
            return None
        key_id = parsed[0]
        try:
            stored = self._entries[key_id]
        except KeyError:  # never read, or read more than `ttl` ago
            stored = self._entries[key_id] = await self.fetch(key_id)
        return verify(key, stored)
