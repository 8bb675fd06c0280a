"""Relative times in a message, resolved to dates at the moment it was said (its event time). Pure.

"Going to a concert next week", said on Tuesday 2 December 2025, is about the week of 8-14 December:
after the 14th it is something that happened (or did not), not a plan. `until` gives the end of the
time a message looks ahead to (the first moment after it, in the message's own UTC offset), so the
episode can expire into the past once it has gone by; the fold calls it with the event's `occurred`,
so a replay resolves every message to the same date.

Only times ahead count. A time that can only lie ahead ("tomorrow", "next week", "later this month")
always does ("I bought tickets for next week"). A time that can also be today or just gone ("tonight",
"this week", "over the weekend", "on Friday", "on the 15th", "in a few days") counts by the tense of
its clause (`tense`): the verb nearest before it, else the first after. A past or perfect verb
("Watched a movie with my sister tonight", "we went there on Friday", "haven't talked in a few days")
makes it a dated past event that never expires; a verb looking ahead ("going to", "will", "I'm seeing
Tom on Friday", "booked") makes it a plan; a habit ("every Friday", "usually") is neither. With no verb
to go by, "tonight" and "this week" read as ahead ("Concert tonight!"), a weekday only when named
("this Friday") or a date. The latest time a message names wins ("tonight, and next month too": next
month).
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
# what makes a clause a report of something done: a past or perfect verb. Irregular pasts by name; a
# regular one by its -ed, unless it is a state after be/feel/get ("I'm so excited", "get organized") or
# one of the participles that mostly name a feeling or a state ("Tired tonight"), or not a verb at all
IRREGULAR_PAST = ("went gone saw seen ate eaten got gotten made had took taken came met bought found gave given told "
                  "said thought felt left ran sang sung wrote written won lost spent sent built caught taught brought "
                  "drove driven flew flown slept swam began begun drank drunk forgot forgotten heard kept paid sat "
                  "stood woke worn wore chose chosen broke broken fell fallen did done was were been rode ridden "
                  "threw thrown grew grown knew known drew drawn fought sold held led meant hung shook spoke spoken "
                  "understood became blew bit hid froze frozen fed fled sought stuck struck swept swung tore torn "
                  "wept learnt burnt dreamt spilt ago yesterday last already earlier").split()
STATE_ED = frozenset(("excited tired bored worried scared stressed pumped thrilled interested exhausted relieved "
                      "annoyed frustrated disappointed overwhelmed confused surprised amazed pleased delighted "
                      "married engaged supposed expected used concerned prepared obsessed blessed involved located "
                      "based need feed seed speed weed breed greed bleed heed deed exceed succeed proceed hundred sacred "
                      "naked wicked wretched beloved rugged red bed shed wed").split())
PAST = re.compile(r"(?<![\w'])(?P<w>" + "|".join(IRREGULAR_PAST) + r"|[a-z]{2,}(?:ed|ied))(?![\w'])", re.I)
_STATIVE_BEFORE = re.compile(r"\b(?:am|is|are|'m|'re|'s|be|being|feel|feeling|felt|get|getting|got|seem|seems|"
                             r"look|looks|so|very|too|really|more|most|pretty|super|totally|kinda|quite)\s+$", re.I)
# a habit is neither a plan nor a dated event: "every Friday", "I usually go on Fridays", "I used to"
HABIT = re.compile(r"\b(?:every|each|usually|always|normally|typically|often|generally|used to)\b", re.I)
# looking ahead beyond AHEAD: the refusals and conditionals ("won't" is no past "won")
AHEAD_MORE = re.compile(r"\b(won'?t|will not|shall|would|'d (?!been\b)|tickets? for|invited|planned|arranged|signed up|"
                        r"registered|supposed to|expect(?:ed|ing)? to)", re.I)
CLAUSE = re.compile(r"[.;!?]|,|\bbut\b", re.I)
# spans that may be today or already gone ("tonight" is also "this evening, just now"); the rest lie ahead
MAY_BE_PAST = ("tonight", "weekend", "week", "date", "unit", "day")

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


def _markers(clause: str) -> list[tuple[int, int, str]]:
    """(start, end, "past" | "ahead" | "habit") of every tense cue in a clause."""
    out = [(m.start(), m.end(), "ahead") for rx in (AHEAD, AHEAD_MORE) for m in rx.finditer(clause)]
    out += [(m.start(), m.end(), "habit") for m in HABIT.finditer(clause)]
    for m in PAST.finditer(clause):
        w = m.group("w")
        if w.lower().endswith("ed") and w.lower() not in IRREGULAR_PAST:
            if w.lower() in STATE_ED or _STATIVE_BEFORE.search(clause, 0, m.start()) or (w[0].isupper() and m.start()):
                continue  # a state ("I'm so excited"), not a verb ("speed"), or a name mid-clause ("Ahmed")
        out.append((m.start(), m.end(), "past"))
    return out


def tense(clause: str, at: int | None = None) -> str | None:
    """"past", "ahead" or "habit": what the clause says of the time at offset `at` (its start by
    default), by the cue nearest before it (a later-ending cue wins: "I've got a date" is "got a",
    ahead, not "got", past), else the first cue after it; None when it has no cue."""
    at = 0 if at is None else at
    cues = _markers(clause)
    before = [c for c in cues if c[0] < at]
    if before:
        return max(before, key=lambda c: (c[1], c[2] == "ahead"))[2]
    after = [c for c in cues if c[0] >= at]
    return min(after, key=lambda c: (c[0], -c[1], c[2] != "ahead"))[2] if after else None


def _clause_of(text: str, m: re.Match) -> tuple[str, int]:
    """The clause around a match (cut at punctuation and "but") and the match's offset in it."""
    cuts = [c.end() for c in CLAUSE.finditer(text, 0, m.start())]
    start = cuts[-1] if cuts else 0
    end_at = CLAUSE.search(text, m.end())
    return text[start:end_at.start() if end_at else len(text)], m.start() - start


