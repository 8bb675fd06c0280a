"""The API's composition root: create_app(settings, deps) builds the FastAPI app once from settings parsed
once (projections/service.ApiSettings), with its service (projections/service.Service), its exception
handlers, middleware and routers (projections/memory_routes.py, edge_routes.py, webhook_routes.py,
contacts_routes.py). `rapport api` serves `main` (uvicorn factory=True)."""
from __future__ import annotations

import asyncio
import inspect
import logging
import re
import time
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Any

import psycopg
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from opentelemetry.trace import SpanKind, Status, StatusCode
from psycopg_pool import PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from projections import auth, contacts_routes, edge_routes, memory_routes, metrics, webhook_routes
from projections.deps import CURRENT, BadParam, Denied, JSONBody, error, principal
from projections.service import ApiSettings, Service
from schemas import logsafe
from streams import ingest as ingest_mod
from streams import tracing

log = logging.getLogger("rapport.api")


async def unreadable_data(request: Request, exc: psycopg.DataError) -> JSONBody:
    """Stored rows that cannot be read back (a BC timestamp stored before ingest rejected such times):
    that contact's requests fail with a clear error, every other contact is served."""
    log.error("%s %s: stored data cannot be read (%s)", request.method, request.url.path, type(exc).__name__)
    return error(500, "the stored data of this contact cannot be read; other contacts are unaffected",
                 path=request.url.path)


async def _bad_param(request: Request, e: BadParam) -> JSONBody:
    return error(e.status, e.message, errors=[{"field": e.field, "problem": e.problem}])


async def _bad_request(request: Request, e: ingest_mod.BadRequest) -> JSONBody:
    return JSONBody(e.body, status_code=e.status)


async def _denied(request: Request, e: Denied) -> JSONBody:
    return JSONBody({"error": str(e)}, status_code=401, headers={"WWW-Authenticate": "Bearer"})


async def _forbidden(request: Request, e: auth.Forbidden) -> JSONBody:
    return error(403, "this key's tenant may not act for another tenant",
                 errors=[{"field": e.field, "problem": f"not this key's tenant ({e.tenant_id!r})"}])


async def _invalid(request: Request, e: RequestValidationError) -> JSONBody:
    return error(422, "invalid request", errors=[{"field": str(err["loc"][-1]) if err.get("loc") else "body",
                                                  "problem": err["msg"]} for err in e.errors()])


class Timing:
    """Latency per route, and with tracing on a server span per request (continuing a caller's
    `traceparent`), named by the route's template: never the path, which holds contact ids. A plain
    ASGI middleware: Starlette's `@app.middleware("http")` streams every response through a task
    group and memory streams, which cost more than a whole /context without a query."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        t0, method, status = time.perf_counter(), scope["method"], 500
        started = False

        async def send_noting_status(message: dict) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = message["status"], True
            await send(message)

        carrier = {k.decode("latin-1"): v for k, v in scope["headers"] if k in (b"traceparent", b"tracestate")}
        with tracing.tracer.start_as_current_span(method, context=tracing.context_from_headers(carrier),
                                                  kind=SpanKind.SERVER) as span:
            try:
                await self.app(scope, receive, send_noting_status)
            except Exception as e:  # logged by route and type only: no body, no locals, no message
                log.error("%s %s failed: %s", method, getattr(scope.get("route"), "path", "unmatched"),
                          logsafe.where(e))
                if not started:
                    await error(500, "internal error")(scope, receive, send)
                status = 500
            route = getattr(scope.get("route"), "path", "unmatched")
            metrics.REQUEST_SECONDS.labels(route).observe(time.perf_counter() - t0)
            if span.is_recording():
                span.update_name(f"{method} {route}")
                span.set_attributes({"http.request.method": method, "http.route": route,
                                     "http.response.status_code": status})
                if status >= 500:
                    span.set_status(Status(StatusCode.ERROR))


class DatabaseGuard:
    """Requests while the database is down (Service.start_database_watch) answer 503 with the reason
    at once; a request in flight when it goes down answers 503 then, its work cancelled and left to
    finish in the background (its late answer dropped): nothing waits on a stalled PostgreSQL.
    /healthz and /metrics answer for themselves."""

    OWN = frozenset({"/healthz", "/metrics"})

    def __init__(self, app: Any, svc: Service):
        self.app, self.svc = app, svc

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        svc = self.svc
        if scope["type"] != "http" or scope["path"] in self.OWN or svc.pool is None:
            return await self.app(scope, receive, send)
        if svc.db_down is not None:
            return await self._unavailable(svc.db_down, scope, receive, send)
        down = svc.went_down()
        answered = False

        async def send_unless_late(message: dict) -> None:
            nonlocal answered
            if answered is None:  # this request was answered 503: the late answer goes nowhere
                raise asyncio.CancelledError
            answered = True
            await send(message)

        work = asyncio.ensure_future(self.app(scope, receive, send_unless_late))
        await asyncio.wait({work, down}, return_when=asyncio.FIRST_COMPLETED)
        if work.done() or answered:
            return await work
        answered = None
        work.cancel()
        work.add_done_callback(lambda t: t.cancelled() or t.exception())
        await self._unavailable(svc.db_down or "the database went down", scope, receive, send)

    @staticmethod
    async def _unavailable(reason: str, scope: dict, receive: Any, send: Any) -> None:
        await error(503, "the database is unavailable; retry later", reason=reason)(scope, receive, send)


async def database_gone(request: Request, exc: psycopg.OperationalError) -> JSONBody:
    """A connection lost or refused mid-request (the server restarting): 503, not a 500."""
    log.error("%s %s: database unavailable (%s)", request.method, request.url.path, type(exc).__name__)
    return error(503, "the database is unavailable; retry later", reason=type(exc).__name__)


async def database_busy(request: Request, exc: PoolTimeout) -> JSONBody:
    timeout = request.app.state.svc.settings.db_pool_timeout_s
    log.error("%s %s: no database connection within %g s", request.method, request.url.path, timeout)
    return error(503, "the database is unavailable; retry later", reason=f"no database connection within {timeout:g} s")


async def _http_error(request: Request, e: StarletteHTTPException) -> JSONBody:
    """Starlette's own answers (404: no route has this path) in the documented ErrorBody shape."""
    return JSONBody({"error": str(e.detail)}, status_code=e.status_code, headers=e.headers)


