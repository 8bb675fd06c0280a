"""Secrets out of messages before they become memories, episodes, summaries or the session window
(issues 11, 20): card numbers and their security codes, PINs, passwords, one-time codes, IBANs, API keys
and tokens, and (on unless a tenant turns them off) phone numbers, national ids and bank account
numbers. The ledger keeps the original message (erasure and export only); everything the fold derives
sees the redacted text (agents/core/contact.admitted).

Rules as data: an ordered table of compiled pattern -> kind, each with an optional check that decides,
from the match, which span (if any) to replace. Earlier rules run first, so a token is named an API key
before the digit rules look at it; labels hold no digits, so a later rule never matches a label.

Phrasings the rules know (tests/data/redaction_labelled.jsonl, `rapport bench redaction`): a keyword,
optionally a few words ("pin for my bank card is"), a link (is, :, =, to) and the value; values as
digits with any separators ("5 5 1 1 7 7", "4242.4242...") or spelled ("two five eight zero"); a user
and password ("login alice / s3cr3t"); well-known token shapes (JWT, AWS, GitHub, Stripe...); and a
secret split over consecutive messages of one contact ("my card is 4242 4242" / "4242 4242", "what's
the cvv?" / "it's 618"): `redact_message` takes and returns a small Carry (the kind a message left
open, and for a card the digit count and two Luhn partial sums, never the digits) that the fold keeps
in the contact's state.

Pure: no clock, no I/O; the same message, carry and policy always redact the same way (replay). Phone
numbers are found by libphonenumber's matcher (the `phonenumbers` package, pinned to a major version:
its metadata decides what a valid number is, so an upgrade can change a replay's output).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from schemas.envelope import Envelope

Span = tuple[int, int]

LABELS = {
    "card": "[redacted card number]", "cvv": "[redacted card security code]", "pin": "[redacted PIN]",
    "password": "[redacted password]", "otp": "[redacted one-time code]", "iban": "[redacted IBAN]",
    "api_key": "[redacted API key]", "phone": "[redacted phone number]",
    "national_id": "[redacted national id]", "bank_account": "[redacted bank account]",
}
ALWAYS = frozenset({"card", "cvv", "pin", "password", "otp", "iban", "api_key"})  # promised since issue 11
OPTIONAL = frozenset({"phone", "national_id", "bank_account"})  # on by default; a tenant may turn them off
KINDS = tuple(LABELS)


@dataclass(frozen=True)
class Policy:
    """Which optional kinds are redacted, by default and per tenant (an input of the fold, from the
    worker's settings: RAPPORT_REDACT, parsed by `parse_policy`)."""
    default: frozenset[str] = OPTIONAL
    tenants: tuple[tuple[str, frozenset[str]], ...] = ()

    def kinds(self, tenant_id: str) -> frozenset[str]:
        for t, kinds in self.tenants:
            if t == tenant_id:
                return ALWAYS | kinds
        return ALWAYS | self.default


DEFAULT_POLICY = Policy()


def parse_policy(text: str | None) -> Policy:
    """`kind=on|off[, ...]` for every tenant, then `; tenant: kind=on|off, ...` per tenant, e.g.
    "phone=off; acme: phone=on, bank_account=off". Only phone, national_id and bank_account can be
    turned off: the other kinds are always redacted. ValueError naming what is wrong."""
    default, tenants = set(OPTIONAL), []
    for i, part in enumerate(p.strip() for p in (text or "").split(";")):
        if not part:
            continue
        tenant, sep, body = part.rpartition(":") if ":" in part else ("", "", part)
        if i == 0 and not sep:
            target = default
        else:
            if not tenant.strip():
                raise ValueError(f"RAPPORT_REDACT: {part!r} names no tenant")
            target = set(default)
            tenants.append((tenant.strip(), target))
        for setting in (s.strip() for s in body.split(",")):
            kind, _, value = setting.partition("=")
            kind, value = kind.strip(), value.strip().lower()
            if kind not in OPTIONAL or value not in ("on", "off"):
                raise ValueError(f"RAPPORT_REDACT: {setting!r}: use phone|national_id|bank_account=on|off")
            (target.add if value == "on" else target.discard)(kind)
    return Policy(frozenset(default), tuple((t, frozenset(k)) for t, k in tenants))


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    kind: str
    # the span of the match to replace, or None to leave it; default: group "secret", else the match
    check: Callable[[re.Match[str]], Span | None] | None = None

    @property
    def label(self) -> str:
        return LABELS[self.kind]


def _secret(m: re.Match[str]) -> Span:
    return m.span("secret") if "secret" in m.re.groupindex else m.span()


# ------------------------------------------------------------------------------------ digits, words
DIGIT_WORDS = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
               "six": "6", "seven": "7", "eight": "8", "nine": "9"}
