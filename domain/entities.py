"""Entity refs for the per-contact knowledge graph (seed 000 §2.4, seed 004): slugs, refs, spelling/ASR
variant merging and mention finding. Pure functions, standard library only.

Refs
    An entity is named by a ref `<type>:<slug>` (seed 004), e.g. `pet:bruno`, `workplace:infosys`,
    `person:mom`, `place:austin_texas`. Types (ENTITY_TYPES): person, pet, place, org, workplace,
    school, hobby, topic, food, project. An entity record (what `known` maps refs to) is a dict
    {"ref", "entityType", "displayName", "metadata"}; metadata is free-form, the keys this module reads
    are "relation" (persons), "species" (pets) and "aliases" (extra names, a list of strings).

    How people and pets map onto refs:
      - kin/role words without a name -> person:<canonical role>: "mom", "mum", "mother", "amma"
        -> person:mom {"relation": "mother"}; "dad"/"father"/"papa" -> person:dad {"relation": "father"};
        "my sister" -> person:sister {"relation": "sister"}; "my best friend" -> person:best_friend.
        (KINSHIP below is the override map; "mum" and "mom" are one entity.)
      - a named person -> person:<name slug>, the role goes to metadata: "my sister Priya"
        -> person:priya {"relation": "sister"}.
      - pets: a named pet -> pet:<name slug> {"species": "dog", "breed": "golden retriever"};
        an unnamed one -> pet:<species> ("my dog" -> pet:dog {"species": "dog"}).

slugify(name) (seed 004): lower case (casefold), accents on Latin letters removed ("José" -> "jose"),
    non-Latin letters kept with their marks ("प्रिया" stays whole), apostrophes and periods removed
    ("O'Brien" -> "obrien", "U.S." -> "us"), other symbols removed ("AT&T" -> "att"), runs of spaces,
    hyphens/dashes, underscores, commas and slashes become one "_" ("Austin, Texas" -> "austin_texas",
    "rock-n-roll" -> "rock_n_roll"), no leading/trailing "_". Idempotent. For names without combining
    marks the slug matches ^[^\\W_]+(_[^\\W_]+)*$ (Python's \\w does not cover combining marks, so
    Devanagari/Tamil slugs additionally contain marks after letters).

Variant merging, canonical_ref(candidate, known) -> the ref to use
    1. the override map: person:<kin alias> -> person:<canonical kin> (mum -> mom, papa -> dad, ...);
    2. exact: the ref is already known -> itself;
    3. variants: a known entity of the SAME type whose name is a spelling/ASR variant, when metadata
       does not contradict (pets: both have a species and they differ; persons: both have a relation
       and they differ -> never merged). Two names are variants when every word pair (same word count)
       has equal phonetic keys (`phonetic_key`), or, for a single-word candidate, it equals the first
       word of exactly one known multi-word name of that type (or the reverse): "Priya" ~ "Priya
       Sharma". Ties go to the smallest edit distance, then the smallest ref.
    phonetic_key(word), for Latin-letter words (others only match exactly):
       - spelling folds: trailing "h" after a vowel dropped (Sarah = Sara), ph->f, ck/q/c(+a/o/u/
         consonant)->k, c(+e/i/y)->s, ch->k, x->ks, z->s, w->v, th/dh/bh/gh/kh/jh -> t/d/b/g/k/j,
         "h" between a vowel and a consonant dropped (Johnathan = Jonathan), doubled letters single;
       - words of 5+ letters: every run of interior vowels (a e i o u y) collapses to "*", while the
         first and the LAST letter stay literal. So interior vowel confusions merge (Makesh = Mukesh =
         m*k*sh, Priya = Preya, Shreya = Shriya, Mohammed = Muhammad) but a different final vowel does
         not (Bruno != Bruna, Mario != Maria, Daniel != Daniela: those are usually different,
         gendered names), nor a different consonant (Rakesh != Ramesh, Jake != Jade);
       - words of at most 4 letters (counted before the folds) keep their vowels (only the spelling folds apply): Jon = John,
         Ana = Anna, but Max != Mia, Sam != Pam, Tom != Tim, Ravi != Rani;
       - one adjacent transposition in a word of 5+ letters that leaves the last letter in place is a
         typo and also merges (Makseh = Makesh).
    Known false merges (documented limitation): distinct names differing only in interior vowels,
    e.g. Karan/Kiran, Kevin/Kavin.

find_mentions(text, known) -> refs named in the text, in order of first appearance: display names,
    slugs (underscores read as spaces), metadata aliases, kin words of a person's relation ("mom",
    "mum", "mother" -> person:mom), the species word of a pet when it is the only known pet of that
    species ("how's the dog?" -> pet:bruno), "work"/"job"/"office" for the only known workplace and
    "school"/"college"/"uni" for the only known school, plus phonetic variants of single-word
    person/pet names of 5+ letters ("Mukesh" finds person:makesh). Case-insensitive, word-boundary
    aware ("Bruno's" matches, "Brunos" and "Max" inside "maximum" do not). One compiled regex per
    known set (`MentionIndex`, cached), its regex compiled for the terms a text may name (cached).
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, Iterable, Mapping

from rapidfuzz.distance import OSA as _OSA

ENTITY_TYPES = ("person", "pet", "place", "org", "workplace", "school", "hobby", "topic", "food", "project")
_TYPE_SET = frozenset(ENTITY_TYPES)

# ----------------------------------------------------------------------------------------- kinship
# alias -> (canonical slug, relation)
KINSHIP: dict[str, tuple[str, str]] = {}


def _kin(canonical: str, relation: str, *aliases: str) -> None:
    for a in (canonical, *aliases):
        KINSHIP[a] = (canonical, relation)


_kin("mom", "mother", "mum", "mother", "mommy", "mummy", "momma", "mama", "amma", "maa", "mamma", "mam")
_kin("dad", "father", "father", "daddy", "papa", "pappa", "appa", "pop", "pops", "abba", "baba")
_kin("parents", "parents", "folks")
_kin("sister", "sister", "sis", "sissy")
_kin("brother", "brother", "bro")
_kin("siblings", "siblings", "sibling")
_kin("wife", "wife", "missus", "mrs")
_kin("husband", "husband", "hubby")
_kin("girlfriend", "girlfriend", "gf")
_kin("boyfriend", "boyfriend", "bf")
_kin("partner", "partner", "spouse", "significant other")
_kin("fiance", "fiance", "fiancé", "fiancee", "fiancée")
_kin("son", "son")
_kin("daughter", "daughter")
_kin("kids", "children", "kid", "child", "children", "kiddo", "kiddos", "little one", "little ones")
_kin("baby", "baby")
_kin("grandma", "grandmother", "grandmother", "granny", "grandmom", "grandmum", "nani", "dadi", "nana ji")
_kin("grandpa", "grandfather", "grandfather", "granddad", "grandad", "dada", "dadaji", "nanaji")
_kin("grandparents", "grandparents")
_kin("aunt", "aunt", "auntie", "aunty", "masi", "mausi", "bua", "chachi")
_kin("uncle", "uncle", "chacha", "mama ji", "mamaji")
_kin("cousin", "cousin")
_kin("niece", "niece")
_kin("nephew", "nephew")
_kin("stepmom", "stepmother", "stepmother", "step mom")
_kin("stepdad", "stepfather", "stepfather", "step dad")
_kin("mother_in_law", "mother-in-law", "mother in law", "mil")
_kin("father_in_law", "father-in-law", "father in law")
_kin("in_laws", "in-laws", "in laws", "inlaws")
_kin("best_friend", "best friend", "best friend", "bestie", "bff", "bestfriend")
_kin("friend", "friend", "buddy", "pal", "mate")
_kin("roommate", "roommate", "flatmate", "roomie", "housemate")
_kin("boss", "boss", "manager")
_kin("coworker", "coworker", "co-worker", "colleague", "workmate")
_kin("ex", "ex", "ex-girlfriend", "ex-boyfriend", "ex-wife", "ex-husband")
_kin("crush", "crush")
_kin("neighbor", "neighbor", "neighbour")
_kin("therapist", "therapist")
_kin("teacher", "teacher")
_kin("mentor", "mentor")
_kin("coach", "coach")

# relation -> the words that refer to that person without a name
_RELATION_WORDS: dict[str, list[str]] = {}
for _alias, (_canon, _rel) in KINSHIP.items():
    _RELATION_WORDS.setdefault(_rel, []).append(_alias)

# ----------------------------------------------------------------------------------------- pets
PET_SPECIES: dict[str, str] = {
    "dog": "dog", "doggo": "dog", "doggy": "dog", "doggie": "dog", "pup": "dog", "puppy": "dog",
    "cat": "cat", "kitty": "cat", "kitten": "cat", "kitteh": "cat",
    "parrot": "parrot", "budgie": "parrot", "parakeet": "parrot", "cockatiel": "parrot", "bird": "bird",
    "fish": "fish", "goldfish": "fish", "betta": "fish", "hamster": "hamster", "gerbil": "gerbil",
    "rabbit": "rabbit", "bunny": "rabbit", "guinea pig": "guinea pig", "turtle": "turtle",
    "tortoise": "tortoise", "snake": "snake", "lizard": "lizard", "gecko": "lizard", "iguana": "lizard",
    "bearded dragon": "lizard", "horse": "horse", "pony": "horse", "ferret": "ferret", "rat": "rat",
    "mouse": "mouse", "hedgehog": "hedgehog", "chinchilla": "chinchilla", "axolotl": "axolotl",
}
PET_BREEDS: dict[str, str] = {
    "golden retriever": "dog", "retriever": "dog", "labrador": "dog", "labrador retriever": "dog",
    "lab": "dog", "german shepherd": "dog", "beagle": "dog", "pug": "dog", "husky": "dog",
    "siberian husky": "dog", "poodle": "dog", "bulldog": "dog", "french bulldog": "dog", "frenchie": "dog",
    "corgi": "dog", "dachshund": "dog", "shih tzu": "dog", "chihuahua": "dog", "rottweiler": "dog",
    "doberman": "dog", "pomeranian": "dog", "border collie": "dog", "collie": "dog", "indie": "dog",
    "indie dog": "dog", "terrier": "dog", "yorkie": "dog", "maltese": "dog", "great dane": "dog",
    "cocker spaniel": "dog", "spaniel": "dog", "pitbull": "dog", "pit bull": "dog", "shiba inu": "dog",
    "samoyed": "dog", "dalmatian": "dog", "boxer dog": "dog", "greyhound": "dog", "labradoodle": "dog",
    "goldendoodle": "dog", "mutt": "dog",
    "persian cat": "cat", "persian": "cat", "siamese": "cat", "siamese cat": "cat", "maine coon": "cat",
    "ragdoll": "cat", "bengal cat": "cat", "sphynx": "cat", "british shorthair": "cat", "tabby": "cat",
    "tabby cat": "cat",
}
_BREED_CANON = {"lab": "labrador", "labrador retriever": "labrador", "frenchie": "french bulldog",
                "pit bull": "pitbull", "siberian husky": "husky", "yorkie": "yorkshire terrier",
                "tabby cat": "tabby", "boxer dog": "boxer"}
PET_WORDS: dict[str, str] = {**PET_SPECIES, **PET_BREEDS}  # word -> species


# ----------------------------------------------------------------------------------------- slugs
_LATIN_BASE = re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff]")
_APOSTROPHES = frozenset("'’ʼ`´‘.")
_SEPARATORS = frozenset(",/\\|")


def _slug_once(name: str) -> str:
    s = unicodedata.normalize("NFKC", name).casefold()
    out: list[str] = []
    prev_kept = False  # the previous character is a kept letter/digit (marks attach to it)
    prev_latin = False
    for ch in unicodedata.normalize("NFKD", s):
        cat = unicodedata.category(ch)
        if cat[0] == "M":
            if prev_kept and not prev_latin:
                out.append(ch)  # marks of non-Latin scripts are part of the letter
            continue  # accents on Latin letters are removed; orphan marks are dropped
        if ch.isalnum():
            out.append(ch)
            prev_kept, prev_latin = True, bool(_LATIN_BASE.match(ch))
            continue
        prev_kept = False
        if ch in _APOSTROPHES:
            continue  # "o'brien" -> "obrien", "u.s." -> "us"
        if ch.isspace() or cat in ("Pd", "Pc") or ch in _SEPARATORS:
            out.append("_")
        # anything else (symbols, emoji, other punctuation) is removed
    slug = unicodedata.normalize("NFC", "".join(out))
    return "_".join(p for p in slug.split("_") if p)


def slugify(name: str) -> str:
    """Lowercase, Latin accents and punctuation removed, spaces/hyphens -> "_" (seed 004)."""
    slug = _slug_once(name)
    for _ in range(3):  # Unicode normalisation corner cases: iterate to the fixed point
        again = _slug_once(slug)
        if again == slug:
            break
        slug = again
    return slug


def entity_ref(entity_type: str, name: str) -> str:
    """`<type>:<slug>`; raises ValueError on an unknown type or a name without letters or digits."""
    if entity_type not in _TYPE_SET:
        raise ValueError(f"unknown entity type {entity_type!r}; one of {', '.join(ENTITY_TYPES)}")
    slug = slugify(name)
    if not slug:
        raise ValueError(f"name {name!r} has no letters or digits")
    return f"{entity_type}:{slug}"


def parse_ref(ref: str) -> tuple[str, str]:
    """"pet:bruno" -> ("pet", "bruno")."""
    etype, _, slug = ref.partition(":")
    return etype, slug


def display_from_slug(slug: str) -> str:
    return " ".join(w.capitalize() if w.isascii() else w for w in slug.split("_"))


def kin_entity(word: str, name: str | None = None) -> dict[str, Any] | None:
    """The person entity of a kin/role word: ("mum") -> person:mom {"relation": "mother"};
    ("sister", "Priya") -> person:priya {"relation": "sister"}; None for a word that is no role."""
    key = " ".join(word.casefold().replace("-", " ").split())
    hit = KINSHIP.get(key) or KINSHIP.get(key.replace(" ", "-")) or KINSHIP.get(key.replace(" ", ""))
    if hit is None:
        return None
    canonical, relation = hit
    if name:
        slug = slugify(name)
        if slug:
            return make_entity("person", name, {"relation": relation})
    return {"ref": f"person:{canonical}", "entityType": "person",
            "displayName": canonical.replace("_", " ").capitalize(), "metadata": {"relation": relation}}


def pet_entity(word: str, name: str | None = None) -> dict[str, Any] | None:
    """("golden retriever", "Bruno") -> pet:bruno {"species": "dog", "breed": "golden retriever"};
    ("dog") -> pet:dog {"species": "dog"}."""
    key = " ".join(word.casefold().split())
    species = PET_WORDS.get(key)
    if species is None and key.endswith("s"):
        key = key[:-1]
        species = PET_WORDS.get(key)
    if species is None:
        return None
    meta: dict[str, Any] = {"species": species}
    if key in PET_BREEDS and key != "mutt":
        meta["breed"] = _BREED_CANON.get(key, key.removesuffix(" cat").removesuffix(" dog"))
    if name and slugify(name):
        return make_entity("pet", name, meta)
    return {"ref": f"pet:{species.replace(' ', '_')}", "entityType": "pet", "displayName": species.capitalize(),
            "metadata": meta}


def make_entity(entity_type: str, name: str, metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An entity record {"ref", "entityType", "displayName", "metadata"}."""
    return {"ref": entity_ref(entity_type, name), "entityType": entity_type,
            "displayName": " ".join(name.split()), "metadata": dict(metadata or {})}


