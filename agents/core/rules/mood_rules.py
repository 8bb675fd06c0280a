"""The mood classifier's ordered rule tables (agents/core/mood.py reads them): which negator opens no
negation scope, and which reply style a mood and its cues call for. Each rule is a name, a test and the
example it is written for; the first rule whose test holds answers. Pure data over plain values.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from agents.core.rules.mood_lexicon import _NOT_NEGATION


class NegatorRule(NamedTuple):
    name: str
    applies: Callable[[str, str, str], bool]   # (negator, next token, the token after) -> it negates nothing
    example: str


# A negator followed by these opens no scope: "no worries", "never been this happy", "couldn't be
# happier", "can't stop smiling" (tokens folded: "couldn't" -> "couldnt").
NOT_NEGATING = (
    NegatorRule("fixed_phrase", lambda t, nxt, nxt2: f"{t} {nxt}" in _NOT_NEGATION, "no worries"),
    NegatorRule("never_been_this", lambda t, nxt, nxt2: t == "never" and nxt in ("been", "felt")
                and (nxt2 in ("this", "so", "more") or nxt2.endswith("er")), "never been this happy"),
    NegatorRule("could_not_be_happier", lambda t, nxt, nxt2: t in ("couldnt", "cant", "cannot") and nxt == "be"
                and (nxt2 == "more" or nxt2.endswith("er")), "couldnt be happier"),
    NegatorRule("cannot_stop", lambda t, nxt, nxt2: t in ("cant", "cannot", "couldnt")
                and nxt in ("stop", "help", "wait"), "cant stop smiling"),
)


class StyleRule(NamedTuple):
    name: str
    applies: Callable[[str, str, Any], bool]   # (mood, energy, cues) -> the rule holds
    style: str


_LOW = ("sad", "anxious")
_UP = ("happy", "excited")

# The approach the reply should take; the first rule that holds answers, else "casual".
STYLE_RULES = (
    StyleRule("flirty", lambda mood, energy, c: mood == "flirty", "romantic"),
    StyleRule("venting", lambda mood, energy, c: mood in ("angry", "frustrated"), "venting"),
    StyleRule("low_and_reflective", lambda mood, energy, c: mood in _LOW and (c.n_words >= 20 or c.reflective),
              "deep"),
    StyleRule("low", lambda mood, energy, c: mood in _LOW, "supportive"),
    StyleRule("up_and_lively", lambda mood, energy, c: mood in _UP and (energy == "high" or c.laugh or c.emoji),
              "playful"),
    StyleRule("bored", lambda mood, energy, c: mood == "bored", "playful"),
    StyleRule("long_reflective_neutral", lambda mood, energy, c: mood == "neutral" and c.n_words >= 20
              and c.reflective, "deep"),
)
DEFAULT_STYLE = "casual"
