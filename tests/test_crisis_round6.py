"""Issue 21, sixth round: explicit risk as grammars over slot lexicons, so that a new wording of the same act fires.

Families (agents/core/rules/crisis_rules.py, "sixth round"): an overdose taken (an ingest verb + an amount + a
substance or a medicine container, any owner), a container emptied into the mouth, a wound to a lethal site with
bleeding or a time of now, the engine running in a closed space with the speaker inside, stepping in front of a
train or into traffic now, being at an edge of a height said without a subject, "it's done" with the means named,
a ligature up; self-harm as a harm verb on one's own body with a mark of purpose, outcome or habit, a blow against a
surface until one's body is damaged, a harm habit resumed, a wound deeper than meant, a hot or sharp thing held to
one's body, new wounds hidden; a passive death wish (a wish verb + an event of one's own death; disappointed to be
still alive or by good health news; trading places with the dead; relieved if the vehicle one is in crashed); a
farewell (gratitude for the bond + a mark of a last message, the message naming itself the last, releasing the
listener from blame for what is about to happen, nobody has to look after me after tonight, "take care of yourself
for me", everything said with letters to be read after, a record left so that someone knows, a last sign-off); a
burden (others better off with the speaker gone for good).

The texts below were written for this file, each family in at least three syntaxes, with no phrase of any held-out
message; none is in any part of agents/core/data/crisis_set.jsonl (checked below). Expected levels come from the
C-SSRS definitions (an act already taken or in progress is an attempt; a tied ligature is preparatory behaviour) and
the public warning-sign lists, not from a run. Each family has hard negatives of the same surface: a treatment dose,
a pet or a child, an accident, sport, a view, a goodbye for now, leaving a job or a group, an everyday event.
"""
from __future__ import annotations

import pytest

from agents.core import crisis
from agents.core import crisis_model as CM
from agents.core.rules import crisis_rules as cr
from tests.helpers import crisis_set_texts

