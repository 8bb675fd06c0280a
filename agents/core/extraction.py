"""Immediate (inline) rules-based extraction of facts and preferences from one chat message
(seed 000 §3.1, seed 002 §4.2). Pure, standard library only, no model; precompiled regexes over
short clauses, no nested unbounded quantifiers (p99 well under 10 ms per message).

extract(message, *, role="user", scope="contact", known=None) -> list of candidate items:
    {"memoryType": "fact"|"preference", "content": third-person text ("Lives in Berlin", "Mom lives in
     Chennai", "Doesn't like talking about politics"), "relation": a stable name (RELATIONS),
     "subject": "self" or an entity ref ("pet:bruno", "person:mom", "pet:dog"), "object": the
     normalized object (lower case, accents folded, leading article dropped: "berlin",
     "software engineer", "tea over coffee", "29"), "memoryKey", "entities": entity dicts
     (domain/entities.py), "entityRefs", "topics": lowercase tags, "lifetime": "1d"|"3d"|"7d"|
     "30d"|"permanent", "confidence": 0..1}
    `known` (optional, ref -> entity record) lets new refs resolve to known spelling/ASR variants
    (entities.canonical_ref).

How a message is read
    role != "user" -> [] (the assistant's words are not facts about the contact). Low-content messages
    ("lol", "ok") -> []. The text is folded (curly quotes, contractions: "I'm" -> "I am", "don't" ->
    "do not", "wanna" -> "want to"), split into sentences and clauses (at ", and I", "but my", ", do you",
    "if ..."; "I love biryani but hate spicy food" carries the subject "I" into "hate spicy food").
    Discourse lead-ins ("btw", "haha", "hey", "so") and rhetorical frames ("did I tell you", "you know",
    "I told you that") are dropped. Each clause is then, in order:
      1. avoidance ("don't talk about X", "please don't bring up X", "can we not talk about X",
         "I'd rather not discuss X", "I don't like talking about X") and interest ("can we talk about X?",
         "tell me more about X", "let's talk about X") requests; these are read even in questions;
      2. skipped when it is a question (starts with an interrogative or auxiliary, or is the last clause of
         a sentence ending in "?" without a tag like "right?"), a hypothetical or wish ("if I had a dog",
         "I wish", "would", "might", "maybe", "used to", "want to", "thinking of"), or a conditional clause;
      3. self statements ("my name is", "call me", "my birthday is", "my favorite X is Y", "my hometown
         is", "<Name> is my <kin|pet>"), then SUBJECT + PREDICATE. Subjects: "I"/"we" (self); a dropped
         subject before a first-person verb ("just moved to Toronto", "love biryani"); "my/our
         [adjective] <kin|pet word> [Name]" ("my sister Priya", "my dog Bruno", "my mom"); "he/she/they"
         when exactly one person or pet was introduced earlier in the same message; a name introduced
         earlier in the message. A named pet or person ("my dog Bruno ...", "my dog's name is Bruno")
         also yields the implied possession (has_pet dog / family_member sister / partner wife / knows_person
         best friend), unless the message says they died or are gone.
         Predicates are anchored right after the subject (only adverbs like "really", "also", "still"
         may intervene), which is what makes negation safe: "I do not have a dog", "I am not from Mumbai"
         match no fact pattern; the negative preference patterns ("do not like", "hate", "cannot stand",
         "am not a fan of") are explicit.
    A pronoun object ("I'm visiting her") is resolved to the one person or pet introduced earlier in the
    message that it can name ("My sister is sick, I'm visiting her" -> "Is visiting their sister"), else
    the item is dropped (OBJECT_PRONOUNS); the episode keeps the message.
    Emotional states are no identity: "I'm tired/so happy/fine/sorry/going to the gym" match nothing,
    because identity complements must be a name (capitalised, not a common word; a lowercase name only
    after a greeting, "hi im arjun"), an age, an occupation from the lexicon, or an identity word from a
    lexicon (vegetarian, introvert, married, a demonym, ...).

Where the rules live (agents/core/rules/; each table an ordered tuple of engine.rule(name, compiled
pattern, handler, example) read by engine.first: the first rule that does not decline answers)
    extraction_requests.py  REQUEST_RULES (call me, avoidance, interest), BUSINESS_RULES (tenant scope)
    extraction_rules.py     SELF_RULES, PREFERENCE_RULES, TENANT_RULES, PREDICATE_RULES
    extraction_subjects.py  SUBJECT_RULES
    extraction_complement.py COMPLEMENT_RULES ("I am ..."), SIMPLE_RULES (one part of "I am A, B and C")
    extraction_phrases.py / _objects.py / _has.py  the readers handlers call (a place, an org, a job, "I have")
    extraction_patterns.py / _lexicon.py  the compiled patterns and the word lists
This module keeps the pipeline: clauses, the order the tables are read in, and finishing the items.

Content is third person: self facts drop the subject ("Is 29 years old", "Has a golden retriever named
Bruno", "Works at Infosys as a software engineer"); other subjects lead with their label ("Mom lives in
Chennai", "Sister Priya lives in Pune", "Dog Bruno is 3 years old"). The user's filler is dropped ("I
love biryani so much lol" -> "Loves biryani"; "I love eating biryani" -> "Loves biryani").

memoryKey (the dedup key layer, agents/core/dedup.py: same key + same content = reinforcement, same key
+ different content = the newer supersedes the older)
    single-valued relations (SINGLE_VALUED: name, preferred_name, age, birthday, lives_in, from,
    grew_up_in, born_in, work_field, studies, relationship_status,
    partner, nationality, pet_name, breed, current_location, favorite_<thing>, business_type,
    business_location, business_hours, business_name, ...) key on the relation only:
        "<type>|<subject>|<relation>"      "fact|self|lives_in", "fact|pet:dog|pet_name"
    so "I live in Mumbai" then "I moved to Berlin" share "fact|self|lives_in", and "my dog's name is
    Bruno" then "my dog's name is actually Max" share "fact|pet:dog|pet_name" (a name relation keys on
    the role entity, pet:dog or person:wife, never on the named entity, so renaming supersedes).
    multi-valued relations key on a polarity-free DOMAIN and the object's slug:
        "<type>|<subject>|<domain>|<object key>"
    likes/dislikes/prefers (one object) share the domain "<category>_taste" (category from the object:
    food_taste for food and drink, activity_taste for "-ing" activities, music_taste, gaming_taste, else
    taste), so "I love biryani" and "I don't like biryani anymore" share
    "preference|self|food_taste|biryani" (the newer supersedes) while "I love pizza" gets
    "preference|self|food_taste|pizza". avoid_topic/interest/not_interested share "talk_about"
    ("preference|self|talk_about|politics"). "I prefer X over Y" keys on the sorted pair
    ("preference|self|prefers|coffee~tea") so the reversed comparison supersedes it. has_pet keys on the
    species ("fact|self|has_pet|dog": "I have a dog" then "I have a golden retriever named Bruno"
    supersedes; two dogs named in two messages collide - documented limitation), family_member on the
    canonical kin word, owns/hobby/event/plan/identity/allergy/health/learning/project/business_offering on
    the object's slug. Different relations or different subjects never share a key.
    works_at, job_title and studies_at (REPLACEABLE) are multi-valued too ("fact|self|works_at|siemens":
    a weekend job beside a nursing job is a second memory), and an item of theirs from a message that
    says it replaces (REPLACE_CUE: "I now work at", "I quit", "I left", "I joined", "I'm now a", "no
    longer", "moved") carries `replaces`: "fact|self|works_at", which the dedup layer uses to supersede
    the slot's other values (and a memory stored under that older single-valued key); else None.

Lifetime (seed 003)
    time cue in the clause            lifetime
    tonight, today, this evening/morning/afternoon, right now     1d
    tomorrow, this weekend, in a few/couple of days               3d
    this week, next week, next weekend, on <weekday>, soon        7d
    this month, next month, in a few weeks, this/next year        30d
    Durable facts (name, age, where one lives or works, pets, family, ...) and preferences are
    "permanent" whatever the cue ("I moved to Berlin this month" is still permanent). Time-bound
    relations take the cue, else a default: plan 7d (a plan needs a cue to be extracted at all), event
    7d, current_location 1d, health_state 3d, working_on 30d. avoid_topic/interest with a cue are
    temporary ("I don't want to talk about work today" -> 1d), else permanent.

Scope
    "contact" (default): personal facts, preferences, avoidance, interest.
    "tenant": a business owner talking about the business: business facts ("we sell", "our business is",
    "we are a bakery", "we're located in", "we're open 9 to 5") and the owner's preferences ("I don't want
    posts longer than 800 words"); personal facts are not extracted in this scope.

Quality (ops/bench_extraction.py, tests/data/extraction_labelled.jsonl): on the held-out split, written
after the rules and never used to tune them, precision 1.00 / recall 0.87; every nothing-to-extract
message of the set yields nothing.

Known limitations
    - no coreference beyond one message: a bare name from an earlier message is no subject ("Bruno is 3"
      alone yields nothing); `known` only merges spelling variants of refs;
    - past tense yields nothing ("I used to live in Mumbai", "I worked at TCS"), and a negated fact is no
      retraction ("I don't live in Berlin anymore" yields nothing; the old memory stays until superseded);
    - presuppositions inside questions are skipped ("Is it weird that I like pineapple on pizza?");
    - gapping is not resolved ("my mom lives in Chennai and my dad in Madurai": only mom);
    - idiomatic preferences are missed ("coffee is life", "movies are my thing");
    - lower-case names are read only in introductions; a capitalised word after "I'm" that is not in the
      stop list is read as a name ("I'm Batman");
    - has_pet keys on the species, so two dogs described in two messages supersede each other;
    - phrase extents are heuristic ("I'm from a small village in Punjab" is missed, "I like playing chess
      online" drops "online").
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from agents.core.memory import is_low_content, normalize_text
from agents.core.rules.extraction_complement import COMPLEMENT_RULES, _complement  # noqa: F401 (re-exported)
from agents.core.rules.extraction_has import _implied
from agents.core.rules.extraction_lexicon import (  # noqa: F401 (RELATIONS re-exported)
    CUE_TEMPORARY, GREETING, MULTI_DOMAIN, OBJECT_PRONOUNS, PREFERENCE_RELATIONS, RELATIONS, REPLACEABLE,
    REPLACE_CUE, SINGLE_VALUED, TEMPORAL_DEFAULT, _POSSESSION, _REL_TAGS,
)
from agents.core.rules.extraction_objects import _name_items
from agents.core.rules.extraction_patterns import _ADV, _GONE, _HYPO
from agents.core.rules.extraction_phrases import (
    SELF, _clauses, _clean, _cue, _fold, _introduce, _norm_obj, _take_name, slugify,
)
from agents.core.rules.extraction_requests import (  # noqa: F401 (the tables re-exported for their tests)
    BUSINESS_RULES, REQUEST_RULES, _requests, _tenant,
)
from agents.core.rules.extraction_rules import (  # noqa: F401 (the tables re-exported for their tests)
    PREDICATE_RULES, PREFERENCE_RULES, SELF_RULES, TENANT_RULES, _predicate, _self_statements,
)
from agents.core.rules.extraction_subjects import SUBJECT_RULES, _subject  # noqa: F401 (re-exported)
from domain.entities import canonical_ref


MAX_CHARS = 2000   # longer messages are read up to here
MAX_CLAUSES = 40   # and up to this many clauses (bounds the latency of pathological input)
LIFETIMES = ("1d", "3d", "7d", "30d", "permanent")


def memory_type_of(relation: str) -> str:
    return "preference" if relation in PREFERENCE_RELATIONS or relation.startswith("favorite_") else "fact"


def memory_key(memory_type: str, subject: str, relation: str, object_key: str | None = None,
               category: str | None = None, domain: str | None = None) -> str:
    """The dedup key (module docstring): single-valued relations key on the relation, multi-valued ones
    on a polarity-free domain plus the object key (a slug; "a~b", sorted, for a comparison, whose domain
    is "prefers")."""
    if relation in SINGLE_VALUED or relation.startswith("favorite_"):
        return f"{memory_type}|{subject}|{relation}"
    domain = domain or MULTI_DOMAIN.get(relation, relation)
    if domain == "taste":
        domain = f"{category}_taste" if category else "taste"
    return f"{memory_type}|{subject}|{domain}|{object_key or ''}"


def _lifetime(relation: str, cue: str | None) -> str:
    if relation in TEMPORAL_DEFAULT:
        return cue or TEMPORAL_DEFAULT[relation]
    if relation in CUE_TEMPORARY and cue:
        return cue
    return "permanent"


def _finish(raw: dict[str, Any], subj: dict[str, Any], cue: str | None, known: Mapping[str, Any] | None
            ) -> dict[str, Any]:
    s = raw.get("subject") or subj
    relation = raw["relation"]
    mtype = memory_type_of(relation)
    ents: list[dict[str, Any]] = []
    if s.get("entity"):
        ents.append(s["entity"])
    ents.extend(raw["entities"])
    subject_ref = s["ref"]
    if known:
        remap: dict[str, str] = {}
        fixed = []
        for e in ents:
            new = canonical_ref(e["ref"], known, e.get("metadata"))
            if new != e["ref"]:
                remap[e["ref"]] = new
                e = {**e, "ref": new, "displayName": (known.get(new) or {}).get("displayName") or e["displayName"]}
            fixed.append(e)
        ents = fixed
        subject_ref = remap.get(subject_ref, subject_ref)
        if subject_ref == s["ref"] and subject_ref != "self" and subject_ref not in remap.values():
            subject_ref = canonical_ref(subject_ref, known)
    seen: dict[str, dict[str, Any]] = {}
    for e in ents:
        if e["ref"] in seen:
            old = seen[e["ref"]]
            seen[e["ref"]] = {**old, "metadata": {**e.get("metadata", {}), **old.get("metadata", {})}}
        else:
            seen[e["ref"]] = e
    key_obj = raw["key"] if raw["key"] is not None else slugify(raw["object"]) or raw["object"]
    key = memory_key(mtype, subject_ref, relation, key_obj, raw["category"], raw.get("domain"))
    tags: list[str] = []
    for t in (*_REL_TAGS.get(relation, ()), *raw["tags"]):
        t = " ".join(str(t).lower().replace("_", " ").split())
        if t and t not in tags:
            tags.append(t)
    if s["kind"] == "pet" and "pets" not in tags:
        tags.append("pets")
    if s["kind"] == "person" and "family" not in tags and "relationships" not in tags:
        tags.append("family")
    return {"memoryType": mtype, "content": raw["content"], "relation": relation, "subject": subject_ref,
            "object": raw["object"], "memoryKey": key, "entities": list(seen.values()),
            "entityRefs": list(seen), "topics": tags[:6], "lifetime": _lifetime(relation, cue),
            "confidence": round(float(raw["confidence"]), 2), "replaces": None}


def _resolve_pronoun(raw: dict[str, Any], subj: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any] | None:
    """The item with a pronoun object resolved from the message, unchanged without one, None if unresolved."""
    words = raw["object"].split()
    found = next((w for w in words if w in OBJECT_PRONOUNS and re.search(rf"\b{w}\b", raw["content"])), None)
    if found is None:
        return raw
    kinds, not_roles = OBJECT_PRONOUNS[found]
    own = (raw.get("subject") or subj)["ref"]
    cands = [e for e in ctx.get("introduced", []) if e["kind"] in kinds and e["ref"] != own
             and e.get("role") not in not_roles]
    if len(cands) != 1:
        return None
    who = cands[0]
    their = f"their {who['label'][:1].lower()}{who['label'][1:]}"
    obj = " ".join(their if w == found else w for w in words)
    head, _, rest = raw["content"].partition(" ")  # the subject label or verb leads; never rewritten
    content = f"{head} " + re.sub(rf"\b{found}\b", their, rest, count=1)
    return {**raw, "content": content, "object": _norm_obj(obj) or normalize_text(obj),
            "key": slugify(_norm_obj(obj)) if raw["key"] is not None else None,
            "entities": [*raw["entities"], who["entity"]]}


def extract(message: str, *, role: str = "user", scope: str = "contact",
            known: Mapping[str, Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Candidate fact/preference memories of one message (see the module docstring)."""
    if role != "user" or not isinstance(message, str) or not message.strip():
        return []
    text = message[:MAX_CHARS]
    if len(text) < 200 and is_low_content(text):
        return []
    folded = _fold(text)
    ctx: dict[str, Any] = {"scope": "tenant" if scope == "tenant" else "contact",
                           "greeting": bool(GREETING.match(folded)), "introduced": [], "names": {},
                           "last_subj": None}
    out: list[dict[str, Any]] = []
    keys: set[tuple[str, str]] = set()
    gone = bool(_GONE.search(folded))
    replacing = bool(REPLACE_CUE.search(folded))
    for index, cl in enumerate(_clauses(folded)[:MAX_CLAUSES]):
        c = cl["text"]
        ctx["clause_index"] = index
        cue = _cue(cl["raw"])
        raws: list[dict[str, Any]] | None = _requests(c, ctx)
        subj = SELF
        if raws is None:
            if cl["question"] or cl["blocked"] or _HYPO.search(c):
                ctx["last_subj"] = None
                continue
            if ctx["scope"] == "tenant":
                raws = _tenant(c, ctx)
            if raws is None:
                raws = _self_statements(c, ctx, index) if ctx["scope"] == "contact" else None
            if raws is None:
                s, rest, name_value = _subject(c, ctx, cl["carry"])
                if s is None:
                    ctx["last_subj"] = None
                    continue
                subj = s
                if s["kind"] != "self" and ctx["scope"] == "tenant":
                    continue
                if name_value is not None:
                    name, _ = _take_name(_ADV.sub("", _clean(name_value)), allow_lower=True)
                    raws = (_name_items(s, name, 0.9, ctx) + _implied(s, name, ctx)) if name else []
                else:
                    raws = _predicate(s, rest, ctx, cl["raw"])
                    if s["kind"] != "self" and s.get("name"):
                        raws = raws + _implied(s, s["name"], ctx)
                ctx["last_subj"] = s
                if s["kind"] != "self":
                    _introduce(ctx, s, s.get("name"))
        _emit(raws, subj, cue, known, ctx, gone, replacing, keys, out)
    return out


def _emit(raws: list[dict[str, Any]], subj: dict[str, Any], cue: str | None,
          known: Mapping[str, Mapping[str, Any]] | None, ctx: dict[str, Any], gone: bool, replacing: bool,
          keys: set[tuple[str, str]], out: list[dict[str, Any]]) -> None:
    """Finish one clause's raw items into `out` (pronouns resolved, lifetimes and keys set, duplicates
    by (memoryKey, content) dropped; a departed pet's or person's possession relations skipped)."""
    for raw in raws:
        if not raw.get("object") or gone and raw["relation"] in _POSSESSION:
            continue
        raw = _resolve_pronoun(raw, subj, ctx)
        if raw is None:
            continue
        item = _finish(raw, subj, cue, known)
        if replacing and item["relation"] in REPLACEABLE:
            item["replaces"] = item["memoryKey"].rsplit("|", 1)[0]
        k = (item["memoryKey"], item["content"])
        if k in keys:
            continue
        keys.add(k)
        out.append(item)