_W = r"(?:zero|one|two|three|four|five|six|seven|eight|nine)"
SPELLED = rf"{_W}(?:[\s,-]+(?:{_W}|oh))+"  # two or more digit words ("oh" only after the first)
_SPELLED_RE = re.compile(rf"(?i)\b{SPELLED}\b")


def digits_of(s: str) -> str:
    """The digits a value holds, written or spelled ("4242 4242", "two five eight zero")."""
    words = re.findall(r"(?i)\b(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\b|\d", s)
    return "".join(DIGIT_WORDS.get(w.lower(), w) for w in words)


def luhn_ok(digits: str) -> bool:
    return _luhn_sum(digits, double_last=False) % 10 == 0


def _luhn_sum(digits: str, double_last: bool) -> int:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if (i % 2 == 0) == double_last:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total


def _card(m: re.Match[str]) -> Span | None:
    """A run of digit groups (single spaces, dots, dashes or slashes between them) in which consecutive
    whole groups make 13-19 digits that pass the Luhn check and start as payment cards do (1-6, ISO/IEC
    7812): the whole run goes, so a card typed after
    another number ("order 12 4111 1111 1111 1111") does not survive either. Windows start and end at
    group boundaries only: any 13-digit slice of a random long number passes Luhn one time in ten."""
    groups = re.split(r"[ ./-]+", m.group())  # " - " too
    for a in range(len(groups)):
        digits = ""
        for g in groups[a:]:
            digits += g
            if len(digits) > 19:
                break
            if len(digits) >= 13 and digits[0] in "123456" and luhn_ok(digits):
                return m.span()
    return None


def _spelled_card(m: re.Match[str]) -> Span | None:
    d = digits_of(m.group())
    return m.span() if 13 <= len(d) <= 19 and luhn_ok(d) else None


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
    if any(c.isdigit() for c in s) and any(c.isalpha() for c in s) and _entropy(s) >= 3.3:
        return m.span("secret")
    return None


def _ssn(m: re.Match[str]) -> Span | None:
    from stdnum.us import ssn
    return m.span() if ssn.is_valid(m.group().replace(" ", "-")) else None


def _aadhaar(m: re.Match[str]) -> Span | None:
    from stdnum.in_ import aadhaar
    return m.span("secret") if aadhaar.is_valid(m.group("secret")) else None


def _pan(m: re.Match[str]) -> Span | None:
    from stdnum.in_ import pan
    return m.span() if pan.is_valid(m.group()) else None


def _routing(m: re.Match[str]) -> Span | None:
    d = m.group("secret")  # ABA routing number checksum: 3-7-1 weights
    ok = sum(int(c) * w for c, w in zip(d, (3, 7, 1) * 3)) % 10 == 0
    return m.span("secret") if ok else None