# ---------------------------------------------------------------------------------------- routing
Template = tuple[re.Pattern, frozenset[str], int]  # a path template's regex, its methods, its literal length


def templates_of(routes: list[Any]) -> list[Template]:
    """The app's path templates with every method declared on each (GET and POST /webhooks are two
    routes of one template), most specific (the most literal text) first."""
    by_path: dict[str, tuple[re.Pattern, set[str]]] = {}
    for r in routes:
        if getattr(r, "methods", None):
            by_path.setdefault(r.path, (r.path_regex, set()))[1].update(r.methods)
    return sorted(((rx, frozenset(m), len(re.sub(r"\{[^}]*\}", "", path))) for path, (rx, m) in by_path.items()),
                  key=lambda t: -t[2])


def allowed_methods(templates: list[Template], path: str) -> frozenset[str] | None:
    """The methods of the path's own template: the most specific one that matches it (None: no route).
    `/contacts/{contact_id:path}` (DELETE) matches `/contacts/c/memories` too, whose template is
    `/contacts/{contact_id:path}/memories` (GET): DELETE there is 405, not an erasure of "c/memories"."""
    return next((methods for rx, methods, _ in templates if rx.match(path)), None)


def whole_path(route: Any) -> None:
    """A route's regex over the whole path: `{x:path}` takes line breaks too, and `$` no longer matches
    before a final one (`/context/a%0A` was contact "a"; `/context/%0A` a 404): a contact id with a line
    break reaches the handler, which refuses it naming the field."""
    pattern = route.path_regex.pattern
    route.path_regex = re.compile((pattern[:-1] + r"\Z") if pattern.endswith("$") else pattern, re.DOTALL)


class Methods:
    """405 with an `Allow` header naming the methods the path's template declares (the OpenAPI
    document's operations), for any other method, OPTIONS and HEAD included (none is served)."""

    def __init__(self, app: Any, routes: list[Any]):
        self.app, self.routes = app, routes
        self.templates: list[Template] | None = None  # on the first request: every route is registered

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            if self.templates is None:
                self.templates = templates_of(self.routes)
            allowed = allowed_methods(self.templates, scope["path"])
            if allowed is not None and scope["method"] not in allowed:
                answer = error(405, f"{scope['method']} is not an operation of this path",
                               allowed=sorted(allowed))
                answer.headers["Allow"] = ", ".join(sorted(allowed))
                return await answer(scope, receive, send)
        await self.app(scope, receive, send)