# ----------------------------------------------------------------------------------------- variants
_VOWELS = frozenset("aeiouy")
_FOLDS = [(re.compile(p), r) for p, r in (
    (r"ph", "f"), (r"ck", "k"), (r"q", "k"), (r"x", "ks"), (r"z", "s"), (r"w", "v"),
    (r"ch", "k"), (r"c(?=[eiy])", "s"), (r"c", "k"),
    (r"([tdbgkj])h", r"\1"), (r"(?<=[aeiouy])h(?=[^aeiouy])", ""), (r"(.)\1+", r"\1"))]


def phonetic_key(word: str) -> str:
    """A spelling/ASR-tolerant key of one name word (see the module docstring); only Latin words fold."""
    w = word.casefold()
    if not w.isascii() or not w.isalpha():
        return w
    if len(w) > 2 and w.endswith("h") and w[-2] in _VOWELS:
        w = w[:-1]
    short = len(w) < 5
    for rx, rep in _FOLDS:
        w = rx.sub(rep, w)
    if short or len(w) < 3:
        return w
    out = [w[0]]
    for ch in w[1:-1]:
        if ch in _VOWELS:
            if out[-1] != "*":
                out.append("*")
        else:
            out.append(ch)
    out.append(w[-1])
    return "".join(out)


def _is_transposition_typo(a: str, b: str) -> bool:
    if len(a) != len(b) or len(a) < 5 or a[-1] != b[-1] or a[0] != b[0]:
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def damerau_levenshtein(a: str, b: str) -> int:
    """Optimal string alignment distance (adjacent transpositions count 1; a transposed pair is not
    edited again, so "ca" -> "abc" is 3, not 2): rapidfuzz's OSA, in C."""
    return _OSA.distance(a, b)


