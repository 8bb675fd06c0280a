"""`rapport bench worker`: one worker's pipeline driven in-process over `rapport bench load`'s events, on
an embedded PostgreSQL of its own, without the API, the broker or the sends. What it prints is what sizing
workers needs and what a shared machine moves least: the CPU seconds per event (the process's: the fold,
the model's threads, the projection's Python), the stage breakdown (agents/metrics.py) and the events
per second of the pipeline alone.

The events are bench load's (ops/bench.py `message`): a contact's events in order, contacts interleaved,
in batches of the worker's size, each batch in one transaction as a live worker commits it.
"""
from __future__ import annotations

import asyncio
import random
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from agents import metrics
from ops.bench import STAGES, message


def events(n: int, contacts: int, distinct: bool = False, seed: int = 7) -> list:
    """bench load's events (two user turns, then an assistant turn, 90 s apart), as envelopes."""
    from schemas import events as ev

    rng = random.Random(seed)
    run = uuid.uuid4().hex[:8]
    per = max(n // contacts, 1)
    out = []
    for i in range(per):
        for c in range(contacts):
            at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_700_000_000 + i * 90 + c))
            out.append(ev.interaction(event_id=f"{run}-{c}-{i}", tenant_id="bench", contact_id=f"bench-{run}-{c}",
                                      occurred_at=at, recorded_at=at, role="user" if i % 3 != 2 else "assistant",
                                      message=message(rng, distinct)))
    return out


def _stage_totals() -> dict[str, float]:
    return {s.labels["stage"]: s.value for m in metrics.STAGE_SECONDS.collect() for s in m.samples
            if s.name.endswith("_total")}


async def run_pipeline(database_url: str, envs: list, embedder: Any, batch: int = 256) -> dict[str, Any]:
    """Every event of `envs` through an InteractionPipeline on a fresh projection version of
    `database_url`, `batch` records at a time: wall and CPU seconds, events/s, stage seconds."""
    import psycopg

    from agents.pipeline import InteractionPipeline, Record
    from streams import db
    from schemas.envelope import encode

    version = "bw" + uuid.uuid4().hex[:8]
    with psycopg.connect(database_url, autocommit=True) as c:
        db.migrate_meta(c)
        db.ensure_version(c, version, activate_if_none=False, status="building")
    conn = await db.connect_async(database_url, schema=db.schema_of(version))
    try:
        p = InteractionPipeline(conn, embedder, broker_epoch="bench", version=version)
        records = [Record(encode(e), "rapport.interactions", i % 4, i) for i, e in enumerate(envs)]
        before, cpu0, t0, derived, dead = _stage_totals(), time.process_time(), time.perf_counter(), 0, 0
        for i in range(0, len(records), batch):
            with metrics.stage("open"):  # as the worker's agent does: the pipeline moves on through the stages
                out = await p.process(records[i:i + batch])
            derived += len(out.derived)
            dead += len(out.dead_letters)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    finally:
        await conn.close()
    after = _stage_totals()
    names = [s for s in STAGES if s in after] + sorted(set(after) - set(STAGES))
    return {"events": len(envs), "derived": derived, "dead_letters": dead, "seconds": round(wall, 2),
            "events_per_s": round(len(envs) / wall, 1), "cpu_seconds": round(cpu, 2),
            "cpu_ms_per_event": round(cpu * 1000 / len(envs), 3),
            "stages": {s: round(after[s] - before.get(s, 0.0), 3) for s in names if after[s] - before.get(s, 0.0) > 0}}


def print_result(r: dict[str, Any]) -> None:
    print(f"events: {r['events']} ({r['derived']} derived, {r['dead_letters']} dead letters)")
    print(f"pipeline alone       {r['events_per_s']:>10} events/s   ({r['seconds']} s)")
    print(f"CPU                  {r['cpu_ms_per_event']:>10} ms/event   ({r['cpu_seconds']} s of the process's CPU)")
    total = sum(r["stages"].values()) or 1.0
    print("time by stage (s, share): " + ", ".join(f"{k} {v:.2f} ({v / total:.0%})" for k, v in r["stages"].items()
                                                    if v >= 0.005))


def main(events_n: int, contacts: int, distinct: bool, batch: int) -> dict[str, Any]:
    from domain.embedder import default_embedder
    from streams.config import settings
    from ops.embedded import start_postgres

    envs = events(events_n, contacts, distinct)
    model = default_embedder(settings())
    model.embed(["warm up"])  # loaded before the clock
    with tempfile.TemporaryDirectory(prefix="rapport-bench-worker-") as d:
        (Path(d) / "logs").mkdir()
        child, url = start_postgres(Path(d) / "pg", Path(d) / "logs")
        try:
            r = asyncio.run(run_pipeline(url, envs, model, batch))
        finally:
            child.stop(timeout=20)
    print_result(r)
    return r
