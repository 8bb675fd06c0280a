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
from typing import Any, Callable, Iterable, Mapping

from functools import lru_cache

from domain import entities as _entities
from domain.entities import KINSHIP, PET_WORDS, canonical_ref

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
from agents.core.memory import is_low_content, normalize_text
from agents.core.rules import engine
from agents.core.rules.extraction_lexicon import (  # noqa: F401 (re-exported)
    SINGLE_VALUED, MULTI_DOMAIN, REPLACEABLE, REPLACE_CUE, PREFERENCE_RELATIONS, RELATIONS, TEMPORAL_DEFAULT,
    CUE_TEMPORARY, _words, OCCUPATIONS, STUDENT_LEVELS, IDENTITY_NOUNS, ZODIAC, IDENTITY_ADJ, REL_STATUS,
    EMPLOYMENT, DEMONYMS, PARTNER_KIN, SOCIAL_KIN, POSSESSIONS, EVENTS, HEALTH_CHRONIC, HEALTH_ACUTE, FOODS,
    GAMES, MUSIC, ACTIVITIES_DO, INDUSTRIES, SCHOOL_WORDS, BUSINESS_WORDS, ACRONYMS, COMPOUND_OBJECTS,
    NAME_STOP, GREETING, NUMWORDS, COUNTS,
)

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


# ============================================================================ text folding
_TRANS = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'", "“": '"', "”": '"', "—": " - ",
                        "–": " - ", "…": "... ", "\u00a0": " "})
_FOLDS = [(re.compile(p, re.I), r) for p, r in (
    (r"\bi\s*'\s*m\b", "I am"), (r"\bim\b(?=\s+[a-z0-9])", "I am"), (r"\bi\s*'\s*ve\b", "I have"),
    (r"\bive\b(?=\s+(?:got|been|a|an|two|three|\d))", "I have"), (r"\bi\s*'\s*d\b", "I would"),
    (r"\bi\s*'\s*ll\b", "I will"), (r"\bwon'?t\b", "will not"), (r"\bcan'?t\b", "cannot"),
    (r"\b(do|does|did|is|are|was|were|have|has|had|could|would|should|must|need)n'?t\b", r"\1 not"),
    (r"\bwe\s*'\s*re\b", "we are"), (r"\bwe\s*'\s*ve\b", "we have"), (r"\bthey\s*'\s*re\b", "they are"),
    (r"\byou\s*'\s*re\b", "you are"), (r"\bhe\s*'\s*s\b", "he is"), (r"\bshe\s*'\s*s\b", "she is"),
    (r"\bit\s*'\s*s\b", "it is"), (r"\bthat\s*'\s*s\b", "that is"), (r"\bname\s*'\s*s\b", "name is"),
    (r"\blet\s*'\s*s\b", "let us"), (r"\b(what|where|who|how)\s*'\s*s\b", r"\1 is"),
    (r"\bwanna\b", "want to"), (r"\bgonna\b", "going to"), (r"\bgotta\b", "got to"), (r"\bkinda\b", "kind of"),
    (r"\bsorta\b", "sort of"), (r"\bu\b", "you"), (r"\bur\b", "your"), (r"\b(?:pls|plz|plss)\b", "please"),
    (r"\bluv\b", "love"), (r"\bfav\b", "favorite"), (r"\bfave\b", "favorite"), (r"\bfavourite\b", "favorite"),
    (r"\bcoz\b|\bcuz\b|\bbcoz\b|\bbc\b", "because"), (r"\s*&\s*", " and "), (r"\btmrw\b|\btmr\b", "tomorrow"),
    (r"\bi\b", "I"),
)]
# abbreviations whose period ends no sentence and cuts no phrase ("St. Mary's hospital", "Dr. Rao", "Acme
# Ltd. in Pune", "J. K. Rowling" - a single capital is an initial); each spelling is a fixed-width lookbehind
ABBREVIATIONS = ("St", "Dr", "Mr", "Mrs", "Ms", "Mt", "Jr", "Sr", "Inc", "Co", "Ltd", "Prof", "Ft", "e.g", "i.e")
_NOT_ABBREV = "".join(f"(?<!\\b{re.escape(a)}\\.)" for a in
                      dict.fromkeys(v for a in ABBREVIATIONS for v in (a, a.lower(), a.upper())))
_NOT_ABBREV += r"(?<!\b(?-i:[A-Z])\.)"
_SENT_SPLIT = re.compile(r"(?<=[.!?])" + _NOT_ABBREV + r"\s+|(?<=[!?])(?=[A-Za-z])|\n+|\s*;\s*|\s+(?=\()|\)\s*"
                         r"|(?<=[\u2600-\u27bf\U0001F300-\U0001FAFF])\s+(?=[A-Za-z])")
_TAG_Q = re.compile(r"(?:,?\s*(?:right|ok|okay|yeah|yk|you know|lol|haha|huh|no|eh|innit|correct|remember|"
                    r"did I not|do I not|is it not|am I not|you see))\s*\?+\s*$", re.I)


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


# ============================================================================ clauses
_SUBJ_AHEAD = r"(?:i|my|our|we|he|she|they|you|me)\b"
_Q_AHEAD = (r"(?:what|where|when|who|why|how|which|do|does|did|are|is|can|could|would|will|have|has|"
            r"and you|what about|how about)\b")
_CARRY_VERBS = (r"(?:(?:also|really|totally|absolutely|still|just|even|kind of|truly|now)\s+){0,2}"
                r"(?:love|loves|like|likes|hate|hates|enjoy|enjoys|adore|adores|dislike|dislikes|do not|"
                r"does not|cannot|prefer|prefers|work|works|live|lives|have|has|am|play|plays|study|studies|"
                r"moved|grew|turned|own|owns|detest|despise|never|go|goes|sell|offer|make|bake|serve|deliver)\b")
_CLAUSE_SPLIT = re.compile(
    rf"(?P<carry>\s*,?\s+(?:and|but)\s+(?={_CARRY_VERBS}))"
    rf"|\s*[,:]\s*(?:and\s+|but\s+|so\s+|then\s+|plus\s+|also\s+)?(?={_SUBJ_AHEAD}|{_Q_AHEAD})"
    rf"|\s+(?:and|but|so|plus|although|though|while|whereas|because|since|then|also|yet)\s+"
    rf"(?=(?:also\s+|then\s+|now\s+)?{_SUBJ_AHEAD})"
    rf"|\s+(?:and|but|or)\s+(?=(?:do|does|did|are|is|can|could|would|will|have|has)\s+you\b)"
    rf"|\s*,?\s+(?=(?:if|unless|when|whenever|until|whether|even though|in case)\s)"
    rf"|\s+-\s+", re.I)
_LEAD = re.compile(
    r"^(?:(?:and|but|so|also|plus|now|then|oh|ohh|well|yeah|yea|yes|yep|no|nah|nope|ok|okay|anyway|anyways|"
    r"btw|by the way|lol|lmao|haha\w*|hehe\w*|honestly|actually|basically|hey+|hi+|hello+|heya|hiya|yo|um+|"
    r"uh+|hmm+|tbh|fyi|just so you know|for the record|fun fact|as you know|like I said|I mean|oh and|"
    r"and also|speaking of which|good morning|good evening|good night|sup|dear|bro|dude|man|oops|ah+|wow|"
    r"omg|ugh|alright|right|namaste|hola|guess what|you know what|ngl|not going to lie|funnily enough|"
    r"of course|sure|true|exactly|same|also also|anyhow|so yeah|oh yeah|oh btw|update|quick update|"
    r"lastly|finally|firstly|first of all|secondly|plus|again|to be honest|truth is|the thing is|"
    r"in fact|seriously|literally|personally|for me|as for me|me personally|thanks|thank you|on weekends|"
    r"on the weekends?|at night|in the evenings?|in the mornings?|every (?:day|morning|evening|night|weekend)|"
    r"these days|nowadays|usually|mostly|sometimes|most days|after work|lately|recently|currently|"
    r"right now|at the moment|tonight|today|tomorrow|this weekend|next week|next month|this week|this month|"
    r"these past few (?:days|weeks|months)|since last year|for the past few (?:years|months)|in general)"
    r"(?=[\s,:;!.\-]|$)[\s,:;!.\-]*)+", re.I)
