"""The API's /webhooks routes: a tenant's webhook subscriptions and their deliveries (README "Webhooks").
Thin: the rules are streams/webhooks/rules.py and addresses.py, the SQL streams/webhooks/store.py.

An APIRouter: projections/api.create_app mounts it; what it shares with the other routes comes from
projections/deps.py (never projections/api.py). Their answers are described in
projections/responses.py (the handlers return their own JSON); the Python client has a method for each
(clients/python: create_webhook, webhooks, webhook, delete_webhook, webhook_deliveries, retry_delivery)."""
from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from projections import auth
from projections import responses as out
from projections.deps import (BadParam, JSONBody, TenantParam, answers, declared, error, json_body, principal,
                             request_body, svc, tenant_of)
from projections.context import iso
from schemas import validate
from streams.webhooks import addresses, rules, store

router = APIRouter()

MAX_BODY = 16 * 1024


# what url_problem accepts, declared at least as strictly: http(s), a host name or IPv4 address, a port
# deliveries may use (addresses.py), a path and query without spaces, control characters or a fragment.
# Where the host points (a public address, resolvable) is decided when the webhook is created.
URL_PATTERN = (r"^https?://[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::(?:80|443|8080|8443))?"
               f"(?:[/?][^ #{validate.CONTROL_CHARS}]*)?$")


class WebhookRequest(BaseModel):
    """The body of POST /webhooks."""
    model_config = ConfigDict(extra="forbid")
    url: Annotated[str, Field(min_length=1, max_length=rules.MAX_URL_CHARS,
                              description="http(s), no credentials; a public address unless "
                                          "RAPPORT_WEBHOOK_ALLOW_PRIVATE"),
                   validate.checked(rules.url_problem), validate.Declared.of({"pattern": URL_PATTERN})]
    events: list[Annotated[str, validate.Declared.of({"enum": list(rules.FILTERS)})]] = Field(
        min_length=1, max_length=rules.MAX_FILTERS,
        description='"TriggerCreated", "TriggerCreated:crisis", "MemoryExtracted", ..., "*"')
    description: validate.Name(rules.MAX_DESCRIPTION_CHARS) | None = None
    tenant_id: validate.Id | None = Field(default=None, description="default: the key's tenant (another only with "
                                                                     "an admin key)")

    @field_validator("events")
    @classmethod
    def _events(cls, v: list[str]) -> list[str]:
        return validate.require(v, rules.filter_problem(v))


def webhook_json(r: dict[str, Any]) -> dict[str, Any]:
    return {"id": r["webhook_id"], "tenantId": r["tenant_id"], "url": r["url"], "events": list(r["events"]),
            "description": r["description"], "createdAt": iso(r["created_at"]), "pending": r["pending"],
            "dead": r["dead"]}


def delivery_json(r: dict[str, Any]) -> dict[str, Any]:
    return {"deliveryId": r["delivery_id"], "eventId": r["event_id"], "eventType": r["event_type"],
            "contactId": r["contact_id"], "status": r["status"], "attempts": r["attempts"],
            "nextAttemptAt": iso(r["next_attempt_at"]) if r["status"] == "pending" else None,
            "lastStatus": r["last_status"], "lastError": r["last_error"], "createdAt": iso(r["created_at"]),
            "finishedAt": iso(r["finished_at"])}


WebhookIdPath = Annotated[declared(validate.id_schema(), '"wh_" and 16 hex digits, as POST /webhooks answers'), Path()]
DeliveryStatusParam = Annotated[declared({"enum": list(store.STATUSES)}, "only the deliveries of this status") | None,
                                Query()]


def webhook_param(webhook_id: str) -> str:
    if (problem := validate.check_id(webhook_id)) is not None:
        raise BadParam(400, "webhook_id", problem)
    return webhook_id


@router.post("/webhooks", **answers(out.WebhookCreated, 201, {400: out.ErrorBody, 409: out.TooManyWebhooks,
                                                          413: out.ErrorBody}),
          **request_body(WebhookRequest.model_json_schema()))
async def create_webhook(request: Request, p: auth.Principal = Depends(principal)) -> JSONBody:
    """Subscribe a URL to the tenant's events. The answer holds the signing secret: the only time it is shown."""
    req = await json_body(request, MAX_BODY, WebhookRequest, "webhook")
    tenant_id = auth.tenant_for(p, req.tenant_id)
    if (problem := await addresses.address_problem(req.url, svc.settings.webhooks)) is not None:
        return error(422, "invalid webhook", errors=[{"field": "url", "problem": problem}])
    try:
        async with svc.pool.connection() as conn:
            hook, secret = await store.create(conn, tenant_id, req.url, req.events, req.description)
    except store.TooMany:
        return error(409, f"a tenant has at most {rules.MAX_WEBHOOKS_PER_TENANT} webhooks", tenantId=tenant_id)
    return JSONBody({**webhook_json(hook), "secret": secret}, status_code=201)