# (rule, message, C-SSRS level / warning sign)
POSITIVES = [
    # an overdose taken: ingest verb + amount + substance / medicine container, with a time or an aftermath
    ("overdose_taken", "necked a whole strip of my sertraline about twenty minutes ago", "attempt"),
    ("overdose_taken", "i have taken 40 of my nans co codamol and i feel sick", "attempt"),
    ("overdose_taken", "ate everything in the medicine cabinet, im so sorry", "attempt"),
    ("overdose_taken", "swallowed half a bottle of paracetamol with wine", "attempt"),
    ("overdose_taken", "popped like 25 oxys, cant feel my legs", "attempt"),
    ("overdose_taken", "just took all my lithium at once, it's done", "attempt"),
    ("overdose_taken", "swallowed 3 packs of paracetamol", "attempt"),
    ("overdose_taken", "i took way too many of my antidepressants on purpose", "attempt"),
    ("overdose_taken", "injected all my insulin an hour ago", "attempt"),
    # a poison drunk
    ("poison_taken", "i've drunk bleach", "attempt"),
    ("poison_taken", "swallowed some drain cleaner, my throat is burning", "attempt"),
    ("poison_taken", "just took a mouthful of weed killer", "attempt"),
    # what was taken is in the body now
    ("in_my_system", "the pills are in my system now, i can feel it", "attempt"),
    ("in_my_system", "it all is in my stomach now, no going back", "attempt"),
    ("in_my_system", "took everything. the tablets are already in my bloodstream", "attempt"),
    # bleeding out, in the water now
    ("dying_now", "i'm bleeding out in the bath", "attempt"),
    ("dying_now", "i'm in the water now, it's so cold, bye", "attempt"),
    ("dying_now", "im in the river right now with stones in my pockets", "attempt"),
    # a container emptied into the mouth
    ("emptied_into_mouth", "tipped the whole pill box down my throat", "attempt"),
    ("emptied_into_mouth", "poured my dads sleeping tablets into my mouth and swallowed", "attempt"),
    ("emptied_into_mouth", "shook the bottle of tramadol out into my mouth", "attempt"),
    # a wound to a lethal site, now
    ("wound_now", "sliced my wrist open and the blood won't stop", "attempt"),
    ("wound_now", "i've just slit both my wrists in the bath", "attempt"),
    ("wound_now", "cut into my neck a few minutes ago", "attempt"),
    # the engine running in a closed space, the speaker inside
    ("exhaust_now", "car running in the garage with the door closed, im in the back seat", "attempt"),
    ("exhaust_now", "sealed the windows with tape, the engine is on and i'm sitting inside", "attempt"),
    ("exhaust_now", "hose is in the window, motor started, saying goodbye now", "attempt"),
    # in front of a train or into traffic, now
    ("in_front_now", "i'm at the station and i'm going to step in front of the express when it comes", "attempt"),
    ("in_front_now", "walking onto the motorway right now", "attempt"),
    ("in_front_now", "about to lie down on the tracks, the next train is in 5 min", "attempt"),
    # at an edge of a height, said without a subject
    ("edge_now", "sitting on the ledge of my building right now", "attempt"),
    ("edge_now", "climbed over the railing of the bridge. this is it", "attempt"),
    ("edge_now", "standing on the roof of the car park. goodbye", "attempt"),
    # "it's done" with the means named
    ("done_it", "it's done, i swallowed them all", "attempt"),
    ("done_it", "no going back now, the rope is around my neck", "attempt"),
    ("done_it", "i have finally done it, the blade went deep", "attempt"),
    # a ligature up
    ("ligature_up", "the rope is up in the garage", "preparatory"),
    ("ligature_up", "belt's tied to the banister already", "preparatory"),
    ("ligature_up", "noose is hanging from the beam in my room", "preparatory"),
    # self-harm: a harm verb on one's own body + purpose, outcome, habit or instrument
    ("harm_marked", "burnt my wrist with a hot spoon again", "self_harm"),
    ("harm_marked", "been scratching my thighs till they bleed every night", "self_harm"),
    ("harm_marked", "hit my head against the wall on purpose", "self_harm"),
    ("harm_marked", "i bite my arm until it bruises", "self_harm"),
    # a blow against a surface until one's body is damaged, or wanted to hurt
    ("harm_on_surface", "kept banging my fists against the door until they bled", "self_harm"),
    ("harm_on_surface", "smashed my head on the mirror so it would hurt", "self_harm"),
    ("harm_on_surface", "punched the concrete wall till my knuckles split", "self_harm"),
    # a harm habit resumed
    ("harm_habit", "back to cutting every night", "self_harm"),
    ("harm_habit", "im back to burning myself", "self_harm"),
    ("harm_habit", "went to my room and cut again tonight", "self_harm"),
    ("harm_habit", "then i self harmed, like every night this month", "self_harm"),
    # a passive wish: a wish verb + an event of one's own death
    ("wish_death_event", "some days i pray god just takes me in my sleep", "wish_to_be_dead"),
    ("wish_death_event", "it would be a relief to never wake up again", "wish_to_be_dead"),
    ("wish_death_event", "keep hoping my heart gives out", "wish_to_be_dead"),
    ("wish_death_event", "i beg god every night to let me stop breathing", "wish_to_be_dead"),
    # disappointed to be still alive
    ("sorry_still_alive", "woke up again and honestly gutted i'm still breathing", "wish_to_be_dead"),
    ("sorry_still_alive", "kind of annoyed i'm still alive tbh", "wish_to_be_dead"),
    ("sorry_still_alive", "every morning the disappointment of still being here", "wish_to_be_dead"),
    # a cut deep, of one's own act
    ("cut_deep", "cut deep tonight, can't stop the bleeding", "self_harm"),
    ("cut_deep", "i cut deeper than ever on my thigh", "self_harm"),
    ("cut_deep", "and then i sliced way deeper, needed steri strips", "self_harm"),
    ("harm_marked", "i hurt myself really badly tonight on purpose", "self_harm"),
    ("harm_habit", "sh'd again last night", "self_harm"),
    ("wish_death_event", "pray for a heart attack", "wish_to_be_dead"),
    # a wound deeper than meant
    ("harm_depth", "went too deep on my thigh last night, needed steri strips", "self_harm"),
    ("harm_depth", "went deeper than i meant to and it won't stop bleeding", "self_harm"),
    ("harm_depth", "went way deeper on my forearm than before, blood everywhere", "self_harm"),
    # a hot or sharp thing held to one's own body
    ("harm_pressed", "been holding a lighter to my arm so i feel something", "self_harm"),
    ("harm_pressed", "dragged the razor across my wrist again", "self_harm"),
    ("harm_pressed", "i push pins into my thigh when it gets bad", "self_harm"),
    # hiding new wounds
    ("harm_hidden", "keep hiding the fresh cuts under hoodies", "self_harm"),
    ("harm_hidden", "covered up the burns on my legs before school", "self_harm"),
    ("harm_hidden", "hid the new marks with makeup", "self_harm"),
    # not hearing the alarm, the world going dark forever; disappointed by good health news
    ("wish_death_event", "i set my alarm and kind of hope i never hear it ring", "wish_to_be_dead"),
    ("wish_death_event", "wanted the whole world to fade to black forever", "wish_to_be_dead"),
    ("sorry_still_alive", "gutted the biopsy came back benign, i wanted it to be over", "wish_to_be_dead"),
    # trading places with the dead
    ("wish_trade_places", "stood at his grave and honestly would swap places with him", "wish_to_be_dead"),
    ("wish_trade_places", "at the funeral i kept thinking i'd trade places with her in a heartbeat", "wish_to_be_dead"),
    ("wish_trade_places", "my grandad died last week and i would switch places with him if i could", "wish_to_be_dead"),
    # relieved if the vehicle one is in crashed
    ("wish_crash_relief", "id be fine if the ferry sank with me on it", "wish_to_be_dead"),
    ("wish_crash_relief", "i'd honestly be relieved if my plane went down tomorrow", "wish_to_be_dead"),
    ("wish_crash_relief", "glad if the car crashed with me in it", "wish_to_be_dead"),
    # a record left so that someone knows, with a farewell in the message
    ("farewell_record", "posting this so people know i tried. love you all", "farewell"),
    ("farewell_record", "writing this so my sister knows i loved her. goodbye", "farewell"),
    ("farewell_record", "leaving a record that i existed. remember me", "farewell"),
    # the last sign-off; no text after this one
    ("farewell_last_time", "logging off for the very last time", "farewell"),
    ("farewell_last_time", "you won't hear another word from me after tonight", "farewell"),
    ("farewell_last_time", "you'll never get another message from me", "farewell"),
    # a farewell: gratitude for the bond + a last message (either order)
    ("farewell_thanks", "thanks for the talks. have a beautiful life", "farewell"),
    ("farewell_thanks", "thank you for trying. it wasn't enough", "farewell"),
    ("farewell_thanks", "thank you for always being there. this is goodbye", "farewell"),
    ("farewell_thanks", "you helped me more than you know. i won't be around much longer", "farewell"),
    ("farewell_thanks", "grateful for every chat we had. you won't hear from me again", "farewell"),
    ("farewell_thanks", "goodbye. thanks for putting up with me", "farewell"),
    ("farewell_thanks", "thanks for all our talks, you made my last days less lonely", "farewell"),
    # the message names itself the last
    ("farewell_last_text", "final message from me. look after the cat", "farewell"),
    ("farewell_last_text", "this is the last text you'll ever get from me", "farewell"),
    ("farewell_last_text", "i loved our talks. this is the last one", "farewell"),
    # releasing the listener from blame for what is about to happen
    ("farewell_absolve", "no matter what happens tonight, it's not on you", "farewell"),
    ("farewell_absolve", "when you hear the news, there was nothing you could have done", "farewell"),
    ("farewell_absolve", "don't ever blame yourself, whatever happens to me", "farewell"),
    # nobody will have to look after me
    ("farewell_no_one_has_to", "after today none of you will have to worry about me ever again", "farewell"),
    ("farewell_no_one_has_to", "you won't need to check on me anymore after tonight", "farewell"),
    ("farewell_no_one_has_to", "nobody will have to look after me anymore. goodbye", "farewell"),
    # take care of yourself for me
    ("farewell_for_me", "take care of yourself for me, ok?", "farewell"),
    ("farewell_for_me", "look after each other for me", "farewell"),
    ("farewell_for_me", "promise me you'll take care of yourself. this is my last message", "farewell"),
    # everything said, letters to be read after
    ("farewell_all_said", "i've written everything i needed to say. they'll find the letters in the morning",
     "farewell"),
    ("farewell_all_said", "said all i wanted to say to everyone, goodbye", "farewell"),
    ("farewell_all_said", "mum will open my letter tomorrow. i wrote what i had to say", "farewell"),
    # a burden: others better off with the speaker gone for good (without "for good" or death it is hopelessness,
    # medium, as the burden rule reads it)
    ("burden_if_gone", "my family would finally be happier if i was gone for good", "burden"),
    ("burden_if_gone", "honestly people would be relieved if i wasn't alive", "burden"),
    ("burden_if_gone", "everyone would get on better if i was out of the way for good", "burden"),
]

