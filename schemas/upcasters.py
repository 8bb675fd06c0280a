"""Upcasters: functions that lift a stored event dict from version N to N+1.

Events are immutable in the log; when a schema changes, the old versions stay there and are lifted on
read (the pyeventsourcing pattern). `upcast` applies the chain until the current version, so replaying
a log that mixes versions gives the same events as a log written entirely in the current one.
Every version ever written has a golden fixture in schemas/fixtures/ and a test that upcasts it.
"""
from __future__ import annotations

from typing import Any, Callable

from schemas.envelope import InvalidEvent
from schemas.events import CURRENT_VERSIONS, INTERACTION_RECORDED, MEMORY_ACCESSED

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def _interaction_v1_to_v2(d: dict[str, Any]) -> dict[str, Any]:
    """v1 (the first wire format) named the text `text` and the speaker `speaker`, and had no
    conversation/persona ids; v2 uses the contract's names (`message`, `role`)."""
    p = dict(d["payload"])
    if "text" in p and "message" not in p:
        p["message"] = p.pop("text")
    if "speaker" in p and "role" not in p:
        p["role"] = p.pop("speaker")
    for k in ("conversation_id", "session_id", "channel", "display_name", "persona_id"):
        p.setdefault(k, None)
    return {**d, "schema_version": 2, "payload": p}


def _memory_accessed_v1_to_v2(d: dict[str, Any]) -> dict[str, Any]:
    """v1 was derived once per accessed memory ({memoryId, at}); v2 once per response ({memoryIds, at}).
    A v1 event is a v2 event of one id (one in a worker's outbox across an upgrade, for instance)."""
    p = dict(d["payload"])
    if "memoryId" in p:
        p["memoryIds"] = [p.pop("memoryId")]
    return {**d, "schema_version": 2, "payload": p}


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    (INTERACTION_RECORDED, 1): _interaction_v1_to_v2,
    (MEMORY_ACCESSED, 1): _memory_accessed_v1_to_v2,
}


def upcast(d: dict[str, Any]) -> dict[str, Any]:
    et, v = d["event_type"], d["schema_version"]
    current = CURRENT_VERSIONS.get(et)
    if current is None:
        return d  # unknown types are rejected by validate_payload with a clear reason
    if v > current:
        raise InvalidEvent(f"{et} schema_version {v} is newer than this build knows ({current})")
    while v < current:
        step = UPCASTERS.get((et, v))
        if step is None:
            raise InvalidEvent(f"no upcaster for {et} v{v}")
        d = step(d)
        v = d["schema_version"]
    return d