# ------------------------------------------------------------------------------- keyword -> value
# between a keyword and its value: a link ("is", "was", ":", "=", "to"), optionally after a few words
# ("pin for my bank card is 2580", "the sms code they sent me is 771209"); the words may not be about
# an amount or a place, where a number is not a secret ("account balance is 12500", "pin code of the
# area is 560001")
_LINK = r"(?:\s*(?:[:=#]|->|-)\s*|\s+(?:is|was|are|=|:|to|will be|it'?s|it is|of)\s*[:=]?\s*|\s+)"
_NOT_SECRET_WORDS = (r"balance|total|amount|limit|fee|fees|price|cost|bill|charges?|interest|rate|age|years?|"
                     r"months?|days?|hours?|minutes?|count|ending|ends|expir\w*|area|city|town|village|address|"
                     r"office|district|locality|street|road|postal|zip|post|length|size|review|lines?|number of|"
                     r"policy|digits?")
_STRONG_LINK = r"(?:\s+(?:is|was|are|will be|it'?s)\s*[:=]?\s*|\s*[:=]\s*|\s+(?:set )?to\s+)"
_WORD = rf"\s+(?!(?:{_NOT_SECRET_WORDS})\b)[\w'’/@.-]+"
_PREP = r"\s+(?:for|to|of|on|at|in|from|with)\b"
# the keyword right before its value ("ATM pin 9034", "pin: 0000"), or a phrase starting with a
# preposition ("pin for my bank card is"), or any few words ended by a strong link ("the sms code they
# sent me is"); each way the value must follow
_GAP = rf"(?:{_LINK}|{_PREP}(?:{_WORD}){{1,4}}?{_STRONG_LINK}|(?:{_WORD}){{1,5}}?{_STRONG_LINK})"
_PREP_GAP = rf"(?:{_PREP}(?:\s+[\w'’@.-]+){{1,3}}?(?P<link>{_STRONG_LINK})|(?P<link2>{_STRONG_LINK}|\s+))"


def _digits_value(lo: int, hi: int) -> str:
    """A value of lo-hi digits, any single separators between them, or spelled."""
    return rf"(?P<secret>(?<!\w)(?<!\d[.-])\d(?:[ .-]?\d){{{lo - 1},{hi - 1}}}(?![\w]|[.-]\d)|\b{SPELLED}\b)"


def _digit_count(lo: int, hi: int) -> Callable[[re.Match[str]], Span | None]:
    def check(m: re.Match[str]) -> Span | None:
        return m.span("secret") if lo <= len(digits_of(m.group("secret"))) <= hi else None
    return check


def kw_rule(name: str, kind: str, keywords: str, lo: int, hi: int, gap: str = _GAP) -> Rule:
    return Rule(name, re.compile(rf"(?i)\b(?:{keywords})(?!\w){gap}{_digits_value(lo, hi)}"), kind,
                _digit_count(lo, hi))


_CVV_WORDS = (r"cvv2?|cvc2?|csc|cid|card security code|(?:3|three|4|four)[ -]digit (?:security )?code|code on the back|"
              r"(?:(?:3|three|4|four) )?(?:numbers|digits) on the back")
_PIN_WORDS = r"pin(?:[ -]?(?:code|number|nummer|no\.?))?"
_OTP_WORDS = (r"otp|2fa|mfa|tfa|one[- ]time (?:password|code|pin|passcode)|(?:verification|security|login|log-in|sign[- ]in|"
              r"confirmation|2fa|mfa|sms|auth|authentication|access|activation|reset|bank|text|door|gate|"
              r"safe|alarm|locker|entry)\s+code|(?<!zip )(?<!postal )(?<!post )(?<!area )(?<!country )"
              r"(?<!dress )(?<!source )(?<!error )(?<!promo )(?<!discount )(?<!coupon )(?<!voucher )(?<!status )"
              r"(?<!exit )(?<!product )(?<!tax )(?<!qr )(?<!bar )(?<!zip-)code")
_ACCOUNT_WORDS = (r"(?:bank |checking |savings |current )?(?:account|acct|acc|a/c)(?:\s*(?:number|num|no\.?|#))?|"
                  r"iban|bsb|account ending")
_SSN_WORDS = r"ssn|social security(?: number| no\.?)?|sin number|tax id|tin"

