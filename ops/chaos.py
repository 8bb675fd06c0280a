"""`rapport bench chaos`: faults injected into a running `rapport up` while events stream in, then the
books: every event applied once, and the projections equal a clean rebuild from the ledger.

The stack is started as a user starts it (`python -m ops.cli up`, a child process of this one), so the
faults hit the children of the real supervisor:
  - worker-kill: SIGKILL of a random worker at a random point,
  - api-kill:    SIGKILL of the API,
  - pg-restart:  PostgreSQL stopped (fast shutdown) under load; the supervisor starts it again,
  - pg-kill:     SIGKILL of every PostgreSQL process at once (no shutdown: what was not flushed is gone;
    a 202 must not be among it), the supervisor starts it again,
  - redis-stall: SIGSTOP of redis-server for 8 s, then SIGCONT (no restart: a stalled cache),
  - broker-kill: SIGKILL of the embedded broker, whose storage is memory only: it restarts empty under
    a new cluster id, the API and workers with it, and the relay re-publishes from the ledger,
  - pg-kill:     SIGKILL of PostgreSQL's whole process group right after a 202 for a batch of its own
    (a crash, not a shutdown: what was not flushed is gone): every event answered 202 must survive,
  - twin-tenant: for the whole run a second tenant sends the same event ids, contacts and messages as
    the first: each tenant gets all its events applied and the same projection (memories per contact).
Recovery of one fault: from the fault until an event sent right after it is visible in /context
(`after=`). The producer retries what the API refuses while a part is down, with the same event ids
(ingest is idempotent), as a producer should.

Counted at the end, from PostgreSQL: lost = events accepted (202) without a tracking record; duplicated
= events folded more than once (a contact's messageCount above the events sent to it); digest = the
live projection against `rapport replay --into ... --verify` (rebuilt from the ledger).

The stack under test is a `Backend` (`UpProcess`: `rapport up` with its embedded parts); another
backend (a Kafka cluster) plugs in by giving the same few methods. `table` prints a result, pure.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx

from ops.bench import message

TENANT = "default"  # the tenant of the data dir's own key (CONTRACT.md)
TWIN = "chaos-twin"  # the second tenant of a twin-tenant run (the data dir's key is an admin key)
STALL_S = 8.0
RUN_WIDE = ("twin-tenant",)  # faults that last the whole run rather than happen at one moment
PG_KILL_BATCH = 10
# worker kills at least this far apart: a slow recovery must not bunch them into a crash loop (the
# supervisor's limit is 5 exits of one child within 60 s; this fault suite is not testing that)
KILL_SPACING_S = 15.5


def auth_headers(data_dir: Path | None = None) -> dict[str, str]:
    """`Authorization: Bearer` from RAPPORT_API_KEY, else `<data-dir>/api-key` when it exists."""
    key = os.environ.get("RAPPORT_API_KEY")
    if not key and data_dir is not None and (data_dir / "api-key").exists():
        key = (data_dir / "api-key").read_text().strip()
    return {"Authorization": f"Bearer {key}"} if key else {}


@dataclass
class Fault:
    kind: str
    at: float = 0.0          # seconds since the start of the ingest
    target: str = ""
    recovery_s: float | None = None
    collateral: list[str] = field(default_factory=list)  # other children restarted meanwhile


@dataclass
class ChaosResult:
    faults: list[Fault] = field(default_factory=list)
    sent: int = 0
    applied: int = 0
    lost: int = 0
    duplicated: int = 0
    digest_equal: bool = False
    twins_equal: bool | None = None  # a twin-tenant run: both tenants' projections alike (None: no such run)
    drain_s: float = 0.0
    supervisor_exit: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def timed(self) -> list[Fault]:
        return [f for f in self.faults if f.kind not in RUN_WIDE]

    @property
    def max_recovery_s(self) -> float | None:
        r = [f.recovery_s for f in self.timed if f.recovery_s is not None]
        return max(r) if r else None

    def ok(self, recovery_limit_s: float | None = None) -> bool:
        recovered = all(f.recovery_s is not None and not f.collateral for f in self.timed)
        in_time = recovery_limit_s is None or (self.max_recovery_s or 0.0) < recovery_limit_s
        return (self.lost == 0 and self.duplicated == 0 and self.digest_equal and self.applied == self.sent
                and self.twins_equal is not False and recovered and in_time)


class Backend(Protocol):
    """What run_chaos needs of the stack under test."""
    url: str

    def start(self) -> None: ...
    def stop(self) -> int | None: ...  # the stack's exit code
    def headers(self) -> dict[str, str]: ...  # an admin key's (it names both tenants)
    def children(self) -> dict[str, int]: ...  # part -> pid: api, worker-N, postgres, redis, broker
    def database_url(self) -> str: ...
    def verify_replay(self, version: str) -> tuple[bool, str]: ...  # rebuild into `version`, compare


class UpProcess:
    """`rapport up` in a child process, with the data dir and port given."""

    def __init__(self, data_dir: Path, workers: int, port: int, cwd: Path | None = None,
                 env: dict[str, str] | None = None):
        self.data_dir, self.workers, self.port = data_dir, workers, port
        self.env = {**os.environ, **env} if env else None  # e.g. an external broker (ops/chaos_kafka.py)
        self.url = f"http://127.0.0.1:{port}"
        self.cwd = cwd
        self.proc: subprocess.Popen | None = None
        self.output: list[str] = []

    def start(self, timeout: float = 180) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "ops.cli", "up", "--data-dir", str(self.data_dir),
                                      "--http-port", str(self.port), "--workers", str(self.workers)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=self.cwd,
                                     env=self.env)
        ready = threading.Event()

        def read() -> None:
            for line in self.proc.stdout:  # type: ignore[union-attr]
                self.output.append(line)
                if "ready" in line and self.url in line:
                    ready.set()

        threading.Thread(target=read, daemon=True).start()
        t0 = time.monotonic()
        while not ready.wait(0.5):
            if self.proc.poll() is not None or time.monotonic() - t0 > timeout:
                self.stop()
                raise RuntimeError("rapport up did not become ready:\n" + "".join(self.output[-40:]))

    def children(self) -> dict[str, int]:
        try:
            return json.loads((self.data_dir / "run.json").read_text())["children"]
        except (OSError, ValueError, KeyError):
            return {}

    def database_url(self) -> str:
        return json.loads((self.data_dir / "run.json").read_text())["database_url"]

    def headers(self) -> dict[str, str]:
        return auth_headers(self.data_dir)

    def verify_replay(self, version: str) -> tuple[bool, str]:
        v = subprocess.run([sys.executable, "-m", "ops.cli", "replay", "--into", version, "--verify",
                            "--data-dir", str(self.data_dir)], capture_output=True, text=True, cwd=self.cwd,
                           timeout=900)
        return v.returncode == 0 and "MATCH" in v.stdout, v.stdout[-1500:] + v.stderr[-500:]

    def stop(self, timeout: float = 60) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode


def make_events(n: int, contacts: int, run: str, seed: int = 11, tenant: str = TENANT) -> list[dict[str, Any]]:
    """n events over `contacts` contacts, a contact's events in time order, batches mixing contacts.
    The same arguments with another tenant give the same ids, contacts and messages."""
    rng = random.Random(seed)
    t0 = 1_760_000_000
    return [{"contact_id": f"chaos-{run}-{i % contacts}", "tenant_id": tenant, "event_id": f"chaos-{run}-{i}",
             "role": "user" if i % 3 != 2 else "assistant", "message": message(rng),
             "occurred_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0 + i * 7))}
            for i in range(n)]


def post_until_accepted(client: httpx.Client, batch: list[dict], give_up_s: float = 180) -> None:
    """POST /ingest, retrying refusals (5xx, 429, connection errors) with the same event ids."""
    deadline, delay = time.monotonic() + give_up_s, 0.2
    while True:
        try:
            r = client.post("/ingest", json=batch)
            if r.status_code == 202:
                return
            if r.status_code < 500 and r.status_code != 429:
                raise RuntimeError(f"/ingest answered {r.status_code}: {r.text[:300]}")
            wait = float(r.headers.get("Retry-After", delay))
        except httpx.TransportError:
            wait = delay
        if time.monotonic() > deadline:
            raise RuntimeError("/ingest did not accept a batch within the time limit")
        time.sleep(wait)
        delay = min(delay * 2, 2.0)


def probe_recovery(client: httpx.Client, run: str, n: int, t_fault: float, limit_s: float = 180) -> float | None:
    """Seconds from the fault until a fresh event is visible in /context (None: not within limit_s)."""
    ev = {"contact_id": f"chaos-{run}-probe", "tenant_id": TENANT, "event_id": f"chaos-{run}-probe-{n}",
          "role": "user", "message": "checking in after the fault"}
    try:
        post_until_accepted(client, [ev], give_up_s=limit_s)
    except RuntimeError:
        return None
    while time.monotonic() - t_fault < limit_s:
        try:
            r = client.get(f"/context/{ev['contact_id']}", params={"tenant_id": TENANT, "after": ev["event_id"]})
            if r.status_code == 200:
                return time.monotonic() - t_fault
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    return None


def wait_restarted(up: UpProcess, name: str, old_pid: int | None, limit_s: float = 90) -> None:
    """Until the supervisor has started `name` again (a new pid in run.json), or `limit_s`."""
    deadline = time.monotonic() + limit_s
    while up.children().get(name) in (None, old_pid) and time.monotonic() < deadline:
        time.sleep(0.2)


def inject(up: Backend, fault: Fault, rng: random.Random, extra: dict | None = None) -> None:
    kids = up.children()
    if extra and fault.kind in extra:  # faults of an external cluster (ops/chaos_kafka.py)
        extra[fault.kind](up, fault, rng)
    elif fault.kind == "worker-kill":
        fault.target = rng.choice(sorted(k for k in kids if k.startswith("worker")))
        os.kill(kids[fault.target], signal.SIGKILL)
    elif fault.kind == "api-kill":
        fault.target = "api"
        os.kill(kids["api"], signal.SIGKILL)
    elif fault.kind == "pg-restart":
        fault.target = "postgres"
        os.kill(kids["postgres"], signal.SIGINT)  # PostgreSQL's fast shutdown; the supervisor restarts it
    elif fault.kind == "pg-kill":
        fault.target = "postgres"
        kill_postgres(kids["postgres"])
    elif fault.kind == "broker-kill":
        fault.target = "broker"
        os.kill(kids["broker"], signal.SIGKILL)  # memory-only: it comes back empty, under a new epoch
    elif fault.kind == "redis-stall":
        fault.target = "redis"
        pid = kids["redis"]
        os.kill(pid, signal.SIGSTOP)
        threading.Timer(STALL_S, lambda: os.kill(pid, signal.SIGCONT)).start()
    else:
        raise ValueError(fault.kind)


def kill_postgres(postmaster_pid: int) -> None:
    """SIGKILL the postmaster and its processes at once (its process group: ops/embedded.py starts each
    child in its own), as the OOM killer or a container stop would: WAL still in shared memory is lost."""
    os.killpg(postmaster_pid, signal.SIGKILL)


def count(up: Backend, run: str, per_contact: dict[str, int], tenant: str = TENANT) -> tuple[int, int, int]:
    """(applied, lost, duplicated) of the run's events of `tenant`, from the live projection."""
    import psycopg

    from streams import db

    with psycopg.connect(up.database_url(), autocommit=True) as c:
        schema = db.schema_of(db.active_version(c))
        applied = c.execute(f"SELECT count(*) FROM {schema}.processed_events WHERE tenant_id=%s AND event_id LIKE %s "
                            f"AND event_id NOT LIKE %s",
                            (tenant, f"chaos-{run}-%", f"chaos-{run}-probe%")).fetchone()[0]
        folded = dict(c.execute(f"SELECT contact_id, message_count FROM {schema}.contacts WHERE tenant_id=%s AND "
                                f"contact_id LIKE %s", (tenant, f"chaos-{run}-%")).fetchall())
    sent = sum(per_contact.values())
    duplicated = sum(max(0, folded.get(k, 0) - n) for k, n in per_contact.items())
    return applied, sent - applied, duplicated


