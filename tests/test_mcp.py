"""`rapport mcp` (ops/mcp_server.py) driven by the MCP SDK's own client: in-process for the tools, over
real streamable HTTP for the bearer check. The rapport API is an httpx.MockTransport standing in for it
(its answers are the API's JSON, as in tests/test_client.py); tests/test_mcp_e2e.py runs the stdio
server against `rapport up`."""
from __future__ import annotations

import json
import socket

import anyio
import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ops.mcp_server import build_server, http_app
from rapport_client import AsyncRapport
from tests.test_client import CONTEXT, Api

MEMORY = CONTEXT["memories"][0]
CONTEXT3 = {**CONTEXT, "history": [{"role": "user", "content": "I moved to Berlin", "occurredAt": None}],
            "memories": [{**MEMORY, "id": f"m{i}", "content": c} for i, c in
                         enumerate(["Lives in Berlin", "Moved from Pune", "Works at Infosys"], start=1)]}
TRIGGER = {"id": "t1", "kind": "crisis", "dueAt": None, "reason": "crisis language", "status": "open",
           "severity": "high", "humanReview": True, "sourceEventIds": ["e9"], "createdAt": "2026-04-03T21:10:00Z"}


def mcp_over(api: Api) -> Client:
    """An MCP client session with the server, whose rapport client talks to `api` (no retries: the
    retries are the client's, tested in tests/test_client.py)."""
    rapport = AsyncRapport("http://rapport.test", api_key="rk_test_secret", retries=0,
                           transport=httpx.MockTransport(api))
    return Client(build_server(rapport))


def answer(result) -> dict:  # noqa: ANN001
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content  # text for models, JSON for code
    return result.structured_content


async def test_the_tools_are_listed_with_bounded_typed_parameters_and_forgetting_is_marked_destructive():
    async with mcp_over(Api(httpx.Response(500))) as mcp:
        tools = {t.name: t for t in (await mcp.list_tools()).tools}
    assert set(tools) == {"record_message", "get_context", "search_memories", "list_triggers", "get_payload",
                          "forget_contact", "list_memories", "get_memory", "correct_memory", "forget_memory"}
    for tool in tools.values():
        contact = tool.input_schema["properties"]["contact_id"]
        assert (contact["minLength"], contact["maxLength"]) == (1, 128) and contact["description"]
        assert "contact_id" in tool.input_schema["required"] and tool.description
        # as a model reads it: the docstring's sentences, not its source indentation
        assert not any(line.startswith(" ") for line in tool.description.splitlines()), tool.description
    assert tools["forget_contact"].annotations.destructive_hint is True
    assert tools["forget_memory"].annotations.destructive_hint is True
    assert tools["correct_memory"].annotations.destructive_hint is False
    assert tools["record_message"].annotations.read_only_hint is False
    assert tools["record_message"].annotations.destructive_hint is False
    assert all(tools[n].annotations.read_only_hint for n in ("get_context", "search_memories", "list_triggers",
                                                             "list_memories", "get_memory"))
    record = tools["record_message"].input_schema
    assert record["properties"]["role"]["enum"] == ["user", "assistant"]
    assert set(record["required"]) == {"contact_id", "role", "message"}
    assert record["properties"]["message"]["maxLength"] == 16 * 1024
    assert tools["search_memories"].input_schema["properties"]["limit"]["maximum"] == 50


async def test_record_message_sends_one_event_and_returns_its_id():
    api = Api(httpx.Response(202, json={"accepted": 1, "eventIds": ["x"], "duplicates": 0}),
              httpx.Response(202, json={"accepted": 0, "eventIds": ["msg-7"], "duplicates": 1}))
    async with mcp_over(api) as mcp:
        first = answer(await mcp.call_tool("record_message", {
            "contact_id": "arjun", "role": "user", "message": "My dog Bruno ate my shoes",
            "display_name": "Arjun", "session_id": "s1", "occurred_at": "2026-04-03T21:10:00+05:30"}))
        again = answer(await mcp.call_tool("record_message", {
            "contact_id": "arjun", "role": "assistant", "message": "Oh no!", "event_id": "msg-7"}))
    sent, resent = api.bodies()
    assert len(sent) == 1 and sent[0]["event_id"]
    assert {k: v for k, v in sent[0].items() if k != "event_id"} == {
        "contact_id": "arjun", "role": "user", "message": "My dog Bruno ate my shoes", "display_name": "Arjun",
        "session_id": "s1", "occurred_at": "2026-04-03T21:10:00+05:30"}  # no nulls for what was left out
    assert first == {"eventId": sent[0]["event_id"], "duplicate": False}  # the id the event was sent with
    assert resent[0]["event_id"] == "msg-7" and again == {"eventId": "msg-7", "duplicate": True}


