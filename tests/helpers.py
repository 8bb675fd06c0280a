"""Builders shared by tests."""
from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

import pytest

from agents.pipeline import Record
from schemas import events as ev
from schemas.envelope import encode, format_time

T0 = datetime(2026, 4, 3, 21, 0, tzinfo=timezone(timedelta(hours=5, minutes=30)))


def interaction(event_id: str, message: str, *, contact: str = "arjun", tenant: str = "default", role: str = "user",
                at: datetime | None = None, minutes: float = 0, **optional):
    t = format_time((at or T0) + timedelta(minutes=minutes))
    return ev.interaction(event_id=event_id, tenant_id=tenant, contact_id=contact, occurred_at=t, recorded_at=t,
                          role=role, message=message, **optional)


def crisis_triggers(text: str, vector) -> list[dict]:  # noqa: ANN001
    """The crisis triggers one message makes through the real fold (with its vector), for a new contact."""
    from agents.core import contact as core

    s = core.new_state("t", "c")
    e = interaction("m1", text, tenant="t", contact="c")
    _, out = core.apply_interaction(s, e, core.plan_memories(e), message_vector=vector)
    return [d.payload["trigger"] for d in out
            if d.event_type == ev.TRIGGER_CREATED and d.payload["trigger"]["kind"] == "crisis"]


def crisis_set_texts() -> set[str]:
    """Every text of the shipped crisis set (train and held-out parts), lower-cased."""
    import json

    from agents.core import crisis_model

    with open(crisis_model.MODEL_PATH.parent / "crisis_set.jsonl") as f:
        return {json.loads(line)["text"].lower() for line in f if line.strip()}


@pytest.fixture(scope="module")
def crisis_vectors(embedder, request) -> dict:  # noqa: ANN001
    """A fixture for a crisis test module (import it there): each message of its LEVELS and HARD_NEGATIVES ->
    its real vector."""
    import numpy as np

    texts = crisis_file_texts(request.module.LEVELS, request.module.HARD_NEGATIVES)
    return dict(zip(texts, embedder.embed(texts).astype(np.float32)))


def crisis_file_texts(levels: list[tuple], hard_negatives: dict[str, str]) -> list[str]:
    """The messages of a crisis test file: its LEVELS' (text first in each row), then its HARD_NEGATIVES'."""
    return [t for t, *_ in levels] + list(hard_negatives.values())


def crisis_set_overlap(levels: list[tuple], hard_negatives: dict[str, str]) -> list[str]:
    """The messages of a crisis test file that the shipped crisis set holds (lower-cased): none, for a test of
    the rules on messages they were not written from."""
    known = crisis_set_texts()
    return [t for t in crisis_file_texts(levels, hard_negatives) if t.lower() in known]


def crisis_level_trigger(text: str, vector, level: str, severity: str, category: str) -> dict:  # noqa: ANN001
    """The one crisis trigger `text` makes through the fold, checked to be of `level` with its severity and
    category, for human review, with a cue of the message's own words that its reason names."""
    [t] = crisis_triggers(text, vector)
    assert (t["level"], t["severity"], t["category"]) == (level, severity, category), t
    assert t["humanReview"] is True and t["cue"] and t["cue"] in text
    assert t["reason"].startswith(f'crisis language ({category}, {level.replace("_", " ")}): "{t["cue"]}"')
    return t


def records(envs, topic: str = "rapport.interactions", partition: int = 0, start_offset: int = 0) -> list[Record]:
    return [Record(encode(e), topic, partition, start_offset + i) for i, e in enumerate(envs)]


class FakeEmbedder:
    """Deterministic 8-d vectors from the text's hash: for tests that do not judge similarity
    (unrelated texts are far apart, so the embedding dedup layer never merges them)."""
    model_name = "fake-8"
    dim = 8

    def embed(self, texts):
        import hashlib

        import numpy as np

        out = np.zeros((len(texts), 8), dtype=np.float32)
        for i, t in enumerate(texts):
            h = hashlib.sha256(t.encode()).digest()
            # centred: unrelated texts are near-orthogonal, as with a real model
            v = np.frombuffer(h[:32], dtype=np.uint8)[:8].astype(np.float32) - 127.5
            out[i] = v / np.linalg.norm(v)
        return out


async def api_in_process(database_url: str, settings=None, **service):  # noqa: ANN001, ANN201
    """An API app of its own (projections/api.create_app) whose service is wired to a real PostgreSQL,
    keyless (tests/test_edge_api covers the keys), with the local stand-ins a test names (`publisher=`,
    `redis=`, `broker_ok=`, ...) and its `settings` (projections/service.ApiSettings) if given; returns
    (app, pool): requests go through httpx.ASGITransport(app=app); close the pool. The service is bound
    for the calling task too (projections/deps.CURRENT), for a test that calls a handler's helper."""
    import dataclasses

    from projections import api, deps
    from streams import db
    from projections.service import AnsweringPool, ApiSettings, Service
    from projections.store import Store
    from streams.config import settings as shared

    pool = AnsweringPool(database_url, min_size=1, max_size=4, open=False, configure=db.configure_pool_conn,
                               kwargs={"autocommit": True})
    await pool.open(wait=True)
    settings = settings if settings is not None else ApiSettings.from_env(base=shared())
    settings = dataclasses.replace(settings, base=dataclasses.replace(settings.base, auth=False))
    svc = Service(settings)
    for name, value in {"pool": pool, "store": Store(pool), "embedder": FakeEmbedder(), **service}.items():
        setattr(svc, name, value)
    deps.CURRENT.set(svc)
    return api.create_app(settings, deps=svc), pool


class _Switch:
    """A sampler the tests turn on and off: the process can install a TracerProvider only once."""
    on = False

    def should_sample(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON

        return (ALWAYS_ON if self.on else ALWAYS_OFF).should_sample(*args, **kwargs)

    def get_description(self) -> str:
        return "tests.helpers switch"


_SWITCH = _Switch()
_EXPORTER = None


@contextmanager
def recording_spans():  # noqa: ANN201
    """Tracing on, into an in-memory exporter (yielded), for the block; off again afterwards (spans are
    then dropped at the sampler, as with no provider: `is_recording()` is False)."""
    global _EXPORTER
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    if _EXPORTER is None:
        _EXPORTER = InMemorySpanExporter()
        provider = TracerProvider(sampler=_SWITCH)
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        trace.set_tracer_provider(provider)
    _EXPORTER.clear()
    _SWITCH.on = True
    try:
        yield _EXPORTER
    finally:
        _SWITCH.on = False
        _EXPORTER.clear()


class Receiver:
    """A local HTTP endpoint for webhook tests, in a thread: records every request (headers, body) and
    answers with `statuses` in turn (the last one from then on)."""

    def __init__(self, statuses=(200,), headers: dict | None = None):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.statuses, self.extra_headers = list(statuses), headers or {}
        self.requests: list[tuple[dict, bytes]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with receiver.lock:
                    receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    status = receiver.statuses[min(len(receiver.requests), len(receiver.statuses)) - 1]
                self.send_response(status)
                for k, v in receiver.extra_headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
