"""The crisis detector's reading of a message: normalisation (chat spellings, leetspeak, typos folded
onto the keywords), the parsed document (`parse` -> words, spans, sentences, quoted spans), and who a
phrase is about (subject, speaker, negation). `agents/core/crisis.py` reads its rules over this; see its
docstring for the whole pipeline.
"""
from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rapidfuzz.distance import OSA

# ------------------------------------------------------------------------------------ normalisation
_TOKEN = re.compile(r"[^\W_]+(?:['’‘`´ʼ*][^\W_]+)*", re.UNICODE)
_INNER = re.compile(r"['’‘`´ʼ*]")
_SQUEEZE = re.compile(r"(.)\1{2,}")
_SENTENCE_BREAK = re.compile(r"[.!?;:\n]")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "@": "a", "$": "s"})

# chat spellings -> words (applied after apostrophes are removed and stretched letters squeezed)
_EXPAND: dict[str, str] = {
    "wanna": "want to", "wana": "want to", "wanan": "want to", "wnana": "want to", "wanta": "want to",
    "wantto": "want to", "wannna": "want to", "gonna": "going to", "gona": "going to", "gunna": "going to",
    "gnna": "going to", "finna": "going to", "boutta": "about to", "bouta": "about to", "imma": "i am going to",
    "ima": "i am going to", "tryna": "trying to", "gotta": "got to", "hafta": "have to", "needa": "need to",
    "im": "i am", "ive": "i have", "id": "i would", "ill": "i will", "dont": "do not", "doesnt": "does not",
    "didnt": "did not", "cant": "can not", "cannot": "can not", "cnt": "can not", "cann0t": "can not",
    "wont": "will not", "wouldnt": "would not", "couldnt": "could not", "shouldnt": "should not",
    "isnt": "is not", "arent": "are not", "wasnt": "was not", "werent": "were not", "aint": "am not",
    "havent": "have not", "hasnt": "has not", "hadnt": "had not", "dnt": "do not", "dont": "do not",
    "u": "you", "youre": "you are", "yall": "you all", "hes": "he is", "shes": "she is",
    "theyre": "they are", "theyd": "they would", "itll": "it will", "youll": "you will", "theyll": "they will",
    "thatll": "that will", "smth": "something", "hed": "he would", "whats": "what is", "wats": "what is",
    "wuts": "what is", "thats": "that is", "theres": "there is", "idk": "i do not know",
    "idc": "i do not care", "rn": "right now", "tn": "tonight", "tonite": "tonight", "2nite": "tonight",
    "2day": "today", "tmrw": "tomorrow", "tmr": "tomorrow", "tomorow": "tomorrow", "2morrow": "tomorrow",
    "anymor": "anymore", "anymroe": "anymore", "nomore": "no more", "alot": "a lot", "cuz": "because",
    "coz": "because", "bc": "because", "cause": "because", "selfharm": "self harm",
    "selfharming": "self harming", "killmyself": "kill myself", "kilmyself": "kill myself",
    "endmylife": "end my life", "iwanttodie": "i want to die", "wanttodie": "want to die",
    "iwannadie": "i want to die", "wannadie": "want to die", "sewerslide": "suicide", "sewerslided": "suicide",
    "selfdelete": "self delete", "todie": "to die", "2die": "to die", "tdie": "to die", "unaliv": "unalive",
    "themself": "themselves", "theirself": "themselves",
    "hisself": "himself", "noone": "no one", "nobodys": "nobody", "everyones": "everyone",
}
# frequent typos of the words the rules look for
_TYPOS: dict[str, str] = {
    "wnat": "want", "wamt": "want", "watn": "want", "wnt": "want", "whant": "want", "wannt": "want",
    "dei": "die", "diee": "die", "kil": "kill", "kll": "kill", "kiil": "kill", "kilk": "kill",
    "myslef": "myself", "mysefl": "myself", "mysef": "myself", "myslf": "myself", "meself": "myself",
    "myselff": "myself", "alivee": "alive", "tierd": "tired", "thinkin": "thinking", "tryin": "trying",
    "killin": "killing", "cuttin": "cutting", "hurtin": "hurting", "feelin": "feeling", "nothin": "nothing",
    "livin": "living", "somethin": "something", "goin": "going", "jus": "just", "jsut": "just", "juts": "just",
    "ppl": "people",
}
# long keywords matched within a small edit distance ("sucide", "suicidial", "anymoer")
_FUZZY = ("suicide", "suicidal", "myself", "anymore")
_NOT_FUZZY = frozenset("suicides himself herself itself yourself ourselves thyself anyone anytime mysql".split())