_RHETORIC = re.compile(
    r"^(?:did I (?:ever )?(?:tell|mention to) you|did I (?:ever )?mention|did you know|you know|remember|"
    r"I (?:think I )?(?:told|mentioned to) you|I (?:think I )?mentioned|I forgot to (?:tell you|mention)|"
    r"I should (?:mention|tell you|say)|I must (?:say|admit)|I have to (?:say|admit)|I (?:will|would|can) "
    r"(?:admit|say)|let me tell you|I can tell you|I want you to know|just so you know|as I said|like I said|"
    r"you should know|I guess|I suppose|I think|I feel like|I believe|I realised|I realized|I found out)"
    r"(?: that)?(?=[\s,:]|$)[\s,:]*", re.I)
_QSTART = re.compile(r"^(?:what|where|when|who|whom|whose|why|how|which|do|does|did|are|is|am|was|were|can|"
                     r"could|would|will|should|shall|have|has|had|may|might|wanna|any idea|is it|and you|"
                     r"what about|how about|you)\b", re.I)
_CONDITIONAL = re.compile(r"^(?:if|unless|when|whenever|until|whether|even though|in case|suppose|supposing|"
                          r"imagine|what if|even if|assuming|pretend|let us say|say)\b", re.I)
_BLOCKS_REST = re.compile(r"^(?:if|unless|suppose|supposing|imagine|what if|even if|assuming|pretend|let us say|"
                          r"in case)\b", re.I)
_HYPO = re.compile(
    r"\b(?:if|unless|whether|wish|wished|wishing|would(?!\s+(?:rather|prefer|like to (?:talk|chat|discuss)|"
    r"love to (?:talk|chat)))|could|might|maybe|perhaps|probably|suppose|supposing|imagine|imagining|pretend|"
    r"pretending|hypothetically|someday|one day|"
    r"(?<!getting )(?<!get )(?<!got )(?<!be )(?<!am )(?<!is )(?<!are )used to|"
    r"dream of|dreaming of|dreaming about|hope to|hoping to|"
    r"hopefully|plan to|planning to|planning on|thinking of|thinking about|considering|want to|wants to|"
    r"wanted to|should|if only|ever since|was(?!\s+born)|were|(?<!have )(?<!has )had|did|pretty sure I|not sure|"
    r"guess I|bet I|pretend|fake|fictional|in my dreams?|in the game|my character)\b", re.I)

_CUES = [(re.compile(p, re.I), lt) for p, lt in (
    (r"\b(?:tonight|tonite|today|this (?:evening|morning|afternoon|arvo)|right now|rn|at the moment|"
     r"later today|in an hour|in a few hours|for now)\b", "1d"),
    (r"\b(?:tomorrow|this weekend|day after tomorrow|in a (?:few|couple(?: of)?) days|in (?:two|2|three|3) days|"
     r"over the weekend|this saturday|this sunday)\b", "3d"),
    (r"\b(?:this week|next week|next weekend|this coming week|in a week|(?:on|this|next) (?:monday|tuesday|"
     r"wednesday|thursday|friday|saturday|sunday)|soon|later this week)\b", "7d"),
    (r"\b(?:this month|next month|in a (?:few|couple(?: of)?) weeks|in (?:two|2|three|3|four|4) weeks|"
     r"later this month|this year|next year|this (?:summer|winter|spring|fall|autumn)|next (?:summer|winter|"
     r"spring|fall|autumn))\b", "30d"),
)]


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


# ============================================================================ phrases and objects
_CUT = re.compile(
    r"\s*(?:[,;:()\[\]\"!?]|\." + _NOT_ABBREV + r"(?:\s|$)|\s-\s|\s(?:e\.g|i\.e)\.|"
    r"\b(?:because|since|but|although|though|which|who|whom|whose|"
    r"where|while|whereas|so that|so I|when|whenever|if|unless|until|as long as|lol|lmao|haha\w*|hehe\w*|"
    r"tbh|btw|imo|ngl|honestly|and I|and my|and we|and you|and it|and he|and she|and they|and then|"
    r"you know|I guess|I think|I suppose|I mean|anyway|right)\b)", re.I)
_TAIL = re.compile(
    r"(?:\s+(?:so much|so so much|a lot|a ton|very much|too|as well|also|really|anymore|any more|these days|"
    r"nowadays|at all|now|right now|currently|lately|still|though|actually|and stuff|and all|and things|"
    r"or something|or so|etc|in general|generally|so bad|like crazy|for sure|every day|everyday|"
    r"all the time|xd|ig|man|dude|bro|ok|okay|yeah|please|again|more|most|the most|haha|lol|even more|"
    r"more and more|personally|myself|to be honest|anyways|anyway|ever|obviously|of course|"
    r"tonight|today|tomorrow|this week|next week|this weekend|this month|next month|for now|with me|"
    r"with you|here|there|just|only|sometimes|a little|a bit|quite a bit))+\s*$", re.I)
_TAIL_ADV = re.compile(
    r"(?:\s+(?:online|outdoors|indoors|at home|alone|with (?:my )?friends|on (?:the )?weekends|at night|"
    r"in the (?:evenings?|mornings?)|after work|on my phone|in my free time|in my spare time|whenever I can|"
    r"when I can|every (?:day|week|weekend|morning|evening|night)))+\s*$", re.I)
_TRAIL_JUNK = re.compile(r"[^\w)'+#&%$]+$")
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.I)
_PRONOUN_OBJ = frozenset("""it this that these those them him her me us you yourself yourselves everything
nothing anything something everyone anybody everybody someone somebody one what how when where why who
which the way such so too its your ur ya yours there here stuff things thing lot much more any some
whatever whoever the fact whenever if""".split())
_REJECT_OBJ = frozenset({"something else", "anything else", "other things", "other stuff", "it all",
                         "this one", "that one", "the idea", "your idea", "the same", "it more",
                         "that idea", "what you said", "this conversation", "talking to you",
                         "chatting with you", "this chat", "you guys", "the way you"})


_CUT_LIST = re.compile(_CUT.pattern.replace("[,;:()", "[;:()", 1), re.I)


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


_DOUBLE_FINAL = frozenset("run swim jog shop chat plan stop sit get dig skip hop rap drum bat spin hit "
                          "cut set put win".split())


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


_NAME_RX = re.compile(r"[^\W\d_][\w'-]*")


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


_AGE_RX = re.compile(r"^(\d{1,3}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|"
                     r"three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|"
                     r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
                     r"(?:\s*(?:years?|yrs?|y/?o|yo)(?:\s+old)?|\s+(?:months?)\s+old)?"
                     r"(?:\s+(?:now|this year|already|lol|haha|btw|actually|and counting|today|next month))*\s*$",
                     re.I)


# ============================================================================ subjects
_NOT_SUBJECT_ROLES = frozenset({"mil", "pop", "pops", "mate", "pal", "mam", "maa", "folks", "mrs", "missus",
                                "kid", "child", "baby", "lab", "indie", "persian", "mouse", "boxer dog",
                                "significant other", "crush", "mutt", "class", "classes"})
_ROLE_ALT = "|".join(
    r"[\s-]+".join(re.escape(w) for w in k.split())
    for k in sorted((set(KINSHIP) | set(PET_WORDS)) - _NOT_SUBJECT_ROLES, key=lambda k: (-len(k), k)))
_ADJ = (r"(?:little|younger|older|elder|big|baby|twin|new|old|lovely|sweet|crazy|dear|late|beloved|cute|"
        r"adorable|step|eldest|youngest|oldest|only|own|two|three|rescue|adopted|precious|fluffy|lazy|"
        r"black|white|grumpy|silly|favorite|favourite|other|middle|ex|future|current)")
