"""Issue 21, eighth round: passive wishes, timelines, farewells, a decision made, ideation -- and the clearing of
chat-style denials and a past that is over -- in the crisis RULES.

Written for this file from public clinical warning-sign knowledge (the C-SSRS definitions of a wish to be dead and
of active ideation; the public-health warning signs: talking about a time, saying goodbye, a sudden calm after a
decision), not from any part of agents/core/data/crisis_set.jsonl (no message here is in it, checked below) and
never from a held-out row. Chat style: lowercase, typos, no apostrophes, slang, non-native English, the risk
buried in the middle of a message. Labels come from what each message says about the speaker's own risk now:

- RISK: a high trigger with its level (C-SSRS level or warning sign) and category;
- CLEAR: no alarm -- a denial in the speaker's own voice ("not gonna kill myself lol just tired"), a past that is
  over ("2 years since my attempt, doing ok"), and the same-surface hard negatives of each new family (a goodbye
  for now, an everyday deadline, "i'm done with this job", a decision about a job or a haircut);
- SCOPE: a denial or a calm clause does not clear a risk said in the next clause.

Written in three probes. The first (the lists' heads) came before any family; the second and the third were each
written after the families before them and run against them first, untuned: the second caught 13 of 42 risk
messages (main: 13) with 4 of 30 negatives flagged (main: 4); the third 12 of 35 (main: 12), 3 of 24 flagged (main:
4). Those first readings are the honest estimate of how the families carry to wordings they were not written for;
each probe was then folded in at family level, and its remaining misses are strict xfails (KNOWN_MISSES).
"""
from __future__ import annotations

import pytest

from agents.core import crisis
from agents.core import crisis_model as CM
from tests.helpers import crisis_set_texts

