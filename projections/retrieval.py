"""Multi-signal retrieval scoring and budget packing: pure functions over candidate rows.

score = similarity x w_sim + recency x w_rec + importance x w_imp + access_frequency x w_acc
        + entity_match x w_ent
recency = 1 - days_since_access / 365 (clamped to [0, 1]), access_frequency = min(access_count / 20, 1),
both evaluated at `as_of`; an "access" is a use by the contact (a reinforcement or merge: they said it
again), never /context serving it (issue 23: what was shown once was otherwise shown forever). Without a query the seeds' weights per scope rank the working set: contact 0.35/0.25/0.20/0.10/0.10
(seed 000 §2.3), tenant 0.40/0.25/0.20/0.10/0.05 (seed 002 §3.2). With a query relevance comes first
(QUERY_WEIGHTS, which override the seeds' there): measured on the LoCoMo dev split, the seeds' 0.35 on
similarity let recency, importance and access frequency lift memories that do not match the question
above ones that do; recency and importance stay as tie-breakers.
"""
from __future__ import annotations

import math
import re
from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterable

from domain.sessions import SESSION_GAP_S
from domain.text import words


@dataclass(frozen=True)
class Weights:
    similarity: float
    recency: float
    importance: float
    access_frequency: float
    entity_match: float


CONTACT_WEIGHTS = Weights(0.35, 0.25, 0.20, 0.10, 0.10)
TENANT_WEIGHTS = Weights(0.40, 0.25, 0.20, 0.10, 0.05)
WEIGHTS = {"contact": CONTACT_WEIGHTS, "tenant": TENANT_WEIGHTS}
QUERY_WEIGHTS = Weights(0.85, 0.03, 0.07, 0.0, 0.05)

# The episodes said just before and after a relevant memory (the question a reply answers, the answer
# to a question) share this much of its relevance; looked up around the best NEIGHBOUR_ANCHORS. 0.7 since
# repeats follow new messages (context.novelty_first): chosen by cross-validation across the LoCoMo dev
# conversations (`rapport bench locomo --cv`), where each conversation alone chose 0.7 or 0.8 over 0.5.
NEIGHBOUR_SHARE = 0.7
NEIGHBOUR_ANCHORS = 15
NEIGHBOUR_WITHIN_S = SESSION_GAP_S  # one conversation: the silence that ends a session
# how many episodes each side: one, the message and its reply. Two had reached the turn an answer
# continues in (LoCoMo dev recall@1200 +0.015 before repeats followed new messages); since then,
# cross-validated across the dev conversations (`rapport bench locomo --cv`), one each side is chosen by
# conv-26 and read on conv-30 as R@10 0.756 -> 0.784 at recall@1200 -0.004 (README, Benchmarks)
NEIGHBOUR_WIDTH = 1

# A question about how things were: superseded facts become candidates again.
PAST_CUES = re.compile(r"\b(used to|previous(ly)?|former(ly)?|before|earlier|in the past|originally|back then|"
                       r"no longer|any ?more|ex|at first|first time)\b", re.IGNORECASE)


def asks_about_past(query: str | None) -> bool:
    return bool(query and PAST_CUES.search(query))


def recency(accessed_at: datetime | None, as_of: datetime) -> float:
    if accessed_at is None:
        return 0.0
    days = (as_of - accessed_at).total_seconds() / 86400
    return min(1.0, max(0.0, 1.0 - days / 365))


def access_frequency(access_count: int) -> float:
    return min(max(access_count, 0) / 20, 1.0)


def score(*, similarity: float, accessed_at: datetime | None, importance: float, access_count: int,
          entity_match: float, as_of: datetime, weights: Weights = CONTACT_WEIGHTS) -> float:
    return (max(similarity, 0.0) * weights.similarity + recency(accessed_at, as_of) * weights.recency
            + importance * weights.importance + access_frequency(access_count) * weights.access_frequency
            + entity_match * weights.entity_match)


# BM25's share of the hybrid relevance (0.35 and 0.65 measured below 0.5 on LoCoMo dev: README, Benchmarks)
LEXICAL_WEIGHT = 0.5


def relevance(cosine: list[float], keyword: list[float], lexical_weight: float | None = None) -> list[float]:
    """Hybrid relevance of each candidate to the query, in [0, 1]: cosine similarity min-max
    normalised over the candidates, blended with BM25 normalised by the best keyword score. Raw cosine
    from a small model varies little between a relevant and an unrelated memory (0.2-0.6), so the
    0.35 weight alone would let recency decide; normalising spreads the signal over [0, 1]. Without
    any keyword hit the relevance is the normalised cosine alone."""
    if not cosine:
        return []
    lo, hi = min(cosine), max(cosine)
    sem = [(c - lo) / (hi - lo) if hi > lo else 1.0 for c in cosine]
    top = max(keyword) if keyword else 0.0
    lexical_weight = LEXICAL_WEIGHT if lexical_weight is None else lexical_weight
    if top <= 0:
        return sem
    return [(1 - lexical_weight) * s + lexical_weight * (k / top) for s, k in zip(sem, keyword)]


