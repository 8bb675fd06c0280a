"""Rapport (blocking) and AsyncRapport (asyncio): one method per route, typed results, typed errors,
retries. The calls themselves are in calls.py, shared by both."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Union

import httpx
from httpx_retries import Retry, RetryTransport

from rapport_client import calls, settings
from rapport_client import models as m
from rapport_client.calls import AFTER_TIMEOUT_S, EventLike
from rapport_client.errors import ConnectionFailed

__version__ = "0.1.0"
RETRY_STATUSES = (429, 502, 503)  # backlog full, a proxy's hiccup, the API restarting
NO_RETRY = Retry(total=0)


def retry_policy(retries: int, backoff_s: float, max_wait_s: float) -> Retry:
    """Up to `retries` more attempts on 429/502/503 and on connection errors and timeouts, waiting the
    server's Retry-After when it sends one, else backoff_s x 2^n with full jitter, at most max_wait_s
    a wait. POST is retried too: /ingest is idempotent because every event carries its event_id (the
    client sets one), /payload only reads."""
    return Retry(total=retries, backoff_factor=backoff_s, max_backoff_wait=max_wait_s, respect_retry_after_header=True,
                 status_forcelist=RETRY_STATUSES, allowed_methods=("GET", "POST", "DELETE"))


class _Base:
    def __init__(self, base_url: Optional[str] = None, *, api_key: Optional[str] = None,
                 key_file: Union[str, Path, None] = None, tenant_id: Optional[str] = None, timeout: float = 30.0,
                 retries: int = 4, backoff_s: float = 0.5, max_wait_s: float = 30.0,
                 transport: Optional[Union[httpx.BaseTransport, httpx.AsyncBaseTransport]] = None):
        """`base_url`: else $RAPPORT_URL, else http://127.0.0.1:8080. The key: `api_key`, else the file
        `key_file`, else $RAPPORT_API_KEY, else the file $RAPPORT_API_KEY_FILE, else ./.rapport/api-key.
        `tenant_id`: the tenant every call names (only an admin key may name another than its own; by
        default the key's). `retries`: extra attempts on 429/502/503 and connection errors (0: none).
        `transport`: an httpx transport to send through (tests, proxies); the retries wrap it."""
        self.base_url = settings.base_url(base_url)
        self.tenant_id = tenant_id
        key = settings.api_key(api_key, key_file)
        self._headers = {"User-Agent": f"rapport-client/{__version__}",
                         **({"Authorization": f"Bearer {key}"} if key else {})}
        self._timeout = timeout
        self._transport = RetryTransport(transport=transport, retry=retry_policy(retries, backoff_s, max_wait_s))

    def _tenant(self, tenant_id: Optional[str]) -> Optional[str]:
        return tenant_id or self.tenant_id

    @staticmethod
    def _extensions(req: calls.Request) -> Dict[str, Any]:
        return {} if req.retry else {"retry": NO_RETRY}

    def _timeout_of(self, req: calls.Request) -> float:
        return self._timeout if req.timeout is None else min(req.timeout, self._timeout)


class Rapport(_Base):
    """A blocking client. Use it as a context manager, or call close().

    >>> with Rapport() as rapport:
    ...     receipt = rapport.ingest({"contact_id": "arjun", "role": "user", "message": "I moved to Berlin"})
    ...     ctx = rapport.context("arjun", query="Where do I live?", after=receipt)
    """

    def __init__(self, base_url: Optional[str] = None, **options: Any):
        super().__init__(base_url, **options)
        self._http = httpx.Client(base_url=self.base_url, headers=self._headers, timeout=self._timeout,
                                  transport=self._transport)

    def _send(self, req: calls.Request) -> httpx.Response:
        try:
            return self._http.request(req.method, req.path, params=req.params, json=req.json,
                                      timeout=self._timeout_of(req), extensions=self._extensions(req))
        except httpx.TransportError as e:
            raise ConnectionFailed(f"{req.method} {self.base_url}{req.path}: {type(e).__name__}: {e}") from e

    def _run(self, flow: calls.Flow[Any]) -> Any:
        return calls.drive(flow, self._send)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Rapport":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------------------------ routes
    def healthz(self) -> m.Health:
        """GET /healthz, asked once: status ok/degraded (200) or starting/unavailable (503)."""
        return self._run(calls.healthz())

    def ingest(self, events: Union[EventLike, Iterable[EventLike]]) -> m.Receipt:
        """POST /ingest: one event (an Event or a dict) or up to 1000. Events without an event_id get
        one first, so a retry never records a message twice. Pass the receipt as `after=`."""
        return self._run(calls.ingest(events, self.tenant_id))

    def ingest_many(self, events: Iterable[EventLike], *, batch_size: int = 500) -> m.Receipt:
        """Any number of events, in order, in batches of `batch_size`; one merged receipt."""
        return self._run(calls.ingest_many(events, self.tenant_id, batch_size))

    def context(self, contact_id: str, *, query: Optional[str] = None, tenant_id: Optional[str] = None,
                persona_id: Optional[str] = None, budget: Optional[int] = None, as_of: Any = None,
                after: Union[str, m.Receipt, None] = None, after_timeout: float = AFTER_TIMEOUT_S) -> m.Context:
        """GET /context/{contact_id}: what the AI should know now; `context_text` goes in the system
        prompt. `after`: an event id or a Receipt; waits (up to `after_timeout` s) until it is reflected."""
        return self._run(calls.context(contact_id, query=query, tenant_id=self._tenant(tenant_id),
                                       persona_id=persona_id, budget=budget, as_of=as_of, after=after,
                                       after_timeout=after_timeout))

    def payload(self, contact_id: str, message: str, *, system_prompt: Optional[str] = None,
                service_data: Any = None, tools: Optional[List[Dict[str, Any]]] = None,
                persona_id: Optional[str] = None, tenant_id: Optional[str] = None,
                after: Union[str, m.Receipt, None] = None, after_timeout: float = AFTER_TIMEOUT_S) -> m.Payload:
        """POST /payload: a ready chat-completion payload (`.chat_messages()`) within the token budgets."""
        return self._run(calls.payload(contact_id, message, tenant_id=self._tenant(tenant_id), persona_id=persona_id,
                                       system_prompt=system_prompt, service_data=service_data, tools=tools,
                                       after=after, after_timeout=after_timeout))

    def wait_for(self, receipt: m.Receipt, timeout: float = AFTER_TIMEOUT_S) -> None:
        """Block until everything in `receipt` is reflected (NotReflected after `timeout` s)."""
        return self._run(calls.wait_for(receipt, timeout, self.tenant_id))

    def contacts(self, *, q: Optional[str] = None, sort: Optional[str] = None, limit: Optional[int] = None,
                 cursor: Optional[str] = None, tenant_id: Optional[str] = None) -> m.ContactList:
        """GET /contacts: a page of the tenant's contacts, newest activity first (`sort="contact_id"`: by
        id); pass `.next_cursor` as `cursor` for the next page (None: the last)."""
        return self._run(calls.simple("contacts", tenant_id=self._tenant(tenant_id), q=q, sort=sort, limit=limit,
                                      cursor=cursor))

    def memories(self, contact_id: str, *, status: Optional[str] = None, limit: Optional[int] = None,
                 cursor: Optional[str] = None, tenant_id: Optional[str] = None) -> m.MemoryList:
        """GET /contacts/{id}/memories: every memory (or those of one `status`) with its details; with
        `limit` or `cursor` a page of them, oldest first, and `.next_cursor` for the next."""
        return self._run(calls.simple("memories", contact_id, tenant_id=self._tenant(tenant_id), status=status,
                                      limit=limit, cursor=cursor))

    def tenants(self) -> m.TenantList:
        """GET /tenants: the tenants this key may open (an admin key: every one with contacts)."""
        return self._run(calls.simple("tenants"))

    def timeline(self, contact_id: str, *, limit: Optional[int] = None,
                 tenant_id: Optional[str] = None) -> m.Timeline:
        """GET /contacts/{id}/timeline: mood and energy per message (the last `limit`), with the spans of
        difficult periods and patterns."""
        return self._run(calls.simple("timeline", contact_id, tenant_id=self._tenant(tenant_id), limit=limit))

    def memory(self, contact_id: str, memory_id: str, *, tenant_id: Optional[str] = None,
               after: Union[str, m.Receipt, m.CurationReceipt, None] = None,
               after_timeout: float = AFTER_TIMEOUT_S) -> m.MemoryWithHistory:
        """GET /contacts/{id}/memories/{memory_id}: one memory and its history (NotFound when unknown or
        forgotten); `after`: wait until that event (a correction's receipt) is reflected."""
        return self._run(calls.memory(contact_id, memory_id, tenant_id=self._tenant(tenant_id), after=after,
                                      after_timeout=after_timeout))

    def correct_memory(self, contact_id: str, memory_id: str, *, content: Optional[str] = None,
                       memory_type: Optional[str] = None, importance: Optional[float] = None,
                       pinned: Optional[bool] = None, tenant_id: Optional[str] = None) -> m.CurationReceipt:
        """PATCH /contacts/{id}/memories/{memory_id}: correct its content (and/or type, importance, pin)."""
        return self._run(calls.correct_memory(contact_id, memory_id, content=content, memory_type=memory_type,
                                              importance=importance, pinned=pinned, tenant_id=self._tenant(tenant_id)))

    def forget_memory(self, contact_id: str, memory_id: str, *, tenant_id: Optional[str] = None) -> m.CurationReceipt:
        """DELETE /contacts/{id}/memories/{memory_id}: forget it (its content is shredded once applied)."""
        return self._run(calls.simple("forget_memory", contact_id, memory_id, tenant_id=self._tenant(tenant_id)))

    def triggers(self, contact_id: str, *, tenant_id: Optional[str] = None) -> m.TriggerList:
        """GET /contacts/{id}/triggers: check-ins, crisis flags, owner insights."""
        return self._run(calls.simple("triggers", contact_id, tenant_id=self._tenant(tenant_id)))

    def export(self, contact_id: str, *, tenant_id: Optional[str] = None) -> m.Export:
        """GET /contacts/{id}/export: everything held about the contact."""
        return self._run(calls.simple("export", contact_id, tenant_id=self._tenant(tenant_id)))

    def delete_contact(self, contact_id: str, *, tenant_id: Optional[str] = None) -> m.Erasure:
        """DELETE /contacts/{id}: erase everything of the contact (accepted: 202, done shortly after)."""
        return self._run(calls.simple("delete_contact", contact_id, tenant_id=self._tenant(tenant_id)))

    # ---------------------------------------------------------------------------------- webhooks
    def create_webhook(self, url: str, events: List[str], *, description: Optional[str] = None,
                       tenant_id: Optional[str] = None) -> m.WebhookCreated:
        """POST /webhooks: subscribe `url` to the tenant's `events` ("TriggerCreated:crisis",
        "MemoryExtracted", "*", ...). The answer's `secret` verifies the deliveries (verify_webhook) and
        is shown this once only. Sent once, never retried (a lost answer retried would subscribe twice)."""
        return self._run(calls.create_webhook(url, events, description, self._tenant(tenant_id)))

    def webhooks(self, *, tenant_id: Optional[str] = None) -> m.WebhookList:
        """GET /webhooks: the tenant's subscriptions, with pending and dead counts (never the secrets)."""
        return self._run(calls.simple("webhooks", tenant_id=self._tenant(tenant_id)))

    def webhook(self, webhook_id: str, *, tenant_id: Optional[str] = None) -> m.Webhook:
        """GET /webhooks/{id}: one subscription (NotFound: none of this tenant's)."""
        return self._run(calls.simple("webhook", webhook_id, tenant_id=self._tenant(tenant_id)))

    def delete_webhook(self, webhook_id: str, *, tenant_id: Optional[str] = None) -> m.WebhookDeleted:
        """DELETE /webhooks/{id}: unsubscribe; its pending deliveries are dropped unsent."""
        return self._run(calls.simple("delete_webhook", webhook_id, tenant_id=self._tenant(tenant_id)))

    def webhook_deliveries(self, webhook_id: str, *, status: Optional[str] = None, limit: Optional[int] = None,
                           tenant_id: Optional[str] = None) -> m.DeliveryList:
        """GET /webhooks/{id}/deliveries, newest first: `status` "pending", "delivered" or "dead" (the
        dead-lettered ones, with `last_error`); `limit` 1..500 (default 50)."""
        return self._run(calls.simple("webhook_deliveries", webhook_id, tenant_id=self._tenant(tenant_id),
                                      status=status, limit=limit))

    def retry_delivery(self, webhook_id: str, delivery_id: int, *, tenant_id: Optional[str] = None) -> m.Redelivery:
        """POST /webhooks/{id}/deliveries/{deliveryId}/retry: send a dead delivery again, on a fresh
        schedule (Conflict: it is not dead). Sent once: a retried retry would answer Conflict."""
        return self._run(calls.simple("retry_delivery", webhook_id, delivery_id, tenant_id=self._tenant(tenant_id),
                                      retry=False))

    def metrics(self) -> str:
        """GET /metrics: Prometheus text."""
        return self._run(calls.metrics())

    def openapi(self) -> Dict[str, Any]:
        """GET /openapi.json: the API's OpenAPI document."""
        return self._run(calls.openapi())


class AsyncRapport(_Base):
    """The asyncio client: the same methods as Rapport, awaited.

    >>> async with AsyncRapport() as rapport:
    ...     ctx = await rapport.context("arjun", query="how is bruno?")
    """

    def __init__(self, base_url: Optional[str] = None, **options: Any):
        super().__init__(base_url, **options)
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=self._headers, timeout=self._timeout,
                                       transport=self._transport)

    async def _send(self, req: calls.Request) -> httpx.Response:
        try:
            return await self._http.request(req.method, req.path, params=req.params, json=req.json,
                                            timeout=self._timeout_of(req), extensions=self._extensions(req))
        except httpx.TransportError as e:
            raise ConnectionFailed(f"{req.method} {self.base_url}{req.path}: {type(e).__name__}: {e}") from e

    async def _run(self, flow: calls.Flow[Any]) -> Any:
        return await calls.adrive(flow, self._send)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncRapport":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    # ------------------------------------------------------------------------------------ routes
    async def healthz(self) -> m.Health:
        return await self._run(calls.healthz())

    async def ingest(self, events: Union[EventLike, Iterable[EventLike]]) -> m.Receipt:
        return await self._run(calls.ingest(events, self.tenant_id))

    async def ingest_many(self, events: Iterable[EventLike], *, batch_size: int = 500) -> m.Receipt:
        return await self._run(calls.ingest_many(events, self.tenant_id, batch_size))

    async def context(self, contact_id: str, *, query: Optional[str] = None, tenant_id: Optional[str] = None,
                      persona_id: Optional[str] = None, budget: Optional[int] = None, as_of: Any = None,
                      after: Union[str, m.Receipt, None] = None,
                      after_timeout: float = AFTER_TIMEOUT_S) -> m.Context:
        return await self._run(calls.context(contact_id, query=query, tenant_id=self._tenant(tenant_id),
                                             persona_id=persona_id, budget=budget, as_of=as_of, after=after,
                                             after_timeout=after_timeout))

    async def payload(self, contact_id: str, message: str, *, system_prompt: Optional[str] = None,
                      service_data: Any = None, tools: Optional[List[Dict[str, Any]]] = None,
                      persona_id: Optional[str] = None, tenant_id: Optional[str] = None,
                      after: Union[str, m.Receipt, None] = None,
                      after_timeout: float = AFTER_TIMEOUT_S) -> m.Payload:
        return await self._run(calls.payload(contact_id, message, tenant_id=self._tenant(tenant_id),
                                             persona_id=persona_id, system_prompt=system_prompt,
                                             service_data=service_data, tools=tools, after=after,
                                             after_timeout=after_timeout))

    async def wait_for(self, receipt: m.Receipt, timeout: float = AFTER_TIMEOUT_S) -> None:
        return await self._run(calls.wait_for(receipt, timeout, self.tenant_id))

    async def contacts(self, *, q: Optional[str] = None, sort: Optional[str] = None, limit: Optional[int] = None,
                       cursor: Optional[str] = None, tenant_id: Optional[str] = None) -> m.ContactList:
        return await self._run(calls.simple("contacts", tenant_id=self._tenant(tenant_id), q=q, sort=sort,
                                            limit=limit, cursor=cursor))

    async def memories(self, contact_id: str, *, status: Optional[str] = None, limit: Optional[int] = None,
                       cursor: Optional[str] = None, tenant_id: Optional[str] = None) -> m.MemoryList:
        return await self._run(calls.simple("memories", contact_id, tenant_id=self._tenant(tenant_id), status=status,
                                            limit=limit, cursor=cursor))

    async def tenants(self) -> m.TenantList:
        return await self._run(calls.simple("tenants"))

    async def timeline(self, contact_id: str, *, limit: Optional[int] = None,
                       tenant_id: Optional[str] = None) -> m.Timeline:
        return await self._run(calls.simple("timeline", contact_id, tenant_id=self._tenant(tenant_id), limit=limit))

    async def memory(self, contact_id: str, memory_id: str, *, tenant_id: Optional[str] = None,
                     after: Union[str, m.Receipt, m.CurationReceipt, None] = None,
                     after_timeout: float = AFTER_TIMEOUT_S) -> m.MemoryWithHistory:
        return await self._run(calls.memory(contact_id, memory_id, tenant_id=self._tenant(tenant_id), after=after,
                                            after_timeout=after_timeout))

    async def correct_memory(self, contact_id: str, memory_id: str, *, content: Optional[str] = None,
                             memory_type: Optional[str] = None, importance: Optional[float] = None,
                             pinned: Optional[bool] = None, tenant_id: Optional[str] = None) -> m.CurationReceipt:
        return await self._run(calls.correct_memory(contact_id, memory_id, content=content, memory_type=memory_type,
                                                    importance=importance, pinned=pinned,
                                                    tenant_id=self._tenant(tenant_id)))

    async def forget_memory(self, contact_id: str, memory_id: str, *,
                            tenant_id: Optional[str] = None) -> m.CurationReceipt:
        return await self._run(calls.simple("forget_memory", contact_id, memory_id, tenant_id=self._tenant(tenant_id)))

    async def triggers(self, contact_id: str, *, tenant_id: Optional[str] = None) -> m.TriggerList:
        return await self._run(calls.simple("triggers", contact_id, tenant_id=self._tenant(tenant_id)))

    async def export(self, contact_id: str, *, tenant_id: Optional[str] = None) -> m.Export:
        return await self._run(calls.simple("export", contact_id, tenant_id=self._tenant(tenant_id)))

    async def delete_contact(self, contact_id: str, *, tenant_id: Optional[str] = None) -> m.Erasure:
        return await self._run(calls.simple("delete_contact", contact_id, tenant_id=self._tenant(tenant_id)))

    async def create_webhook(self, url: str, events: List[str], *, description: Optional[str] = None,
                             tenant_id: Optional[str] = None) -> m.WebhookCreated:
        return await self._run(calls.create_webhook(url, events, description, self._tenant(tenant_id)))

    async def webhooks(self, *, tenant_id: Optional[str] = None) -> m.WebhookList:
        return await self._run(calls.simple("webhooks", tenant_id=self._tenant(tenant_id)))

    async def webhook(self, webhook_id: str, *, tenant_id: Optional[str] = None) -> m.Webhook:
        return await self._run(calls.simple("webhook", webhook_id, tenant_id=self._tenant(tenant_id)))

    async def delete_webhook(self, webhook_id: str, *, tenant_id: Optional[str] = None) -> m.WebhookDeleted:
        return await self._run(calls.simple("delete_webhook", webhook_id, tenant_id=self._tenant(tenant_id)))

    async def webhook_deliveries(self, webhook_id: str, *, status: Optional[str] = None, limit: Optional[int] = None,
                                 tenant_id: Optional[str] = None) -> m.DeliveryList:
        return await self._run(calls.simple("webhook_deliveries", webhook_id, tenant_id=self._tenant(tenant_id),
                                            status=status, limit=limit))

    async def retry_delivery(self, webhook_id: str, delivery_id: int, *,
                             tenant_id: Optional[str] = None) -> m.Redelivery:
        return await self._run(calls.simple("retry_delivery", webhook_id, delivery_id,
                                            tenant_id=self._tenant(tenant_id), retry=False))

    async def metrics(self) -> str:
        return await self._run(calls.metrics())

    async def openapi(self) -> Dict[str, Any]:
        return await self._run(calls.openapi())
