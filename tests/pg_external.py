"""A PostgreSQL server set up the way an operator's (or a managed service's) usually is, for the tests
that run on every backend: reached over TCP with a password, as a role that is not a superuser, in a
database it owns, with pgvector installed by the administrator (in template1 too, so the databases the
role creates have it). Started from the same binaries as the embedded one, on a port of its own.

RAPPORT_TEST_EXTERNAL_DATABASE_URL uses a running server instead (the role needs CREATEDB, and pgvector
installed in the database and in template1)."""
from __future__ import annotations

import secrets
import signal
import time
from pathlib import Path

APP_ROLE = "rapport_app"
HBA = """# tests/pg_external.py: the administrator over the socket, everyone else over TCP with a password
local all postgres trust
host  all all 127.0.0.1/32 scram-sha-256
"""


def start_external_postgres(base: Path) -> tuple[object, str]:
    """(the server's child, the application role's URL)."""
    import psycopg

    from ops.embedded import _pg_bin, _socket_dir, free_port, init_postgres, spawn

    pgdata, logs = base / "pgdata", base / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    user = init_postgres(pgdata)
    (pgdata / "pg_hba.conf").write_text(HBA)
    sock, port = _socket_dir(pgdata, user), free_port()
    child = spawn("postgres-external", [str(_pg_bin() / "postgres"), "-D", str(pgdata), "-k", str(sock),
                                        "-h", "127.0.0.1", "-p", str(port), "-c", "max_connections=200",
                                        "-c", "password_encryption=scram-sha-256"],
                  logs, user=user, stop_signal=signal.SIGINT)
    admin = f"postgresql://postgres@/postgres?host={sock}&port={port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            conn = psycopg.connect(admin, autocommit=True, connect_timeout=2)
            break
        except psycopg.OperationalError:
            if not child.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the external PostgreSQL did not start; see {child.log}")
            time.sleep(0.2)
    password = secrets.token_urlsafe(18)
    with conn:
        from psycopg import sql

        conn.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEDB PASSWORD {}").format(
            sql.Identifier(APP_ROLE), sql.Literal(password)))
        conn.execute(sql.SQL("CREATE DATABASE rapport OWNER {}").format(sql.Identifier(APP_ROLE)))
    for database in ("template1", "rapport"):  # what the administrator does: the role cannot
        with psycopg.connect(admin.replace("/postgres?", f"/{database}?"), autocommit=True) as c:
            c.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
    # a query string, as the embedded URL has: tests that make a database of their own replace "/rapport?"
    return child, f"postgresql://{APP_ROLE}:{password}@127.0.0.1:{port}/rapport?sslmode=disable"


def is_superuser(url: str) -> bool:
    import psycopg

    with psycopg.connect(url) as c:
        return c.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0]

