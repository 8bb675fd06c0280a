"""Whose fact a clause states: the subject rules, an ordered table read by the engine.

A handler gets (m, ctx) and answers (subject, rest of the clause, name value): subject None when the
clause has no subject the rules read (the clause is skipped); a name value for "my dog's name is X" /
"my sister is called X". A handler that declines (None) lets the next rule try; when no rule answers the
clause has no subject. Pure.
"""
from __future__ import annotations

import re
from typing import Any

from agents.core.rules import engine
from agents.core.rules.extraction_patterns import (
    _IMPLICIT_I, _PRON_SUBJ, _ROLE_SUBJ, _SELF_SUBJ, _THIRD_VERB,
)
from agents.core.rules.extraction_phrases import SELF, _role_subject, _take_name

Subject = tuple[dict[str, Any] | None, str, str | None]
_NAME_IS = re.compile(r"^\s*'?s?\s+name\s+is\s+(.+)$|^\s+is\s+(?:called|named)\s+(.+)$", re.I)
_POSSESSIVE = re.compile(r"^\s*'s?\b")
_LEAD_COMMA = re.compile(r"^\s*,?\s*")
_ADDRESSEE = re.compile(r"\byou(?:r|rs|rself)?\b", re.I)
_DROPPED_ADV = re.compile(r"^(?:(?:just|recently|finally|also|still|currently|now)\s+)", re.I)
_NEEDS_AM = re.compile(r"^(?:living|working|studying|based|originally\s+from|from)\b", re.I)


def _self(m: re.Match, ctx: dict[str, Any]) -> Subject:
    return SELF, m.string[m.end():], None


def _role(m: re.Match, ctx: dict[str, Any]) -> Subject:
    """"my sister Priya ...", "my dog's name is Bruno", "my mom ..."; never an ex or a future one."""
    role, rest = m.group("role"), m.string[m.end():]
    nm = _NAME_IS.match(rest)
    if nm:
        subj = _role_subject(role, None)
        return subj, "", (nm.group(1) or nm.group(2)) if subj else None
    if _POSSESSIVE.match(rest):
        return None, rest, None  # "my mom's cooking ..."
    name = None
    cand, after = _take_name(_LEAD_COMMA.sub("", rest, count=1), allow_lower=True)
    if cand:
        after2 = _LEAD_COMMA.sub("", after, count=1)
        if cand[0].isupper() or _THIRD_VERB.match(after2):
            name, rest = cand, " " + after2
    subj = _role_subject(role, name)
    if subj is not None and not m.group("adj").strip().lower().startswith(("ex", "future")):
        return subj, rest, None
    return None, rest, None


def _pronoun(m: re.Match, ctx: dict[str, Any]) -> Subject:
    """he/she/they: the one person or pet the message introduced, else no subject."""
    intro = ctx.get("introduced") or []
    if len(intro) == 1:
        return intro[0], m.string[m.end():], None
    return None, m.string, None


def _known_name(m: re.Match, ctx: dict[str, Any]) -> Subject | None:
    subj = ctx.get("names", {}).get(m.group(1).casefold())
    return (subj, m.string[m.end():], None) if subj is not None else None


def _implicit_i(m: re.Match, ctx: dict[str, Any]) -> Subject | None:
    """A dropped subject ("just moved to Toronto", "love biryani"): the speaker (a contact only)."""
    c = m.string
    if _ADDRESSEE.search(c) or ctx["scope"] != "contact":
        return None
    first = _DROPPED_ADV.sub("", c, count=1)
    if _NEEDS_AM.match(first):
        return SELF, "am " + first, None
    return SELF, c, None


SUBJECT_RULES = (
    engine.rule("i", _SELF_SUBJ, _self, "I live in Berlin"),
    engine.rule("my_role", _ROLE_SUBJ, _role, "my sister Priya lives in Pune"),
    engine.rule("pronoun", _PRON_SUBJ, _pronoun, "she lives in Pune"),
    engine.rule("known_name", r"^([^\W\d_][\w'-]*)\s+", _known_name, "Priya lives in Pune", flags=0),
    engine.rule("dropped_i", _IMPLICIT_I, _implicit_i, "just moved to Toronto"),
)


def _subject(c: str, ctx: dict[str, Any], carry: bool) -> Subject:
    """-> (subject, rest of the clause, name-statement value for "my dog's name is X")."""
    if carry and ctx.get("last_subj") is not None:
        return ctx["last_subj"], c, None
    return engine.first(SUBJECT_RULES, c, ctx) or (None, c, None)