# a password-like value: quoted, or one token; `_password` decides
_PW_VALUE = r"(?P<secret>'[^'\n]{1,64}'|\"[^\"\n]{1,64}\"|“[^”\n]{1,64}”|[^\s\"'“”]+?)(?=[.,;!?)]*(?:\s|$))"
_STOP = frozenset("""the a an too very so not no wrong incorrect correct right weak strong secure insecure safe
long short easy hard simple complex expired required needed changed reset same different invalid valid
case missing empty blank okay ok fine good bad great terrible stored saved hidden encrypted shared written
somewhere there here something nothing what still also now just my your his her their our in on at for to
of with mandatory optional compromised leaked stolen known unknown forgotten lost weird complicated
sensitive personal private secret set new old different and or but if then that this it is was be been
being never always usually sometimes please thanks yes nope yeah manager policy reset requirements
protected locked working broken gone out up down off different useless fine.""".split())


def _pw_shaped(m: re.Match[str]) -> Span | None:
    """After a user name, only a token with a digit, a symbol or mixed case ("username taken, try
    another" is no password)."""
    s = m.group("secret")
    if any(c.isdigit() for c in s) or any(not c.isalnum() for c in s) or (s != s.lower() and s != s.title()):
        return m.span("secret")
    return None


def _password(m: re.Match[str]) -> Span | None:
    """A password after a keyword: quoted, or a token that is not an ordinary word ("the password is
    wrong"); with no link between ("password Qwerty!234") only one with a digit or a symbol."""
    s = m.group("secret")
    if s[:1] in "'\"“":
        return m.span("secret")
    if len(s) < 3 or len(s) > 128:
        return None
    linked = bool((m.group("link") or m.group("link2") or "").strip())
    strange = any(c.isdigit() for c in s) or any(not c.isalnum() for c in s) or (s != s.lower() and s != s.title())
    if strange and (linked or any(c.isdigit() for c in s)):
        return m.span("secret")
    if not linked or not m.group("strong"):
        return None
    w = s.lower()
    if w in _STOP or re.fullmatch(r"[a-z]+(?:ing|ly|ed)", w):
        return None
    return m.span("secret")


def _user_then(words: str) -> str:
    """One of `words` (a login's name: user, login, ...), "is"/":"/"=" or nothing, then the user name itself."""
    return rf"(?i)\b(?:{words})\b(?:\s+(?:is|are|was))?\s*[:=]?\s*[\w.+@-]{{2,64}}"


_WORD_END = r"(?=[.,;!?]*(?:\s|$))"  # a value ends at white space or the text's end, after any punctuation
_PW_WORDS = r"(?P<strong>passwords?|passwort|passcode|passwd|pwd|kennwort|contraseña|mot de passe)"
_PW_WEAK = r"pw|pass|pword|p/w"
_PASSPHRASE = re.compile(r"(?i)\bpass[ -]?phrase\b\s*(?:is|was|[:=])\s*(?P<secret>[^.!?\n]{3,80}?)(?=[.!?\n]|$)")

