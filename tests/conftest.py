"""Shared fixtures: a real (embedded) PostgreSQL for projection tests, one fresh projection version
per test, and the local embedder loaded once."""
from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("RAPPORT_LOG_LEVEL", "warn")


@pytest.fixture(scope="session")
def pg_url(embedded_pg_url: str) -> str:
    """The PostgreSQL of the tests that run on one backend. A module whose tests must hold on every
    backend imports `pg_url` from tests/backends.py instead, which runs each of its tests on each."""
    return embedded_pg_url


def _postgres(env_var: str, start: Callable[[], tuple[Any, str]]) -> Iterator[str]:
    """The URL in $`env_var` if set; else a PostgreSQL `start()`ed for the run, stopped after it."""
    external = os.environ.get(env_var)
    if external:
        yield external
        return
    child, url = start()
    try:
        yield url
    finally:
        child.stop(timeout=20)


@pytest.fixture(scope="session")
def external_pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL set up as an operator's is (tests/pg_external.py), or $RAPPORT_TEST_EXTERNAL_DATABASE_URL."""
    def start() -> tuple[Any, str]:
        from tests.pg_external import start_external_postgres

        return start_external_postgres(tmp_path_factory.mktemp("pg-external"))

    yield from _postgres("RAPPORT_TEST_EXTERNAL_DATABASE_URL", start)


@pytest.fixture(scope="session")
def embedded_pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An embedded PostgreSQL 18 + pgvector for the whole run (or $RAPPORT_TEST_DATABASE_URL)."""
    def start() -> tuple[Any, str]:
        from ops.embedded import start_postgres

        base = tmp_path_factory.mktemp("pg")
        (base / "logs").mkdir()
        return start_postgres(base / "pgdata", base / "logs")

    yield from _postgres("RAPPORT_TEST_DATABASE_URL", start)


@pytest.fixture
def version(pg_url: str) -> str:
    """A fresh projection version (its own schema) for one test."""
    import psycopg

    from streams import db

    v = "t" + uuid.uuid4().hex[:10]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        db.migrate_meta(conn)
        db.ensure_version(conn, v, activate_if_none=False, status="building")
        # erasure tombstones are per tenant, not per version: one test's erasure of tenant default's "s1"
        # would make another test's "s1" a duplicate in its fresh version
        conn.execute("DELETE FROM rapport.erased_events")
    return v


@pytest.fixture(scope="session")
def embedder():
    from domain.embedder import MiniLMEmbedder

    return MiniLMEmbedder()


@pytest.fixture(scope="session")
def kafka_cluster():
    """A 3-broker Apache Kafka cluster (KRaft) on loopback for the whole run (ops/kafka_cluster.py), its
    jars fetched with Maven on first use; skipped, with one line saying why, without Java or Maven.
    RAPPORT_TEST_KAFKA_URL uses a running cluster instead."""
    from ops.kafka_cluster import KafkaCluster, Unavailable, missing_tools

    external = os.environ.get("RAPPORT_TEST_KAFKA_URL")
    if external:
        yield external
        return
    if (problem := missing_tools()) is not None:
        pytest.skip(problem)
    try:
        cluster = KafkaCluster(size=3).start()
    except Unavailable as e:
        pytest.skip(str(e))
    try:
        yield cluster
    finally:
        cluster.stop()


BACKENDS = [pytest.param("embedded"), pytest.param("kafka", marks=pytest.mark.kafka)]


def backend_env(request, name: str) -> dict[str, str]:
    """The environment `rapport up` gets for backend `name`: {} for the embedded broker, or the 3-broker
    Apache Kafka cluster with topics and consumer groups of this stack's own."""
    if name == "embedded":
        return {}
    from ops.kafka_cluster import stack_env

    cluster = request.getfixturevalue("kafka_cluster")
    url = cluster if isinstance(cluster, str) else cluster.url
    return stack_env(url, uuid.uuid4().hex[:8])


def stack_per_backend(tmp_path_factory, request, name: str):  # noqa: ANN001, ANN201
    """For a module-scoped `stack` fixture with `params=BACKENDS`: one `rapport up` for the module's tests on
    the backend of request.param, in a data dir of its own under `name`."""
    from tests.stack import running

    with running(tmp_path_factory.mktemp(name) / "data", env=backend_env(request, request.param)) as s:
        yield s


@pytest.fixture
def backend(request) -> dict[str, str]:
    """backend_env for one test. Parametrise with `@pytest.mark.parametrize("backend", BACKENDS,
    indirect=True)`; a module-scoped stack fixture takes `params=BACKENDS` and yields from stack_per_backend,
    so a module starts one stack per backend."""
    return backend_env(request, request.param)


def pytest_collection_modifyitems(config, items):
    """Without Java or Maven the `kafka` tests are not run, and the summary says so in one line."""
    from ops.kafka_cluster import missing_tools

    if os.environ.get("RAPPORT_TEST_KAFKA_URL") or (problem := missing_tools()) is None:
        return
    kafka = [i for i in items if i.get_closest_marker("kafka")]
    if kafka:
        items[:] = [i for i in items if not i.get_closest_marker("kafka")]
        config.hook.pytest_deselected(items=kafka)
        config._rapport_kafka_skipped = f"SKIPPED {len(kafka)} tests marked kafka: {problem}"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    line = getattr(config, "_rapport_kafka_skipped", None)
    if line:
        terminalreporter.write_line(line)