@router.get("/webhooks", **answers(out.WebhookList, errors={400: out.ErrorBody}))
async def list_webhooks(tenant_id: TenantParam = None, p: auth.Principal = Depends(principal)) -> JSONBody:
    """The tenant's subscriptions, oldest first, with their pending and dead counts (never the secrets)."""
    tenant_id = tenant_of(p, tenant_id)
    async with svc.pool.connection() as conn:
        rows = await store.list_for(conn, tenant_id)
    return JSONBody({"tenantId": tenant_id, "webhooks": [webhook_json(r) for r in rows]})


@router.get("/webhooks/{webhook_id}", **answers(out.Webhook, errors={400: out.ErrorBody, 404: out.NoSuchWebhook}))
async def get_webhook(webhook_id: WebhookIdPath, tenant_id: TenantParam = None,
                      p: auth.Principal = Depends(principal)) -> JSONBody:
    """One subscription (without its secret)."""
    webhook_id, tenant_id = webhook_param(webhook_id), tenant_of(p, tenant_id)
    async with svc.pool.connection() as conn:
        row = await store.get(conn, tenant_id, webhook_id)
    return JSONBody(webhook_json(row)) if row else error(404, "no such webhook", webhookId=webhook_id)


@router.delete("/webhooks/{webhook_id}",
            **answers(out.WebhookDeleted, errors={400: out.ErrorBody, 404: out.NoSuchWebhook}))
async def delete_webhook(webhook_id: WebhookIdPath, tenant_id: TenantParam = None,
                         p: auth.Principal = Depends(principal)) -> JSONBody:
    """Unsubscribe; its pending deliveries are dropped unsent."""
    webhook_id, tenant_id = webhook_param(webhook_id), tenant_of(p, tenant_id)
    async with svc.pool.connection() as conn:
        deleted = await store.delete(conn, tenant_id, webhook_id)
    return JSONBody({"id": webhook_id, "deleted": True}) if deleted else error(404, "no such webhook",
                                                                                webhookId=webhook_id)


@router.get("/webhooks/{webhook_id}/deliveries",
         **answers(out.DeliveryList, errors={400: out.ErrorBody, 404: out.NoSuchWebhook}))
async def list_deliveries(webhook_id: WebhookIdPath, tenant_id: TenantParam = None, status: DeliveryStatusParam = None,
                          limit: int = Query(50, ge=1, le=500), p: auth.Principal = Depends(principal)) -> JSONBody:
    """The subscription's deliveries, newest first: `status=dead` lists the dead-lettered ones and why."""
    webhook_id, tenant_id = webhook_param(webhook_id), tenant_of(p, tenant_id)
    if status is not None and status not in store.STATUSES:
        raise BadParam(400, "status", "one of " + ", ".join(store.STATUSES))
    async with svc.pool.connection() as conn:
        if await store.get(conn, tenant_id, webhook_id) is None:
            return error(404, "no such webhook", webhookId=webhook_id)
        rows = await store.deliveries(conn, tenant_id, webhook_id, status, limit)
    return JSONBody({"webhookId": webhook_id, "deliveries": [delivery_json(r) for r in rows]})


@router.post("/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
          **answers(out.Redelivery, 202, {400: out.ErrorBody, 404: out.NoSuchDelivery, 409: out.NotRetryable}))
async def retry_delivery(webhook_id: WebhookIdPath, delivery_id: int = Path(ge=1, le=2 ** 63 - 1),
                         tenant_id: TenantParam = None,
                         p: auth.Principal = Depends(principal)) -> JSONBody:
    """Send a dead-lettered delivery again, with a fresh retry schedule."""
    webhook_id, tenant_id = webhook_param(webhook_id), tenant_of(p, tenant_id)
    async with svc.pool.connection() as conn:
        outcome = await store.redeliver(conn, tenant_id, webhook_id, delivery_id)
    if outcome == "queued":
        return JSONBody({"deliveryId": delivery_id, "status": "pending"}, status_code=202)
    if outcome == "missing":
        return error(404, "no such delivery", deliveryId=delivery_id)
    return error(409, f"only a dead delivery can be retried; this one is {outcome}", deliveryId=delivery_id)
