"""Okapi BM25 over one contact's memories: the keyword side of retrieval.

People ask for names, places and dates that embeddings blur ("When did Caroline go to the support
group?"). PostgreSQL's ts_rank has no IDF, so retrieval ranks by BM25 (k1=1.5, b=0.75, lower-cased word
tokens of "speaker: content"). The projector keeps each memory's term counts in the projection
(`domain.text.doc_row`, tables memory_terms and memory_term_docs), and the API scores a query from the
postings of its terms (projections/store.py, Store.keyword_search). `BM25Index` is the reference that scoring must
equal (tests/test_lexical_pg.py), and what the API builds, as before, for a contact whose memories
predate those tables (kept until the contact's state changes, its `seq`; an LRU bounds the memory).
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Iterable

import snowballstemmer
from cachetools import LRUCache

from domain.text import STOP, doc_terms, words

# pseudo-relevance feedback (BM25Index.search): measured on LoCoMo dev, both conversations gained
FEEDBACK_DOCS = 3
FEEDBACK_TERMS = 5
FEEDBACK_SHARE = 0.5


def feedback_limit(n_docs: int) -> int:
    """A feedback term is in at most this many of the n docs (a tenth: rare enough to be telling)."""
    return max(2, n_docs // 10)


def with_feedback(first: dict[str, float], second: dict[str, float]) -> dict[str, float]:
    """The first search's scores, and the feedback search's at most FEEDBACK_SHARE of the best first score
    (both best first; the result lists the first's docs, then the second's new ones)."""
    if not first or not second:
        return first
    scale = FEEDBACK_SHARE * max(first.values()) / max(second.values())
    out = dict(first)
    for d, v in second.items():
        out[d] = max(out.get(d, 0.0), v * scale)
    return out


def query_terms(text: str) -> list[str]:
    return [t for t in dict.fromkeys(words(text)) if t not in STOP]


# A question's words in the other forms of the same stem ("Where has Melanie camped?" is answered by "my
# family camping at the beach"): the postings hold the words as said, so the question's other forms are
# looked up in a search of their own, whose scores add VARIANT_SHARE of theirs to the question's own
# (a form is weaker evidence than the word itself: counted in full, LoCoMo dev recall@1200 and R@10 rose
# but MRR fell on both conversations). Only the query side changes; a form nobody said matches nothing.
VARIANT_SHARE = 0.5
_stemmer = snowballstemmer.stemmer("english")


def _candidates(stem: str) -> set[str]:
    out = {stem + x for x in ("", "s", "es", "ed", "ing", "ings", "er", "ers", "ation", "ations")}
    if stem.endswith("e"):  # hike: hiking, hiked
        out |= {stem[:-1] + x for x in ("ing", "ings", "ed", "er", "ers", "ation")}
    else:  # bake(d): the e the stem dropped
        out |= {stem + x for x in ("e", "es", "ed", "er", "ers")}
    if stem.endswith("i"):  # studi: study, studying, studies, studied
        out |= {stem[:-1] + x for x in ("y", "ying", "ies", "ied")}
    if len(stem) >= 3 and stem[-1] not in "aeiouwxy" and stem[-2] in "aeiou" and stem[-3] not in "aeiou":
        out |= {stem + stem[-1] + x for x in ("ing", "ed", "er", "ers")}  # run: running, shop: shopped
    return out


@lru_cache(maxsize=20_000)
def forms(term: str) -> tuple[str, ...]:
    """The common English forms of `term` that share its Snowball stem, the term itself first:
    "camped" -> camped, camp, camping, camps, ...; "hikes" -> hikes, hike, hiked, hiking, .... Words under
    four characters or holding a digit are only themselves, and so are adverbs in -ly, whose stem is
    another word ("likely" is not "like", "recently" not "recent")."""
    if len(term) < 4 or any(c.isdigit() for c in term) or term.endswith("ly"):
        return (term,)
    stem = _stemmer.stemWord(term)
    return (term,) + tuple(sorted(w for w in _candidates(stem) - {term}
                                  if len(w) >= 3 and _stemmer.stemWord(w) == stem))


def other_forms(terms: list[str]) -> list[str]:
    """The other forms of the terms (`forms`), each once, none of them a term itself, in the terms' order."""
    own = set(terms)
    return [f for f in dict.fromkeys(f for t in terms for f in forms(t)[1:]) if f not in own]


