"""The embedded PostgreSQL asks for a password and keeps its socket to its owner (issue 11, item 7)."""
from __future__ import annotations

import os
import stat
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from ops.embedded import password_file

pytestmark = pytest.mark.pg


def test_password_auth_owner_only_socket_dir_and_a_0600_password_file(pg_url):
    if os.environ.get("RAPPORT_TEST_DATABASE_URL"):
        pytest.skip("an external database")
    parts = urlsplit(pg_url)
    sock = dict(p.split("=", 1) for p in parts.query.split("&"))["host"]
    assert parts.password and len(parts.password) >= 24
    assert stat.S_IMODE(os.stat(sock).st_mode) == 0o700
    # the URL's password works; without it, or with a wrong one, the server refuses
    with psycopg.connect(pg_url, connect_timeout=5) as c:
        assert c.execute("SELECT 1").fetchone() == (1,)
        datadir = c.execute("SHOW data_directory").fetchone()[0]
    pw = password_file(Path(datadir))
    assert pw.read_text().strip() == parts.password
    assert stat.S_IMODE(os.stat(pw).st_mode) == 0o600
    for url in (pg_url.replace(f":{parts.password}@", "@"), pg_url.replace(parts.password, "not-the-password")):
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(url, connect_timeout=5).close()
    hba = (Path(datadir) / "pg_hba.conf").read_text()
    assert "trust" not in "\n".join(l for l in hba.splitlines() if not l.startswith("#"))
