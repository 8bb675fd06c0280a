"""Extraction's object readers: preference objects and comparisons, talk topics, jobs and workplaces, studies,
what one plays or learns. Pure; the rule handlers call these.
"""
from __future__ import annotations

import re
from typing import Any

from agents.core.rules.extraction_lexicon import (
    ACRONYMS, COMPOUND_OBJECTS, INDUSTRIES, OCCUPATIONS, SCHOOL_WORDS, STUDENT_LEVELS, _PRONOUN_OBJ, _REJECT_OBJ,
    _VERBISH,
)
from agents.core.rules.extraction_patterns import _ARTICLE, _COMPARE, _CONSUME, _LEARN_TAIL, _PEOPLE_WHO, _TALKING
from agents.core.rules.extraction_phrases import (
    SELF, _article, _cap, _category, _clean, _display, _ent, _freq, _generic, _gerund, _introduce, _job, _norm_obj,
    _org, _place, _raw, _role_subject, _say, _thing_entities, _third, kin_entity, pet_entity, slugify,
)


def _objects(text: str, *, split: bool = True) -> list[tuple[str, str]]:
    """-> [(display, normalized)] of a preference object list; [] when it is no thing ("it", "you")."""
    pw = _PEOPLE_WHO.match(text.strip())
    if pw:
        o = _clean(pw.group(1), cut=False)
        return [(_third(o), _norm_obj(o))] if o else []
    o = _clean(text, commas=not split)
    if not o:
        return []
    m = re.match(r"^to\s+([a-z]+)\b(.*)$", o, re.I)
    if m:
        o = _gerund(m.group(1)) + m.group(2)
    low = o.lower()
    if low in COMPOUND_OBJECTS or any(cp in low for cp in COMPOUND_OBJECTS) or not split:
        parts = [o]
    else:
        parts = [p for p in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|nor)\s+", o) if p.strip()]
    out: list[tuple[str, str]] = []
    gerund_list = bool(parts) and parts[0].split()[0].lower().endswith("ing")
    for p in parts:
        p = _clean(p) if split else p.strip()
        if not p:
            continue
        m2 = _CONSUME.match(p)
        if m2 and _category(_norm_obj(m2.group(1))) == "food":
            p = m2.group(1)
        if gerund_list and " " not in p and not p.lower().endswith("ing") and p.lower() in _VERBISH:
            p = _gerund(p)
        norm = _norm_obj(p)
        if not norm or len(norm.split()) > 7:
            continue
        first = norm.split()[0]
        if first in _PRONOUN_OBJ or norm in _REJECT_OBJ or first in {"your", "you", "u", "how", "what", "that",
                                                                     "when", "to", "being", "it's", "not"} \
                or re.match(r"^(?:the way|the fact|it when|it if|that you|when you|how you)", norm):
            if not (first == "being" and len(norm.split()) > 1):
                continue
        out.append((_third(p), norm))
    return out


def _pref(subj: dict[str, Any], verb3: str, positive: bool, obj_text: str, ctx: dict[str, Any],
          relation: str | None = None) -> list[dict[str, Any]]:
    """likes/dislikes (one item per object), prefers for comparisons, interest/avoid for talking."""
    m = _TALKING.match(obj_text.strip())
    if m and m.group(0).lower().startswith(("talking", "discussing", "chatting", "speaking", "being asked",
                                            "getting asked", "hearing")):
        return _talk(subj, m.group(1), "interest" if positive else "avoid_topic",
                     f"{verb3} talking about" if positive else
                     ("doesn't like talking about" if verb3.startswith("doesn't") else f"{verb3} talking about"),
                     ctx)
    if positive and relation is None:
        mc = _COMPARE.match(_clean(obj_text, cut=True) if " than " in obj_text or " over " in obj_text
                            else obj_text)
        if mc and not re.search(r"\b(?:over there|over here|over the|all over)\b", obj_text, re.I):
            return _prefer_pair(subj, mc.group(1), mc.group(2), ctx)
    out = []
    for disp, norm in _objects(obj_text):
        cat = _category(norm)
        rel = relation or ("likes" if positive else "dislikes")
        out.append(_raw(rel, _say(subj, f"{verb3} {disp}"), norm, key=slugify(norm),
                        entities=_thing_entities(disp, norm, cat), category=cat,
                        tags=("preferences", cat or "", slugify(norm).replace("_", " ")
                              if len(norm.split()) <= 3 else ""), confidence=0.85))
    return out