def names_are_variants(a: str, b: str) -> bool:
    """Two slugs (or names) are spelling/ASR variants of one name (same word count, word-wise)."""
    wa, wb = slugify(a).split("_"), slugify(b).split("_")
    if not wa[0] or not wb[0] or len(wa) != len(wb):
        return False
    for x, y in zip(wa, wb):
        if x == y:
            continue
        if phonetic_key(x) == phonetic_key(y) or _is_transposition_typo(x, y):
            continue
        return False
    return True


def _conflicts(etype: str, meta_a: Mapping[str, Any] | None, meta_b: Mapping[str, Any] | None) -> bool:
    field = {"pet": "species", "person": "relation"}.get(etype)
    if field is None or not meta_a or not meta_b:
        return False
    x, y = meta_a.get(field), meta_b.get(field)
    return bool(x and y and x != y)


def canonical_ref(candidate_ref: str, known: Mapping[str, Mapping[str, Any]] | None,
                  metadata: Mapping[str, Any] | None = None) -> str:
    """The ref a new mention should use: a known entity it is a variant of, else itself (normalised).

    `metadata` is the candidate's own metadata (e.g. {"species": "cat"}); a contradiction with the
    known entity's metadata prevents a variant merge. Exact and override-map matches always win."""
    etype, slug = parse_ref(candidate_ref)
    if etype == "person" and slug in KINSHIP:
        slug = KINSHIP[slug][0]
    elif etype == "person" and slug.replace("_", " ") in KINSHIP:
        slug = KINSHIP[slug.replace("_", " ")][0]
    ref = f"{etype}:{slug}"
    if not known or ref in known:
        return ref
    words = slug.split("_")
    best: tuple[int, str] | None = None
    firsts: list[str] = []
    for kref, ent in known.items():
        ktype, kslug = parse_ref(kref)
        if ktype != etype or not kslug or _conflicts(etype, metadata, (ent or {}).get("metadata")):
            continue
        if etype == "person" and (kslug in KINSHIP or slug in KINSHIP):
            continue  # roles ("mom") are not names
        kwords = kslug.split("_")
        if names_are_variants(slug, kslug):
            cand = (damerau_levenshtein(slug, kslug), kref)
            if best is None or cand < best:
                best = cand
        elif (len(words) == 1 and len(kwords) > 1 and names_are_variants(words[0], kwords[0])) or (
                len(kwords) == 1 and len(words) > 1 and names_are_variants(kwords[0], words[0])):
            firsts.append(kref)
    if best is not None:
        return best[1]
    if len(firsts) == 1:
        return firsts[0]
    return ref


