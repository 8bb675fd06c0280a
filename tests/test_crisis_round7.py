"""Issue 21, seventh round: chat-style false alarms and recall gaps of the crisis RULES.

Written for this file (no phrase of any held-out message; none is in any part of agents/core/data/crisis_set.jsonl,
checked below), in chat style: lowercase, typos, no apostrophes, "im", "dont", "u", "abt". Labels come from what
each message says about the speaker's own risk now (C-SSRS levels and the public warning-sign lists), not from a
run:

- CLEAR: no alarm. The speaker denies the act in their own voice ("im not gonna kill myself lol"); a past that is
  over ("been 3 yrs clean from cutting", "i was suicidal last year but im much better"); somebody else's act
  ("my friend's been cutting again, how do i help" is concern, a medium third-party hit, no trigger); and the
  hard negatives of each new family (a hair cut, a power cut, dying one's hair, passwords written down so as not to
  forget them, the last time you'll see me before a trip).
- RISK: a high trigger. A negation of one clause does not clear a risk in the next ("i'm not ok. i'm going to end
  it tonight"); the speaker joins somebody else's act ("my friend cuts herself and honestly so do i"); and the new
  families of the seventh round (`crisis_rules.py`, "seventh round"): the mind going back to ending it, thinking
  about dying over and over, a vehicle's hit welcomed, dying said not to be bad, a cut or burn now with no object,
  passwords left for a relative in case, the last message named as such.
"""
from __future__ import annotations

import pytest

from agents.core import crisis
from agents.core import crisis_model as CM
from tests.helpers import crisis_set_texts

