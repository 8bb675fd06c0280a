"""Bytes on the wire -> the current version of an event: parse, check the envelope, run the upcaster
chain (schemas/upcasters.py), validate the payload (schemas/events.py). Apart from the envelope so that
the envelope, the event types and the upcasters import in one direction only."""
from __future__ import annotations

import orjson

from schemas.envelope import Envelope, InvalidEvent, parse_time
from schemas.events import validate_payload
from schemas.upcasters import upcast


def decode(raw: bytes | str | dict) -> Envelope:
    """Bytes (or an already parsed dict) -> current-version Envelope; InvalidEvent with a reason."""
    if isinstance(raw, dict):
        d = raw
    else:
        try:
            d = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            raise InvalidEvent(f"not JSON: {e}", raw if isinstance(raw, bytes) else None) from None
    if not isinstance(d, dict):
        raise InvalidEvent("event is not a JSON object")
    missing = [f for f in ("event_id", "event_type", "schema_version", "tenant_id", "contact_id",
                           "occurred_at", "payload") if d.get(f) in (None, "")]
    if missing:
        raise InvalidEvent(f"missing envelope field(s): {', '.join(missing)}")
    for f in ("event_id", "event_type", "tenant_id", "contact_id"):
        if not isinstance(d[f], str):
            raise InvalidEvent(f"envelope field {f} must be a string")
    if not isinstance(d["payload"], dict):
        raise InvalidEvent("envelope field payload must be an object")
    if not isinstance(d["schema_version"], int) or isinstance(d["schema_version"], bool):
        raise InvalidEvent("envelope field schema_version must be an integer")
    try:
        parse_time(d["occurred_at"])
    except (ValueError, TypeError):
        raise InvalidEvent("envelope field occurred_at is not RFC 3339") from None
    d = upcast(d)
    env = Envelope(
        event_id=d["event_id"], event_type=d["event_type"], schema_version=d["schema_version"],
        tenant_id=d["tenant_id"], contact_id=d["contact_id"], occurred_at=d["occurred_at"],
        recorded_at=d.get("recorded_at") or d["occurred_at"], payload=d["payload"],
        causation_id=d.get("causation_id"), correlation_id=d.get("correlation_id"))
    validate_payload(env)
    return env