_ROLE_SUBJ = re.compile(rf"^(?:my|our)\s+(?P<adj>(?:{_ADJ}\s+){{0,2}})(?P<role>{_ROLE_ALT})(?:s|es)?(?![\w-])", re.I)
_SELF_SUBJ = re.compile(r"^(?:I|we)\b\s*", re.I)
_PRON_SUBJ = re.compile(r"^(?:he|she|they)\b\s*", re.I)
_ADV = re.compile(r"^(?:(?:also|really|absolutely|totally|truly|just|still|currently|now|actually|honestly|"
                  r"literally|basically|kind of|sort of|mostly|mainly|usually|personally|definitely|seriously|"
                  r"recently|finally|officially|originally|even|so|too|already|simply|genuinely|pretty much|"
                  r"lowkey|low key|highkey|deeply|super|generally|both|all|obviously|secretly|happily|"
                  r"proudly|always|lately|right now|at the moment|these days|nowadays|for some reason)\s+){0,4}",
                  re.I)
_THIRD_VERB = re.compile(r"^(?:is|has|lives|works|loves|likes|hates|enjoys|adores|prefers|plays|studies|does|"
                         r"goes|stays|turned|was|got|just|also|really|still|moved|comes|grew|teaches|runs|owns|"
                         r"can|cannot|will|would|never|absolutely|totally)\b", re.I)


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


_IMPLICIT_I = re.compile(r"^(?:(?:just|recently|finally|also|still|currently|now)\s+)?(?:moved|relocated|live|love|hate|"
                         r"adore|work|started|got|have|turned|grew\s+up|study|play|prefer|living|working|studying|"
                         r"based|originally\s+from|from)\b", re.I)


def _subject(c: str, ctx: dict[str, Any], carry: bool) -> tuple[dict[str, Any] | None, str, str | None]:
    """-> (subject, rest of the clause, name-statement value for "my dog's name is X")."""
    if carry and ctx.get("last_subj") is not None:
        return ctx["last_subj"], c, None
    m = _SELF_SUBJ.match(c)
    if m:
        return SELF, c[m.end():], None
    m = _ROLE_SUBJ.match(c)
    if m:
        role, rest = m.group("role"), c[m.end():]
        nm = re.match(r"^\s*'?s?\s+name\s+is\s+(.+)$|^\s+is\s+(?:called|named)\s+(.+)$", rest, re.I)
        if nm:
            subj = _role_subject(role, None)
            return subj, "", (nm.group(1) or nm.group(2)) if subj else None
        if re.match(r"^\s*'s?\b", rest):
            return None, rest, None  # "my mom's cooking ..."
        name = None
        r2 = re.sub(r"^\s*,?\s*", "", rest)
        cand, after = _take_name(r2, allow_lower=True)
        if cand:
            after2 = re.sub(r"^\s*,?\s*", "", after)
            if cand[0].isupper() or _THIRD_VERB.match(after2):
                name, rest = cand, " " + after2
        subj = _role_subject(role, name)
        if subj is not None and not m.group("adj").strip().lower().startswith(("ex", "future")):
            return subj, rest, None
        return None, rest, None
    m = _PRON_SUBJ.match(c)
    if m:
        intro = ctx.get("introduced") or []
        if len(intro) == 1:
            return intro[0], c[m.end():], None
        return None, c, None
    m = re.match(r"^([^\W\d_][\w'-]*)\s+", c)
    if m and m.group(1).casefold() in ctx.get("names", {}):
        return ctx["names"][m.group(1).casefold()], c[m.end():], None
    m = _IMPLICIT_I.match(c)
    if m and not re.search(r"\byou(?:r|rs|rself)?\b", c, re.I) and ctx["scope"] == "contact":
        # a dropped subject ("just moved to Toronto", "love biryani"): the speaker
        first = re.sub(r"^(?:(?:just|recently|finally|also|still|currently|now)\s+)", "", c, flags=re.I)
        if re.match(r"^(?:living|working|studying|based|originally\s+from|from)\b", first, re.I):
            return SELF, "am " + first, None
        return SELF, c, None
    return None, c, None


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


# ============================================================================ objects: places, orgs, jobs
_PLACE_CUT = re.compile(r"\s+(?:for|since|with|as|near|and|but|now|currently|these days|from|to|by|after|"
                        r"before|until|on|where|because|working|studying|right now|at the moment|all my life|"
                        r"my whole life|forever|alone|together|temporarily|permanently|again|though|too|"
                        r"lately|nowadays|this|next|last|tonight|today|tomorrow|originally|in (?:a|an|the)\s)\b.*$", re.I)
_PLACE_REJECT = frozenset("""denial fear my head peace hope the moment the present the past a bubble my car my
room hell the dark my dreams a dream sin harmony the shadows luxury misery poverty comfort a box bed the city
here there town the area this area the same city the same place a house an apartment a flat a hostel
a dorm my parents house a van a tent the suburbs the countryside my own world my own head my mind
""".split("\n")) | frozenset({"denial", "fear", "peace", "hope", "hell", "luxury", "misery", "poverty", "comfort",
                              "bed", "here", "there", "town", "harmony", "sin", "love", "pain", "debt", "trouble",
                              "shock", "awe", "the moment", "my head", "my car", "my room", "a bubble",
                              "the present", "the past", "my dreams", "the dark", "the same place", "the area",
                              "the city", "my mind", "my own world", "the matrix", "a simulation", "the future",
                              "the past", "another planet", "space", "mars", "the moon", "the weekends"})


_PLACE_COMMA = re.compile(r"^(?-i:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2},\s*[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)?)(?![\w'])")


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


_ORG_CUT = re.compile(r"\s+(?:as|since|for|in|and|but|now|currently|where|because|with|doing|on|from|until|till|"
                      r"back|full[\s-]time|part[\s-]time|remotely|these days|right now|for now|over|at|"
                      r"this|next|last|today|tonight|tomorrow|every|lately|again|though|too|while|which|who|"
                      r"after|before|during|hybrid)\b.*$", re.I)
_ORG_REJECT = frozenset({"home", "night", "nights", "the moment", "a living", "free", "fun", "money", "peanuts",
                         "minimum wage", "a while", "hours", "the weekend", "weekends", "night shift", "night shifts",
                         "myself", "me", "you", "it", "them", "him", "her", "us", "work", "a bit", "the most",
                         "long hours", "the same company", "the same place", "nothing", "the day", "a change",
                         "a cause", "my dad", "my mom", "my father", "my mother", "my family", "my parents"})


# "the Open University", "the Royal London Hospital", "the University of Edinburgh": a capitalised name
# after "the" is a proper name, not a generic place ("the library", "the hospital" stay no organisation)
_THE_PROPER = re.compile(r"^the\s+(?-i:[A-Z][\w'&.-]*)(?:\s+(?:(?-i:[A-Z][\w'&.-]*)|of|and|for|&|de|in))*$", re.I)


_GENERIC_PLACE_WORDS = frozenset(SCHOOL_WORDS) | frozenset(BUSINESS_WORDS) | _words("""
hospital library office bank gym mall clinic factory church temple mosque station airport hotel lab center centre
museum zoo park farm warehouse market department firm agency plant site branch hq headquarters uni""")


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


_QUALITY = frozenset("""really very good bad terrible great decent amazing horrible awful lousy pretty quite such
huge big total complete bit little lot horrible shitty crappy proper real true wannabe aspiring former ex
retired failed struggling wanna be future""".split())
_JOB_OK_WORD = re.compile(r"^(?:[a-z][a-z'/-]*|[A-Z]{2,5}s?|[A-Z][a-z]+|\d+(?:st|nd|rd|th))$")


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


# ============================================================================ "I have ..."
_HAS_LEX: dict[str, str] = {}
for _w in PET_WORDS:
    if _w not in {"mouse", "lab", "indie", "persian", "boxer dog"}:
        _HAS_LEX[_w] = "pet"
for _w in KINSHIP:
    if _w not in {"crush", "pop", "pops", "mate", "pal", "mam", "maa", "mil", "folks", "mrs", "missus", "class"}:
        _HAS_LEX.setdefault(_w, "kin")