RULES: tuple[Rule, ...] = (
    Rule("private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
         "api_key"),
    Rule("JWT", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), "api_key"),
    Rule("api key", re.compile(
        r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}"
        r"|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9\-]{10,}|AIza[0-9A-Za-z_\-]{35}|glpat-[A-Za-z0-9_\-]{20,}"
        r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|npm_[A-Za-z0-9]{36}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})"),
        "api_key"),
    Rule("token after a keyword", re.compile(
        r"(?i)(?:\b|_)(?:api[ _-]?key|access[ _-]?key|secret(?:[ _-]?(?:access[ _-]?)?key)?|token|key|bearer|"
        r"client[ _-]?secret|auth)(?:\s+(?:is|was)\s+|\s*[:=]\s*|\s+)"
        r"(?P<secret>[A-Za-z0-9_\-./+=]{20,})"), "api_key", _opaque),
    Rule("secret env var", re.compile(
        r"\b[A-Z][A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY)[A-Z0-9_]*"
        r"\s*[:=]\s*[\"']?(?P<secret>[^\s\"']{6,})"), "api_key"),
    Rule("uuid key", re.compile(r"(?i)\b(?:api[ _-]?key|token|secret|key)\b[^.\n]{0,12}?(?P<secret>[0-9a-f]{8}-[0-9a-f]{4}-"
                                r"[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b"), "api_key"),
    Rule("IBAN", re.compile(r"(?i)\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}"), "iban", _iban),
    Rule("card number", re.compile(r"(?<!\d)(?<!\d[.,-])\d(?:(?: {1,2}| ?[./-] ?)?\d){12,}"), "card", _card),
    Rule("spelled card number", re.compile(rf"(?i)\b{SPELLED}\b"), "card", _spelled_card),
    Rule("partial card after a keyword", re.compile(
        rf"(?i)\b(?:card(?:\s*(?:number|num|no\.?|#))?|visa|mastercard|amex)(?!\w){_GAP}"
        rf"(?P<secret>(?<!\w)(?<!\d[.-])\d(?:[ ./-]?\d){{5,18}}(?![\w]|[.-]\d)|\b{SPELLED}\b)"), "card", _digit_count(6, 19)),
    Rule("SSN", re.compile(r"(?<![\w-])\d{3}([- ])\d{2}\1\d{4}(?![\w-])"), "national_id", _ssn),
    kw_rule("SSN after a keyword", "national_id", _SSN_WORDS, 9, 9),
    Rule("Aadhaar", re.compile(r"(?i)\b(?:aadhaa?r|uidai|uid)\b[^.\n]{0,20}?(?P<secret>[2-9]\d{3}[ -]?\d{4}[ -]?\d{4})\b"),
         "national_id", _aadhaar),
    Rule("PAN", re.compile(r"\b[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z]\b"), "national_id", _pan),
    Rule("UK NINO", re.compile(r"\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"),
         "national_id"),
    kw_rule("card security code", "cvv", _CVV_WORDS, 3, 4),
    kw_rule("security code (3 digits)", "cvv", r"security code", 3, 3),
    kw_rule("PIN", "pin", _PIN_WORDS, 4, 8),
    kw_rule("one-time code", "otp", _OTP_WORDS, 4, 8),
    Rule("one-time code before its name", re.compile(
        r"(?i)(?:\b[A-Z]-)?(?P<secret>(?<!\w)(?<!\d-)\d(?:[ -]?\d){3,7})\b\s+is\s+your\s+(?:[\w-]+\s+){0,3}?"
        r"(?:verification|security|login|one[- ]time|otp|confirmation|authentication|access|sign[- ]in)\b"), "otp"),
    Rule("one-time code to enter", re.compile(
        r"(?i)\b(?:enter|type|use)\s+(?P<secret>\d(?:[ -]?\d){3,7})\s+to\s+(?:log ?in|sign ?in|verify|confirm|"
        r"continue|proceed|unlock|reset)\b"), "otp"),
    Rule("routing number", re.compile(r"(?i)\b(?:routing|aba|rtn)(?:\s*(?:number|no\.?|#))?\s*(?:is|:|=)?\s*(?P<secret>\d{9})\b"),
         "bank_account", _routing),
    kw_rule("bank account", "bank_account", _ACCOUNT_WORDS, 6, 18),
    Rule("user and password", re.compile(
        _user_then("login|log-in|user(?:name)?|email|e-mail|creds|credentials|account")
        + r"\s*(?:/|\||,|;|\s+and\s+(?:the\s+)?(?:password|pass|pw|pwd)(?:\s+is)?\s*:?)\s*"
        r"(?!(?:password|passwd|pass|pwd|pw)\b)(?P<secret>[^\s,;]{3,64}?)" + _WORD_END), "password", _pw_shaped),
    Rule("user:password", re.compile(
        _user_then("creds|credentials|login|log-in|user(?:name)?") + r":(?P<secret>\S{3,64}?)" + _WORD_END), "password"),
    Rule("passphrase", _PASSPHRASE, "password"),
    Rule("password", re.compile(rf"(?i)\b(?:{_PW_WORDS}|{_PW_WEAK}(?=\s*[:=]|\s+for\b)){_PREP_GAP}" + _PW_VALUE),
         "password", _password),
)
PHONE_REGIONS = ("US", "GB", "IN")


