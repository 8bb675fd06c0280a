"""Extraction's reading of "I have ...": a pet, a relative, a possession, an event or a health condition, with
the names after it ("a dog named Bruno", "two sisters, Ana and Mia"). Pure.
"""
from __future__ import annotations

from typing import Any

from agents.core.rules.extraction_lexicon import (
    COUNTS, PARTNER_KIN, SOCIAL_KIN, _DETS, _GROUP_KIN, _HAS_LEX, _HAS_MAXLEN, _NEG_DETS, _REMAINDER_OK,
)
from agents.core.rules.extraction_patterns import (
    _CUT, _NAMED_EXPLICIT, _NAMES_AFTER, _NAME_LIST_SPLIT, _PIECE_SPLIT, _TOKEN, _TRAIL_JUNK,
)
from agents.core.rules.extraction_phrases import (
    SELF, _article, _clean, _cue, _introduce, _is_name_word, _raw, _role_subject, _say, _third, kin_entity,
    pet_entity, slugify,
)


def _plural(word: str, n: int) -> str:
    if n <= 1:
        return word
    if word.endswith(("s", "sh", "ch", "x")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _singular(word: str) -> str:
    w = word.lower()
    if w in _HAS_LEX:
        return w
    for suf, rep in (("ies", "y"), ("es", ""), ("s", "")):
        if w.endswith(suf) and w[: len(w) - len(suf)] + rep in _HAS_LEX:
            return w[: len(w) - len(suf)] + rep
    if w == "children":
        return "children"
    return w


def _has(subj: dict[str, Any], np: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for piece in _PIECE_SPLIT.split(np):
        out.extend(_has_piece(subj, piece.strip(), ctx))
    return out


def _has_head(low: list[str]) -> tuple[str, str, int, int] | None:
    """The lexicon word a possession phrase is about, within its first six words: (head, kind, end, count),
    or None (none, or a determiner before it that negates or does not fit)."""
    count = 1
    head = kind = None
    k_end = 0
    for i in range(min(len(low), 6)):
        for n in range(min(_HAS_MAXLEN, len(low) - i), 0, -1):
            phrase = " ".join(low[i:i + n]).replace("-", " ")
            cand = phrase if phrase in _HAS_LEX else None
            if cand is None and n == 1:
                sg = _singular(phrase)
                cand = sg if sg in _HAS_LEX else None
            if cand is None and n > 1:
                sg = " ".join(low[i:i + n - 1] + [_singular(low[i + n - 1])]).replace("-", " ")
                cand = sg if sg in _HAS_LEX else None
            if cand:
                head, kind, k_end = cand, _HAS_LEX[cand], i + n
                break
        if head:
            pre = low[:i]
            if any(p in _NEG_DETS for p in pre) or any(p not in _DETS and not p.isdigit() and
                                                       p not in COUNTS for p in pre):
                if kind not in {"event", "acute", "chronic"} or any(p in _NEG_DETS for p in pre):
                    return None
            for p in pre:
                if p in COUNTS:
                    count = max(count, COUNTS[p])
                elif p.isdigit():
                    count = max(count, int(p))
            if low[i] != head.split()[0] and low[i].endswith("s") and count == 1 and kind in {"pet", "kin"}:
                count = 2
            return head, kind, k_end, count
    return None


def _names_after(rest: str) -> list[str]:
    """The names after a pet or a relative ("a dog named Bruno", "two sisters, Ana and Mia")."""
    names: list[str] = []
    m = _NAMES_AFTER.match(rest)
    if m:
        explicit = bool(_NAMED_EXPLICIT.match(rest))
        for nm in _NAME_LIST_SPLIT.split(m.group(1)):
            if nm and _is_name_word(nm, allow_lower=explicit):
                names.append(nm if nm[0].isupper() else nm.capitalize())
            elif names or not explicit:
                break
    return names


def _has_pet(subj: dict[str, Any], head: str, said: str, count: int, names: list[str], ctx: dict[str, Any]
             ) -> list[dict[str, Any]]:
    ent0 = pet_entity(head)
    if ent0 is None:
        return []
    species = ent0["metadata"]["species"]
    ents = [pet_entity(head, n) for n in names] or [ent0]
    noun = _plural(said, count)
    qty = {1: _article(noun), 2: "two", 3: "three", 4: "four", 5: "five"}.get(count, str(count))
    named = f" named {' and '.join(names)}" if names else ""
    content = _say(subj, f"{'has' if subj['kind'] != 'self' else 'has'} {qty} {noun}{named}")
    for e, n in zip(ents, names):
        _introduce(ctx, _role_subject(head, n), n)
    if not names and count == 1:
        _introduce(ctx, _role_subject(head, None), None)
    return [_raw("has_pet", content, said, key=species.replace(" ", "_"),
                 entities=ents, tags=("pets", species), confidence=0.9)]


def _has_kin(subj: dict[str, Any], head: str, said: str, count: int, names: list[str], ctx: dict[str, Any]
             ) -> list[dict[str, Any]]:
    ent0 = kin_entity(head)
    if ent0 is None:
        return []
    canon = ent0["ref"].split(":", 1)[1]
    if canon in {"crush"}:
        return []
    ents = [kin_entity(head, n) for n in names] or [ent0]
    rel = "partner" if canon in PARTNER_KIN else ("knows_person" if canon in SOCIAL_KIN else "family_member")
    noun = said if count == 1 or said in _GROUP_KIN else _plural(said, count)
    qty = {1: _article(noun), 2: "two", 3: "three", 4: "four", 5: "five"}.get(count, str(count))
    if said in _GROUP_KIN | {"in-laws"} and count == 1:
        qty = ""
    named = f" named {' and '.join(names)}" if names else ""
    content = _say(subj, f"has {qty} {noun}{named}")
    for n in names:
        _introduce(ctx, _role_subject(head, n), n)
    return [_raw(rel, content, canon.replace("_", " "), key=canon, entities=ents,
                 tags=("family" if rel == "family_member" else "relationships",), confidence=0.85)]


def _has_thing(subj: dict[str, Any], piece: str, head: str, kind: str) -> list[dict[str, Any]]:
    """A possession, an event, a chronic condition or a passing ailment."""
    if kind in {"event", "acute"}:
        m = _CUT.search(piece)
        text = _TRAIL_JUNK.sub("", piece[:m.start()] if m else piece).strip()
    else:
        text = _clean(piece)
    if kind == "own":
        return [_raw("owns", _say(subj, f"has {_third(text)}"), head, key=slugify(head), tags=("possessions",),
                     confidence=0.75)]
    if kind == "event":
        return [_raw("event", _say(subj, f"has {_third(text)}"), head, key=slugify(head), tags=("plans",),
                     confidence=0.75)]
    if kind == "chronic":
        return [_raw("health_condition", _say(subj, f"has {_third(text)}"), head, key=slugify(head),
                     tags=("health",), confidence=0.8)]
    return [_raw("health_state", _say(subj, f"has {_third(text)}"), head.removeprefix("the "),
                 key=slugify(head.removeprefix("the ")), tags=("health",), confidence=0.75)]


def _has_piece(subj: dict[str, Any], piece: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    toks = list(_TOKEN.finditer(piece))
    if not toks:
        return []
    low = [t.group().lower() for t in toks]
    if low[0] in _NEG_DETS:
        return []
    found = _has_head(low)
    if found is None:
        return []
    head, kind, k_end, count = found
    rest = piece[toks[k_end - 1].end():]
    rest_toks = _TOKEN.findall(rest)
    if rest_toks and kind in {"pet", "kin", "own"}:
        first = rest_toks[0]
        if first.lower() not in _REMAINDER_OK and not (first[0].isupper() and _is_name_word(first)) \
                and _cue(rest) is None:
            return []  # a compound noun: "a dog walker", "a sister company"
    said_words = [t.group().lower() for t in toks[k_end - len(head.split()):k_end]]
    said_words[-1] = _singular(said_words[-1]) if _singular(said_words[-1]) in _HAS_LEX or \
        " ".join(said_words[:-1] + [_singular(said_words[-1])]) in _HAS_LEX else said_words[-1]
    said = " ".join(said_words)
    if kind == "pet":
        return _has_pet(subj, head, said, count, _names_after(rest), ctx)
    if kind == "kin":
        return _has_kin(subj, head, said, count, _names_after(rest), ctx)
    return _has_thing(subj, piece, head, kind)


def _implied(subj: dict[str, Any], name: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    """"my dog Bruno ..." / "my sister Priya ..." / "my dog's name is Bruno": the contact has them."""
    done = ctx.setdefault("implied", set())
    role = subj.get("role") or ""
    if not name or not role:
        return []
    if subj["kind"] == "pet":
        ent = pet_entity(role, name)
        if ent is None or ent["ref"] in done:
            return []
        done.add(ent["ref"])
        species = ent["metadata"]["species"]
        return [_raw("has_pet", f"Has {_article(role)} {role} named {name}", role, key=species.replace(" ", "_"),
                     entities=[ent], tags=("pets", species), subject=SELF, confidence=0.75)]
    ent = kin_entity(role, name)
    if ent is None or ent["ref"] in done:
        return []
    done.add(ent["ref"])
    canon = role
    rel = "partner" if canon in PARTNER_KIN else ("knows_person" if canon in SOCIAL_KIN else "family_member")
    word = canon.replace("_", " ")
    return [_raw(rel, f"Has {_article(word)} {word} named {name}", word, key=canon, entities=[ent],
                 tags=("family" if rel == "family_member" else "relationships",), subject=SELF, confidence=0.7)]