for _lex, _kind in ((POSSESSIONS, "own"), (EVENTS, "event"), (HEALTH_CHRONIC, "chronic"), (HEALTH_ACUTE, "acute")):
    for _w in _lex:
        _HAS_LEX.setdefault(_w.replace("-", " "), _kind)
_HAS_MAXLEN = max(len(k.split()) for k in _HAS_LEX)
_DETS = {"a", "an", "one", "two", "three", "four", "five", "six", "some", "several", "few", "couple", "of",
         "my", "our", "the", "another", "new", "2", "3", "4", "5", "6", "twin", "twins", "lots", "many", "multiple",
         "upcoming", "big", "important", "huge", "little", "small", "cute", "beautiful", "lovely", "old",
         "young", "older", "younger", "elder", "baby", "adorable", "rescue", "adopted", "sweet", "3-year-old",
         "golden", "black", "white", "brown", "fluffy", "tiny", "crazy", "lazy", "grumpy", "wonderful",
         "amazing", "awesome", "super", "really", "very", "pet", "stupid", "silly", "annoying", "final", "doctor's",
         "dentist's", "job", "first", "second", "2nd", "1st", "third", "second-year", "big", "massive",
         "chronic", "mild", "severe", "bad", "terrible", "awful", "slight", "bit", "nasty", "horrible"}
_NEG_DETS = {"no", "zero", "none", "not", "never", "any", "without", "fake", "imaginary", "stuffed", "toy",
             "hot", "plush", "robot", "virtual", "pretend", "dream"}
_REMAINDER_OK = {"named", "called", "name", "who", "that", "which", "and", "with", "at", "in", "on", "for",
                 "from", "to", "back", "whose", "too", "also", "now", "as", "here", "there", "lol", "haha",
                 "btw", "but", "so", "at", "since", "tonight", "today", "tomorrow", "this", "next", "soon",
                 "and", "of", "living", "staying", "who's", "whom", "already", "together", "though", "i", "right",
                 "by", "just", "finally", "again", "after", "before", "around", "about", "over", "coming", "later",
                 "her", "his", "their", "she", "he", "they", "we", "my", "it", "its", "who", "whos"}
_NAMES_AFTER = re.compile(r"^\s*,?\s*(?:(?:named|called|name is|whose name is|by the name of|(?:her|his|their|its)\s+"
                          r"names?\s+(?:is|are))\s+)?"
                          r"([^\W\d_][\w'-]*(?:\s*(?:,|and)\s*[^\W\d_][\w'-]*){0,3})", re.I)
_PIECE_SPLIT = re.compile(r"\s+and\s+(?=(?:an?|one|two|three|four|\d+|some|my)\s)|,\s*(?:and\s+)?"
                          r"(?=(?:an?|one|two|three|four|\d+|some)\s)", re.I)
_TOKEN = re.compile(r"[\w'-]+")


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


_NAMED_EXPLICIT = re.compile(r"^\s*,?\s*(?:named|called|name is|whose name is|by the name of|"
                             r"(?:her|his|their|its)\s+names?\s+(?:is|are))\s", re.I)
_NAME_LIST_SPLIT = re.compile(r"\s*(?:,|\band\b)\s*")


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


_GROUP_KIN = frozenset({"children", "kids", "parents", "siblings", "grandparents", "twins", "in laws"})


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


def _introduce(ctx: dict[str, Any], subj: dict[str, Any] | None, name: str | None) -> None:
    if subj is None:
        return
    intro = ctx.setdefault("introduced", [])
    if all(s["ref"] != subj["ref"] for s in intro):
        intro.append(subj)
    if name:
        ctx.setdefault("names", {})[name.casefold()] = subj


# ============================================================================ preferences
_POS = {"love": "loves", "loves": "loves", "adore": "adores", "adores": "adores", "like": "likes",
        "likes": "likes", "enjoy": "enjoys", "enjoys": "enjoys", "dig": "likes", "digs": "likes",
        "really like": "really likes", "am obsessed with": "is obsessed with", "cannot get enough of":
        "can't get enough of", "cannot live without": "can't live without", "worship": "loves",
        "support": "supports", "root for": "roots for", "am a fan of": "is a fan of"}
_NEG = {"hate": "hates", "hates": "hates", "dislike": "dislikes", "dislikes": "dislikes", "detest": "hates",
        "detests": "hates", "despise": "hates", "despises": "hates", "loathe": "hates", "loathes": "hates",
        "cannot stand": "can't stand", "can not stand": "can't stand", "cannot handle": "can't handle",
        "cannot tolerate": "can't tolerate", "cannot eat": "can't eat", "am not a fan of": "isn't a fan of",
        "never liked": "has never liked", "never really liked": "has never liked", "never like": "doesn't like",
        "never enjoy": "doesn't enjoy", "never enjoyed": "has never enjoyed"}
_POS_RX = re.compile(r"^(" + "|".join(sorted((re.escape(k) for k in _POS), key=len, reverse=True)) + r")\s+(.+)$",
                     re.I)
_NEG_RX = re.compile(r"^(?:(" + "|".join(sorted((re.escape(k) for k in _NEG), key=len, reverse=True)) +
                     r")|(?:do|does)\s+not\s+(?:really\s+|particularly\s+|even\s+|much\s+|actually\s+|"
                     r"totally\s+|like\s+)?(like|enjoy|love|care for|dig|eat|drink|do|fancy|support))\s+(.+)$",
                     re.I)
_COMPARE = re.compile(r"^(.+?)\s+(?:more than|better than|over|rather than|instead of|than)\s+(.+)$", re.I)
_TALKING = re.compile(r"^(?:talking|discussing|chatting|speaking|hearing|being asked|getting asked|"
                      r"thinking)\s+(?:about\s+)?(.+)$", re.I)
_CONSUME = re.compile(r"^(?:eating|having|drinking|trying|ordering)\s+(.+)$", re.I)
_VERBISH = frozenset("""stay go watch read play sleep eat drink cook walk run text call talk work study be do get
have listen write travel sit chill relax hang spend take stay walk drive bike swim dance sing paint draw code
write die wait cry fight lose win""".split())


_PEOPLE_WHO = re.compile(r"^((?:people|persons?|guys|men|women|folks|anyone|someone|those|drivers|kids)\s+"
                         r"(?:who|that)\s+[^,;.!?]+)", re.I)


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


# ============================================================================ "I am ..." complements
_COMP_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+(?:also\s+)?", re.I)
_FAN_OF = re.compile(r"^(?:a\s+|an\s+)?(?:(big|huge|massive|great|die[\s-]?hard|total|true|crazy|absolute)\s+)?"
                     r"fan\s+of\s+(.+)$", re.I)
_X_FAN = re.compile(r"^(?:a|an)\s+(?:(?:big|huge|massive|great|die[\s-]?hard|total|true)\s+)?"
                    r"([\w' -]{2,40}?)\s+fan$", re.I)
_INTO = re.compile(r"^(?:really\s+|so\s+|super\s+|very\s+|kind of\s+|totally\s+|big\s+|heavily\s+|deeply\s+)?"
                   r"(?:into|obsessed with|in love with|crazy about|passionate about|addicted to|hooked on|"
                   r"big on|mad about|nuts about)\s+(.+)$", re.I)
_INTERESTED = re.compile(r"^(?:really\s+|very\s+|super\s+|so\s+|quite\s+|also\s+)?(?:interested|curious)\s+"
                         r"(?:in|about)\s+(.+)$", re.I)
_ALLERGIC = re.compile(r"^(?:severely\s+|very\s+|super\s+|deathly\s+|mildly\s+)?allergic\s+to\s+(.+)$", re.I)
_NEG_COMP = re.compile(r"^(?:not|never|no longer)\s+(?:really\s+|much\s+of\s+|very\s+|that\s+|a\s+|too\s+|so\s+)?"
                       r"(?:(?:a\s+)?(?:big\s+|huge\s+|great\s+)?fan\s+of|into|big on|keen on|fond of|"
                       r"(interested|curious)\s+in|crazy about)\s+(.+)$", re.I)