async def test_get_context_asks_with_query_budget_and_after_and_returns_text_state_and_memories():
    api = Api(httpx.Response(200, json=CONTEXT3))
    async with mcp_over(api) as mcp:
        out = answer(await mcp.call_tool("get_context", {"contact_id": "arjun", "query": "where do I live?",
                                                          "budget": 800, "after": "e1"}))
    (req,) = api.requests
    assert req.method == "GET" and req.url.path == "/context/arjun"
    assert dict(req.url.params) == {"query": "where do I live?", "budget": "800", "after": "e1"}
    assert out["context_text"] == "Knows: lives in Berlin" and out["state"]["relationshipStage"] == "building"
    assert [m["content"] for m in out["memories"]] == ["Lives in Berlin", "Moved from Pune", "Works at Infosys"]
    assert out["memories"][0]["memoryType"] == "fact" and out["memories"][0]["sourceEventIds"] == ["e1"]
    assert "history" not in out  # the runtime holds the conversation itself


async def test_search_memories_returns_the_best_ranked_up_to_the_limit():
    api = Api(httpx.Response(200, json=CONTEXT3))
    async with mcp_over(api) as mcp:
        out = answer(await mcp.call_tool("search_memories", {"contact_id": "arjun", "query": "where", "limit": 2}))
    assert [m["id"] for m in out["memories"]] == ["m1", "m2"]  # the API's order, cut at the limit
    assert api.requests[0].url.params["query"] == "where" and api.requests[0].url.params["budget"] == "200"


async def test_triggers_payload_and_forgetting_call_their_routes():
    payload = {"messages": [{"role": "system", "content": "Be kind.\n\nKnows: lives in Berlin"},
                            {"role": "user", "content": "hi"}],
               "budget": {"memories": {"used": 12, "limit": 500}}}
    api = Api(httpx.Response(200, json={"contactId": "arjun", "tenantId": "default", "triggers": [TRIGGER]}),
              httpx.Response(200, json=payload),
              httpx.Response(202, json={"accepted": True, "erasureEventId": "erase-1"}))
    async with mcp_over(api) as mcp:
        triggers = answer(await mcp.call_tool("list_triggers", {"contact_id": "arjun"}))
        chat = answer(await mcp.call_tool("get_payload", {"contact_id": "arjun", "message": "hi",
                                                          "system_prompt": "Be kind."}))
        erased = answer(await mcp.call_tool("forget_contact", {"contact_id": "arjun/x"}))
    assert [(r.method, r.url.raw_path.decode()) for r in api.requests] == [
        ("GET", "/contacts/arjun/triggers"), ("POST", "/payload"), ("DELETE", "/contacts/arjun%2Fx")]
    assert triggers["triggers"][0]["kind"] == "crisis" and triggers["triggers"][0]["humanReview"] is True
    assert json.loads(api.requests[1].content) == {"contact_id": "arjun", "message": "hi", "system_prompt": "Be kind."}
    assert chat["messages"] == payload["messages"] and chat["budget"]["memories"]["used"] == 12
    assert erased == {"accepted": True, "erasureEventId": "erase-1"}