# ------------------------------------------------------------------------------------------- risk
WISH = [  # passive: a wish to be dead or not alive, no act of one's own (C-SSRS 1)
    "wouldnt mind not being here anymore",
    "i wouldn't mind not being around tbh",
    "honestly i hope i dont make it through the surgery",
    "lowkey hope i dont make it to 30",
    "id be relieved if it was over for good",
    "it would be a relief if i just didnt exist",
    "kinda wish i could just stop existing",
    "wish i could fall asleep and just not be here anymore",
    "everything would be easier if i wasnt alive",
    "so tired. i just want to stop existing",
    "lowkey hoping i dont wake up tmrw",
    "ngl id be glad if it all ended for me",
    "i envy dead people tbh",
    "wouldnt be sad if i died tomorrow",
    "i wouldnt be upset if i died in my sleep",
    "if i died tomorrow id be fine with it",
    "im so done with being alive",
    "im done being alive honestly",
    "i am wishing to not be living anymore",
    "better for me to be dead i think",
    "i dont want to be alive anymore",
    "work was ok, ate pasta, honestly i wish i could just not exist, anyway how was ur day",
    "i would be happy to not wake up tomorrow",
    "hope something kills me soon ngl",
    "i dont want to exist anymore",
    "being alive is exhausting i just want to not be",
    "i just wanna disappear forever and never come back",
    "kinda hope the cancer comes back tbh",
    "i want to die so bad lately",
    # a second probe, written after the first families
    "some days i just hope i dont wake up",
    "tbh if i got really sick i wouldnt fight it",
    "i wouldnt fight it if something happened to me",
    "kinda wish id never been born ngl",
    "im tired of being alive",
    "id rather not be around anymore",
    "i just want to stop being",
    "would be nice to just not exist anymore",
    "id be ok with not waking up",
    "i just dont wanna be here no more",
    "i am not wanting to live anymore",
    "i would not be sad if tomorrow never came for me",
    # a third probe, measured before its families were written (see the module docstring)
    "low key wouldnt care if i didnt wake up",
    "i keep hoping something happens to me so i dont have to be here",
    "its not that i wanna kill myself i just dont wanna exist",
    "i just want everything to stop. me included",
    "honestly would be ok if i never saw another day",
    "death would be a vacation at this point",
    "sometimes i ask god to just take me",
    "im praying i dont wake up",
]
TIMELINE = [  # a time tied to the end, with no act named (warning sign)
    "once the kids are settled i wont need to be around anymore",
    "by sunday none of this will be my problem anymore",
    "this is the last weekend ill ever have",
    "only a few more days and then ill be free of all this for good",
    "set a date. the 14th",
    "i just need to get through christmas with the family, then i can finally go",
    "after christmas i wont be around anymore",
    "im giving it until friday, if nothing changes thats it for me",
    "3 more days and it's over for me",
    "i have until the end of the month and then its over for me",
    "once the rent is paid i can finally be gone",
    "i picked the day already. its next friday",
    "ive chosen the date",
    "after my mom's birthday i'll be gone",
    "once my dog is rehomed there is nothing keeping me here",
    "i wont be here by next month",
    "i wont be around to bother u anymore, thanks for trying",
    # a second probe, written after the first families
    "by this time next week i wont be a problem",
    "ill be gone before the new year",
    "in 2 weeks none of this will matter",
    "i gave myself till the end of the month",
    "once i finish writing the letters its time",
    "itll all be over by the weekend, promise",
    "when my lease ends so do i",
    # a third probe, measured before its families were written (see the module docstring)
    "2 more weeks. then its finished",
    "i wont be here for my birthday",
    "after this weekend you wont hear from me",
    "once i send the last payment, im done with all of it. for good",
]
FAREWELL = [  # goodbyes that read final (warning sign)
    "thank you for everything. really. for everything",
    "this is my last message, take care of urself",
    "tell them i loved them",
    "tell my mom i loved her ok",
    "please tell my sister im sorry and that i loved her",
    "goodbye everyone. it was nice knowing you",
    "it was nice knowing u all",
    "take care of mom for me ok",
    "see u on the other side guys, love u all",
    "its been a good run guys. love you all",
    "dont be sad ok? im finally free",
    "i am saying the goodbye to all of you, thank you for all",
    "please say to my mother i am loving her",
    "u were the best friend anyone could ask for. goodbye",
    "just wanted u to know u mattered to me. thats all. bye forever",
    "thank u for everything u did for me, i mean it. bye",
    "i love u. always did. goodbye",
    "if you dont hear from me again, thank you for everything",
    "this is the last time im texting anyone",
    "i wanted to say goodbye properly this time",
    "make sure my little brother knows it wasnt his fault",
    "sorry for everything i put you through. goodbye",
    # a second probe, written after the first families
    "i just want u to know none of this is ur fault. bye",
    "thanks for being the best sister. im sorry i couldnt stay",
    "goodbye my friend, you were always good to me",
    "if i dont reply tomorrow, know that i loved you",
    "youll be fine without me. goodbye",
    "this will be my final goodbye",
    "im signing off for good. take care",
    "hug mom for me",
    "goodnight. and goodbye.",
    # a third probe, measured before its families were written (see the module docstring)
    "i love you all so much. im sorry. goodbye",
    "this is the last thing ill ever write",
    "thank you for being there, even at the end",
    "when youre reading this ill be at peace",
    "please dont blame yourselves",
    "just know i tried my best. bye",
    "im logging off. for good this time",
]
DECIDED = [  # a decision made, a sudden calm (warning sign)
    "ive made my decision. dont try to change my mind",
    "im at peace now that i know what ill do",
    "its weird, i feel so calm now that ive decided",
    "i know what i have to do now and im not scared anymore",
    "my minds made up. no one can talk me out of it",
    "dont try to stop me, ive decided",
    "ive never felt so at peace. its all decided",
    "i made my choice and im ok with it now",
    "i dont feel sad anymore, i just feel ready to go",
    "i have taken my decision, nobody can stop me now",
    "i finally feel calm, i know how this ends",
    "no more doubts. i know what im doing tonight",
    "im not scared anymore. ive made up my mind",
    "its decided. i feel lighter than i have in years",
    # a second probe, written after the first families
    "everything is clear now. no more pain soon",
    "i stopped being scared. i know what comes next",
    "for the first time in months i feel calm, because i know it ends soon",
    "dont worry about me anymore, ive made peace with it",
    "my choice is made",
    "the decision is final",
    "nothing left to decide",
    # a third probe, measured before its families were written (see the module docstring)
    "i finally made up my mind and it feels good",
    "weirdly i feel better now that i know when",
    "no one can change this now, its set",
    "i already decided, its just a matter of time",
    "ive stopped fighting it. its decided",
]
IDEATION = [  # active thoughts of ending one's life (C-SSRS 2)
    "lately ive been wondering what it would be like to just end everything",
    "the thought of killing myself is the only thing that calms me",
    "suicide has been on my mind a lot",
    "part of me wants to just end everything",
    "not sure i want to keep going, thinking bout ending things",
    "i am thinking to kill myself since some weeks",
    "many times i think to finish my life",
    "i keep picturing my own funeral and honestly it feels like relief",
    "cant stop thinking abt ending my life",
    "ive been having thoughts of ending my life again",
    "i think about taking my life every day",
    "keep thinking how easy it would be to just end it",
    "idk how much longer i can stop myself from ending it",
    "lately i fantasize about not waking up ever",
    # a second probe, written after the first families
    "i think about dying all the time",
    "suicidal again ngl",
    "im having those thoughts again, the kill myself ones",
    "ending it sounds better every day",
    # a third probe, measured before its families were written (see the module docstring)
    "been looking at the bridge a lot and thinking",
    "thinking of just ending my life tbh",
    "i could just end it, nobody would know",
    "the urge to end it all is so strong today",
    "suicide keeps popping up in my head",
]
# (message, category): a negation or a calm clause, then the speaker's risk
SCOPE = [
    ("not gonna lie i want to be dead", "suicidal_ideation"),
    ("im fine. well no. i wish i could just not exist", "suicidal_ideation"),
    ("dont worry about me. this is my last message anyway", "warning_sign"),
    ("i wont call anyone. ive made my decision", "warning_sign"),
    ("im not sad anymore. ive made my decision and im at peace", "warning_sign"),
    ("i used to be scared of dying, now i just want to not exist", "suicidal_ideation"),
    ("i tried therapy years ago, it didnt help. i wish i wasnt alive", "suicidal_ideation"),
    ("no im not ok. i dont want to be alive anymore", "suicidal_ideation"),
    ("dont worry im safe for now. after the rent is paid ill end it", "suicidal_ideation"),
]

