"""`rapport up` with tracing and JSON logs on, as an operator configures them: the standard
OTEL_EXPORTER_OTLP_ENDPOINT names a collector (here a stub that decodes the OTLP/HTTP protobuf posts),
RAPPORT_LOG_FORMAT=json. One event's trace crosses the real broker from the API process into a worker
process; every process writes JSON lines; each worker's /metrics (listed for Prometheus in
prometheus-targets.json) counts what it processed."""
from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from ops.embedded import free_port
from streams.config import bootstrap_servers
from tests.conftest import BACKENDS
from tests.stack import RunningStack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

CALLER_TRACE = uuid.uuid4().hex
CALLER = f"00-{CALLER_TRACE}-00f067aa0ba902b7-01"


class Collector:
    """An OTLP/HTTP trace receiver on loopback: every span it is sent, as a dict."""

    def __init__(self) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (ExportTraceServiceRequest,
                                                                              ExportTraceServiceResponse)
        self.spans: list[dict] = []
        self.port = free_port()
        spans = self.spans

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                req = ExportTraceServiceRequest.FromString(body)
                for rs in req.resource_spans:
                    service = {a.key: a.value.string_value for a in rs.resource.attributes}["service.name"]
                    for ss in rs.scope_spans:
                        for s in ss.spans:
                            spans.append({"service": service, "name": s.name, "trace": s.trace_id.hex(),
                                          "span": s.span_id.hex(), "parent": s.parent_span_id.hex(),
                                          "links": [(link.trace_id.hex(), link.span_id.hex()) for link in s.links],
                                          "attributes": {a.key: a.value.string_value or a.value.int_value
                                                         for a in s.attributes}})
                out = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args) -> None:  # noqa: ANN002
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, predicate, timeout: float = 30) -> list[dict]:  # noqa: ANN001
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [s for s in list(self.spans) if predicate(s)]
            if found:
                return found
            time.sleep(0.2)
        raise AssertionError(f"no such span among {[(s['service'], s['name']) for s in self.spans]}")


async def publish_with_headers(kafka_url: str, topic: str, key: bytes, value: bytes, headers: list) -> None:
    from aiokafka import AIOKafkaProducer

    p = AIOKafkaProducer(bootstrap_servers=bootstrap_servers(kafka_url))
    await p.start()
    try:
        await p.send_and_wait(topic, key=key, value=value, headers=headers)
    finally:
        await p.stop()


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_trace_crosses_the_broker_into_a_worker_and_every_process_logs_json(tmp_path, monkeypatch, backend):
    collector = Collector()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{collector.port}")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "200")  # export within 0.2 s instead of 5 s
    monkeypatch.setenv("RAPPORT_LOG_FORMAT", "json")
    monkeypatch.setenv("RAPPORT_LOG_LEVEL", "info")
    stack = RunningStack(tmp_path / "data", api_processes=2, env=backend)
    interactions = stack.topic("interactions")
    stack.start()
    try:
        with stack.client() as c:
            r = c.post("/ingest", headers={"traceparent": CALLER}, json={
                "contact_id": "ines", "role": "user", "event_id": "tr-1", "message": "I adopted a cat called Miso"})
            assert r.status_code == 202, r.text
            assert c.get("/context/ines", params={"after": "tr-1"}).status_code == 200
            # a poison record with a trace context: the worker's dead-letter warning is logged inside its batch
            asyncio.run(publish_with_headers(stack.run_info["kafka_url"], interactions, b"default/ines", b"\x00poison",
                                             [("traceparent", CALLER.encode())]))
            (publish,) = collector.wait(lambda s: s["name"] == f"publish {interactions}"
                                        and s["trace"] == CALLER_TRACE)
            (post,) = collector.wait(lambda s: s["name"] == "POST /ingest" and s["trace"] == CALLER_TRACE)
            assert publish["service"] == post["service"] == "rapport-api" and publish["parent"] == post["span"]
            # in the worker process: the event's span continues the caller's trace under the producer span
            (applied,) = collector.wait(lambda s: s["name"] == "process InteractionRecorded"
                                        and s["attributes"].get("rapport.event_id") == "tr-1")
            assert applied["service"] == "rapport-worker"
            assert (applied["trace"], applied["parent"]) == (CALLER_TRACE, publish["span"])
            assert applied["attributes"]["rapport.outcome"] == "applied"
            (batch_id,) = [span for _, span in applied["links"]]
            (batch,) = collector.wait(lambda s: s["span"] == batch_id)
            assert batch["name"] == f"process {interactions}" and (CALLER_TRACE, publish["span"]) in batch["links"]
            (tx,) = collector.wait(lambda s: s["name"] == "rapport.projection.transaction" and s["parent"] == batch_id)
            collector.wait(lambda s: s["name"] == "rapport.projection.write" and s["parent"] == tx["span"])
            (after,) = collector.wait(lambda s: s["name"] == "rapport.context.after")
            assert after["links"] == [(CALLER_TRACE, post["span"])]
            collector.wait(lambda s: s["name"] == "process record" and s["attributes"]["rapport.outcome"] == "dead_letter")

            # every process's /metrics, as Prometheus finds them (file_sd)
            targets = json.loads((stack.data_dir / "prometheus-targets.json").read_text())
            jobs = {t["labels"]["process"]: (t["labels"]["job"], t["targets"][0]) for t in targets}
            # two API processes share the HTTP port (SO_REUSEPORT); each has a /metrics port of its own
            api_targets = [t for job, t in jobs.values() if job == "rapport-api"]
            assert {p for p, (job, _) in jobs.items() if job == "rapport-api"} == {"api", "api-1"}
            assert f"127.0.0.1:{stack.port}" not in api_targets and jobs["worker-0"][0] == "rapport-worker"
            worker_metrics = httpx.get(f"http://{jobs['worker-0'][1]}/metrics").text
            assert 'rapport_events_total{outcome="applied"}' in worker_metrics
            assert "rapport_freshness_seconds_count 1.0" in worker_metrics
            assert 'rapport_events_total{outcome="dead_letter"} 1.0' in worker_metrics
            assert 'rapport_consumer_lag{partition="' in worker_metrics
            ingested = 'rapport_ingested_total{event_type="InteractionRecorded",result="new"} 1.0'
            assert sum(ingested in httpx.get(f"http://{t}/metrics").text for t in api_targets) == 1  # one took it
    finally:
        code, _, _ = stack.stop()
    assert code == 0
    for name in ("api", "worker-0"):
        lines = [line for line in (stack.data_dir / "logs" / f"{name}.log").read_text().splitlines() if line.strip()]
        records = [json.loads(line) for line in lines]  # every line is one JSON object
        assert records and all({"timestamp", "level", "logger", "message"} <= set(r) for r in records), name
        assert "Miso" not in "\n".join(lines)
    worker = [json.loads(line) for line in (stack.data_dir / "logs" / "worker-0.log").read_text().splitlines()
              if line.strip()]
    (dead,) = [r for r in worker if r["message"].startswith("dead letter")]
    assert dead["trace_id"] and dead["service"] == "worker"
