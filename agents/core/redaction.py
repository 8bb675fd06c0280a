"""Secrets out of messages before they become memories, episodes, summaries or the session window
(issue 11): card numbers, PINs, passwords, one-time codes, IBANs, API keys and tokens. The ledger
keeps the original message (erasure and export only); everything the fold derives sees the redacted
text (agents/core/contact.admitted).

Rules as data: an ordered table of compiled pattern -> label, each with an optional check that
decides, from the match, which span (if any) to replace. Earlier rules run first, so a token is
named an API key before the digit rules look at it; labels hold no digits, so a later rule never
matches a label. Pure: no clock, no I/O; the same message always redacts the same way (replay).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from schemas.envelope import Envelope

Span = tuple[int, int]


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    label: str
    # the span of the match to replace, or None to leave it; default: group "secret", else the match
    check: Callable[[re.Match[str]], Span | None] | None = None


def _secret(m: re.Match[str]) -> Span:
    return m.span("secret") if "secret" in m.re.groupindex else m.span()


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(m: re.Match[str]) -> Span | None:
    """A run of digit groups (single spaces or dashes between them) in which consecutive whole groups
    make 13-19 digits that pass the Luhn check: the whole run goes, so a card typed after another
    number ("order 12 4111 1111 1111 1111") does not survive either. Windows start and end at group
    boundaries only: any 13-digit slice of a random long number passes Luhn one time in ten."""
    groups = re.split(r"[ -]", m.group())
    for a in range(len(groups)):
        digits = ""
        for g in groups[a:]:
            digits += g
            if len(digits) > 19:
                break
            if len(digits) >= 13 and luhn_ok(digits):
                return m.span()
    return None


def iban_ok(iban: str) -> bool:
    s = iban.upper()
    if not (15 <= len(s) <= 34 and s[:2].isalpha() and s[2:4].isdigit() and s.isalnum()):
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def _iban(m: re.Match[str]) -> Span | None:
    """The longest prefix of the match (which may run into following words) that is a valid IBAN."""
    text, start = m.group(), m.start()
    for end in range(len(text), 14, -1):
        if text[end - 1] != " " and iban_ok(text[:end].replace(" ", "")):
            return start, start + end
    return None


def _entropy(s: str) -> float:
    counts = Counter(s)
    return -sum(c / len(s) * math.log2(c / len(s)) for c in counts.values())


def _opaque(m: re.Match[str]) -> Span | None:
    """A long string after `key`/`token`/`secret` that looks machine-made: letters and digits mixed,
    high character entropy (a long English word has neither)."""
    s = m.group("secret")
    if any(c.isdigit() for c in s) and any(c.isalpha() for c in s) and _entropy(s) >= 3.5:
        return m.span("secret")
    return None


# "is", "was", ":" or "=" between a keyword and its value ("PIN is 4711", "pin: 1234", "otp=482913")
_IS = r"(?:\s+(?:is|was|=|:)\s*|\s*[:=]\s*|\s+)"
_IS_STRICT = r"(?:\s+(?:is|was)\s+|\s*[:=]\s*)"

RULES: tuple[Rule, ...] = (
    Rule("api key", re.compile(
        r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}"
        r"|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9\-]{10,}|AIza[0-9A-Za-z_\-]{35})"), "[redacted API key]"),
    Rule("token after a keyword", re.compile(
        r"(?i)\b(?:api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?|token|key|bearer)" + _IS +
        r"(?P<secret>[A-Za-z0-9_\-./+=]{20,})"), "[redacted API key]", _opaque),
    Rule("IBAN", re.compile(r"(?i)\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}"), "[redacted IBAN]", _iban),
    Rule("card number", re.compile(r"\d(?:[ -]?\d){12,}"), "[redacted card number]", _card),
    Rule("card security code", re.compile(r"(?i)\b(?:cvv2?|cvc2?|csc)" + _IS + r"(?P<secret>\d{3,4})\b"),
         "[redacted card security code]"),
    Rule("PIN", re.compile(r"(?i)\bpin(?:\s*(?:code|number|no\.?))?" + _IS + r"(?P<secret>\d{4,8})\b"),
         "[redacted PIN]"),
    Rule("password", re.compile(r"(?i)\b(?:password|passwort|passcode|passwd|pwd)" + _IS_STRICT +
                                r"(?P<secret>[^\s\"'“”]+?)(?=[.,;!?]?(?:\s|$|[\"'“”]))"), "[redacted password]"),
    Rule("one-time code", re.compile(
        r"(?i)\b(?:otp|one[- ]time (?:password|code|pin)|(?:verification|security|login|confirmation|2fa|sms|auth)"
        r" code|(?<!zip )(?<!postal )(?<!area )(?<!country )(?<!post )(?<!dress )(?<!source )code)" + _IS +
        r"(?P<secret>\d{4,8})\b"), "[redacted one-time code]"),
)


def redact(text: str, rules: tuple[Rule, ...] = RULES) -> str:
    """The text with every secret the rules find replaced by its label."""
    for rule in rules:
        if not rule.pattern.search(text):
            continue
        out, last = [], 0
        for m in rule.pattern.finditer(text):
            span = (rule.check or _secret)(m)
            if span is None or span[0] < last:
                continue
            out += [text[last:span[0]], rule.label]
            last = span[1]
        out.append(text[last:])
        text = "".join(out)
    return text


def admitted(env: "Envelope") -> "Envelope":
    """An interaction as the fold sees it: its message redacted. Other events pass unchanged."""
    message = env.payload.get("message")
    if not isinstance(message, str):
        return env
    clean = redact(message)
    return env if clean == message else env.with_payload(message=clean)