def _prefer_pair(subj: dict[str, Any], a: str, b: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    oa, ob = _objects(a, split=False), _objects(b, split=False)
    if not oa or not ob:
        return []
    (da, na), (db, nb) = oa[0], ob[0]
    fix = []
    for d in (da, db):
        w = d.split()
        if w and w[0].lower() in _VERBISH:
            w[0] = _gerund(w[0])
        fix.append(" ".join(w))
    da, db = fix
    na, nb = _norm_obj(da), _norm_obj(db)
    cat = _category(na) or _category(nb)
    key = "~".join(sorted((slugify(na), slugify(nb))))
    ents = _thing_entities(da, na, _category(na)) + _thing_entities(db, nb, _category(nb))
    return [_raw("prefers", _say(subj, f"prefers {da} over {db}"), f"{na} over {nb}", key=key, entities=ents,
                 category=cat, domain="prefers", tags=("preferences", cat or ""), confidence=0.85)]


def _talk(subj: dict[str, Any] | None, obj_text: str, relation: str, verb3: str, ctx: dict[str, Any],
          confidence: float = 0.85) -> list[dict[str, Any]]:
    subj = subj or SELF
    o = re.sub(r"\s+(?:with me|to me|anymore|any more|please|again|ever|at all|for now|for a while|now|here|"
               r"today|tonight|right now|this week|in front of me)\b.*$", "", _clean(obj_text), flags=re.I)
    objs = _objects(o, split=False)
    if not objs:
        return []
    disp, norm = objs[0]
    ents = _thing_entities(disp, norm, None)
    if not ents or ents[0]["entityType"] not in {"person", "pet"}:
        cat = _category(norm)
        ents = [e for e in ([_ent("topic", _ARTICLE.sub("", re.sub(r"^(?:my|our|their)\s+", "", disp,
                                                                      flags=re.I)).lower())] +
                            (_thing_entities(disp, norm, cat) if cat in {"food", "gaming"} else [])) if e]
    key = slugify(re.sub(r"^(?:my|our|their)\s+", "", norm))
    return [_raw(relation, _say(subj, f"{verb3} {disp}"), norm, key=key, entities=ents,
                 tags=("boundaries" if relation == "avoid_topic" else "interests", key.replace("_", " ")),
                 confidence=confidence)]


def _learning_to(subj: dict[str, Any], phrase: str, to: str) -> list[dict[str, Any]]:
    """"learning to swim and (to) drive" -> one learning item per verb phrase, the infinitive kept; a phrase
    about a pronoun ("learning to deal with it") is no fact."""
    out = []
    phrase = _clean(phrase)
    if phrase.lower().split()[-1:] and phrase.lower().split()[-1] in _PRONOUN_OBJ:
        return []
    for part in re.split(r"\s*,\s*(?:and\s+)?(?:to\s+)?|\s+and\s+(?:to\s+|how\s+to\s+)?", _LEARN_TAIL.sub("", phrase)):
        d = _clean(part)
        n = _norm_obj(d)
        if not n or n.split()[0] in _PRONOUN_OBJ or n.split()[-1] in _PRONOUN_OBJ or n in _REJECT_OBJ \
                or len(n.split()) > 6:
            continue
        out.append(_raw("learning", _say(subj, f"is learning {to} {d}"), n, key=slugify(n),
                        tags=("education", "learning"), entities=[_ent("topic", d.lower())], confidence=0.8))
    return out


def _name_items(subj: dict[str, Any], name: str, conf: float, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    name = " ".join(w if w[0].isupper() else w.capitalize() for w in name.split())
    if subj["kind"] == "self":
        return [_raw("name", f"Name is {name}", name, tags=("identity", "name"), confidence=conf)]
    role = subj.get("role", "")
    if subj["kind"] == "pet":
        ent = pet_entity(role, name)
        _introduce(ctx, _role_subject(role, name), name)
        return [_raw("pet_name", f"{_cap(role)}'s name is {name}", name, entities=[ent], tags=("pets", "name"),
                     subject=dict(subj, ref=subj["role_ref"], entity=None), confidence=conf)]
    ent = kin_entity(role, name)
    _introduce(ctx, _role_subject(role, name), name)
    return [_raw("name", f"{_cap(role.replace('_', ' '))}'s name is {name}", name, entities=[ent],
                 tags=("family", "name"), subject=dict(subj, ref=subj["role_ref"], entity=None), confidence=conf)]


def _job_items(subj: dict[str, Any], p: str, ctx: dict[str, Any], *, require_article: bool = True
               ) -> list[dict[str, Any]]:
    if require_article and not _ARTICLE.match(p.strip()):
        return []
    job, rest = _job(p)
    if not job:
        return []
    rest = rest.strip()
    jl = job.lower()
    head = jl.split()[-1].rstrip("s") if jl.split()[-1] not in OCCUPATIONS else jl.split()[-1]
    out: list[dict[str, Any]] = []
    m = re.match(r"^(?:at|for|with)\s+(.+)$", rest, re.I)
    org = None
    if m:
        org, _tail = _org(m.group(1))
    if head in {"student", "undergrad", "postdoc"}:
        field = [w for w in jl.split()[:-1] if w not in STUDENT_LEVELS and w not in {"a", "an"}]
        if org:
            out.append(_raw("studies_at", _say(subj, f"is {_article(job)} {job} at {org}"), org,
                            entities=[_ent("school", org)] if not _generic(org) else [],
                            tags=("education",), confidence=0.85))
        else:
            out.append(_raw("job_title", _say(subj, f"is {_article(job)} {job}"), job, tags=("work", "education"),
                            confidence=0.8))
        if field:
            f = " ".join(field)
            out.append(_raw("studies", _say(subj, f"studies {f if f.isupper() or len(f) <= 3 else f}"),
                            f, tags=("education",), confidence=0.7))
        return out
    out.append(_raw("job_title", _say(subj, f"is {_article(job)} {job}"), job, tags=("work",), confidence=0.85))
    if org:
        out.append(_raw("works_at", _say(subj, f"works at {org} as {_article(job)} {job}"), org,
                        entities=[_ent("workplace", org)] if not _generic(org) else [], tags=("work",),
                        confidence=0.85))
    fm = re.search(r"\bfrom\s+(.+)$", rest, re.I)
    if fm:
        pl = _place(fm.group(1))
        if pl:
            out.append(_raw("from", _say(subj, f"is from {pl}"), pl, entities=[_ent("place", pl)],
                            tags=("location",), confidence=0.8))
    return out


def _works_at(subj: dict[str, Any], rest: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    if re.match(r"^\s*(?:myself|my own)\b", rest, re.I):
        return [_raw("employment_status", _say(subj, "is self-employed"), "self-employed", tags=("work",),
                     confidence=0.8)]
    org, tail = _org(rest)
    if not org:
        return []
    jm = re.match(r"^\s+as\s+(?:an?\s+)?(.+)$", tail, re.I)
    job = None
    if jm:
        job, _ = _job("a " + jm.group(1))
    if _generic(org):
        ents: list = []
    elif any(w in org.lower().split() for w in SCHOOL_WORDS[:6]):
        ents = [_ent("workplace", org)]
    else:
        ents = [_ent("workplace", org)]
    content = f"works at {org}" + (f" as {_article(job)} {job}" if job else "")
    out = [_raw("works_at", _say(subj, content), org, entities=ents, tags=("work",), confidence=0.9)]
    if job:
        out.append(_raw("job_title", _say(subj, f"is {_article(job)} {job}"), job, tags=("work",), confidence=0.85))
    return out


def _work_in(subj: dict[str, Any], rest: str) -> list[dict[str, Any]]:
    o = _clean(rest)
    if not o:
        return []
    low = _ARTICLE.sub("", o.lower())
    if low in INDUSTRIES or low.split()[0] in INDUSTRIES:
        return [_raw("work_field", _say(subj, f"works in {o if o.isupper() or low in ACRONYMS else low}"),
                     low, tags=("work",), confidence=0.8)]
    if _ARTICLE.match(o):
        org, _ = _org(o)
        return [_raw("works_at", _say(subj, f"works in {org}"), org, tags=("work",), confidence=0.7)] if org else []
    p = _place(o)
    if p and o[:1].isupper():
        return [_raw("work_location", _say(subj, f"works in {p}"), p, entities=[_ent("place", p)],
                     tags=("work", "location"), confidence=0.7)]
    return []


def _studies(subj: dict[str, Any], rest: str) -> list[dict[str, Any]]:
    m = re.match(r"^(.+?)\s+(?:at|in)\s+(.+)$", rest, re.I)
    field, org = (m.group(1), m.group(2)) if m else (rest, None)
    field = _clean(field)
    out: list[dict[str, Any]] = []
    if field and field.split()[0].lower() not in _PRONOUN_OBJ and field.lower() not in {"hard", "a lot", "abroad"}:
        if any(w in field.lower().split() for w in SCHOOL_WORDS) and not org:
            org, field = field, ""
        if field:
            out.append(_raw("studies", _say(subj, f"studies {field}"), field, tags=("education",), confidence=0.8))
    if org:
        o, _ = _org(org)
        if o:
            out.append(_raw("studies_at", _say(subj, f"studies at {o}"), o,
                            entities=[_ent("school", o)] if not _generic(o) else [], tags=("education",),
                            confidence=0.85))
    return out


def _plays(subj: dict[str, Any], rest: str) -> list[dict[str, Any]]:
    o = _clean(re.split(r"\s+(?:with|on|at|every|in|for|after|before|during|since|when|mostly|daily|"
                        r"online|competitively|professionally|sometimes|a lot|all day|all night)\b", rest,
                        maxsplit=1, flags=re.I)[0])
    o = re.sub(r"^(?:the|a|an|some|lots of|a lot of)\s+", "", o, flags=re.I)
    if not o or o.split()[0].lower() in _PRONOUN_OBJ | {"with", "around", "along", "dumb", "dead", "hard",
                                                        "nice", "safe", "games with", "my", "your", "him", "her"}:
        return []
    norm = _norm_obj(o)
    cat = _category(norm)
    disp = o if not o.islower() or cat != "gaming" else _display(o)
    ents = _thing_entities(disp, norm, "gaming") if cat == "gaming" else [_ent("hobby", norm)]
    tags = ("hobbies", "gaming", norm) if cat == "gaming" else ("hobbies", norm)
    return [_raw("plays", _say(subj, f"plays {disp}{_freq(rest)}"), norm, key=slugify(norm), entities=ents,
                 category=cat, tags=tags, confidence=0.8)]


def _prefer(subj: dict[str, Any], rest: str, rather: bool, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    rest = rest.strip()
    if re.match(r"^not\b", rest, re.I):
        return []
    m = re.match(r"^to\s+(.+)$", rest, re.I)
    if m and not rather:
        o = _clean(m.group(1), adverbials=False)
        mc = _COMPARE.match(o)
        if mc:
            return _prefer_pair(subj, mc.group(1), mc.group(2), ctx)
        if not o or o.split()[0].lower() in _PRONOUN_OBJ:
            return []
        return [_raw("prefers", _say(subj, f"prefers to {_third(o)}"), o, key=slugify(_norm_obj(o)),
                     category=_category(_gerund(o.split()[0]).lower()), tags=("preferences",), confidence=0.8)]
    mc = _COMPARE.match(rest) or (None if rather else re.match(r"^(.+?)\s+to\s+(.+)$", rest, re.I))
    if mc:
        return _prefer_pair(subj, mc.group(1), mc.group(2), ctx)
    if rather:
        return []
    out = []
    for disp, norm in _objects(rest, split=False):
        cat = _category(norm)
        out.append(_raw("prefers", _say(subj, f"prefers {disp}"), norm, key=slugify(norm), category=cat,
                        entities=_thing_entities(disp, norm, cat), tags=("preferences", cat or ""), confidence=0.8))
    return out