_MOVING = re.compile(r"^(?:moving|relocating|shifting)\s+(?:back\s+)?to\s+(.+)$", re.I)
_GOING = re.compile(r"^(?:going|heading|flying|driving|travell?ing|off|leaving|taking a trip|going on a trip|"
                    r"going back)\s+(?:to|for)\s+(.+)$", re.I)
_VISITING = re.compile(r"^(?:visiting|meeting|seeing|catching up with|hosting)\s+(.+)$", re.I)
_BASED = re.compile(r"^(?:based|located|settled|living|staying|residing)\s+(?:in|out of|at)\s+(.+)$", re.I)
_IN_PLACE = re.compile(r"^(?:currently\s+|now\s+|still\s+)?(?:in|at)\s+(.+)$", re.I)
_WORKING = re.compile(r"^(?:working|employed|interning|an intern)\s+(at|for|with|as|on|in)\s+(.+)$", re.I)
_STUDYING = re.compile(r"^(?:studying|majoring in|doing (?:a|my)\s+(?:degree|masters|master's|bachelors|phd|"
                       r"mba|diploma|course)\s+in|pursuing(?: a)?(?: degree in)?)\s+(.+)$", re.I)
_LEARNING = re.compile(r"^(?:learning|teaching myself|taking (?:classes|lessons) in|"
                       r"practicing|practising|training for)\s+(.+)$", re.I)
# "learning (how) to play the cello" keeps the infinitive: "Is learning to play the cello", object "play the cello"
_LEARNING_TO = re.compile(r"^(?:learning|teaching myself)\s+(how\s+)?to\s+([a-z]+\b.*)$", re.I)
_GOING_TO_DO = re.compile(r"^going\s+to\s+(?!the\b|a\b|an\b|my\b)([a-z]+)\s+(.+)$", re.I)
_STATUS_WITH = re.compile(r"^((?:happily\s+|newly\s+|recently\s+)?(?:married|engaged|divorced|single|separated|"
                          r"widowed))(?:\s+with\s+(.+))?$", re.I)


_COMP_ADV = re.compile(r"^(?:(?:now|currently|still|also|officially|finally)\s+){1,2}", re.I)


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


_INTO_VERB = re.compile(r"^(?:\w+\s+)?(into|obsessed with|in love with|crazy about|passionate about|addicted to|"
                        r"hooked on|big on|mad about|nuts about)", re.I)


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


_MY_WHO = re.compile(r"^(?:my|our)\s+(.+)$", re.I)


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


_NOT_PLANS = frozenset({"be", "go", "have", "get", "try", "need", "die", "cry", "sleep", "kill", "lose", "miss",
                        "say", "tell", "ask", "do"})


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


_AWAY = re.compile(r"\b(?:on (?:a )?(?:vacation|holiday|trip|work trip|business trip)|for (?:work|a conference|"
                   r"a wedding|the weekend)|visiting)\b", re.I)
_NOW = re.compile(r"^(?:currently|now)\s", re.I)


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
    engine.rule("going", _GOING, _c_going, "going to Goa next week"),
    engine.rule("visiting", _VISITING, _c_visiting, "visiting my grandma this weekend"),
    engine.rule("going_to_do", _GOING_TO_DO, _c_going_to_do, "going to paint the kitchen tomorrow"),
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


_LEARN_TAIL = re.compile(r"\s+(?:with|every|since|at|from|because|for|this|next|so that|on weekends)\b.*$", re.I)


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


_PLAN_CUT = re.compile(r"\s+(?:for|with|to|tomorrow|tonight|today|this|next|on|in a|in two|in three|after|before|"
                       r"since|because|and|but|so|later|soon|over the)\b.*$", re.I)


def _plan_target(s: str) -> str:
    return _clean(_PLAN_CUT.sub("", _clean(s)), cut=False)


def _cue_text(clause: str) -> str:
    for rx, _ in _CUES:
        m = rx.search(clause)
        if m:
            return " " + m.group(0).lower()
    return ""


def _simple_complement(subj: dict[str, Any], p: str, ctx: dict[str, Any], *, first: bool
                       ) -> list[dict[str, Any]] | None:
    p = _TAIL.sub("", _TRAIL_JUNK.sub("", p.strip(" .!,"))).strip()
    if not p:
        return None
    m = _AGE_RX.match(p)
    if m:
        n = _age(m.group(1))
        lo = 12 if subj["kind"] == "self" else 0
        if n is None or n < lo or n > 110:
            return None
        months = "month" in p.lower()
        unit = ("month" if n == 1 else "months") if months else ("year" if n == 1 else "years")
        return [_raw("age", _say(subj, f"is {n} {unit} old"), str(n) + (" months" if months else ""),
                     tags=("age",), confidence=0.9)]
    m = re.match(r"^(?:originally\s+|also\s+)?from\s+(.+)$", p, re.I)
    if m:
        pl = _place(m.group(1))
        return [_raw("from", _say(subj, f"is from {pl}"), pl, entities=[_ent("place", pl)], tags=("location",),
                     confidence=0.85)] if pl else None
    low = _ARTICLE.sub("", p.lower())
    if subj["kind"] == "pet":
        bm = re.match(r"^(?:an?\s+)?(.+)$", p.lower())
        br = " ".join(bm.group(1).split()) if bm else ""
        if br in PET_WORDS:
            meta = pet_entity(br)
            ents = [dict(subj["entity"], metadata={**subj["entity"]["metadata"], **meta["metadata"]})] \
                if subj.get("entity") else []
            return [_raw("breed", _say(subj, f"is {_article(br)} {br}"), br, entities=ents, tags=("pets",),
                         confidence=0.85)]
    if low in ZODIAC and (p[:1].isupper() or _ARTICLE.match(p)):
        return [_raw("zodiac_sign", _say(subj, f"is {_article(low)} {_display(low)}"), low, tags=("identity",),
                     confidence=0.8)]
    if low in IDENTITY_NOUNS or low in IDENTITY_ADJ:
        art = f"{_article(low)} " if _ARTICLE.match(p) else ""
        return [_raw("identity", _say(subj, f"is {art}{low}"), low, key=slugify(low), tags=("identity",),
                     confidence=0.8)]
    if p.lower() in REL_STATUS:
        st = REL_STATUS[p.lower()]
        return [_raw("relationship_status", _say(subj, f"is {st}"), st, tags=("relationships",), confidence=0.85)]
    if p.lower() in EMPLOYMENT:
        st = EMPLOYMENT[p.lower()]
        return [_raw("employment_status", _say(subj, f"is {st}"), st, tags=("work",), confidence=0.85)]
    if low in DEMONYMS:
        return [_raw("nationality", _say(subj, f"is {_display(low)}"), low, tags=("identity",), confidence=0.75)]
    job = _job_items(subj, p, ctx, require_article=not first or subj["kind"] != "self")
    if job:
        return job
    if first and subj["kind"] in {"self", "person", "pet"}:
        return _bare_name(subj, p, ctx)
    return None


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


# ============================================================================ predicates
_P_BE = re.compile(r"^(?:am|is|are)\s+(.+)$", re.I)
_P_BUSINESS = re.compile(r"^(?:run|runs|own|owns|have|has|started|founded|opened|manage|manages)\s+"
                         r"(?:a|an|my own|our own|my|our|his|her|the family)\s+(.+)$", re.I)
_P_HAVE = re.compile(r"^(?:(?:have|has)\s+got|have|has|own|owns|got|adopted|bought|rescued|brought home|"
                     r"got myself)\s+(.+)$", re.I)
_P_LIVE = re.compile(r"^(?:live|lives|stay|stays|reside|resides)\s+(?:with\s+(?:my|our|his|her|their)\s+"
                     r"[\w'-]+(?:\s+[\w'-]+)?\s+)?(?:in|at)\s+(.+)$", re.I)
