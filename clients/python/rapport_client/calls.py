"""Every route as requests and a typed answer, written once for both clients.

A call is a generator: it yields the HTTP requests it needs (one, or one per batch, or one per re-ask
while `after=` waits) and returns the typed result. `Rapport` and `AsyncRapport` only send what it
yields (sans-I/O: https://sans-io.readthedocs.io), so sync and async behave the same by construction.
ROUTES is the client's view of the API; tests/test_openapi.py checks it against the server's
/openapi.json."""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Dict, Generator, Iterable, Iterator, List, Mapping, Optional, Tuple, Type, TypeVar, Union
from urllib.parse import quote

import httpx
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from rapport_client import models as m
from rapport_client.errors import ConnectionFailed, NoEvents, NotReflected, RapportError, TooManyEvents, error_for, invalid

MAX_BATCH = 1000             # events per POST /ingest (CONTRACT.md)
MAX_INGEST_BYTES = 20_000_000  # under the API's body limit (20,480,000 bytes)
AFTER_TIMEOUT_S = 30.0       # how long `after=` waits in all (the API waits up to 5 s per ask, then 504)
API_AFTER_WAIT_S = 5.0       # how long one ask with `after=` may be held by the API (CONTRACT.md)

T = TypeVar("T")


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    params: Tuple[str, ...] = ()           # the query parameters the client sends
    result: Optional[Type[BaseModel]] = None
    body: Optional[Type[BaseModel]] = None  # one item of the JSON body (an /ingest batch is a list of them)


ROUTES: Dict[str, Route] = {
    "healthz": Route("GET", "/healthz", result=m.Health),
    "ingest": Route("POST", "/ingest", result=m.Receipt, body=m.Event),
    "context": Route("GET", "/context/{contact_id}",
                     ("query", "tenant_id", "persona_id", "budget", "as_of", "after"), m.Context),
    "contacts": Route("GET", "/contacts", ("tenant_id", "q", "sort", "limit", "cursor"), m.ContactList),
    "memories": Route("GET", "/contacts/{contact_id}/memories", ("tenant_id", "status", "limit", "cursor"),
                      m.MemoryList),
    "memory": Route("GET", "/contacts/{contact_id}/memories/{memory_id}", ("tenant_id", "after"),
                    m.MemoryWithHistory),
    "correct_memory": Route("PATCH", "/contacts/{contact_id}/memories/{memory_id}", ("tenant_id",),
                            m.CurationReceipt, m.CorrectionRequest),  # sends the tenant in the body (older APIs)
    "forget_memory": Route("DELETE", "/contacts/{contact_id}/memories/{memory_id}", ("tenant_id",),
                           m.CurationReceipt),
    "timeline": Route("GET", "/contacts/{contact_id}/timeline", ("tenant_id", "limit"), m.Timeline),
    "tenants": Route("GET", "/tenants", result=m.TenantList),
    "triggers": Route("GET", "/contacts/{contact_id}/triggers", ("tenant_id",), m.TriggerList),
    "export": Route("GET", "/contacts/{contact_id}/export", ("tenant_id",), m.Export),
    "delete_contact": Route("DELETE", "/contacts/{contact_id}", ("tenant_id",), m.Erasure),
    "payload": Route("POST", "/payload", result=m.Payload, body=m.PayloadRequest),
    "create_webhook": Route("POST", "/webhooks", result=m.WebhookCreated, body=m.WebhookRequest),
    "webhooks": Route("GET", "/webhooks", ("tenant_id",), m.WebhookList),
    "webhook": Route("GET", "/webhooks/{webhook_id}", ("tenant_id",), m.Webhook),
    "delete_webhook": Route("DELETE", "/webhooks/{webhook_id}", ("tenant_id",), m.WebhookDeleted),
    "webhook_deliveries": Route("GET", "/webhooks/{webhook_id}/deliveries", ("tenant_id", "status", "limit"),
                                m.DeliveryList),
    "retry_delivery": Route("POST", "/webhooks/{webhook_id}/deliveries/{delivery_id}/retry", ("tenant_id",),
                            m.Redelivery),
    "metrics": Route("GET", "/metrics"),
    "openapi": Route("GET", "/openapi.json"),
}


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    params: Dict[str, Any] = field(default_factory=dict)
    json: Any = None
    retry: bool = True  # False: one attempt (health checks report, they do not wait)
    timeout: Optional[float] = None  # seconds for this request (None: the client's timeout)


Flow = Generator[Request, httpx.Response, T]


def request(name: str, *ids: Any, json: Any = None, retry: bool = True, **params: Any) -> Request:
    """The route's request: `ids` fill its path's {placeholders} in order (each quoted whole, so an id
    with a "/" stays one path segment), `params` its query."""
    route = ROUTES[name]
    unknown = set(params) - set(route.params)
    if unknown:
        raise TypeError(f"{name} sends no parameter {sorted(unknown)}")
    names = re.findall(r"\{(\w+)\}", route.path)
    if len(ids) != len(names):
        raise TypeError(f"{name} takes {len(names)} path ids ({', '.join(names)}), not {len(ids)}")
    path = route.path.format(**{n: quote(str(v), safe="") for n, v in zip(names, ids)})
    sent = {k: v.isoformat() if isinstance(v, datetime) else v for k, v in params.items() if v is not None}
    return Request(route.method, path, sent, json, retry)