class Timeline:
    """A contact's episodes in the order they were said, to find what was said just before and just after
    a memory: the message a reply answers, and the reply."""

    def __init__(self, docs: Iterable[dict[str, Any]]):
        docs = list(docs)
        self.at = {d["id"]: d["created_at"] for d in docs}
        self.episodes = sorted((d["created_at"], d["id"]) for d in docs if d["memory_type"] == "episode")

    def around(self, anchor_ids: Iterable[str], within_s: float) -> list[tuple[str, str]]:
        """(neighbour id, anchor id): the NEIGHBOUR_WIDTH episodes said just before and after each anchor,
        each within `within_s` of it."""
        out = []
        for a in anchor_ids:
            t = self.at.get(a)
            if t is None:
                continue
            i = bisect_left(self.episodes, (t, a))
            after = i + 1 if i < len(self.episodes) and self.episodes[i][1] == a else i
            for j in range(i - 1, max(-1, i - 1 - NEIGHBOUR_WIDTH), -1):
                if (t - self.episodes[j][0]).total_seconds() > within_s:
                    break
                out.append((self.episodes[j][1], a))
            for j in range(after, min(len(self.episodes), after + NEIGHBOUR_WIDTH)):
                if (self.episodes[j][0] - t).total_seconds() > within_s:
                    break
                out.append((self.episodes[j][1], a))
        return out


def spread_to_neighbours(rel: dict[str, float], neighbours: Iterable[dict[str, Any]],
                         own: Callable[[dict[str, Any]], float]) -> dict[str, float]:
    """Relevance with each neighbour row (carrying `anchor`) raised to NEIGHBOUR_SHARE of its anchor's;
    `own` gives a neighbour's relevance of its own when it was no candidate."""
    out = dict(rel)
    for n in neighbours:
        if n["anchor"] in rel:
            out[n["id"]] = max(out.get(n["id"], own(n)), NEIGHBOUR_SHARE * rel[n["anchor"]])
    return out


# A question that names one of the people who speak in the contact's conversations ("What does Melanie do
# to destress?", a contact whose memories two people said) is about what that person said: the answer
# is in their own messages, which rarely say their own name, while the other person's replies do ("Wow,
# Melanie!"). So the name is left out of the text whose vector is compared (without_names), and the
# memories the named person said keep their relevance while the others' keep (1 - SPEAKER_SHARE) of it.
# Memories without a speaker (patterns, which both speakers' episodes make) are neither. LoCoMo dev
# (README, Benchmarks): the share was chosen from 0.1-0.7 on each conversation alone, and both chose 0.5.
SPEAKER_SHARE = 0.5


def first_name(speaker: str) -> str:
    """The lower-cased first word of a speaker's display name ("Melanie Smith" -> "melanie")."""
    said = words(speaker)
    return said[0] if said else ""


def speakers_named(query: str, speakers: Iterable[str]) -> set[str]:
    """The speakers whose first name the question says."""
    asked = set(words(query))
    return {s for s in speakers if s and first_name(s) in asked}


def without_names(query: str, speakers: Iterable[str]) -> str:
    """The question without the speakers' first names (and their possessive 's), for its vector; the
    question itself when nothing but the names would be left."""
    names = {first_name(s) for s in speakers}
    if not names:
        return query
    kept = re.sub(r"[^\W_]+(?:'s|’s)?", lambda m: "" if re.sub(r"('s|’s)$", "", m.group(0).lower()) in names
                  else m.group(0), query)
    kept = " ".join(kept.split())
    return kept if re.search(r"[^\W_]", kept) else query


def speaker_weighted(rel: dict[str, float], rows: Iterable[dict[str, Any]], named: set[str]) -> dict[str, float]:
    """Relevance with the memories another speaker said down to (1 - SPEAKER_SHARE) of theirs, when the
    question names a speaker and the candidates include another's words (else unchanged: a contact who
    alone speaks loses nothing)."""
    rows = list(rows)
    if not named or all(r.get("speaker") is None or r["speaker"] in named for r in rows):
        return rel
    out = dict(rel)
    for r in rows:
        if r.get("speaker") is not None and r["speaker"] not in named and r["id"] in out:
            out[r["id"]] = out[r["id"]] * (1 - SPEAKER_SHARE)
    return out


def estimate_tokens(text: str, count: Callable[[str], int] | None = None) -> int:
    """Tokens a text costs in a prompt: the local tokenizer's count, never less than ceil(chars / 4)
    (the usual rule for LLM tokenizers), so a budget is not overrun with either kind of model."""
    rough = math.ceil(len(text) / 4)
    return max(rough, count(text)) if count else rough


def pack(items: Iterable[dict[str, Any]], budget: int, cost: Callable[[dict[str, Any]], int]) -> tuple[list, int]:
    """Best-first greedy packing: take items in order while they fit; skip ones that don't."""
    used, out = 0, []
    for it in items:
        c = cost(it)
        if used + c <= budget:
            out.append(it)
            used += c
    return out, used