# same surface, no risk of the speaker's (per family)
NEGATIVES = [
    # an amount taken: a treatment dose, vitamins, food, a pet or a child
    "took two tylenol for my headache",
    "took all my vitamins this morning",
    "i took all my meds this morning like a good boy",
    "my cat swallowed a hair tie",
    "my toddler ate a whole strip of my ibuprofen, on the phone with poison control",
    "ate the whole box of chocolates lol",
    "downed the whole bottle of wine at the party",
    "took 20 of my paracetamol over the week for my back",
    "it's done, took my antibiotics for the last time",
    "took too many ibuprofen for my back, stomach hurts",
    "took two bottles of water",
    "i took 2 pills",
    # a poison: a dog, a film
    "my dog drank some antifreeze, at the vet",
    "the villain drank poison in the film",
    "you should try drinking bleach, idiot",
    "the news said a man drank bleach after reading a post",
    "thanks for everything you did for my dad. goodbye and god bless",
    "the last message from me was ignored, typical",
    "i said everything i wanted to say to him, goodbye drama",
    "accidentally swallowed some toilet cleaner spray, called poison control",
    # in the system: antibiotics, caffeine
    "the antibiotics are in my system now, feeling better",
    "caffeine is in my system now lol",
    # in the water, bleeding out: a swim, a game, a nosebleed
    "i'm in the sea now, it's so cold, come in!",
    "my character is bleeding out, heal me",
    "im in the lake right now, swimming laps",
    # a cut deep: a comment, a budget, a steak
    "that comment cut deep",
    "they cut deep into the budget this year",
    "i cut deep into the steak and it was raw",
    # hurt again: stairs
    "hurt my ankle again on the stairs",
    "hit my head on the shelf again",
    "burned my hand on the pan again, ugh",
    "i hurt myself again at football",
    "covered the burns on my arm with aloe after the bbq",
    "the belt is tied around the suitcase",
    "just took all my exams, so relieved it's done",
    "would be nice to not wake up to rain for once",
    "wish i could sleep forever on sundays",
    "this is my last message of the day, goodnight",
    "look after each other for me, i'll be back sunday",
    # a past overdose that is over; an accident-free wish
    "two years ago i took an overdose, i'm doing so much better now",
    "hoping for an accident free trip",
    # a container into the mouth: sweets
    "poured the skittles into my mouth",
    "tipped the bag of crisps into my mouth",
    # a wound: an accident, a surgeon
    "cut my wrist on a broken glass just now, need a plaster",
    "the surgeon opened my wrist to fix the tendon",
    "sliced my arm open on the fence, bleeding loads",
    # a running engine: warming it up, waiting, a mechanic
    "engine on in the garage to warm up the car, it's freezing",
    "sitting in the car with the engine running waiting for my sister",
    "the mechanic left the engine running in the garage",
    # in front of a train or a bus: boarding, an accident, a pet
    "stepping onto the train now, see you at 6",
    "almost stepped in front of a bus while looking at my phone lol",
    "my dog ran out in front of the car, he's fine",
    # an edge: a bed, a view, a pool
    "sitting on the edge of my bed right now, can't sleep",
    "standing on the roof of the car park watching the sunset right now",
    "sitting on the edge of the pool right now, the water is cold",
    # "it's done": an essay, a job, a tattoo
    "it's done! finally finished my essay",
    "i did it, i got the job",
    "the tattoo is done and it's bleeding a bit",
    # a rope up: climbing, washing, a swing, a tent
    "the rope is up on the climbing wall",
    "the washing line rope is up",
    "the swing rope is tied to the tree",
    "the tent's guy rope is tied",
    # a harm verb: hair, an oven, a cupboard, eczema, a tongue, someone else
    "i cut my hair again",
    "burned my hand on the oven again",
    "hit my head on the cupboard again, so clumsy",
    "scratching my arms every night because of eczema",
    "i bit my tongue again",
    "my brother punches himself when he's angry",
    # a blow against a surface: a door that broke, a match
    "kicked the door till it broke, the lock was jammed",
    "punched the wall after the match, my hand is sore",
    # a habit resumed: diet, gardening, gym, onions
    "back to cutting carbs",
    "back to cutting the grass every weekend",
    "back to hitting the gym every morning",
    "went to the kitchen and cut again tonight, onions for the soup",
    # a wish: a rollercoaster, someone else, an alarm, weather, nerves
    "i hope my heart doesn't stop on that rollercoaster",
    "i pray my grandad doesn't die in his sleep",
    "hope i don't wake up before noon tomorrow",
    "would be nice to never see another day of rain",
    "i wish my heart would stop racing before the exam",
    "i wish i could stop breathing for a minute, this hill is brutal",
    "it's not like i want to be dead, i just want a nap",
    # still here: at work, waiting, awake early
    "disappointed i'm still at the office at 9pm",
    "annoyed that i woke up at 5am again",
    "gutted i'm still here waiting for the bus",
    # a depth, a pressed thing, hidden marks: a game's lore, an argument, ironing, a tattoo, a cat, eczema
    "went way too deep into the lore of this game",
    "went too deep on that argument last night lol",
    "pressing the iron on my shirt",
    "held the needle to my skin for the tattoo",
    "hiding the new scratches from the cat, she's feral",
    "covered the marks on my arm from the eczema cream",
    # trading places, a crash: a holiday, a dog, landing early
    "i'd swap places with him, he's on holiday in bali",
    "would trade places with my dog, he sleeps all day",
    "relieved if the plane lands early",
    "i'd be relieved if the bus crashed into the fence instead of the school",
    # a health result, a record, the last time: a pregnancy test, a party, an apartment, an account, a flight
    "sad the test came back negative, we really wanted a baby",
    "so people know i was at the party",
    "so people know i tried my best at the bake sale",
    "a record that i tried: 42 pushups",
    "goodbye for the last time to this apartment",
    "signing off for the last time from this account, new one soon",
    "you won't get another text from me until i land",
    "have a great life, enjoy your retirement! thanks for everything",
    "thanks for trying, it wasn't enough to fix the bug but thanks",
    # gratitude and a goodbye: for now, leaving a job, a term
    "thanks for everything, see you monday!",
    "thank you for being there during my surgery, bye for now",
    "thanks for all our chats this term, goodbye and good luck with your exams!",
    "thanks for everything, i'm leaving the company on friday, bye all",
    "thanks for the tips, you made the end of my thesis easier",
    "thanks for everything today, bye!",
    "thank you for everything at the party, bye",
    # a last message: tonight, a flight, a group
    "last message from me tonight, off to bed",
    "final text from me before my flight",
    "last message from me in this group chat, found a new job",
    "this is the last one, i promise, no more cookies",
    # blame: an interview, a divorce, a cake
    "whatever happens at the interview, it's not on you",
    "whatever happens with the divorce, none of this is your fault, kiddo",
    "it's not your fault the cake burned",
    # nobody has to look after me: a cast, a sister back, 18
    "after tonight nobody has to check on me anymore, the cast comes off!",
    "my sister's back tomorrow so nobody has to babysit me anymore",
    "i turn 18 today so nobody has to look after me anymore, bye curfew",
    # take care for me: while away, till back, exams
    "take care of yourself for me while i'm at my mum's this week",
    "look after each other for me till i'm back from the trip",
    "take care of yourself for me, and get some sleep before your exams",
    # everything said: a meeting, a card, an ex
    "said everything i needed to say in the meeting, they'll read the minutes tomorrow",
    "wrote everything i wanted to say in her birthday card",
    "said all i had to say to my ex, goodbye to that chapter",
    # others better off: a bounded absence
    "everyone would breathe easier if i were out of the office for a week",
    "the kids would sleep better if i was gone on the weekends",
    "my team would be happier if i was out of the way during the move",
]

