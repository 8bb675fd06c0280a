"""The migrations as docker-compose.kafka.yml runs them: as a superuser role named `rapport`, whose
default search_path ("$user", public) starts with rapport's own schema."""
from __future__ import annotations

import uuid
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from streams import db

pytestmark = [pytest.mark.pg]


def test_a_role_named_rapport_gets_vector_in_public_and_every_migration(pg_url):
    dbname, pw = f"compose_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    with psycopg.connect(pg_url, autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_roles WHERE rolname='rapport'").fetchone():
            admin.execute(f"CREATE ROLE rapport SUPERUSER LOGIN PASSWORD '{pw}'")
        else:
            admin.execute(f"ALTER ROLE rapport PASSWORD '{pw}'")
        admin.execute(f"CREATE DATABASE {dbname} OWNER rapport")
    parts = urlsplit(pg_url)
    url = urlunsplit(parts._replace(netloc=f"rapport:{pw}@{parts.hostname or ''}", path=f"/{dbname}"))
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("SHOW search_path").fetchone()[0] == '"$user", public'
            db.migrate_meta(conn)
            db.ensure_version(conn, "v1")  # failed with: type "vector" does not exist
            assert conn.execute("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = "
                                "e.extnamespace WHERE e.extname='vector'").fetchone() == ("public",)
            assert conn.execute("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid="
                                "'proj_v1.memories'::regclass AND attname='embedding'").fetchone() == ("vector",)
    finally:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {dbname} WITH (FORCE)")
