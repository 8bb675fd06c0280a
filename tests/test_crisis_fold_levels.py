"""Issue 21: every crisis level and every kind of hard negative, through the fold as the worker runs it (the
user message event applied to the contact's state, with the message's real MiniLM vector): a trigger with the
severity, category, level and reason the level's definition calls for, or no trigger at all.

The messages are written for this file from the level definitions (C-SSRS; the public-health warning-sign
lists) and are in neither part of agents/core/data/crisis_set.jsonl (checked below). Expected values come from
the definitions, never from a run:
    C-SSRS wish to be dead, ideation          -> high, suicidal_ideation
    method, intent, plan, preparatory, attempt -> high, suicide_plan
    self-harm                                  -> high, self_harm
    farewell, giving away, arrangements, means, timeline, decided -> high, warning_sign
    burden                                     -> medium, hopelessness (check in gently; crisis_model's docstring)
"""
from __future__ import annotations

import pytest

from agents.core import crisis
from tests.helpers import crisis_level_trigger, crisis_set_overlap, crisis_triggers
from tests.helpers import crisis_vectors  # noqa: F401  (a fixture: the vectors of this file's messages)

LEVELS = [
    ("honestly i'd be relieved if i never woke up tomorrow", "wish_to_be_dead", "high", "suicidal_ideation"),
    ("i've been having thoughts of ending it every night", "ideation", "high", "suicidal_ideation"),
    ("how many of my sleeping pills would it take", "method", "high", "suicide_plan"),
    ("I'm going to kill myself, nobody can stop me", "intent", "high", "suicidal_ideation"),
    ("the plan is pills and vodka on saturday when my flatmate is away", "plan", "high", "suicide_plan"),
    ("i've written letters to everyone in my family explaining why", "preparatory", "high", "suicide_plan"),
    ("I'm on the roof right now, this is it", "attempt", "high", "suicide_plan"),
    ("relapsed and cut again last night", "self_harm", "high", "self_harm"),
    ("thank you for everything, this is the last time i'll text you", "farewell", "high", "warning_sign"),
    ("i gave my sister my necklace so she'll remember me", "giving_away", "high", "warning_sign"),
    ("my affairs are in order now and the cat has someone to look after her", "arrangements", "high",
     "warning_sign"),
    ("i'm just a waste of space to everyone", "burden", "medium", "hopelessness"),
    ("there are enough sleeping pills in the cabinet", "means", "high", "warning_sign"),
    ("i'll be gone by sunday, you won't have to worry about me", "timeline", "high", "warning_sign"),
    ("i've stopped fighting, i know what i'm going to do and i'm at peace", "decided", "high", "warning_sign"),
]
# one or more per kind of hard negative in the crisis set, plus quotes, fiction and help-seeking
HARD_NEGATIVES = {
    "idiom": "my sister is going to kill me when she sees the car",
    "object_dies": "the battery in my car died again this morning",
    "exasperation": "i can't take this printer anymore, it jams every single day",
    "past_over": "i used to cut in high school, i've been clean for eight years and i'm doing great",
    "volunteering": "just finished my suicide prevention training at work",
    "media": "the song about jumping off a bridge came on the radio",
    "benign_farewell": "goodbye for now, talk tomorrow after my exam",
    "benign_logistics": "i gave my old bike to my nephew since i bought a new one",
    "benign_timeline": "i'll be gone by monday, flying to lisbon for work",
    "negation": "no, i won't hurt myself, i'm just letting off steam",
    "quote": 'in the play the villain shouts "I will kill myself before I surrender"',
    "fiction": "the main character kills himself at the end of the book",
    "help_seeking": "what's the number for samaritans? i want to give it to my students",
}


def test_the_messages_here_are_in_neither_part_of_the_crisis_set():
    assert crisis_set_overlap(LEVELS, HARD_NEGATIVES) == []


@pytest.mark.parametrize("text,level,severity,category", LEVELS, ids=[lv for _, lv, *_ in LEVELS])
def test_each_level_makes_a_trigger_with_its_severity_category_and_reason(text, level, severity, category,
                                                                           crisis_vectors):
    crisis_level_trigger(text, crisis_vectors[text], level, severity, category)


@pytest.mark.parametrize("kind", list(HARD_NEGATIVES))
def test_each_kind_of_hard_negative_makes_no_trigger(kind, crisis_vectors):
    text = HARD_NEGATIVES[kind]
    assert crisis_triggers(text, crisis_vectors[text]) == [], (kind, text)


@pytest.mark.parametrize("risk,everyday", [
    ("i'll be gone by monday", "i'll be gone by monday, off to my new job in leeds"),
    ("i gave my sister my ring so she'll remember me", "i gave my sister my ring so she'll remember me at the wedding"),
    ("i've made peace with leaving", "i've made peace with leaving, the new job starts in june"),
    ("goodbye, i'm sorry for everything", "goodbye, i'm sorry for everything, see you tomorrow"),
])
def test_an_everyday_reason_clears_a_warning_sign(risk, everyday):
    """The same warning-sign shape with and without an everyday reason (a move, a job, an event, see you)."""
    hit = crisis.detect_crisis(risk)
    assert hit is not None and hit["level"] in crisis.WARNING_SIGNS, (risk, hit)
    assert crisis.detect_crisis(everyday) is None, (everyday, crisis.detect_crisis(everyday))


@pytest.mark.parametrize("typo,word", [("enver", "never"), ("pillls", "pills"), ("goodbey", "goodbye"),
                                       ("tonigth", "tonight"), ("wishse", "wishes"), ("sucide", "suicide")])
def test_a_typo_of_a_keyword_reads_as_the_keyword(typo, word):
    assert crisis.parse(f"i {typo} x").words == ["i", word, "x"]


@pytest.mark.parametrize("real", ["bills", "fever", "ever", "hills", "kills", "overdosed", "pill", "doing"])
def test_a_real_word_or_an_inflection_is_never_read_as_a_typo(real):
    assert crisis.parse(f"i {real} x").words == ["i", real, "x"]


def test_typos_change_the_verdict_as_the_keyword_would():
    assert crisis.detect_crisis("i wish i could fall asleep and enver wake up")["level"] == "wish_to_be_dead"
    assert crisis.detect_crisis("i paid all my bills tonight") is None


def test_the_real_word_list_is_current_for_the_keywords():
    """agents/core/data/crisis_real_words.txt holds every vocabulary word one edit from a keyword (else a real
    word like 'bills' would be read as 'pills'); rebuilt by `python -m ops.crisis_words`."""
    pytest.importorskip("tokenizers")
    from ops.crisis_words import near_words, vocabulary

    try:
        vocab = vocabulary()
    except Exception as exc:  # the model package is not installed
        pytest.skip(f"no tokenizer vocabulary: {exc}")
    assert set(near_words(vocab)) <= crisis._real_words()
