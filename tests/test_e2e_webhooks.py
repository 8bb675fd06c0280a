"""Webhooks end to end: `rapport up` with local receivers that verify every signature. A crisis message
and a fact reach the subscribed receivers signed; a receiver failing twice gets the event on the third
try; one that keeps failing is dead-lettered (visible on the API); a killed delivery process is
restarted by the supervisor and delivers what comes next."""
from __future__ import annotations

import os
import signal
import time

import orjson
import pytest

from streams.webhooks import signing
from tests.conftest import BACKENDS
from tests.helpers import Receiver
from tests.stack import RunningStack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

CRISIS = "honestly I can't take this anymore, I just want to die"


def wait_until(what: str, check, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def received(r: Receiver, secret: str) -> list[dict]:
    """Every request's body, after checking its signature (a bad one fails the test)."""
    out = []
    for headers, body in list(r.requests):
        event_id = signing.verify(secret, headers, body)
        doc = orjson.loads(body)
        assert doc["id"] == event_id
        out.append(doc)
    return out


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_signed_deliveries_retries_dead_letters_and_a_restarted_delivery_process(tmp_path, monkeypatch, backend):
    for k, v in {"RAPPORT_WEBHOOK_ALLOW_PRIVATE": "1", "RAPPORT_WEBHOOK_MAX_ATTEMPTS": "3",
                 "RAPPORT_WEBHOOK_RETRY_BASE_S": "0.5", "RAPPORT_WEBHOOK_RETRY_MAX_S": "1"}.items():
        monkeypatch.setenv(k, v)  # inherited by `rapport up` and its children
    good, flaky, down = Receiver(), Receiver([500, 500, 200]), Receiver([503])
    stack = RunningStack(tmp_path / "data", env=backend)
    stack.start()
    try:
        with stack.client() as c:
            def subscribe(r: Receiver, events: list[str]) -> tuple[str, str]:
                resp = c.post("/webhooks", json={"url": r.url, "events": events})
                assert resp.status_code == 201, resp.text
                return resp.json()["id"], resp.json()["secret"]

            good_id, good_secret = subscribe(good, ["TriggerCreated:crisis", "MemoryExtracted"])
            flaky_id, flaky_secret = subscribe(flaky, ["TriggerCreated"])
            down_id, _ = subscribe(down, ["TriggerCreated:crisis"])
            assert "secret" not in c.get(f"/webhooks/{good_id}").json()

            r = c.post("/ingest", json=[
                {"contact_id": "meera", "role": "user", "event_id": "wh-1",
                 "message": "I have a golden retriever named Bruno"},
                {"contact_id": "meera", "role": "user", "event_id": "wh-2", "message": CRISIS}])
            assert r.status_code == 202, r.text

            def kinds(docs: list[dict]) -> set[str]:
                return {d["data"]["trigger"]["kind"] for d in docs if d["type"] == "TriggerCreated"}

            def memories(docs: list[dict]) -> set[str]:
                return {d["data"]["memory"]["content"] for d in docs if d["type"] == "MemoryExtracted"}

            wait_until("the crisis flag and the fact at the good receiver", lambda: "crisis" in kinds(
                received(good, good_secret)) and "Has a golden retriever named Bruno" in memories(
                received(good, good_secret)))
            docs = received(good, good_secret)
            crisis = [d for d in docs if d["type"] == "TriggerCreated"][0]
            assert crisis["contactId"] == "meera" and crisis["tenantId"] == "default"
            assert crisis["data"]["trigger"]["humanReview"] is True
            assert crisis["data"]["trigger"]["sourceEventIds"] == ["wh-2"]
            assert {d["type"] for d in docs} == {"TriggerCreated", "MemoryExtracted"}  # only what it subscribed to
            assert all("embedding" not in d["data"]["memory"] for d in docs if d["type"] == "MemoryExtracted")

            # failing twice, then 200: the same event (same webhook-id) three times, delivered on the third
            wait_until("the flaky receiver's third attempt", lambda: len(flaky.requests) >= 3)
            ids = [d["id"] for d in received(flaky, flaky_secret)]
            assert ids == [crisis["id"]] * 3
            wait_until("the flaky delivery recorded", lambda: c.get(f"/webhooks/{flaky_id}/deliveries").json()[
                "deliveries"][0]["status"] == "delivered")
            # failing every time: dead-lettered after the third attempt, with the reason
            wait_until("the dead letter", lambda: c.get(f"/webhooks/{down_id}").json()["dead"] == 1)
            (dead,) = c.get(f"/webhooks/{down_id}/deliveries", params={"status": "dead"}).json()["deliveries"]
            assert (dead["eventId"], dead["attempts"], dead["lastStatus"], dead["lastError"]) == (
                crisis["id"], 3, 503, "HTTP 503")
            assert len(down.requests) == 3

            # the delivery process killed: `rapport up` restarts it, and the next crisis arrives
            pid = stack.run_info["children"]["webhooks"]
            os.kill(pid, signal.SIGKILL)
            wait_until("the restart", lambda: stack.run_info["children"]["webhooks"] != pid, timeout=30)
            assert c.post("/ingest", json={"contact_id": "ravi", "role": "user", "event_id": "wh-3",
                                           "message": CRISIS}).status_code == 202
            wait_until("ravi's crisis flag", lambda: any(
                d["contactId"] == "ravi" and d["type"] == "TriggerCreated" for d in received(good, good_secret)))
        code, _, alive = stack.stop()
        assert code == 0 and alive == []
    finally:
        stack.kill()
        for r in (good, flaky, down):
            r.close()
