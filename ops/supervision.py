"""When `rapport up` restarts a child that exited, and when it gives up (a crash loop).

Pure: the caller passes the clock. ops/embedded.py applies the decisions to processes."""
from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RestartPolicy:
    """Exponential backoff from `base_s` doubling to `max_s`; `limit` exits of one child within
    `window_s` seconds is a crash loop (systemd's StartLimitBurst/StartLimitIntervalSec). A child that
    ran `healthy_s` or longer before it exited was killed, not crashing: it restarts after `base_s`
    (its exit still counts toward the crash-loop limit)."""
    base_s: float = 0.5
    max_s: float = 15.0
    window_s: float = 60.0
    limit: int = 5
    healthy_s: float = 10.0

    @staticmethod
    def from_env() -> "RestartPolicy":
        d = RestartPolicy()
        return RestartPolicy(base_s=float(os.environ.get("RAPPORT_RESTART_BASE_S", d.base_s)),
                             max_s=float(os.environ.get("RAPPORT_RESTART_MAX_S", d.max_s)),
                             window_s=float(os.environ.get("RAPPORT_RESTART_WINDOW_S", d.window_s)),
                             limit=int(os.environ.get("RAPPORT_RESTART_LIMIT", d.limit)),
                             healthy_s=float(os.environ.get("RAPPORT_RESTART_HEALTHY_S", d.healthy_s)))


@dataclass
class Restarts:
    """One child's recent exits."""
    policy: RestartPolicy = field(default_factory=RestartPolicy)
    exits: list[float] = field(default_factory=list)

    def on_exit(self, now: float, ran_s: float | None = None) -> float | None:
        """Record an exit at `now` after running `ran_s` seconds (None: unknown): the delay before
        restarting, or None for a crash loop."""
        self.exits = [t for t in self.exits if now - t < self.policy.window_s] + [now]
        n = len(self.exits)
        if n >= self.policy.limit:
            return None
        if ran_s is not None and ran_s >= self.policy.healthy_s:
            return self.policy.base_s
        return min(self.policy.base_s * 2 ** (n - 1), self.policy.max_s)


def log_tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.splitlines()[-lines:])


def rss_mb(pid: int) -> float | None:
    """A process's resident set in MiB (Linux /proc; None elsewhere or when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None


def rotation_due(rss: float | None, limit_mb: float, up_s: float | None, min_up_s: float) -> bool:
    """Whether the embedded broker is restarted to give its memory back (pure). Its memory-only storage
    keeps every record until it stops: it honours no retention and refuses DeleteRecords (README:
    Operations), so past `limit_mb` a planned restart is the only release; never twice within `min_up_s`.
    A limit of 0 turns rotation off."""
    return bool(limit_mb) and rss is not None and rss > limit_mb and up_s is not None and up_s >= min_up_s

