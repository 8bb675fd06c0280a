"""Relative times in a message, resolved to dates at the moment it was said (its event time). Pure.

"Going to a concert next week", said on Tuesday 2 December 2025, is about the week of 8-14 December:
after the 14th it is something that happened (or did not), not a plan. `until` gives the end of the
time a message looks ahead to (the first moment after it, in the message's own UTC offset), so the
episode can expire into the past once it has gone by; the fold calls it with the event's `occurred`,
so a replay resolves every message to the same date.

Only times ahead count: "next month", "tonight", "on Friday" or "on the 15th" in a clause that looks
ahead ("Dev is visiting on Friday"); "last week" and "we went there on Friday" are already the past
and never expire. The latest time a message names wins ("tonight,
and next month too": next month).
"""
from __future__ import annotations

import calendar
import re
from datetime import datetime, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a couple of": 2,
           "a couple": 2, "a few": 3, "couple of": 2, "few": 3}

# what makes "on Friday" a plan rather than a report: a verb looking ahead in the same message
AHEAD = re.compile(r"\b(will|'ll|going to|gonna|plan(?:ning)? to|planning on|plans? (?:for|to)|thinking (?:of|about)|"
                   r"hope to|hoping to|about to|can'?t wait|looking forward|scheduled|booked|appointment|"
                   r"have (?:a|an|my)|got (?:a|an|my)|is on|are on|want to|wanna|need to|have to|should|"
                   r"(?:is|are|am|'m|'re|'s) \w+ing)\b", re.I)
PAST = re.compile(r"\b(last|ago|yesterday|went|was|were|did|had)\b", re.I)
CLAUSE = re.compile(r"[.;!?]|,|\bbut\b", re.I)

_N = r"(?P<n>\d+|an?|one|two|three|four|five|six|a couple(?: of)?|couple of|a few|few)"
SPANS = re.compile(
    r"\b(?P<tonight>tonight|tonite|later today|this (?:evening|afternoon))\b"
    r"|\b(?P<tomorrow>tomorrow(?: night| morning| evening)?|day after tomorrow)\b"
    r"|\b(?P<weekend>this weekend|over the weekend|next weekend)\b"
    r"|\b(?P<week>next week|this week|later this week|this coming week)\b"
    r"|\bon the (?P<date>[0-3]?\d)(?:st|nd|rd|th)\b"
    r"|\b(?P<month>next month|later this month)\b"
    r"|\b(?P<year>next year)\b"
    r"|\b(?:in|within) " + _N + r" (?P<unit>days?|weeks?|months?)\b"
    r"|\b(?:(?P<next>next|this|coming|on) )?(?P<day>" + "|".join(WEEKDAYS) + r")\b", re.I)


def _day_end(t: datetime, days: int = 0) -> datetime:
    """The first moment of the day `days` after t's (in t's own offset)."""
    return (t + timedelta(days=days + 1)).replace(hour=0, minute=0, second=0, microsecond=0)


def _month_end(t: datetime, months_ahead: int) -> datetime:
    y, m = divmod(t.month - 1 + months_ahead, 12)
    y, m = t.year + y, m + 1
    return _day_end(t.replace(year=y, month=m, day=calendar.monthrange(y, m)[1]))


def _span_end(m: re.Match, t: datetime) -> datetime | None:
    g = m.group
    if g("tonight"):
        return _day_end(t)
    if g("tomorrow"):
        return _day_end(t, 2 if g("tomorrow").lower().startswith("day after") else 1)
    if g("weekend"):
        to_sunday = 6 - t.weekday()
        return _day_end(t, to_sunday + (7 if g("weekend").lower().startswith("next") and to_sunday < 6 else 0))
    if g("week"):
        to_sunday = 6 - t.weekday()
        return _day_end(t, to_sunday + (7 if g("week").lower().startswith("next") else 0))
    if g("date"):  # the next such day of a month, this month's if it is still ahead
        day = int(g("date"))
        for ahead in range(0, 3):
            y, mo = divmod(t.month - 1 + ahead, 12)
            y, mo = t.year + y, mo + 1
            if day <= calendar.monthrange(y, mo)[1] and (ahead or day >= t.day):
                return _day_end(t.replace(year=y, month=mo, day=day))
        return None
    if g("month"):
        return _month_end(t, 1 if g("month").lower().startswith("next") else 0)
    if g("year"):
        return _day_end(t.replace(year=t.year + 1, month=12, day=31))
    if g("unit"):
        raw = g("n").lower()
        n = int(raw) if raw.isdigit() else NUMBERS.get(raw, 1)
        n = min(n, 366)
        unit = g("unit").lower().rstrip("s")
        if unit == "month":
            return _month_end(t, n)
        return _day_end(t, n * (7 if unit == "week" else 1))
    if g("day"):
        ahead = (WEEKDAYS.index(g("day").lower()) - t.weekday()) % 7
        return _day_end(t, ahead)
    return None


def until(text: str, occurred: datetime) -> datetime | None:
    """The end of the latest time ahead that `text`, said at `occurred`, refers to; None when it names
    none (or speaks of the past: "last Friday", "we went on Friday")."""
    if not text or not SPANS.search(text):
        return None
    best = None
    for m in SPANS.finditer(text):
        if m.group("day") or m.group("date"):
            # a weekday or a date ("on Friday", "on the 15th") is ahead only in a clause that looks ahead
            # and does not report the past ("Dev is visiting on Friday", not "we went on Friday")
            cuts = [c.end() for c in CLAUSE.finditer(text, 0, m.start())]
            end_at = CLAUSE.search(text, m.end())
            clause = text[cuts[-1] if cuts else 0:end_at.start() if end_at else len(text)]
            named = (m.group("next") or "").lower() in ("next", "this", "coming")
            if PAST.search(clause) or not (named or AHEAD.search(clause) or m.group("date")):
                continue
        end = _span_end(m, occurred)
        if end is not None and end > occurred and (best is None or end > best):
            best = end
    return best
