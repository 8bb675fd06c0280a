"""The extraction rule tables read after a subject: preferences, a tenant's wants and the predicates
("live in", "work at", "have"), and the self statements ("my name is", "call me", "my <attr> is").
Each table is an ordered tuple of engine rules (agents/core/rules/engine.py); each rule carries its example.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from agents.core.rules import engine
from agents.core.rules.extraction_complement import _complement
from agents.core.rules.extraction_has import _has, _implied
from agents.core.rules.extraction_lexicon import (
    ACTIVITIES_DO, BUSINESS_WORDS, NAME_STOP, SCHOOL_WORDS, _MONTHS, _NAMING, _NEG, _NOT_GO_ING, _POS,
    _PRONOUN_OBJ,
)
from agents.core.rules.extraction_objects import (
    _job_items, _name_items, _objects, _plays, _pref, _prefer, _studies, _work_in, _works_at,
)
from agents.core.rules.extraction_patterns import (
    _ADV, _AGE_RX, _ARTICLE, _AT_PLACE, _BEEN_MOTION, _BEEN_TAIL, _BIRTHDAY, _DIGIT, _FAVORITE, _FIRST_WORD, _HERE,
    _IS_FAVORITE, _IS_MY_ROLE, _MY_ATTR, _MY_NAME, _NEG_RX, _POS_RX, _PRONOUN_START, _P_BE, _P_BORN, _P_BUSINESS,
    _P_DO, _P_FROM, _P_GO_BY, _P_GO_ING, _P_GO_TO, _P_GREW, _P_HAVE, _P_JOINED, _P_LIVE, _P_MOVED, _P_PLAY,
    _P_PREFER, _P_STUDY, _P_STUDY_AT, _P_TEACH, _P_TURNED, _P_WANT, _P_WFH, _P_WORK_AS, _P_WORK_AT, _P_WORK_IN,
    _SOON, _TURNED_AGE, _YEAR,
)
from agents.core.rules.extraction_phrases import (
    SELF, _age, _article, _category, _clean, _cue, _display, _ent, _freq, _generic, _introduce, _norm_obj, _org,
    _place, _raw, _role_subject, _say, _take_name, _thing_entities, _third, slugify,
)


# ---------------------------------------------------------------- the predicate rules: handler(m, subj, ctx, clause)
# A handler returns the raw items, [] to stop ("this rule owns the text, nothing to take"), or None to
# let the next rule try (the pattern matched but a condition did not).
def _h_neg(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    word = (m.group(1) or m.group(2) or "").lower()
    verb3 = _NEG.get(word) or f"doesn't {word}"
    return _pref(subj, verb3, False, m.group(3), ctx)


def _h_pos(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    return _pref(subj, _POS[m.group(1).lower()], True, m.group(2), ctx)


def _h_prefer(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    return _prefer(subj, m.group(1), m.string.lower().startswith("would rather"), ctx)


def _h_want(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]] | None:
    if subj["kind"] != "self":
        return None
    neg = bool(m.group(1))
    return [_raw("does_not_want" if neg else "wants",
                 _say(subj, f"{'does not want' if neg else 'wants'} {d}".replace("does not", "doesn't")),
                 n, key=slugify(n), category=_category(n), tags=("preferences",), confidence=0.75)
            for d, n in _objects(m.group(2), split=False)]


def _h_been(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    comp = _BEEN_TAIL.sub("", m.group(1))
    if _BEEN_MOTION.match(comp):
        return []
    return _complement(subj, comp, ctx, clause)


def _h_business(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str
                ) -> list[dict[str, Any]] | None:
    if not any(w in m.group(1).lower().split() for w in BUSINESS_WORDS):
        return None
    o = _clean(m.group(1))
    return [_raw("runs_business", _say(subj, f"runs {_article(o)} {_third(o)}"), o, key=slugify(_norm_obj(o)),
                 tags=("work", "business"), confidence=0.8)] if o else []


def _h_joined(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    target = m.group(1) or m.group(2)
    if m.group(2) and m.string.lower().startswith("joined") and not target[:1].isupper():
        return []
    return _works_at(subj, target, ctx)


def _h_have(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    return _has(subj, m.group(1), ctx)


def _h_place(rel: str, verb: str, *, planned: bool = False) -> Callable[..., list[dict[str, Any]]]:
    """lives in / moved to / is from / grew up in: a place; a move planned for soon is no fact yet."""
    def handler(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
        p = _place(m.group(1))
        if not p:
            return []
        if planned and _cue(clause) in {"1d", "3d", "7d", "30d"} and _SOON.search(clause):
            return []
        return [_raw(rel, _say(subj, f"{verb} {p}"), p, entities=[_ent("place", p)], tags=("location",),
                     confidence=0.9)]
    return handler


def _h_born(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    val = _clean(m.group(2))
    if m.group(1).lower() == "on" or _DIGIT.match(val) or val.split()[0].lower() in _MONTHS:
        if _YEAR.fullmatch(val):
            return []
        return [_raw("birthday", _say(subj, f"was born on {val}"), val, tags=("birthday",), confidence=0.85)]
    p = _place(val)
    return [_raw("born_in", _say(subj, f"was born in {p}"), p, entities=[_ent("place", p)],
                 tags=("location",), confidence=0.85)] if p else []


def _h_wfh(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    return [_raw("work_location", _say(subj, "works from home"), "home", tags=("work",), confidence=0.8)]


def _h_work_as(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    rest = m.group(1)
    return _job_items(subj, rest if _ARTICLE.match(rest) else "a " + rest, ctx, require_article=False)


def _h_work_at(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    return _works_at(subj, m.group(1), ctx)


def _h_work_in(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    return _work_in(subj, m.group(1))


def _school(verb: str, confidence: float, *, school_word: bool = False) -> Callable[..., Any]:
    """studies at / goes to <school> (the second only when a school word names the place)."""
    def handler(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str
                ) -> list[dict[str, Any]] | None:
        if school_word and not any(w in m.group(1).lower().split() for w in SCHOOL_WORDS):
            return None
        o, _ = _org(m.group(1))
        return [_raw("studies_at", _say(subj, f"{verb} {o}"), o,
                     entities=[_ent("school", o)] if not _generic(o) else [], tags=("education",),
                     confidence=confidence)] if o else []
    return handler


def _h_study(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    return _studies(subj, m.group(1))


def _h_go_by(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]] | None:
    if subj["kind"] != "self":
        return None
    name, _ = _take_name(_clean(m.group(1)), allow_lower=True)
    return [_raw("preferred_name", f"Goes by {name}", name, tags=("identity", "name"), confidence=0.85)] \
        if name else []


def _h_go_ing(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]] | None:
    if m.group(1).lower() in _NOT_GO_ING:
        return None
    act = m.group(1).lower()
    return [_raw("hobby", _say(subj, f"goes {act}{_freq(m.group(2))}"), act, key=slugify(act),
                 entities=[_ent("hobby", act)], tags=("hobbies", act), confidence=0.75)]


def _h_do(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    words = _clean(m.group(1)).lower().split()
    act = next((" ".join(words[:n]) for n in (2, 1) if " ".join(words[:n]) in ACTIVITIES_DO), "")
    if act:
        return [_raw("hobby", _say(subj, f"does {act.lower()}{_freq(m.group(1)[len(act):])}"), act.lower(),
                     key=slugify(act), entities=[_ent("hobby", act.lower())], tags=("hobbies", act.lower()),
                     confidence=0.75)]
    return []


def _h_play(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    return _plays(subj, m.group(1))


def _h_turned(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    am = _TURNED_AGE.match(_clean(m.group(1), cut=True) or "")
    n = _age(am.group(1)) if am else None
    if n and (subj["kind"] != "self" or n >= 5):
        return [_raw("age", _say(subj, f"is {n} years old"), str(n), tags=("age",), confidence=0.85)]
    return []


def _h_teach(m: re.Match, subj: dict[str, Any], ctx: dict[str, Any], clause: str) -> list[dict[str, Any]] | None:
    if subj["kind"] != "self":
        return None
    subj_t = _clean(m.group(1))
    out = [_raw("job_title", _say(subj, f"is a teacher ({_third(subj_t)})" if subj_t else "is a teacher"),
                "teacher", tags=("work",), confidence=0.7)] if subj_t and \
        subj_t.split()[0].lower() not in _PRONOUN_OBJ else []
    if out and m.group(2):
        o, _ = _org(m.group(2))
        if o:
            out.append(_raw("works_at", _say(subj, f"works at {o}"), o,
                            entities=[_ent("workplace", o)] if not _generic(o) else [],
                            tags=("work",), confidence=0.75))
    return out


# Read in order; the first rule that answers wins. Preferences come first (in every scope); a tenant
# (a business describing itself) states only wants; "am/is/are" hands the rest to _complement.
PREFERENCE_RULES = (
    engine.rule("dislikes", _NEG_RX, _h_neg, "hate mushrooms"),
    engine.rule("likes", _POS_RX, _h_pos, "love hiking"),
    engine.rule("prefers", _P_PREFER, _h_prefer, "would rather tea than coffee"),
)
TENANT_RULES = (engine.rule("wants", _P_WANT, _h_want, "need a new website"),)
PREDICATE_RULES = (
    engine.rule("has_been", r"^(?:have|has)\s+been\s+(.+)$", _h_been, "have been vegan for years"),
    engine.rule("runs_business", _P_BUSINESS, _h_business, "run a small bakery"),
    engine.rule("joined", _P_JOINED, _h_joined, "joined Google"),
    engine.rule("has", _P_HAVE, _h_have, "have two cats"),
    engine.rule("lives_in", _P_LIVE, _h_place("lives_in", "lives in"), "live in Berlin"),
    engine.rule("moved_to", _P_MOVED, _h_place("lives_in", "lives in", planned=True), "moved to Paris"),
    engine.rule("from", _P_FROM, _h_place("from", "is from"), "come from Kerala"),
    engine.rule("grew_up_in", _P_GREW, _h_place("grew_up_in", "grew up in"), "grew up in Ohio"),
    engine.rule("born", _P_BORN, _h_born, "was born in Lagos"),
    engine.rule("works_from_home", _P_WFH, _h_wfh, "work from home"),
    engine.rule("works_as", _P_WORK_AS, _h_work_as, "work as a nurse"),
    engine.rule("works_at", _P_WORK_AT, _h_work_at, "work at Siemens"),
    engine.rule("works_in", _P_WORK_IN, _h_work_in, "work in finance"),
    engine.rule("studies_at", _P_STUDY_AT, _school("studies at", 0.85), "study at Stanford University"),
    engine.rule("studies", _P_STUDY, _h_study, "study physics"),
    engine.rule("goes_by", _P_GO_BY, _h_go_by, "go by Sam"),
    engine.rule("goes_doing", _P_GO_ING, _h_go_ing, "go hiking every weekend"),
    engine.rule("goes_to_school", _P_GO_TO, _school("goes to", 0.8, school_word=True), "go to Delhi University"),
    engine.rule("does", _P_DO, _h_do, "do yoga"),
    engine.rule("plays", _P_PLAY, _h_play, "play chess"),
    engine.rule("turned", _P_TURNED, _h_turned, "just turned 30"),
    engine.rule("teaches", _P_TEACH, _h_teach, "teach math at Lincoln High"),
)


def _predicate(subj: dict[str, Any], r: str, ctx: dict[str, Any], clause: str) -> list[dict[str, Any]]:
    r = _ADV.sub("", r.strip())
    if not r:
        return []
    out = engine.first(PREFERENCE_RULES, r, subj, ctx, clause)
    if out is not None:
        return out
    if ctx["scope"] == "tenant":
        return engine.first(TENANT_RULES, r, subj, ctx, clause) or []
    if r.lower().startswith(("am ", "is ", "are ")):
        m = _P_BE.match(r)
        return _complement(subj, m.group(1), ctx, clause) if m else []
    return engine.first(PREDICATE_RULES, r, subj, ctx, clause) or []


# ---------------------------------------------------------------- self statements: handler(m, ctx, index)
# "my name is ...", "Anna is my sister", "my birthday is ...", favorites, "my <attr> is ...".
def _s_my_name(m: re.Match, ctx: dict[str, Any], index: int) -> list[dict[str, Any]] | None:
    c = m.string
    if not (c.lower().startswith(_NAMING) or (index == 0 and ctx.get("greeting"))):
        return None
    explicit = c.lower().startswith(_NAMING)
    name, rest = _take_name(_clean(m.group(1)), allow_lower=explicit)
    if name and (explicit or not rest.strip() or rest.strip().lower() == "here"):
        return _name_items(SELF, name, 0.95 if explicit else 0.8, ctx)
    return []


def _s_is_my_role(m: re.Match, ctx: dict[str, Any], index: int) -> list[dict[str, Any]] | None:
    if m.group(1).casefold() in NAME_STOP:
        return None
    subj = _role_subject(m.group(2), m.group(1))
    if subj is None:
        return None
    _introduce(ctx, subj, m.group(1))
    return _implied(subj, m.group(1), ctx)


def _s_here(m: re.Match, ctx: dict[str, Any], index: int) -> list[dict[str, Any]] | None:
    if index != 0 or m.group(1).casefold() in NAME_STOP:
        return None
    return _name_items(SELF, m.group(1), 0.75, ctx)


def _s_birthday(m: re.Match, ctx: dict[str, Any], index: int) -> list[dict[str, Any]]:
    val = _clean(m.group(1))
    return [_raw("birthday", f"Birthday is {val}", val, tags=("birthday",), confidence=0.9)] if val else []


def _s_favorite(m: re.Match, ctx: dict[str, Any], index: int) -> list[dict[str, Any]]:
    what = _clean(m.group(1).strip(), cut=False)
    objs = _objects(m.group(2), split=False)
    if not what or not objs:
        return []
    disp, norm = objs[0]
    cat = _category(norm) or _category(what.lower())
    return [_raw(f"favorite_{slugify(what)}", f"Favorite {what.lower()} is {disp}", norm, category=cat,
                 entities=_thing_entities(disp, norm, cat), tags=("preferences", cat or "", slugify(what)),
                 confidence=0.9)]


def _s_is_favorite(m: re.Match, ctx: dict[str, Any], index: int) -> list[dict[str, Any]] | None:
    if _PRONOUN_START.match(m.string):
        return None
    objs = _objects(m.group(1), split=False)
    if not objs:
        return []
    disp, norm = objs[0]
    cat = _category(norm)
    if m.group(2):
        what = _clean(m.group(2), cut=False).lower()
        return [_raw(f"favorite_{slugify(what)}", f"Favorite {what} is {disp}", norm, category=cat,
                     entities=_thing_entities(disp, norm, cat), tags=("preferences", cat or ""), confidence=0.85)]
    return [_raw("likes", f"Loves {disp}", norm, key=slugify(norm), category=cat,
                 entities=_thing_entities(disp, norm, cat), tags=("preferences", cat or ""), confidence=0.8)]


def _attr_place(relation: str, says: str, confidence: float) -> Callable[[str, dict[str, Any]], list]:
    def read(val: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
        p = _place(val)
        return [_raw(relation, f"{says} {p}", p, entities=[_ent("place", p)], tags=("location",),
                     confidence=confidence)] if p else []
    return read


def _attr_age(val: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    am = _AGE_RX.match(_clean(val))
    n = _age(am.group(1)) if am else None
    return [_raw("age", f"Is {n} years old", str(n), tags=("age",), confidence=0.9)] if n else []


def _attr_value(relation: str, says: Callable[[str], str], tags: tuple[str, ...], confidence: float, *,
                cut: bool = True, key: Callable[[str], str] | None = None) -> Callable[[str, dict[str, Any]], list]:
    def read(val: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
        v = _clean(val, cut=cut)
        return [_raw(relation, says(v), v, key=key(v) if key else None, tags=tags, confidence=confidence)] \
            if v else []
    return read


def _attr_workplace(attr: str) -> Callable[[str, dict[str, Any]], list]:
    def read(val: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
        if _AT_PLACE.match(val):
            p = _place(_FIRST_WORD.sub("", val))
            return [_raw("work_location", f"Works in {p}", p, entities=[_ent("place", p)],
                         tags=("work", "location"), confidence=0.7)] if p and attr == "office" else []
        return _works_at(SELF, val, ctx) if attr != "office" else []
    return read


# "my <attr> is <val>": the attribute (as _MY_ATTR reads it, spaces folded) -> its reader, tried in order
MY_ATTRS: tuple[tuple[Callable[[str], bool], Callable[[str, dict[str, Any]], list]], ...] = (
    (lambda a: a in {"hometown", "home town", "native place", "native"}, _attr_place("from", "Is from", 0.9)),
    (lambda a: a.endswith("is in"), _attr_place("lives_in", "Lives in", 0.8)),
    (lambda a: a == "age", _attr_age),
    (lambda a: a == "major", _attr_value("studies", lambda v: f"Studies {v}", ("education",), 0.85)),
    (lambda a: a == "pronouns", _attr_value("pronouns", lambda v: f"Pronouns are {v}", ("identity",), 0.9,
                                            cut=False)),
    (lambda a: a.endswith("sign"), _attr_value("zodiac_sign", lambda v: f"Zodiac sign is {_display(v)}",
                                               ("identity",), 0.85)),
    (lambda a: a in {"mother tongue", "first language", "native language"},
     _attr_value("identity", lambda v: f"Mother tongue is {_display(v)}", ("identity", "language"), 0.85,
                 key=lambda v: slugify(f"language {v}"))),
    *((lambda a, w=w: a == w, _attr_workplace(w)) for w in ("office", "workplace", "company", "employer")),
)


def _s_my_attr(m: re.Match, ctx: dict[str, Any], index: int) -> list[dict[str, Any]]:
    attr, val = " ".join(m.group(1).lower().split()), m.group(2)
    for applies, read in MY_ATTRS:
        if applies(attr):
            return read(val, ctx)
    return _job_items(SELF, val if _ARTICLE.match(val) else "a " + val, ctx, require_article=False)


# "call me Sam" is no self statement here: REQUEST_RULES ("asks_to_be_called") reads it first in every clause
SELF_RULES = (
    engine.rule("my_name", _MY_NAME, _s_my_name, "my name is Meera"),
    engine.rule("is_my_role", _IS_MY_ROLE, _s_is_my_role, "Anna is my sister"),
    engine.rule("here", _HERE, _s_here, "Rohan here"),
    engine.rule("birthday", _BIRTHDAY, _s_birthday, "my birthday is March 3"),
    engine.rule("favorite", _FAVORITE, _s_favorite, "my favorite food is sushi"),
    engine.rule("is_favorite", _IS_FAVORITE, _s_is_favorite, "sushi is my favorite food"),
    engine.rule("my_attr", _MY_ATTR, _s_my_attr, "my hometown is Pune"),
)


def _self_statements(c: str, ctx: dict[str, Any], index: int) -> list[dict[str, Any]] | None:
    return engine.first(SELF_RULES, c, ctx, index)


