"""Per-process telemetry set-up for `rapport api` and `rapport worker`: OpenTelemetry traces exported by
OTLP (off unless configured) and, as an option, logs as one JSON object per line.

Tracing is on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set or
`RAPPORT_TRACING=on` (then the exporter's default endpoint, http://localhost:4318); `RAPPORT_TRACING=off`
or `OTEL_SDK_DISABLED=true` keeps it off. The exporter, sampler and resource read the standard
`OTEL_*` variables. Off, nothing is installed: the shells' spans (streams/tracing.py) are the API's
no-op spans.

`RAPPORT_LOG_FORMAT=json`: every log record is one JSON object on stderr, with `trace_id`/`span_id`
while a span is recording; an exception is logged as its type and frames (schemas/logsafe.py), never
its message, which can quote a user's text.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

from schemas import logsafe

ON = ("on", "1", "true", "yes")
OFF = ("off", "0", "false", "no")


def tracing_wanted(env: Mapping[str, str]) -> bool:
    flag = env.get("RAPPORT_TRACING", "").lower()
    if flag in OFF or env.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    return flag in ON or bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def configure_tracing(service: str, env: Mapping[str, str] = os.environ) -> Any:
    """Install a TracerProvider exporting by OTLP/HTTP when tracing is wanted; returns it, or None when
    tracing stays off. `service`: "api" or "worker" (the service.name is rapport-<service> unless
    OTEL_SERVICE_NAME says otherwise)."""
    if not tracing_wanted(env):
        return None
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    attributes = {"service.instance.id": env.get("RAPPORT_WORKER_ID") or f"{service}-{os.getpid()}"}
    if not env.get("OTEL_SERVICE_NAME"):  # the standard variable wins
        attributes["service.name"] = f"rapport-{service}"
    provider = TracerProvider(resource=Resource.create(attributes))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))  # flushed at exit (atexit)
    trace.set_tracer_provider(provider)
    return provider


def json_logs(env: Mapping[str, str] = os.environ) -> bool:
    return env.get("RAPPORT_LOG_FORMAT", "text").lower() == "json"


class JsonLogFormatter(JsonFormatter):
    """One JSON object per record: timestamp, level, logger, message, service, and trace_id/span_id of
    the recording span, if any. Exceptions as type and frames only (schemas/logsafe.where)."""

    def __init__(self, service: str = "rapport") -> None:
        super().__init__("%(levelname)s %(name)s %(message)s", timestamp=True, static_fields={"service": service},
                         rename_fields={"levelname": "level", "name": "logger"},
                         reserved_attrs=[*RESERVED_ATTRS, "color_message", "taskName"])  # uvicorn's colour copy

    def format(self, record: logging.LogRecord) -> str:
        record.exc_text = None  # another formatter's cached traceback text must not leak in
        return super().format(record)

    def formatException(self, ei: Any) -> str:  # noqa: N802 (logging's name)
        return logsafe.where(ei[1]) if ei and ei[1] is not None else ""

    def formatStack(self, stack_info: str) -> str:  # noqa: N802
        return ""

    def add_fields(self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]) -> None:
        super().add_fields(log_data, record, message_dict)
        from opentelemetry import trace

        span = trace.get_current_span()
        if span.is_recording():
            sc = span.get_span_context()
            log_data["trace_id"] = trace.format_trace_id(sc.trace_id)
            log_data["span_id"] = trace.format_span_id(sc.span_id)


def logging_config(service: str, level: str) -> dict[str, Any]:
    """A logging.config.dictConfig for JSON lines on stderr: what uvicorn (log_config=) and Faust
    (app.conf.logging_config) install, so their own loggers write JSON too."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonLogFormatter, "service": service}},
        "handlers": {"json": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "root": {"level": level.upper(), "handlers": ["json"]},
        # uvicorn's and Faust's loggers write through the root's handler, not handlers of their own
        "loggers": {name: {"handlers": [], "propagate": True} for name in ("uvicorn", "uvicorn.error", "uvicorn.access")},
    }
