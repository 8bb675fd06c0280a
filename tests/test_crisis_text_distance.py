"""crisis_text's edit distance is rapidfuzz's optimal string alignment: the same capped distance as the
hand-written dynamic programme it replaced (kept here as the reference), on 100k random pairs shaped as
the fuzzy matcher sees them (tokens near a keyword, and random ones), and on hand-computed cases."""
from __future__ import annotations

import random

import pytest

from agents.core import crisis_text as ct


def reference_osa(a: str, b: str, limit: int) -> int:
    """The function crisis_text had before rapidfuzz (verbatim): OSA distance, capped at limit+1 (or more:
    callers only compare it with `limit`)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def mutate(rng: random.Random, w: str, edits: int) -> str:
    for _ in range(edits):
        k = rng.randrange(len(w) + 1)
        op = rng.randrange(4)
        c = rng.choice("abcdeilmnorstuy")
        if op == 0:
            w = w[:k] + c + w[k:]
        elif op == 1 and len(w) > 1:
            w = w[:k] + w[k + 1:]
        elif op == 2 and k < len(w):
            w = w[:k] + c + w[k + 1:]
        elif k + 1 < len(w):
            w = w[:k] + w[k + 1] + w[k] + w[k + 2:]
    return w


def pairs(n: int, seed: int = 7) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    keywords = list(ct.TYPO_KEYWORDS) + list(ct._FUZZY)
    out = []
    for i in range(n):
        kw = rng.choice(keywords)
        if i % 2:
            out.append((mutate(rng, kw, rng.randrange(4)), kw))  # a typo of a keyword, 0-3 edits
        else:  # random strings over a small alphabet: repeats and transpositions are common
            out.append(("".join(rng.choice("abst") for _ in range(rng.randrange(1, 9))),
                        "".join(rng.choice("abst") for _ in range(rng.randrange(1, 9)))))
    return out


@pytest.mark.parametrize("a, b, limit, expected", [
    ("sucide", "suicide", 2, 1), ("suicidial", "suicidal", 2, 1), ("anymoer", "anymore", 1, 1),  # transposition
    ("ab", "ba", 1, 1), ("ca", "abc", 3, 3),  # OSA: 3 (unrestricted Damerau-Levenshtein says 2)
    ("myself", "myself", 1, 0), ("abcdef", "zzzzzz", 2, 3), ("kill", "killing", 1, 2)])  # capped at limit+1
def test_hand_computed_distances(a, b, limit, expected):
    assert ct._osa(a, b, limit) == expected


def test_the_same_as_the_hand_written_distance_on_100k_pairs():
    differ = [(a, b, limit) for a, b in pairs(100_000) for limit in (1, 2)
              if ct._osa(a, b, limit) != min(reference_osa(a, b, limit), limit + 1)]
    assert differ == []
