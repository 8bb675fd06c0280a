"""The restart policy of `rapport up` (ops/supervision.py): backoff and the crash-loop limit."""
from __future__ import annotations

from ops.supervision import RestartPolicy, Restarts, log_tail


def test_backoff_doubles_and_is_capped():
    r = Restarts(RestartPolicy(base_s=0.5, max_s=3.0, window_s=60, limit=10))
    assert [r.on_exit(t) for t in (0, 1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_the_fifth_exit_within_the_window_is_a_crash_loop():
    r = Restarts(RestartPolicy(base_s=1, max_s=8, window_s=60, limit=5))
    assert [r.on_exit(t) for t in (0, 10, 20, 30)] == [1, 2, 4, 8]
    assert r.on_exit(59) is None


def test_exits_spread_wider_than_the_window_restart_forever_and_reset_the_backoff():
    r = Restarts(RestartPolicy(base_s=1, max_s=8, window_s=60, limit=3))
    delays = [r.on_exit(t) for t in range(0, 61 * 10, 61)]  # one exit a minute, ten times
    assert delays == [1] * 10


def test_old_exits_leave_the_window():
    r = Restarts(RestartPolicy(base_s=1, max_s=8, window_s=60, limit=3))
    assert (r.on_exit(0), r.on_exit(50)) == (1, 2)
    assert r.on_exit(70) == 2   # the exit at 0 has left the window: two exits in it
    assert r.on_exit(80) is None  # 50, 70, 80


def test_log_tail_keeps_the_last_lines():
    assert log_tail("a\nb\nc\nd", 2) == "c\nd"


def test_a_child_that_keeps_exiting_is_restarted_then_stops_everything_naming_it(tmp_path):
    """Stack.supervise on real processes (a worker that prints and exits 3), with an injected clock."""
    import sys

    import pytest

    from ops.embedded import CrashLoop, Stack, spawn

    class Crashing(Stack):
        def _spawn_app(self, name):  # noqa: ANN001, ANN202
            return spawn(name, [sys.executable, "-c", "print('boom: cannot start'); raise SystemExit(3)"],
                         self.data_dir / "logs")

    (tmp_path / "logs").mkdir()
    said: list[str] = []
    stack = Crashing(tmp_path, policy=RestartPolicy(base_s=1, max_s=4, window_s=60, limit=3), say=said.append)
    stack._add(stack._spawn_app("worker-0"))
    child = stack.children[0]
    pids = [child.proc.pid]
    child.proc.wait(10)
    stack.supervise(100.0)                     # exit 1: a restart in 1 s
    assert child.restart_at == 101.0 and child.proc.pid == pids[0]
    stack.supervise(100.5)                     # not yet
    assert child.proc.pid == pids[0]
    stack.supervise(101.0)                     # restarted
    assert child.proc.pid != pids[0]
    child.proc.wait(10)
    stack.supervise(102.0)                     # exit 2: a restart in 2 s
    assert child.restart_at == 104.0
    stack.supervise(104.0)
    child.proc.wait(10)
    with pytest.raises(CrashLoop) as loop:     # exit 3 within 60 s: a crash loop
        stack.supervise(105.0)
    message = str(loop.value)
    assert message.startswith("worker-0 is crash-looping (3 exits within 60 s, last exit code 3)")
    assert "boom: cannot start" in message     # the tail of its log
    assert said[0] == "worker-0 exited (code 3); restarting in 1 s (exit 1 of at most 2 in 60 s)"


def test_a_child_that_ran_a_while_before_it_exited_restarts_at_once_and_still_counts_toward_the_limit():
    """A kill after a healthy run is not a crash loop: the base delay, whatever the exits before it."""
    r = Restarts(RestartPolicy(base_s=0.5, max_s=8, window_s=60, limit=4, healthy_s=10))
    assert r.on_exit(0, ran_s=30) == 0.5
    assert r.on_exit(15, ran_s=14.5) == 0.5      # the second exit in the window: still the base delay
    assert r.on_exit(17, ran_s=1.5) == 2.0       # a quick exit: the backoff of the third exit
    assert r.on_exit(40, ran_s=22) is None       # the fourth exit within 60 s: a crash loop all the same


def test_broker_rotation_is_due_past_the_memory_limit_and_never_twice_within_the_minimum_uptime():
    from ops.supervision import rotation_due

    assert rotation_due(1100.0, 1024, up_s=400, min_up_s=300)
    assert not rotation_due(1000.0, 1024, up_s=400, min_up_s=300)   # under the limit
    assert not rotation_due(1100.0, 1024, up_s=200, min_up_s=300)   # restarted too recently
    assert not rotation_due(None, 1024, up_s=400, min_up_s=300)     # no /proc: no reading, no rotation
    assert not rotation_due(5000.0, 0, up_s=400, min_up_s=300)      # 0 turns it off


def test_the_supervisor_restarts_a_broker_that_holds_too_much_memory(tmp_path):
    """Stack.supervise on a real process standing in for the broker (its RSS is real, a few MiB, over a
    limit of 1 MiB), with an injected clock: not before the minimum uptime, then once, by a restart."""
    import sys

    from ops import embedded
    from ops.embedded import Stack, spawn

    (tmp_path / "logs").mkdir()
    restarted: list[str] = []

    class Fake(Stack):
        def restart(self, c):  # noqa: ANN001, ANN202
            restarted.append(c.name)
            fresh = spawn(c.name, [sys.executable, "-c", "import time; time.sleep(60)"], self.data_dir / "logs")
            c.proc = fresh.proc

    said: list[str] = []
    stack = Fake(tmp_path, broker_max_rss_mb=1.0, say=said.append)
    stack._add(spawn("broker", [sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "logs"))
    broker = stack.children[0]
    first = broker.proc
    import time

    from ops.supervision import rss_mb

    deadline = time.monotonic() + 30
    while (rss_mb(first.pid) or 0) < 2 and time.monotonic() < deadline:  # past the interpreter's start
        time.sleep(0.05)
    try:
        stack.supervise(1000.0)                                   # first seen: its uptime starts now
        stack.supervise(1000.0 + embedded.BROKER_ROTATE_MIN_UP_S - 1)
        assert restarted == [] and first.poll() is None
        stack.supervise(1000.0 + embedded.BROKER_ROTATE_MIN_UP_S)  # over the limit and up long enough
        assert restarted == ["broker"] and first.poll() is not None and broker.proc is not first
        assert said[0].startswith("broker holds ") and "restarting it to give the memory back" in said[0]
        stack.supervise(1000.0 + embedded.BROKER_ROTATE_MIN_UP_S + 1)  # the new one is young: left alone
        assert restarted == ["broker"]
    finally:
        for c in stack.children:
            c.proc.kill()


def test_the_batch_processes_start_at_a_lower_cpu_priority_than_what_requests_wait_on(tmp_path, monkeypatch):
    """Workers and webhook delivery get the stack's batch nice level; the API and the servers keep 0
    (on a busy machine the kernel then serves /context before a batch). What `rapport up` spawns, and
    that the spawned process really runs at that level."""
    import os
    import sys

    from ops import embedded

    assert [embedded.child_nice(n, 10) for n in ("worker-0", "worker-3", "webhooks", "api", "api-1", "postgres",
                                                 "redis", "broker")] == [10, 10, 10, 0, 0, 0, 0, 0]
    assert embedded.child_nice("worker-0", 0) == 0 and embedded.child_nice("worker-0", 40) == 19

    asked: dict[str, int] = {}

    def fake_spawn(name, args, log_dir, env=None, nice=0, **kw):  # noqa: ANN001, ANN202
        asked[name] = nice
        return embedded.Child(name, None)  # type: ignore[arg-type]

    monkeypatch.setattr(embedded, "spawn", fake_spawn)
    stack = embedded.Stack(tmp_path, batch_nice=7, env={"RAPPORT_HTTP_PORT": "1"})
    for name in ("worker-0", "webhooks", "api"):
        stack._spawn_app(name)
    assert asked == {"worker-0": 7, "webhooks": 7, "api": 0}
    monkeypatch.undo()

    (tmp_path / "logs").mkdir()
    child = embedded.spawn("worker-0", [sys.executable, "-c", "import os; print('nice', os.nice(0))"],
                           tmp_path / "logs", nice=embedded.child_nice("worker-0", 5))
    assert child.proc.wait(20) == 0
    assert f"nice {min(19, os.nice(0) + 5)}" in child.log.read_text()


def test_each_child_runs_in_a_session_of_its_own(tmp_path, monkeypatch):
    """Where Linux shares the CPU out per session (autogroup), a child in the supervisor's session would
    share one slot with the whole stack (the worker's batches beside the API's requests): each child leads
    a session of its own, and so its own process group (ops/chaos.py kills PostgreSQL's by the postmaster's
    pid). RAPPORT_CHILD_SESSIONS=0 keeps them in the supervisor's session, each in its own group."""
    import os
    import sys

    from ops import embedded

    (tmp_path / "logs").mkdir()
    show = "import os; print('ids', os.getpid(), os.getsid(0), os.getpgid(0))"
    child = embedded.spawn("api", [sys.executable, "-c", show], tmp_path / "logs")
    assert child.proc.wait(20) == 0
    pid, sid, pgid = map(int, child.log.read_text().split("ids ")[1].split())
    assert pid == child.proc.pid and sid == pid and pgid == pid and sid != os.getsid(0)
    if os.path.exists("/proc/self/autogroup"):  # a batch process's level is its session's weight there too
        child = embedded.spawn("worker-0", [sys.executable, "-c", "print('group', open('/proc/self/autogroup').read())"],
                               tmp_path / "logs", nice=embedded.child_nice("worker-0", 5))
        assert child.proc.wait(20) == 0
        assert child.log.read_text().split("group ")[-1].split()[-1] == "5"

    monkeypatch.setattr(embedded, "CHILD_SESSIONS", False)
    child = embedded.spawn("worker-0", [sys.executable, "-c", show], tmp_path / "logs")
    assert child.proc.wait(20) == 0
    pid, sid, pgid = map(int, child.log.read_text().split("ids ")[-1].split())
    assert sid == os.getsid(0) and pgid == pid