# a dosing question for an everyday purpose: the model-alone path reads it as such (a lethal word keeps it)
DOSE_QUESTIONS = [
    "checking how much ibuprofen i can take for my back",
    "what's the max dose of melatonin i should take before a long haul flight",
    "how many tylenol can you safely take for a fever",
]
DOSE_LETHAL = [
    "how many of my sleeping pills would it take to not wake up",
    "how much insulin can i take before it's lethal",
]


def test_the_messages_here_are_in_no_part_of_the_crisis_set():
    known = crisis_set_texts()
    texts = [t for _, t, _ in POSITIVES] + NEGATIVES + DOSE_QUESTIONS + DOSE_LETHAL
    assert not [t for t in texts if t.lower() in known]
    assert len(set(texts)) == len(texts)


def test_every_family_has_three_paraphrases():
    from collections import Counter
    counts = Counter(name for name, *_ in POSITIVES)
    assert all(n >= 3 for n in counts.values()), counts
    assert set(counts) <= {r.name for r in cr.RULES}


def _rule_alone(name: str, text: str) -> list[tuple[str, str]]:
    """The hits of one rule of the table by itself (judged and vetoed as the engine does)."""
    rule = next(r for r in cr.RULES if r.name == name)
    doc = crisis.parse(text)
    out = []
    for m in rule.regex.finditer(doc.norm):
        level = crisis._judge(doc, rule, m)
        i, j = cr._words_of(doc, m)
        if level is not None and not crisis._vetoed(rule, doc, i, j):
            out.append(level)
    return out


