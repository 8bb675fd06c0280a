"""Pure pieces of the read routes that page and chart (projections/contacts_routes.py): opaque cursors for
keyset pagination, and the spans the console marks on a contact's mood timeline.

A cursor is the position after the last row a page showed, in the page's own order, bound to what it
pages (the kind of list, the tenant, the contact or the sort): base64url of a small JSON array. Nothing
in it is secret and nothing in it is trusted: every part is checked when it comes back, and one made for
another list, tenant or sort is refused (400 naming `cursor`), as is anything that is not one. A client
treats it as opaque; the server may change its inside between versions (its first element is its
version)."""
from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any

import orjson

from agents.core import patterns

CURSOR_VERSION = 1
MAX_CURSOR_CHARS = 1024  # ids are at most 128 characters: a real cursor is under 700
CURSOR_PATTERN = "^[A-Za-z0-9_-]+$"


class BadCursor(ValueError):
    """Not a cursor this server gave for this list."""


def encode_cursor(kind: str, tenant_id: str, scope: str, at: datetime | None, last_id: str) -> str:
    """The position after the row (`at`, `last_id`) of list `kind` (`scope`: the contact, or the sort)."""
    raw = orjson.dumps([CURSOR_VERSION, kind, tenant_id, scope, at.isoformat() if at is not None else None, last_id])
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_cursor(cursor: str, kind: str, tenant_id: str, scope: str) -> tuple[datetime | None, str]:
    """(at, last id) of a cursor `encode_cursor(kind, tenant_id, scope, ...)` made; BadCursor otherwise."""
    if not 1 <= len(cursor) <= MAX_CURSOR_CHARS:
        raise BadCursor(f"must be 1-{MAX_CURSOR_CHARS} characters")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value = orjson.loads(raw)
    except (binascii.Error, ValueError):
        raise BadCursor("not a cursor this server gave") from None
    if not (isinstance(value, list) and len(value) == 6 and value[0] == CURSOR_VERSION):
        raise BadCursor("not a cursor this server gave")
    _, got_kind, got_tenant, got_scope, at, last_id = value
    if (got_kind, got_tenant, got_scope) != (kind, tenant_id, scope):
        raise BadCursor("made for another list (tenant, contact or sort): start again without it")
    if not isinstance(last_id, str) or not last_id or (at is not None and not isinstance(at, str)):
        raise BadCursor("not a cursor this server gave")
    try:
        when = datetime.fromisoformat(at) if at is not None else None
    except ValueError:
        raise BadCursor("not a cursor this server gave") from None
    if when is not None and when.tzinfo is None:
        raise BadCursor("not a cursor this server gave")
    return when, last_id


def difficult_periods(moods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs of negative moods the fold calls a difficult period (agents/core/patterns.step_sustained:
    SUSTAINED_RUN negative messages in a row), as spans from the run's first message to its last, over
    mood rows `{"at": datetime, "mood": str}` in time order. The fold itself remembers only the run in
    progress; this replays the same step over the mood log to find every one."""
    spans: list[dict[str, Any]] = []
    state: dict[str, Any] | None = None
    run: list[datetime] = []
    fired = False

    def close() -> None:
        if fired and run:
            spans.append({"kind": "difficult_period", "start": run[0], "end": run[-1], "count": len(run),
                          "label": f"{len(run)} negative messages in a row"})

    for row in moods:
        state, fired_now = patterns.step_sustained(state, row["mood"], row["at"].isoformat())
        if state["run"] == 0:  # not negative: the run (if any) ended with the message before
            close()
            run, fired = [], False
            continue
        run.append(row["at"])
        fired = fired or fired_now
    close()
    return spans
