"""`rapport mcp --transport stdio` as an MCP client starts it (a subprocess, driven by the SDK's stdio
client) against `rapport up`: record messages, read them back with `after`, search, triggers, a refusal
naming its field, forget."""
from __future__ import annotations

import json
import os
import sys
import time
import uuid
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import BACKENDS, stack_per_backend

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", params=BACKENDS)
def stack(tmp_path_factory, request):
    yield from stack_per_backend(tmp_path_factory, request, "mcp-e2e")


def data(result) -> dict:  # noqa: ANN001
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def test_an_mcp_client_records_reads_its_write_searches_and_forgets(stack, tmp_path):
    contact = f"arjun-{uuid.uuid4().hex[:6]}"
    server = StdioServerParameters(
        command=str(Path(sys.executable).parent / "rapport"), args=["mcp", "--url", stack.url],
        # what an MCP client's config gives it: the key in the environment; cwd anywhere (no ./.rapport)
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "RAPPORT_API_KEY": stack.api_key},
        cwd=str(tmp_path))
    async with Client(server) as mcp:
        said = ["Hi! I'm Arjun, a software engineer at Infosys.",
                "I have a golden retriever named Bruno, he's three.",
                "My dog Bruno ate my shoes again this morning",
                "I can't take this anymore. I want to die."]  # crisis language: a trigger
        ids = [data(await mcp.call_tool("record_message", {"contact_id": contact, "role": "user", "message": m,
                                                           "display_name": "Arjun"}))["eventId"] for m in said]
        assert len(set(ids)) == 4

        ctx = data(await mcp.call_tool("get_context", {"contact_id": contact, "query": "how is my dog?",
                                                       "budget": 1200, "after": ids[-1]}))
        assert any("Bruno" in m["content"] for m in ctx["memories"]), ctx["memories"]
        assert "Bruno" in ctx["context_text"] and ctx["contact"]["displayName"] == "Arjun"

        found = data(await mcp.call_tool("search_memories", {"contact_id": contact, "query": "Bruno", "limit": 3}))
        assert 1 <= len(found["memories"]) <= 3 and "Bruno" in found["memories"][0]["content"]

        triggers = data(await mcp.call_tool("list_triggers", {"contact_id": contact}))["triggers"]
        crisis = [t for t in triggers if t["kind"] == "crisis"]
        assert len(crisis) == 1 and crisis[0]["sourceEventIds"] == [ids[3]] and crisis[0]["humanReview"]

        refused = await mcp.call_tool("get_context", {"contact_id": "a/b"})  # the API's own check, by name
        assert refused.is_error and "contact_id" in refused.content[0].text

        erased = data(await mcp.call_tool("forget_contact", {"contact_id": contact}))
        assert erased["accepted"] and erased["erasureEventId"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            left = data(await mcp.call_tool("search_memories", {"contact_id": contact, "query": "Bruno"}))
            if not left["memories"]:
                break
            time.sleep(0.5)
        assert left["memories"] == []
        assert data(await mcp.call_tool("list_triggers", {"contact_id": contact}))["triggers"] == []
