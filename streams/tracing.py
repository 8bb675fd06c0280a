"""OpenTelemetry spans for the pipeline's shells, and the W3C trace context carried in Kafka record headers.

One event's trace: `POST /ingest` (the API) -> `publish rapport.interactions` (the producer; every record
it sends carries its context as a `traceparent` header) -> in a worker, `process InteractionRecorded`,
a child of that context, linked to the batch span `process rapport.interactions` that applied it (a
batch holds many events of many traces, so the batch span links to each of them) -> the batch's
`rapport.projection.transaction` and `rapport.projection.write`. `GET /context?after=ID` links to the
trace of the `POST /ingest` that accepted ID when this API process accepted it.

Only the shells use this (the API, the publisher, the Faust agent, the pipeline's transaction, the
projector); agents/core never does. Tracing is off unless a process set up a TracerProvider
(ops/telemetry.py): until then every span is the API's non-recording span, and the per-record work
(reading headers, per-event spans) is skipped by checking `is_recording()` once per batch.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cachetools import LRUCache
from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode

tracer = trace.get_tracer("rapport")

Headers = Iterable[tuple[str, Any]] | Mapping[str, Any] | None


def record_headers() -> list[tuple[str, bytes]] | None:
    """The current span's context as Kafka record headers (W3C `traceparent`, `tracestate`), or None
    when no span is recording (tracing off: records go out as before, without headers)."""
    if not trace.get_current_span().is_recording():
        return None
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return [(k, v.encode()) for k, v in carrier.items()] or None


def context_from_headers(headers: Headers) -> Context | None:
    """The trace context a producer put in a record's headers; None when it put none."""
    if not headers:
        return None
    items = headers.items() if isinstance(headers, Mapping) else headers
    carrier = {k: v.decode("latin-1") if isinstance(v, bytes) else str(v) for k, v in items
               if k in ("traceparent", "tracestate")}
    return propagate.extract(carrier) if "traceparent" in carrier else None


def span_context(ctx: Context | None) -> SpanContext | None:
    sc = trace.get_current_span(ctx).get_span_context() if ctx is not None else None
    return sc if sc is not None and sc.is_valid else None


def consumed(batch: trace.Span, items: list[tuple[Context | None, str, dict[str, Any]]], start_ns: int) -> None:
    """After a batch: the batch span links to every producer context its records carried, and each
    record with one gets a span in that producer's trace (`process <event type>`, from the batch's
    start to now, linked back to the batch span). `items`: (producer context, outcome, attributes) per
    record; outcome is "applied", "skipped" or "dead_letter" (an error status). The SDK keeps a span's
    first 128 links (OTEL_SPAN_LINK_COUNT_LIMIT); the per-record spans link back whatever the count."""
    batch_ctx = batch.get_span_context()
    linked: set[tuple[int, int]] = set()
    for ctx, outcome, attributes in items:
        sc = span_context(ctx)
        if sc is None:
            continue
        if (sc.trace_id, sc.span_id) not in linked:
            linked.add((sc.trace_id, sc.span_id))
            batch.add_link(sc)
        span = tracer.start_span(f"process {attributes.get('rapport.event_type') or 'record'}", context=ctx,
                                 kind=SpanKind.CONSUMER, links=[Link(batch_ctx)], start_time=start_ns,
                                 attributes={**attributes, "rapport.outcome": outcome})
        if outcome == "dead_letter":
            span.set_status(Status(StatusCode.ERROR, "dead-lettered"))
        span.end()


class RecentTraces:
    """Event id -> the span context of the request that accepted it, for the last `size` events this
    process accepted: what `GET /context?after=` links to. Filled only while tracing is on."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self.spans: LRUCache[tuple[str, str], SpanContext] = LRUCache(maxsize=size)

    def remember(self, events: Iterable[tuple[str, str]]) -> None:
        """(tenant id, event id)s accepted under the current span."""
        span = trace.get_current_span()
        if not span.is_recording():
            return
        sc = span.get_span_context()
        for key in events:
            self.spans[key] = sc

    def links(self, tenant_id: str, event_id: str) -> list[Link]:
        sc = self.spans.get((tenant_id, event_id))
        return [Link(sc)] if sc is not None else []
