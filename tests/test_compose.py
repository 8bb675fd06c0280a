"""docker-compose.kafka.yml checked against the code, since `docker compose config` needs a Docker engine
that the build machines lack: every image, command, environment variable and healthcheck."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.kafka.yml"
APP_SERVICES = ("api", "worker", "webhooks")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())  # resolves the x-rapport-* anchors and `<<` merges


def source_text() -> str:
    return "\n".join(p.read_text() for d in ("agents", "ops", "projections", "streams", "domain", "schemas")
                     for p in (ROOT / d).rglob("*.py"))


def interpolate(value: str) -> str:
    """Compose's ${VAR:-default} with nothing set, and $$ -> $ (what a bare `docker compose up` runs)."""
    value = re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", str(value))
    return value.replace("$$", "$")


def test_images_and_the_kafka_version_ci_tests(compose):
    from ops.kafka_cluster import KAFKA_VERSION

    services = compose["services"]
    assert set(services) == {"kafka", "postgres", "redis", *APP_SERVICES}
    # the broker compose runs is the Apache Kafka release the test suite runs its cluster tests on
    assert services["kafka"]["image"] == f"apache/kafka:{KAFKA_VERSION}"
    assert services["postgres"]["image"].startswith("pgvector/pgvector:pg")
    assert services["redis"]["image"].startswith("redis:")
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["rapport"]' in dockerfile
    for name in APP_SERVICES:
        svc = services[name]
        assert svc["image"] == "rapport:local" and svc["build"]["dockerfile"] == "Dockerfile"
        assert svc["depends_on"]["kafka"]["condition"] == "service_healthy"
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy"


def command_of(svc: dict) -> list[str]:
    """The rapport CLI arguments a service runs (the image's entrypoint is `rapport`)."""
    if "entrypoint" in svc:
        script = interpolate(svc["entrypoint"][-1])
        m = re.search(r"exec rapport (.+)$", script)
        assert m, script
        return shlex.split(m.group(1))
    return [interpolate(a) for a in svc["command"]]


def test_every_app_command_is_a_real_cli_command(compose):
    from click.testing import CliRunner

    from ops.cli import main

    expected = {"api": ["api"], "worker": ["worker"], "webhooks": ["webhooks-worker"]}
    for name in APP_SERVICES:
        args = command_of(compose["services"][name])
        assert args == expected[name], (name, args)
        r = CliRunner().invoke(main, [*args, "--help"])
        assert r.exit_code == 0, (name, r.output)


def test_every_environment_variable_is_one_the_code_reads(compose):
    src = source_text()
    for name in APP_SERVICES:
        env = compose["services"][name]["environment"]
        for var in env:
            assert re.search(rf"\b{var}\b", src), f"{name}: {var} is read nowhere in the code"
        assert "RAPPORT_BROKER_EPOCH" not in env  # the workers read the cluster id (issue 22)


def test_environment_values_point_at_the_services(compose):
    from streams.config import Settings, bootstrap_servers

    services = compose["services"]
    env = {k: interpolate(v) for k, v in services["worker"]["environment"].items()}
    kafka = {k: interpolate(v) for k, v in services["kafka"]["environment"].items()}
    assert bootstrap_servers(env["RAPPORT_KAFKA_URL"]) == "kafka:9092"
    assert "PLAINTEXT://kafka:9092" in kafka["KAFKA_ADVERTISED_LISTENERS"]
    pg = services["postgres"]["environment"]
    assert env["RAPPORT_DATABASE_URL"] == (f"postgresql://{pg['POSTGRES_USER']}:{interpolate(pg['POSTGRES_PASSWORD'])}"
                                           f"@postgres:5432/{pg['POSTGRES_DB']}")
    assert env["RAPPORT_REDIS_URL"] == "redis://redis:6379/0"
    d = Settings()
    for var, default in (("RAPPORT_INTERACTIONS_TOPIC", d.interactions_topic),
                         ("RAPPORT_MEMORY_EVENTS_TOPIC", d.memory_events_topic),
                         ("RAPPORT_TRIGGERS_TOPIC", d.triggers_topic),
                         ("RAPPORT_DEAD_LETTER_TOPIC", d.dead_letter_topic),
                         ("RAPPORT_PARTITIONS", str(d.partitions)),
                         # the interactions topic's retention is the code's (README: 6 h, 128 MiB)
                         ("RAPPORT_TOPIC_RETENTION_MS", str(6 * 3600 * 1000)),
                         ("RAPPORT_TOPIC_RETENTION_BYTES", str(128 * 1024 * 1024))):
        assert env[var] == default, var
    assert d.topic_retention_ms == 6 * 3600 * 1000 and d.topic_retention_bytes == 128 * 1024 * 1024
    # nothing in the file sets topic retention behind the code's back (the old kafka-init kept it forever)
    assert "retention.ms" not in COMPOSE.read_text()
    assert kafka["KAFKA_AUTO_CREATE_TOPICS_ENABLE"] == "false"  # rapport creates its topics itself
    assert kafka["KAFKA_NODE_ID"] in (1, "1") and kafka["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert len(interpolate(kafka["CLUSTER_ID"])) == 22  # a Kafka Uuid, base64 of 16 bytes
    api = {k: interpolate(v) for k, v in services["api"]["environment"].items()}
    assert api["RAPPORT_HTTP_HOST"] == "0.0.0.0"  # reachable from the published port
    assert interpolate(services["api"]["ports"][0]) == f"8080:{api['RAPPORT_HTTP_PORT']}"


def test_healthchecks_ask_what_the_code_answers(compose):
    from projections.api import app
    from schemas.cachekeys import worker_key

    services = compose["services"]
    api_check = " ".join(services["api"]["healthcheck"]["test"])
    port = interpolate(services["api"]["environment"]["RAPPORT_HTTP_PORT"])
    assert f"http://127.0.0.1:{port}/healthz" in api_check
    assert "/healthz" in {getattr(r, "path", None) for r in app.routes}

    worker_check = services["worker"]["healthcheck"]["test"]
    assert worker_check[:3] == ["CMD", "python", "-c"]
    compile(worker_check[3], "worker-healthcheck", "exec")  # valid Python
    prefix = re.search(r"'(rapport:[a-z]+:)' \+ wid", worker_check[3]).group(1)
    container_id = "3f2a9c1b7d4e"  # a container hostname
    assert prefix + container_id == worker_key(container_id)
    # the id it checks is the id the worker registers under (the entrypoint exports the hostname)
    assert "RAPPORT_WORKER_ID" in services["worker"]["entrypoint"][-1]

    pg = services["postgres"]
    check = interpolate(" ".join(pg["healthcheck"]["test"]))
    assert f"-U {pg['environment']['POSTGRES_USER']} -d {pg['environment']['POSTGRES_DB']}" in check
    assert "kafka-broker-api-versions.sh --bootstrap-server localhost:9092" in " ".join(
        services["kafka"]["healthcheck"]["test"])
    assert "redis-cli ping" in " ".join(services["redis"]["healthcheck"]["test"])


def test_the_migrations_put_pgvector_in_public():
    sql = (ROOT / "streams" / "migrations" / "meta" / "0001_ledger.sql").read_text()
    assert "CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;" in sql
