"""Prometheus metrics of a worker process, exposed on its Faust web page's /metrics (one per worker;
ops/prometheus/alerts.yml and ops/grafana sum over the workers)."""
from __future__ import annotations

import contextvars
import time
from contextlib import contextmanager
from datetime import datetime
from typing import Callable, Iterator

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


STAGE_SECONDS = Counter("rapport_stage_seconds", "Seconds a worker spent in each stage of its batches (open, "
                        "dedup, state, plan, model, fold, project, commit, redis, publish; send: a batch's sends, "
                        "in the background while the next batch runs) and its scheduler passes; a nested stage's "
                        "time is its own, not its caller's", ["stage"])
_running: contextvars.ContextVar[tuple[str, float] | None] = contextvars.ContextVar("rapport_stage", default=None)


@contextmanager
def stage(name: str, counter: Counter = STAGE_SECONDS) -> Iterator[None]:
    """Charge the time inside to `name`. Nested in another stage (per asyncio task: a context
    variable), the outer one is paused meanwhile, so the stages of a batch add up to its time once."""
    outer = _running.get()
    now = time.perf_counter()
    if outer is not None:
        counter.labels(outer[0]).inc(now - outer[1])
    token = _running.set((name, now))
    try:
        yield
    finally:
        end = time.perf_counter()
        current = _running.get()  # `name`, or what switch() moved on to inside
        counter.labels(current[0]).inc(end - current[1])  # type: ignore[index]
        _running.reset(token)
        if outer is not None:
            _running.set((outer[0], end))


@contextmanager
def background(name: str, counter: Counter = STAGE_SECONDS) -> Iterator[None]:
    """A stage run in a task of its own beside the batches (a batch's sends while the next one is
    processed): it pauses no stage of the task that started it, so with it the stages add up to more
    than the wall time by what ran at the same time."""
    token = _running.set(None)
    try:
        with stage(name, counter):
            yield
    finally:
        _running.reset(token)


def switch(name: str, counter: Counter = STAGE_SECONDS) -> None:
    """Inside a stage(): the time from now on is `name`'s (a batch's steps in order, without nesting
    each in a block). Outside one: nothing."""
    current = _running.get()
    if current is None:
        return
    now = time.perf_counter()
    counter.labels(current[0]).inc(now - current[1])
    _running.set((name, now))


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