async def test_the_apis_refusals_are_tool_errors_naming_the_field_and_the_server_keeps_serving():
    bad = {"error": "invalid events; nothing was accepted",
           "errors": [{"index": 0, "field": "occurred_at", "problem": "needs a timezone"}]}
    calls = iter([httpx.Response(422, json=bad), httpx.Response(401, json={"error": "invalid or revoked API key"}),
                  httpx.ConnectError("connection refused"), httpx.Response(200, json=CONTEXT)])

    def api(request: httpx.Request) -> httpx.Response:
        step = next(calls)
        if isinstance(step, Exception):
            raise step
        return step

    async with mcp_over(api) as mcp:
        refused = await mcp.call_tool("record_message", {"contact_id": "a", "role": "user", "message": "hi",
                                                         "occurred_at": "2026-04-03 21:10"})
        unauthorized = await mcp.call_tool("list_triggers", {"contact_id": "a"})
        unreachable = await mcp.call_tool("get_context", {"contact_id": "a"})
        fine = await mcp.call_tool("get_context", {"contact_id": "a"})
    assert refused.is_error and refused.content[0].text == ("Error executing tool record_message: rapport: 422 "
                                                            "invalid events; nothing was accepted: occurred_at: "
                                                            "needs a timezone")
    assert unauthorized.is_error and "401 invalid or revoked API key" in unauthorized.content[0].text
    assert unreachable.is_error and "GET http://rapport.test/context/a" in unreachable.content[0].text
    assert answer(fine)["context_text"] == "Knows: lives in Berlin"


async def test_an_answer_the_client_cannot_read_is_a_tool_error_logged_without_its_values(caplog):
    broken = {**CONTEXT, "memories": [{**MEMORY, "content": "my secret diary", "importance": "very"}]}
    async with mcp_over(Api(httpx.Response(200, json=broken))) as mcp:
        result = await mcp.call_tool("get_context", {"contact_id": "a"})
    assert result.is_error and result.content[0].text.endswith("rapport: unexpected ValidationError")
    assert "ValidationError at" in caplog.text and "secret diary" not in caplog.text + result.content[0].text


async def test_arguments_out_of_bounds_are_refused_before_the_api_is_asked():
    api = Api(httpx.Response(200, json=CONTEXT))
    async with mcp_over(api) as mcp:
        long_id = await mcp.call_tool("get_context", {"contact_id": "x" * 129})
        no_id = await mcp.call_tool("list_triggers", {"contact_id": ""})
        too_many = await mcp.call_tool("search_memories", {"contact_id": "a", "query": "q", "limit": 51})
        big = await mcp.call_tool("record_message", {"contact_id": "a", "role": "user", "message": "x" * 16385})
    for result, field in ((long_id, "contact_id"), (no_id, "contact_id"), (too_many, "limit"), (big, "message")):
        assert result.is_error and field in result.content[0].text
    assert api.requests == []


async def test_bad_arguments_come_back_naming_the_field_without_pydantics_url_or_the_value():
    api = Api(httpx.Response(200, json=CONTEXT))
    async with mcp_over(api) as mcp:
        role = await mcp.call_tool("record_message", {"contact_id": "a", "role": "bot", "message": "my secret"})
        missing = await mcp.call_tool("record_message", {"contact_id": "a", "role": "user"})
        typed = await mcp.call_tool("search_memories", {"contact_id": "a", "query": "q", "limit": "many"})
    assert role.is_error and role.content[0].text == (
        "Error executing tool record_message: rapport: invalid arguments: role: Input should be 'user' or "
        "'assistant'")
    assert missing.is_error and missing.content[0].text.endswith("invalid arguments: message: Field required")
    assert typed.is_error and "invalid arguments: limit: " in typed.content[0].text
    for result in (role, missing, typed):
        text = result.content[0].text
        assert "http" not in text and "type=" not in text and "input_value" not in text and "Arguments" not in text
    assert "bot" not in role.content[0].text.replace("record_message", "")
    assert api.requests == []


