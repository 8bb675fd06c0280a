"""PostgreSQL plumbing: migrations, projection versions (one schema each) and connections.

The shared schema `rapport` holds the ledger and the version registry; each projection version lives
in its own schema `proj_<version>`, so `rapport replay --into v2` builds beside the live `v1` and
readers switch with one UPDATE of `rapport.active_version`.
"""
from __future__ import annotations

import re
from importlib import resources
from typing import Any

import orjson
import psycopg
import psycopg.types.json
from psycopg.rows import dict_row
from pgvector.psycopg import register_vector, register_vector_async

# json/jsonb columns parsed by orjson, not the standard library's json (the same values; ~4x less CPU on
# a contact's 25 KB state, which a worker reads per batch and /context per request). Every connection
# of the process: the API's pool, a worker's, replay's.
psycopg.types.json.set_json_loads(orjson.loads)

DEFAULT_VERSION = "v1"
SWITCH_LOCK = 72657010  # advisory lock: batches hold it shared, a reader switch exclusively
RELAY_LOCK = 72657011  # advisory lock: the one API process that relays the ledger to the broker holds it
_VERSION_RE = re.compile(r"^[a-z][a-z0-9_]{0,30}$")


def schema_of(version: str) -> str:
    if not _VERSION_RE.match(version):
        raise ValueError(f"invalid projection version {version!r}: use lowercase letters, digits, _")
    return f"proj_{version}"


def _migrations(kind: str) -> list[tuple[str, str]]:
    d = resources.files("streams") / "migrations" / kind
    return sorted((p.name, p.read_text()) for p in d.iterdir() if p.name.endswith(".sql"))


def migrate_meta(conn: psycopg.Connection) -> None:
    """Create/upgrade the shared schema. Idempotent; serialised by an advisory lock."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(72657001)")
        conn.execute("CREATE SCHEMA IF NOT EXISTS rapport")
        conn.execute("CREATE TABLE IF NOT EXISTS rapport.schema_migrations ("
                     "schema_name text, name text, applied_at timestamptz DEFAULT now(), "
                     "PRIMARY KEY (schema_name, name))")
        _apply(conn, "rapport", _migrations("meta"))


def ensure_version(conn: psycopg.Connection, version: str, *, activate_if_none: bool = True,
                   status: str = "live") -> None:
    """Create the version's schema and tables (idempotent); make it live when no version is."""
    schema = schema_of(version)
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(72657002)")
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
        conn.execute(f"SET LOCAL search_path TO {schema}, public")
        _apply(conn, schema, _migrations("version"))
        conn.execute("INSERT INTO rapport.projection_versions (version, status) VALUES (%s, %s) "
                     "ON CONFLICT (version) DO NOTHING", (version, status))
        if activate_if_none:
            cur = conn.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                               "ON CONFLICT (singleton) DO NOTHING RETURNING version", (version,))
            if cur.fetchone():
                conn.execute("UPDATE rapport.projection_versions SET status='live', activated_at=now() "
                             "WHERE version=%s", (version,))


def _apply(conn: psycopg.Connection, schema: str, migrations: list[tuple[str, str]]) -> None:
    done = {r[0] for r in conn.execute("SELECT name FROM rapport.schema_migrations WHERE schema_name=%s",
                                       (schema,))}
    for name, sql in migrations:
        if name not in done:
            conn.execute(sql)
            conn.execute("INSERT INTO rapport.schema_migrations (schema_name, name) VALUES (%s, %s)",
                         (schema, name))


def active_version(conn: psycopg.Connection) -> str | None:
    row = conn.execute("SELECT version FROM rapport.active_version").fetchone()
    return row[0] if row else None


async def active_version_async(conn: psycopg.AsyncConnection) -> str | None:
    cur = await conn.execute("SELECT version FROM rapport.active_version")
    row = await cur.fetchone()
    if row is None:
        return None
    return row["version"] if isinstance(row, dict) else row[0]


def prepare(database_url: str, version: str | None = None) -> str:
    """Migrate the shared schema and the given (or active, or default) version; return the version."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        migrate_meta(conn)
        v = version or active_version(conn) or DEFAULT_VERSION
        ensure_version(conn, v)
        return v


def connect(database_url: str, **kw: Any) -> psycopg.Connection:
    conn = psycopg.connect(database_url, **kw)
    register_vector(conn)
    return conn


async def connect_async(database_url: str, schema: str | None = None, **kw: Any) -> psycopg.AsyncConnection:
    conn = await psycopg.AsyncConnection.connect(database_url, **kw)
    await register_vector_async(conn)
    if schema:
        await conn.execute(f"SET search_path TO {schema}, rapport, public")
        if not conn.autocommit:
            await conn.commit()
    return conn


def _steady_pool_reconnects() -> None:
    """psycopg_pool retries a failed connection after 1 s, then doubles the wait without a cap (2, 4, 8,
    16 s): after a PostgreSQL crash the API answered again up to 15 s after the database did (`rapport
    bench chaos`, pg-kill). Every pool of this process retries each second instead (jittered)."""
    from psycopg_pool import base

    base.AttemptWithBackoff.DELAY_BACKOFF = 1.0


_steady_pool_reconnects()


async def configure_pool_conn(conn: psycopg.AsyncConnection) -> None:
    await register_vector_async(conn)
    conn.row_factory = dict_row  # type: ignore[assignment]