class BindService:
    """Binds the app's service for the request (projections/deps.svc): outermost, so every task the
    request starts (DatabaseGuard's) sees it."""

    def __init__(self, app: Any, svc: Service):
        self.app, self.svc = app, svc

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        token = CURRENT.set(self.svc)
        try:
            await self.app(scope, receive, send)
        finally:
            CURRENT.reset(token)


# FastAPI's own telemetry (recent versions trace every request once a TracerProvider is set) records the
# path (contact ids) and the query (`query` is the user's message): off; Timing makes the server span
# without them, named by the route's template.
NATIVE_TELEMETRY_OFF = ({"telemetry": {"tracing": False, "metrics": False, "logs": False}}
                        if "telemetry" in inspect.signature(FastAPI.__init__).parameters else {})
EXCEPTION_HANDLERS: dict[type, Any] = {
    psycopg.DataError: unreadable_data, BadParam: _bad_param, ingest_mod.BadRequest: _bad_request, Denied: _denied,
    auth.Forbidden: _forbidden,
    RequestValidationError: _invalid, psycopg.OperationalError: database_gone, PoolTimeout: database_busy,
    StarletteHTTPException: _http_error}


ROUTE_FIELDS = ("response_model", "status_code", "tags", "dependencies", "summary", "description",
                "response_description", "responses", "deprecated", "methods", "operation_id", "response_model_include",
                "response_model_exclude", "response_model_by_alias", "response_model_exclude_unset",
                "response_model_exclude_defaults", "response_model_exclude_none", "include_in_schema",
                "response_class", "name", "callbacks", "openapi_extra", "generate_unique_id_function")


def mount(app: FastAPI, router: APIRouter) -> None:
    """The router's routes as the app's own, in order, as `@app.get` would have made them: FastAPI 0.165's
    include_router keeps an included router as one lazy route, which the route order, whole_path and
    Methods would not see."""
    for route in router.routes:
        app.router.add_api_route(route.path, route.endpoint, **{f: getattr(route, f) for f in ROUTE_FIELDS})


def create_app(settings: ApiSettings, deps: Service | None = None) -> FastAPI:
    """The API, built once: `deps` is the service to serve with (a test's, wired to its own stand-ins;
    it carries its own settings), else one made from `settings`."""
    svc = deps if deps is not None else Service(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await svc.start()
        yield
        await svc.stop()

    # no unauthenticated surface beyond /healthz (and /metrics on loopback): no /docs or /redoc, and the
    # OpenAPI document is a route of its own that needs a key (GET /openapi.json below)
    app = FastAPI(title="rapport", version="0.1.0", default_response_class=JSONBody, lifespan=lifespan,
                  docs_url=None, redoc_url=None, openapi_url=None, **NATIVE_TELEMETRY_OFF,
                  description="Per-contact memory and emotional intelligence for AI chat agents (CONTRACT.md). "
                              "Every route but /healthz needs `Authorization: Bearer <key>`.")
    app.state.svc = svc
    for exc, handler in EXCEPTION_HANDLERS.items():
        app.add_exception_handler(exc, handler)
    # the memory routes first: `DELETE /contacts/{contact_id:path}` would otherwise take
    # `DELETE /contacts/c/memories/m` for an erasure of contact "c/memories/m"
    mount(app, memory_routes.router)
    mount(app, edge_routes.router)

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi_document(p: auth.Principal = Depends(principal)) -> JSONBody:
        """The OpenAPI document of these routes, with typed answers (projections/responses.py); any valid key."""
        return JSONBody(app.openapi())

    mount(app, webhook_routes.router)
    mount(app, contacts_routes.router)
    for route in app.routes:
        whole_path(route)
    app.add_middleware(DatabaseGuard, svc=svc)
    app.add_middleware(Methods, routes=app.routes)
    app.add_middleware(Timing)
    app.add_middleware(BindService, svc=svc)
    return app


def main() -> FastAPI:
    """uvicorn's factory (`rapport api`): the app from the environment, parsed once."""
    return create_app(ApiSettings.from_env())


@lru_cache(maxsize=1)
def default_app() -> FastAPI:
    """An app from the environment, made on first use (nothing is built at import): `projections.api.app`
    and `.svc` for tools and tests that read the module's app (its OpenAPI document, its route table);
    a test that serves requests builds its own (create_app, tests.helpers.api_in_process)."""
    return main()


def __getattr__(name: str) -> Any:
    if name == "app":
        return default_app()
    if name == "svc":
        return default_app().state.svc
    raise AttributeError(name)