@pytest.mark.parametrize("name,text,level", POSITIVES)
def test_the_family_fires_alone_on_each_paraphrase(name, text, level):
    hits = _rule_alone(name, text)
    assert hits and all(sev == "high" for sev, _ in hits), (name, text, hits)


@pytest.mark.parametrize("name,text,level", POSITIVES)
def test_each_paraphrase_is_a_high_trigger_with_its_level(name, text, level):
    hit = crisis.detect_crisis(text)
    assert hit is not None and hit["severity"] == "high" and CM.raises_alarm(hit), (text, hit)
    assert hit["level"] == level, (text, hit)
    category = {"attempt": "suicide_plan", "preparatory": "suicide_plan", "self_harm": "self_harm",
                "wish_to_be_dead": "suicidal_ideation", "farewell": "warning_sign", "burden": "warning_sign"}[level]
    assert hit["category"] == category, (text, hit)
    assert hit["phrase"] and hit["phrase"] in text  # the reviewer reads the words of the message


@pytest.mark.parametrize("text", NEGATIVES)
def test_the_same_surface_without_risk_raises_no_alarm(text):
    hit = crisis.detect_crisis(text)
    assert hit is None or not CM.raises_alarm(hit), (text, hit)
    new = {name for name, *_ in POSITIVES}  # no family reads it as the speaker's risk (concern for another is none)
    assert not [name for name in new if [lv for lv in _rule_alone(name, text) if lv[1] != "third_party_concern"]], text


