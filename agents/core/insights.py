"""What a recurring theme is about, in words a reader can use: a short label made of the phrases its
episodes share and the contact's other episodes do not, and a few distinct examples. Pure functions
over texts; the consolidation tier (agents/core/consolidation.py) calls them when a theme is founded
or grows.

A label is "topic: detail, detail": the topic is the phrase most of the theme's episodes use, weighted
by how rare it is in the contact's other episodes (inverse document frequency); the details are the
next phrases that do not repeat its words. Phrases are runs of one to three words inside a clause that
neither start nor end with a stop word, so every word of a label is a word of the episodes. Phrase
counts are kept per theme (bounded), so a theme that grows for a year is labelled by all of it, not
by the few snippets it keeps.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from typing import Iterable

from agents.core.memory import normalize_text
from domain.text import words

# words that carry no content (also what the merge's specificity does not count)
GLUE = frozenset("""a an the and or but if then so to of in on at for with from by about as is are was were be been
being i im i'm me my mine we our you your he she they them his her their it its this that these those there here
have has had do does did not no just really very too also again today tonight yesterday tomorrow got get went go
going will would can could should some any all one two more most much many lot
""".split())
# and what says nothing about what a theme is about: time words, and the verbs and adjectives everyone
# uses for everything ("had", "great", "feeling")
STOP = GLUE | frozenset("""
am ll ve re don didn doesn isn wasn aren can't won't it's that's i've i'll i'd he's she's we're they're what when
where who whom which why how than into over under out up down off only own same other such each every both few
still even now yet ever never always often sometimes already soon later week weekend month year day days night
morning evening afternoon time times last next new old good great nice fine bad awesome amazing cool fun lovely
okay ok pretty kind sort thing things stuff something anything everything nothing way lol haha yeah yes wow
spent met talked hours minutes instead whole thanks thank hey hi hello glad congrats sure yay feel feeling felt think thought know knew want wanted need needed like liked make made take took say said tell
told let keep kept come came see saw look looked try tried use used give gave put find found seem seemed
""".split())
# what was done rather than what it was about; such a phrase may be a detail, not the topic
DOING = frozenset("""fixed tried cleaned painted baked cooked played watched read learned bought ate drank ran walked
visited called wrote finished started joined went made took spent met talked recommended chewed praised hit did
shipped packed turned asked bought lead led prepped""".split())
_BEING = frozenset("is was are were been be so very too really".split())
_CLAUSE = re.compile(r"[.,;:!?()\"“”…\n–—]+|\s-\s")
MAX_WORDS = 3
PHRASES_KEPT = 60      # per theme: the most frequent candidate phrases, for labelling as it grows
DETAILS = 3
EXAMPLES = 5            # up to: a pattern also stays within consolidation.PATTERN_CHARS
SAME_EXAMPLE = 0.6     # word overlap (Jaccard) at which two examples say the same thing


# words a phrase does not run across: "work was stressful" is two things said, "work" and "stressful"
BREAKS = frozenset("""is are was were be been being am i i'm me we you he she they it it's and or but so because
then when while if that which who""".split())


def _runs(clause: str) -> list[list[str]]:
    runs, run = [], []
    for w in words(clause, joined=True):
        if w in BREAKS:
            runs.append(run)
            run = []
        else:
            run.append(w)
    return [r for r in runs + [run] if r]


@lru_cache(maxsize=20_000)  # a theme's texts are counted again each time its tier runs
def phrases(text: str) -> frozenset[str]:
    """The candidate phrases of one text (lower-cased, each counted once per text)."""
    out: set[str] = set()
    for ws in (r for clause in _CLAUSE.split(text) for r in _runs(clause)):
        for n in range(1, MAX_WORDS + 1):
            for i in range(len(ws) - n + 1):
                gram = ws[i:i + n]
                if gram[0] in STOP or gram[-1] in STOP or any(w.isdigit() or len(w) < 3 and w not in ("tv", "pc")
                                                              for w in (gram[0], gram[-1])):
                    continue
                out.add(" ".join(gram))
    return frozenset(out)


def count_phrases(texts: Iterable[str], prior: dict[str, int] | None = None) -> dict[str, int]:
    """Document frequency of candidate phrases over `texts`, added to `prior`, the PHRASES_KEPT most
    frequent kept (ties: the shorter, then alphabetical, so the result is deterministic)."""
    c = Counter(prior or {})
    for t in texts:
        c.update(phrases(t))
    top = sorted(c.items(), key=lambda x: (-x[1], len(x[0]), x[0]))[:PHRASES_KEPT]
    return dict(top)


@lru_cache(maxsize=4096)
def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"(?:(\S+)\s+)?\b(" + r"[\s-]+".join(re.escape(w) for w in phrase.split()) + r")\b",
                      re.IGNORECASE)


@lru_cache(maxsize=100_000)  # a theme's label is chosen again on every periodic run, over mostly the same texts
def _occurrences_in(phrase: str, text: str) -> tuple[tuple[str, str], ...]:
    # The regex (an optional word before, tried at every position) is slow on a text that cannot match.
    # Between an ASCII text and an ASCII phrase, IGNORECASE is plain ASCII case folding, so a text that
    # lacks one of the phrase's words in lower case cannot match; non-ASCII ones always go to the regex
    # (its Unicode case folding matches "ſ" to "s", "K" to "k").
    if phrase.isascii() and text.isascii():
        lower = text.lower()
        if not all(w in lower for w in phrase.lower().split()):
            return ()
    return tuple(((m.group(1) or "").lower(), " ".join(m.group(2).split()))
                 for m in _phrase_pattern(phrase).finditer(text))


def _occurrences(phrase: str, texts: list[str]) -> list[tuple[str, str]]:
    """(the word before, the phrase as written) for each place a text uses the phrase."""
    return [o for t in texts for o in _occurrences_in(phrase, t)]


def _display(phrase: str, texts: list[str]) -> str:
    """The phrase as the episodes write it: a name keeps its capitals ("Cubbon Park", "pizza at
    Indiranagar"), a word capitalised only where a sentence starts does not ("Hit a new record" -> "hit")."""
    def named(word: str) -> bool:
        return any(w[:1].isupper() and before and not before.endswith((".", "!", "?", ":"))
                   for before, w in _occurrences(word, texts))

    return " ".join(w.capitalize() if named(w) else w for w in phrase.split())


def _said_of_something(phrase: str, texts: list[str]) -> bool:
    """Whether the phrase mostly follows "was", "so", "very", ...: what something was ("hectic"), not a
    thing to talk about."""
    found = _occurrences(phrase, texts)
    return bool(found) and sum(before in _BEING for before, _ in found) * 2 >= len(found)


def label(counts: dict[str, int], size: int, background: dict[str, int], background_size: int,
          texts: list[str], topic: str | None = None, speakers: Iterable[str] = ()) -> str:
    """"topic: detail, detail, detail" for a theme of `size` episodes whose phrase counts are `counts`,
    against the contact's other episodes (`background`, `background_size` of them). `topic` (an
    entity's name) replaces the chosen topic; `texts` give the phrases their written form; the
    speakers' own names (and their short forms: "Mel" for Melanie) say nothing of what it is about."""
    names = [w for s in speakers for w in words(s, joined=True) if len(w) >= 3]
    def weight(p: str) -> float:
        idf = math.log((background_size + 1) / (background.get(p, 0) + 1)) + 1.0
        return counts[p] / max(size, 1) * idf * (1 + 0.25 * (len(p.split()) - 1))

    def best(among: list[str]) -> list[str]:
        # a longer phrase stands for its parts when it is nearly as frequent ("paneer tikka" over "tikka")
        whole = [p for p in among if not any(q != p and f" {p} " in f" {q} " and counts[q] >= 0.8 * counts[p]
                                             for q in among)]
        return sorted(whole, key=lambda p: (-weight(p), p))

    usable = [p for p, n in counts.items() if (n >= 2 or size < 2)
              and not any(n.startswith(w) for w in p.split() if len(w) >= 3 for n in names)]
    taken: set[str] = set(words(topic, joined=True)) if topic else set()
    if not topic:
        # the topic is what the theme is about: a name or a thing, not what was done ("fixed my bike")
        ranked = best([p for p in usable if p.split()[0] not in DOING and not _said_of_something(p, texts)]) \
            or best(usable)
        if ranked:
            topic = _display(ranked[0], texts)
            taken |= set(ranked[0].split())
    chosen: list[str] = []
    for p in best([p for p in usable if not taken & set(p.split()) and not (" " not in p and p in DOING)]):
        if len(chosen) == DETAILS:
            break
        if taken & set(p.split()):
            continue
        chosen.append(_display(p, texts))
        taken |= set(p.split())
    if not topic:
        return "everyday life"
    return f"{topic}: {', '.join(chosen)}" if chosen else topic


@lru_cache(maxsize=20_000)  # examples() compares each text with every one chosen so far
def _content(text: str) -> frozenset[str]:
    return frozenset(w for w in normalize_text(text).split() if w not in STOP)


def same_thing(a: str, b: str) -> bool:
    """Two texts that say the same thing for a reader: equal once folded, or mostly the same words."""
    if normalize_text(a) == normalize_text(b):
        return True
    wa, wb = _content(a), _content(b)
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= SAME_EXAMPLE


def examples(texts: list[str], counts: dict[str, int], k: int = EXAMPLES) -> list[str]:
    """Up to k texts that show the theme: the most typical first (the theme's frequent phrases, per
    word), then each next one typical and unlike those chosen (maximal marginal relevance over word
    overlap); never two that say the same thing."""
    def typical(t: str) -> float:
        return sum(counts.get(p, 0) for p in phrases(t)) / math.sqrt(len(words(t, joined=True)) + 1)

    def overlap(a: str, b: str) -> float:
        wa, wb = _content(a), _content(b)
        return len(wa & wb) / len(wa | wb) if wa and wb else 0.0

    scores = [typical(t) for t in texts]
    top = max(scores, default=0.0) or 1.0
    left = list(range(len(texts)))
    out: list[str] = []
    while left and len(out) < k:
        best = max(left, key=lambda i: (scores[i] / top - max((overlap(texts[i], o) for o in out), default=0.0), -i))
        left.remove(best)
        if not any(same_thing(texts[best], o) for o in out):
            out.append(texts[best])
    return out