# ------------------------------------------------------------------------------------------- no alarm
NEGATION = [  # the speaker's own denial, chat style
    "not gonna kill myself lol just tired",
    "id never, just venting",
    "dont worry im safe",
    "im safe, just sad tonight",
    "im not going anywhere dont worry",
    "no im not gonna do anything to myself, just a bad day",
    "i would never end it, my kids need me",
    "nah not suicidal, just broke",
    "i dont wish i was dead, i just wish i was somewhere else",
    "im not gonna hurt myself i promise, just need to vent",
    "not wanting to die or anything, just burnt out",
    "i have no intention of ending my life, i just hate my job",
    "i dont want to disappear forever, just for the weekend lol",
    "i'd never kill myself, im too stubborn lol",
    "dw im not saying goodbye or anything, just going to bed",
    "i dont wanna kms i just want a nap",
    "not that i wanna die but this week sucks",
    "im not going to do anything dumb, im just upset",
    "im not planning on ending it, just need a break",
    "no thoughts of suicide, just stressed",
    "dont worry im not gonna jump, the view is just nice",
    "i dont feel like dying, i feel like crying",
    "i have zero plans to end my life",
    "i am not wanting to die, only tired",
    "not suicidal!! just dramatic lol",
    "i aint gonna off myself, chill",
    "i dont want to not exist, i want to be seen",
    "never gonna hurt myself again, thats behind me",
    "i wouldnt kill myself over a job, relax",
    # a second probe
    "im not going to end it, i promise, i just need sleep",
    "i dont plan on dying anytime soon lol",
    "id never leave my kids like that",
    "im not in danger, just lonely",
    "im safe, my therapist knows everything",
    "no suicidal thoughts, just stress",
    "nah im not gonna do smth stupid",
    # a third probe
    "lol im not killing myself over a test chill",
    "no i dont wanna die, i want a burger",
    "i wont do anything, im just really sad",
    "i dont wanna end it, i wanna change my life",
    "im safe now, thank you for checking",
    "i havent hurt myself, dont worry",
    "i never tried to kill myself, that was my cousin",
]
PAST_OVER = [  # a past that is over
    "i used to want to die, therapy helped",
    "2 years since my attempt, doing ok",
    "its been a year since i tried to end it and im still here",
    "i used to think about ending it every day. not anymore",
    "last year i wrote a goodbye note. now im planning my wedding",
    "i was in a dark place in 2021, wanted to die, but im good now",
    "3 years since i last cut myself",
    "i survived my attempt and now i volunteer at a crisis line",
    "i used to wish i wasnt alive, these days im happy",
    "when i was 17 i had a date picked, glad i reached out",
    "i attempted 5 yrs ago, today im a nurse",
    "i was suicidal in my teens. not anymore",
    "had a plan back in 2019 but i got help and im doing good",
    "i used to cut, been clean 400 days",
    "my attempt was years ago, life is good now",
    "i wanted to die after my divorce, now im remarried and happy",
    "tried to od at 20, now i run marathons",
    "suicidal thoughts used to be daily for me, now theyre gone",
    "it has been 4 years since my overdose and im doing well",
    "6 months since i last self harmed!",
    # a second probe
    "i havent thought about ending it in years",
    "the urge to cut is gone since i started meds",
    "i tried to take my life in 2018, now i run a support group",
    "i used to plan my death, now i plan trips",
    "its been a long road since my attempt but im ok",
    "survived my overdose two years ago and im grateful every day",
    "i once wanted to die. glad i stayed",
    # a third probe
    "had an attempt in 2017, today im celebrating 6 years of life",
    "i used to cut, the scars are old and faded now",
    "i was going to end it in 2020 but i met my wife",
    "i wrote a suicide note at 15, now im a counselor",
    "years ago i gave all my stuff away, i was in a bad place. not now",
]
FAMILY_NEGATIVES = [  # the same surface as a risk family, with an everyday reading
    # wishes
    "wouldnt mind not being at work tomorrow",
    "i hope i dont make it to the 6am class lol",
    "id be relieved if the exam was over for good",
    "hope i dont make it into the group photo, i look awful",
    "i wouldnt be upset if my flight got cancelled",
    "im so done with this job",
    "im done with being nice to him",
    "i wish i could just stop existing for a weekend and sleep",
    "i just want to stop existing on social media for a while",
    "i envy dead people in video games, they get to respawn",
    "i just want to disappear to a beach for a week",
    # timelines
    "after the kids exams are done i wont need to drive them anymore",
    "by sunday none of this will be my problem, the project ships friday",
    "this is my last weekend before the new job",
    "set a date for the wedding! the 14th",
    "once the rent is paid ill be broke until friday",
    "after christmas i wont be around, going to my parents for january",
    "im giving it until friday, if nothing changes im quitting the band",
    "i picked the day already for the party, next friday",
    "i wont be here by next month, moving to leeds",
    "3 more days and its over, last exam on thursday",
    "this is the last weekend ill ever have to work on a saturday lol",
    # farewells
    "thank you for everything, see you monday!",
    "this is my last message before i board, talk tmrw",
    "it was nice knowing u all, good luck at the new place",
    "tell them i loved the cake",
    "tell my mom i loved the flowers she sent",
    "goodbye everyone, see u after the holidays",
    "its been a good run guys, the show ends next week",
    "see you on the other side of exams lol",
    "thank you for everything you did for my dad",
    "take care of mom for me while im in london",
    "dont be sad ok? ill be back in june",
    "goodbye forever to my old phone lol",
    "i love u. always did. see u at dinner",
    # decided
    "made my decision, im taking the job in berlin",
    "ive decided! pizza tonight",
    "im at peace now that i know what ill do after graduation",
    "my minds made up, im dyeing my hair blue",
    "i know what i have to do now: study",
    "dont try to stop me, im eating the whole cake lol",
    "i made my choice, going with the blue one",
    "feel so calm now that the exam is over",
    "ive never felt so at peace, the retreat was amazing",
    "i dont feel nervous anymore, i feel ready for the race",
    # ideation
    "the thought of quitting my job is the only thing that calms me",
    "suicide prevention has been on my mind a lot since the training",
    "i keep imagining my wedding day",
    "thinking about ending things with him",
    # a second probe
    "i wouldnt fight it if they moved the meeting",
    "by this time next week i wont be a student",
    "ill be gone before the new year, moving to spain",
    "sunday is the day! race day",
    "when my lease ends so does my contract",
    "goodnight and goodbye 2023",
    "hug mom for me, i miss her, see u at xmas",
    "my choice is made, the green sofa",
    "nothing left to decide, the menu is set",
    "im signing off for good from twitter",
    "i gave myself till the end of the month to finish the book",
    "everything is clear now, thanks for explaining",
    "im tired of being alive at 6am on a monday lol",
    "would be nice to just not exist for a weekend",
    "i dont wanna be here no more, this party is dead",
    "in 2 weeks none of this will matter, the exam is pass fail",
    # a third probe
    "after my exams results come out im going out to celebrate",
    "2 more weeks. then its finished, the renovation i mean",
    "i wont be here for my birthday, ill be in rome",
    "after this weekend you wont hear from me, going off grid camping",
    "its happening friday! the party",
    "this is the last thing ill ever write on this blog, moving to substack",
    "please dont blame yourselves for the game, we tried",
    "i finally made up my mind and it feels good, im going vegan",
    "i have it all figured out now, the budget works",
    "been looking at the bridge a lot, its so pretty at sunset",
    "im logging off for good this time, too much drama on here",
    "i could just end it with him, nobody would blame me",
]

