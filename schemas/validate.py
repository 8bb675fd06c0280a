"""Input rules at the edge (DESIGN.md 9: nothing a client sends may crash a worker): pure checks that
return the problem as text, or None. POST /ingest (streams/ingest.py), every route's parameters
(projections/api.py) and `rapport keys` use them.

- ids (tenant, contact, event): 1-128 characters, no `/` (an id with `/` could be stored but never
  addressed again by a path), no control characters;
- names and other short strings: no control characters (C0, DEL, C1, line/paragraph separators);
- message text: no control characters except tab, newline and carriage return;
- event times: RFC 3339 only (`parse_rfc3339`: what Python's ISO parser also takes, a date alone,
  `20260403`, week dates, comma fractions, an offset with seconds or beyond +-14:00, answered 500 when
  PostgreSQL refused it, issue 20), from 1970-01-01T00:00:00Z to 24 hours after now (a year-1 or
  year-9999 time was accepted, then broke the database's date arithmetic in the worker, issue 11);
- contact ids: `_` starts the reserved ones (`_tenant`, the tenant's business memory).
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import TypeVar

T = TypeVar("T")

MAX_ID_CHARS = 128
RESERVED_PREFIX = "_"  # contact ids the service names itself (schemas/events.TENANT_CONTACT)
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


def check_contact_id(value: str) -> str | None:
    """A contact id a client may name: an id, not one of the reserved ones."""
    if value.startswith(RESERVED_PREFIX):
        return f"must not begin with {RESERVED_PREFIX!r} (reserved for the service's own contacts)"
    return check_id(value)


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


# RFC 3339 section 5.6 date-time: full-date "T" full-time, the offset mandatory; "t" and a space (the
# RFC's note) for the separator, "z" for Z. Fractions of 1-9 digits (nanoseconds, as Go and Java
# write them; PostgreSQL and the fold keep microseconds). ASCII digits only: \d would take Arabic ones.
_RFC3339 = re.compile(r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})[Tt ](?P<h>[0-9]{2}):(?P<mi>[0-9]{2}):"
                      r"(?P<s>[0-9]{2})(?:\.(?P<f>[0-9]{1,9}))?(?:(?P<z>[Zz])|(?P<sign>[+-])(?P<oh>[0-9]{2}):(?P<om>[0-9]{2}))")
# the offsets in use on Earth run from -12:00 to +14:00; PostgreSQL refuses beyond +-15:59
MAX_OFFSET = timedelta(hours=14)
MAX_TIME_CHARS = 64


def parse_rfc3339(value: object) -> datetime:
    """An RFC 3339 date-time -> an aware datetime, or ValueError saying what is wrong. Whatever this
    accepts PostgreSQL stores as a timestamptz (tests/test_edges_pg.py proves it on the real server):
    no leap second (60), offsets within +-14:00, years 0001-9999 after the offset is applied."""
    if not isinstance(value, str):
        raise ValueError("must be a string")
    if len(value) > MAX_TIME_CHARS:
        raise ValueError(f"must be at most {MAX_TIME_CHARS} characters")
    m = _RFC3339.fullmatch(value)
    if m is None:
        raise ValueError("must be an RFC 3339 date-time with an offset, e.g. 2026-04-03T22:15:00+05:30")
    g = m.groupdict()
    offset = timedelta(0) if g["z"] else (1 if g["sign"] == "+" else -1) * timedelta(
        hours=int(g["oh"]), minutes=int(g["om"]))
    if g["om"] is not None and int(g["om"]) > 59:
        raise ValueError("offset minutes must be 00-59")
    if abs(offset) > MAX_OFFSET:
        raise ValueError("offset must lie within -14:00 and +14:00")
    frac = (g["f"] or "").ljust(6, "0")[:6]
    try:
        local = datetime(int(g["y"]), int(g["mo"]), int(g["d"]), int(g["h"]), int(g["mi"]), int(g["s"]),
                         int(frac))
        return (local - offset).replace(tzinfo=timezone.utc).astimezone(timezone(offset))
    except (ValueError, OverflowError):
        raise ValueError("is not a valid date and time (or lies outside the years 0001-9999 in UTC)") from None


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