# ------------------------------------------------------------------------------------------- no alarm
NEGATION = [
    "i'm not going to hurt myself, relax",
    "never would i actually do it",
    "i don't want to die, i just want this week over",
    "im not gonna kill myself lol",
    "dont worry i wont do anything",
    "i wont kill myself dont worry",
    "not gonna kms relax",
    "im not suicidal, i just need sleep",
    "i would never hurt myself, chill",
    "no way im killing myself over a boy",
    "im not gonna do anything stupid i promise",
    "i promise im not going to hurt myself",
    "i dont wanna die i just want to sleep for a week",
    "not trying to die here, just venting",
    "i'd never actually kill myself, i just hate mondays",
    "no im not suicidal just tired",
    "i'm not thinking about ending it, just tired of my job",
    "not that i want to die or anything, just exhausted",
    "i dont have any thoughts of hurting myself",
    "nah i wont hurt myself dw",
    "dont worry im not gonna jump lol",
    "i have no plans to kill myself",
    "im not gonna end it, i just need to vent",
    "i'm not planning anything, dont call anyone",
    "im fine, im not going to do anything to myself",
    "i would never take my own life, i have my kids",
    "nope not gonna hurt myself, just mad",
    "i dont want to end my life i want to change it lol",
    "i dont wish i was dead i just wish i had money",
    "not thinking of suicide, just lonely",
    "i'd never kms lmao",
    "i swear im not gonna kill myself",
    "never have i ever self harmed",
    "i would not be ok if a truck hit me",
    "i don't think i want to die, i'm just overwhelmed",
    "i dont actually want to die i just want the pain to stop",
    "i dont really want to kill myself, i just want everything to stop for a bit",
]
PAST_OVER = [
    "back in college i tried to end it, i'm in a much better place now",
    "been 3 yrs clean from cutting",
    "been 3 years clean from self harm",
    "i used to cut but i havent in ages",
    "tried to kill myself at 16, im 30 now and happy",
    "i havent cut in 2 years and im proud",
    "used to self harm in high school, doing way better now",
    "i attempted when i was 19 but im good now",
    "had suicidal thoughts as a teen, therapy helped a lot",
    "5 years clean from self harm today!!",
    "when i was 15 i wanted to die, now im 28 and happy",
    "i was suicidal last year but im much better",
    "i self harmed for years, been clean since march",
    "i wanted to end it all in 2020, but life got better",
    "years ago i wanted to die. things are good now",
    "i had a plan to kill myself once, but i reached out and got help",
    "tried to kms in 2019, glad i didnt",
    "i stopped cutting 2 years ago",
]
PAST_PLAIN = ["i used to burn myself when i was a teen"]  # no alarm; nothing said of now either
THIRD_PERSON = [  # no trigger: nothing, or concern for somebody else (medium third_party_concern)
    "my friend told me she wants to kill herself, how do i help her",
    "my brother overdosed last year",
    "the guy in my class who jumped",
    "my sister said she wants to die",
    "my cousin tried to kill himself",
    "my bf told me he wants to die, what do i say",
    "my mom took a bunch of pills last night and is in the hospital",
    "my classmate killed himself last week",
    "my bestie said she wants to kms",
    "my dad shot himself when i was 10",
    "my uncle took his own life in 2010",
    "my friend's been cutting again, how do i help",
    "a coworker of mine attempted suicide last month",
    "i found out my cousin has been self harming",
    "my gf self harms, how do i support her",
    "my roommate cuts and i dont know how to help",
    "my friend cuts herself and i dont know how to help",
    "bro said he wants to unalive himself",
]
# the same surface as a new family, without risk
FAMILY_NEGATIVES = [
    "my friend overdosed on caffeine and so did i",
    "my friend cuts herself bangs and honestly so do i",
    "my mind keeps going to the pasta place from last night",
    "my head keeps drifting to the beach trip",
    "i keep thinking about dying my hair pink",
    "i keep thinking about dying in a plane crash, flying scares me",
    "i keep thinking about my grandma dying, i miss her",
    "id be so happy if a truck of pizza showed up",
    "i would be fine if the bus was late, no rush",
    "dying in the game doesnt seem so bad once you get the hang of it",
    "my grandma says dying doesnt sound so bad at her age",
    "the power cut again last night",
    "got my hair cut again today",
    "cut again last night, the director wants a shorter film",
    "burned again today at the beach, forgot sunscreen",
    "i cut last night's budget meeting short",
    "wrote down my passwords for my mom in case i forget them",
    "gave my sister my netflix password in case she wants to watch",
    "left my bank details with my partner just in case, im having surgery",
    "this is the last time youll hear from me before my trip, no signal",
    "wanted to say thank you one last time before i leave the team",
    "this is the last time youll see me with long hair lol",
    "can u make sure my dog goes to a good home while im in hospital",
    "if anything happens to me on the hike my brother gets my camera lol",
    "she can have my clothes after i move out",
    "my sister can have my old games after, i never play them",
    "getting my affairs in order before the baby comes",
    "got my affairs in order with the accountant, taxes done",
    "i wont be a problem for much longer, my shift ends at 5",
    "remember me when ur famous lol",
    "remember me fondly at the reunion haha",
    "love u all, sorry for everything i said at the party",
    "sorry for everything, love u all, see u tomorrow",
    "i dont know if i want to live in london or paris",
    "i dont think i can live without coffee",
    "i dont know if i can live with my parents another year",
    "my sister wants to die her hair blue and so do i",
    "my mom hurts herself at the gym all the time and so do i",
    "my friend is suicidal and i am too tired to help",
    "she wants to end it with her boyfriend and so do i with mine",
    "my friend self harms and i have too in the past but not anymore",
    "my brain keeps going to suicide prevention stuff at work",
    "my mind goes to dying my hair red",
    "i cut last night's pizza into squares",
    "my cat overdosed on catnip lol",
]

