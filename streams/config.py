"""Settings, read once from the environment. Every difference between the embedded default and a
real cluster (docker-compose.kafka.yml) is one of these variables; the code paths are the same."""
from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass, field
from functools import lru_cache

from domain.sessions import SESSION_GAP_S


def _env(name: str, default: str | None = None) -> str | None:
    v = os.environ.get(name)
    return v if v not in (None, "") else default


@dataclass(frozen=True)
class Settings:
    kafka_url: str = "kafka://127.0.0.1:9092"
    database_url: str = "postgresql:///rapport"
    redis_url: str = "redis://127.0.0.1:6379/0"
    app_id: str = "rapport"
    partitions: int = 12
    # topic names
    interactions_topic: str = "rapport.interactions"
    memory_events_topic: str = "rapport.memory-events"
    triggers_topic: str = "rapport.triggers"
    dead_letter_topic: str = "rapport.dead-letter"
    # the projection version readers and live workers use unless told otherwise
    projection_version: str | None = None
    # broker identity: the embedded broker is started with a fresh cluster id each time, so offsets
    # recorded under another id are known to be from a different log
    broker_epoch: str | None = None
    # replicas of each rapport topic; None = min(3, the brokers the cluster reports)
    replication_factor: int | None = None
    # broker retention per partition (the ledger is the record; streams/topics.py)
    topic_retention_ms: int = 6 * 3600 * 1000
    topic_retention_bytes: int = 128 * 1024 * 1024
    # processing
    batch_size: int = 256
    batch_window_s: float = 0.05
    # how long a worker's producer waits to fill a request with more records (Kafka 4's default linger.ms):
    # a batch's hundreds of derived events go out in a few produce requests, not one each (0: as soon as any)
    producer_linger_s: float = 0.005
    session_gap_s: int = SESSION_GAP_S
    window_messages: int = 20
    window_ttl_s: int = 24 * 3600
    # embeddings / LLM (OpenAI-compatible, optional)
    embeddings_model: str | None = None
    embeddings_base_url: str | None = None
    embeddings_dim: int | None = None
    query_int8: bool = True  # the local model's int8 graph for /context queries (domain/embedder.query_embedder)
    openai_api_key: str | None = None
    llm_base_url: str | None = None     # any OpenAI-compatible endpoint
    mood_model: str | None = None       # e.g. a haiku-class chat model; unset = offline classifier only
    mood_timeout_s: float = 0.2
    extraction_model: str | None = None  # deferred LLM extraction (seed 003 tool); unset = rules only
    summary_model: str | None = None     # session summaries by a model; unset = extractive
    # API
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    # API keys (projections/auth.py); RAPPORT_AUTH=off is keyless mode: every caller acts as an admin
    auth: bool = True
    worker_id: str = field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}")
    web_port: int = 0  # Faust web (metrics) port for a worker; 0 = disabled
    web_host: str = "127.0.0.1"
    faust_datadir: str = "./.rapport/faust"
    rebalance_timeout_s: float = 10.0
    session_timeout_s: float | None = None  # None: the rebalance timeout
    fetch_max_wait_ms: int = 50
    # the secret the API and workers sign and check broker records with (schemas/recordsig.py):
    # RAPPORT_RECORD_KEY, or the file RAPPORT_RECORD_KEY_FILE (`rapport up`: <data-dir>/record-key)
    record_key: bytes | None = field(default=None, repr=False)
    # which optional kinds of secrets the fold redacts, per tenant (agents/core/redaction.parse_policy):
    # "phone=off; acme: phone=on"; unset: phone numbers, national ids and bank accounts are redacted
    redact: str | None = None

    @staticmethod
    def from_env() -> "Settings":
        d = Settings()
        return Settings(
            kafka_url=_env("RAPPORT_KAFKA_URL", d.kafka_url),
            database_url=_env("RAPPORT_DATABASE_URL", d.database_url),
            redis_url=_env("RAPPORT_REDIS_URL", d.redis_url),
            app_id=_env("RAPPORT_APP_ID", d.app_id),
            partitions=int(_env("RAPPORT_PARTITIONS", str(d.partitions))),
            interactions_topic=_env("RAPPORT_INTERACTIONS_TOPIC", d.interactions_topic),
            memory_events_topic=_env("RAPPORT_MEMORY_EVENTS_TOPIC", d.memory_events_topic),
            triggers_topic=_env("RAPPORT_TRIGGERS_TOPIC", d.triggers_topic),
            dead_letter_topic=_env("RAPPORT_DEAD_LETTER_TOPIC", d.dead_letter_topic),
            projection_version=_env("RAPPORT_PROJECTION_VERSION"),
            broker_epoch=_env("RAPPORT_BROKER_EPOCH"),
            replication_factor=int(_env("RAPPORT_REPLICATION_FACTOR", "0")) or None,
            topic_retention_ms=int(_env("RAPPORT_TOPIC_RETENTION_MS", str(d.topic_retention_ms))),
            topic_retention_bytes=int(_env("RAPPORT_TOPIC_RETENTION_BYTES", str(d.topic_retention_bytes))),
            batch_size=int(_env("RAPPORT_BATCH_SIZE", str(d.batch_size))),
            batch_window_s=float(_env("RAPPORT_BATCH_WINDOW_S", str(d.batch_window_s))),
            producer_linger_s=float(_env("RAPPORT_PRODUCER_LINGER_MS", str(d.producer_linger_s * 1000))) / 1000,
            embeddings_model=_env("RAPPORT_EMBEDDINGS_MODEL"),
            embeddings_base_url=_env("RAPPORT_EMBEDDINGS_BASE_URL"),
            embeddings_dim=int(_env("RAPPORT_EMBEDDINGS_DIM", "0")) or None,
            query_int8=_env("RAPPORT_QUERY_INT8", "on").lower() not in ("off", "0", "false", "no"),
            openai_api_key=_env("OPENAI_API_KEY"),
            llm_base_url=_env("RAPPORT_LLM_BASE_URL"),
            mood_model=_env("RAPPORT_MOOD_MODEL"),
            mood_timeout_s=float(_env("RAPPORT_MOOD_TIMEOUT_S", "0.2")),
            extraction_model=_env("RAPPORT_EXTRACTION_MODEL"),
            summary_model=_env("RAPPORT_SUMMARY_MODEL"),
            http_host=_env("RAPPORT_HTTP_HOST", d.http_host),
            http_port=int(_env("RAPPORT_HTTP_PORT", str(d.http_port))),
            auth=_env("RAPPORT_AUTH", "on").lower() not in ("off", "0", "false", "no"),
            worker_id=_env("RAPPORT_WORKER_ID", f"{socket.gethostname()}-{os.getpid()}"),
            web_host=_env("RAPPORT_WORKER_WEB_HOST", d.web_host),
            web_port=int(_env("RAPPORT_WORKER_WEB_PORT", "0")),
            faust_datadir=_env("RAPPORT_FAUST_DATADIR", d.faust_datadir),
            fetch_max_wait_ms=int(_env("RAPPORT_FETCH_MAX_WAIT_MS", str(d.fetch_max_wait_ms))),
            redact=_env("RAPPORT_REDACT"),
            rebalance_timeout_s=float(_env("RAPPORT_REBALANCE_TIMEOUT_S", str(d.rebalance_timeout_s))),
            record_key=record_key_from_env(),
            session_timeout_s=float(_env("RAPPORT_SESSION_TIMEOUT_S", "0")) or None,
        )

    @property
    def kafka_bootstrap(self) -> str:
        """host:port list for aiokafka (Faust takes the kafka:// form)."""
        return bootstrap_servers(self.kafka_url)


def bootstrap_servers(kafka_url: str) -> str:
    """RAPPORT_KAFKA_URL (`kafka://h:p`, several `;`- or `,`-separated for a cluster) as aiokafka's
    `h1:p1,h2:p2`."""
    parts = [u.strip() for u in kafka_url.replace(",", ";").split(";") if u.strip()]
    return ",".join(u.split("://", 1)[-1].rstrip("/") for u in parts)


def record_key_from_env() -> bytes | None:
    """RAPPORT_RECORD_KEY, else the contents of RAPPORT_RECORD_KEY_FILE, else None."""
    from schemas.recordsig import parse_key

    if (text := _env("RAPPORT_RECORD_KEY")) is not None:
        return parse_key(text, "RAPPORT_RECORD_KEY")
    if (path := _env("RAPPORT_RECORD_KEY_FILE")) is not None:
        with open(path, encoding="utf-8") as f:
            return parse_key(f.read(), path)
    return None


@lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings.from_env()


def loopback(host: str) -> bool:
    """Whether a bind address reaches this machine only (the API's /metrics and the MCP endpoint relax
    their auth there)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"
