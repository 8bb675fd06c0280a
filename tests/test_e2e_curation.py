"""Memory curation end to end, over HTTP on `rapport up`: correct one memory, forget another; /context,
the memory routes and the export reflect both, a subscribed receiver gets both events signed, extraction
does not bring the old text back, and `rapport replay --verify` rebuilds the same projection."""
from __future__ import annotations

import subprocess
import sys
import time

import orjson
import pytest

from streams.webhooks import signing
from tests.helpers import Receiver
from tests.stack import RunningStack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def wait_until(what: str, check, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def test_correct_forget_context_export_webhooks_and_replay(tmp_path, monkeypatch):
    monkeypatch.setenv("RAPPORT_WEBHOOK_ALLOW_PRIVATE", "1")
    hook = Receiver()
    stack = RunningStack(tmp_path / "data")
    stack.start()
    try:
        with stack.client() as c:
            r = c.post("/webhooks", json={"url": hook.url, "events": ["MemoryCorrected", "MemoryForgotten"]})
            assert r.status_code == 201, r.text
            secret = r.json()["secret"]
            r = c.post("/ingest", json=[
                {"contact_id": "maya", "role": "user", "message": "I live in Mumbai and I have a dog named Bruno"},
                {"contact_id": "maya", "role": "user", "message": "I love green tea in the morning"}])
            last = r.json()["eventIds"][-1]
            assert c.get("/context/maya", params={"after": last}).status_code == 200
            mems = {m["content"]: m for m in c.get("/contacts/maya/memories").json()["memories"]}
            lives, dog = mems["Lives in Mumbai"]["id"], mems["Has a dog named Bruno"]["id"]

            # the routes' edges: unknown ids, bad bodies, another contact's memory
            assert c.get(f"/contacts/maya/memories/nope").json()["memory_id"] == "nope"
            assert c.patch(f"/contacts/maya/memories/nope", json={"content": "x"}).status_code == 404
            assert c.delete(f"/contacts/maya/memories/nope").status_code == 404
            assert c.delete(f"/contacts/other/memories/{dog}").status_code == 404
            bad = c.patch(f"/contacts/maya/memories/{lives}", json={"content": "x", "colour": "red"})
            assert bad.status_code == 422 and "colour" in bad.text
            assert c.patch(f"/contacts/maya/memories/{lives}", json={"content": "   "}).status_code == 422
            assert c.patch(f"/contacts/maya/memories/{lives}", json={}).status_code == 422
            assert c.patch(f"/contacts/maya/memories/{lives}",
                           json={"content": "x" * (16 * 1024 + 1)}).status_code == 422

            fix = c.patch(f"/contacts/maya/memories/{lives}", json={"content": "Lives in Pune"})
            assert fix.status_code == 202 and fix.json()["memoryId"] == lives
            gone = c.delete(f"/contacts/maya/memories/{dog}")
            assert gone.status_code == 202 and gone.json()["memoryId"] == dog

            one = c.get(f"/contacts/maya/memories/{lives}", params={"after": fix.json()["eventId"]}).json()
            assert one["content"] == "Lives in Pune" and one["status"] == "active"
            kinds = [(h["kind"], h["content"]) for h in one["history"]]
            assert kinds[0] == ("extracted", "Lives in Mumbai") and ("corrected", "Lives in Pune") in kinds
            ctx = c.get("/context/maya", params={"after": gone.json()["eventId"], "query": "where do I live?"}).json()
            texts = [m["content"] for m in ctx["memories"]]
            assert "Lives in Pune" in texts and "Lives in Mumbai" not in texts
            assert "Has a dog named Bruno" not in orjson.dumps(ctx).decode()
            assert c.get(f"/contacts/maya/memories/{dog}").status_code == 404
            listed = c.get("/contacts/maya/memories").json()["memories"]
            assert dog not in {m["id"] for m in listed}

            # the old text said again brings nothing back
            again = c.post("/ingest", json={"contact_id": "maya", "role": "user", "message": "I live in Mumbai"})
            c.get("/context/maya", params={"after": again.json()["eventIds"][0]})
            facts = [m["content"] for m in c.get("/contacts/maya/memories", params={"status": "active"}).json()[
                "memories"] if m["memoryType"] == "fact"]
            assert "Lives in Pune" in facts and "Lives in Mumbai" not in facts

            export = c.get("/contacts/maya/export").json()
            assert "Has a dog named Bruno" not in orjson.dumps(export).decode()
            assert "Lives in Pune" in {m["content"] for m in export["memories"]}

            wait_until("both webhook deliveries", lambda: len(hook.requests) >= 2)
            got = {}
            for headers, body in hook.requests:
                assert signing.verify(secret, headers, body)
                doc = orjson.loads(body)
                got[doc["type"]] = doc["data"]
            assert got["MemoryCorrected"]["memoryId"] == lives and got["MemoryCorrected"]["content"] == "Lives in Pune"
            assert got["MemoryForgotten"] == {"memoryId": dog, "at": got["MemoryForgotten"]["at"]}

            # the operator's CLI, through the same API with the data dir's key
            def cli(*args: str) -> str:
                run = subprocess.run([sys.executable, "-m", "ops.cli", "memories", *args, "--url", stack.url,
                                      "--data-dir", str(stack.data_dir)], capture_output=True, text=True, timeout=60)
                assert run.returncode == 0, run.stdout + run.stderr
                return run.stdout
            listed = cli("list", "maya")
            assert "Lives in Pune" in listed and "Has a dog named Bruno" not in listed
            shown = cli("show", "maya", lives)
            assert "corrected" in shown and "'Lives in Pune'" in shown and "'Lives in Mumbai'" in shown
            tea = next(ln.split()[1] for ln in cli("search", "maya", "green tea").splitlines() if "green tea" in ln)
            assert f"forgot {tea}" in cli("forget", "maya", tea, "--wait")
            assert tea not in cli("list", "maya")
            # an episode's text is its message: forgotten, it leaves the history /context serves and the export
            assert "green tea" in orjson.dumps(c.get("/context/maya").json()["history"]).decode()
            for m in c.get("/contacts/maya/memories").json()["memories"]:
                if "green tea" in m["content"]:  # the episode, and a preference read from the same message
                    assert f"forgot {m['id']}" in cli("forget", "maya", m["id"], "--wait")
            assert "green tea" not in orjson.dumps(c.get("/context/maya").json()).decode()
            export = c.get("/contacts/maya/export").json()
            assert "green tea" not in orjson.dumps(export).decode()
            assert any(m.get("forgotten") and m["message"] is None for m in export["messages"])
            missing = subprocess.run([sys.executable, "-m", "ops.cli", "memories", "show", "maya", tea, "--url",
                                      stack.url, "--data-dir", str(stack.data_dir)], capture_output=True, text=True,
                                     timeout=60)
            assert missing.returncode != 0 and "no such memory" in missing.stderr

            rep = subprocess.run([sys.executable, "-m", "ops.cli", "replay", "--into", "v2", "--verify",
                                  "--data-dir", str(stack.data_dir)], capture_output=True, text=True, timeout=300)
            assert rep.returncode == 0 and "MATCH" in rep.stdout, rep.stdout + rep.stderr
            after_replay = c.get(f"/contacts/maya/memories/{lives}").json()
            assert after_replay["content"] == "Lives in Pune"
            assert c.get(f"/contacts/maya/memories/{dog}").status_code == 404
    finally:
        stack.kill()
        hook.close() if hasattr(hook, "close") else None