def pg_kill_contact(run: str) -> str:
    """The contact of the batches sent right before each PostgreSQL crash (the first tenant's only)."""
    return f"chaos-{run}-pgkill"


def twin_differences(up: Backend, run: str) -> list[str]:
    """Contacts whose projection differs between the two tenants of a twin-tenant run (same events):
    their message counts, or how many memories each holds."""
    import psycopg

    from streams import db

    with psycopg.connect(up.database_url(), autocommit=True) as c:
        schema = db.schema_of(db.active_version(c))
        rows = c.execute(
            f"SELECT k.tenant_id, k.contact_id, k.message_count, (SELECT count(*) FROM {schema}.memories m "
            f"WHERE m.tenant_id = k.tenant_id AND m.contact_id = k.contact_id) FROM {schema}.contacts k "
            f"WHERE k.tenant_id = ANY(%s) AND k.contact_id LIKE %s AND k.contact_id NOT LIKE %s "
            f"AND k.contact_id <> %s",  # the probes and the pg-kill batches are the first tenant's alone
            ([TENANT, TWIN], f"chaos-{run}-%", f"chaos-{run}-probe%", pg_kill_contact(run))).fetchall()
    seen: dict[str, dict[str, tuple[int, int]]] = {TENANT: {}, TWIN: {}}
    for tenant, contact, messages, memories in rows:
        seen[tenant][contact] = (messages, memories)
    return [f"{k}: {seen[TENANT].get(k)} vs {seen[TWIN].get(k)} (messages, memories)"
            for k in sorted(set(seen[TENANT]) | set(seen[TWIN])) if seen[TENANT].get(k) != seen[TWIN].get(k)]


