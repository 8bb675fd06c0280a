"""The mood classifier's rule tables (agents/core/rules/mood_rules.py), one rule at a time."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from agents.core import mood
from agents.core.rules.mood_rules import DEFAULT_STYLE, NOT_NEGATING, STYLE_RULES


def _tokens(text: str) -> list[str]:
    return mood.Cues(text).tokens


@pytest.mark.parametrize("r", NOT_NEGATING, ids=lambda r: r.name)
def test_each_not_negating_rule_holds_on_its_own_example(r):
    t, nxt, nxt2 = (_tokens(r.example) + ["", ""])[:3]
    assert r.applies(t, nxt, nxt2)
    assert not mood._negates(t, nxt, nxt2)


def test_a_negator_outside_the_rules_negates():
    # the near misses of each rule: the words after the negator decide
    assert mood._negates("no", "money", "")              # "no worries" is fixed, "no money" is not
    assert mood._negates("never", "been", "there")       # "never been this/so/happier", not "there"
    assert mood._negates("cant", "be", "bothered")       # "can't be happier", not "bothered"
    assert mood._negates("cant", "sleep", "")            # "can't stop/help/wait", not "sleep"
    assert mood._negates("not", "stop", "")              # only can't/cannot/couldn't stop


def _cues(n_words=5, reflective=False, laugh=False, emoji=()):
    return SimpleNamespace(n_words=n_words, reflective=reflective, laugh=laugh, emoji=list(emoji))


# (mood, energy, cues) -> the style, one case per rule plus the default, written from the module docstring
STYLE_CASES = {
    "flirty": (("flirty", "low", _cues()), "romantic"),
    "venting": (("frustrated", "medium", _cues()), "venting"),
    "low_and_reflective": (("sad", "low", _cues(n_words=25)), "deep"),
    "low": (("anxious", "low", _cues()), "supportive"),
    "up_and_lively": (("happy", "medium", _cues(laugh=True)), "playful"),
    "bored": (("bored", "low", _cues()), "playful"),
    "long_reflective_neutral": (("neutral", "medium", _cues(n_words=20, reflective=True)), "deep"),
}


@pytest.mark.parametrize("r", STYLE_RULES, ids=lambda r: r.name)
def test_each_style_rule_answers_its_case(r):
    (m, energy, c), style = STYLE_CASES[r.name]
    assert r.style == style
    assert r.applies(m, energy, c)
    assert next(x.name for x in STYLE_RULES if x.applies(m, energy, c)) == r.name
    assert mood.style_of(m, energy, c) == style


def test_style_falls_back_to_casual():
    assert DEFAULT_STYLE == "casual"
    assert mood.style_of("happy", "medium", _cues()) == "casual"          # happy but calm
    assert mood.style_of("neutral", "medium", _cues(n_words=25)) == "casual"  # long, not reflective
    assert mood.style_of("grateful", "high", _cues(laugh=True)) == "casual"
    assert mood.style_of("excited", "high", _cues()) == "playful"         # high energy alone is lively
