"""One suite, every backend (the shape of eventsourcing's abstract test cases): a module whose tests
must hold on every PostgreSQL rapport supports imports this `pg_url`, and each of its tests runs once on
the embedded server (`rapport up`) and once on an external one set up as an operator's is: TCP, a
password, a role that is not a superuser, pgvector installed by the administrator (tests/pg_external.py).
The brokers have their own: conftest.BACKENDS (the embedded broker, and Apache Kafka when it can run).

    from tests.backends import pg_url  # noqa: F401  (the fixture, parametrised by backend)
"""
from __future__ import annotations

import pytest

PG_BACKENDS = [pytest.param("embedded", id="pg-embedded"), pytest.param("external", id="pg-external")]


@pytest.fixture(scope="module", params=PG_BACKENDS)
def pg_url(request) -> str:
    return request.getfixturevalue(f"{request.param}_pg_url")
