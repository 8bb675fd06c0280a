"""rapport_client: the Python client of rapport's HTTP API (CONTRACT.md), sync and async.

    from rapport_client import Rapport, Event

    with Rapport() as rapport:               # $RAPPORT_URL / $RAPPORT_API_KEY, else ./.rapport/api-key
        receipt = rapport.ingest(Event(contact_id="arjun", role="user", message="I moved to Berlin"))
        ctx = rapport.context("arjun", query="Where do I live?", after=receipt)
        print(ctx.context_text)

Receiving webhooks: `verify_webhook(secret, headers, raw_body)` checks a delivery's signature.

It installs nothing of the server: httpx, httpx-retries and pydantic only."""
from rapport_client.client import AsyncRapport, Rapport, __version__
from rapport_client.errors import (AuthError, Conflict, ConnectionFailed, InvalidRequest, NotFound, NotReflected, PayloadTooLarge,
                                   PermissionDenied, RapportError, RateLimited, ServerError, Unavailable,
                                   ValidationError)
from rapport_client.models import (ContactList, ContactSummary, Context, Delivery, DeliveryList, Entity, Erasure, Event, Export, Health, Memory,
                                   MemoryDetail, MemoryList, Payload, Receipt, Redelivery, Trigger, TriggerList,
                                   TenantList, Timeline, Webhook, WebhookCreated, WebhookDeleted, WebhookList)
from rapport_client.webhooks import InvalidSignature, verify_webhook

__all__ = ["Rapport", "AsyncRapport", "__version__", "Event", "Receipt", "Context", "Memory", "MemoryDetail",
           "MemoryList", "ContactList", "ContactSummary", "TenantList", "Timeline", "Entity", "Health", "Payload", "Trigger", "TriggerList", "Export", "Erasure",
           "Webhook", "WebhookCreated", "WebhookList", "WebhookDeleted", "Delivery", "DeliveryList", "Redelivery",
           "verify_webhook", "InvalidSignature", "RapportError", "ConnectionFailed", "AuthError", "PermissionDenied",
           "NotFound", "Conflict", "ValidationError", "InvalidRequest", "PayloadTooLarge", "RateLimited", "NotReflected", "Unavailable", "ServerError"]