def answer(name: str, response: httpx.Response) -> Any:
    """The route's typed result, or its typed error."""
    if not response.is_success:
        raise error_for(response)
    result = ROUTES[name].result
    return result.model_validate(response.json()) if result else response


def simple(name: str, *ids: Any, retry: bool = True, **params: Any) -> Flow[Any]:
    return answer(name, (yield request(name, *ids, retry=retry, **params)))


def create_webhook(url: str, events: List[str], description: Optional[str] = None,
                   tenant_id: Optional[str] = None) -> Flow[m.WebhookCreated]:
    """Sent once, never retried: a retried POST whose first answer was lost would subscribe twice."""
    body = m.WebhookRequest(url=url, events=list(events), description=description, tenant_id=tenant_id)
    return answer("create_webhook", (yield request("create_webhook", json=body.model_dump(exclude_none=True),
                                                   retry=False)))


def healthz() -> Flow[m.Health]:
    """200 and 503 both carry the health (503: starting or unavailable); asked once, never retried."""
    response = yield request("healthz", retry=False)
    if response.status_code == 503:
        try:
            return m.Health.model_validate(response.json())
        except ValueError:
            pass
    return answer("healthz", response)


EventLike = Union[m.Event, Mapping[str, Any]]


def as_events(events: Union[EventLike, Iterable[EventLike]], tenant_id: Optional[str]) -> Iterator[Dict[str, Any]]:
    """Events as the JSON /ingest takes, each with its idempotency key (and the client's tenant where
    it names none). Dicts are not checked here: the API judges them and names every bad field (a
    ValidationError), so an older client never refuses what a newer server accepts."""
    one = isinstance(events, (m.Event, Mapping))
    for e in [events] if one else events:  # type: ignore[list-item]
        event = e.model_dump(mode="json", exclude_none=True) if isinstance(e, m.Event) else to_jsonable_python(dict(e))
        if not event.get("event_id"):
            event["event_id"] = m.new_event_id()
        if tenant_id and not event.get("tenant_id"):
            event["tenant_id"] = tenant_id
        yield event


def ingest(events: Union[EventLike, Iterable[EventLike]], tenant_id: Optional[str] = None) -> Flow[m.Receipt]:
    batch = list(as_events(events, tenant_id))
    if not batch:
        raise NoEvents("no events to ingest", body={"errors": [{"field": "body", "problem": "no events"}]})
    if len(batch) > MAX_BATCH:
        raise TooManyEvents(f"at most {MAX_BATCH} events per request: use ingest_many() for more",
                            body={"errors": [{"field": "body", "problem": f"{len(batch)} events"}]})
    receipt = answer("ingest", (yield request("ingest", json=batch)))
    receipt._last = {e.get("contact_id"): e["event_id"] for e in batch}
    return receipt


def batches(events: Iterable[Dict[str, Any]], size: int) -> Iterator[List[Dict[str, Any]]]:
    """Runs of at most `size` events and MAX_INGEST_BYTES of JSON, in order."""
    if not 1 <= size <= MAX_BATCH:
        raise invalid("batch_size", [{"field": "batch_size", "problem": f"{size}: must be 1..{MAX_BATCH}"}])
    run: List[Dict[str, Any]] = []
    nbytes = 0
    for e in events:
        cost = len(json.dumps(e).encode()) + 1
        if run and (len(run) == size or nbytes + cost > MAX_INGEST_BYTES):
            yield run
            run, nbytes = [], 0
        run.append(e)
        nbytes += cost
    if run:
        yield run


def ingest_many(events: Iterable[EventLike], tenant_id: Optional[str] = None, batch_size: int = 500
                ) -> Flow[m.Receipt]:
    """Any number of events, sent in order in batches; one merged receipt. A failed batch raises its
    error, whose `.receipt` holds what the batches before it recorded (None: nothing)."""
    receipt = None
    for run in batches(as_events(events, tenant_id), batch_size):
        try:
            got = yield from ingest(run)
        except RapportError as e:
            e.receipt = receipt
            raise
        receipt = got if receipt is None else receipt.merged(got)
    if receipt is None:
        raise NoEvents("no events to ingest", body={"errors": [{"field": "body", "problem": "no events"}]})
    return receipt


def after_id(after: Union[str, m.Receipt, None], contact_id: str) -> Optional[str]:
    return after.last_event_id(contact_id) if isinstance(after, m.Receipt) else after


