"""Crisis language detection (seed 000 §4.2): rules only, no LLM, no I/O, deterministic.

`detect_crisis(text)` -> {"severity": "high"|"medium", "phrase": <the matched span of `text`>,
"category": <one of CATEGORIES>} or None. `helpline_guidance(locale)` -> a fixed text block for the
AI's system prompt (acknowledge, encourage reaching out, helplines, emergency number).

Severity (what the caller is expected to do with it)
    high    explicit first-person suicidal ideation, a plan or the means ("I want to die", "kms",
            "I have the pills ready", "cutting myself again"): the AI answers with the helpline
            guidance immediately, and the message is flagged for human review when configured.
    medium  hopelessness without an explicit wish to die ("I can't take this anymore", "I can't go
            on like this"), self-directed statements in the second person ("you ever just want to
            die?"), and concern for somebody else ("what should I do if my friend wants to die"):
            the AI checks in gently and offers the helpline information; not flagged by itself.

Categories
    suicidal_ideation    wishing/wanting/planning to die or to kill oneself, passive wishes
                         ("I wish I was never born", "no reason to live", "better off without me")
    suicide_plan         means or preparations ("I have the pills ready", "saving up pills", a
                         suicide/goodbye note, "jump off a bridge", "take all my pills")
    self_harm            intent or ongoing self-injury ("I'm going to hurt myself", "cutting myself
                         again", "I can't stop cutting myself"); "starve/punish/hit myself" -> medium
    hopelessness         medium: "can't take this anymore", "can't go on", "I'm a burden", ...
    third_party_concern  medium: the person at risk is somebody else ("my friend wants to die",
                         "my brother said he's going to kill himself"). Chosen over None because the
                         speaker may need the same resources (crisis lines also counsel people
                         worried about someone) and a gentle check-in costs little.
    help_seeking         medium: asking for a suicide/crisis hotline.

How matching works
    1. The text is tokenised with the original character spans kept; each token is folded (case,
       accents, apostrophes: "don't" = "dont" = "don’t"), stretched letters are squeezed ("dieeee"
       -> "die"), in-word leetspeak and masking are undone ("k1ll", "s*icide"), chat spellings are
       expanded ("wanna" -> "want to", "im" -> "i am", "cant" -> "can not", "kms" stays "kms"), a few
       frequent typos are mapped ("wnat", "kil", "myslef") and long keywords are matched within edit
       distance 1 ("sucide", "suicidal" within 2: "sucidial"). Sentence punctuation becomes a
       boundary that no pattern crosses.
    2. Word-level regexes (RULES) find candidate phrases; a few words may sit in between ("I honestly
       just want to die").
    3. Every candidate is then judged in its sentence:
       - subject: the nearest subject before the phrase, up to 8 words back within the sentence.
         I/me/we (or no subject at all, as in chat: "wanna die tbh") -> first person; you -> second
         (medium); he/she/they/my friend/my mom/someone... -> third_party_concern (for the rules
         where that expresses concern; "he deserves to die" is not); people/everyone/humans
         (informational: "why do people commit suicide") and fictional characters -> no alarm;
         a non-person subject ("my phone is ready to die", "the game is suicide") -> no alarm.
         Nouns and adjectives ("suicide", "suicidal", "self harm", "overdose") need an explicit
         first-person subject or an experiential context ("feeling suicidal", "thinking about
         suicide", "my suicide attempt"): "suicide prevention month" and "what does suicidal mean"
         raise nothing.
       - negation between the subject and the phrase ("I don't want to die", "I'm not suicidal",
         "I would never hurt myself", "I stopped cutting myself") -> no alarm, except urges and
         ongoing behaviour: "trying not to cut myself", "I can't stop cutting myself" stay high.
       - quotes and titles: a phrase inside quotation marks when the message talks about a song,
         film, book, lyrics, ... or right after "called", "titled", "the song", "lyrics", "listening
         to" -> no alarm (quoting, not intent); quoted words attributed to somebody else ('he texted
         me "I want to die"') -> third_party_concern.
       - idioms are excluded by construction: the rules need a self-directed object or an intent
         verb, so "this traffic is killing me", "I'm dying of laughter", "lol I'm dead", "to die
         for", "I could kill for a pizza", "dead tired", "the death of me", "my phone is dying"
         never match; explicit exclusions cover "die of embarrassment/laughing", "die on this
         hill", "die my hair" (dye), "killing myself at the gym" (progressive "killing myself"
         needs an intent word or the end of the clause), "cutting myself some slack", "I hurt myself
         at the gym" (a past injury needs intent, "again" or "on purpose"), "kill me now"
         (hyperbole, no alarm), "5 kms" (kilometres), "suicide squad/doors/mission/run".
       - whole-message readings (issue 21, fifth round): a past that is over (a past marker with a recovery,
         an elapsed span since the act, "but I haven't in eleven years", or a contrast with a present that is
         well), unless anything of now is said ("again", "last night", an undated relapse); a negated history
         ("never had any thoughts of", "no history of", "zero urge to"; "... until this month" is current);
         words written on a thing ('the caption said "..."'); what a text is about ("the poem is about
         suicide"); for the model alone, exasperation frames ("will be the end of me", "want this shift to be
         over") with no death word or means.
    4. The most severe candidate wins (high before medium, a C-SSRS level or self-harm before a warning sign, an
       attempt taken or in progress before any other level), then the earliest. A rule with a word gate runs only
       when one of its gate words is in the message (a set test; the gate is implied by the pattern), and a rule runs only
       when the normalised text contains one of the literals its pattern requires (derived from the pattern itself,
       agents/core/crisis_gates.py; a rule added later is gated without anybody writing its gate).

Known limits (documented, not bugs): no alarm for "kys" (aimed at others), "kill me now", "this song
makes me want to die" (media word right before); humour does not lower the severity ("i want to die
lol" is high) because masked distress is common; English only.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from agents.core.crisis_gates import Gates
from agents.core.crisis_text import (  # noqa: F401 (parse, typo_candidates... re-exported)
    REAL_WORDS_PATH, TYPO_KEYWORDS, _DENIED_FRAME, _Doc, _FICTION, _MEDIA, _RELATIONS, _negated, _real_words,
    _speaker, _subject, parse, typo_candidates,
)
from agents.core.rules.crisis_rules import (
    Level, RULES, _METHOD_CUE, _RANK, _Rule, _TOPIC, _no_benign_reason, _noun_context, _words_of,
)

SEVERITIES = ("high", "medium")
CATEGORIES = ("suicidal_ideation", "suicide_plan", "self_harm", "hopelessness", "third_party_concern",
              "help_seeking", "warning_sign")


def _in_quotes(doc: _Doc, start: int, end: int) -> tuple[int, int] | None:
    for qs, qe in doc.quoted:
        if qs <= start and end <= qe:
            return qs, qe
    return None


def _quote_speaker(doc: _Doc, i: int, start: int, end: int, media: bool) -> str | None:
    """Who says a phrase inside quotes: "veto" (a song, meme or story's line), "third" (someone else),
    another subject kind, or None when the phrase is not quoted."""
    quote = _in_quotes(doc, start, end)
    if quote is None:
        return None
    if media or any(w in _MEDIA or w in _FICTION or w[:-1] in _FICTION for w in doc.words):
        return "veto"  # a quoted line in a message about a song, a meme, a story's villain
    k0 = next((n for n, sp in enumerate(doc.spans) if sp[0] >= quote[0]), i)
    lead = doc.before(k0, 6)
    if any(w in _INSCRIPTIONS for w in lead) and not any(w in ("my", "i") for w in lead):
        return "veto"  # 'the caption said "i want to die"', 'her shirt says ...': words written on a thing
    # who says the quoted words? the nominative subject before the opening quote
    k = next((n for n, sp in enumerate(doc.spans) if sp[0] >= quote[0]), i)
    speaker = _speaker(doc, k)
    if speaker == "fiction":
        return "veto"  # a character's line ('the villain says "I'll kill myself"'): a story, not intent
    return speaker


_THIRD_PRONOUNS = frozenset({"he", "she", "they"})
# what may stand between a relation and a self-statement that is the relation's own (seventh round): "my cousin has
# been self harming", "my friends been cutting again" ("friend's been"), "a coworker of mine attempted suicide"
_THIRD_LINK = frozenset("""who that has have had is was been still also just recently apparently finally already
keeps kept started of mine ours""".split())


def _own_words(words: list[str]) -> list[str]:
    """The words of a clause less a possessive "of mine" / "of ours", which names no act of the speaker's."""
    return [w for k, w in enumerate(words) if not (w in ("mine", "ours") and k and words[k - 1] == "of")]
_NEG_NOUNS = frozenset("urge urges thought thoughts plan plans desire wish intention intentions intent".split())
# things words are written on: a quoted phrase introduced by one is a reading, not the speaker's voice
_INSCRIPTIONS = frozenset("""caption captions captioned headline headlines sign signs shirt tshirt hoodie mug
sticker stickers poster posters slogan graffiti tweet tweets post posts comment comments thread subtitle subtitles
line lines quote quotes motto banner card tattoo billboard label""".split())
_FIRST_PERSON = frozenset({"i", "me", "my", "myself", "mine", "we", "us", "our"})
_NEVER_WOULD = re.compile(r"\bnever (?:would|will|could|ever|have|had|did|do)(?: i)?(?: ever)?$")
# a negated history before the phrase: "never had any thoughts of self harm", "I've never once felt suicidal", "no
# history of self harm"; "... until now", "... but lately" is a history that has just ended
_NEVER_HAD = re.compile(r"\b(?:never|not once|not ever|no (?:history|past|record))(?: once| ever| really| actually)?"
                        r"(?: (?:had|have had|experienced|felt|been|done|struggled with|dealt with|thought about|"
                        r"considered|engaged in|gone through|attempted|tried|had a problem with))?(?: (?:any|a|the|with))?"
                        r"(?: (?:thoughts?|history|urges?|feelings?|issues?|problems?|ideas?|plans?|intentions?|"
                        r"episodes?|ideation))?(?: (?:of|with|about|around|to|like))?$")
_UNTIL_NOW = re.compile(r"^(?:[^\s|]+ ){0,3}?(?:until|till|til|before|up to) (?:now|recently|lately|this|last|today|"
                        r"tonight|yesterday)\b|\b(?:but|and) (?:now|lately|recently|this week|tonight|today)\b")


# a denial that frames the speaker's clause (seventh round): "i don't think i want to die", "i don't believe i'd do it"
_DONT_THINK = re.compile(r"\b(?:do not|does not|did not) (?:really |actually |honestly )?(?:think|believe)(?: that)?$")
_LIFE_WORDS = frozenset("alive live living exist existing here around wake".split())
_DOUBT_RULES = frozenset({"doubt_living", "not_live", "tired_of_living", "point_of_living", "not_worth_living"})
# "i don't want to die, i just want the pain to stop": what the speaker wants instead of dying is no wish to die
_INSTEAD_OF_DYING = re.compile(r"\b(?:do not|never|not) (?:really |actually |even |honestly )?(?:want|wish) (?:to die|to be "
                               r"dead|to kill myself|to end (?:it|my life)|to not be here)\b(?: [^\s|]+){0,2} (?:\| )?"
                               r"(?:i )?(?:just|only|simply)$")


def _denied(doc: _Doc, rule: _Rule, at: int | None, i: int, j: int) -> bool:
    """Is the phrase negated (a denied frame before its subject, "never would I", or a negator in scope)?"""
    if "never" in doc.before(i, 7) and _UNTIL_NOW.search(" ".join(doc.after(j, 8))):
        return False  # "I never had thoughts of suicide until this month": a history that has just ended
    if at is not None and _DENIED_FRAME.search(" ".join(doc.before(at, 3))):
        return True
    if at is not None and _NEVER_WOULD.search(" ".join(doc.before(at, 3))):
        return True  # "never would I kill myself"
    if at is not None and _DONT_THINK.search(" ".join(doc.before(at, 5))) and rule.name not in _DOUBT_RULES \
            and "want" in doc.words[at:j] and not _LIFE_WORDS & set(doc.words[at:j]):
        return True  # "i don't think i want to die, i'm just overwhelmed" (not "i don't think i want to live")
    if _NEVER_HAD.search(" ".join(doc.before(i, 7))) and not _UNTIL_NOW.search(" ".join(doc.after(j, 8))):
        return True  # "never had any thoughts of self harm, just burnout" (not "... until last week")
    lo = at + 1 if at is not None else max(0, i - 3)
    window = [w for w in doc.words[lo:(j if rule.neg_scope == "all" else i)] if w != "|"]
    if doc.before(i, 1) in (["no"], ["zero"]) and doc.after(j, 1) in (
            ["thoughts"], ["thought"], ["urges"], ["urge"], ["plans"], ["ideation"], ["feelings"]):
        return True  # "no self harm thoughts, just stress"
    if doc.words[i] in _NEG_NOUNS:
        window = window + [doc.words[i]]  # the phrase starts with what is negated: "zero urge to self harm"
    return _negated(window)


def _judge(doc: _Doc, rule: _Rule, m: re.Match[str], notes: list[str] | None = None) -> Level | None:
    i, j = _words_of(doc, m)
    level: Level = (rule.severity, rule.category)
    if rule.check is not None:
        verdict = rule.check(doc, m, i, j)
        if verdict is False:
            return None
        if isinstance(verdict, tuple):
            level = verdict
    start, end = doc.spans[i][0], doc.spans[j - 1][1]

    # quotes, titles, media (media words count in the phrase's own sentence)
    if doc.after_title_cue(i):
        return None
    media = doc.sentence_has(i, _MEDIA)
    speaker = _quote_speaker(doc, i, start, end, media)
    if speaker == "veto":
        return None
    speaker_third = speaker == "third"

    # subject and negation
    inflected = doc.words[i].endswith("s") and len(doc.words[i]) > 3 and doc.words[i] not in ("less", "unless")
    if rule.mode == "self":
        kind, at = ("first", None)
        s_kind, s_at = _subject(doc, i, False)
        if s_kind == "first":
            at = s_at
        elif s_kind == "third" and s_at is not None and not _FIRST_PERSON & set(_own_words(doc.words[s_at:j])) and (
                doc.words[s_at] in _THIRD_PRONOUNS or doc.words[s_at] in _RELATIONS and (
                    s_at + 1 == i or all(w in _THIRD_LINK for w in doc.words[s_at + 1:i]))):
            # a self-statement rule whose subject is said to be somebody else, with nothing of "I" in
            # between or in the phrase: "my friend told me she's been cutting again", "someone said
            # they're going to end it tonight", "my brother attempted suicide", "a patient who overdosed today" (a
            # relation right before the phrase, or with "who"/"that" between); a rule like "better off without me"
            # names the speaker
            kind, at = "third_self", s_at
    elif rule.mode == "third":
        kind, at = _subject(doc, i, True)
        if kind in ("generic", "fiction") or media and not (at is not None and doc.words[at] in _RELATIONS):
            return None
        return ("medium", "third_party_concern")
    else:
        kind, at = _subject(doc, i, inflected)

    if rule.negatable and _denied(doc, rule, at, i, j):
        if notes is not None and kind in ("first", "implicit"):
            notes.append("denied")
        return None

    if speaker_third or kind == "third_self":
        return ("medium", "third_party_concern")
    return _by_subject(doc, rule, m, level, kind, at, media)


def _by_subject(doc: _Doc, rule: _Rule, m: re.Match[str], level: Level, kind: str, at: int | None,
                media: bool) -> Level | None:
    """The level a hit keeps once its subject is known (the speaker, nobody named, the listener, somebody else)."""
    i, j = _words_of(doc, m)
    if kind == "first":
        return level
    if kind == "implicit" and media and doc.before(i, 1) in (["about"], ["of"]):
        return None  # "the song about jumping off the bridge": what the song is about
    if kind == "implicit":
        if rule.noun and not _noun_context(doc, m, i, j):
            return None
        return level
    if kind == "second":
        return ("medium", level[1])
    if kind == "third":
        if not rule.others or media and not (at is not None and doc.words[at] in _RELATIONS):
            return None
        return ("medium", "third_party_concern")
    return None  # generic, fiction, non-person subjects


# --------------------------------------------------------------------------- the clinical level of a hit
# C-SSRS (Columbia Suicide Severity Rating Scale) in order: wish to be dead, active ideation, ideation with a
# method, intent, plan, preparatory behaviour, attempt (actual, interrupted or in progress); plus self-harm
# (non-suicidal self-injury), the public-health warning signs that carry no death word (a farewell, giving
# things away, arrangements for after, being a burden, means at hand, a timeline, "already decided"), and
# what is not the person's own risk (hopelessness, concern for someone else, asking for a helpline).
CSSRS_LEVELS = ("wish_to_be_dead", "ideation", "method", "intent", "plan", "preparatory", "attempt")
WARNING_SIGNS = ("farewell", "giving_away", "arrangements", "burden", "means", "timeline", "decided")
LEVELS = (*CSSRS_LEVELS, "self_harm", *WARNING_SIGNS, "hopelessness", "third_party", "help_seeking")

_RULE_LEVEL = {
    **dict.fromkeys(("want_to_die", "feel_like_dying", "deserve_to_die", "should_die", "wish_dead", "hope_i_die",
                     "be_dead", "rather_die", "not_live", "not_be_here", "no_reason", "nothing_to_live_for",
                     "not_worth_living", "point_of_living", "sleep_forever", "tired_of_living", "want_it_to_end",
                     "wish_not_wake", "want_not_alive", "wish_hit", "disappear"), "wish_to_be_dead"),
    **dict.fromkeys(("kill_myself", "kms", "unalive", "end_my_life", "end_it_all", "end_it", "suicidal", "suicide",
                     "nobody_if_i_died"), "ideation"),
    **dict.fromkeys(("jump", "crash_car", "wrists", "od", "noose", "gun_to_head"), "method"),
    **dict.fromkeys(("weapon_intent",), "intent"),
    **dict.fromkeys(("means_ready", "stockpiling", "note", "bought_means", "hiding_meds"), "preparatory"),
    **dict.fromkeys(("took_pills", "took_overdose", "already_took", "at_the_edge", "at_the_place_now"), "attempt"),
    "last_message": "farewell", "after_im_gone": "arrangements", "this_is_goodbye": "farewell",
    "wont_need": "giving_away", "gave_everything": "giving_away", "wont_be_here": "timeline", "decided": "decided",
    "means_at_hand": "means",
    **dict.fromkeys(("burden", "better_off_without_me", "better_off_if_gone"), "burden"),
    **dict.fromkeys(("cant_take_anymore", "cant_go_on", "give_up_on_life", "hopeless", "no_point",
                     "not_be_here_eoc", "end_things", "nobody_would_miss_me"), "hopelessness"),
    "hotline": "help_seeking",
    **dict.fromkeys(("death_welcome", "not_mind_dying", "wish_end_from_outside", "wake_or_sleep", "stop_being_alive"),
                    "wish_to_be_dead"),
    **dict.fromkeys(("ending_it_thoughts", "only_way_out", "doubt_living", "ideation_on_mind"), "ideation"),
    **dict.fromkeys(("research_dose", "research_way", "hold_my_weight", "exhaust_hose", "into_the_sea",
                     "means_fixation"), "method"),
    "doing_it_meant": "intent", "planned_it": "plan",
    "wish_shapes": "wish_to_be_dead", "struck_welcome": "wish_to_be_dead", "ideation_shapes": "ideation",
    "end_it_when": "intent", "method_shapes": "method", "attempt_shapes": "attempt", "plan_shapes": "plan",
    "place_now_shapes": "attempt", "fatal_question": "method", "explicit_more": "attempt",
    "harm_more2": "self_harm", "wish_more": "wish_to_be_dead", "method_more2": "method",
    "attempt_more": "attempt", "harm_more": "self_harm", "burden_more2": "burden", "giving_more": "giving_away",
    "arrange_more": "arrangements", "method_more": "method",
    "prep_shapes": "preparatory", "means_shapes": "means", "farewell_shapes": "farewell",
    "giving_shapes": "giving_away", "arrange_shapes": "arrangements", "burden_more": "burden",
    "timeline_more": "timeline", "decided_more": "decided",
    "farewell_final": "farewell", "decided_calm": "decided", "given_for_good": "giving_away",
    "arranged_for_after": "arrangements", "timeline_gone": "timeline", "burden_shapes": "burden",
    **dict.fromkeys(("letters_written", "pills_gathered"), "preparatory"),
    **dict.fromkeys(("took_quantity", "attempted", "on_the_place_now"), "attempt"),
    "wish_signs": "wish_to_be_dead", "attempt_signs": "attempt",
    **dict.fromkeys(("farewell_signs", "farewell_dont", "farewell_beyond"), "farewell"),
    "intent_not_survive": "intent", "slot_then_act": "plan", "go_and_act": "plan", "lethality_question": "method",
    "supply_built": "preparatory", "harm_ongoing": "self_harm", "reaction_to_my_death": "ideation",
    "wish_conditional": "wish_to_be_dead", "intent_act": "intent", "concealed_plan": "plan",
    "method_for_it": "method",
    **dict.fromkeys(("overdose_taken", "emptied_into_mouth", "wound_now", "exhaust_now", "in_front_now", "edge_now",
                     "done_it", "poison_taken", "in_my_system", "dying_now"), "attempt"),
    "cut_deep": "self_harm",
    **dict.fromkeys(("me_too", "mind_goes_to", "dying_on_mind"), "ideation"),
    **dict.fromkeys(("wish_hit_ok", "death_not_bad"), "wish_to_be_dead"),
    "harm_bare_now": "self_harm", "arranged_in_case": "arrangements", "farewell_hear_last": "farewell",
    **dict.fromkeys(("arranged_who_gets", "affairs_in_order"), "arrangements"), "no_problem_long": "timeline",
    **dict.fromkeys(("remember_me", "farewell_sorry_love"), "farewell"),
    # eighth round
    **dict.fromkeys(("wish_relief", "wish_not_living", "wish_not_here_far"), "wish_to_be_dead"),
    "timeline_set": "timeline", **dict.fromkeys(("farewell_final_chat", "farewell_tell_love"), "farewell"),
    **dict.fromkeys(("decided_final", "decided_ready"), "decided"),
    **dict.fromkeys(("ideation_wonder", "ideation_thinking"), "ideation"),
    "ligature_up": "preparatory", "burden_if_gone": "burden",
    **dict.fromkeys(("harm_marked", "harm_on_surface", "harm_habit", "harm_depth", "harm_pressed", "harm_hidden"),
                    "self_harm"),
    **dict.fromkeys(("wish_death_event", "sorry_still_alive", "wish_trade_places", "wish_crash_relief"),
                    "wish_to_be_dead"),
    **dict.fromkeys(("farewell_thanks", "farewell_last_text", "farewell_absolve", "farewell_no_one_has_to",
                     "farewell_for_me", "farewell_all_said", "farewell_record", "farewell_last_time"), "farewell"),
}
# a passive wish stays a wish when the message says "tonight" or "will" (sixth round: "pray my heart stops tonight")
_PASSIVE_WISH = frozenset({"wish_death_event", "sorry_still_alive", "wish_trade_places", "wish_crash_relief",
                           "wish_hit_ok", "death_not_bad", "wish_relief", "wish_not_living", "wish_not_here_far"})
_INTENT_CUE = re.compile(r"(?<!not )\b(?:(?<!keeps )(?<!keep )(?<!kept )going to|gonna|about to|ready to|will(?! not)|decided|made up my mind|i mean "
                         r"it|"
                         r"this time|for real|tonight|intention)\b")
_WHEN_CUE = re.compile(r"\b(?:tonight|tomorrow|this (?:weekend|week|friday|saturday|sunday|evening)|on (?:monday|"
                       r"tuesday|"
                       r"wednesday|thursday|friday|saturday|sunday)|next (?:week|month|monday|tuesday|wednesday|"
                       r"thursday|"
                       r"friday|saturday|sunday)|when (?:everyone|nobody|no one)|after (?:everyone|my|the))\b")
_PAST_ATTEMPT = re.compile(r"\b(?:tried|attempted|survived)(?: to)?$")


def _level(rule: _Rule, level: Level, doc: _Doc, i: int, j: int) -> str:
    if level[1] == "third_party_concern":
        return "third_party"
    if level[1] == "self_harm":
        return "self_harm"
    base = _RULE_LEVEL.get(rule.name, "self_harm" if rule.category == "self_harm" else "ideation")
    if base == "hopelessness" and level[0] == "high":
        base = "wish_to_be_dead"
    phrase = " ".join(doc.words[i:j])
    if rule.name == "warning_more":
        if re.search(r"\b(?:decision|stop me|feel|be anything|be in pain)\b", phrase):
            return "decided"
        return "timeline" if re.search(r"\b(?:here|around|alive|worry|plans)\b", phrase) else "farewell"
    if rule.name == "intent_act":  # intent with a when, a where or a hiding slot is a plan (C-SSRS)
        slot = _WHEN_CUE.search(doc.norm) or re.search(r"\b(?:asleep|nobody|no ones?|alone|hotel|sunday|monday|"
                                                       r"tuesday|wednesday|thursday|friday|saturday)\b", doc.norm)
        return "plan" if slot else "intent"
    if rule.name == "overdose" and (phrase.startswith("overdosed") or re.search(
            r"\b(?:took|taken|had|done|did)(?: an?| another)?$", " ".join(doc.before(i, 3)))):
        return "attempt"  # "I overdosed", "I've taken an overdose" (sixth round): an act already taken
    if _PAST_ATTEMPT.search(" ".join(doc.before(i, 3))) and base in ("ideation", "method", "wish_to_be_dead"):
        return "attempt"
    if rule.name == "noose" and re.search(r"\b(?:tied|hanging|made|set up|up)\b", phrase):
        return "preparatory"
    if rule.name == "jump_now":
        return "attempt" if re.search(r"\b(?:right now|now|standing|sitting|i am on|i am at)\b", doc.norm) else "intent"
    if base in ("wish_to_be_dead", "ideation", "method") and rule.name not in _PASSIVE_WISH and not (
            base == "wish_to_be_dead" and re.match(r"(?:hop|pray|wish|ask|beg)", phrase)):
        if _INTENT_CUE.search(doc.norm):
            base = "plan" if _WHEN_CUE.search(doc.norm) and _METHOD_CUE.search(doc.norm) else "intent"
        elif base != "method" and _METHOD_CUE.search(phrase):
            base = "method"
    return base


# ------------------------------------------------------------------------ what a message is, as a whole
# a past that is over: a past marker, a recovery marker and nothing of now ("I used to self harm, six years
# clean"; "I tried to kill myself years ago and I'm glad I'm still here"); "... and I feel like doing it again"
# is no past
_PAST = re.compile(r"\b(?:used to|i once|years ago|yrs ago|a year ago|last year|"
                   r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|many) (?:years?|yrs|"
                   r"months|weeks) since (?:i|my)|when i was|back then|in (?:college|high school|school|my "
                   r"(?:teens|twenties|thirties|twenties))|as a (?:teen|teenager|kid)|in (?:19|20)\d\d|since then|"
                   r"ever since|"
                   r"back in (?:uni|school|college|the day)|(?:a |two |three |a few |[^\s|]+ )?decades? ago|back when|from when|my old (?:journal|diary|diaries|posts|poems|notes|tweets)|at (?:1[3-9]|[2-5]\d)(?= |$)|"
                   r"(?:a )?long time ago|ages ago|my old (?:suicide )?(?:attempt|scars)|"
                   r"since "
                   r"my|clean for|clean from|clean since|(?:yrs|years|months|days) clean|once (?:but|and|though)|free since|i remember when|looking back|that dark (?:period|time)|"
                   r"(?:years|months) clean|years back|was (?:19|20)\d\d|(?:beat|overcame|overcome|got over|"
                   r"recovered from) my|survived my (?:suicide )?attempt|at (?:uni|university|college)|that (?:winter|summer|spring|autumn|fall|year|time)|after my (?:divorce|"
                   r"break ?up|breakup|miscarriage|accident)|i (?:was|had been) (?:suicidal|depressed|self harming))\b")
_RECOVERED = re.compile(r"\b(?:glad|grateful|proud|doing (?:well|better|great|so much better|ok|okay)|better now|so "
                        r"much "
                        r"better|clean|free|behind me|is over|finally over|held on|not anymore|no longer|healthier|"
                        r"helped|survived|still here|life is good|now i|today i am|how far i have come|come a long way|"
                        r"came through|"
                        r"got through|pulled through|made it through|(?:much )?better place|good place|recovered|"
                        r"recovery|healing|stable|a different person|therapy (?:really )?(?:helped|changed)|"
                        r"changed that|(?:they are|it is|its|those are|that is) (?:all )?gone now|went away|thriving|doing amazing|"
                        r"i am (?:happy|fine|good|well|okay|ok|safe) now|these days i am (?:[^\s|]+ )?(?:happy|content|fine|good|well|okay|ok|stable|"
                        r"thriving|healthy)|(?:really|so|very) happy|happy now|got help|thankfully|"
                        r"i am \d\d now|i am a \w+ now|another life|a lifetime ago|treated|now i am a|graduated|got married|getting married|promoted|showed me|know better now|"
                        r"realised|realized|with help|beat it|the last time i|different now|things are different|saved me|saved my life|stopped|faded|help others|helping others|openly|got me through|through it"
                        # seventh round: chat wordings of a present that is well
                        r"|i am (?:so |much |way |a lot |so much |doing )?(?:better|good|ok|okay|fine|great)(?: now| these days| today)?(?= \||$| and| but| now| so| tho| though| lol| thank)"
                        r"|(?:life|things|it|everything) (?:got|gets|is getting|has gotten|have gotten|are getting) (?:so much |a lot |way )?better"
                        r"|(?:life|things|it|everything) (?:is|are) (?:so |really |pretty )?(?:good|better|great|okay|ok|fine) (?:now|these days)"
                        r"|reached out|talked to someone|been clean|am clean"
                        # eighth round: "now theyre gone", "now im planning my wedding"
                        r"|now (?:they are|it is|its|those are|the thoughts are) (?:all )?gone|planning (?:my|our) wedding"
                        r"|met (?:my|the love of my life)|not (?:now|anymore|these days)(?= \||$))\b")
# said outright to be over: "the thoughts went away", "those urges stopped years ago"
_OVER = re.compile(r"\b(?:ended|closed|left behind) (?:the|that) (?:part|chapter|period|phase|season|time) of my "
                   r"life\b|\b(?:the )?(?:urges?|thoughts?) (?:to|of|about) [^\s|]+(?: myself)? (?:is|are|has|have) (?:been )?"
                   r"(?:gone|over) (?:since|after|for good|now)\b|\b(?:thoughts|urges?|feelings?|it|they|that|those|cutting|self harm|phase|period|episode|days) "
                   r"(?:all )?(?:went away|have gone|are gone|stopped|faded|passed|ended|left me) (?:after|when|once|"
                   r"years|months|a long|long|since|for good)\b")
_NOW = re.compile(r"\b(?:again|lately|(?:is|are|came|come|coming) back|last night|yesterday|these days(?! i am (?:[^\s|]+ )?(?:stable|fine|good|happy|well|okay|ok|better|great|doing))|right now|tonight|this week|still (?:want|think|feel)|feel like doing|"
                  r"want to do it|(?:relaps\w*|slipped up|broke (?:my )?(?:clean )?streak)(?! once| in (?:19|20)\d\d| years ago| a year "
                  r"ago| back in| when i was| in my))\b")
_NUM = (r"(?:\d+|a|an|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|twenty|"
        r"thirty|many|several|a few|so many|a couple of)")
# an elapsed span since the act: "... but I haven't in eleven years", "haven't cut for 2 years" (the negated verb, if
# any, is the act itself: "I haven't left the house in two months" says nothing of the past being over)
_SPAN_OVER = re.compile(rf"\b(?:have not|has not|had not|not)(?: (?:done it|done that|done anything like that|cut|cut "
                        rf"myself|self harmed|harmed myself|hurt myself|attempted|tried|relapsed|felt (?:that|like that|"
                        rf"that way)|had (?:those|the|any|these) (?:thoughts|urges)|thought about (?:it|ending it|ending my life|suicide|"
                        rf"killing myself|dying|cutting|self harm|hurting myself)|gone there))? "
                        rf"(?:(?:in|for|since) (?:over |almost |nearly |about |more than |around |well over )?{_NUM} "
                        rf"(?:years?|months|decades?)|(?:in|for) (?:ages|years|forever|a long time|a long while))\b")
# a clean count since the last act (eighth round): "6 months since i last self harmed!", "3 years since i last cut
# myself" (weeks or more; "2 days since i last cut" is a streak too young to call over)
_SINCE_LAST = re.compile(rf"\b(?:{_NUM}|one) (?:years?|yrs|months|weeks) since i last (?:cut|cut myself|self harmed|"
                         r"harmed myself|hurt myself|burned myself|burnt myself|attempted|tried|relapsed|overdosed|od)\b")
# a contrast with a present that is well: "(years ago I tried ...) today I ran my first marathon"
_NOW_WELL = re.compile(r"\b(?:today|now|these days|nowadays|this year) i (?:ran|run|finished|completed|graduated|got "
                       r"(?:married|engaged|promoted|my)|am (?:a|an|married|engaged|healthy|proud|training|studying|"
                       r"working|happy|thriving|sober|clean)|have (?:a|two|three|kids|a family|a job)|celebrat\w*|help|"
                       r"teach|volunteer|work (?:as|with|in)|speak|coach|mentor)\b")


def _past_and_over(norm: str) -> bool:
    """A past that is over: a past marker with a recovery, said to be over, an elapsed span since the act, or a
    contrast with a present that is well -- and nothing of now ("again", "last night", "relapsed")."""
    if _NOW.search(norm):
        return False
    return bool(_PAST.search(norm) and (_RECOVERED.search(norm) or _NOW_WELL.search(norm)) or _OVER.search(norm)
                or _SPAN_OVER.search(norm) or _SINCE_LAST.search(norm))


# a "now" that opens the hit's own clause (eighth round): "i used to be scared of dying, now i just want to not exist"
# says the risk of now; a past that is over never clears it
_NOW_OPENS = re.compile(r"\b(?:now|but now|and now|today|tonight|these days|lately)(?: i)?(?: am)?(?: just| really| only| "
                        r"still| kinda| honestly)?$")


# exasperation that borrows a death frame for a task, a day or a person: "planning the hen do will be the end of
# me", "I just want this week to be over already" (a message with a death word or a means is no such frame)
_EXASPERATION_FRAME = re.compile(
    r"\b(?:will|would|is going to|going to|gonna|is gonna|are going to|are gonna) be the (?:death|end) of me\b"
    r"|\bwant (?:this|the|today|tonight|my|these) (?:[^\s|]+ )?(?:week|day|days|month|semester|term|year|shift|meeting|"
    r"exam|exams|trip|flight|drive|class|lecture|season|weekend|party|wedding|move|project|call|headache|migraine|"
    r"hangover|flu|cold|heatwave|deadline|commute|morning|afternoon|evening|night) (?:[^\s|]+ )?(?:to be over|to end|"
    r"over|done)\b")
_DEATH_WORD = re.compile(r"\b(?:die|dying|dead|death(?! of me)|kill|killing|suicid\w*|alive|my life|end it|pills|"
                         r"overdose|jump|gone|not wake|me with it|exist|existing|self harm|cut myself|hurt myself)\b")
# everyday exasperation: "I can't go on like this, this laptop..." names an everyday thing
_EVERYDAY = re.compile(r"\b(?:laptop|computer|pc|phone|printer|wifi|internet|app|traffic|commute|bus|train|neighbours?|"
                       r"neighbors?|lecture|lectures|taxes|loud|group chat|mould|mold|damp|teething|nappy|nappies|potty|colic|"
                       r"snoring|sourdough|bread|cake|baking|plant|plants|haircut|outfit|toddler|dog|cat|noise|construction|weather|heat|rain|landlord|inbox|email|emails|zoom|"
                       r"meeting|"
                       r"meetings|chair|desk|keys|coffee|sleep|recipe|instructions|ikea|printer|tax|form|leak|bathroom|"
                       r"kitchen|heating|boiler|fridge|car|school run|homework|assignment|project|spreadsheet|code|bug|"
                       r"game|diet|gym|drilling|renovation|renovations|exams|deadline|deadlines|dishes|roommate|flatmate|housemate|"
                       r"on hold|customer service|hold music|bank|paperwork|admin|parking|monday|mondays|alarm)\b")
_EXASPERATION_RULES = frozenset({"cant_take_anymore", "cant_go_on", "no_point", "not_be_here_eoc"})
_NOUN_RULES = frozenset({"suicide", "suicidal", "self_harm_noun", "overdose", "unalive"})
# hyperbole: "I want to die, I sent the email to the wrong person lol" (laughter and an everyday cause)
_HYPERBOLE_RULES = frozenset({"want_to_die", "should_die", "be_dead", "wish_dead", "kill_myself", "feel_like_dying",
                              "jump_now", "jump"})


_TRIVIAL = re.compile(r"\b(?:hair|haircut|outfit|spreadsheet|spreadsheets|printer|wifi|queue|group chat|playlist|"
                      r"zoom call|homework|lecture|email|emails|inbox|traffic|sourdough|crocs|karaoke)\b")
_LAUGH = re.compile(r"\b(?:lol|lmao|lmfao|haha\w*|hehe\w*|rofl|jk|omg|xd|oops|whoops)\b")
_EMBARRASS = re.compile(r"\b(?:embarrass\w*|cringe|awkward|forgot (?:my|his|her|the|to)|in front of (?:everyone|everybody|the (?:whole )?class|my crush|"
                        r"the whole)|wrong (?:person|chat|email|group)|typo|autocorrect|spoiler|"
                        r"hangover|so funny|hilarious)\b")
# a third person's death that is history or news, not concern for someone now
_THIRD_HISTORY = re.compile(r"\b(?:years ago|decades ago|in (?:19|20)\d\d|in the (?:\d0s|[a-z]+ties)|back in|long ago|"
                            r"according to|reported|report|the news|police said|historians?|history|in the book|in the "
                            r"film|in the movie|in the play|in the story|in the show|the patient|a patient|patients|they both|both of them|legend|myth)\b")


_ABOUT = re.compile(r"(?<!\bi )(?<!\bwe )\b(?:is|was|are|were|posted|posts|posting|wrote|writes|tweeted|shared|"
                    r"talked|talks|spoke|speaks|video|article|thread|episode|podcast|documentary) (?:all |really |actually |"
                    r"partly |kind of |something |a lot )?(?:about|on)$")


def _vetoed(rule: _Rule, doc: _Doc, i: int, j: int) -> bool:
    """What the message as a whole says a hit is not: a past that is over, everyday exasperation, a topic
    (training, news, research), a question somebody asked ("the doctor asked if I want to hurt myself")."""
    if rule.name == "hotline":
        return doc.sentence_has(i, frozenset({"volunteer", "volunteering", "shift", "work", "working", "training"})) or bool(
            re.search(r"\bfor (?:a|my|our) (?:friend|students|class|clients|patients|team|staff|kids|son|daughter|brother|"
                      r"sister|mum|mom|dad|partner|classmate|colleague|coworker)\b", doc.norm))
    if _past_and_over(doc.norm) and not _NOW_OPENS.search(" ".join(doc.before(i, 4))):
        return True
    if _INSTEAD_OF_DYING.search(doc.norm[:doc.starts[i]].rstrip()):
        return True  # "i dont actually want to die i just want the pain to stop"
    if rule.name in _EXASPERATION_RULES and _EVERYDAY.search(doc.norm):
        return True
    if rule.name in _HYPERBOLE_RULES and _LAUGH.search(doc.norm) and (_EVERYDAY.search(doc.norm)
                                                                      or _EMBARRASS.search(doc.norm)):
        return True
    if rule.mode == "third" and _THIRD_HISTORY.search(doc.norm):
        return True
    if rule.name in _HYPERBOLE_RULES | _EXASPERATION_RULES or _RULE_LEVEL.get(rule.name) in (
            "wish_to_be_dead", "hopelessness", "ideation", "method", "intent"):
        if _LAUGH.search(doc.norm) and (_EVERYDAY.search(doc.norm) or _EMBARRASS.search(doc.norm)):
            return True  # laughter and an everyday cause: "ending it all if i see one more spreadsheet lol"
        sentence = " ".join(doc.sentence_words(i))
        if _EMBARRASS.search(sentence) or _TRIVIAL.search(sentence):
            return True  # a trivial or embarrassing cause named: "my hair is so bad today i want to die"
    if rule.name in _NOUN_RULES and _ABOUT.search(" ".join(doc.before(i, 3))) and not re.search(
            r"\b(?:thoughts?|mind|head|dreams?|my)\b", " ".join(doc.before(i, 4))):
        return True  # "the line ... is about suicide, right?": what a text is about
    if rule.name in _NOUN_RULES and doc.sentence_has(i, _TOPIC):
        prev = doc.before(i, 1)
        if not (prev and prev[0] in ("my", "i", "am", "feeling", "feel", "felt", "been")):
            return True
    return bool(re.search(r"\b(?:asked|asks|asking) (?:me )?(?:if|whether)\b", " ".join(doc.before(i, 6))))


_WORK_TOPIC = re.compile(r"\b(?:training|trained|volunteer\w*|research\w*|prevention|awareness|clients?|patients?|"
                         r"paramedics?|nurses?|therapist|counsell?or|psychiatrist|psychologist|lecture|dissertation|"
                         r"thesis|article|documentary|podcast|fundrais\w*|charity|helpline|hotline|crisis line|"
                         r"first aid|shift)\b")
_MEETING = re.compile(r"\b(?:waiting for (?:you|u|ya|my|him|her|them|the bus|a friend)|wait for me|meet me|meeting (?:you|"
                      r"u|my|friends)|hurry up|on my way|omw|be there in|see you (?:soon|there|at|in|tomorrow))\b")


# a daily dose: "I took all my pills this morning" (the morning's medication), unless something says it was more
# than the dose: a time since, a quantity or container, alcohol, how it feels now, a goodbye
_DAILY_DOSE = re.compile(r"\b(?:took|taken|had|take|done) (?:all )?(?:of )?my (?:morning |evening |daily |usual )?"
                         r"(?:pills|meds|medication|medications|medicine|tablets|vitamins|dose|doses|supplements)\b")
_MORE_THAN_A_DOSE = re.compile(r"\b(?:ago|earlier|just now|at once|whole|entire|bottle|pack|packet|box|too late|too many|"
                               r"extra|sick|dizzy|weird|sleepy|numb|scared|on purpose|goodbye|bye|die|dying|dead|wake up|"
                               r"vodka|wine|alcohol|gin|whisky|whiskey|beer|kicking in|sorry|done|over|forgive|"
                               r"hospital|ambulance|\d+|all of them|every (?:one|single)|stash|saved|saving|hoard\w*)\b")


# a dosing question for an everyday purpose (sixth round): "how many of my sleeping pills can I take for the long
# flight", "what's the max dose of ibuprofen I can take for my back"; a lethal or final word makes it none
_DOSE_QUESTION = re.compile(r"\b(?:how (?:many|much)|what (?:is )?(?:the )?(?:max|maximum|safe|right|usual|normal) "
                            r"(?:dose|amount|number)|max dose|maximum dose|safe dose|the limit)\b(?: [^\s|]+){0,6}? "
                            r"(?:(?:i|you|one|we|people) (?:can|could|should|may|am allowed to|are allowed to|are meant "
                            r"to|am meant to)|(?:can|could|should|may) (?:i|you|one|we)) (?:safely )?(?:take|have|give)"
                            r"\b(?: [^\s|]+){0,3}? (?:for|before|during|on) (?:the |a |my |this |an |your )?"
                            r"(?:[^\s|]+ ){0,2}(?:flight|flights|trip|plane|"
                            r"journey|drive|travel|jet lag|jetlag|headache|migraine|pain|back|period|cramps|fever|cold|flu|"
                            r"toothache|tooth|dentist|surgery|procedure|injury|knee|hangover|allergies|hay fever|night "
                            r"shift|shift|sleep|insomnia)\b")
_LETHAL_WORD = re.compile(r"\b(?:die|dying|dead|death|kill|killing|suicid\w*|overdose|od|lethal|fatal|deadly|stop my "
                          r"heart|not wake|never wake|end it|end my life|enough to|too many|goodbye|forever)\b")


def everyday_reading(text: str, warning_sign: bool, *, gates: bool = True) -> str | None:
    """Why a message the risk model alone flagged reads as everyday, by the rules' whole-message judgments:
    a past that is over ("... years ago, I'm doing well now"), work or study on the topic (training,
    clients, a lecture), hyperbole (laughter and an everyday cause); and for a warning sign without a death
    word, an everyday reason ("waiting for you on the bridge", "a trip", "a move"); a daily dose ("I took all my pills
    this morning" with nothing of more than the dose). None: no such reading. (`gates`: as in `detect_crisis`.)"""
    if not isinstance(text, str) or not text.strip():
        return None
    doc = parse(text)
    if _past_and_over(doc.norm):
        return "a past that is over"
    if _EXASPERATION_FRAME.search(doc.norm) and not _DEATH_WORD.search(doc.norm):
        return "exasperation"
    if _EVERYDAY.search(doc.norm) and not _DEATH_WORD.search(doc.norm) and any(
            rule.name in _EXASPERATION_RULES and regex.search(doc.norm) for rule, regex in _rules_for(doc, gates)):
        return "exasperation"  # "I can't do this anymore, 3 hours on hold with the bank"
    if _WORK_TOPIC.search(doc.norm) and not re.search(r"\b(?:myself|my life|i (?:feel|felt|want|wish|need|am going|"
                                                       r"will|would rather)|i wanna|i am gonna)\b", doc.norm):
        return "work or study on the topic"
    if _LAUGH.search(doc.norm) and (_EVERYDAY.search(doc.norm) or _EMBARRASS.search(doc.norm)):
        return "hyperbole"
    if _DAILY_DOSE.search(doc.norm) and not _MORE_THAN_A_DOSE.search(doc.norm):
        return "a daily dose"
    if _DOSE_QUESTION.search(doc.norm) and not _LETHAL_WORD.search(doc.norm):
        return "a dose for an everyday purpose"
    if _MEETING.search(doc.norm) or warning_sign and not _no_benign_reason(doc):
        return "an everyday reason"
    return None


_CONTRAST = re.compile(r"\b(?:but|though|although|however|except|yet|still)\b")


def denied_by_speaker(text: str, *, gates: bool = True) -> bool:
    """Does the speaker deny what the rules would otherwise read as risk, with nothing else left standing?
    ("I don't wish I was dead, I wish I had a better job", "I'm not going to kill myself, I'm just tired".)
    True when some rule's phrase is negated in the speaker's own voice and no rule hit remains: the learned
    model, which reads the death words but not the denial, does not overrule it (crisis_model.assess).
    (`gates`: as in `detect_crisis`.)"""
    if not isinstance(text, str) or not text.strip():
        return False
    doc = parse(text)
    if _CONTRAST.search(doc.norm):
        return False  # "I'm not suicidal but I took all my pills": what follows the denial is what matters
    notes: list[str] = []
    for rule, regex in _rules_for(doc, gates):
        for m in regex.finditer(doc.norm):
            if m.end() > m.start() and _judge(doc, rule, m, notes) is not None:
                i, j = _words_of(doc, m)
                if not _vetoed(rule, doc, i, j):
                    return False
    return bool(notes) or "|" not in doc.words and _SPEAKER_DENIAL.search(doc.norm) is not None


# seventh round: a one-sentence denial in the speaker's own voice that no rule phrase carries ("dont worry i wont do
# anything", "never would i actually do it", "im not gonna do anything stupid i promise", "i would never hurt myself,
# chill"): an act of one's own denied, with no contrast after it and nothing else said
_SPEAKER_DENIAL = re.compile(
    r"(?:^|\b(?:i|i am|i will|i would|i do|i have|i did)\b )(?:(?:honestly|really|actually|swear|promise|seriously|"
    r"definitely|just|so) )?(?:not|never|no)\b (?:(?:ever|going to|about to|gonna|really|actually|even|planning to|"
    r"planning on|want to|trying to|have any|have|thinking about|thinking of|feel like|do) ){0,3}(?:do anything|do "
    r"something stupid|do anything stupid|hurt\w*|harm\w*|kill\w*|end|ending|jump\w*|die|dying|do it|suicid\w*|"
    r"overdos\w*|cut|cutting|off myself|kms|thoughts of|plans? to|intention|planning anything|wish (?:i was|i were|"
    r"to be) dead)\b"
    r"|^never (?:would|will|could) i (?:ever |actually |really )?(?:do it|do that|do anything|kill|hurt|end)\b"
    r"|^no way (?:i am|i would|i will|am i|would i|will i) (?:ever |actually |really )?(?:going to |gonna )?(?:do "
    r"it|do that|kill\w*|hurt\w*|end\w*|jump\w*)\b")


@lru_cache(maxsize=1)
def _compiled_rules() -> tuple[tuple[_Rule, re.Pattern[str]], ...]:
    return tuple((rule, rule.regex) for rule in RULES)


@lru_cache(maxsize=1)
def _rule_gates() -> Gates:
    """The derived gates of RULES (agents/core/crisis_gates.py): for each rule, the literals of which any match of
    its pattern contains one, all found in a message in one pass."""
    return Gates.build([rule.pattern for rule, _regex in _compiled_rules()])


def _rules_for(doc: _Doc, gates: bool = True) -> list[tuple[_Rule, re.Pattern[str]]]:
    """The rules (in table order) whose regex may match the message: with `gates`, a rule is left out when the
    normalised text (`doc.norm`, the string its regex runs over) contains none of its pattern's required literals,
    or none of its hand-written gate words is a word of the message; both only skip rules that cannot match.
    Without: every rule (tests: the gates change no answer)."""
    rules = _compiled_rules()
    if not gates:
        return list(rules)
    words = set(doc.words)
    out = []
    for k in _rule_gates().open_in(doc.norm):
        rule, regex = rules[k]
        if rule.gate and rule.gate.isdisjoint(words):
            continue  # none of the words any match of the rule contains
        out.append((rule, regex))
    return out


def detect_crisis(text: str, *, gates: bool = True) -> dict[str, Any] | None:
    """The most severe crisis phrase of `text`, or None. Never raises on a string.

    -> {"severity", "phrase" (the original span), "category" (CATEGORIES), "level" (LEVELS)}.
    `gates=False` runs every rule on every message (the same answers, slower: tests check the gates by it)."""
    if not isinstance(text, str) or not text.strip():
        return None
    doc = parse(text)
    if not doc.words:
        return None
    best: tuple[tuple[int, bool, bool, int], dict[str, Any]] | None = None
    for rule, regex in _rules_for(doc, gates):
        for m in regex.finditer(doc.norm):
            if m.end() <= m.start():
                continue
            level = _judge(doc, rule, m)
            if level is None:
                continue
            i, j = _words_of(doc, m)
            if _vetoed(rule, doc, i, j):
                continue
            if level[1] == "third_party_concern" and _THIRD_HISTORY.search(doc.norm):
                continue  # someone's death that is history, news or a story
            if level[1] == "third_party_concern" and _RULE_LEVEL.get(rule.name) in ("preparatory", "means") \
                    and not _no_benign_reason(doc):
                continue  # "my friend is saving her pills for the trip"
            start, end = doc.spans[i][0], doc.spans[j - 1][1]
            hit = {"severity": level[0], "phrase": text[start:end], "category": level[1],
                   "level": _level(rule, level, doc, i, j)}
            # the most severe: high before medium, a C-SSRS level or self-harm before a warning sign, an attempt
            # (taken or in progress) before any other level (sixth round: "slit my wrists just now" is an attempt, not
            # the method its first phrase names), then the first
            key = (-_RANK[level[0]], level[1] == "warning_sign", hit["level"] != "attempt", start)
            if best is None or key < best[0]:
                best = (key, hit)
    return best[1] if best else None


# ------------------------------------------------------------------------------------ helplines
# region -> (lines, emergency number). Verified public numbers; keep this table short and exact.
_HELPLINES: dict[str, tuple[tuple[str, ...], str]] = {
    "US": (("In the US: call or text 988 (988 Suicide & Crisis Lifeline), or chat at 988lifeline.org.",), "911"),
    "CA": (("In Canada: call or text 988 (9-8-8 Suicide Crisis Helpline).",), "911"),
    "GB": (("In the UK: call Samaritans on 116 123 (free, 24/7).",), "999"),
    "IE": (("In Ireland: call Samaritans on 116 123 (free, 24/7).",), "112 or 999"),
    "AU": (("In Australia: call Lifeline on 13 11 14.",), "000"),
    "NZ": (("In New Zealand: call or text 1737.",), "111"),
    "IN": (("In India: call Tele-MANAS on 14416 (or 1-800-891-4416).",), "112"),
    "DE": (("In Germany: call TelefonSeelsorge on 0800 111 0 111 or 0800 111 0 222.",), "112"),
    "FR": (("In France: call 3114 (numéro national de prévention du suicide).",), "112"),
}
_REGION_ALIASES = {"UK": "GB"}
_INTERNATIONAL = "Anywhere: findahelpline.com lists free, confidential helplines by country."


def _region(locale: str | None) -> str | None:
    """"en-US", "en_GB", "hi-IN", "US" -> the region; a bare language ("en", "de") -> None."""
    if not isinstance(locale, str) or not locale.strip():
        return None
    parts = [p for p in re.split(r"[-_.@]", locale.strip()) if p]
    if len(parts) == 1:
        p = parts[0]
        region = p if (len(p) == 2 and p.isalpha() and p.isupper()) else None
    else:
        region = next((p.upper() for p in parts[1:] if len(p) == 2 and p.isalpha()), None)
    return _REGION_ALIASES.get(region, region) if region else None


def helpline_guidance(locale: str | None = None) -> str:
    """Safety guidance for the AI's system prompt when crisis language is detected (no LLM involved).

    `locale` like "en-US", "en_GB", "IN": the region picks the helpline and emergency number;
    unknown or missing -> findahelpline.com, with the US and UK lines as examples."""
    region = _region(locale)
    if region in _HELPLINES:
        lines, emergency = _HELPLINES[region]
        resources = [*lines, _INTERNATIONAL]
        emergency_text = f"{emergency} (or the local emergency number)"
    else:
        resources = [_INTERNATIONAL, "For example, in the US: call or text 988; in the UK and Ireland: "
                                     "Samaritans on 116 123."]
        emergency_text = "the local emergency number (911 in the US, 999 in the UK, 112 in the EU)"
    res = "\n".join(f"  - {r}" for r in resources)
    return (
        "CRISIS SUPPORT (respond to this first, in your own warm words):\n"
        "- Acknowledge what they shared and thank them for telling you. Take it seriously: do not minimize, "
        "joke, lecture or change the subject.\n"
        "- Gently ask whether they are safe right now.\n"
        "- Encourage them to reach out today to someone they trust and to a crisis line "
        "(free, confidential, 24/7):\n"
        f"{res}\n"
        f"- If they are in immediate danger or have already hurt themselves, urge them to call {emergency_text} now.\n"
        "- Stay with them in the conversation and keep listening. You are not a replacement for professional "
        "help; never give information about means or methods."
    )