def run_chaos(events: int = 3000, contacts: int = 60, worker_kills: int = 3, workers: int = 1,
              others: tuple[str, ...] = ("api-kill", "pg-restart", "redis-stall"), gap_s: float = 14.0,
              data_dir: Path | None = None, seed: int = 3, say=print,  # noqa: ANN001
              backend: Backend | None = None, env: dict[str, str] | None = None,
              extra: dict | None = None, drain_limit_s: float = 180.0) -> ChaosResult:
    """Start a stack (`backend`, default `rapport up` on `data_dir`, with `env` on top of ours: an external
    broker), stream `events` while injecting the faults `gap_s` apart (random order and jitter), wait for
    the backlog to drain, count, verify the digest, stop. Faults of one child are spread wider than the
    supervisor's crash-loop window allows (5 exits in 60 s) at gap_s >= 13. `others` may name a run-wide
    fault (twin-tenant); `extra` maps fault kinds of an external cluster to their injectors
    (ops/chaos_kafka.py)."""
    from ops.embedded import free_port

    rng = random.Random(seed)
    run = f"{seed}{int(time.time()) % 100000}"
    own = None
    if backend is None:
        if data_dir is None:
            own = tempfile.TemporaryDirectory(prefix="rapport-chaos-")
            data_dir = Path(own.name)
        backend = UpProcess(data_dir, workers, free_port(), cwd=Path(__file__).resolve().parents[1],
                             env=env)
    up = backend
    res = ChaosResult()
    faults = [Fault("worker-kill") for _ in range(worker_kills)] + [Fault(k) for k in others if k not in RUN_WIDE]
    rng.shuffle(faults)
    twin = "twin-tenant" in others
    res.faults = faults + [Fault("twin-tenant")] * twin
    evs = make_events(events, contacts, run, seed)
    tenants = [TENANT] + [TWIN] * twin
    per_contact: dict[str, dict[str, int]] = {t: {} for t in tenants}
    for e in evs:
        for t in tenants:
            per_contact[t][e["contact_id"]] = per_contact[t].get(e["contact_id"], 0) + 1
    try:
        up.start()
        say(f"stack ready at {up.url}; {len(evs)} events{' for each of 2 tenants' if twin else ''}, "
            f"faults: {', '.join(f.kind for f in res.faults)}")
        headers = up.headers()
        span = gap_s * (len(faults) + 1)
        batch = 50
        pace = span / max(1, len(evs) // batch)  # the ingest spans every fault
        errors: list[BaseException] = []
        t0 = time.monotonic()

        def produce() -> None:
            try:
                with httpx.Client(base_url=up.url, timeout=30, headers=headers) as c:
                    for i in range(0, len(evs), batch):
                        post_until_accepted(c, evs[i:i + batch])
                        if twin:  # the same ids, contacts and messages, as the other tenant
                            post_until_accepted(c, [{**e, "tenant_id": TWIN} for e in evs[i:i + batch]])
                        time.sleep(max(0.0, t0 + (i // batch + 1) * pace - time.monotonic()))
            except BaseException as err:  # noqa: BLE001 - reported below
                errors.append(err)

        producer = threading.Thread(target=produce, daemon=True)
        producer.start()
        with httpx.Client(base_url=up.url, timeout=10, headers=headers) as c:
            last_kill = -1e9
            for n, f in enumerate(faults):
                due = t0 + (n + 1) * gap_s + rng.uniform(-2, 2)
                if f.kind == "worker-kill":  # never 5 exits of one worker within the supervisor's 60 s
                    due = max(due, last_kill + KILL_SPACING_S)
                time.sleep(max(0.0, due - time.monotonic()))
                if f.kind == "worker-kill":
                    last_kill = time.monotonic()
                before = up.children()
                if f.kind == "pg-kill":  # right after a 202 of a batch of its own: those events must survive
                    acked = [{"contact_id": pg_kill_contact(run), "tenant_id": TENANT,
                              "event_id": f"chaos-{run}-pgkill-{n}-{i}", "role": "user",
                              "message": f"note {i} before the database crash"} for i in range(PG_KILL_BATCH)]
                    post_until_accepted(c, acked)
                    mine = per_contact[TENANT]
                    mine[pg_kill_contact(run)] = mine.get(pg_kill_contact(run), 0) + len(acked)
                f.at = time.monotonic() - t0
                t_fault = time.monotonic()
                inject(up, f, rng, extra)
                f.recovery_s = probe_recovery(c, run, n, t_fault)
                if (f.kind.endswith("-kill") and f.kind != "pg-kill"
                        and not (extra and f.kind in extra)):  # answering again may not wait for it (a
                    # second API process answers at once): the next fault starts once the killed child is back
                    wait_restarted(up, f.target, before.get(f.target))
                if f.kind in ("redis-stall", "pg-restart", "pg-kill"):  # ridden out: nothing else restarts
                    if f.kind == "redis-stall":
                        time.sleep(max(0.0, t_fault + STALL_S + 6 - time.monotonic()))  # past the stall
                    else:
                        wait_restarted(up, f.target, before.get(f.target))
                    after = up.children()
                    f.collateral = sorted(k for k in before if k != f.target and after.get(k) != before[k])
                say(f"  {f.kind} ({f.target}) at {f.at:.0f} s: recovered in "
                    f"{'—' if f.recovery_s is None else f'{f.recovery_s:.1f} s'}"
                    + (f"; also restarted: {', '.join(f.collateral)}" if f.collateral else ""))
        producer.join()
        if errors:
            raise errors[0]
        res.sent = sum(sum(p.values()) for p in per_contact.values())
        t_drain = time.monotonic()
        while True:  # the backlog drains: every event tracked (or no progress for drain_limit_s)
            counts = [count(up, run, per_contact[t], t) for t in tenants]
            if all(lost == 0 for _, lost, _ in counts) or time.monotonic() - t_drain > drain_limit_s:
                break
            time.sleep(1.0)
        res.applied, res.lost, res.duplicated = (sum(x[i] for x in counts) for i in range(3))
        res.drain_s = time.monotonic() - t_drain
        if twin:
            differ = twin_differences(up, run)
            alone = per_contact[TENANT].get(pg_kill_contact(run), 0)  # the first tenant's own events
            res.twins_equal = not differ and counts[0] == (counts[1][0] + alone, *counts[1][1:])
            if not res.twins_equal:
                res.notes.append(f"tenants {TENANT} and {TWIN} (equal event ids) differ: applied/lost/duplicated "
                                 f"{counts[0]} vs {counts[1]}; contacts: " + "; ".join(differ[:5]))
        say(f"drained in {res.drain_s:.1f} s; verifying against a rebuild from the ledger")
        res.digest_equal, out = up.verify_replay(f"chaos{run}")
        if not res.digest_equal:
            res.notes.append(out)
            res.notes.append(differing_tables(up.database_url(), f"chaos{run}"))
    finally:
        res.supervisor_exit = up.stop()
        if own is not None and res.ok():
            own.cleanup()
        elif own is not None:
            res.notes.append(f"data dir kept for inspection: {data_dir}")
    return res


def differing_tables(url: str, version: str) -> str:
    """Which digested tables of the live version and `version` differ, with rows only in each."""
    import psycopg

    from streams import db
    from projections.digest import TABLES, WHERE

    out = []
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("SET TIME ZONE 'UTC'")
        live, new = db.schema_of(db.active_version(c)), db.schema_of(version)
        for t, (cols, order) in TABLES.items():
            exprs = ", ".join(f"coalesce(({x.strip()})::text, '<null>')" for x in cols.split(","))
            where = f" WHERE {WHERE[t]}" if t in WHERE else ""
            a = {r[0] for r in c.execute(f"SELECT concat_ws(chr(31), {exprs}) FROM {live}.{t}{where}")}
            b = {r[0] for r in c.execute(f"SELECT concat_ws(chr(31), {exprs}) FROM {new}.{t}{where}")}
            if a != b:
                out.append(f"{t}: {len(a - b)} rows only live, {len(b - a)} only in the rebuild; e.g.\n"
                           f"  live:    {str(sorted(a - b)[:1])[:400]}\n  rebuild: {str(sorted(b - a)[:1])[:400]}")
    return "\n".join(out) or "no table differs"


def table(r: ChaosResult) -> str:
    """The result as a Markdown table (pure): faults, sent, applied, lost, duplicated, digest equal, the
    recovery of each kind of fault and the longest."""
    kinds: dict[str, list[Fault]] = {}
    for f in r.faults:
        kinds.setdefault(f.kind, []).append(f)

    def secs(x: float | None) -> str:
        return "—" if x is None else f"{x:.1f} s"

    rows = [("faults injected", ", ".join(f"{len(fs)}x {k}" for k, fs in kinds.items())),
            ("events sent", str(r.sent)), ("events applied", str(r.applied)), ("events lost", str(r.lost)),
            ("events duplicated", str(r.duplicated)),
            ("digest equal to a clean replay", "yes" if r.digest_equal else "NO")]
    if r.twins_equal is not None:
        rows.append(("second tenant with equal event ids: same projection", "yes" if r.twins_equal else "NO"))
    for k, fs in kinds.items():
        if k not in RUN_WIDE:
            rec = [f.recovery_s for f in fs]
            worst = None if any(x is None for x in rec) else max(rec)  # type: ignore[type-var]
            rows.append((f"recovery after {k}", ", ".join(secs(x) for x in rec) + (
                f" (max {secs(worst)})" if len(rec) > 1 else "")))
    rows += [("max recovery time", secs(r.max_recovery_s)),
             ("backlog drained after the last fault in", f"{r.drain_s:.1f} s"),
             ("rapport up exit code at the end", str(r.supervisor_exit))]
    w = max(len(a) for a, _ in rows)
    return "\n".join([f"| {'':<{w}} | result |", f"|{'-' * (w + 2)}|--------|"] +
                     [f"| {a:<{w}} | {b} |" for a, b in rows])
