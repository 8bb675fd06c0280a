"""Theme labels and examples (agents/core/insights.py): made of the episodes' own words, about what the
theme is about, and never the same example twice."""
from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from agents.core import insights
from domain.text import words

DINNERS = ["Had pizza for dinner, it was great", "Had tacos for dinner, it was great",
           "Had ramen for dinner, it was great", "Had pizza for dinner, it was great",
           "Had dosa for dinner, it was great", "Had pizza for dinner, it was great"]
ELSEWHERE = ["Took Bruno to the park", "Work was stressful, the sprint deadline is Friday",
             "Played Valorant with friends", "Met Priya at the mall", "Bruno chewed my slippers"]


def label_of(texts, background=ELSEWHERE, topic=None):
    counts = insights.count_phrases(texts)
    bg = insights.count_phrases(background)
    return insights.label(counts, len(texts), bg, len(background), texts, topic=topic)


def test_a_theme_is_named_by_what_it_is_about_then_what_varies():
    assert label_of(DINNERS) == "dinner: pizza"  # tacos, ramen, dosa: once each, no detail
    assert label_of(DINNERS + ["Had tacos for dinner, it was great"]) == "dinner: pizza, tacos"


def test_an_entity_theme_is_named_after_the_entity():
    texts = ["Bruno chewed my slippers again", "Took Bruno to the park, he made a new friend",
             "Bruno chewed my charger again", "Took Bruno to the park, he made a new friend",
             "Bruno chewed my notebook again"]
    assert label_of(texts, topic="Bruno") == "Bruno: friend, park"


def test_what_was_done_is_not_the_topic():
    texts = ["I fixed my bike after work", "Today I fixed my bike with Karthik", "I fixed my bike, finally",
             "Fixed my bike again"]
    assert label_of(texts).startswith("bike")


def test_a_phrase_does_not_run_across_a_verb_of_being():
    assert "work was stressful" not in insights.phrases("Work was stressful, the deadline is Friday")
    assert {"work", "stressful", "deadline", "friday"} <= insights.phrases("Work was stressful, the deadline is Friday")


def test_examples_are_typical_and_distinct():
    texts = ["Bruno chewed my slippers again", "Bruno chewed my slippers again!", "bruno chewed my slippers again",
             "Took Bruno to the park, he made a new friend", "Bruno chewed my charger"]
    ex = insights.examples(texts, insights.count_phrases(texts))
    assert len(ex) == 3 and ex[0] == "Bruno chewed my slippers again"
    assert "Took Bruno to the park, he made a new friend" in ex
    assert not any(insights.same_thing(a, b) for i, a in enumerate(ex) for b in ex[i + 1:])


WORDS = "dinner pizza tacos gym leg day work meeting pricing bruno park chewed slippers the a was at my".split()
texts_strategy = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join),
                          min_size=1, max_size=12)


@given(texts_strategy, texts_strategy)
def test_every_word_of_a_label_is_a_word_of_its_episodes(texts, background):
    label = label_of(texts, background)
    own = {w.lower() for t in texts for w in re.findall(r"[^\W_]+", t)}
    assert label == "everyday life" or set(words(label, joined=True)) <= own


@given(texts_strategy)
def test_examples_never_say_the_same_thing_twice(texts):
    ex = insights.examples(texts, insights.count_phrases(texts))
    assert 1 <= len(ex) <= insights.EXAMPLES and set(ex) <= set(texts)
    assert not any(insights.same_thing(a, b) for i, a in enumerate(ex) for b in ex[i + 1:])