async def test_every_tool_with_after_gives_up_after_the_servers_wait_not_the_clients_30_s(monkeypatch):
    """An `after` never recorded: each tool's one wait (AFTER_WAIT_S, shortened here), then a tool error."""
    import time

    import ops.mcp_server
    monkeypatch.setattr(ops.mcp_server, "AFTER_WAIT_S", 0.3)
    late = httpx.Response(504, json={"error": "event not reflected in the projections yet", "event_id": "nope"})

    def api(request: httpx.Request) -> httpx.Response:
        time.sleep(0.05)  # the API's wait, shortened
        return late

    calls = {"get_context": {"contact_id": "a", "after": "nope"},
             "search_memories": {"contact_id": "a", "query": "q", "after": "nope"},
             "get_payload": {"contact_id": "a", "message": "hi", "after": "nope"},
             "get_memory": {"contact_id": "a", "memory_id": "m1", "after": "nope"}}
    async with mcp_over(api) as mcp:
        for name, arguments in calls.items():
            started = time.monotonic()
            result = await mcp.call_tool(name, arguments)
            assert result.is_error and "not reflected" in result.content[0].text, name
            assert time.monotonic() - started < 2.0, name


# ------------------------------------------------------------------------------ streamable HTTP
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_over_http_the_endpoint_needs_the_rapport_key_as_bearer():
    api = Api(httpx.Response(200, json=CONTEXT))
    rapport = AsyncRapport("http://rapport.test", api_key="rk_test_secret", retries=0,
                           transport=httpx.MockTransport(api))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(http_app(build_server(rapport), "127.0.0.1", "rk_test_secret"),
                                           host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    url = f"http://127.0.0.1:{port}/mcp"
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.02)
        try:
            init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
            async with httpx.AsyncClient() as raw:
                headers = {"Accept": "application/json, text/event-stream"}
                none = await raw.post(url, json=init, headers=headers)
                wrong = await raw.post(url, json=init, headers={**headers, "Authorization": "Bearer rk_test_other"})
            assert none.status_code == 401 and wrong.status_code == 401
            assert none.headers["www-authenticate"] == "Bearer"
            async with httpx2.AsyncClient(headers={"Authorization": "Bearer rk_test_secret"}) as http:
                async with Client(streamable_http_client(url, http_client=http)) as mcp:
                    out = answer(await mcp.call_tool("get_context", {"contact_id": "arjun"}))
            assert out["context_text"] == "Knows: lives in Berlin"
            assert api.requests[0].headers["authorization"] == "Bearer rk_test_secret"
        finally:
            server.should_exit = True


def test_an_open_endpoint_is_refused_beyond_loopback():
    server = build_server(AsyncRapport("http://rapport.test", api_key="k"))
    with pytest.raises(ValueError, match="without a key"):
        http_app(server, "0.0.0.0", None)
    assert http_app(server, "127.0.0.1", None) is not None  # a keyless rapport, reachable from this machine only
    assert http_app(server, "0.0.0.0", "rk_x_y").token == b"rk_x_y"  # beyond loopback: behind the bearer check


def test_the_cli_refuses_an_open_non_loopback_bind(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from ops.cli import main

    monkeypatch.delenv("RAPPORT_API_KEY", raising=False)
    monkeypatch.delenv("RAPPORT_API_KEY_FILE", raising=False)
    monkeypatch.chdir(tmp_path)  # no ./.rapport/api-key here
    result = CliRunner().invoke(main, ["mcp", "--transport", "http", "--host", "0.0.0.0"])
    assert result.exit_code == 1 and "refusing to serve MCP on 0.0.0.0 without a key" in result.output


async def test_get_context_after_an_event_never_recorded_is_a_tool_error_within_one_wait_of_the_api():
    """The API answers 504 after its own wait (5 s) when `after` is not reflected; the tool gives up
    after that one wait (AFTER_WAIT_S) instead of the client's default 30 s of asking again."""
    import time

    import ops.mcp_server as server

    calls: list[float] = []

    def slow_504(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        time.sleep(0.2)  # the API's wait, shortened
        return httpx.Response(504, json={"error": "event not reflected yet", "errors": []})

    t0 = time.monotonic()
    server_wait = server.AFTER_WAIT_S
    server.AFTER_WAIT_S = 0.5
    try:
        async with mcp_over(slow_504) as mcp:
            result = await mcp.call_tool("get_context", {"contact_id": "arjun", "after": "never-sent"})
    finally:
        server.AFTER_WAIT_S = server_wait
    assert result.is_error and "not reflected" in result.content[0].text
    assert time.monotonic() - t0 < 5 and 1 <= len(calls) <= 4
