"""The complement rules: "I am <complement>" read by an ordered table (COMPLEMENT_RULES), then, when no
rule answers, each comma/and part by the simple complement readers. Pure.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from agents.core.rules import engine
from agents.core.rules.extraction_has import _has
from agents.core.rules.extraction_lexicon import (
    DEMONYMS, EMPLOYMENT, IDENTITY_ADJ, IDENTITY_NOUNS, REL_STATUS, ZODIAC, _NOT_PLANS, _PRONOUN_OBJ,
)
from agents.core.rules.extraction_objects import (
    _job_items, _learning_to, _name_items, _objects, _pref, _studies, _talk, _work_in, _works_at,
)
from agents.core.rules.extraction_patterns import (
    _AGE_RX, _ALLERGIC, _ARTICLE, _AWAY, _BASED, _COMP_ADV, _COMP_SPLIT, _FAN_OF, _GOING, _GOING_TO_DO,
    _INTERESTED, _INTO, _INTO_VERB, _IN_PLACE, _LEARNING, _LEARNING_TO, _MOVING, _MY_WHO, _NEG_COMP, _NOW,
    _STATUS_WITH, _STUDYING, _TAIL, _TRAIL_JUNK, _VISITING, _WORKING, _X_FAN,
)
from agents.core.rules.extraction_phrases import (
    _age, _article, _category, _clean, _cue, _cue_text, _display, _ent, _norm_obj, _place, _plan_target, _raw,
    _say, _take_name, _thing_entities, _third, kin_entity, pet_entity, slugify,
)
from domain.entities import KINSHIP, PET_WORDS


# ---------------------------------------------------------------- the complement rules: handler(m, subj, ctx, clause, cue)
# "I am <complement>": the text a handler reads is m.string (the complement); same answers as the
# predicate rules (a list, [] to stop, None to let the next rule try).
def _c_neg(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
           ) -> list[dict[str, Any]]:
    if m.group(1):
        return _talk(subj, m.group(2), "not_interested", "isn't interested in", ctx)
    verb = "isn't a fan of" if "fan" in m.string.lower() else "isn't into"
    return _pref(subj, verb, False, m.group(2), ctx)


def _c_stop(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
            ) -> list[dict[str, Any]]:
    return []


def _c_fan_of(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
              ) -> list[dict[str, Any]]:
    return _pref(subj, f"is a {m.group(1).lower() + ' ' if m.group(1) else ''}fan of", True, m.group(2), ctx)


def _c_x_fan(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
             ) -> list[dict[str, Any]] | None:
    if m.group(1).split()[0].lower() in {"bit", "little", "lot", "of"}:
        return None
    return _pref(subj, "is a fan of", True, m.group(1), ctx)


def _c_into(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
            ) -> list[dict[str, Any]]:
    verb = _INTO_VERB.match(m.string)
    return _pref(subj, f"is {verb.group(1).lower() if verb else 'into'}", True, m.group(1), ctx)


def _c_interested(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
                  ) -> list[dict[str, Any]]:
    return _talk(subj, m.group(1), "interest", "is interested in", ctx, 0.8)


def _c_allergic(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
                ) -> list[dict[str, Any]]:
    return [_raw("allergic_to", _say(subj, f"is allergic to {d}"), n, key=slugify(n), tags=("health",),
                 entities=_thing_entities(d, n, _category(n)) if _category(n) == "food" else [],
                 confidence=0.9) for d, n in _objects(m.group(1))]


def _c_moving(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
              ) -> list[dict[str, Any]]:
    p = _place(m.group(1))
    if p:
        return [_raw("plan", _say(subj, f"is moving to {p}" + _cue_text(clause)), f"moving to {p}",
                     key=slugify(f"moving to {p}"), entities=[_ent("place", p)], tags=("plans", "moving"),
                     confidence=0.8)]
    return []


def _c_going(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
             ) -> list[dict[str, Any]]:
    if not cue:
        return []
    target = _plan_target(m.group(1))
    if not target:
        return []
    verb = m.string.split()[0].lower()
    verb = "going" if verb in {"off", "taking", "going"} else verb
    ents = [_ent("place", target)] if target[:1].isupper() else []
    return [_raw("plan", _say(subj, f"is {verb} to {_third(target)}" + _cue_text(clause)), f"{verb} to {target}",
                 key=slugify(target), entities=ents, tags=("plans",), confidence=0.7)]


def _c_visiting(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
                ) -> list[dict[str, Any]]:
    comp = m.string
    target = _plan_target(m.group(1))
    if not target or not cue and comp.lower().startswith(("meeting", "seeing", "catching", "hosting")):
        return []
    who = _MY_WHO.match(target)
    ents = []
    if who:
        e = kin_entity(who.group(1))
        ents = [e] if e else []
    elif target[:1].isupper():
        ents = [_ent("place", target)]
    verb = comp.split()[0].lower()
    return [_raw("plan", _say(subj, f"is {verb} {_third(target)}" + _cue_text(clause)), f"{verb} {target}",
                 key=slugify(target), entities=ents, tags=("plans",), confidence=0.7)]


def _c_going_to_do(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
                   ) -> list[dict[str, Any]]:
    if not cue or m.group(1).lower() in _NOT_PLANS:
        return []
    act = _clean(f"{m.group(1)} {m.group(2)}")
    return [_raw("plan", _say(subj, f"is going to {_third(act)}" + _cue_text(clause)), act,
                 key=slugify(act), tags=("plans",), confidence=0.65)] if act else []


def _c_based(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
             ) -> list[dict[str, Any]]:
    p = _place(m.group(1))
    if not p:
        return []
    if m.string.lower().startswith("staying") and cue:
        return [_raw("current_location", _say(subj, f"is in {p}" + _cue_text(clause)), p,
                     entities=[_ent("place", p)], tags=("location",), confidence=0.75)]
    return [_raw("lives_in", _say(subj, f"lives in {p}"), p, entities=[_ent("place", p)], tags=("location",),
                 confidence=0.85)]


def _c_working(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
               ) -> list[dict[str, Any]]:
    prep, rest = m.group(1).lower(), m.group(2)
    if prep == "on":
        o = _clean(rest)
        if not o or o.split()[0].lower() in _PRONOUN_OBJ:
            return []
        return [_raw("working_on", _say(subj, f"is working on {_third(o)}"), o, key=slugify(_norm_obj(o)),
                     tags=("work", "projects"), confidence=0.7)]
    if prep == "as":
        return _job_items(subj, "a " + rest if not _ARTICLE.match(rest) else rest, ctx, require_article=False)
    if prep == "in":
        return _work_in(subj, rest)
    return _works_at(subj, rest, ctx)


def _c_studying(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
                ) -> list[dict[str, Any]]:
    return _studies(subj, m.group(1))


def _c_learning_to(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
                   ) -> list[dict[str, Any]]:
    return _learning_to(subj, m.group(2), "how to" if m.group(1) else "to")


def _c_learning(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
                ) -> list[dict[str, Any]]:
    return [_raw("learning", _say(subj, f"is learning {d}"), n, key=slugify(n), tags=("education", "learning"),
                 entities=[_ent("topic", d.lower())], confidence=0.8) for d, n in _objects(m.group(1))]


def _c_status(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
              ) -> list[dict[str, Any]] | None:
    if subj["kind"] != "self":
        return None
    st = REL_STATUS.get(m.group(1).lower().split()[-1], m.group(1).lower())
    out = [_raw("relationship_status", _say(subj, f"is {st}"), st, tags=("relationships",), confidence=0.85)]
    if m.group(2):
        out += _has(subj, m.group(2), ctx)
    return out


def _c_in_place(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str, cue: str | None
                ) -> list[dict[str, Any]] | None:
    comp = m.string
    if not ((cue and cue in {"1d", "3d", "7d"}) or _AWAY.search(comp) or _NOW.match(comp)):
        return None
    raw_p = _clean(m.group(1))
    if raw_p[:1].isupper():
        p = _place(raw_p)
        if p:
            return [_raw("current_location", _say(subj, f"is in {p}" + _cue_text(clause)), p,
                         entities=[_ent("place", p)], tags=("location", "travel"), confidence=0.7)]
    return []


COMPLEMENT_RULES = (
    engine.rule("not_into", _NEG_COMP, _c_neg, "not a fan of horror movies"),
    engine.rule("negated", r"^(?:not|never|no longer|no)\b", _c_stop, "not sure"),
    engine.rule("fan_of", _FAN_OF, _c_fan_of, "a huge fan of Arsenal"),
    engine.rule("x_fan", _X_FAN, _c_x_fan, "a big Marvel fan", view=_clean),
    engine.rule("into", _INTO, _c_into, "really into photography"),
    engine.rule("interested", _INTERESTED, _c_interested, "interested in astronomy"),
    engine.rule("allergic", _ALLERGIC, _c_allergic, "allergic to peanuts"),
    engine.rule("moving", _MOVING, _c_moving, "moving to Canada"),
    engine.rule("going_to_do", _GOING_TO_DO, _c_going_to_do, "going to paint the kitchen tomorrow"),
    engine.rule("going", _GOING, _c_going, "going to Goa next week"),
    engine.rule("visiting", _VISITING, _c_visiting, "visiting my grandma this weekend"),
    engine.rule("based", _BASED, _c_based, "based in Austin"),
    engine.rule("working", _WORKING, _c_working, "working at Google"),
    engine.rule("studying", _STUDYING, _c_studying, "studying medicine"),
    engine.rule("learning_to", _LEARNING_TO, _c_learning_to, "learning to drive"),
    engine.rule("learning", _LEARNING, _c_learning, "learning Spanish"),
    engine.rule("status", _STATUS_WITH, _c_status, "married with two kids",
                view=lambda c: _clean(c, cut=False) if "," not in c else c),
    engine.rule("in_place", _IN_PLACE, _c_in_place, "currently in Tokyo"),
)


def _complement(subj: dict[str, Any], comp: str, ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    comp = _COMP_ADV.sub("", comp.strip())  # "I'm now a teacher"
    if not comp:
        return []
    out = engine.first(COMPLEMENT_RULES, comp, subj, ctx, clause, _cue(clause))
    if out is not None:
        return out
    out = []
    for i, part in enumerate(p for p in _COMP_SPLIT.split(comp) if p.strip()):
        got = _simple_complement(subj, part.strip(), ctx, first=(i == 0))
        if got is None:
            if i == 0:
                return []
            continue
        out.extend(got)
    return out


# ---------------------------------------------------------------- the simple complements: handler(m, subj, ctx, first)
# One part of "I am <part>, <part> and <part>" when no complement rule answered. A handler returns the
# items, None to let the next rule try, or _NOTHING: "this rule owns the part and finds nothing" (an age
# out of range, "from" no place), which ends the reading of the whole complement when it is the first part.
_NOTHING: tuple = ()
_ANY_WORD = re.compile(r"^(?:(?:a|an|the)\s+)?(.+)$", re.I | re.S)  # the part, one leading article dropped
_A_BREED = re.compile(r"^(?:an?\s+)?(.+)$", re.I)
_FROM = re.compile(r"^(?:originally\s+|also\s+)?from\s+(.+)$", re.I)
Items = list[dict[str, Any]]


def _s_age(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], first: bool) -> Items | tuple:
    n = _age(m.group(1))
    lo = 12 if subj["kind"] == "self" else 0
    if n is None or n < lo or n > 110:
        return _NOTHING
    months = "month" in m.string.lower()
    unit = ("month" if n == 1 else "months") if months else ("year" if n == 1 else "years")
    return [_raw("age", _say(subj, f"is {n} {unit} old"), str(n) + (" months" if months else ""),
                 tags=("age",), confidence=0.9)]


def _s_from(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], first: bool) -> Items | tuple:
    pl = _place(m.group(1))
    return [_raw("from", _say(subj, f"is from {pl}"), pl, entities=[_ent("place", pl)], tags=("location",),
                 confidence=0.85)] if pl else _NOTHING


def _s_breed(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], first: bool) -> Items | None:
    br = " ".join(m.group(1).lower().split())
    if subj["kind"] != "pet" or br not in PET_WORDS:
        return None
    meta = pet_entity(br)
    ents = [dict(subj["entity"], metadata={**subj["entity"]["metadata"], **meta["metadata"]})] \
        if subj.get("entity") else []
    return [_raw("breed", _say(subj, f"is {_article(br)} {br}"), br, entities=ents, tags=("pets",),
                 confidence=0.85)]


def _s_zodiac(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], first: bool) -> Items | None:
    low, p = m.group(1).lower(), m.string
    if low not in ZODIAC or not (p[:1].isupper() or _ARTICLE.match(p)):
        return None
    return [_raw("zodiac_sign", _say(subj, f"is {_article(low)} {_display(low)}"), low, tags=("identity",),
                 confidence=0.8)]


def _s_identity(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], first: bool) -> Items | None:
    low = m.group(1).lower()
    if low not in IDENTITY_NOUNS and low not in IDENTITY_ADJ:
        return None
    art = f"{_article(low)} " if _ARTICLE.match(m.string) else ""
    return [_raw("identity", _say(subj, f"is {art}{low}"), low, key=slugify(low), tags=("identity",),
                 confidence=0.8)]


def _s_status(relation: str, lexicon: dict[str, str], tag: str) -> Callable[..., Items | None]:
    """The whole part in a status lexicon ("married", "unemployed") -> the status it names."""
    def handler(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], first: bool) -> Items | None:
        st = lexicon.get(m.string.lower())
        return [_raw(relation, _say(subj, f"is {st}"), st, tags=(tag,), confidence=0.85)] if st else None
    return handler


def _s_nationality(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], first: bool) -> Items | None:
    low = m.group(1).lower()
    return [_raw("nationality", _say(subj, f"is {_display(low)}"), low, tags=("identity",), confidence=0.75)] \
        if low in DEMONYMS else None


def _s_job(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], first: bool) -> Items | None:
    return _job_items(subj, m.string, ctx, require_article=not first or subj["kind"] != "self") or None


def _s_name(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], first: bool) -> Items | None:
    return _bare_name(subj, m.string, ctx) if first and subj["kind"] in {"self", "person", "pet"} else None


SIMPLE_RULES = (
    engine.rule("age", _AGE_RX, _s_age, "29 years old"),
    engine.rule("is_from", _FROM, _s_from, "originally from Chennai"),
    engine.rule("breed", _A_BREED, _s_breed, "a beagle"),
    engine.rule("zodiac", _ANY_WORD, _s_zodiac, "a Leo"),
    engine.rule("identity", _ANY_WORD, _s_identity, "an introvert"),
    engine.rule("relationship_status", _ANY_WORD, _s_status("relationship_status", REL_STATUS, "relationships"),
                "married"),
    engine.rule("employment_status", _ANY_WORD, _s_status("employment_status", EMPLOYMENT, "work"), "unemployed"),
    engine.rule("nationality", _ANY_WORD, _s_nationality, "Indian"),
    engine.rule("job", _ANY_WORD, _s_job, "a nurse"),
    engine.rule("name", _ANY_WORD, _s_name, "Priya"),
)


def _simple_complement(subj: dict[str, Any], p: str, ctx: dict[str, Any], *, first: bool) -> Items | None:
    """The items of one part, or None when it names nothing (see SIMPLE_RULES)."""
    p = _TAIL.sub("", _TRAIL_JUNK.sub("", p.strip(" .!,"))).strip()
    if not p:
        return None
    return engine.first(SIMPLE_RULES, p, subj, ctx, first) or None


def _bare_name(subj: dict[str, Any], p: str, ctx: dict[str, Any]) -> list[dict[str, Any]] | None:
    """'I'm Priya', 'I'm Priya from Pune', 'Rohan here': a name as the first complement, or None."""
    allow_lower = subj["kind"] == "self" and ctx.get("greeting") and ctx.get("clause_index", 0) == 0
    name, rest = _take_name(p, allow_lower=bool(allow_lower))
    if name and (not rest.strip() or re.match(r"^\s*(?:here|btw|by the way|from\s+.+)$", rest, re.I)):
        if name.casefold() in KINSHIP or name.casefold() in DEMONYMS:
            return None
        out = _name_items(subj, name, 0.9 if name[0].isupper() else 0.6, ctx)
        fm = re.match(r"^\s*from\s+(.+)$", rest, re.I)
        if fm:
            more = _simple_complement(subj, "from " + fm.group(1), ctx, first=False)
            out += more or []
        return out
    return None
