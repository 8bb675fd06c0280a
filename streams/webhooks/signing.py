"""Webhook signatures in the Standard Webhooks format (standardwebhooks.com): receivers can verify them with
that project's libraries in any language, or in Python with the client's `rapport_client.verify_webhook`
(this module's `verify` without the server: tests/test_client.py holds the two to the same verdicts).

Every delivery carries three headers:
    webhook-id:        the event id: the same on every retry, so a receiver drops what it has seen
    webhook-timestamp: unix seconds when this attempt was signed (each retry is signed afresh)
    webhook-signature: "v1,<base64 HMAC-SHA256(key, f"{webhook-id}.{webhook-timestamp}.{body}")>"
                       (several, space-separated, are allowed: a receiver accepts any that matches)
The key is the secret's bytes after its `whsec_` prefix, base64-decoded. The timestamp is signed, so a
captured request cannot be replayed outside the tolerance window (5 minutes by default).

The MAC itself is the `standardwebhooks` package's (the specification's reference library); this module
adds what it leaves out: a strict secret check, an injectable `now` and tolerance, and one error type.
The library signs text, so a body must be UTF-8 (every delivery is JSON).
"""
from __future__ import annotations

import base64
import binascii
import hmac
import secrets
import time
from datetime import datetime, timezone
from typing import Mapping

from standardwebhooks.webhooks import Webhook

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
TOLERANCE_S = 300


class InvalidSignature(ValueError):
    """The request is not a delivery signed with this secret within the tolerance window."""


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def _key(secret: str) -> bytes:
    raw = secret[len(SECRET_PREFIX):] if secret.startswith(SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidSignature("the secret is not base64 after its whsec_ prefix") from None
    if not key:
        raise InvalidSignature("empty secret")
    return key


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` value for one attempt."""
    try:
        text = body.decode()
        at = datetime.fromtimestamp(timestamp, timezone.utc)
    except UnicodeDecodeError:
        raise InvalidSignature("the body is not UTF-8") from None
    except (OverflowError, OSError, ValueError):
        raise InvalidSignature("the timestamp is not a date") from None
    return Webhook(_key(secret)).sign(msg_id, at, text)


def sign(secret: str, msg_id: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    """The three signature headers for sending `body` now (or at `timestamp`)."""
    t = int(time.time()) if timestamp is None else int(timestamp)
    return {"webhook-id": msg_id, "webhook-timestamp": str(t), "webhook-signature": signature(secret, msg_id, t, body)}


def verify(secret: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None,
           tolerance_s: int = TOLERANCE_S) -> str:
    """Check a delivery; returns its event id (webhook-id: dedupe on it). Raises InvalidSignature when a
    header is missing or malformed, the timestamp is outside `tolerance_s` of `now` (a replay), or no
    v1 signature matches the exact body bytes. Pass the raw body, never re-serialised JSON."""
    h = {k.lower(): v for k, v in headers.items()}
    msg_id, stamp, sigs = h.get("webhook-id"), h.get("webhook-timestamp"), h.get("webhook-signature")
    if not (msg_id and stamp and sigs):
        raise InvalidSignature("missing webhook-id, webhook-timestamp or webhook-signature")
    if not (stamp.isascii() and stamp.isdigit()) or len(stamp) > 12:
        raise InvalidSignature("webhook-timestamp is not unix seconds")
    t = int(stamp)
    if abs((time.time() if now is None else now) - t) > tolerance_s:
        raise InvalidSignature("webhook-timestamp is outside the tolerance window")
    expected = signature(secret, msg_id, t, body).encode()
    for candidate in sigs.split(" "):
        if hmac.compare_digest(candidate.encode(), expected):
            return msg_id
    raise InvalidSignature("no matching v1 signature")
