"""Extraction's phrase readers: folding and clause splitting, time cues, cleaning a phrase, reading a place,
an organisation, a job, a name or an age, and building a raw item. Pure; the rule handlers call these.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable, Mapping

from agents.core.memory import normalize_text
from agents.core.rules.extraction_lexicon import (
    ACRONYMS, FOODS, GAMES, MUSIC, NAME_STOP, NUMWORDS, OCCUPATIONS, _DOUBLE_FINAL, _GENERIC_PLACE_WORDS,
    _ORG_REJECT, _PLACE_REJECT, _PRONOUN_OBJ, _QUALITY, _TRANS,
)
from agents.core.rules.extraction_patterns import (
    _ARTICLE, _BLOCKS_REST, _CLAUSE_SPLIT, _CONDITIONAL, _CUES, _CUT, _CUT_LIST, _FOLDS, _FREQ, _JOB_OK_WORD,
    _LEAD, _NAME_RX, _ORG_CUT, _PLACE_COMMA, _PLACE_CUT, _PLAN_CUT, _QSTART, _RHETORIC, _SENT_SPLIT, _TAG_Q, _TAIL,
    _TAIL_ADV, _THE_PROPER, _TRAIL_JUNK,
)
from domain import entities as _entities
from domain.entities import KINSHIP, PET_WORDS


slugify = lru_cache(maxsize=8192)(_entities.slugify)


@lru_cache(maxsize=4096)
def _entity_cached(kind: str, word: str, name: str | None, meta: tuple | None) -> dict[str, Any] | None:
    if kind == "kin":
        return _entities.kin_entity(word, name)
    if kind == "pet":
        return _entities.pet_entity(word, name)
    return _entities.make_entity(word, name or "", dict(meta or ()))


def _copy(e: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if e is None else {**e, "metadata": dict(e["metadata"])}


def kin_entity(word: str, name: str | None = None) -> dict[str, Any] | None:
    return _copy(_entity_cached("kin", word, name, None))


def pet_entity(word: str, name: str | None = None) -> dict[str, Any] | None:
    return _copy(_entity_cached("pet", word, name, None))


def make_entity(entity_type: str, name: str, metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
    if metadata and any(isinstance(v, (list, dict)) for v in metadata.values()):
        return _entities.make_entity(entity_type, name, metadata)
    return _copy(_entity_cached("make", entity_type, name, tuple(sorted((metadata or {}).items()))))


def _trigger(pattern: str) -> str:
    """A literal every match of a fold contains (a cheap pre-test before running the regex)."""
    if "'?" in pattern or "|" in pattern:
        return ""
    if "'" in pattern:
        return "'"
    m = re.search(r"[a-z&]{2,}", pattern.replace("\\b", " ").replace("\\s", " "))
    return m.group(0)[:2] if m else ""


_FOLD_TRIGGERS = [(_trigger(rx.pattern), rx, rep) for rx, rep in _FOLDS]


def _fold(text: str) -> str:
    t = text.translate(_TRANS)
    low = t.lower()
    for trig, rx, rep in _FOLD_TRIGGERS:
        if trig in low:
            t = rx.sub(rep, t)
    return " ".join(t.split())


def _cue(text: str) -> str | None:
    best: tuple[int, str] | None = None
    for rx, lt in _CUES:
        m = rx.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), lt)
    return best[1] if best else None


def _strip_lead(c: str) -> tuple[str, bool]:
    """-> (clause without lead-ins and rhetorical frames, whether a rhetorical frame was removed)."""
    rhetorical = False
    for _ in range(4):
        before = c
        c = _LEAD.sub("", c)
        m = _RHETORIC.match(c)
        if m and m.end() < len(c):
            c = c[m.end():]
            rhetorical = True
        if c == before:
            break
    return c.strip(" ,.-:"), rhetorical


def _clauses(text: str) -> list[dict[str, Any]]:
    """Sentences split into clauses: {"text", "question", "carry", "blocked"}."""
    out: list[dict[str, Any]] = []
    for sent in _SENT_SPLIT.split(text):
        if not sent or not sent.strip(" .,!?"):
            continue
        sent = sent.strip()
        ends_q = sent.rstrip(" \"')*").endswith("?") and not _TAG_Q.search(sent)
        pieces: list[tuple[str, bool]] = []
        pos, carry = 0, False
        for m in _CLAUSE_SPLIT.finditer(sent):
            if m.start() > pos:
                pieces.append((sent[pos:m.start()], carry))
            carry = m.group("carry") is not None
            pos = m.end()
        pieces.append((sent[pos:], carry))
        blocked_rest = False
        n = len(pieces)
        for i, (raw, carry) in enumerate(pieces):
            c, rhetorical = _strip_lead(raw.strip())
            c = _TAG_Q.sub("", c).rstrip(" ?!.,")
            if not c:
                continue
            conditional = bool(_CONDITIONAL.match(c))
            question = bool(_QSTART.match(c)) or (ends_q and i == n - 1 and not rhetorical)
            out.append({"text": c, "raw": raw.strip(), "question": question, "carry": carry,
                        "blocked": blocked_rest or conditional})
            if _BLOCKS_REST.match(c):
                blocked_rest = True
    return out


def _clean(s: str, *, cut: bool = True, commas: bool = True, adverbials: bool = True) -> str:
    s = s.strip()
    if cut:
        m = (_CUT if commas else _CUT_LIST).search(s)
        if m:
            s = s[:m.start()]
    for _ in range(3):
        s = _TRAIL_JUNK.sub("", s).strip()
        s2 = _TAIL.sub("", s)
        if adverbials:
            s2 = _TAIL_ADV.sub("", s2)
        if s2 == s:
            break
        s = s2
    return _TRAIL_JUNK.sub("", s).strip()


def _norm_obj(s: str) -> str:
    return _ARTICLE.sub("", normalize_text(s)).strip()


def _display(s: str) -> str:
    """Proper-noun display: a phrase typed all lower case is title-cased ("new york" -> "New York")."""
    s = " ".join(s.split())
    if not s or not s.islower():
        return s
    small = {"of", "de", "la", "the", "and", "da", "del", "von", "van", "on", "upon", "in", "at", "y"}
    out = []
    for i, w in enumerate(s.split()):
        if w in ACRONYMS:
            out.append(w.upper())
        elif i and w in small:
            out.append(w)
        else:
            out.append("-".join(p[:1].upper() + p[1:] for p in w.split("-")))
    return " ".join(out)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


def _third(s: str) -> str:
    """First-person possessives in an object -> third person ("my job" -> "their job")."""
    return re.sub(r"\b(?:my|our)\b", "their", re.sub(r"\b(?:me|myself)\b", "them", s, flags=re.I), flags=re.I)


def _gerund(v: str) -> str:
    w = v.lower()
    if w.endswith("ing") and len(w) > 4:
        return v
    if w in _DOUBLE_FINAL:
        return v + v[-1] + "ing"
    if w.endswith("ie"):
        return v[:-2] + "ying"
    if w.endswith("e") and not w.endswith(("ee", "oe", "ye")) and len(w) > 2:
        return v[:-1] + "ing"
    return v + "ing"


def _is_name_word(w: str, allow_lower: bool = False) -> bool:
    if not w or len(w) < 2 or w.casefold() in NAME_STOP or w.casefold() in KINSHIP or w.casefold() in PET_WORDS:
        return False
    core = w.replace("'", "").replace("-", "")
    if not core.isalpha():
        return False
    if w[0].isupper():
        return not (len(w) > 3 and w.isupper() and w.casefold() in ACRONYMS)
    return allow_lower


def _take_name(s: str, *, allow_lower: bool = False, max_words: int = 3) -> tuple[str | None, str]:
    """A leading personal name ("Priya Sharma lives ..." -> ("Priya Sharma", " lives ...")."""
    words: list[str] = []
    pos = 0
    for m in _NAME_RX.finditer(s):
        gap = s[pos:m.start()]
        if gap.strip() or len(words) >= max_words:
            break
        w = m.group()
        if not _is_name_word(w, allow_lower=allow_lower and not words):
            break
        if words and not w[0].isupper():
            break
        words.append(w)
        pos = m.end()
    if not words:
        return None, s
    return " ".join(words), s[pos:]


def _age(s: str) -> int | None:
    s = s.strip().lower()
    if s.isdigit():
        n = int(s)
    else:
        parts = re.split(r"[\s-]+", s)
        if not parts or any(p not in NUMWORDS for p in parts) or len(parts) > 2:
            return None
        n = sum(NUMWORDS[p] for p in parts)
    return n if 1 <= n <= 120 else None


def _role_subject(role: str, name: str | None) -> dict[str, Any] | None:
    role_l = " ".join(role.casefold().replace("-", " ").split())
    pet = pet_entity(role_l)
    if pet is not None and role_l in PET_WORDS:
        ent = pet_entity(role_l, name) if name else pet
        species = pet["metadata"]["species"]
        label = f"{species.capitalize()} {name}" if name else species.capitalize()
        return {"ref": ent["ref"], "label": label, "kind": "pet", "entity": ent, "role_ref": pet["ref"],
                "role": role_l, "name": name}
    kin = kin_entity(role_l)
    if kin is None and role_l.endswith("s"):
        kin = kin_entity(role_l[:-1])
    if kin is None:
        return None
    ent = kin_entity(role_l, name) if name else kin
    canon = kin["ref"].split(":", 1)[1]
    rdisp = canon.replace("_", " ").capitalize()
    label = f"{rdisp} {name}" if name else rdisp
    return {"ref": ent["ref"], "label": label, "kind": "person", "entity": ent, "role_ref": kin["ref"],
            "role": canon, "name": name}


SELF: dict[str, Any] = {"ref": "self", "label": None, "kind": "self", "entity": None}


def _say(subj: dict[str, Any], phrase: str) -> str:
    """Third-person content: "lives in Berlin" -> "Lives in Berlin" / "Mom lives in Berlin"."""
    phrase = " ".join(phrase.split())
    if subj["kind"] == "self":
        return _cap(phrase)
    return f"{subj['label']} {phrase}"


def _article(w: str) -> str:
    return "an" if w[:1].lower() in "aeiou" and not w.lower().startswith(("uni", "use", "eu")) else "a"


def _raw(relation: str, content: str, obj: str, *, key: str | None = None, entities: Iterable | None = None,
         category: str | None = None, confidence: float = 0.85, tags: Iterable[str] = (),
         subject: dict[str, Any] | None = None, domain: str | None = None) -> dict[str, Any]:
    return {"relation": relation, "content": content, "object": _norm_obj(obj) or normalize_text(obj),
            "key": key, "entities": [e for e in (entities or ()) if e], "category": category,
            "confidence": confidence, "tags": list(tags), "subject": subject, "domain": domain}


def _ent(etype: str, name: str, meta: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    name = _ARTICLE.sub("", name.strip())
    if not name or not slugify(name) or len(name.split()) > 5:
        return None
    try:
        return make_entity(etype, _display(name), meta)
    except ValueError:
        return None


def _place(s: str) -> str | None:
    m = _PLACE_COMMA.match(s.strip())
    if m:
        return m.group(0)
    p = _clean(s)
    p = _PLACE_CUT.sub("", p)
    p = _clean(p, cut=False)
    if not p or len(p.split()) > 5:
        return None
    low = p.lower()
    first = low.split()[0]
    if low in _PLACE_REJECT or first in _PRONOUN_OBJ or first in {"my", "your", "his", "her", "their", "a", "an",
                                                                  "not", "no", "some", "every"}:
        return None
    if any(ch.isdigit() for ch in p) and not re.search(r"[A-Za-z]{3}", p):
        return None
    return _display(p)


def _generic(org: str) -> bool:
    """An article phrase that names no particular organisation (no entity is made for it): "the library",
    "the Hospital"; "the Open University" names one (a capitalised word that is not a generic place word)."""
    if not _ARTICLE.match(org):
        return False
    caps = [w.lower() for w in org.split()[1:] if w[:1].isupper()]
    return not (_THE_PROPER.match(org) and org.split()[-1][:1].isupper()
                and any(w not in _GENERIC_PLACE_WORDS for w in caps))


def _org(s: str) -> tuple[str | None, str]:
    """-> (organisation display, text after it)."""
    s = s.strip()
    m = _ORG_CUT.search(s)
    head, tail = (s[:m.start()], s[m.start():]) if m else (s, "")
    org = _clean(head)
    if not org or len(org.split()) > 5:
        return None, tail
    low = org.lower()
    if low in _ORG_REJECT or low.split()[0] in _PRONOUN_OBJ and not (low.startswith("the ") and not _generic(org)) \
            or low[0].isdigit() or low.split()[0] in {"not", "no", "nothing", "my", "your"}:
        return None, tail
    return (_display(org) if not _ARTICLE.match(org) else org), tail


def _job(s: str) -> tuple[str | None, str]:
    """A leading occupation phrase ("a senior software engineer at X" -> ("senior software engineer",
    " at X")); None unless it ends in an occupation word and is no judgement ("a terrible cook")."""
    s = _ARTICLE.sub("", s.strip())
    toks = list(re.finditer(r"[\w'/&+-]+", s))
    for k, m in enumerate(toks[:6]):
        w = m.group().lower()
        base = w[:-1] if w.endswith("s") and w[:-1] in OCCUPATIONS and w not in OCCUPATIONS else w
        if base in OCCUPATIONS:
            pre = [t.group() for t in toks[:k]]
            if any(p.lower() in _QUALITY or not _JOB_OK_WORD.match(p) or p.lower() in NAME_STOP and
                   p.lower() not in {"single"} for p in pre):
                return None, s
            if base == "cook" and k == 0 and s[m.end():].strip().lower().startswith(("for", "at home")):
                return None, s
            job = s[toks[0].start():m.end()] if pre else m.group()
            return job, s[m.end():]
        if w in {"at", "for", "with", "in", "from", "and", "who", "by", "of", "to", "on"}:
            return None, s
    return None, s


def _category(norm: str) -> str | None:
    words = norm.split()
    if not words:
        return None
    last = words[-1]
    if norm in FOODS or last in FOODS or " ".join(words[-2:]) in FOODS or norm.endswith(("food", "cuisine")):
        return "food"
    if norm in GAMES or " ".join(words[:2]) in GAMES:
        return "gaming"
    if norm in MUSIC or last in MUSIC or " ".join(words[-2:]) in MUSIC:
        return "music"
    if words[0].endswith("ing") and len(words[0]) > 4 and words[0] not in {"everything", "nothing", "something",
                                                                          "anything", "morning", "evening",
                                                                          "thing", "king", "spring", "ring"}:
        return "activity"
    return None


def _thing_entities(disp: str, norm: str, category: str | None) -> list[dict[str, Any]]:
    base = _ARTICLE.sub("", disp)
    if re.match(r"^(?:my|our|their)\s+", base, re.I):
        word = re.sub(r"^(?:my|our|their)\s+", "", base, flags=re.I)
        ent = kin_entity(word) or (pet_entity(word) if word.lower() in PET_WORDS else None)
        if ent:
            return [ent]
        base = word
    if category == "food":
        return [e for e in (_ent("food", base.lower()), make_entity("topic", "food")) if e]
    if category == "gaming":
        meta = {"aliases": [_display(base)]} if norm not in {"gaming", "video games", "games"} else {}
        return [make_entity("hobby", "gaming", meta)]
    if category == "activity":
        return [e for e in (_ent("hobby", base.lower()),) if e]
    if len(norm.split()) <= 4:
        e = _ent("topic", base.lower())
        return [e] if e else []
    return []


def _introduce(ctx: dict[str, Any], subj: dict[str, Any] | None, name: str | None) -> None:
    if subj is None:
        return
    intro = ctx.setdefault("introduced", [])
    if all(s["ref"] != subj["ref"] for s in intro):
        intro.append(subj)
    if name:
        ctx.setdefault("names", {})[name.casefold()] = subj


def _plan_target(s: str) -> str:
    return _clean(_PLAN_CUT.sub("", _clean(s)), cut=False)


def _cue_text(clause: str) -> str:
    for rx, _ in _CUES:
        m = rx.search(clause)
        if m:
            return " " + m.group(0).lower()
    return ""


def _freq(s: str) -> str:
    m = _FREQ.search(s or "")
    return f" {m.group(0).lower()}" if m else ""
