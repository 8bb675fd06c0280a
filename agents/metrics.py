"""Prometheus metrics of a worker process, exposed on its Faust web page's /metrics (one per worker;
ops/prometheus/alerts.yml and ops/grafana sum over the workers)."""
from __future__ import annotations

from datetime import datetime
from typing import Callable

from prometheus_client import Counter, Gauge, Histogram

from schemas import events as ev
from schemas.envelope import parse_time

EVENTS = Counter("rapport_events_total", "Source events seen by the interaction pipeline", ["outcome"])
BATCH_SECONDS = Histogram("rapport_batch_seconds", "Time to process and project one batch",
                          buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
CONSUMER_LAG = Gauge("rapport_consumer_lag", "Records behind the end of each partition this worker holds, "
                     "after its last batch from it", ["topic", "partition"])
FRESHNESS = Histogram("rapport_freshness_seconds", "From an interaction's recorded_at (accepted by POST /ingest) "
                      "to the commit of its projection",
                      buckets=(0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800))
TRIGGERS = Counter("rapport_triggers_total", "Triggers committed to the projection, by kind "
                   "(check_in, crisis, owner_insight)", ["kind"])
TRIGGERS_PUBLISHED = Counter("rapport_triggers_published_total", "Triggers sent to the triggers topic, by kind",
                             ["kind"])


def observe_batch(outcome, erased: set, now: datetime) -> None:  # noqa: ANN001
    """A committed batch (agents/pipeline.Outcome): its events by outcome, the freshness of the
    interactions it applied, the triggers it committed (but those of contacts it erased, which are
    never published)."""
    EVENTS.labels("applied").inc(outcome.applied)
    EVENTS.labels("skipped").inc(outcome.skipped)
    EVENTS.labels("dead_letter").inc(len(outcome.dead_letters))
    for e in outcome.sources:
        if e.event_type == ev.INTERACTION_RECORDED:
            FRESHNESS.observe(max(0.0, (now - parse_time(e.recorded_at)).total_seconds()))
    for e in outcome.derived:
        if e.event_type == ev.TRIGGER_CREATED and (e.tenant_id, e.contact_id) not in erased:
            TRIGGERS.labels(e.payload["trigger"]["kind"]).inc()


def trigger_kinds(derived: list) -> dict[str, str]:
    """event id -> trigger kind of the TriggerCreated events among `derived`."""
    return {e.event_id: e.payload["trigger"]["kind"] for e in derived if e.event_type == ev.TRIGGER_CREATED}


def observe_lag(records: list, partition_end: Callable[[str, int], int | None]) -> None:
    """For each partition in the batch: the records after its last one up to the partition's end."""
    last: dict[tuple[str, int], int] = {}
    for r in records:
        if r.partition is not None and r.offset is not None:
            last[(r.topic, r.partition)] = max(r.offset, last.get((r.topic, r.partition), -1))
    for (topic, partition), offset in last.items():
        end = partition_end(topic, partition)
        if end is not None:
            CONSUMER_LAG.labels(topic, str(partition)).set(max(0, end - offset - 1))


def forget_partitions(tps) -> None:  # noqa: ANN001
    """Partitions this worker no longer holds: their lag is another worker's to report."""
    for tp in tps:
        try:
            CONSUMER_LAG.remove(tp.topic, str(tp.partition))
        except KeyError:
            pass
