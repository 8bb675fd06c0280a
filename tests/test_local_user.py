"""Another local user owns nothing of the embedded default (issue 20, item 3).

As root, the test makes a second, unprivileged user (`rapport_intruder`, useradd) and, while a stack
runs, has it try what an attacker on the machine would: read the data dir's secrets, cache dump,
logs and cluster; list the data dir; connect to Redis's and PostgreSQL's unix sockets; read the API
without a key; publish a forged `InteractionRecorded` straight to the broker (which it can reach, on
loopback, unauthenticated). Every read and connect is refused by the kernel, the API answers 401, and
the forged records are dead-lettered ("unsigned record", "bad signature"): nothing of them reaches the
contact's context. Also here: the run directories refuse a planted symlink without touching its target.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import orjson
import psutil
import pytest

from ops.embedded import as_user, private_dir

INTRUDER = "rapport_intruder"

INTRUDER_SCRIPT = r'''
import asyncio, json, os, socket, sys, urllib.error, urllib.request
args = json.loads(sys.argv[1])
sys.path.insert(0, args["site"])
out = {}
def attempt(name, fn):
    try:
        fn()
        out[name] = "ok"
    except Exception as e:
        out[name] = type(e).__name__
for name, path in args["files"].items():
    attempt("read " + name, lambda p=path: open(p, "rb").read(1))
for name, path in args["dirs"].items():
    attempt("list " + name, lambda p=path: os.listdir(p))
def unix(p):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(3)
    try:
        s.connect(p)
    finally:
        s.close()
for name, path in args["sockets"].items():
    attempt("connect " + name, lambda p=path: unix(p))
def api():
    try:
        urllib.request.urlopen(args["api"] + "/contacts/ana/memories", timeout=10)
    except urllib.error.HTTPError as e:
        raise PermissionError(e.code) if e.code == 401 else e
attempt("api without a key", api)
async def forge():
    from aiokafka import AIOKafkaProducer
    p = AIOKafkaProducer(bootstrap_servers=args["kafka"])
    await p.start()
    try:
        await p.send_and_wait("rapport.interactions", key=b"default/ana", value=args["forged"][0].encode())
        await p.send_and_wait("rapport.interactions", key=b"default/ana", value=args["forged"][1].encode(),
                              headers=[("rapport-sig", b"0" * 64)])
    finally:
        await p.stop()
attempt("publish to the broker", lambda: asyncio.run(forge()))
print(json.dumps(out))
'''


def ensure_intruder() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to create a second local user (useradd); the isolation is not checked")
    if shutil.which("useradd") is None:
        pytest.skip("no useradd on this machine; the isolation is not checked")
    import pwd

    try:
        pwd.getpwnam(INTRUDER)
    except KeyError:
        subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", INTRUDER], check=True, capture_output=True)


def forged(event_id: str, text: str) -> str:
    now = "2026-05-01T10:00:00+00:00"
    return json.dumps({"event_id": event_id, "event_type": "InteractionRecorded", "schema_version": 2,
                       "tenant_id": "default", "contact_id": "ana", "occurred_at": now, "recorded_at": now,
                       "causation_id": None, "correlation_id": None,
                       "payload": {"role": "user", "message": text, "session_id": None, "conversation_id": None,
                                   "channel": None, "display_name": "Forged", "persona_id": None}})


# embedded broker only: it checks the embedded default's own files, sockets and loopback broker
@pytest.mark.e2e
def test_a_second_local_user_can_read_write_and_forge_none_of_it(tmp_path):
    from tests.stack import running
    from tests.test_e2e import read_topic

    ensure_intruder()
    d = tmp_path / "data"
    with running(d) as stack, stack.client() as c:
        assert c.post("/ingest", json={"contact_id": "ana", "role": "user", "event_id": "real-1",
                                       "message": "I live in Lisbon"}).status_code == 202
        assert c.get("/context/ana", params={"after": "real-1"}).status_code == 200
        info = stack.run_info
        redis_sock = info["redis_url"].split("@", 1)[1].split("?", 1)[0]
        pg_sock_dir = info["database_url"].split("host=", 1)[1].split("&", 1)[0]
        kids = {name: psutil.Process(pid) for name, pid in info["children"].items()}
        # the servers drop root, and neither Redis nor PostgreSQL listens on TCP at all
        assert kids["redis"].username() == "rapport_redis" and kids["postgres"].username() == "embedded_postgres"
        assert [s for s in kids["redis"].net_connections("inet")] == []
        # with the password (root's clients have it), the cache works and cannot be reconfigured or wiped
        import redis

        rd = redis.Redis.from_url(info["redis_url"])
        assert rd.ping() is True
        for cmd in (["CONFIG", "SET", "dir", "/tmp"], ["SAVE"], ["FLUSHALL"], ["DEBUG", "SLEEP", "0"],
                    ["REPLICAOF", "127.0.0.1", "1"], ["MODULE", "LIST"]):
            with pytest.raises(redis.ResponseError, match="unknown command"):
                rd.execute_command(*cmd)
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(unix_socket_path=redis_sock).ping()  # without the password
        assert [s for s in kids["postgres"].net_connections("inet") if s.status == psutil.CONN_LISTEN] == []
        args = {
            "site": sysconfig.get_paths()["purelib"], "api": stack.url, "kafka": info["kafka_url"].split("://")[1],
            "files": {n: str(d / n) for n in ("run.json", "record-key", "pg-password", "redis-password", "api-key",
                                              "logs/api.log", "logs/worker-0.log", "pg/PG_VERSION", "redis/cache.rdb")},
            "dirs": {"data dir": str(d), "logs": str(d / "logs"), "pg": str(d / "pg"), "redis": str(d / "redis"),
                     "faust": str(d / "faust"), "redis socket dir": str(Path(redis_sock).parent),
                     "pg socket dir": pg_sock_dir},
            "sockets": {"redis": redis_sock, "postgres": f"{pg_sock_dir}/.s.PGSQL.5432"},
            "forged": [forged("forged-1", "I live in Forgedville"), forged("forged-2", "My PIN is in Forgedville")],
        }
        script = tmp_path / "intruder.py"
        script.write_text(INTRUDER_SCRIPT)
        os.chmod(tmp_path, 0o755)  # the script (only) readable: tmp_path's parents are searchable already
        os.chmod(script, 0o644)
        python = shutil.which("python3", path="/usr/bin:/usr/local/bin") or sys.executable
        r = subprocess.run([python, str(script), json.dumps(args)], capture_output=True, text=True, timeout=120,
                           cwd="/", **as_user(INTRUDER))
        assert r.returncode == 0, r.stderr
        got = json.loads(r.stdout)
        refused = {k: v for k, v in got.items() if k != "publish to the broker"}
        assert refused and all(v == "PermissionError" for v in refused.values()), got
        assert got["publish to the broker"] == "ok", got  # reachable, so the signature is what stops it

        # the forged records are dead letters with their reasons; a later real event of the same
        # partition is applied after them, and nothing forged is in the contact's context
        assert c.post("/ingest", json={"contact_id": "ana", "role": "user", "event_id": "real-2",
                                       "message": "I started learning the guitar"}).status_code == 202
        assert c.get("/context/ana", params={"after": "real-2"}).status_code == 200
        deadline, dead = time.monotonic() + 30, []
        while len(dead) < 2 and time.monotonic() < deadline:
            dead = [orjson.loads(v) for v in asyncio.run(read_topic(info["kafka_url"], "rapport.dead-letter", 5))]
        assert sorted(x["reason"].split(":")[0] for x in dead) == ["bad signature", "unsigned record"], dead
        everything = c.get("/contacts/ana/export").text + c.get("/context/ana").text
        assert "Forgedville" not in everything and "Forged" not in everything
        assert "Lisbon" in everything


def test_run_directories_refuse_a_planted_symlink_and_leave_its_target_alone(tmp_path):
    target = tmp_path / "victim"
    target.mkdir(mode=0o755)
    (target / "file").write_text("x")
    link = tmp_path / "rapport-pg-planted"
    link.symlink_to(target)
    before = os.stat(target)
    user = "rapport_redis" if os.geteuid() == 0 else None
    if user:
        from ops.embedded import _embedded_postgres

        _embedded_postgres().utils.ensure_user_exists(user)
    with pytest.raises(RuntimeError, match="symbolic link"):
        private_dir(link, user)
    after = os.stat(target)
    assert (after.st_uid, after.st_gid, after.st_mode) == (before.st_uid, before.st_gid, before.st_mode)
    # a plain file planted there is refused too; a directory of another user as well (as root)
    planted = tmp_path / "rapport-redis-file"
    planted.write_text("")
    with pytest.raises(RuntimeError, match="not a directory"):
        private_dir(planted)
    if os.geteuid() == 0:
        other = tmp_path / "rapport-pg-squatted"
        other.mkdir()
        os.chown(other, 65534, 65534)
        with pytest.raises(RuntimeError, match="another user"):
            private_dir(other, user)
    # and a fresh one is made 0700, owned by the user it is for
    fresh = private_dir(tmp_path / "rapport-pg-fresh", user)
    st = os.lstat(fresh)
    assert oct(st.st_mode & 0o777) == "0o700"
    assert st.st_uid == (__import__("pwd").getpwnam(user).pw_uid if user else os.geteuid())
