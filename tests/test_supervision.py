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
