"""The shell around projections/auth.py for the CLI: which database holds a data dir's keys, the key
file of a data dir (`<data-dir>/api-key`, created by the first `rapport up`), and what clients send.
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import psycopg

from projections import auth
from streams import db

KEY_FILE = "api-key"
DEFAULT_TENANT = "default"


class KeysError(RuntimeError):
    pass


@contextmanager
def database_url(data_dir: str | Path | None) -> Iterator[str]:
    """The URL of a migrated database: $RAPPORT_DATABASE_URL, else the database of a running `rapport up`
    on the data dir (its run.json), else that data dir's embedded PostgreSQL, started for the while."""
    url = os.environ.get("RAPPORT_DATABASE_URL")
    d = Path(data_dir or "./.rapport")
    if not url and (d / "run.json").exists():
        url = json.loads((d / "run.json").read_text()).get("database_url")
        if url:
            try:
                psycopg.connect(url, connect_timeout=3).close()
            except psycopg.OperationalError:
                url = None  # run.json left by a killed run
    if url:
        with psycopg.connect(url, autocommit=True) as conn:
            db.migrate_meta(conn)
        yield url
        return
    if not (d / "pg" / "PG_VERSION").exists():
        raise KeysError(f"no database: set RAPPORT_DATABASE_URL or give the --data-dir of a `rapport up` "
                        f"({d / 'pg'} holds none)")
    from ops.embedded import start_postgres

    (d / "logs").mkdir(exist_ok=True)
    child, url = start_postgres(d / "pg", d / "logs")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            db.migrate_meta(conn)
        yield url
    finally:
        child.stop(timeout=20)


@contextmanager
def database(data_dir: str | Path | None) -> Iterator[psycopg.Connection]:
    """A migrated connection to the database `database_url` finds."""
    with database_url(data_dir) as url, psycopg.connect(url, autocommit=True) as conn:
        yield conn


def write_key_file(path: Path, key: str) -> None:
    """The key alone on one line, readable by its owner only (created 0600, never world-readable)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key + "\n")
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def provision(data_dir: Path, database_url: str, tenant_id: str = DEFAULT_TENANT) -> tuple[Path, bool]:
    """Make sure `<data-dir>/api-key` holds a valid key (for `tenant_id`): kept when it does, else a new
    key is created and written. Returns (the file, whether a key was created). It is the operator's key:
    of tenant `default` and with admin scope, so the operator's own tools (benchmarks, the evaluation
    scripts, `rapport demo`) may name any tenant; clients get tenant keys from `rapport keys create`."""
    path = data_dir / KEY_FILE
    with psycopg.connect(database_url, autocommit=True) as conn:
        db.migrate_meta(conn)
        if path.exists():
            key = path.read_text().strip()
            parsed = auth.parse_key(key)
            if parsed and auth.verify(key, auth.stored_key(conn, parsed[0])):
                os.chmod(path, 0o600)
                return path, False
        _, key = auth.create_key(conn, tenant_id, admin=True)
    write_key_file(path, key)
    return path, True


def client_key(data_dir: str | Path | None = None) -> str | None:
    """What a client sends: $RAPPORT_API_KEY, else `<data-dir>/api-key` (default ./.rapport), else None."""
    key = os.environ.get("RAPPORT_API_KEY")
    if key:
        return key.strip()
    path = Path(data_dir or "./.rapport") / KEY_FILE
    try:
        return path.read_text().strip() or None
    except OSError:
        return None


def auth_headers(data_dir: str | Path | None = None, key: str | None = None) -> dict[str, str]:
    key = key or client_key(data_dir)
    return {"Authorization": f"Bearer {key}"} if key else {}