_P_MOVED = re.compile(r"^(?:moved|relocated|shifted)\s+(?:back\s+|over\s+|here\s+)?(?:to|into)\s+(.+)$", re.I)
_P_FROM = re.compile(r"^(?:come|comes|hail|hails)\s+(?:originally\s+)?from\s+(.+)$", re.I)
_P_GREW = re.compile(r"^(?:grew\s+up|was\s+raised|was\s+brought\s+up)\s+in\s+(.+)$", re.I)
_P_BORN = re.compile(r"^was\s+born\s+(?:and\s+(?:raised|brought\s+up)\s+)?(in|on)\s+(.+)$", re.I)
_P_WORK_AS = re.compile(r"^(?:work|works)\s+as\s+(.+)$", re.I)
_P_WORK_AT = re.compile(r"^(?:work|works)\s+(?:(?:night|day|late|early|evening|weekend|double)\s+shifts?\s+|"
                        r"part[\s-]time\s+|full[\s-]time\s+|remotely\s+|weekends\s+|nights\s+)?(?:at|for|with)\s+(.+)$",
                        re.I)
_P_WORK_IN = re.compile(r"^(?:work|works)\s+in\s+(.+)$", re.I)
_P_WFH = re.compile(r"^(?:work|works)\s+(?:from\s+home|remotely|remote)\b", re.I)
_P_JOINED = re.compile(r"^(?:started|joined|start|join)\s+(?:working\s+|a\s+(?:new\s+)?job\s+)?(?:at|for|with)\s+(.+)$"
                       r"|^(?:joined|got\s+(?:a\s+|my\s+first\s+)?(?:new\s+)?job\s+(?:at|with)|got\s+hired\s+(?:at|by)|"
                       r"got\s+(?:a\s+)?job\s+offer\s+from)\s+(.+)$", re.I)
_P_STUDY_AT = re.compile(r"^(?:study|studies|go\s+to\s+college|go\s+to\s+school|go\s+to\s+uni)\s+(?:at|in)\s+(.+)$",
                         re.I)
_P_STUDY = re.compile(r"^(?:study|studies|major\s+in|majors\s+in)\s+(.+)$", re.I)
_P_GO_TO = re.compile(r"^(?:go|goes|attend|attends)\s+(?:to\s+)?(.+)$", re.I)
_P_PLAY = re.compile(r"^(?:play|plays)\s+(.+)$", re.I)
_P_GO_ING = re.compile(r"^(?:go|goes)\s+([a-z]+ing)\b(.*)$", re.I)
_P_DO = re.compile(r"^(?:do|does|practice|practise|practices|practises|train)\s+(?:in\s+)?(.+)$", re.I)
_P_TURNED = re.compile(r"^(?:just\s+)?turned\s+(.+)$", re.I)
_P_GO_BY = re.compile(r"^(?:go|goes)\s+by\s+(.+)$", re.I)
_P_PREFER = re.compile(r"^(?:prefer|prefers|would\s+prefer|would\s+rather)\s+(.+)$", re.I)
_P_TEACH = re.compile(r"^(?:teach|teaches)\s+(.+?)(?:\s+at\s+(.+))?$", re.I)
_P_WANT = re.compile(r"^(?:(do|does)\s+not\s+)?(?:want|need|like)\s+(?!to\b)(.+)$", re.I)


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


_BEEN_TAIL = re.compile(r"\s+(?:for|since)\s+.*$|\s+(?:my|their|his|her)\s+whole\s+life.*$|\s+all\s+my\s+life.*$",
                        re.I)
_BEEN_MOTION = re.compile(r"^(?:going|moving|visiting|meeting|seeing|heading|flying|in|at|to)\b", re.I)


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


_SOON = re.compile(r"\b(?:next|tomorrow|in a)\b", re.I)


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


_MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"})
_DIGIT = re.compile(r"^\d")
_YEAR = re.compile(r"\d{4}")


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


_NOT_GO_ING = frozenset({"going", "bring", "thing", "nothing", "something", "everything"})


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


_TURNED_AGE = re.compile(r"^(\d{1,3}|[a-z]+(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?)\b", re.I)


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


_FREQ = re.compile(r"\b(?:every\s+(?:day|morning|evening|night|weekend|week|sunday|saturday|monday|tuesday|"
                   r"wednesday|thursday|friday)|on\s+(?:the\s+)?weekends?|on\s+(?:sundays|saturdays|mondays|"
                   r"fridays)|at\s+night|daily|twice a week|once a week|most weekends|most days|after work|"
                   r"in the mornings?|in the evenings?)\b", re.I)


def _freq(s: str) -> str:
    m = _FREQ.search(s or "")
    return f" {m.group(0).lower()}" if m else ""


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


# ============================================================================ requests: avoidance and interest
_TALKV = (r"(?:(?:talk|talking|speak|speaking|chat|chatting|go\s+on|going\s+on|ask|asking|ask\s+me|asking\s+me|"
          r"hear|hearing|joke|joking|tease\s+me|teasing\s+me|get\s+into|getting\s+into|go\s+into|going\s+into)"
          r"\s+(?:to\s+me\s+|with\s+me\s+)?about|discuss|discussing|bring\s+up|bringing\s+up|mention|mentioning|"
          r"raise|raising|get\s+into|getting\s+into|go\s+into|going\s+into|revisit|revisiting|dwell\s+on|"
          r"dwelling\s+on)\s+")
_AVOID = [(re.compile(p, re.I), content) for p, content in (
    (rf"^(?:please\s+|kindly\s+|just\s+)?(?:do\s+not|never|stop|quit|no\s+more)\s+(?:ever\s+)?(?:again\s+)?{_TALKV}(.+)$",
     "doesn't want to talk about"),
    (rf"^(?:I|we)\s+(?:(?:really|just|honestly|seriously|actually)\s+)?(?:do\s+not|would\s+rather\s+not|would\s+prefer\s+not\s+to|"
     rf"prefer\s+not\s+to|cannot|can\s+not|am\s+not\s+going\s+to|will\s+not)\s+(?:(?:really|even|particularly)\s+)?"
     rf"(?:want\s+to\s+|feel\s+like\s+|care\s+to\s+|wish\s+to\s+)?{_TALKV}(.+)$", "doesn't want to talk about"),
    (rf"^(?:I|we)\s+(?:(?:really|just|honestly|actually)\s+)?(?:do\s+not|never)\s+(?:(?:really|particularly|even|much)\s+)?"
     rf"(?:like|enjoy|love)\s+(?:to\s+)?{_TALKV}(.+)$", "doesn't like talking about"),
    (rf"^(?:I|we)\s+(?:(?:really|just|honestly|absolutely|totally)\s+)?(?:hate|dislike|avoid|cannot\s+stand)\s+{_TALKV}(.+)$",
     "hates talking about"),
    (rf"^(?:I|we)\s+am\s+(?:really\s+)?not\s+(?:comfortable|ok|okay|keen\s+on|up\s+for|in\s+the\s+mood\s+for|"
     rf"ready\s+to|interested\s+in)\s+{_TALKV}(.+)$", "doesn't want to talk about"),
    (rf"^(?:can|could|would|will)\s+(?:we|you)\s+(?:please\s+)?(?:not|stop|avoid)\s+(?:ever\s+)?{_TALKV}(.+)$",
     "doesn't want to talk about"),
    (rf"^let\s+us\s+(?:please\s+)?(?:not|stop|avoid)\s+{_TALKV}(.+)$", "doesn't want to talk about"),
    (r"^(?:please\s+)?(?:leave|keep)\s+(.+?)\s+out\s+of\s+(?:this|it|our\s+conversations?|our\s+chats?)$",
     "doesn't want to talk about"),
    (r"^(.+?)\s+(?:is|are)\s+(?:totally\s+|completely\s+|strictly\s+)?(?:off[\s-]limits|a\s+sore\s+(?:topic|subject|spot)|"
     r"a\s+touchy\s+subject|not\s+something\s+I\s+(?:want\s+to|like\s+to)\s+(?:talk|discuss))(?:\s+for\s+me)?$",
     "doesn't want to talk about"),
    (r"^no\s+(?:more\s+)?(?:talk(?:ing)?\s+about|questions\s+about|(?:politics|religion)\s+talk)\s+(.+)$",
     "doesn't want to talk about"),
)]
_INTEREST = [(re.compile(p, re.I), content, conf) for p, content, conf in (
    (r"^(?:(?:can|could|shall|should)\s+we|(?:can|could)\s+you\s+and\s+I|would\s+you\s+(?:mind|like\s+to)|"
     r"do\s+you\s+want\s+to|want\s+to)\s+(?:please\s+)?(?:talk|chat|speak|have\s+a\s+chat)\s+(?:a\s+bit\s+|more\s+|"
     r"a\s+little\s+|for\s+a\s+bit\s+)?about\s+(.+)$", "wants to talk about", 0.75),
    (r"^let\s+us\s+(?:talk|chat)\s+(?:a\s+bit\s+|more\s+|a\s+little\s+)?about\s+(.+)$", "wants to talk about", 0.75),
    (r"^(?:please\s+)?tell\s+me\s+(?:more\s+|a\s+bit\s+|a\s+little\s+|something\s+|everything\s+|all\s+)?about\s+(.+)$",
     "wants to know more about", 0.7),
    (r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?tell\s+me\s+(?:more\s+|a\s+bit\s+|something\s+|a\s+little\s+)?"
     r"about\s+(.+)$", "wants to know more about", 0.65),
    (r"^I\s+(?:(?:really|just|would\s+really)\s+)?(?:want\s+to|would\s+like\s+to|would\s+love\s+to|need\s+to)\s+"
     r"(?:talk|chat|speak|vent)\s+(?:more\s+|a\s+bit\s+)?about\s+(.+)$", "wants to talk about", 0.75),
    (r"^I\s+(?:(?:really|also)\s+)?(?:love|like|enjoy)\s+(?:talking|chatting)\s+about\s+(.+)$",
     "loves talking about", 0.8),
    (r"^I\s+have\s+been\s+(?:really\s+)?(?:getting\s+into|curious\s+about|interested\s+in|reading\s+(?:a\s+lot\s+)?about)"
     r"\s+(.+)$", "is interested in", 0.7),
)]
_TOPIC_REJECT = frozenset({"yourself", "you", "your day", "something else", "anything", "anything else", "it", "that",
                           "this", "me", "us", "what", "how", "why", "something", "stuff", "things", "your life",
                           "life", "whatever", "the other thing", "something fun", "something different",
                           "something new", "another thing", "other things", "this again", "that again"})


