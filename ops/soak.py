"""`rapport bench soak`: memory of the running parts over a long ingest, to tell a bound from a leak.

`rapport up` is fed rounds of events (each drained before the next: every event applied) and after
each round the resident memory of every child is read. A cache filling up looks like a leak at first;
what tells them apart is the second half of the run: a bounded worker's growth there is near zero, a
leaking one keeps its slope. `growth_per_10k` fits that slope (least squares over the samples of the
second half) so the verdict is a number, printed with the samples it came from.
"""
from __future__ import annotations

import platform
import os
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import httpx
import psycopg

from ops.chaos import UpProcess, make_events, post_until_accepted
from ops.embedded import free_port
from ops.supervision import rss_mb
from streams import db


@dataclass
class Sample:
    events: int                 # events applied when it was taken
    rss_mb: dict[str, float]    # child name -> resident MiB
    seconds: float = 0.0        # since the start of the ingest
    pids: dict[str, int] = field(default_factory=dict)  # child name -> pid: a new one was restarted


def restarted(samples: list[Sample], i: int, part: str) -> bool:
    """Whether `part` is another process in sample i than in the one before (a restart in between)."""
    return i > 0 and part in samples[i].pids and samples[i - 1].pids.get(part, samples[i].pids[part]) != samples[i].pids[part]


@dataclass
class SoakResult:
    samples: list[Sample] = field(default_factory=list)

    def parts(self) -> list[str]:
        return sorted({k for s in self.samples for k in s.rss_mb})


def growth_per_10k(samples: list[Sample], part: str) -> float | None:
    """MiB per 10,000 events of `part` over the second half of the run (a least-squares slope), or None
    with fewer than three samples there. Near zero: bounded; a leak keeps the slope of the first half."""
    pts = [(s.events, s.rss_mb[part]) for s in samples if part in s.rss_mb]
    half = [p for p in pts if p[0] >= pts[-1][0] / 2] if pts else []
    if any(restarted(samples, i, part) for i, s in enumerate(samples) if s.events >= pts[-1][0] / 2):
        return None  # a restart in the second half: its slope says nothing of one process
    if len(half) < 3:
        return None
    n = len(half)
    mx = sum(x for x, _ in half) / n
    my = sum(y for _, y in half) / n
    sxx = sum((x - mx) ** 2 for x, _ in half)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in half) / sxx * 10_000


def table(r: SoakResult) -> str:
    parts = r.parts()
    lines = ["| events | s | " + " | ".join(f"{p} MiB" for p in parts) + " |",
             "|---:|---:|" + "---:|" * len(parts)]
    for i, s in enumerate(r.samples):  # * : the part was restarted since the row before
        lines.append(f"| {s.events} | {s.seconds:.0f} | " + " | ".join(
            (f"{s.rss_mb[p]:.0f}" + ("*" if restarted(r.samples, i, p) else "")) if p in s.rss_mb else "—"
            for p in parts) + " |")
    slopes = [(p, growth_per_10k(r.samples, p)) for p in parts]
    lines.append("| growth, 2nd half | MiB/10k | " + " | ".join(
        "—" if g is None else f"{g:+.1f}" for _, g in slopes) + " |")
    return "\n".join(lines)


def applied(url: str, tenant: str, prefix: str) -> int:
    with psycopg.connect(url, autocommit=True) as c:
        schema = db.schema_of(db.active_version(c))
        return c.execute(f"SELECT count(*) FROM {schema}.processed_events WHERE tenant_id=%s AND contact_id LIKE %s",
                         (tenant, prefix + "%")).fetchone()[0]


def run_soak(events: int, contacts: int, round_size: int, workers: int = 1,
             say: Callable[[str], None] = print, env: dict[str, str] | None = None) -> SoakResult:
    res = SoakResult()
    run = uuid.uuid4().hex[:6]
    with tempfile.TemporaryDirectory(prefix="rapport-soak-") as tmp:
        # the broker's planned restarts (RAPPORT_BROKER_MAX_RSS_MB) restart the workers with it: kept as
        # the environment says; `rapport bench soak --no-broker-restarts` measures one worker process
        up = UpProcess(Path(tmp) / "data", workers, free_port(), cwd=Path(__file__).resolve().parents[1],
                       env=env)
        up.start()
        try:
            say(f"stack ready at {up.url}; {events} events over {contacts} contacts, rounds of {round_size}")
            evs = make_events(events, contacts, run)
            prefix = f"chaos-{run}-"
            t0 = time.monotonic()
            res.samples.append(Sample(0, measure(up), 0.0, up.children()))
            with httpx.Client(base_url=up.url, timeout=30, headers=up.headers()) as c:
                for start in range(0, events, round_size):
                    chunk = evs[start:start + round_size]
                    for i in range(0, len(chunk), 500):
                        post_until_accepted(c, chunk[i:i + 500])
                    want = start + len(chunk)
                    deadline = time.monotonic() + 600
                    while applied(up.database_url(), "default", prefix) < want:
                        if time.monotonic() > deadline:
                            raise RuntimeError(f"round ending at {want} not drained in 600 s")
                        time.sleep(1.0)
                    s = Sample(want, measure(up), time.monotonic() - t0, up.children())
                    res.samples.append(s)
                    say("  " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(s.rss_mb.items()))
                        + f" MiB after {want} events ({s.seconds:.0f} s)")
        finally:
            up.stop()
    return res


def measure(up: UpProcess) -> dict[str, float]:
    out = {}
    for name, pid in up.children().items():
        mb = rss_mb(pid)
        if mb is not None:
            out[name] = mb
    return out


def main(events: int, contacts: int, round_size: int, workers: int, broker_restarts: bool = True) -> SoakResult:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    r = run_soak(events, contacts, round_size, workers,
                 env=None if broker_restarts else {"RAPPORT_BROKER_MAX_RSS_MB": "0"})
    print(table(r))
    return r