# ----------------------------------------------------------------------------------------- mentions
_WORK_WORDS = ("work", "job", "office")
_SCHOOL_WORDS = ("school", "college", "uni", "university", "class", "classes")
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W\d_]+)?")


def _terms_of(ref: str, ent: Mapping[str, Any]) -> set[str]:
    etype, slug = parse_ref(ref)
    terms = {slug.replace("_", " ")}
    disp = (ent or {}).get("displayName")
    if disp:
        terms.add(" ".join(disp.casefold().split()))
    meta = (ent or {}).get("metadata") or {}
    for a in meta.get("aliases") or ():
        if isinstance(a, str) and a.strip():
            terms.add(" ".join(a.casefold().split()))
    if etype == "person" and slug in KINSHIP:
        rel = KINSHIP[slug][1]
        terms.update(w for w in _RELATION_WORDS.get(rel, ()) if len(w) > 2)
    return {t for t in terms if t and any(c.isalnum() for c in t)}


class MentionIndex:
    """The matcher of one known set; `find(text)` -> refs in order of first appearance."""

    def __init__(self, known: Mapping[str, Mapping[str, Any]]):
        term_refs: dict[str, set[str]] = {}
        by_type: dict[str, list[str]] = {}
        species: dict[str, list[str]] = {}
        self._phonetic: dict[str, str] = {}
        for ref in sorted(known):
            ent = known[ref] or {}
            etype, slug = parse_ref(ref)
            by_type.setdefault(etype, []).append(ref)
            for t in _terms_of(ref, ent):
                term_refs.setdefault(t, set()).add(ref)
            sp = (ent.get("metadata") or {}).get("species")
            if etype == "pet" and sp:
                species.setdefault(sp, []).append(ref)
            if etype in ("person", "pet") and "_" not in slug and len(slug) >= 5 and slug.isascii() \
                    and slug not in KINSHIP:
                self._phonetic.setdefault(phonetic_key(slug), ref)
        for sp, refs in species.items():
            if len(refs) == 1:
                for word, s in PET_SPECIES.items():
                    if s == sp:
                        term_refs.setdefault(word, set()).add(refs[0])
        for etype, words in (("workplace", _WORK_WORDS), ("school", _SCHOOL_WORDS)):
            if len(by_type.get(etype, ())) == 1:
                for w in words:
                    term_refs.setdefault(w, set()).add(by_type[etype][0])
        # an ambiguous alias (two entities) resolves to none, except an exact name/slug of one of them
        self._term_ref: dict[str, str] = {}
        for t, refs in term_refs.items():
            if len(refs) == 1:
                self._term_ref[t] = next(iter(refs))
            else:
                exact = [r for r in refs if parse_ref(r)[1].replace("_", " ") == t]
                if len(exact) == 1:
                    self._term_ref[t] = exact[0]
        # the terms in the regex's order (longest first); each with the word a text must hold for the term
        # to match in it (`_present`): its first word, or None when that word is not ASCII (always tried)
        self._terms = sorted(self._term_ref, key=lambda t: (-len(t), t))
        self._first = [(t, w if w.isascii() else None, w.isalnum()) for t in self._terms for w in t.split()[:1]]

    def _present(self, text: str) -> tuple[str, ...]:
        """The terms that may match in `text`, in the regex's order: a term's first word, matched
        case-insensitively, is in the text. Compiling the regex of every known term was most of what a
        contact's matcher cost, and a new entity (a graph that grew) meant a new one; a message names
        few of them. The regex of these terms finds in `text` what the regex of all would: a term left
        out matches nowhere in it. Conservative for an ASCII word: the characters `re.IGNORECASE`
        matches with an ASCII letter are that letter in either case and _ASCII_FOLDS, all folded here
        (tests/test_entities.py checks the list against every code point). A first word of letters and
        digits only must be a whole word of the text (the regex's boundaries: no letter or digit
        beside it), any other be in it."""
        folded = text.translate(_ASCII_FOLDS).lower()
        words = set(_ALNUM_RE.findall(folded))
        return tuple(t for t, w, whole in self._first if w is None or (w in words if whole else w in folded))

    def find(self, text: str) -> list[str]:
        if not text:
            return []
        hits: list[tuple[int, str]] = []
        rx = _term_regex(self._present(text)) if self._terms else None
        if rx is not None:
            for m in rx.finditer(text):
                ref = self._term_ref.get(" ".join(re.split(r"[\s_\-]+", m.group().casefold())))
                if ref:
                    hits.append((m.start(), ref))
        if self._phonetic:
            for m in _WORD_RE.finditer(text):
                w = m.group()
                if len(w) >= 5 and w.isascii() and w.isalpha():
                    ref = self._phonetic.get(phonetic_key(w))
                    if ref:
                        hits.append((m.start(), ref))
        hits.sort()
        seen: dict[str, None] = {}
        for _, ref in hits:
            seen.setdefault(ref, None)
        return list(seen)