@pytest.mark.parametrize("text", ["i've taken an overdose", "had another overdose tonight"])
def test_an_overdose_taken_is_an_attempt(text):
    hit = crisis.detect_crisis(text)
    assert hit is not None and hit["level"] == "attempt" and hit["severity"] == "high", (text, hit)


@pytest.mark.parametrize("text", [
    "took all my xanax with half a bottle of gin, sleepy now",
    "i just ate my roommates whole stash of adderall",
])
def test_a_named_drug_or_a_relatives_supply_is_an_overdose(text):
    hit = crisis.detect_crisis(text)
    assert hit is not None and hit["level"] == "attempt" and hit["category"] == "suicide_plan", (text, hit)


@pytest.mark.parametrize("text", ["my family would be happier if i wasn't around",
                                  "everyone would breathe easier if i was out of the picture"])
def test_a_burden_without_permanence_is_medium_hopelessness(text):
    hit = crisis.detect_crisis(text)
    assert hit is not None and (hit["severity"], hit["category"], hit["level"]) == ("medium", "hopelessness", "burden")


@pytest.mark.parametrize("text", [
    "i hope my heart stops tonight",          # a passive wish stays a wish with "tonight" in it
    "pray i won't wake up tomorrow",
])
def test_a_passive_wish_keeps_its_level_with_a_time_word(text):
    hit = crisis.detect_crisis(text)
    assert hit is not None and hit["level"] == "wish_to_be_dead", (text, hit)


