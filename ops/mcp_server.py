"""`rapport mcp`: rapport's memory as Model Context Protocol tools, so an agent runtime that speaks MCP
(Claude Desktop, IDE agents, agent frameworks) records messages and reads a contact's context without
code. A thin shell over the HTTP API through the Python client (rapport_client), so it serves any
rapport deployment, local or remote; the API judges every value and names the bad field, and its
refusals come back as tool errors carrying that message.

Transports: stdio (the client starts `rapport mcp` itself) and streamable HTTP. Over HTTP the endpoint
asks for `Authorization: Bearer <the rapport API key this server uses>`: holding the key already
grants what the tools do, and nothing more. Only a keyless rapport (no key at all) leaves it open, and
then only on a loopback bind. Message text is never logged (the SDK logs a failed tool's name and the
API's error, which names fields and problems, not values)."""
from __future__ import annotations

import hmac
import inspect
import logging
from importlib.metadata import version
from typing import Annotated, Any, Awaitable, Literal, Optional, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from rapport_client import AsyncRapport, RapportError
from rapport_client import settings as client_settings
from schemas import logsafe
from schemas.events import MAX_ID_CHARS, MAX_MESSAGE_BYTES
from streams.config import loopback

log = logging.getLogger("rapport.mcp")
T = TypeVar("T")
MAX_NAME_CHARS = 256         # session_id, display_name (the API's bound on names)
MAX_SYSTEM_PROMPT = 64 * 1024
MAX_BUDGET = 100_000         # tokens of memories one context may carry (the API takes up to 1,000,000)
MAX_SEARCH = 50
# `after`: one wait of the API's (up to 5 s), then a tool error saying it is not reflected yet; an agent's
# turn should not hang for the client's default 30 s on an id that was never recorded
AFTER_WAIT_S = 5.0
TOKENS_PER_SEARCH_HIT = 100  # /context packs memories into a token budget: about `limit` memories' worth

ContactId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS,
                                 description="the person's id in your system (1-128 characters)")]
EventId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS,
                               description="an event id that record_message returned")]
Message = Annotated[str, Field(min_length=1, max_length=MAX_MESSAGE_BYTES,
                               description="the message text (at most 16 KiB of UTF-8)")]
MemoryId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS,
                                description="a memory's id, as list_memories or search_memories return it")]
Query = Annotated[str, Field(min_length=1, max_length=MAX_MESSAGE_BYTES,
                             description="what to look for: usually the person's current message")]

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
INSTRUCTIONS = """rapport remembers each person (contact) you talk to. Before replying, call get_context
with the person's contact_id and their message as the query, and use its context_text. After each turn,
call record_message for the user's message and for your reply. search_memories finds what they told you
about something; list_triggers shows due check-ins and crisis flags; correct_memory fixes a wrong memory and
forget_memory forgets one (list_memories gives their ids); forget_contact erases a person."""


async def refusing(call: Awaitable[T]) -> T:
    """The API's refusal (or an unreachable API) as a tool error with the API's message, naming the
    bad fields; never a crash of the server."""
    try:
        return await call
    except RapportError as e:
        raise ToolError(f"rapport: {e.message}") from e
    except Exception as e:  # a bug: where it happened, never its message (it may quote the user's text)
        log.error("tool failed: %s", logsafe.where(e))
        raise ToolError(f"rapport: unexpected {type(e).__name__}") from None


def bad_arguments(error: ValidationError) -> str:
    """Arguments the tool's schema refuses, as the API words its refusals: `field: problem` each, never
    the value (it may be the user's text) nor pydantic's type code and documentation URL."""
    return "invalid arguments: " + "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in error.errors(include_url=False))


class RapportMCP(MCPServer):
    """The SDK's server, its refusal of bad arguments worded by bad_arguments (the SDK's own message is
    pydantic's: the model name, the rejected value, a type code and a URL)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as e:
            if isinstance(e.__cause__, ValidationError):  # kept as the cause: the SDK logs its field names
                raise ToolError(f"Error executing tool {name}: rapport: {bad_arguments(e.__cause__)}"
                                ) from e.__cause__
            raise


def api_json(model: Any, *exclude: str) -> dict[str, Any]:
    """A typed answer as the API's JSON (camelCase, as CONTRACT.md names the fields)."""
    return model.model_dump(mode="json", by_alias=True, exclude=set(exclude) or None)


