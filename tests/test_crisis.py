"""agents/core/crisis.py: crisis language detection and the helpline guidance block."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.core import crisis
from agents.core.crisis import detect_crisis, helpline_guidance

# (text, expected severity) -- must be detected with exactly this severity
POSITIVES: list[tuple[str, str]] = [
    # the phrases of the brief and the seed
    ("I want to die", "high"), ("I wanna die", "high"), ("can't take this anymore", "medium"),
    ("I don't want to be alive", "high"), ("thinking about ending it all", "high"),
    ("I'm going to kill myself", "high"), ("kms", "high"), ("I want to disappear forever", "high"),
    ("there's no reason to live", "high"), ("everyone would be better off without me", "high"),
    ("I'm going to hurt myself", "high"), ("cutting myself again", "high"), ("I have the pills ready", "high"),
    ("I want to end my life", "high"), ("I want to unalive myself", "high"),
    ("I honestly just want to die", "high"),
    # casing, apostrophes, typos, chat spelling, stretched letters, leetspeak, masking
    ("i WANT TO DIE", "high"), ("I WANT TO DIEEEE!!!", "high"), ("i dont want to be alive anymore", "high"),
    ("I don’t want to be alive", "high"), ("i wnat to die", "high"), ("I want to dieeee", "high"),
    ("Wanna die tbh", "high"), ("i just wanna die lol", "high"), ("I want 2 die", "high"), ("i want todie", "high"),
    ("iwanttodie", "high"), ("kill my self", "high"), ("i'm gonna kms", "high"), ("ugh kms", "high"), ("KMS", "high"),
    ("K1ll myself", "high"), ("i want to kil myself", "high"), ("i want to s*icide", "high"),
    ("i want to commit sucide", "high"), ("I CANT TAKE IT ANYMORE", "medium"), ("I can’t take this anymore.", "medium"),
    ("i cant take this any more", "medium"), ("I really really want to die right now", "high"),
    # suicidal ideation, passive and active
    ("Part of me just wants to die", "high"), ("I'm suicidal", "high"), ("feeling really suicidal tonight", "high"),
    ("so suicidal rn", "high"), ("suicidal", "high"), ("I've been having suicidal thoughts", "high"),
    ("I'm thinking about suicide", "high"), ("I tried to kill myself last year and I feel like doing it again", "high"),
    ("I wish I was dead", "high"), ("I wish I had never been born", "high"), ("every day I wish I wouldn't wake up", "high"),
    ("I don't want to wake up tomorrow", "high"), ("I want to go to sleep and never wake up", "high"),
    ("nothing to live for anymore", "high"), ("life isn't worth living", "high"), ("I'm better off dead", "high"),
    ("I'd rather be dead", "high"), ("I'd rather die than live like this", "high"),
    ("nobody would care if I died", "high"), ("if i die tomorrow nobody would even notice", "high"),
    ("I'm going to end it tonight", "high"), ("I need to end it.", "high"), ("I'm done with life", "high"),
    ("I'm so tired of being alive", "high"), ("what's the point of living", "high"),
    ("I'm ready to end it all", "high"), ("I just want it all to end", "high"), ("i feel like dying", "high"),
    ("I think about killing myself every day", "high"), ("honestly thinking about sewerslide", "high"),
    ("I'm not okay. I want to die.", "high"), ("i dont wanna live anymore", "high"), ("I want to die, not joking", "high"),
    ("is it normal to want to die every day?", "high"), ("i kinda want to die ngl", "high"),
    ("ugh this exam makes me want to kill myself", "high"), ("my friend is awful and wanna die", "high"),
    ("I deserve to die", "high"), ("I don't want to exist anymore", "high"), ("I want to stop existing", "high"),
    # plans and means
    ("I wrote my suicide note", "high"), ("I've been saving up pills", "high"),
    ("I'm going to take all my pills tonight", "high"), ("I'm going to swallow the whole bottle of sleeping pills", "high"),
    ("I want to jump off a bridge", "high"), ("Im thinking of jumping off the roof", "high"),
    ("I'm thinking about overdosing", "high"), ("Sometimes I think about driving my car into a wall", "high"),
    # self harm
    ("I've been self harming again", "high"), ("I self harm", "high"), ("I keep wanting to hurt myself", "high"),
    ("I'm trying not to cut myself", "high"), ("I want to slit my wrists", "high"), ("I can't stop cutting myself", "high"),
    ("i relapsed and cut myself last night", "high"), ("I hurt myself on purpose again", "high"),
    ("i'm sitting here with a knife wanting to cut", "high"),
    # hopelessness (medium)
    ("I can't go on like this", "medium"), ("i cant do this anymore", "medium"), ("I wish I could just disappear", "medium"),
    ("I dont want to go on", "medium"), ("I just want the pain to stop.", "medium"), ("I feel hopeless", "medium"),
    ("i'm such a burden", "medium"), ("I’m thinking of ending things", "medium"), ("I can't handle life anymore", "medium"),
    ("I can't keep going like this", "medium"),
    # second person and third parties (medium)
    ("you ever just want to die?", "medium"), ("what should I do if my friend wants to die", "medium"),
    ("my brother said he's going to kill himself", "medium"), ("I think my girlfriend is suicidal", "medium"),
    ("my sister has been cutting herself again", "medium"), ("he texted me \"I want to die\"", "medium"),
    ("my friend is sad and wants to die", "medium"), ("what's the suicide hotline number", "medium"),
]

# must raise no alarm
NEGATIVES: list[str] = [
    # idioms and hyperbole
    "this traffic is killing me", "I'm dying of laughter", "lol I'm dead", "this homework will be the death of me",
    "I could kill for a pizza", "my phone is dying", "killing it at work today!", "this chocolate cake is to die for",
    "I'm dead tired after that shift", "all the plants died while I was away", "my feet are killing me",
    "I'm dying to see the new Marvel movie", "I nearly died when I saw the price", "if my mom finds out she'll kill me",
    "I'd die for my kids", "I want to die my hair purple", "I'm willing to die on this hill", "I'm bored to death",
    "she scared me to death", "my battery died again", "we're killing time at the airport", "that joke killed me 😂",
    "I killed that presentation", "I'm so dead if I miss the bus", "dead serious, this is the best pizza",
    "killing two birds with one stone", "she looks drop dead gorgeous", "I'd rather die than wear Crocs",
    "my grandpa died last year", "I almost killed myself laughing", "I'm so hungry I could die",
    "my plant is dying, any tips?", "I'm gonna kill my brother for eating my fries", "I'd kill to have your job",
    "I'm dying here, it's so hot", "I hate when my phone dies", "my computer wants to die lol",
    "I'm literally dying at this meme", "I'll be dead by the time this loads lol", "I'm so done with this week",
    "kill me now, another meeting", "cross my heart and hope to die", "I want to die happy and old",
    "my laptop is ready to die", "I'm going to die of boredom", "I love you to death", "i would die for a burger",
    "the party is dead", "he is dead to me", "i am going to die", "I'm dead 💀 that video", "this exam is gonna kill me",
    "my knees are dying after that hike", "I'd literally die for a coffee right now", "my laptop is about to die",
    "she killed it on stage", "this heat is going to be the death of me", "I'm dying to know what happens next",
    "the fish died over the weekend", "I'm so bored I could die", "we got murdered in the second half",
    "i'm killing myself laughing at this", "ugh kill me now, another meeting", "I want to die laughing at your jokes forever",
    "I could die of embarrassment", "my phone's at 2%, about to die", "the conversation died",
    "kill the music please", "I'd rather die than go running at 6am", "the deadline is killing me",
    "i feel like dying after that workout", "I feel like I am dying inside",
    # accidents, not self harm
    "I hurt myself at the gym yesterday", "I cut myself shaving this morning", "I burned myself on the stove",
    "I cut myself again while cooking", "Cut myself on a piece of glass, ouch", "I burned myself making toast lol",
    "I'm going to hurt my back lifting this sofa", "I hurt myself laughing", "I want to cut my hair short",
    "we need to cut costs",
    # phrases that only look alike
    "I'm cutting myself some slack this week", "I'm killing myself at the gym to get ready for summer",
    "he's killing himself at work to get promoted", "I'm cutting myself off from toxic people",
    "I drown myself in work when I'm stressed", "if you put a gun to my head I'd pick pizza",
    "I want to disappear into a good book this weekend", "I want to disappear to a beach for a month",
    "I can't go on the trip next week", "I give up on this puzzle", "I give up, you win this argument",
    "I don't want to live in this city anymore", "I don't want to wake up early tomorrow", "I ran 5 kms this morning",
    "i ran like 10 kms", "I need to end it with her", "I want to end it with my boyfriend", "I'm ending things with him",
    "I'm ending things with my therapist, finding a new one", "I can't take this class anymore, switching majors",
    "no point in arguing with him", "I'm done with this job", "Living my best life!", "I hate mondays so much",
    "I'm dead serious about moving to Japan", "this game is hopeless", "am i a burden to you?", "Dying my hair pink tomorrow!",
    # negated
    "I don't want to die, I want to live forever!", "I'm not suicidal, just tired of my job", "I would never hurt myself",
    "I stopped cutting myself two years ago", "i really do not want to hurt myself", "I dont feel like dying",
    # informational, fictional, quoted
    "why do people commit suicide", "suicide prevention month is in September",
    "we watched a documentary about suicide prevention", "What are the warning signs of suicide?",
    "what does suicidal ideation mean", "suicide is a serious topic", "what is self harm",
    "the Suicide Squad movie was mid", "suicide doors on that car are sick", "that was a suicide mission in the game",
    "coach made us run suicides", "that boss fight was a suicide run", "The song 'Suicide Blonde' by INXS is great",
    "the villain kills himself at the end of the movie", "The protagonist kills himself at the end",
    "the character wants to die in the book", "\"I Want to Die in New Orleans\" is a great album",
    "singing 'I just wanna die' in the shower lol", "killing me softly is my favourite song",
]

# held-out phrases written before the detector, once known misses (strict xfail), now caught by rules
FORMER_KNOWN_MISSES = [
    ("there's a rope in my closet and I'm going to use it", "intent"),   # means + vague intent ("use it")
    ("goodbye everyone, this is my last message", "farewell"),           # a goodbye without any death word
    # issue 21's explicit misses
    ("I swallowed a whole bottle of my pills earlier", "attempt"),
    ("I'm on the roof and I'm going to jump", "attempt"),
    ("I'm standing on the bridge right now and I'm going to jump", "attempt"),
    ("I have a gun in my hand and I'm going to use it", "intent"),
    ("no one would even notice if I killed myself", "ideation"),
    ("the cuts are getting deeper every time", "self_harm"),
]


def test_the_lists_are_long_enough():
    assert len(POSITIVES) >= 40 and len(NEGATIVES) >= 40
    assert len({t for t, _ in POSITIVES}) == len(POSITIVES)
    assert len(set(NEGATIVES)) == len(NEGATIVES)


@pytest.mark.parametrize("text,severity", POSITIVES)
def test_crisis_phrases_are_detected(text, severity):
    r = detect_crisis(text)
    assert r is not None, text
    assert r["severity"] == severity, (text, r)
    assert r["category"] in crisis.CATEGORIES
    assert r["phrase"] and r["phrase"] in text


@pytest.mark.parametrize("text", NEGATIVES)
def test_idioms_and_non_crisis_text_raise_no_alarm(text):
    assert detect_crisis(text) is None, (text, detect_crisis(text))


@pytest.mark.parametrize("text,level", FORMER_KNOWN_MISSES)
def test_former_known_misses_are_high_with_their_clinical_level(text, level):
    r = detect_crisis(text)
    assert r is not None and r["severity"] == "high", (text, r)
    assert r["level"] == level, (text, r)


def test_precision_and_recall_on_the_lists():
    tp = sum(detect_crisis(t) is not None for t, _ in POSITIVES)
    fp = sum(detect_crisis(t) is not None for t in NEGATIVES)
    assert tp / len(POSITIVES) == 1.0
    assert tp / (tp + fp) == 1.0


# ---------------------------------------------------------------------------------- result shape
def test_result_shape_and_phrase_is_the_original_span():
    r = detect_crisis("Honestly?? I don’t WANNA live anymore...")
    assert r == {"severity": "high", "phrase": "don’t WANNA live", "category": "suicidal_ideation",
                 "level": "wish_to_be_dead"}


def test_the_most_severe_phrase_wins_then_the_earliest():
    r = detect_crisis("I can't take this anymore. I want to die.")
    assert r["severity"] == "high" and r["phrase"] == "want to die"
    r = detect_crisis("I want to die. I'm going to kill myself.")
    assert r["phrase"] == "want to die"


def test_empty_and_non_text_inputs():
    for t in ("", "   ", "💀💀", "!!!", None, 42):
        assert detect_crisis(t) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("text,category", [
    ("I have the pills ready", "suicide_plan"), ("I've been saving up pills", "suicide_plan"),
    ("I wrote my suicide note", "suicide_plan"), ("cutting myself again", "self_harm"),
    ("I'm going to hurt myself", "self_harm"), ("I want to die", "suicidal_ideation"),
    ("kms", "suicidal_ideation"), ("I can't take this anymore", "hopelessness"),
    ("what should I do if my friend wants to die", "third_party_concern"),
    ("what's the suicide hotline number", "help_seeking"),
])
def test_categories(text, category):
    assert detect_crisis(text)["category"] == category


# --------------------------------------------------------------------------- variants of one phrase
@pytest.mark.parametrize("apostrophe", ["'", "’", "‘", "`", ""])
def test_apostrophe_variants(apostrophe):
    assert detect_crisis(f"I don{apostrophe}t want to be alive")["severity"] == "high"
    assert detect_crisis(f"I can{apostrophe}t take this anymore")["severity"] == "medium"
    assert detect_crisis(f"I{apostrophe}m going to kill myself")["severity"] == "high"


@pytest.mark.parametrize("filler", ["", "honestly ", "just ", "honestly just ", "really really ", "kinda ",
                                    "sometimes just ", "so badly "])
def test_words_in_between(filler):
    assert detect_crisis(f"I {filler}want to die")["severity"] == "high"


@pytest.mark.parametrize("case", [str.lower, str.upper, str.title, str.swapcase])
def test_casing(case):
    assert detect_crisis(case("I want to kill myself"))["severity"] == "high"
    assert detect_crisis(case("this traffic is killing me")) is None


@pytest.mark.parametrize("typo,level", [
    # one row per kind of typo; the level is the correctly spelled phrase's (a wish to be dead, or ideation)
    ("I wnat to die", "wish_to_be_dead"),       # two letters swapped in the verb
    ("kill myslef", "ideation"),                # ... in the keyword
    ("kil myself", "ideation"),                 # a letter left out
    ("i am suicidial", "ideation"),             # a letter added
    ("thinking about suiside", "ideation"),     # a letter replaced
    ("i want to kiiiill myself", "ideation"),   # a letter stretched
])
def test_typos(typo, level):
    r = detect_crisis(typo)
    assert r is not None and (r["severity"], r["category"], r["level"]) == ("high", "suicidal_ideation", level), typo


# --------------------------------------------------------------------------- negation and subjects
@pytest.mark.parametrize("text,expected", [
    ("I don't want to die", None), ("I do not want to kill myself", None), ("I'm not going to hurt myself", None),
    ("I will never hurt myself", None), ("I no longer want to die", None), ("I'm not suicidal anymore", None),
    ("I'm trying not to hurt myself", "high"), ("I can't stop hurting myself", "high"),
    ("I'm not gonna lie, I want to die", "high"), ("I don't know why but I want to die", "high"),
])
def test_negation(text, expected):
    r = detect_crisis(text)
    assert (r and r["severity"]) == expected, (text, r)


@pytest.mark.parametrize("text,expected", [
    ("what should I do if my friend wants to die", ("medium", "third_party_concern")),
    ("my mom keeps saying she wants to die", ("medium", "third_party_concern")),
    ("how do I help my friend who is suicidal", ("medium", "third_party_concern")),
    ("my cousin tried to kill himself", ("medium", "third_party_concern")),
    ("my best friend took her own life last year", ("medium", "third_party_concern")),
    ("she said she wanted to die", ("medium", "third_party_concern")),
    ("my friend thinks I want to die", ("high", "suicidal_ideation")),
    ("why do people kill themselves", None),
    ("why do people commit suicide", None),
    ("the character kills herself in the finale", None),
    ("he deserves to die", None),
])
def test_third_persons(text, expected):
    r = detect_crisis(text)
    assert (r and (r["severity"], r["category"])) == expected, (text, r)


def test_third_party_question_choice_is_medium_not_none():
    """Documented choice: concern for someone else is medium, so the AI can offer the same resources."""
    r = detect_crisis("what should I do if my friend wants to die")
    assert r == {"severity": "medium", "phrase": "wants to die", "category": "third_party_concern",
                 "level": "third_party"}


@pytest.mark.parametrize("text,flagged", [
    ('my favourite lyric is "I just want to die"', False),
    ("listening to 'I Want to Die in New Orleans' on repeat", False),
    ("the song called I want to die is so sad", False),
    ('I keep thinking "I want to die"', True),          # quoting oneself, no media: intent
    ("I want to die, like in that song", True),          # first person outside the quote
    ("he called me a loser and I want to die", True),    # "called" is no title cue here
    ("stop playing, I want to die", True),
    ("in the show he wants to die", False),              # a pronoun in a sentence about a show: fiction
    ("my friend wants to die and keeps listening to sad songs", True),  # a named relation is real
])
def test_quotes_and_titles(text, flagged):
    assert (detect_crisis(text) is not None) is flagged, (text, detect_crisis(text))


def test_kilometres_are_not_kms():
    assert detect_crisis("ran 5 kms") is None
    assert detect_crisis("it's a few kms away") is None
    assert detect_crisis("ugh exams. kms") is not None


def test_long_text_with_a_crisis_sentence_at_the_end():
    text = "Work was okay. The traffic was killing me though. " * 200 + "Honestly I want to die."
    assert detect_crisis(text)["phrase"] == "want to die"


# ------------------------------------------------------------------------------------- properties
@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200))
def test_never_raises_on_arbitrary_text(text):
    r = detect_crisis(text)
    assert r is None or (r["severity"] in crisis.SEVERITIES and r["category"] in crisis.CATEGORIES
                         and r["phrase"] in text and r["phrase"])


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeiklmnostuwy '’*.!?,\n")), max_size=120))
def test_never_raises_on_crisis_like_alphabets(text):
    detect_crisis(text)


def test_the_verdicts_do_not_change_with_the_hash_seed():
    """Replay re-reads every message in another process: a verdict that hung on set order would change."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import orjson, sys; from agents.core.crisis import detect_crisis; from tests.test_crisis import POSITIVES;"
            "sys.stdout.buffer.write(orjson.dumps([detect_crisis(t + n) for t, _ in POSITIVES"
            " for n in ('', ' lol', '. idk anymore')], option=orjson.OPT_SORT_KEYS))")
    root = Path(__file__).resolve().parents[1]
    outs = {subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("0", "4242")}
    assert len(outs) == 1 and next(iter(outs)).count(b'"severity"') >= 2 * len(POSITIVES)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([t for t, s in POSITIVES if s == "high"]),
       st.sampled_from(["", "hey. ", "Honestly, work sucked today. ", "ok so. ", "idk anymore... "]),
       st.sampled_from(["", ".", " 😔", ". anyway how was your day?", "\nsorry for dumping this on you"]))
