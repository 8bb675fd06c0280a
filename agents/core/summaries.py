"""Extractive summaries (offline, deterministic): the rolling summary of a session (every 4 turns,
at most 600 characters), the structured session summary when a session closes, and the permanent
profile paragraph rebuilt whole from the contact's durable facts (seeds 003 and 004).

Sentence salience is a small, explainable score: content words weighted by how rare they are in the
session, a bonus for first-person statements, numbers, names (capitalised words not at a sentence
start) and plans; greetings and filler score nothing. An OpenAI-compatible model can replace these
texts when configured; these are what rapport produces on its own.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from typing import Any

from agents.core.memory import is_low_content
from agents.core.timeref import looks_ahead
from domain.text import content_words

ROLLING_EVERY = 4
ROLLING_MAX_CHARS = 600
PROFILE_MAX_CHARS = 700
_SENT = re.compile(r"(?<=[.!?])\s+|\n+")
# a plan: said as one ("I'll", "gonna"), or naming a time ahead in a clause that looks ahead (timeref:
# "going out tonight" is a plan, "watched a movie with my sister tonight" is a dated past event)
_PLAN = re.compile(r"\b(i'll|i will|i'm going to|i am going to|i promise|i plan to|i need to|i have to|gonna)\b",
                   re.IGNORECASE)
_COMMIT = re.compile(r"\b(i'll|i will|i promise|i'm going to|i am going to|let me|i plan to)\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|my)\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,})\b")


def _is_plan(s: str) -> bool:
    return bool(_PLAN.search(s)) or looks_ahead(s)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT.split(text or "") if s and s.strip()]


@lru_cache(maxsize=20_000)  # the rolling summary reads the whole window again every ROLLING_EVERY turns
def _scored_sentences(text: str) -> tuple[tuple[str, tuple[str, ...], tuple[bool, bool, bool, bool]], ...]:
    """A turn's sentences that carry content: (sentence, content words, (first person, number, name, plan))."""
    out = []
    for s in sentences(text):
        if is_low_content(s):
            continue
        cues = (bool(_FIRST_PERSON.search(s)), bool(_DIGIT.search(s)), bool(_NAME.search(s)), _is_plan(s))
        out.append((s, tuple(content_words(s)), cues))
    return tuple(out)


def salience(turns: list[dict[str, Any]]) -> list[tuple[float, int, str, dict]]:
    """(score, order, sentence, turn) for every sentence of the turns, best first."""
    sents = [(s, words, cues, t) for t in turns for s, words, cues in _scored_sentences(t["content"])]
    df = Counter(w for _, words, _, _ in sents for w in set(words))
    n = max(len(sents), 1)
    out = []
    for i, (s, words, (first_person, number, name, plan), t) in enumerate(sents):
        if not words:
            continue
        score = sum(math.log(1 + n / df[w]) for w in set(words)) / math.sqrt(len(words) + 2)
        score *= 1.3 if t["role"] == "user" else 0.8
        if first_person:
            score *= 1.2
        if number:
            score *= 1.1
        if name:
            score *= 1.1
        if plan:
            score *= 1.15
        out.append((round(score, 6), i, s, t))
    return sorted(out, key=lambda x: (-x[0], x[1]))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def rolling_summary(turns: list[dict[str, Any]], max_chars: int = ROLLING_MAX_CHARS) -> str:
    """The most salient sentences of the session so far, in the order they were said, within max_chars."""
    picked, used = [], 0
    for _, order, s, t in salience(turns):
        line = f"{'User' if t['role'] == 'user' else 'AI'}: {s}"
        if used + len(line) + 1 > max_chars:
            continue
        picked.append((order, line))
        used += len(line) + 1
    return _clip(" ".join(line for _, line in sorted(picked)), max_chars)