def build_server(client: AsyncRapport, log_level: str = "warning") -> MCPServer:
    """The MCP server with rapport's tools, each a call through `client`."""
    mcp = RapportMCP("rapport", instructions=INSTRUCTIONS, version=version("rapport"),
                    log_level=log_level.upper())  # type: ignore[arg-type]

    def tool(**kw: Any):  # noqa: ANN202
        """mcp.tool with the docstring as a model reads it: no source indentation in the description."""
        return lambda fn: mcp.tool(description=inspect.cleandoc(fn.__doc__ or ""), **kw)(fn)

    # idempotent only when the caller names the event_id: hint false
    @tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                                          open_world_hint=False))
    async def record_message(
        contact_id: ContactId,
        role: Annotated[Literal["user", "assistant"], Field(description='"user": the person; "assistant": you')],
        message: Message,
        occurred_at: Annotated[Optional[str], Field(max_length=64, description="RFC 3339 with a timezone, "
                                                    "e.g. 2026-04-03T21:10:00+05:30; default: now")] = None,
        session_id: Annotated[Optional[str], Field(max_length=MAX_NAME_CHARS,
                                                   description="your conversation/session id")] = None,
        display_name: Annotated[Optional[str], Field(max_length=MAX_NAME_CHARS,
                                                     description="how the person is called")] = None,
        event_id: Annotated[Optional[str], Field(min_length=1, max_length=MAX_ID_CHARS,
                                                 description="idempotency key: the same id is recorded once "
                                                 "(default: a new one)")] = None,
    ) -> dict[str, Any]:
        """Record one chat message of a contact (theirs or yours). rapport turns messages into memories,
        mood and triggers within a moment; pass the returned eventId as `after` to get_context to read
        your own write."""
        event = {"contact_id": contact_id, "role": role, "message": message, "occurred_at": occurred_at,
                 "session_id": session_id, "display_name": display_name, "event_id": event_id}
        receipt = await refusing(client.ingest({k: v for k, v in event.items() if v is not None}))
        return {"eventId": receipt.last_event_id(contact_id), "duplicate": receipt.duplicates > 0}

    @tool(annotations=READS)
    async def get_context(
        contact_id: ContactId,
        query: Annotated[Optional[str], Field(max_length=MAX_MESSAGE_BYTES,
                                              description="the person's current message: ranks the memories "
                                              "by relevance to it")] = None,
        budget: Annotated[Optional[int], Field(ge=0, le=MAX_BUDGET,
                                               description="tokens of memories to include (default: by "
                                               "relationship stage)")] = None,
        after: Annotated[Optional[EventId], Field(description="wait until this recorded event is "
                                                  "reflected (read your own write)")] = None,
    ) -> dict[str, Any]:
        """What to know about a contact right now: `context_text` (put it in your system prompt), the
        ranked memories it was built from, their state (mood, relationship stage) and entities."""
        ctx = await refusing(client.context(contact_id, query=query, budget=budget, after=after,
                                            after_timeout=AFTER_WAIT_S))
        return api_json(ctx, "history")

    @tool(annotations=READS)
    async def search_memories(
        contact_id: ContactId,
        query: Query,
        limit: Annotated[int, Field(ge=1, le=MAX_SEARCH, description="how many memories at most")] = 10,
        after: Annotated[Optional[EventId], Field(description="wait until this recorded event is "
                                                  "reflected")] = None,
    ) -> dict[str, Any]:
        """The contact's memories most relevant to `query`, best first (facts, preferences, episodes,
        patterns; older ones from the archive come dated)."""
        ctx = await refusing(client.context(contact_id, query=query, budget=limit * TOKENS_PER_SEARCH_HIT,
                                            after=after, after_timeout=AFTER_WAIT_S))
        return {"memories": [api_json(m) for m in ctx.memories[:limit]]}

    @tool(annotations=READS)
    async def list_triggers(contact_id: ContactId) -> dict[str, Any]:
        """The contact's triggers: check-ins that are due, crisis flags for human review, owner insights;
        each with its due time, reason and the events it came from."""
        return {"triggers": [api_json(t) for t in (await refusing(client.triggers(contact_id))).triggers]}

    @tool(annotations=READS)
    async def get_payload(
        contact_id: ContactId,
        message: Message,
        system_prompt: Annotated[Optional[str], Field(max_length=MAX_SYSTEM_PROMPT,
                                                      description="your system prompt, placed first")] = None,
        after: Annotated[Optional[EventId], Field(description="wait until this recorded event is "
                                                  "reflected")] = None,
    ) -> dict[str, Any]:
        """A ready chat-completion payload for replying to `message`: the messages (system prompt,
        context, memories, recent turns, the message) within token budgets per section."""
        payload = await refusing(client.payload(contact_id, message, system_prompt=system_prompt, after=after,
                                                after_timeout=AFTER_WAIT_S))
        return api_json(payload)

    @tool(annotations=READS)
    async def list_memories(
        contact_id: ContactId,
        status: Annotated[Optional[Literal["active", "expired", "superseded", "merged", "compressed", "pruned",
                                           "archived"]], Field(description="only the memories of this status")] = None,
    ) -> dict[str, Any]:
        """Every memory rapport holds about a contact, with its id, status, importance and the events it came
        from: find the id of a memory to correct or forget."""
        got = await refusing(client.memories(contact_id, status=status))
        return {"memories": [api_json(m) for m in got.memories]}

    @tool(annotations=READS)
    async def get_memory(
        contact_id: ContactId,
        memory_id: MemoryId,
        after: Annotated[Optional[EventId], Field(description="wait until this event (a correction's eventId) "
                                                  "is reflected")] = None,
    ) -> dict[str, Any]:
        """One memory and its history: when it was extracted, reinforced, corrected, superseded..., with
        the text it had from each change."""
        return api_json(await refusing(client.memory(contact_id, memory_id, after=after,
                                                     after_timeout=AFTER_WAIT_S)))

    @tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                      open_world_hint=False))
    async def correct_memory(
        contact_id: ContactId,
        memory_id: MemoryId,
        content: Annotated[Optional[str], Field(min_length=1, max_length=MAX_MESSAGE_BYTES,
                                                description="the memory's corrected text")] = None,
        memory_type: Annotated[Optional[Literal["fact", "preference", "episode", "pattern"]],
                               Field(description="its corrected type")] = None,
        importance: Annotated[Optional[float], Field(ge=0.0, le=1.0, description="0 to 1")] = None,
        pinned: Annotated[Optional[bool], Field(description="a pinned memory does not decay")] = None,
    ) -> dict[str, Any]:
        """Correct a memory that is wrong: its text (and/or type, importance, pin). Everything that reads
        the contact's memory sees the correction, the old text stays in the memory's history, and saying
        the old text again does not bring it back. Returns eventId (pass it as `after` to read it)."""
        return api_json(await refusing(client.correct_memory(contact_id, memory_id, content=content,
                                                             memory_type=memory_type, importance=importance,
                                                             pinned=pinned)))

    @tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                                      open_world_hint=False))
    async def forget_memory(contact_id: ContactId, memory_id: MemoryId) -> dict[str, Any]:
        """Forget one memory of a contact: its text is deleted everywhere rapport holds it, and the message
        it came from does not bring it back. Cannot be undone."""
        return api_json(await refusing(client.forget_memory(contact_id, memory_id)))

    @tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                                          open_world_hint=False))
    async def forget_contact(contact_id: ContactId) -> dict[str, Any]:
        """Erase everything rapport holds about a contact (right to erasure): memories, state, triggers
        and recorded messages. Cannot be undone."""
        return api_json(await refusing(client.delete_contact(contact_id)))

    return mcp