# ------------------------------------------------------------------------------------------- risk
SCOPE = [  # a negation (or a calm clause) before does not clear the risk after
    ("i'm not ok. i'm going to end it tonight", "suicidal_ideation"),
    ("i'm not ok and i want to die", "suicidal_ideation"),
    ("i'm not fine. i want to kill myself", "suicidal_ideation"),
    ("im not lying i want to die", "suicidal_ideation"),
    ("im not even sad, i just want to die", "suicidal_ideation"),
    ("not sleeping, not eating, i want to die", "suicidal_ideation"),
    ("dont tell anyone but i want to die", "suicidal_ideation"),
    ("i cant not think about killing myself", "suicidal_ideation"),
    ("i was fine until today, now i want to die", "suicidal_ideation"),
    ("i used to be happy. now i cut again every night", "self_harm"),
    ("i dont want to die but i want it all to end", "suicidal_ideation"),
    ("i want to die. i just want the pain to stop", "suicidal_ideation"),
    ("i dont think i want to be alive", "suicidal_ideation"),
    ("i dont think i want to live. everything hurts", "suicidal_ideation"),
]
MIXED = [  # somebody else's act, and the speaker's own
    ("my friend cuts herself and honestly so do i", "self_harm"),
    ("my friend cuts herself and i do too", "self_harm"),
    ("my friend self harms. i do too sometimes", "self_harm"),
    ("my sister wants to die and tbh so do i", "suicidal_ideation"),
    ("my mom overdosed last year and i think about doing the same", "suicidal_ideation"),
    ("a guy at work killed himself and now i cant stop thinking about doing it too", "suicidal_ideation"),
    ("my brother tried to kill himself and now i want to die too", "suicidal_ideation"),
    ("he wants to die and so do i", "suicidal_ideation"),
]
# (message, C-SSRS level or warning sign): the recall families, chat style
RECALL = [
    ("my brain keeps going to ending things", "ideation"),
    ("my mind keeps drifting to ending it", "ideation"),
    ("my head always goes back to the pills", "method"),  # a means named: ideation with a method
    ("my thoughts keep running to killing myself", "ideation"),
    ("thinking abt unaliving", "ideation"),
    ("kms thoughts again", "ideation"),
    ("i keep thinking about dying", "ideation"),
    ("ive been having thoughts about not being here", "ideation"),
    ("i keep thinking about not being here tbh", "ideation"),
    ("cant stop thinking bout dying lately", "ideation"),
    ("been thinking bout killing myself a lot", "ideation"),
    ("wouldnt mind if i didnt wake up", "wish_to_be_dead"),
    ("id be ok if a truck hit me", "wish_to_be_dead"),
    ("honestly id be relieved if a car hit me", "wish_to_be_dead"),
    ("i would be fine if the train took me", "wish_to_be_dead"),
    ("dying doesnt sound so bad", "wish_to_be_dead"),
    ("not waking up wouldnt be the worst thing", "wish_to_be_dead"),
    ("being dead doesnt seem that bad tbh", "wish_to_be_dead"),
    ("cut again last nite", "self_harm"),
    ("i cut last night", "self_harm"),
    ("relapsed and burned today", "self_harm"),
    ("just cut again", "self_harm"),
    ("been burning my arm", "self_harm"),
    ("hitting myself til it bruises", "self_harm"),
    ("this is my last msg, thank u for everything", "farewell"),
    ("this is the last time youll hear from me", "farewell"),
    ("just wanted to say i love u all one last time", "farewell"),
    ("the last time you guys will ever hear from me", "farewell"),
    ("who will feed my cat when im not around", "arrangements"),
    ("wrote down my passwords for my sister in case", "arrangements"),
    ("left all my logins for my brother in case anything happens", "arrangements"),
    ("gave my mom my bank details for when im gone", "arrangements"),
    ("can u make sure my dog goes to a good home", "arrangements"),
    ("if anything happens to me my sister gets my stuff", "arrangements"),
    ("told my bff she can have my clothes after", "arrangements"),
    ("sorted my affairs, everything is in order now", "arrangements"),
    ("its ok, i wont be a problem for much longer", "timeline"),
    ("please remember me as i was", "farewell"),
    ("love u all, sorry for everything", "farewell"),
    ("sorry for everything. love u all", "farewell"),
]
_CATEGORY = {"ideation": "suicidal_ideation", "method": "suicidal_ideation", "wish_to_be_dead": "suicidal_ideation", "self_harm": "self_harm",
             "farewell": "warning_sign", "arrangements": "warning_sign", "timeline": "warning_sign"}


