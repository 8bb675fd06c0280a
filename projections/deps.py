"""The edge every route module shares, neutral (it imports no route module and not projections/api.py):
the JSON answer, the documented answers, the parameters with their rules, the principal, the checks that
answer 400 naming the field, read-your-writes, the contact's clock, and `svc`: the service of the app
serving the request (bound per request by api.BindService; create_app makes one per app)."""
from __future__ import annotations

import asyncio
import time
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import Annotated, Any, TypeVar

import orjson
from fastapi import Depends, Path as FastPath, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field, ValidationError

from domain import clock
from projections import auth, pages
from projections import responses as out
from projections.service import AFTER_TIMEOUT_S
from schemas import events as ev
from schemas import validate
from schemas.envelope import now_utc
from streams import ingest as ingest_mod
from streams import tracing

CURRENT: ContextVar[Any] = ContextVar("rapport_api_service")


class CurrentService:
    """The projections.service.Service of the app serving this request (api.BindService binds it); code run
    outside a request (a test calling a handler's helper) binds one with `CURRENT.set(service)`."""
    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        return getattr(CURRENT.get(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(CURRENT.get(), name, value)


svc: Any = CurrentService()


class JSONBody(JSONResponse):
    """orjson-encoded JSON (FastAPI's ORJSONResponse is deprecated); a JSONResponse, so the OpenAPI
    document shows the routes' response models."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def answers(model: type, status: int = 200, errors: dict[int, type] | None = None) -> dict[str, Any]:
    """A route's documented answers: `model` (the handlers return their JSON themselves, so the model
    only describes it: projections/responses.py), and its `errors` beside those any keyed route gives."""
    documented = {401: out.ErrorBody, 403: out.ErrorBody, 422: out.ErrorBody, 500: out.ErrorBody,
                  503: out.Unavailable, **(errors or {})}
    return {"response_model": model, "status_code": status,
            "responses": {code: {"model": m} for code, m in documented.items()}}


def request_body(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON request body for the OpenAPI document, for handlers that read and validate the raw body
    themselves (to bound its size and name every bad field)."""
    return {"openapi_extra": {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}}


def error(status: int, message: str, **extra: Any) -> JSONBody:
    return JSONBody({"error": message, **extra}, status_code=status)


def bad_param(field: str, problem: str) -> JSONBody:
    return error(400, f"invalid {field}", errors=[{"field": field, "problem": problem}])
# ----------------------------------------------------------------------------------------- the edge
MAX_PAYLOAD_BODY = 256 * 1024  # POST /payload (message 16 KiB + system prompt 64 KiB + service data, tools)
MAX_INGEST_BODY = ingest_mod.MAX_BATCH * 20 * 1024
MAX_QUERY_BYTES = ev.MAX_MESSAGE_BYTES  # `query` is the user's current message
AS_OF_HORIZON = timedelta(days=3653)
MAX_PERSONA_CHARS = 256
# superseded: a newer fact replaced it; merged: a near-duplicate took it in; compressed: a pattern took
# it in; pruned: decayed below 0.1 unused for 30 days; archived: over a cap
MEMORY_STATUSES = ("active", "expired", "superseded", "merged", "compressed", "pruned", "archived")


def declared(schema: dict[str, Any], description: str) -> Any:
    """A string parameter's rules for the OpenAPI document (schemas/validate.py): the handler's checks
    enforce them, answering 400 naming the parameter (a body field's answer is 422)."""
    return Annotated[str, validate.Declared.of(schema), Field(description=description)]


# the routes' parameters, each with the rules its handler enforces
ContactIdPath = Annotated[declared(validate.contact_id_schema(), "1-128 characters, no '/' or control "
                                  "characters; a leading '_' is reserved"), FastPath()]
TenantParam = Annotated[declared(validate.id_schema(), "default: the key's tenant (another only with an admin key)")
                        | None, Query()]
QueryParam = Annotated[declared(validate.utf8_schema(MAX_QUERY_BYTES), "the user's current message (at most "
                                f"{MAX_QUERY_BYTES} bytes of UTF-8)") | None, Query()]
PersonaParam = Annotated[declared(validate.name_schema(MAX_PERSONA_CHARS, min_chars=1), "the persona speaking")
                         | None, Query()]
AsOfParam = Annotated[declared(validate.time_schema(), "RFC 3339: evaluate recency and decay at that time, from "
                               "1970 to ten years ahead") | None, Query()]
AfterParam = Annotated[declared(validate.id_schema(), "an event_id: wait, up to 5 s, until it is in the "
                                "projections (504 if it is not)") | None, Query()]
MemoryStatusParam = Annotated[declared({"enum": list(MEMORY_STATUSES)}, "only the memories of this status")
                              | None, Query()]
CursorParam = Annotated[declared({"minLength": 1, "maxLength": pages.MAX_CURSOR_CHARS, "pattern": pages.CURSOR_PATTERN},
                                 "the `nextCursor` of the previous page (opaque)") | None, Query()]


class BadParam(Exception):
    def __init__(self, status: int, field: str, problem: str, message: str | None = None):
        super().__init__(problem)
        self.status, self.field, self.problem = status, field, problem
        self.message = message or f"invalid {field}"


class Denied(Exception):
    """No valid key (401)."""


_bearer = HTTPBearer(auto_error=False, description="an API key: `rapport keys create --tenant T`")


async def principal(cred: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> auth.Principal:
    """Who the request acts as. Keys are validated through a cache (auth.CACHE_TTL_S), so this costs
    no database round trip per request. RAPPORT_AUTH=off: keyless, every caller an admin of `default`."""
    if not svc.s.auth:
        return auth.Principal("default", admin=True)
    if cred is None:
        raise Denied("missing API key: send Authorization: Bearer <key>")
    p = await svc.keys.principal(cred.credentials)
    if p is None:
        raise Denied("invalid or revoked API key")
    return p


def tenant_of(p: auth.Principal, tenant_id: str | None) -> str:
    """The request's tenant: the key's, or the one named (checked as an id; another tenant's only with
    an admin key: 403)."""
    if tenant_id is not None and (problem := validate.check_id(tenant_id)) is not None:
        raise BadParam(400, "tenant_id", problem)
    return auth.tenant_for(p, tenant_id)


def check_param(field: str, value: str | None, problem: str | None) -> None:
    if value is not None and problem is not None:
        raise BadParam(400, field, problem)


def contact_param(contact_id: str) -> str:
    check_param("contact_id", contact_id, validate.check_contact_id(contact_id))
    return contact_id


def parse_as_of(value: str | None) -> datetime | None:
    """An explicit evaluation time: RFC 3339, from 1970 to AS_OF_HORIZON ahead (decay arithmetic on a
    year-1 or year-9999 time overflows)."""
    if value is None:
        return None  # the contact's own now (contact_now)
    try:
        at = validate.parse_rfc3339(value)  # the same rule as occurred_at (schemas/validate.py)
    except ValueError as e:
        raise BadParam(400, "as_of", f"must be an RFC 3339 timestamp: {e}") from None
    if not validate.EARLIEST <= at <= now_utc() + AS_OF_HORIZON:
        raise BadParam(400, "as_of", "must lie between 1970-01-01T00:00:00Z and ten years from now")
    return at


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused (413, naming the limit) as soon as it passes `limit` bytes: a huge
    body is never held in memory."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BadParam(413, "body", f"at most {limit} bytes", f"request body too large (limit {limit} bytes)")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BadParam(413, "body", f"at most {limit} bytes", f"request body too large (limit {limit} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


Body = TypeVar("Body", bound=BaseModel)


async def json_body(request: Request, limit: int, model: type[Body], what: str) -> Body:
    """A JSON request body read as `model`: refused at more than `limit` bytes (413), when not JSON (400),
    nested deeper than validate.MAX_JSON_DEPTH (422 naming where: nothing deeper reaches pydantic), not
    an object, or invalid for `model` (422 "invalid <what>" naming every bad field)."""
    raw = await read_body(request, limit)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise ingest_mod.BadRequest(400, {"error": "body is not valid JSON", "detail": str(e)}) from None
    if (where := validate.too_deep(data)) is not None:
        raise BadParam(422, where, f"at most {validate.MAX_JSON_DEPTH} levels of nesting",
                       f"JSON nested deeper than {validate.MAX_JSON_DEPTH} levels")
    if not isinstance(data, dict):
        raise BadParam(422, "body", "a JSON object", f"invalid {what}")
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise ingest_mod.BadRequest(422, {"error": f"invalid {what}", "errors": ingest_mod.field_errors(e)}) from None


def pages_position(cursor: str | None, kind: str, tenant_id: str, scope: str) -> tuple[datetime | None, str] | None:
    """The position a cursor names (None: the first page); 400 naming `cursor` for anything else."""
    if cursor is None:
        return None
    try:
        return pages.decode_cursor(cursor, kind, tenant_id, scope)
    except pages.BadCursor as e:
        raise BadParam(400, "cursor", str(e)) from None


async def reflected(tenant_id: str, event_id: str) -> bool:
    """Read-your-writes (`after=`, on /context and /payload): wait, up to AFTER_TIMEOUT_S, until the
    event is in the projections."""
    with tracing.tracer.start_as_current_span("rapport.context.after", links=svc.traces.links(tenant_id, event_id),
                                              attributes={"rapport.event_id": event_id}):
        deadline, delay = time.monotonic() + AFTER_TIMEOUT_S, 0.005
        while not await svc.store.is_processed(tenant_id, event_id):
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 0.1)
        return True


def not_reflected(event_id: str) -> JSONBody:
    return error(504, "event not reflected in the projections yet", event_id=event_id)


def contact_now(state: dict | None) -> datetime:
    """The contact's event time now: the wall clock less how far its events run behind it (clockSkewS,
    domain/clock.py). A live contact's is the wall clock; a contact imported with
    2023 timestamps is read in its own timeline, as the scheduler advances it, not decayed to today."""
    return clock.contact_now(now_utc(), (state or {}).get("clockSkewS"))