_PHONE_WORDS = re.compile(r"(?i)\b(?:phone|mobile|cell|tel|telephone|call|text|ring|whatsapp|signal|sms|number|"
                          r"landline|fax|contact|reach)\b")
_THOUSANDS = re.compile(r"\d{1,3}(?:([ ,.])\d{3})(?:\1\d{3})+")
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_KEYWORD_PHONE = re.compile(
    r"(?i)\b(?:phone|mobile|cell|tel|telephone|whatsapp|landline|fax)(?:\s*(?:number|no\.?|#))?\b"
    r"(?:\s+(?:is|was)\s*[:=]?\s*|\s*[:=]\s*|\s+)(?P<secret>\+?\(?\d(?:[ ().-]{0,2}\d){6,14})(?![\w])")


_PHONE_CANDIDATE = re.compile(r"(?<![\w+#/.-])(?:\+|\b00)?\(?\d(?:(?:[ ().-]|\) ){0,2}\d){6,16}(?![\w-])")


def _phone_spans(text: str, regions: tuple[str, ...] = PHONE_REGIONS) -> list[Span]:
    """Phone numbers libphonenumber takes as valid, international ("+49 151 ...", "0044 ...") or national
    in any of `regions`, and any 7-15 digits right after "phone", "mobile"... (fictional 555 numbers
    too). Not what is glued to a word ("INV-2026-000123"), an IPv4 address, or a number grouped in
    thousands ("1 428 627 663") without a phone word in the message. Candidates are found here and
    each is parsed (libphonenumber's own matcher took up to 20 ms a message)."""
    if sum(c.isdigit() for c in text) < 7:
        return []
    import phonenumbers

    spans: list[Span] = [m.span("secret") for m in _KEYWORD_PHONE.finditer(text)]
    worded = bool(_PHONE_WORDS.search(text))
    for m in _PHONE_CANDIDATE.finditer(text):
        a, b, raw = m.start(), m.end(), m.group()
        if any(x < b and a < y for x, y in spans) or _IPV4.fullmatch(raw) or (_THOUSANDS.fullmatch(raw) and not worded):
            continue
        international = raw.startswith(("+", "00"))
        for region in (None,) if raw.startswith("+") else ("GB",) if international else regions:
            try:
                number = phonenumbers.parse(raw, region)
            except phonenumbers.NumberParseException:
                continue
            if phonenumbers.is_valid_number(number):
                spans.append((a, b))
                break
    return sorted(spans)


def _apply(text: str, spans: list[Span], label: str) -> str:
    out, last = [], 0
    for a, b in sorted(spans):
        if a < last:
            continue
        out += [text[last:a], label]
        last = b
    out.append(text[last:])
    return "".join(out)


def redact(text: str, rules: tuple[Rule, ...] = RULES, kinds: frozenset[str] | None = None) -> str:
    """The text with every secret the rules find replaced by its label (`kinds`: which kinds; default
    every kind)."""
    for rule in rules:
        if kinds is not None and rule.kind not in kinds:
            continue
        if not rule.pattern.search(text):
            continue
        spans = [span for m in rule.pattern.finditer(text) if (span := (rule.check or _secret)(m)) is not None]
        if spans:
            text = _apply(text, spans, rule.label)
    if (kinds is None or "phone" in kinds) and rules is RULES:
        spans = _phone_spans(text)
        if spans:
            text = _apply(text, spans, LABELS["phone"])
    return text