@pytest.mark.parametrize("text", [
    "my sister said she took a whole bottle of her pills an hour ago",
    "he told me he's back to cutting every night",
])
def test_a_third_person_is_concern_not_the_speakers_alarm(text):
    hit = crisis.detect_crisis(text)
    assert hit is not None and hit["category"] == "third_party_concern" and not CM.raises_alarm(hit), (text, hit)


@pytest.mark.parametrize("text", [
    "three years ago i swallowed a whole bottle of pills. today i run a support group",
    "back in college i was back to cutting every night, i'm doing so much better now",
    "the song is about taking a whole bottle of pills",
])
def test_a_past_that_is_over_or_a_media_topic_raises_nothing(text):
    hit = crisis.detect_crisis(text)
    assert hit is None or not CM.raises_alarm(hit), (text, hit)


@pytest.mark.parametrize("text", DOSE_QUESTIONS)
def test_a_dose_question_for_an_everyday_purpose_is_read_as_such(text):
    assert crisis.detect_crisis(text) is None
    assert crisis.everyday_reading(text, False) == "a dose for an everyday purpose"


@pytest.mark.parametrize("text", DOSE_LETHAL)
def test_a_dose_question_with_a_lethal_word_is_no_everyday_reading(text):
    assert crisis.everyday_reading(text, False) is None


def test_long_chat_lines_stay_cheap():
    """The new families' open slots are read in bounded time on long lines."""
    import time

    texts = ["took " + "all " * 300 + "pills", "thank you for everything " + "x " * 400 + "goodbye",
             "hoping " + "my " * 400 + "heart stops", "punched the wall " + "a " * 400 + "till my knuckles bled",
             "whatever happens " + "| " * 300 + "not on you", "chats " + "b " * 400 + "| this is the last one"]
    t0 = time.perf_counter()
    for t in texts:
        crisis.detect_crisis(t)
    assert time.perf_counter() - t0 < 2.0


def test_a_rules_gate_is_implied_by_its_pattern():
    """A gated rule is skipped when none of its gate words is in the message: that must never skip a match (checked
    over every text of the crisis set and of this file)."""
    texts = sorted(crisis_set_texts()) + [t for _, t, _ in POSITIVES] + NEGATIVES
    gated = [r for r in cr.RULES if r.gate]
    assert len(gated) >= 20
    for text in texts:
        doc = crisis.parse(text)
        words = set(doc.words)
        for rule in gated:
            if rule.regex.search(doc.norm):
                assert not rule.gate.isdisjoint(words), (rule.name, text)
