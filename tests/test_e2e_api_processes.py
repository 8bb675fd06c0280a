"""Two API processes on one port (`rapport up`'s default on two cores): requests reach both, and when one
dies the other answers every new request while the supervisor restarts it. (What was in flight on the
dead one, or queued on its socket in the moment it died, fails: clients retry, as rapport_client does.)"""
from __future__ import annotations

import time

import httpx
import psutil
import pytest

from tests.conftest import BACKENDS
from tests.stack import RunningStack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def api_requests(stack: RunningStack, name: str) -> float:
    """GET /healthz requests that process `name` answered, from its own /metrics port."""
    text = httpx.get(stack.run_info["metrics"][name], timeout=10).text
    line = [ln for ln in text.splitlines() if ln.startswith('rapport_request_seconds_count{route="/healthz"}')]
    return float(line[0].split()[-1]) if line else 0.0


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_both_api_processes_answer_and_when_one_dies_the_other_answers(tmp_path, backend):
    stack = RunningStack(tmp_path / "data", api_processes=2, env=backend)
    stack.start()
    try:
        assert {"api", "api-1"} <= set(stack.run_info["children"])
        for _ in range(60):  # a new connection each: the kernel spreads them over the two
            assert httpx.get(f"{stack.url}/healthz", timeout=10).status_code == 200
        assert api_requests(stack, "api") > 0 and api_requests(stack, "api-1") > 0

        dead = psutil.Process(stack.run_info["children"]["api"])
        dead.kill()
        dead.wait(10)  # gone: its socket no longer takes connections
        with stack.client() as c:
            c.headers["Connection"] = "close"
            failed = 0
            for _ in range(100):
                try:
                    failed += c.get("/context/nobody").status_code != 200
                except httpx.TransportError:
                    failed += 1
                time.sleep(0.01)
        assert failed == 0
        deadline = time.monotonic() + 60  # and the killed one is back
        while "api restarted" not in "".join(stack.output) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert "api restarted" in "".join(stack.output), stack.logs()
    finally:
        code, _, _ = stack.stop()
    assert code == 0