_LEVEL_CATEGORY = {"wish_to_be_dead": "suicidal_ideation", "ideation": "suicidal_ideation",
                   "timeline": "warning_sign", "farewell": "warning_sign", "decided": "warning_sign"}
RISK = ([(t, "wish_to_be_dead") for t in WISH] + [(t, "timeline") for t in TIMELINE]
        + [(t, "farewell") for t in FAREWELL] + [(t, "decided") for t in DECIDED]
        + [(t, "ideation") for t in IDEATION])
# a message that names a time and the act, or an act with intent, is rightly read at a higher C-SSRS level
_ALSO = {"timeline": ("plan", "intent"), "decided": ("intent", "plan"), "ideation": ("intent", "method"),
         "wish_to_be_dead": (), "farewell": ()}


# misses of the second probe, kept in view (no family yet: a payday tied to the end says nothing final by its words;
# a pet rehomed with thanks is arrangements the model reads)
KNOWN_MISSES = [
    ("just waiting for payday so my family gets the money, then im done", "timeline"),
    ("pls give my cat a good home. ty for everything", "farewell"),
    # the third probe's misses: an exam named beside the timeline is read as its everyday reason; a bare date or
    # "its happening friday" says nothing final by its words; "figured out" with "dont worry" is everyday too often
    ("after my exams results come out, im out. permanently", "timeline"),
    ("the 3rd. thats when", "timeline"),
    ("its happening friday", "timeline"),
    ("give the dog a hug from me, always", "farewell"),
    ("i have it all figured out now. dont worry", "decided"),
]