# ---------------------------------------------------------------------------- across two messages
Carry = dict[str, Any]  # {"kind", "at", and for a card "digits", "luhn": [sum, sum doubled]}
CARRY_WITHIN_S = 10 * 60  # a value this long after the message that asked for it is not its answer
_VALUE_OPENER = (r"^\s*(?:(?:it'?s|it is|its|is|=|:|ok(?:ay)?|sure|here(?: it is)?|yes|yeah|fine|and|then|next|"
                 r"the rest(?: is)?|the (?:\w+ )?is)[\s,:.-]*)*")
_OPEN_KIND = [  # a keyword at the end of a message (or a question about it) leaves its value to the next one
    ("cvv", re.compile(rf"(?i)\b(?:{_CVV_WORDS}|security code)\b[^.!\n]{{0,25}}(?:[:?]|\bis)?\s*$")),
    ("pin", re.compile(rf"(?i)\b(?:{_PIN_WORDS})\b[^.!\n]{{0,30}}(?:[:?]|\bis)?\s*$")),
    ("otp", re.compile(rf"(?i)\b(?:{_OTP_WORDS})\b[^.!\n]{{0,30}}(?:[:?]|\bis)?\s*$")),
    ("password", re.compile(rf"(?i)\b(?:{_PW_WORDS}|pass|pw)\b[^.!\n]{{0,30}}(?:[:?]|\bis)?\s*$")),
    ("card", re.compile(r"(?i)\bcard(?:\s*(?:number|num|no\.?|#))?\b[^.!\n]{0,25}(?:[:?]|\bis)?\s*$")),
    ("bank_account", re.compile(rf"(?i)\b(?:{_ACCOUNT_WORDS})\b[^.!\n]{{0,25}}(?:[:?]|\bis)?\s*$")),
    ("national_id", re.compile(rf"(?i)\b(?:{_SSN_WORDS})\b[^.!\n]{{0,25}}(?:[:?]|\bis)?\s*$")),
]
_CARRY_DIGITS = {"cvv": (3, 4), "pin": (4, 8), "otp": (4, 8), "bank_account": (6, 18), "national_id": (9, 12),
                 "card": (13, 19)}
_COUNTED = re.compile(r"(?i)\b(?:order|invoice|ref|reference|tracking|item|items|qty|quantity|units|total|"
                      r"paid|price|cost|rs|inr|usd|eur|km|kg|steps|points|score|year|page|room|flight|bus)\b|[$€£₹%]")
_TRAILING_DIGITS = re.compile(r"(?<![\w.-])(?P<d>\d(?:[ ./-]?\d){3,17})\s*$")


def _within(a: str, b: str) -> bool:
    from schemas.envelope import parse_time
    try:
        return 0 <= (parse_time(b) - parse_time(a)).total_seconds() <= CARRY_WITHIN_S
    except (ValueError, TypeError, OverflowError):
        return False


def _continue(text: str, carry: Carry) -> str:
    """Redact the value a carried kind asked for, at the start of this message."""
    kind = carry["kind"]
    if kind == "password":
        m = re.match(_VALUE_OPENER + r"(?P<secret>[^\s\"'“”]{3,64}?)(?=[.,;!?]*(?:\s|$))", text)
        if m and _password_like(m.group("secret")):
            return text[:m.start("secret")] + LABELS["password"] + text[m.end("secret"):]
        return text
    m = re.match(_VALUE_OPENER + rf"(?P<secret>\d(?:[ ./-]?\d)*|\b{SPELLED}\b)(?![\w])", text)
    if not m:
        return text
    digits = digits_of(m.group("secret"))
    if kind == "card" or carry.get("digits"):
        n = carry.get("digits", 0) + len(digits)
        a, b = carry.get("luhn", [0, 0])
        # the earlier digits' Luhn sum as the whole number needs it: doubled from the right when this
        # message's digits are odd in number
        whole = _luhn_sum(digits, False) + (b if len(digits) % 2 else a)
        ok = 13 <= n <= 19 and (whole % 10 == 0 or (kind == "card" and carry.get("keyword")))
        if not ok:
            return text
        return text[:m.start("secret")] + LABELS["card"] + text[m.end("secret"):]
    lo, hi = _CARRY_DIGITS[kind]
    if not lo <= len(digits) <= hi:
        return text
    return text[:m.start("secret")] + LABELS[kind] + text[m.end("secret"):]