def session_summary(turns: list[dict[str, Any]], people: list[str], moods: list[str]) -> dict[str, Any]:
    """{one_liner, what_mattered, open_loops, commitments, people, tone} (seed 004 SessionSummary)."""
    ranked = salience(turns)
    user_q = [s for t in turns if t["role"] == "user" for s in sentences(t["content"]) if s.endswith("?")]
    answered_after = {i for i, t in enumerate(turns) if t["role"] == "assistant"}
    last_user_q = [s for i, t in enumerate(turns) if t["role"] == "user" and not any(j > i for j in answered_after)
                   for s in sentences(t["content"]) if s.endswith("?")]
    plans = [s for t in turns if t["role"] == "user" for s in sentences(t["content"]) if _is_plan(s)]
    commitments = [s for t in turns for s in sentences(t["content"]) if _COMMIT.search(s)]
    tone = Counter(moods).most_common(1)[0][0] if moods else "neutral"
    return {
        "one_liner": _clip(ranked[0][2], 160) if ranked else "Small talk",
        "what_mattered": [_clip(s, 200) for _, _, s, _ in ranked[:3]],
        "open_loops": list(dict.fromkeys(_clip(s, 200) for s in (last_user_q + plans)))[:5],
        "commitments": list(dict.fromkeys(_clip(s, 200) for s in commitments))[:5],
        "people": list(dict.fromkeys(people))[:10],
        "tone": tone,
        "questions": len(user_q),
    }


HABIT_FULL_AT = 60      # mentions at which a habit says as much about someone as their firmest facts
_NAMING = frozenset({"name", "named", "called"})


def _stem(w: str) -> str:
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def _said(text: str) -> set[str]:
    """What a profile line says, as a set of content words ("Is a software engineer" -> software, engineer)."""
    return {_stem(w) for w in content_words(text) if w not in _NAMING}


def item_weight(f: dict[str, Any]) -> float:
    """How much a profile item says about the person: who they are (facts) first, then what they keep
    coming back to (habits, by how often: a theme of 5 episodes ~0.7, of HABIT_FULL_AT or more 0.9),
    then what they like; within a kind, by importance."""
    if f.get("type") == "habit":
        return 0.5 + 0.4 * min(1.0, math.log1p(f.get("count", 1)) / math.log1p(HABIT_FULL_AT))
    importance = float(f.get("importance", 0.5))
    return 0.6 + 0.4 * importance if f.get("type") == "fact" else 0.4 + 0.4 * importance


def profile_items(facts: dict[str, dict[str, Any]], name: str | None = None) -> list[dict[str, Any]]:
    """The profile's items ({"id", "type", "content"}), most telling first, none saying what another
    one already says: "Is a software engineer" goes when "Works at Infosys as a software engineer" is
    there, "Name is Arjun" when the name is."""
    said = {mid: _said(f["content"]) for mid, f in facts.items()}
    order = sorted(facts, key=lambda mid: (-item_weight(facts[mid]), facts[mid].get("n", 0), mid))
    rank = {mid: i for i, mid in enumerate(order)}
    named = _said(name) if name else set()
    out = []
    for mid in order:
        mine = said[mid]
        if not mine or mine <= named or any(
                o != mid and mine <= said[o] and (mine < said[o] or rank[o] < rank[mid]) for o in facts):
            continue
        out.append({"id": mid, "type": facts[mid].get("type", "fact"), "content": facts[mid]["content"]})
    return out


def fit(items: list[dict[str, Any]], max_chars: int, sep: str = "; ") -> list[dict[str, Any]]:
    """The leading items whose contents, joined by `sep`, fit in max_chars (one too long is skipped)."""
    out, used = [], 0
    for it in items:
        n = len(it["content"].rstrip(".")) + (len(sep) if out else 0)
        if used + n <= max_chars:
            out.append(it)
            used += n
    return out


def profile_paragraph(name: str | None, items: list[dict[str, Any]], max_chars: int = PROFILE_MAX_CHARS) -> str:
    """The permanent profile: a compact paragraph of what is known about the person, rebuilt whole when
    it changes: who they are and what they do, then their habits and themes, then their preferences."""
    kinds = ("fact", "habit", "preference")
    head = [name] if name else []
    # the most telling that fit, then read in order: facts, habits, preferences
    body = sorted(fit(items, max_chars - sum(len(h) + 2 for h in head) - 1, ". "),
                  key=lambda it: kinds.index(it["type"]) if it["type"] in kinds else len(kinds))
    text = ". ".join(p.rstrip(".") for p in head + [it["content"] for it in body] if p)
    return _clip(text + "." if text else "", max_chars)