def ahead(m: re.Match, text: str) -> bool:
    """Whether a time span found in `text` is a time the message looks ahead to (see the module text)."""
    kind = next(k for k, v in m.groupdict().items() if v and k in (
        "tonight", "tomorrow", "weekend", "week", "date", "month", "year", "unit", "day"))
    forward = m.group(kind).lower().startswith(("next", "later", "this coming"))  # "later today", "next weekend"
    if kind not in MAY_BE_PAST or forward:
        return True  # it can only lie ahead ("tomorrow", "next weekend", "later this week")
    clause, at = _clause_of(text, m)
    if re.search(r"\b(?:every|each)\s+$", clause[:at], re.I):
        return False  # "every Friday": a habit
    said = tense(clause, at)
    if said is not None:
        return said == "ahead"
    if kind in ("day", "date"):  # a bare weekday is ahead only when named ("this Friday"), a date always
        return kind == "date" or (m.group("next") or "").lower() in ("next", "this", "coming")
    return True  # "Concert tonight!", "Busy this week"


def looks_ahead(text: str) -> bool:
    """Whether `text` names a time ahead of when it was said (a plan's time), whatever the date."""
    return bool(text) and any(ahead(m, text) for m in SPANS.finditer(text))


# times that can only lie behind: "yesterday", "last Friday", "three days ago" (a week is no day: "last
# week" dates nothing)
_AGO_N = r"(?P<agon>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
BEHIND = re.compile(
    r"\b(?P<daybefore>the day before yesterday)\b"
    r"|\b(?P<yesterday>yesterday|last night)\b"
    r"|\b" + _AGO_N + r" (?P<agounit>days?|weeks?) ago\b"
    r"|\blast (?P<lastday>" + "|".join(WEEKDAYS) + r"|weekend)\b", re.I)
_AGO_WORDS = {"seven": 7, "eight": 8, "nine": 9, "ten": 10}


def _before(occurred: datetime, weekday: int) -> int:
    """Days back to the most recent such weekday strictly before the day of `occurred` (1-7)."""
    return (occurred.weekday() - weekday - 1) % 7 + 1


def happened(text: str, occurred: datetime) -> datetime | None:
    """The day a past event the message reports happened on, when it names one other than the day it was
    said (the start of that day, in the message's own offset): "yesterday", "the day before yesterday",
    "last night", "three days ago", "a week ago", "last Friday", "last weekend" (its Saturday), and a
    weekday or the weekend in a clause whose verb reports ("we went there on Friday", said on Monday 8
    December, is Friday the 5th: the most recent Friday before the day it was said; "I'm seeing Tom on
    Friday" is a plan, `until`). The first such time in the message wins; None when it names none."""
    if not text:
        return None
    found: list[tuple[int, int]] = []  # (offset in text, days back)
    for m in BEHIND.finditer(text):
        g = m.group
        if g("daybefore"):
            back = 2
        elif g("yesterday"):
            back = 1
        elif g("agounit"):
            raw = g("agon").lower()
            n = int(raw) if raw.isdigit() else NUMBERS.get(raw) or _AGO_WORDS[raw]
            back = min(n, 366) * (7 if g("agounit").lower().startswith("week") else 1)
        else:
            day = g("lastday").lower()
            back = _before(occurred, 5 if day == "weekend" else WEEKDAYS.index(day))
        found.append((m.start(), back))
    for m in SPANS.finditer(text):
        kind = "day" if m.group("day") else "weekend" if m.group("weekend") else None
        if kind is None or (m.group("next") or "").lower() in ("next", "coming") or \
                m.group(kind).lower().startswith("next"):
            continue
        if re.search(r"\b(?:every|each|last)\s+$", text[:m.start()], re.I):
            continue  # "every Friday" (a habit); "last Friday" is BEHIND's
        clause, at = _clause_of(text, m)
        if tense(clause, at) == "past":
            found.append((m.start(), _before(occurred, 5 if kind == "weekend" else WEEKDAYS.index(m.group("day").lower()))))
    if not found:
        return None
    back = min(found)[1]
    return (occurred - timedelta(days=back)).replace(hour=0, minute=0, second=0, microsecond=0)


def until(text: str, occurred: datetime) -> datetime | None:
    """The end of the latest time ahead that `text`, said at `occurred`, refers to; None when it names
    none (or speaks of the past: "last Friday", "we went on Friday", "watched a movie tonight")."""
    if not text or not SPANS.search(text):
        return None
    best = None
    for m in SPANS.finditer(text):
        if not ahead(m, text):
            continue
        end = _span_end(m, occurred)
        if end is not None and end > occurred and (best is None or end > best):
            best = end
    return best