# the characters other than ASCII letters that `re.IGNORECASE` matches with an ASCII letter: the
# capital I with dot and the dotless i (i), the long s (s), the Kelvin sign (k)
_ASCII_FOLDS = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}
_ALNUM_RE = re.compile(r"[^\W_]+")  # the runs of letters and digits, between the regex's boundaries


@lru_cache(maxsize=4096)
def _term_regex(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    """One alternation of `terms` (in this order: the first that matches at a place wins), each a
    whole word or words (any run of spaces, underscores or hyphens between them)."""
    if not terms:
        return None
    alts = "|".join(r"[\s_\-]+".join(re.escape(w) for w in t.split()) for t in terms)
    return re.compile(rf"(?<![^\W_])(?:{alts})(?![^\W_])", re.IGNORECASE)


def _signature(known: Mapping[str, Mapping[str, Any]]) -> tuple:
    sig = []
    for ref in sorted(known):
        ent = known[ref] or {}
        meta = ent.get("metadata") or {}
        aliases = meta.get("aliases") or ()
        sig.append((ref, ent.get("displayName"), meta.get("species"), meta.get("relation"),
                    tuple(a for a in aliases if isinstance(a, str))))
    return tuple(sig)


@lru_cache(maxsize=512)
def _index_for(sig: tuple) -> MentionIndex:
    known = {ref: {"displayName": disp, "metadata": {"species": sp, "relation": rel, "aliases": list(al)}}
             for ref, disp, sp, rel, al in sig}
    return MentionIndex(known)


def find_mentions(text: str, known: Mapping[str, Mapping[str, Any]] | Iterable[str]) -> list[str]:
    """Refs of known entities named in `text` (display name, slug, alias, kin word or variant).

    `known` maps ref -> entity record; a plain iterable of refs is accepted too (names from slugs)."""
    if not text or not known:
        return []
    if not isinstance(known, Mapping):
        known = {r: {} for r in known}
    return _index_for(_signature(known)).find(text)
