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
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, Callable, TypeVar

from pydantic import AfterValidator, StringConstraints

T = TypeVar("T")

MAX_ID_CHARS = 128
RESERVED_PREFIX = "_"  # contact ids the service names itself (schemas/events.TENANT_CONTACT)
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
MAX_FUTURE = timedelta(hours=24)
# C0, DEL, C1, and U+2028/U+2029 (which some renderers treat as line breaks). Written as regex escapes
# (\xHH, \uHHHH) that Python's re, ECMA-262 (JSON Schema's `pattern`) and Rust's regex read alike: the
# checks below and the patterns the OpenAPI document declares (`*_PATTERN`) are built from these two
CONTROL_CHARS = r"\x00-\x1f\x7f-\x9f\u2028\u2029"
CONTROL_IN_TEXT_CHARS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029"  # tab, LF, CR are text
_CONTROL = re.compile(f"[{CONTROL_CHARS}]")
_CONTROL_IN_TEXT = re.compile(f"[{CONTROL_IN_TEXT_CHARS}]")


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


# ------------------------------------------------------------------ the same rules, declared (issue 27)
# The OpenAPI document states every rule above as JSON Schema (length, pattern), so a client generated
# from it never sends what the edge refuses. The patterns are built from the character classes the
# checks use; `Declared` puts them in a field's or a parameter's schema, and the checks keep enforcing
# (their messages name the problem: "found U+0005", "reserved"). tests/test_openapi_rules.py holds each
# pattern to its check on generated strings.
_ID_CHAR = f"[^/{CONTROL_CHARS}]"
NAME_PATTERN = f"^[^{CONTROL_CHARS}]*$"
TEXT_PATTERN = f"^[^{CONTROL_IN_TEXT_CHARS}]*$"
ID_PATTERN = f"^{_ID_CHAR}*$"
CONTACT_ID_PATTERN = f"^[^{RESERVED_PREFIX}/{CONTROL_CHARS}]{_ID_CHAR}*$"
# RFC 3339 as _RFC3339 reads it, with the ranges parse_rfc3339 and check_time refuse beyond it stated:
# years from 1970 (2999 at most: later is refused as the future anyway), months, days per month (29
# February in any year: the calendar decides), hours, minutes, seconds without a leap second, offsets
# within +-14:00. What no pattern can say: the window moves with the clock (an event time at most 24
# hours ahead, `as_of` ten years), an instant before 1970 in UTC, and 29 February of a common year.
_MONTH_DAY = "(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-9])|(?:0[13-9]|1[0-2])-30|(?:0[13578]|1[02])-31)"
RFC3339_PATTERN = ("^(?:19[7-9][0-9]|2[0-9]{3})-" + _MONTH_DAY + "[Tt ](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
                   r"(?:\.[0-9]{1,9})?(?:[Zz]|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))$")
# a limit in bytes of UTF-8 is declared in characters at most a quarter of it (a code point takes up to
# four bytes): what the document allows always fits; the exact limit rides along as x-maxUtf8Bytes
UTF8_MAX_BYTES_PER_CHAR = 4


def id_schema(max_chars: int = MAX_ID_CHARS) -> dict[str, object]:
    return {"minLength": 1, "maxLength": max_chars, "pattern": ID_PATTERN}


def contact_id_schema() -> dict[str, object]:
    return {"minLength": 1, "maxLength": MAX_ID_CHARS, "pattern": CONTACT_ID_PATTERN}


def name_schema(max_chars: int, min_chars: int = 0) -> dict[str, object]:
    return {**({"minLength": min_chars} if min_chars else {}), "maxLength": max_chars, "pattern": NAME_PATTERN}


def utf8_schema(max_bytes: int, pattern: str | None = None) -> dict[str, object]:
    return {"maxLength": max_bytes // UTF8_MAX_BYTES_PER_CHAR, "x-maxUtf8Bytes": max_bytes,
            **({"pattern": pattern} if pattern else {})}


def time_schema() -> dict[str, object]:
    return {"maxLength": MAX_TIME_CHARS, "pattern": RFC3339_PATTERN}


@dataclass(frozen=True)
class Declared:
    """JSON Schema keywords for the OpenAPI document, as pydantic metadata (`Annotated[str, Declared(...)]`)
    on a body field or a route's parameter: it declares, the check functions enforce."""
    keywords: tuple[tuple[str, object], ...]

    @classmethod
    def of(cls, schema: dict[str, object]) -> "Declared":
        # hashable (typing hashes Annotated metadata): an `enum` list is kept as a tuple
        return cls(tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in schema.items()))

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return {**handler(core_schema), **{k: list(v) if isinstance(v, tuple) else v for k, v in self.keywords}}


def checked(check: Callable[[str], str | None]) -> AfterValidator:
    """A pydantic validator from a check above (ValueError naming the problem)."""
    return AfterValidator(lambda v: require(v, check(v)))


def _utf8_at_most(max_bytes: int) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        return f"at most {max_bytes} bytes of UTF-8" if len(value.encode("utf-8")) > max_bytes else None
    return check


def _event_time(value: str) -> str | None:
    try:
        at = parse_rfc3339(value)
    except ValueError as e:
        return str(e)
    return check_time(at, datetime.now(timezone.utc))


# the body fields' types: the length rules pydantic enforces, the others the checks, all declared
Id = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS), checked(check_id),
               Declared.of({"pattern": ID_PATTERN})]
ContactId = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS), checked(check_contact_id),
                      Declared.of({"pattern": CONTACT_ID_PATTERN})]
EventTime = Annotated[str, checked(_event_time), Declared.of(time_schema())]


def Name(max_chars: int) -> Any:  # noqa: N802 (a type)
    return Annotated[str, StringConstraints(max_length=max_chars), checked(check_name),
                     Declared.of({"pattern": NAME_PATTERN})]


def Text(*, max_chars: int | None = None, max_bytes: int | None = None) -> Any:  # noqa: N802 (a type)
    """Message text: at most `max_chars` characters or `max_bytes` bytes of UTF-8."""
    if max_bytes is not None:
        return Annotated[str, checked(_utf8_at_most(max_bytes)), checked(check_text),
                         Declared.of(utf8_schema(max_bytes, TEXT_PATTERN))]
    return Annotated[str, StringConstraints(max_length=max_chars), checked(check_text),
                     Declared.of({"pattern": TEXT_PATTERN})]
