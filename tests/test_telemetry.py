"""The per-process telemetry switches (ops/telemetry.py): when tracing is on, and the JSON log lines."""
from __future__ import annotations

import io
import json
import logging

import pytest

from ops import telemetry
from streams import tracing
from tests.helpers import recording_spans


@pytest.mark.parametrize("env, on", [
    ({}, False),                                                            # off by default
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),       # the standard variable
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, True),
    ({"RAPPORT_TRACING": "on"}, True),                                      # the default endpoint
    ({"RAPPORT_TRACING": "off", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, False),
    ({"OTEL_SDK_DISABLED": "true", "RAPPORT_TRACING": "on"}, False),        # the standard kill switch
])
def test_tracing_is_on_only_when_configured(env, on):
    assert telemetry.tracing_wanted(env) is on


def json_lines() -> tuple[logging.Logger, io.StringIO]:
    """A logger writing through the JSON formatter into a buffer."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(telemetry.JsonLogFormatter("api"))
    logger = logging.getLogger("rapport.test-json")
    logger.handlers, logger.propagate = [handler], False
    logger.setLevel(logging.INFO)
    return logger, out


def test_json_lines_carry_the_span_and_never_an_exceptions_message():
    logger, out = json_lines()
    logger.info("plain %d", 1)
    with recording_spans(), tracing.tracer.start_as_current_span("work") as span:
        try:
            raise ValueError("my password is hunter2")  # an exception's message can quote a user's text
        except ValueError:
            logger.exception("step failed")
        sc = span.get_span_context()
    plain, failed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert (plain["message"], plain["level"], plain["logger"], plain["service"]) == \
        ("plain 1", "INFO", "rapport.test-json", "api")
    assert "trace_id" not in plain and "timestamp" in plain
    assert failed["trace_id"] == f"{sc.trace_id:032x}" and failed["span_id"] == f"{sc.span_id:016x}"
    assert failed["exc_info"].startswith("ValueError at test_telemetry.py:")
    assert "hunter2" not in out.getvalue()
