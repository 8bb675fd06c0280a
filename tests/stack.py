"""Run `rapport up` as a user would, for end-to-end tests."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil

from ops.embedded import free_port


class RunningStack:
    def __init__(self, data_dir: Path, workers: int = 1, port: int | None = None,
                 api_processes: int | None = None,  # None: rapport up's default
                 env: dict[str, str] | None = None):  # extra environment, e.g. a backend's RAPPORT_KAFKA_URL
        self.data_dir, self.workers, self.api_processes = data_dir, workers, api_processes
        self.env = {**os.environ, **(env or {})}
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.output: list[str] = []

    def start(self, timeout: float = 180) -> float:
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ops.cli", "up", "--data-dir", str(self.data_dir), "--http-port", str(self.port),
             "--workers", str(self.workers),
             *(["--api-processes", str(self.api_processes)] if self.api_processes else [])], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            cwd=Path(__file__).resolve().parents[1], env=self.env)
        ready = threading.Event()

        def read():
            for line in self.proc.stdout:
                self.output.append(line)
                if "ready" in line and self.url in line:
                    ready.set()

        threading.Thread(target=read, daemon=True).start()
        while not ready.wait(0.5):
            if self.proc.poll() is not None or time.monotonic() - t0 > timeout:
                self.kill()
                raise AssertionError("rapport up did not become ready:\n" + "".join(self.output[-50:]) +
                                     self.logs())
        return time.monotonic() - t0

    def logs(self) -> str:
        out = []
        for f in sorted((self.data_dir / "logs").glob("*.log")):
            out.append(f"--- {f.name}\n" + "\n".join(f.read_text(errors="replace").splitlines()[-30:]))
        return "\n".join(out)

    def topic(self, name: str) -> str:
        """The name of rapport's topic `name` (interactions, dead-letter, ...) for this stack."""
        key = f"RAPPORT_{name.upper().replace('-', '_')}_TOPIC"
        return self.env.get(key) or f"rapport.{name}"

    @property
    def run_info(self) -> dict:
        return json.loads((self.data_dir / "run.json").read_text())

    def descendants(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> tuple[int, float, list[int]]:
        """Signal, wait; returns (exit code, seconds, pids of children still alive afterwards)."""
        kids = self.descendants()
        t0 = time.monotonic()
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        took = time.monotonic() - t0
        time.sleep(0.5)
        alive = [k.pid for k in kids if k.is_running() and k.status() != psutil.STATUS_ZOMBIE]
        return code, took, alive

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            for k in self.descendants():
                try:
                    k.kill()
                except psutil.NoSuchProcess:
                    pass
            self.proc.kill()
            self.proc.wait(10)

    @property
    def api_key(self) -> str:
        """The key clients send: $RAPPORT_API_KEY, else the one `rapport up` wrote to <data-dir>/api-key."""
        from ops.keys import client_key

        key = client_key(self.data_dir)
        assert key, f"no API key in $RAPPORT_API_KEY or {self.data_dir / 'api-key'}"
        return key

    def client(self, key: str | None = None) -> httpx.Client:
        """An HTTP client sending `key` (default: api_key); key="" sends none."""
        key = self.api_key if key is None else key
        return httpx.Client(base_url=self.url, timeout=30, headers={"Authorization": f"Bearer {key}"} if key else {})


@contextlib.contextmanager
def running(data_dir: Path, **kw):  # noqa: ANN003, ANN201
    """A started stack for a module's tests (a fixture's body), killed at the end."""
    s = RunningStack(data_dir, **kw)
    s.start()
    try:
        yield s
    finally:
        s.kill()
