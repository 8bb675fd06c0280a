"""Faust agents and timers: thin shells, each a call into the worker of this process (agents/worker.py,
built by its composition root `build_worker(settings)`).

Run with `rapport worker` (ops/cli.py), which installs the worker built from the environment (`use`)
and imports this module so the agents register on the app. A test installs the worker it built.
"""
from __future__ import annotations

from agents import metrics
from agents.worker import Topics, Worker, build_worker, epoch_of  # noqa: F401  (epoch_of: the worker's, re-exported)
from streams.app import app, dead_letter_topic, interactions_topic, memory_events_topic, triggers_topic
from streams.config import Settings, settings
from streams.resilience import survive

_worker: Worker | None = None

OUTBOX_RELAY_EVERY_S = 15.0
SCHEDULE_EVERY_S = 5.0


def topics() -> Topics:
    """The app's topics, where a worker of this process sends."""
    return Topics(interactions=interactions_topic, memory_events=memory_events_topic, triggers=triggers_topic,
                  dead_letter=dead_letter_topic)


def live_worker(s: Settings) -> Worker:
    """The worker `rapport worker` runs: built from its settings, sending to the app's topics, reading
    the app's consumer (assignment, high water marks)."""
    return build_worker(s, topics(), consumer=lambda: app.consumer)


def use(worker: Worker | None) -> Worker | None:
    """Install the worker the agents and timers call (None: build one from the environment on first
    use); returns the one it replaces."""
    global _worker
    previous, _worker = _worker, worker
    return previous


def worker() -> Worker:
    global _worker
    if _worker is None:
        _worker = live_worker(settings())
    return _worker


@app.on_partitions_revoked.connect
async def _on_revoked(app_, revoked, **kwargs) -> None:  # noqa: ANN001
    if _worker is not None:
        _worker.forget_cache()
    metrics.forget_partitions(revoked)  # another worker reports their lag now


@app.agent(interactions_topic)
async def process_interactions(stream):  # noqa: ANN001
    await worker().consume(stream)


@app.timer(interval=OUTBOX_RELAY_EVERY_S, on_leader=True)
@survive("outbox relay")
async def relay_outbox() -> None:
    """Derived events committed by a worker that died before sending them go out now (at least once)."""
    await worker().relay_outbox()


if settings().web_port:
    from faust.sensors.prometheus import setup_prometheus_sensors

    setup_prometheus_sensors(app)  # Faust's own sensor: lag, commit latency, events/s per topic


@app.timer(interval=SCHEDULE_EVERY_S, on_leader=True)
@survive("scheduler")
async def schedule_due_work() -> None:
    """Wall-clock time reaching a contact's due work becomes a ContactTick on the contact's partition
    (agents/scheduler.py). A failing pass (database restarting, a broker hiccup) is logged; the next one
    runs 5 s later."""
    await worker().schedule_due_work()


@app.timer(interval=5.0)
@survive("heartbeat")
async def heartbeat() -> None:
    """Tell /healthz this worker is up (a key that expires if the worker dies)."""
    await worker().heartbeat()