def test_surrounding_sentences_do_not_hide_a_high_phrase(text, before, after):
    r = detect_crisis(before + text + after)
    assert r is not None and r["severity"] == "high", (before + text + after, r)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(NEGATIVES), st.sampled_from(["", "lol ", "haha. ", "Guess what? "]),
       st.sampled_from(["", "!", " 😂", ". see you tomorrow"]))
def test_surrounding_small_talk_does_not_create_an_alarm(text, before, after):
    assert detect_crisis(before + text + after) is None, before + text + after


# -------------------------------------------------------------------------------------- helplines
def test_guidance_for_the_us():
    g = helpline_guidance("en-US")
    assert "988" in g and "911" in g and "findahelpline.com" in g
    assert "Acknowledge" in g and "safe right now" in g


@pytest.mark.parametrize("locale,needles", [
    ("en_GB", ["116 123", "999"]), ("en-UK", ["116 123", "999"]), ("GB", ["116 123"]), ("en-IE", ["116 123"]),
    ("en-CA", ["988", "911"]), ("en-AU", ["13 11 14", "000"]), ("en-NZ", ["1737", "111"]),
    ("hi-IN", ["14416", "112"]), ("de-DE", ["0800 111 0 111", "112"]), ("fr-FR", ["3114"]),
])
def test_guidance_by_region(locale, needles):
    g = helpline_guidance(locale)
    for n in needles:
        assert n in g, (locale, n)
    assert "findahelpline.com" in g


@pytest.mark.parametrize("locale", [None, "", "en", "fr", "xx-ZZ", "garbage!!", "de"])
def test_guidance_without_a_known_region_is_international(locale):
    g = helpline_guidance(locale)
    assert "findahelpline.com" in g and "local emergency number" in g and "988" in g


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.none(), st.text(max_size=20)))
def test_guidance_never_raises_and_is_deterministic(locale):
    g = helpline_guidance(locale)
    assert g == helpline_guidance(locale) and "findahelpline.com" in g and len(g) < 1500