def test_the_messages_here_are_in_no_part_of_the_crisis_set_and_are_enough():
    texts = (NEGATION + PAST_OVER + PAST_PLAIN + THIRD_PERSON + FAMILY_NEGATIVES + [t for t, _ in SCOPE + MIXED]
             + [t for t, _ in RECALL])
    assert len(texts) >= 120 and len(set(texts)) == len(texts)
    known = crisis_set_texts()
    assert not [t for t in texts if t.lower() in known]


@pytest.mark.parametrize("text", NEGATION + PAST_OVER + PAST_PLAIN + THIRD_PERSON + FAMILY_NEGATIVES)
def test_no_trigger(text):
    hit = crisis.detect_crisis(text)
    assert not CM.raises_alarm(hit), (text, hit)


@pytest.mark.parametrize("text", [t for t in NEGATION if "truck" not in t])
def test_a_denial_in_the_speakers_voice_stands_against_the_model(text):
    """The model alone never overrules a denial the rules read (crisis_model.assess asks denied_by_speaker): a
    negated rule phrase, or a one-sentence denial of one's own act that no rule phrase carries."""
    assert crisis.detect_crisis(text) is None
    assert crisis.denied_by_speaker(text), text


@pytest.mark.parametrize("text", [t for t, _ in SCOPE] + [
    "im not gonna do anything stupid. i wrote the letters already",
    "i wont hurt myself but i took all the pills",
])
def test_a_denial_with_anything_else_said_is_no_denial_of_the_whole(text):
    assert not crisis.denied_by_speaker(text), text


@pytest.mark.parametrize("text", PAST_OVER)
def test_a_past_that_is_over_is_an_everyday_reading(text):
    assert crisis.everyday_reading(text, False) == "a past that is over", text


@pytest.mark.parametrize("text", [t for t in THIRD_PERSON if crisis.detect_crisis(t) is not None])
def test_somebody_elses_act_is_medium_concern(text):
    hit = crisis.detect_crisis(text)
    assert hit["severity"] == "medium" and hit["category"] == "third_party_concern" and hit["level"] == "third_party"


@pytest.mark.parametrize("text,category", SCOPE + MIXED)
def test_the_speakers_own_risk_is_a_high_trigger(text, category):
    hit = crisis.detect_crisis(text)
    assert hit is not None and hit["severity"] == "high" and CM.raises_alarm(hit), (text, hit)
    assert hit["category"] == category, (text, hit)
    assert hit["phrase"] and hit["phrase"] in text


@pytest.mark.parametrize("text,level", RECALL)
def test_each_chat_paraphrase_is_a_high_trigger_with_its_level(text, level):
    hit = crisis.detect_crisis(text)
    assert hit is not None and hit["severity"] == "high" and CM.raises_alarm(hit), (text, hit)
    assert hit["level"] == level, (text, hit)
    assert hit["category"] == _CATEGORY[level], (text, hit)
    assert hit["phrase"] and hit["phrase"] in text  # the reviewer reads the words of the message


def test_the_mind_going_to_it_is_no_intent_by_its_going():
    """"keeps going to ending things" is ideation: "going to" there is the mind's movement, not an intent cue."""
    assert crisis.detect_crisis("my brain keeps going to ending things")["level"] == "ideation"
    assert crisis.detect_crisis("im going to end it tonight")["level"] in ("intent", "plan")


def test_long_chat_lines_stay_cheap():
    import time

    texts = ["my friend cuts herself " + "and " * 400 + "so do i", "my mind keeps " + "going " * 400 + "to dying",
             "wrote down my passwords " + "x " * 400 + "in case", "cut " * 500 + "again last night",
             "the last " * 300 + "time youll hear from me"]
    t0 = time.perf_counter()
    for t in texts:
        crisis.detect_crisis(t)
    assert time.perf_counter() - t0 < 2.0