def waiting(name: str, req: Request, after: Optional[str], after_timeout: float) -> Flow[Any]:
    """Ask, and while the API answers 504 for `after` (not reflected within its 5 s), ask again until
    `after_timeout`; then raise NotReflected. An ask that could be held past the deadline is sent with
    the time left as its timeout, once: `after_timeout=3` gives up after 3 s, not the API's 5."""
    deadline = time.monotonic() + after_timeout
    while True:
        left = deadline - time.monotonic()
        bounded = bool(after) and left < API_AFTER_WAIT_S + 1.0
        try:
            response = yield replace(req, timeout=max(left, 0.05), retry=False) if bounded else req
        except ConnectionFailed as e:
            if bounded and isinstance(e.__cause__, httpx.TimeoutException):
                raise NotReflected(f"event {after} not reflected within {after_timeout:g} s",
                                   body={"error": "event not reflected in the projections yet",
                                         "event_id": after}) from None
            raise
        if response.status_code != 504 or not after or time.monotonic() >= deadline:
            return answer(name, response)


def context(contact_id: str, *, query: Optional[str] = None, tenant_id: Optional[str] = None,
            persona_id: Optional[str] = None, budget: Optional[int] = None, as_of: Optional[datetime] = None,
            after: Union[str, m.Receipt, None] = None, after_timeout: float = AFTER_TIMEOUT_S) -> Flow[m.Context]:
    event_id = after_id(after, contact_id)
    req = request("context", contact_id, query=query, tenant_id=tenant_id, persona_id=persona_id, budget=budget,
                  as_of=as_of, after=event_id)
    return (yield from waiting("context", req, event_id, after_timeout))


def payload(contact_id: str, message: str, *, tenant_id: Optional[str] = None, persona_id: Optional[str] = None,
            system_prompt: Optional[str] = None, service_data: Any = None,
            tools: Optional[List[Dict[str, Any]]] = None, after: Union[str, m.Receipt, None] = None,
            after_timeout: float = AFTER_TIMEOUT_S) -> Flow[m.Payload]:
    event_id = after_id(after, contact_id)
    body = m.PayloadRequest(contact_id=contact_id, message=message, tenant_id=tenant_id, persona_id=persona_id,
                            system_prompt=system_prompt, service_data=service_data, tools=tools, after=event_id)
    req = request("payload", json=body.model_dump(mode="json", exclude_none=True))
    return (yield from waiting("payload", req, event_id, after_timeout))


def memory(contact_id: str, memory_id: str, *, tenant_id: Optional[str] = None,
           after: Union[str, m.Receipt, m.CurationReceipt, None] = None,
           after_timeout: float = AFTER_TIMEOUT_S) -> Flow[m.MemoryWithHistory]:
    """One memory with its history; `after`: an event (a correction's receipt, an ingest's) to wait for."""
    event_id = after.event_id if isinstance(after, m.CurationReceipt) else after_id(after, contact_id)
    req = request("memory", contact_id, memory_id, tenant_id=tenant_id, after=event_id)
    return (yield from waiting("memory", req, event_id, after_timeout))


def correct_memory(contact_id: str, memory_id: str, *, content: Optional[str] = None,
                   memory_type: Optional[str] = None, importance: Optional[float] = None,
                   pinned: Optional[bool] = None, tenant_id: Optional[str] = None) -> Flow[m.CurationReceipt]:
    """A correction, recorded as an event (202). Sent once (the transport retries no PATCH): read it back
    with memory(..., after=receipt) before sending it again."""
    body = m.CorrectionRequest(content=content, memory_type=memory_type, importance=importance, pinned=pinned,
                               tenant_id=tenant_id)
    return answer("correct_memory", (yield request("correct_memory", contact_id, memory_id,
                                                   json=body.model_dump(by_alias=True, exclude_none=True))))


def wait_for(receipt: m.Receipt, timeout: float = AFTER_TIMEOUT_S, tenant_id: Optional[str] = None) -> Flow[None]:
    """Until every contact's last event in `receipt` is reflected in the projections (NotReflected
    after `timeout`). Asks /context with a budget of 0: no memories are served, none counts as used."""
    deadline = time.monotonic() + timeout
    for contact_id in receipt.contacts:
        yield from context(contact_id, tenant_id=tenant_id, budget=0, after=receipt,
                           after_timeout=max(0.0, deadline - time.monotonic()))


def metrics() -> Flow[str]:
    return answer("metrics", (yield request("metrics"))).text


def openapi() -> Flow[Dict[str, Any]]:
    return answer("openapi", (yield request("openapi"))).json()


async def adrive(flow: Flow[T], send: Any) -> T:
    """Run a call with an async `send(Request) -> httpx.Response`; a failed send is raised in the call."""
    try:
        req = next(flow)
        while True:
            try:
                response = await send(req)
            except RapportError as e:
                req = flow.throw(e)
                continue
            req = flow.send(response)
    except StopIteration as done:
        return done.value


def drive(flow: Flow[T], send: Any) -> T:
    """Run a call with a blocking `send(Request) -> httpx.Response`; a failed send is raised in the call.
    The same loop as adrive's: a send that never awaits leaves adrive's coroutine nothing to wait for, so
    one step runs it to its end."""
    async def asend(req: Any) -> Any:
        return send(req)

    run = adrive(flow, asend)
    try:
        run.send(None)
    except StopIteration as done:
        return done.value
    run.close()
    raise RuntimeError("drive: the call awaited something other than its send")