def _password_like(s: str) -> bool:
    """An answer to "what's the password?" that is one: a digit, a symbol or mixed case in it (a plain
    word is more often an answer in words: "Yesterday", "Nope")."""
    return s.lower() not in _STOP and (any(c.isdigit() for c in s) or any(not c.isalnum() for c in s)
                                       or (s != s.lower() and s != s.title()))


def _carry_after(original: str, redacted: str, at: str, kinds: frozenset[str]) -> Carry | None:
    """What this message leaves open for the next: a keyword with no value yet ("my pin is", "what's
    the cvv?"), or a card begun ("my card is 4242 4242", redacted here already, or digits that may be
    the first half of one): kind, count and Luhn sums only."""
    left = _left_open(original, redacted, kinds)
    if left is None:
        return None
    if len(left) > 1:  # a card begun (a keyword alone, even "card", is only its kind)
        return {"kind": "card", "at": at, "digits": left[1], "keyword": left[2], "luhn": [left[3], left[4]]}
    return {"kind": left[0], "at": at}


@lru_cache(maxsize=20_000)  # a message is redacted 3-4 times on its way through a batch (plan, embed, fold)
def _left_open(original: str, redacted: str, kinds: frozenset[str]) -> tuple | None:
    """_carry_after without its time, as a tuple (a cached value must not be a dict a caller could change)."""
    tail = _TRAILING_DIGITS.search(original)
    keyword = redacted.rstrip().endswith(LABELS["card"])
    if tail and (keyword or not redacted.rstrip().endswith("]") and not _COUNTED.search(original)):
        d = digits_of(tail.group("d"))
        if 4 <= len(d) <= 15:
            return ("card", len(d), keyword, _luhn_sum(d, False) % 10, _luhn_sum(d, True) % 10)
    for kind, pattern in _OPEN_KIND:
        if kind in kinds and pattern.search(redacted):
            return (kind,)
    return None


@lru_cache(maxsize=20_000)
def _redacted(text: str, kinds: frozenset[str]) -> str:
    return redact(text, kinds=kinds)


def forget_texts() -> None:
    """Drop the memos of message texts (after an erasure: an erased contact's words are not kept in this
    process either). They are keyed by text, so all of them go; a message is redacted again when seen."""
    _redacted.cache_clear()
    _left_open.cache_clear()


def redact_message(text: str, carry: Carry | None, at: str, kinds: frozenset[str]) -> tuple[str, Carry | None]:
    """One message of a contact, given what the previous one left open: (redacted text, carry for the
    next). `at`: the message's occurred_at (a carry older than CARRY_WITHIN_S is dropped)."""
    if carry is not None and carry["kind"] in kinds and _within(carry["at"], at):
        text_in = _continue(text, carry)
    else:
        text_in = text
    clean = _redacted(text_in, kinds)
    if text_in != text and carry is not None and carry["kind"] == "card":
        return clean, None  # the card it finished
    return clean, _carry_after(text, clean, at, kinds)


def admitted(env: "Envelope", carry: Carry | None = None, policy: Policy = DEFAULT_POLICY) -> "Envelope":
    """An interaction as the fold sees it: its message redacted. Other events pass unchanged."""
    return admit(env, carry, policy)[0]


def admit(env: "Envelope", carry: Carry | None = None, policy: Policy = DEFAULT_POLICY
          ) -> tuple["Envelope", Carry | None]:
    """(the interaction as the fold sees it, the carry for the contact's next message)."""
    message = env.payload.get("message")
    if not isinstance(message, str):
        return env, carry
    clean, after = redact_message(message, carry, env.occurred_at, policy.kinds(env.tenant_id))
    return (env if clean == message else env.with_payload(message=clean)), after
