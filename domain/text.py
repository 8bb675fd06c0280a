"""Words: the one tokeniser and the one stop-word list, for the fold (summaries, themes, low-content
messages) and the read side (BM25, redundancy, speakers, JSON filtering) alike.

A word is a run of letters and digits (`_` and everything else split), lower-cased before it is split.
`joined=True` keeps an apostrophe or hyphen between two runs inside the word ("don't", "x-ray": a theme's
phrase reads as it was written); everywhere else they split ("don", "t"). Only two tokenisers differ on
purpose and stay with their rules: mood's (agents/core/mood.py, ASCII words of its lexicon) and the
mention matcher's (domain/entities.py, possessives with typographic apostrophes).

What an index keeps of a text (`doc_terms`, `doc_row`) is here too: the projector writes it as postings
(memory_terms) and the API's BM25 (projections/lexical.py, store.py) reads them with the same words.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

WORD = re.compile(r"[^\W_]+")
JOINED_WORD = re.compile(r"[^\W_]+(?:['-][^\W_]+)*")
# Question words and glue that carry no topic: no keyword is one of them (BM25's IDF discounts them
# too, but they would also make any memory a keyword candidate), and no summary sentence is chosen for
# them. Themes (agents/core/insights.py) drop more: the words that say nothing about what a theme is about.
STOP = frozenset("""a an the and or but if of to in on at for from by with about as is are was were be been being
do does did doing have has had having i me my we our you your he him his she her it its they them their
what when where who whom which why how that this these those there here than then so not no yes can could
would should will shall may might must just also very really too into over under again any some all each
""".split())


def words(text: str, *, joined: bool = False) -> list[str]:
    """The lower-cased words of `text` in order (`joined`: "don't" and "x-ray" are one word each)."""
    return (JOINED_WORD if joined else WORD).findall(text.lower())


def content_words(text: str, min_chars: int = 3) -> list[str]:
    """The words that are not stop words, of at least `min_chars` characters, in order."""
    return [w for w in words(text) if w not in STOP and len(w) >= min_chars]


@lru_cache(maxsize=200_000)
def doc_terms(text: str) -> tuple[int, tuple[tuple[str, int], ...]]:
    """(length in words, (term, count) of each term but the stop words): what an index keeps of a text.
    Memoised: a contact's index is rebuilt whenever it gains a memory, from texts it mostly had before.
    Stop words count towards the length but are never queried (lexical.query_terms drops them)."""
    toks = words(text)
    return len(toks), tuple(Counter(t for t in toks if t not in STOP).items())


def doc_text(speaker: str | None, content: str) -> str:
    """The text a memory is indexed by: "speaker: content" (as SQL's coalesce(speaker || ': ', '') || content)."""
    return content if speaker is None else f"{speaker}: {content}"


def doc_row(speaker: str | None, content: str) -> tuple[int, list[str], list[int]]:
    """What the projection keeps of a memory's text: (length, terms, their counts), terms in the order
    doc_terms found them."""
    length, counts = doc_terms(doc_text(speaker, content))
    return length, [t for t, _ in counts], [n for _, n in counts]