def with_forms(own: dict[str, float], others: dict[str, float], share: float | None = None) -> dict[str, float]:
    """The question's own BM25 scores plus `share` (VARIANT_SHARE) of its other forms' search's."""
    share = VARIANT_SHARE if share is None else share
    if share <= 0 or not others:
        return own
    out = dict(own)
    for d, v in others.items():
        out[d] = out.get(d, 0.0) + share * v
    return out


class BM25Index:
    def __init__(self, docs: Iterable[tuple[str, str]], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        postings: dict[str, list[tuple[str, int]]] = {}
        self.lengths: dict[str, int] = {}
        self.terms: dict[str, tuple[tuple[str, int], ...]] = {}  # the (shared, memoised) counts of each doc
        for doc_id, text in docs:
            self.lengths[doc_id], counts = doc_terms(text)
            self.terms[doc_id] = counts
            for term, tf in counts:
                postings.setdefault(term, []).append((doc_id, tf))
        # tuples, not lists: the collector stops tracking tuples (and then dicts) of plain values, and a
        # full collection over a thousand cached indexes' lists took ~150 ms (a stall every request felt)
        self.postings = {t: tuple(p) for t, p in postings.items()}
        n = len(self.lengths)
        self.avgdl = (sum(self.lengths.values()) / n) if n else 0.0
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}

    def scores(self, terms: list[str]) -> dict[str, float]:
        out: dict[str, float] = {}
        for term in terms:
            w = self.idf.get(term)
            if not w:
                continue
            for doc_id, tf in self.postings[term]:
                norm = self.k1 * (1 - self.b + self.b * self.lengths[doc_id] / self.avgdl) if self.avgdl else self.k1
                out[doc_id] = out.get(doc_id, 0.0) + w * tf * (self.k1 + 1) / (tf + norm)
        return out

    def top(self, terms: list[str], k: int) -> dict[str, float]:
        s = self.scores(terms)
        return dict(sorted(s.items(), key=lambda x: (-x[1], x[0]))[:k])

    def expansion(self, top_ids: list[str], query: list[str], n: int) -> list[str]:
        """Pseudo-relevance feedback: the n terms that best characterise the best-matching docs (summed
        tf x idf over them, rare enough to be telling: in at most a tenth of the docs), not in the query."""
        weight: dict[str, float] = {}
        limit = feedback_limit(len(self.lengths))
        for d in top_ids:
            for term, tf in self.terms.get(d, ()):
                if term in query or len(term) < 3 or len(self.postings.get(term, ())) > limit:
                    continue
                weight[term] = weight.get(term, 0.0) + tf * self.idf.get(term, 0.0)
        return [t for t, _ in sorted(weight.items(), key=lambda x: (-x[1], x[0]))[:n]]

    def search(self, terms: list[str], k: int) -> dict[str, float]:
        """The top k docs for the query's terms, and those of a second search with the terms that
        characterise its FEEDBACK_DOCS best matches (expansion), at most FEEDBACK_SHARE of the best score.
        A question whose answer spans several messages ("What activities does Melanie do with her
        family?") matches one of them by its words; the feedback search finds others that share that
        one's telling words (the kids, the campfire) but none of the question's."""
        first = self.top(terms, k)
        extra = self.expansion(list(first)[:FEEDBACK_DOCS], terms, FEEDBACK_TERMS) if first else []
        return with_feedback(first, self.top(extra, k) if extra else {})


class IndexCache:
    """(schema, tenant, contact) -> (seq, index), least recently used out first (cachetools.LRUCache)."""

    def __init__(self, size: int = 2000):
        self.size = size
        self._d: LRUCache[tuple, tuple[int, BM25Index]] = LRUCache(maxsize=size)

    def get(self, key: tuple, seq: int) -> BM25Index | None:
        hit = self._d.get(key)  # a hit is the most recently used
        if hit is None or hit[0] != seq:
            return None
        return hit[1]

    def put(self, key: tuple, seq: int, index: BM25Index) -> None:
        self._d[key] = (seq, index)  # the least recently used goes when over `size`
