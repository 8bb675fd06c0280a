"""Input rules at the edge (DESIGN.md 9: nothing a client sends may crash a worker): pure checks that
return the problem as text, or None. POST /ingest (streams/ingest.py), every route's parameters
(projections/api.py) and `rapport keys` use them.

- ids (tenant, contact, event): 1-128 characters, no `/` (an id with `/` could be stored but never
  addressed again by a path), no control characters;
- names and other short strings: no control characters (C0, DEL, C1, line/paragraph separators);
- message text: no control characters except tab, newline and carriage return;
- event times: from 1970-01-01T00:00:00Z to 24 hours after now (a year-1 or year-9999 time was
  accepted, then broke the database's date arithmetic in the worker, issue 11).
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import TypeVar

T = TypeVar("T")

MAX_ID_CHARS = 128
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
MAX_FUTURE = timedelta(hours=24)
# C0, DEL, C1, and U+2028/U+2029 (which some renderers treat as line breaks)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")


def _describe(ch: str) -> str:
    return f"U+{ord(ch):04X}"


def require(value: T, problem: str | None) -> T:
    """`value`, or ValueError(problem) (for pydantic field validators)."""
    if problem is not None:
        raise ValueError(problem)
    return value


def check_name(value: str) -> str | None:
    """A short single-line string (a name, a channel, a session id)."""
    m = _CONTROL.search(value)
    return f"must not contain control characters (found {_describe(m.group())})" if m else None


def check_id(value: str, max_chars: int = MAX_ID_CHARS) -> str | None:
    if not 1 <= len(value) <= max_chars:
        return f"must be 1-{max_chars} characters"
    if "/" in value:
        return "must not contain '/'"
    return check_name(value)


def check_text(value: str) -> str | None:
    """Message text: tab, newline and carriage return allowed, no other control character."""
    m = _CONTROL_IN_TEXT.search(value)
    return f"must not contain control characters other than tab and newlines (found {_describe(m.group())})" \
        if m else None


def check_time(at: datetime, now: datetime) -> str | None:
    """An event time: not before 1970, not more than 24 hours ahead of `now`."""
    if at.tzinfo is None:
        return "must carry a UTC offset"
    if at < EARLIEST:
        return "must not be before 1970-01-01T00:00:00Z"
    if at > now + MAX_FUTURE:
        return "must not be more than 24 hours in the future"
    return None


MAX_JSON_DEPTH = 32


def too_deep(data: object, limit: int = MAX_JSON_DEPTH) -> str | None:
    """Where parsed JSON nests deeper than `limit` arrays/objects (a dotted path, `body` for the top),
    or None. Iterative: a hostile depth cannot exhaust the stack here, and nothing deeper reaches
    pydantic or the payload builder, whose recursion it could."""
    stack: list[tuple[object, int, str]] = [(data, 1, "")]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, dict):
            items = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            continue
        if depth > limit:
            return path or "body"
        for k, v in items:
            if isinstance(v, (dict, list)):
                stack.append((v, depth + 1, f"{path}.{k}" if path else str(k)))
    return None