def _osa(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (edits incl. adjacent transpositions; rapidfuzz's OSA, not its
    unrestricted Damerau-Levenshtein), capped at limit+1."""
    return OSA.distance(a, b, score_cutoff=limit)


# typos of the words the rules turn on ("wishse", "enver", "pils", "tonigth", "goodbey"): a token of 4+ letters
# within one edit (an adjacent transposition counts as one) of exactly one of these keywords becomes that
# keyword, unless it is an English word of its own (REAL_WORDS_PATH: the words of the embedder's vocabulary one
# edit away from a keyword, "bills" next to "pills", "fever" next to "never"; rebuilt by `python -m
# ops.crisis_words`) or an inflection or a cut of the keyword ("overdosed", "pill")
TYPO_KEYWORDS = tuple(sorted(set("""never myself alive living dying wishing wished wishes pills tablets overdose
sleeping bridge tonight tomorrow goodbye forever everyone everything without better nobody burden decided planned ending
cutting razor blades noose hanging jumping wrists bleeding hurting harming wanting anything through thinking
nothing reason disappear exist existing killing suicide suicidal anymore deserve rather honestly wanted sorry
wake""".split())))
REAL_WORDS_PATH = Path(__file__).parent / "data" / "crisis_real_words.txt"


def _deletes(w: str) -> set[str]:
    return {w[:k] + w[k + 1:] for k in range(len(w))}


_TYPO_INDEX: dict[str, set[str]] = {}
for _kw in TYPO_KEYWORDS:
    for _v in _deletes(_kw) | {_kw}:
        _TYPO_INDEX.setdefault(_v, set()).add(_kw)


@lru_cache(maxsize=1)
def _real_words() -> frozenset[str]:
    if not REAL_WORDS_PATH.exists():
        return frozenset()
    return frozenset(w for w in REAL_WORDS_PATH.read_text(encoding="utf-8").split() if not w.startswith("#"))


def typo_candidates(t: str, guard: frozenset[str] | None = None) -> list[str]:
    """The keywords one edit away from token t (none for a keyword, a real word, an inflection or a cut)."""
    guard = _real_words() if guard is None else guard
    if len(t) < 4 or t in _TYPO_INDEX.get(t, ()) or t in guard or not t.isalpha():
        return []
    cands: set[str] = set(_TYPO_INDEX.get(t, ()))
    for v in _deletes(t):
        cands |= _TYPO_INDEX.get(v, set())
    return sorted(kw for kw in cands if len(kw) >= 5 and not t.startswith(kw) and not kw.startswith(t)
                  and abs(len(kw) - len(t)) <= 1 and _osa(t, kw, 1) <= 1)


_CONTRACTION = re.compile(r"([a-z]+)['’‘`´ʼ](ll|re|ve|d)")
_CONTRACTED = {"ll": "will", "re": "are", "ve": "have", "d": "would"}


@lru_cache(maxsize=50_000)  # the same words come back message after message (a fuzzy match runs an edit distance)
def _fold_token(raw: str) -> tuple[str, ...]:
    t = "".join(c for c in unicodedata.normalize("NFKD", raw) if not unicodedata.combining(c)).casefold()
    m = _CONTRACTION.fullmatch(t)
    if m:  # "she'll" is "she will" (not "shell"), "they'd" is "they would"; "n't" and "'s" are folded below
        return (m.group(1), _CONTRACTED[m.group(2)])
    t = _INNER.sub("", t)
    t = _SQUEEZE.sub(r"\1", t)
    if t[:1].isalpha() and any(c.isdigit() for c in t):
        t = t.translate(_LEET)  # "k1ll", "su1c1de", "d13" (never "3am", "5kms": they start with a digit)
    if t in _TYPOS:
        t = _TYPOS[t]
    if t in _EXPAND:
        return tuple(_EXPAND[t].split())
    if len(t) >= 5 and t not in _NOT_FUZZY and t not in _FUZZY:
        for kw in _FUZZY:
            limit = 2 if len(kw) >= 8 else 1
            if t[0] == kw[0] and _osa(t, kw, limit) <= limit:
                return (kw,)
    near = typo_candidates(t) if t not in _NOT_FUZZY else []
    if len(near) == 1:
        return (near[0],)
    return (t,)


_QUOTED = re.compile(r'"[^"\n]{1,400}"|“[^”\n]{1,400}”|«[^»\n]{1,400}»|„[^“”\n]{1,400}[“”]'
                     r"|(?<![^\W_])['‘][^\n]{1,400}?['’](?![^\W_])")
_MEDIA = frozenset("""song songs lyric lyrics album track movie movies film films show series episode book
novel poem quote quotes quoting scene character characters anime manga game meme band singer rapper sings
sang singing playlist spotify title titled rap verse chorus tiktok youtube video netflix trailer musical
mixtape podcast tv play plays opera sitcom drama documentary youtuber comic comics""".split())
_TITLE_CUES = frozenset("called titled named song lyrics lyric quote quoting singing sings sang listening "
                        "album track".split())
_TITLE_SKIP = frozenset("i to the a an".split())  # may stand between a title cue and the title


@dataclass
class _Doc:
    text: str
    words: list[str]          # folded words, "|" = sentence boundary
    spans: list[tuple[int, int]]  # each word's span in the original text ((-1, -1) for "|")
    norm: str                 # " ".join(words)
    starts: list[int]         # char offset of each word in norm
    quoted: list[tuple[int, int]]

    def sentence_words(self, i: int) -> list[str]:
        """The words of the sentence word i is in (between two "|" marks)."""
        lo = i
        while lo > 0 and self.words[lo - 1] != "|":
            lo -= 1
        hi = i
        while hi < len(self.words) and self.words[hi] != "|":
            hi += 1
        return self.words[lo:hi]

    def sentence_has(self, i: int, vocabulary: frozenset[str]) -> bool:
        """Whether the sentence of word i holds a word of `vocabulary`."""
        return any(w in vocabulary for w in self.sentence_words(i))

    def after_title_cue(self, i: int) -> bool:
        """"the song called I want to die", "listening to I want to die": a title, not an intent."""
        for w in reversed(self.before(i, 3)):
            if w in _TITLE_CUES:
                return True
            if w not in _TITLE_SKIP:
                return False
        return False

    def word_at(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos) - 1

    def before(self, i: int, n: int) -> list[str]:
        """Up to n words before word i, within the sentence."""
        out: list[str] = []
        k = i - 1
        while k >= 0 and len(out) < n and self.words[k] != "|":
            out.insert(0, self.words[k])
            k -= 1
        return out

    def after(self, j: int, n: int) -> list[str]:
        """Up to n words from word j on, within the sentence."""
        out: list[str] = []
        k = j
        while k < len(self.words) and len(out) < n and self.words[k] != "|":
            out.append(self.words[k])
            k += 1
        return out


def _parse(text: str) -> _Doc:
    words: list[str] = []
    spans: list[tuple[int, int]] = []
    last_end = 0
    for m in _TOKEN.finditer(text):
        if words and _SENTENCE_BREAK.search(text, last_end, m.start()) and words[-1] != "|":
            words.append("|")
            spans.append((-1, -1))
        for w in _fold_token(m.group()):
            words.append(w)
            spans.append((m.start(), m.end()))
        last_end = m.end()
    starts, pos = [], 0
    for w in words:
        starts.append(pos)
        pos += len(w) + 1
    quoted = [(q.start(), q.end()) for q in _QUOTED.finditer(text)]
    return _Doc(text, words, spans, " ".join(words), starts, quoted)



@lru_cache(maxsize=64)
def parse(text: str) -> _Doc:
    """The parsed message, shared by the rules and the risk model's word features (never mutated)."""
    return _parse(text)


# ------------------------------------------------------------------------------------------- subjects
_FIRST = frozenset("i me myself we us".split())
_SECOND = frozenset("you ya yourself".split())
_PERSON = frozenset("""he she they him her them himself herself themselves friend friends bestie bff
buddy pal mate brother bro sister sis sibling siblings mom mum mommy mother dad daddy father parent
parents son daughter kid child cousin wife husband partner boyfriend girlfriend bf gf fiance fiancee ex
roommate flatmate coworker colleague classmate student students patient client someone somebody anyone
anybody neighbor neighbour uncle aunt auntie grandma grandpa grandmother grandfather nephew niece teen
teenager guy girl boy man woman lady crush bestfriend""".split())
# people the speaker knows: real even when the sentence mentions a film or a song
_RELATIONS = _PERSON - frozenset("he she they him her them himself herself themselves guy girl boy man woman lady "
                                 "someone somebody anyone anybody".split())
_GENERIC = frozenset("people persons folks humans everyone everybody teens teenagers men women kids "
                     "adults society".split())
_FICTION = frozenset("character characters protagonist villain hero heroine narrator antagonist mc "
                     "npc".split())
_NONPERSON = frozenset("it its this that is was are were has does seems".split())
_CONJ = frozenset("and but so because or then though although while".split())


def _subject(doc: _Doc, i: int, inflected: bool) -> tuple[str, int | None]:
    """The subject of the phrase starting at word i: (kind, word index).

    kind: first | second | third | generic | fiction | other (non-person) | implicit (none found)."""
    infinitive = i > 0 and doc.words[i - 1] in ("to", "2")
    crossed = False
    nonperson: int | None = None
    k, steps = i - 1, 0
    while k >= 0 and steps < 8 and doc.words[k] != "|":
        w = doc.words[k]
        kind = None
        if w in _CONJ:
            crossed = True
        elif w in _FIRST:
            return "first", k
        elif w in _SECOND:
            kind = "second"
        elif w in _PERSON:
            kind = "third"
        elif w in _GENERIC:
            kind = "generic"
        elif w in _FICTION:
            kind = "fiction"
        elif w in _NONPERSON and not infinitive and nonperson is None:
            nonperson = k
        if kind is not None:
            if crossed and not inflected and kind != "second":
                return "implicit", None  # "my friend is awful and wanna die": the speaker's own clause
            return kind, k
        k -= 1
        steps += 1
    if nonperson is not None and not (crossed and not inflected):
        return "other", nonperson
    if inflected:
        return "other", None  # "wants to die" with no person named: not the speaker
    return "implicit", None


_OBJECTS = frozenset("me us him her them myself himself herself themselves".split())


def _speaker(doc: _Doc, k: int) -> str | None:
    """Who utters the words starting at word k (a quote): the nominative subject before it."""
    for w in reversed(doc.before(k, 8)):
        if w in _OBJECTS:
            continue
        if w in _FIRST:
            return "first"
        if w in _PERSON or w in _SECOND:
            return "third"
        if w in _FICTION:
            return "fiction"
    return None


_NEG_DOUBLE = re.compile(r"\b(?:can|could) not not\b")
_NEG_ONGOING = re.compile(r"\b(?:can|could|do|did|will|would) not stop\b|\bnot (?:going to )?lie\b")
_NEG_URGE = re.compile(r"\b(?:try|trying|tried|hard|struggling|fighting|resisting|resist|working) "
                       r"(?:so hard |really hard |hard )?not\b")
_NEG = re.compile(r"\b(?:not|never|nor|stopped|quit|no longer|nt|(?:no|zero) (?:thoughts?|plans?|intentions?|intent|urges?|"
                  r"desire|wish|way|chance))\b")
# a denial framing the clause: "it's not like I want to die", "not that I would ever ..."
_DENIED_FRAME = re.compile(r"\bnot (?:like|that)$")


def _negated(words: list[str]) -> bool:
    s = " ".join(words)
    s = _NEG_DOUBLE.sub(" ", s)  # "i can't not think about it": the thought is there
    s = _NEG_ONGOING.sub(" ", s)
    s = _NEG_URGE.sub(" ", s)
    return bool(_NEG.search(s))