def _requests(c: str, ctx: dict[str, Any]) -> list[dict[str, Any]] | None:
    m = _CALL_ME.match(c)
    if m and ctx["scope"] == "contact":
        name, _ = _take_name(_clean(m.group(1) or m.group(2) or m.group(3)), allow_lower=True)
        return [_raw("preferred_name", f"Prefers to be called {name}", name, tags=("identity", "name"),
                     confidence=0.9)] if name else []
    for rx, verb in _AVOID:
        m = rx.match(c)
        if m:
            if re.search(r"\b(?:to me like that|like that)\b", c, re.I):
                return []
            obj = m.group(1)
            if _norm_obj(_clean(obj)) in _TOPIC_REJECT:
                return []
            return _talk(SELF, obj, "avoid_topic", verb, ctx)
    for rx, verb, conf in _INTEREST:
        m = rx.match(c)
        if m:
            obj = _clean(m.group(1))
            if not obj or _norm_obj(obj) in _TOPIC_REJECT or obj.lower().startswith(("your ", "you ", "yourself")):
                return []
            return _talk(SELF, obj, "interest", verb, ctx, conf)
    return None


# ============================================================================ "my name is", "call me", "my favorite X is"
_MY_NAME = re.compile(r"^(?:my\s+(?:full\s+|first\s+|real\s+|actual\s+|given\s+)?name\s+is|(?:the\s+)?name\s+is|"
                      r"this\s+is|it\s+is)\s+(.+)$", re.I)
_CALL_ME = re.compile(r"^(?:(?:you\s+can|you\s+may|please|just|pls|feel\s+free\s+to)\s+)?call\s+me\s+(.+)$"
                      r"|^(?:my\s+)?(?:friends|everyone|people|everybody|family)\s+(?:call|calls)\s+me\s+(.+)$"
                      r"|^my\s+nick\s*name\s+is\s+(.+)$", re.I)
_IS_MY_ROLE = re.compile(rf"^(?-i:([A-Z][a-z]+))\s+is\s+(?:my|our)\s+(?:{_ADJ}\s+){{0,2}}({_ROLE_ALT})"
                         rf"(?:\s+(?:lol|haha|btw))?$", re.I)
_HERE = re.compile(r"^(?-i:([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+here$")
_BIRTHDAY = re.compile(r"^my\s+(?:birthday|bday|b-day|birth\s*date|date\s+of\s+birth)\s+is\s+(?:on\s+)?(.+)$", re.I)
_FAVORITE = re.compile(r"^my\s+(?:absolute\s+|all[\s-]time\s+|most\s+)?favorite\s+([a-z][\w' -]{0,30}?)\s+"
                       r"(?:is|are|has\s+to\s+be|would\s+be|of\s+all\s+time\s+is)\s+(.+)$", re.I)
_IS_FAVORITE = re.compile(r"^(.+?)\s+(?:is|are)\s+my\s+(?:absolute\s+|all[\s-]time\s+)?favorite(?:\s+([a-z][\w' -]{0,30}))?$",
                          re.I)
_MY_ATTR = re.compile(r"^my\s+(hometown|home\s+town|age|major|pronouns|(?:star\s+|zodiac\s+|sun\s+)?sign|job|"
                      r"profession|occupation|day\s+job|(?:home|house|place|flat|apartment)\s+is\s+in|office|"
                      r"workplace|company|employer|native\s+place|native|mother\s+tongue|first\s+language|"
                      r"native\s+language)\s+(?:is|are)\s+(.+)$", re.I)


# ---------------------------------------------------------------- self statements: handler(m, ctx, index)
# "my name is ...", "call me ...", "Anna is my sister", "my birthday is ...", favorites, "my <attr> is ...".
_NAMING = ("my", "name", "the name")


def _s_my_name(m: re.Match, ctx: dict[str, Any], index: int) -> list[dict[str, Any]] | None:
    c = m.string
    if not (c.lower().startswith(_NAMING) or (index == 0 and ctx.get("greeting"))):
        return None
    explicit = c.lower().startswith(_NAMING)
    name, rest = _take_name(_clean(m.group(1)), allow_lower=explicit)
    if name and (explicit or not rest.strip() or rest.strip().lower() == "here"):
        return _name_items(SELF, name, 0.95 if explicit else 0.8, ctx)
    return []


def _s_call_me(m: re.Match, ctx: dict[str, Any], index: int) -> list[dict[str, Any]]:
    name, _ = _take_name(_clean(m.group(1) or m.group(2) or m.group(3)), allow_lower=True)
    return [_raw("preferred_name", f"Prefers to be called {name}", name, tags=("identity", "name"),
                 confidence=0.9)] if name else []


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


_PRONOUN_START = re.compile(r"^(?:you|it|this|that|he|she|they)\b", re.I)


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


_AT_PLACE = re.compile(r"^(?:in|at|near|on)\s", re.I)
_FIRST_WORD = re.compile(r"^\w+\s+")


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


SELF_RULES = (
    engine.rule("my_name", _MY_NAME, _s_my_name, "my name is Meera"),
    engine.rule("call_me", _CALL_ME, _s_call_me, "call me Sam"),
    engine.rule("is_my_role", _IS_MY_ROLE, _s_is_my_role, "Anna is my sister"),
    engine.rule("here", _HERE, _s_here, "Rohan here"),
    engine.rule("birthday", _BIRTHDAY, _s_birthday, "my birthday is March 3"),
    engine.rule("favorite", _FAVORITE, _s_favorite, "my favorite food is sushi"),
    engine.rule("is_favorite", _IS_FAVORITE, _s_is_favorite, "sushi is my favorite food"),
    engine.rule("my_attr", _MY_ATTR, _s_my_attr, "my hometown is Pune"),
)