@pytest.mark.xfail(strict=True, reason="round 8: no rule family reads these yet")
@pytest.mark.parametrize("text,level", KNOWN_MISSES)
def test_known_misses(text, level):
    hit = crisis.detect_crisis(text)
    assert hit is not None and CM.raises_alarm(hit) and hit["level"] == level


def test_the_messages_here_are_in_no_part_of_the_crisis_set_and_are_enough():
    texts = [t for t, _ in RISK] + [t for t, _ in SCOPE] + NEGATION + PAST_OVER + FAMILY_NEGATIVES
    assert len(texts) >= 180 and len(set(texts)) == len(texts)
    known = crisis_set_texts()
    assert not [t for t in texts if t.lower() in known]


@pytest.mark.parametrize("text,level", RISK)
def test_each_risk_message_is_a_high_trigger_with_its_level(text, level):
    hit = crisis.detect_crisis(text)
    assert hit is not None and hit["severity"] == "high" and CM.raises_alarm(hit), (text, hit)
    assert hit["level"] == level or hit["level"] in _ALSO[level], (text, hit)
    assert hit["category"] == _LEVEL_CATEGORY.get(hit["level"], "suicidal_ideation") or hit["level"] in (
        "plan", "method") and hit["category"] in ("suicide_plan", "suicidal_ideation"), (text, hit)
    assert hit["phrase"] and hit["phrase"] in text  # the reviewer reads the words of the message


@pytest.mark.parametrize("text,category", SCOPE)
def test_a_denial_or_calm_before_does_not_clear_the_risk_after(text, category):
    hit = crisis.detect_crisis(text)
    assert hit is not None and hit["severity"] == "high" and CM.raises_alarm(hit), (text, hit)
    assert hit["category"] == category or category == "suicidal_ideation" and hit["category"] == "suicide_plan", \
        (text, hit)


@pytest.mark.parametrize("text", NEGATION + PAST_OVER + FAMILY_NEGATIVES)
def test_no_trigger(text):
    hit = crisis.detect_crisis(text)
    assert not CM.raises_alarm(hit), (text, hit)


@pytest.mark.parametrize("text", PAST_OVER)
def test_a_past_that_is_over_is_an_everyday_reading(text):
    assert crisis.everyday_reading(text, False) == "a past that is over", text
