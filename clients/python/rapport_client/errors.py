"""Typed errors: one class per way a call can fail, each carrying the API's answer."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import httpx
from pydantic import ValidationError as PydanticValidationError

from rapport_client.models import FieldProblem


class RapportError(Exception):
    """Base of every error this client raises. `status` is the HTTP status (None: no answer), `body`
    the decoded JSON answer (or its text)."""

    def __init__(self, message: str, *, status: Optional[int] = None, body: Any = None):
        super().__init__(message)
        self.message, self.status, self.body = message, status, body
        self.receipt: Any = None  # ingest_many: what the batches before the failed one recorded


class ConnectionFailed(RapportError):
    """No answer: the API could not be reached, or timed out (after the retries)."""


class AuthError(RapportError):
    """401: no key, or an unknown or revoked one."""


class PermissionDenied(RapportError):
    """403: the key may not act for the tenant named (or /metrics beyond loopback without an admin key)."""


class NotFound(RapportError):
    """404: no such webhook, delivery or memory (of this tenant), or no such route (a client newer than the
    server, or a wrong base URL)."""


class Conflict(RapportError):
    """409: the request clashes with what is there: the tenant has its maximum of webhooks, or the
    delivery to retry is not dead (pending or delivered)."""


class ValidationError(RapportError):
    """400/413/422: the request was refused, nothing of it was recorded. `errors` names each bad field
    and its problem (in an /ingest batch also the event's `index`); `fields` just their names."""

    @property
    def errors(self) -> List[FieldProblem]:
        raw = self.body.get("errors") if isinstance(self.body, dict) else None
        return [FieldProblem.model_validate(e) for e in raw or []]

    @property
    def fields(self) -> List[str]:
        return [e.field for e in self.errors]


class PayloadTooLarge(ValidationError):
    """413: a body or batch over the API's limits (1000 events per /ingest, /payload 256 KiB)."""


class TooManyEvents(PayloadTooLarge, ValueError):
    """Refused before sending (nothing was sent): more events than one /ingest takes; `ingest_many`
    sends any number. Also a ValueError, as earlier versions of this client raised."""


class NoEvents(ValidationError, ValueError):
    """Refused before sending (nothing was sent): an empty batch. Also a ValueError, as before."""


class InvalidRequest(ValidationError, ValueError):
    """Refused before sending (nothing was sent): a value the client cannot send, such as an Event
    without its `role`, or an `after=` receipt that holds no event of the contact. `errors` names each
    field, as the API's 422 does. Also a ValueError, as pydantic's own ValidationError (raised here
    before) is one."""


def invalid(what: str, problems: List[Dict[str, str]]) -> InvalidRequest:
    """The InvalidRequest for `problems` ({"field", "problem"} each), its message naming every field."""
    listed = "; ".join(f"{p['field']}: {p['problem']}" for p in problems)
    return InvalidRequest(f"invalid {what}: {listed}", body={"errors": problems})


def from_pydantic(what: str, error: PydanticValidationError) -> InvalidRequest:
    """pydantic's ValidationError as this client's, each field named by its dotted path (no URL)."""
    return invalid(what, [{"field": ".".join(str(p) for p in e["loc"]) or "body", "problem": e["msg"]}
                          for e in error.errors(include_url=False)])


class RateLimited(RapportError):
    """429 after the retries: the tenant's backlog of unprocessed events is full. `retry_after` is
    the server's Retry-After, in seconds."""

    def __init__(self, message: str, *, status: Optional[int] = None, body: Any = None,
                 retry_after: Optional[float] = None):
        super().__init__(message, status=status, body=body)
        self.retry_after = retry_after


class NotReflected(RapportError):
    """The `after=` event is not in the projections within the time given (504 from the API, asked
    again until the client's `after_timeout`)."""

    @property
    def event_id(self) -> Optional[str]:
        return self.body.get("event_id") if isinstance(self.body, dict) else None


class Unavailable(RapportError):
    """503 after the retries: the API's database or broker is down, or the stack is still starting."""


class ServerError(RapportError):
    """Any other 5xx."""


BY_STATUS = {400: ValidationError, 401: AuthError, 403: PermissionDenied, 404: NotFound, 409: Conflict, 413: PayloadTooLarge,
             422: ValidationError, 429: RateLimited, 503: Unavailable, 504: NotReflected}


def retry_after_s(response: httpx.Response) -> Optional[float]:
    value = response.headers.get("Retry-After", "")
    return float(value) if value.strip().isdigit() else None


def error_for(response: httpx.Response) -> RapportError:
    """The typed error for a failed answer."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    message = body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), str) else None
    message = f"{response.status_code} {message or response.reason_phrase}"
    if isinstance(body, dict) and body.get("errors"):
        message += ": " + "; ".join(f"{e.get('field')}: {e.get('problem')}" for e in body["errors"]
                                    if isinstance(e, dict))
    status = response.status_code
    kind = BY_STATUS.get(status, ServerError if status >= 500 else RapportError)
    if kind is NotReflected and not (isinstance(body, dict) and "event_id" in body):
        kind = ServerError  # a gateway's timeout, not the API's answer to `after=`
    if kind is RateLimited:
        return RateLimited(message, status=status, body=body, retry_after=retry_after_s(response))
    return kind(message, status=status, body=body)