def _self_statements(c: str, ctx: dict[str, Any], index: int) -> list[dict[str, Any]] | None:
    return engine.first(SELF_RULES, c, ctx, index)


# ============================================================================ tenant (business) statements
_BIZ = "|".join(BUSINESS_WORDS)
_T_RULES = [(re.compile(p, re.I), rel) for p, rel in (
    (r"^(?:we|I)\s+(?:(?:also|mainly|mostly|only|just|primarily|now|currently)\s+)?(?:sell|offer|provide|make|bake|"
     r"serve|specialize\s+in|specialise\s+in|deal\s+in|cater|stock|carry|brew|roast|design|build|manufacture|"
     r"teach|organize|organise|host|rent\s+out|repair|fix|import|export|handle)\s+(.+)$", "business_offering"),
    (r"^our\s+(?:main\s+|best[\s-]?selling\s+|signature\s+|most\s+popular\s+|core\s+|top\s+)?(?:products?|services?|"
     r"offerings?|specialty|speciality|specialities|bestsellers?|menu)\s+(?:are|is|include|includes)\s+(.+)$",
     "business_offering"),
    (r"^(?:we|I)\s+(?:(?:also|only)\s+)?(?:deliver|ship)\s+(?:to\s+|across\s+|all\s+over\s+|within\s+|in\s+)(.+)$",
     "business_delivery_area"),
    (r"^(?:we\s+are|I\s+am)\s+(?:located|based|situated)\s+(?:in|at|on|out\s+of|near)\s+(.+)$", "business_location"),
    (rf"^our\s+(?:{_BIZ})\s+is\s+(?:located\s+|based\s+|situated\s+)?(?:in|at|on|near)\s+(.+)$", "business_location"),
    (r"^(?:located|based|situated)\s+(?:in|at|on)\s+(.+)$", "business_location"),
    (r"^(?:we\s+are|our\s+\w+\s+is|we\s+stay)\s+open\s+(.+)$|^our\s+(?:opening\s+|business\s+|store\s+|shop\s+|working\s+)?"
     r"(?:hours|timings|timing)\s+(?:are|is)\s+(.+)$|^we\s+open\s+(?:at\s+)?(.+)$", "business_hours"),
    (rf"^(?:we\s+are\s+called|our\s+(?:{_BIZ})\s+is\s+called|our\s+(?:{_BIZ}\s+)?name\s+is|the\s+(?:{_BIZ})\s+is\s+called)\s+(.+)$",
     "business_name"),
    (r"^our\s+(?:main\s+|target\s+|typical\s+|ideal\s+|core\s+)?(?:customers|clients|audience|market|buyers|users|"
     r"customer\s+base)\s+(?:are|is)\s+(?:mostly\s+|mainly\s+|usually\s+|largely\s+)?(.+)$", "business_audience"),
    (r"^(?:we|I)\s+(?:mainly\s+|mostly\s+)?(?:cater\s+to|target|serve\s+mostly|work\s+with)\s+(.+)$",
     "business_audience"),
    (rf"^our\s+(?:{_BIZ})\s+is\s+(?:an?\s+)(.+)$|^(?:we\s+are|this\s+is)\s+an?\s+(.+)$", "business_type"),
    (rf"^(?:we|I)\s+(?:run|own|have|started|founded|opened|manage)\s+(?:an?|my\s+own|our\s+own|my|our|the\s+family)\s+"
     rf"((?:[\w'-]+\s+){{0,3}}(?:{_BIZ})\b.*)$", "business_type"),
)]
_BIZ_TYPE_REJECT = re.compile(r"^(?:bit|little|lot|team\s+of|few|couple|good|great|nice|new\s+here|"
                              r"(?:very\s+|really\s+)?(?:busy|small\s+team))\b", re.I)


def _tenant(c: str, ctx: dict[str, Any]) -> list[dict[str, Any]] | None:
    for rx, rel in _T_RULES:
        m = rx.match(c)
        if not m:
            continue
        val = next(g for g in m.groups() if g)
        if re.match(r"^(?:not|never|no)\b", val, re.I):
            return []
        if rel == "business_offering":
            return [_raw(rel, f"Offers {d}", n, key=slugify(n), category=_category(n), tags=("business", "offering"),
                         entities=[_ent("topic", d.lower())] if len(n.split()) <= 3 else [], confidence=0.8)
                    for d, n in _objects(val)]
        if rel in {"business_location", "business_delivery_area"}:
            p = _place(val)
            verb = "Is located in" if rel == "business_location" else "Delivers to"
            return [_raw(rel, f"{verb} {p}", p, entities=[_ent("place", p)], tags=("business", "location"),
                         confidence=0.85)] if p else []
        if rel == "business_hours":
            v = _TRAIL_JUNK.sub("", val).strip()
            return [_raw(rel, f"Is open {v}", v, tags=("business", "hours"), confidence=0.8)] if v else []
        if rel == "business_name":
            v = _clean(val)
            return [_raw(rel, f"Business is called {v}", v, entities=[_ent("org", v)], tags=("business",),
                         confidence=0.85)] if v else []
        if rel == "business_audience":
            v = _clean(val)
            return [_raw(rel, f"Customers are mostly {_third(v)}", v, tags=("business", "audience"),
                         confidence=0.75)] if v else []
        if rel == "business_type":
            if c.lower().startswith(("I am a", "i am an", "i am")) and _job(val)[0]:
                return None
            v = _clean(val)
            loc = re.match(r"^(.+?)\s+(?:in|based\s+in|located\s+in|out\s+of)\s+(.+)$", v, re.I)
            place = None
            if loc:
                v, place = loc.group(1), _place(loc.group(2))
            if not v or _BIZ_TYPE_REJECT.match(v):
                return []
            out = [_raw(rel, f"Is {_article(v)} {v}", v, tags=("business",), confidence=0.8)]
            if place:
                out.append(_raw("business_location", f"Is located in {place}", place,
                                entities=[_ent("place", place)], tags=("business", "location"), confidence=0.8))
            return out
    return None


# ============================================================================ extract
_REL_TAGS = {"name": ("identity",), "preferred_name": ("identity",), "age": ("identity",), "birthday": ("identity",),
             "lives_in": ("location",), "from": ("location",), "grew_up_in": ("location",), "born_in": ("location",),
             "current_location": ("location",), "works_at": ("work",), "job_title": ("work",),
             "studies_at": ("education",), "has_pet": ("pets",), "pet_name": ("pets",), "breed": ("pets",),
             "family_member": ("family",), "likes": ("preferences",), "dislikes": ("preferences",),
             "prefers": ("preferences",), "avoid_topic": ("boundaries",), "interest": ("interests",),
             "plays": ("hobbies",), "hobby": ("hobbies",)}


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


# ============================================================================ pronoun objects
# "I'm visiting her next month" says nothing on its own: a pronoun object is resolved to the one person or pet
# the same message introduced that it can refer to ("My sister is sick, I'm visiting her" -> "Is visiting
# their sister"), else the item is dropped (the episode keeps the message). pronoun -> the kinds it can name
# and the roles it cannot (gender of the kin word).
_MALE_ROLES = frozenset("brother dad son husband boyfriend uncle grandpa nephew stepdad father_in_law".split())
_FEMALE_ROLES = frozenset("sister mom daughter wife girlfriend aunt grandma niece stepmom mother_in_law".split())
OBJECT_PRONOUNS = {"her": ({"person", "pet"}, _MALE_ROLES), "him": ({"person", "pet"}, _FEMALE_ROLES),
                   "them": ({"person", "pet"}, frozenset()), "it": ({"pet"}, frozenset()),
                   "that": (set(), frozenset()), "this": (set(), frozenset()), "there": (set(), frozenset())}


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


# "I have a dog but he died last year": no current possession is asserted
_GONE = re.compile(r"\b(?:died|passed away|passed on|put down|put to sleep|ran away|no longer with us|"
                   r"lost (?:him|her|them) (?:last|this)|rest in peace|rip)\b", re.I)
_POSSESSION = frozenset({"has_pet", "family_member", "partner", "knows_person", "owns"})


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
