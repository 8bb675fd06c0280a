"""The fault suite: `rapport up` under load while its parts are killed, restarted and stalled.

Scaled down from `rapport bench chaos` (ops/chaos.py, which runs the full version and prints the
table) to fit CI: 3 SIGKILLs of the worker, one of the API, a PostgreSQL restart and an 8 s Redis
stall while 1,800 events stream in. Every event is applied exactly once, each fault recovers, and the
live projection equals a clean rebuild from the ledger (`rapport replay --verify`). And PostgreSQL
SIGKILLed (every process of it) while events stream in: no event answered 202 is lost."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from ops.chaos import kill_postgres, run_chaos, table

pytestmark = [pytest.mark.fault, pytest.mark.e2e]


def test_kills_restarts_and_stalls_lose_nothing_and_double_nothing():
    lines: list[str] = []
    r = run_chaos(events=1800, contacts=40, worker_kills=3, workers=1, gap_s=12.0, say=lines.append)
    report = "\n".join(lines) + "\n" + table(r) + "\n" + "\n".join(r.notes)
    assert [f.kind for f in r.faults].count("worker-kill") == 3, report
    assert all(f.recovery_s is not None for f in r.faults), report
    # a Redis stall and a database restart are ridden out: no worker or API restarted for them
    assert [(f.kind, f.collateral) for f in r.faults if f.collateral] == [], report
    assert (r.sent, r.applied, r.lost, r.duplicated) == (1800, 1800, 0, 0), report
    assert r.digest_equal, report
    assert r.supervisor_exit == 0, report  # and the stack still stops cleanly after all that


def _wait_restarted(stack, name: str, old_pid: int, limit_s: float = 90) -> int:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            pid = stack.run_info["children"].get(name)
        except (OSError, ValueError):
            pid = None
        if pid not in (None, old_pid):
            return pid
        time.sleep(0.1)
    raise AssertionError(f"{name} was not restarted within {limit_s:g} s\n{stack.logs()}")


def test_postgres_sigkill_right_after_202_loses_no_accepted_event(tmp_path):
    """A 202 means the ledger row is committed synchronously. Four producers stream single events (the
    database busy, as under load: asynchronous commits then wait in shared memory for the WAL writer);
    every PostgreSQL process is SIGKILLed at once (its process group, as the OOM killer or a container
    stop would), three times. After the supervisor restarts it, every event answered 202 is in the
    ledger and applied exactly once (the relay re-publishes what the projection lost), and `after=`
    answers 200 again for each contact's last accepted event."""
    import psycopg

    from projections import db
    from tests.stack import running

    trials, producers = 3, 4
    with running(tmp_path / "data") as stack, stack.client() as c:
        accepted: list[dict] = []
        for t in range(trials):
            stop = threading.Event()

            def produce(p: int) -> None:
                i = 0
                while not stop.is_set():
                    e = {"contact_id": f"pgkill-{p}", "event_id": f"pgkill-{t}-{p}-{i}", "role": "user",
                         "message": f"trial {t}: note number {i} about my garden"}
                    i += 1
                    try:
                        if c.post("/ingest", json=e, timeout=5).status_code == 202:
                            accepted.append(e)
                    except httpx.TransportError:
                        pass

            with ThreadPoolExecutor(producers) as pool:
                for p in range(producers):
                    pool.submit(produce, p)
                deadline = time.monotonic() + 30  # streaming: at least 20 accepted in this trial
                while len(accepted) < 20 * (t + 1) and time.monotonic() < deadline:
                    time.sleep(0.2)
                pid = stack.run_info["children"]["postgres"]
                kill_postgres(pid)  # the postmaster and all its processes, mid-stream
                time.sleep(0.5)
                stop.set()
            _wait_restarted(stack, "postgres", pid)
        assert len(accepted) >= 60, len(accepted)
        last = {e["contact_id"]: e["event_id"] for e in accepted}
        deadline = time.monotonic() + 180
        pending = dict(last)
        while pending and time.monotonic() < deadline:
            for contact, event_id in list(pending.items()):
                try:
                    r = c.get(f"/context/{contact}", params={"after": event_id}, timeout=15)
                except httpx.TransportError:
                    continue
                if r.status_code == 200:
                    del pending[contact]
            time.sleep(0.5)
        ids = [e["event_id"] for e in accepted]
        with psycopg.connect(stack.run_info["database_url"], autocommit=True) as conn:
            schema = db.schema_of(db.active_version(conn))
            in_ledger = conn.execute("SELECT count(*) FROM rapport.ledger WHERE tenant_id='default' AND "
                                     "event_id = ANY(%s)", (ids,)).fetchone()[0]
            applied = conn.execute(f"SELECT count(*) FROM {schema}.processed_events WHERE tenant_id='default' "
                                   f"AND event_id = ANY(%s)", (ids,)).fetchone()[0]
            # every recorded event (a 500 may follow a commit) folded once: counts equal ledger rows
            folds = conn.execute(f"SELECT l.contact_id, count(*), max(c.message_count) FROM rapport.ledger l "
                                 f"JOIN {schema}.contacts c USING (tenant_id, contact_id) WHERE l.tenant_id='default' "
                                 f"AND l.contact_id LIKE 'pgkill-%%' GROUP BY l.contact_id").fetchall()
        report = f"accepted {len(ids)}, in the ledger {in_ledger}, applied {applied}, folds {folds}"
        assert in_ledger == len(ids), "lost after a 202: " + report
        assert not pending, f"after= still not answered for {pending}; {report}\n{stack.logs()}"
        assert applied == len(ids), report
        assert all(n == m for _, n, m in folds), report