class BearerRequired:
    """ASGI: every request needs `Authorization: Bearer <token>` (compared in constant time), else 401."""

    def __init__(self, app: ASGIApp, token: str):
        self.app, self.token = app, token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.authorized(dict(scope["headers"]).get(b"authorization", b"")):
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
            await send({"type": "http.response.body",
                        "body": b'{"error":"send Authorization: Bearer <the rapport API key>"}'})
            return
        await self.app(scope, receive, send)

    def authorized(self, header: bytes) -> bool:
        scheme, _, token = header.partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self.token)


def http_app(server: MCPServer, host: str, token: Optional[str]) -> ASGIApp:
    """The streamable HTTP endpoint (/mcp) behind the bearer check. No token (a keyless rapport) is
    allowed on a loopback bind only; the SDK then also checks Host/Origin against DNS rebinding."""
    if not token and not loopback(host):
        raise ValueError(f"refusing to serve MCP on {host} without a key: anyone who reaches it could read "
                         "and erase memories (set $RAPPORT_API_KEY, or bind to 127.0.0.1)")
    app = server.streamable_http_app(host=host)
    return BearerRequired(app, token) if token else app


def serve(url: Optional[str], transport: Literal["stdio", "http"], host: str, port: int,
          tenant_id: Optional[str] = None, key_file: Optional[str] = None, log_level: str = "warning") -> None:
    """Run until stopped: over stdio, or streamable HTTP at http://host:port/mcp. The key: the client's
    order ($RAPPORT_API_KEY, else the file $RAPPORT_API_KEY_FILE, else ./.rapport/api-key)."""
    import anyio

    key = client_settings.api_key(None, key_file)
    client = AsyncRapport(url, api_key=key, tenant_id=tenant_id)
    server = build_server(client, log_level)
    app = http_app(server, host, key) if transport == "http" else None  # refuses an open non-loopback bind

    async def run() -> None:
        try:
            if app is None:
                await server.run_stdio_async()
            else:
                import uvicorn

                await uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level=log_level,
                                                   access_log=False)).serve()
        finally:
            await client.aclose()

    anyio.run(run)
