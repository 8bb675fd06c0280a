"""The MCP server's memory curation tools (ops/mcp_server.py): each calls its route through the client,
with the arguments the API takes, and gives back the API's JSON; a 404 is a tool error naming it."""
from __future__ import annotations

import json

import httpx

from tests.test_mcp import answer, mcp_over
from tests.test_client import Api

DETAIL = {"id": "m1", "memoryType": "fact", "content": "Lives in Pune", "importance": 0.7, "score": None,
          "entityRefs": [], "sourceEventIds": ["e1"], "createdAt": "2026-04-03T21:00:00Z", "scope": "contact",
          "status": "active", "confidence": 0.9, "source": "rules", "pinned": False, "memoryKey": "fact|self|lives_in",
          "topics": [], "validFrom": "2026-04-03T21:00:00Z", "validTo": None, "retiredAt": None, "expiresAt": None,
          "supersededBy": None, "accessCount": 0, "accessedAt": "2026-04-03T21:00:00Z",
          "updatedAt": "2026-04-03T21:10:00Z", "personaId": None}
HISTORY = [{"event_id": "d1", "kind": "extracted", "content": "Lives in Mumbai", "at": "2026-04-03T21:00:00Z",
            "eventType": "MemoryExtracted", "causationId": "e1"},
           {"event_id": "d2", "kind": "corrected", "content": "Lives in Pune", "at": "2026-04-03T21:10:00Z",
            "eventType": "MemoryCorrected", "causationId": "x1"}]


async def test_list_get_correct_and_forget_call_their_routes():
    api = Api(httpx.Response(200, json={"contactId": "maya", "tenantId": "default", "memories": [DETAIL]}),
              httpx.Response(202, json={"eventId": "x1", "memoryId": "m1"}),
              httpx.Response(200, json={**DETAIL, "contactId": "maya", "tenantId": "default", "history": HISTORY}),
              httpx.Response(202, json={"eventId": "f1", "memoryId": "m1"}),
              httpx.Response(404, json={"error": "no such memory", "memory_id": "m1",
                                        "errors": [{"field": "memory_id", "problem": "the contact has no memory "
                                                                                     "of this id"}]}))
    async with mcp_over(api) as mcp:
        listed = answer(await mcp.call_tool("list_memories", {"contact_id": "maya", "status": "active"}))
        fixed = answer(await mcp.call_tool("correct_memory", {"contact_id": "maya", "memory_id": "m1",
                                                              "content": "Lives in Pune", "pinned": True}))
        one = answer(await mcp.call_tool("get_memory", {"contact_id": "maya", "memory_id": "m1", "after": "x1"}))
        gone = answer(await mcp.call_tool("forget_memory", {"contact_id": "maya", "memory_id": "m1"}))
        missing = await mcp.call_tool("get_memory", {"contact_id": "maya", "memory_id": "m1"})
    assert [(r.method, r.url.raw_path.decode()) for r in api.requests] == [
        ("GET", "/contacts/maya/memories?status=active"), ("PATCH", "/contacts/maya/memories/m1"),
        ("GET", "/contacts/maya/memories/m1?after=x1"), ("DELETE", "/contacts/maya/memories/m1"),
        ("GET", "/contacts/maya/memories/m1")]
    assert json.loads(api.requests[1].content) == {"content": "Lives in Pune", "pinned": True}
    assert listed["memories"][0]["id"] == "m1"
    assert fixed == {"eventId": "x1", "memoryId": "m1"} and gone == {"eventId": "f1", "memoryId": "m1"}
    assert [(h["kind"], h["content"]) for h in one["history"]] == [("extracted", "Lives in Mumbai"),
                                                                     ("corrected", "Lives in Pune")]
    assert one["history"][0]["event_id"] == "d1"
    assert missing.is_error and "no such memory" in missing.content[0].text
