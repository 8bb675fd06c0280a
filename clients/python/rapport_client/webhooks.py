"""Verifying what rapport's webhooks send: the Standard Webhooks signature (standardwebhooks.com), with
the standard library only, so a receiver needs nothing of the server (whose own twin is
streams/webhooks/signing.py; tests/test_client.py holds the two to the same bytes).

    from rapport_client import InvalidSignature, verify_webhook

    def receive(headers, raw_body: bytes):      # the bytes as received, never re-serialised JSON
        try:
            event_id = verify_webhook(SECRET, headers, raw_body)
        except InvalidSignature:
            return 400
        ...                                     # at least once: skip an event_id already handled
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from typing import Mapping, Optional

SECRET_PREFIX = "whsec_"
TOLERANCE_S = 300  # a signed timestamp further off than this is refused: a replayed capture


class InvalidSignature(ValueError):
    """Not a delivery signed with this secret within the tolerance window."""


def _key(secret: str) -> bytes:
    raw = secret[len(SECRET_PREFIX):] if secret.startswith(SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidSignature("the secret is not base64 after its whsec_ prefix") from None
    if not key:
        raise InvalidSignature("empty secret")
    return key


def verify_webhook(secret: str, headers: Mapping[str, str], body: bytes, *, now: Optional[float] = None,
                   tolerance_s: int = TOLERANCE_S) -> str:
    """Check one delivery; returns its event id (the webhook-id header: dedupe on it, a retry repeats
    it). Raises InvalidSignature when a webhook-* header is missing or malformed, the signed timestamp
    is more than `tolerance_s` from `now`, or no v1 signature (of the space-separated ones) matches the
    HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" under the secret."""
    h = {k.lower(): v for k, v in headers.items()}
    msg_id, stamp, sigs = h.get("webhook-id"), h.get("webhook-timestamp"), h.get("webhook-signature")
    if not (msg_id and stamp and sigs):
        raise InvalidSignature("missing webhook-id, webhook-timestamp or webhook-signature")
    if not (stamp.isascii() and stamp.isdigit()) or len(stamp) > 12:
        raise InvalidSignature("webhook-timestamp is not unix seconds")
    t = int(stamp)  # signed as the integer (as Standard Webhooks' own libraries do): "0123" is 123
    if abs((time.time() if now is None else now) - t) > tolerance_s:
        raise InvalidSignature("webhook-timestamp is outside the tolerance window")
    mac = hmac.new(_key(secret), f"{msg_id}.{t}.".encode() + bytes(body), hashlib.sha256).digest()
    expected = ("v1," + base64.b64encode(mac).decode()).encode()
    if any(hmac.compare_digest(s.encode(), expected) for s in sigs.split(" ")):
        return msg_id
    raise InvalidSignature("no matching v1 signature")
