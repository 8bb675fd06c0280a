"""The crisis rules as data: an ordered table (RULES) of phrase patterns with their severity, category,
how their subject is judged and an optional check, plus the pattern fragments and checks they share.

`agents/core/crisis.py` is the engine: it runs every rule over the parsed message (`crisis_text.parse`),
judges each match (subject, negation, quotes, the rule's check), vetoes everyday readings and keeps the
most severe. A rule here reads alone: its pattern, its attributes and its check.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from agents.core.crisis_text import _MEDIA, _Doc, _negated, _subject

# --------------------------------------------------------------------------------------------- rules
W = r"[^\s|]+"
_NUM8 = r"(?:\d+|a few|two|three|four|five|six|seven|ten|a couple of|couple of|a couple)"  # eighth round
MAX_COMPILED = 1024  # compiled patterns kept (RULES has about 140)


def _gap(n: int) -> str:
    return rf"(?:{W} ){{0,{n}}}"


TO = r"(?:to|too|2|ta)"
EOC = r"(?= \||$| lol| lmao| tbh| honestly| fr| ngl| right now| anymore)"
ANYMORE = r"(?:anymore|any more|no more|any longer|no longer|much longer|much more|for much longer)"
MYSELF = r"(?:myself|my self|my own self)"
# what may stand between "can't take" and "anymore": the situation in general, not a named thing
# ("I can't take this anymore", "can't take the pain anymore"; not "can't take this class anymore")
_FEELING_GAP = (r"(?:(?:it|this|that|shit|crap|life|everything|anything|any|of|all|the|pain|stress|loneliness|"
                r"feeling|feelings|hurt|hurting|sadness|living|being|alone|my|so|just|really|myself|way|like) ){0,3}")
_INTENT = (r"(?:want|wanted|wanting|wants|need|needed|going|planning|plan|planned|ready|about|decided|"
           r"deciding|considering|consider|contemplating|thinking|think|thought|urge|urges|tempted|"
           r"feel like|feeling like|felt like|might|will|should|gonna|keep|kept|try|trying|tried|"
           r"scared|afraid|worried|close|dreaming|fantasizing|fantasising)")
_DIE_EXCL = (r"(?! (?:for|of|from|laughing|on (?:this|that|the) hill|old|happy|rich|famous|a legend|an old|"
             r"doing|with (?:my|our|his|her|a|no) boots|at (?:a|an|the) (?:ripe|old)|in (?:my|your) "
             r"(?:80s|90s|100s|eighties|nineties)|my hair|her hair|his hair|their hair|the hair|hair|"
             r"before i get old|it (?:red|blue|black|pink|purple|green|blonde|brown))\b)")

Level = tuple[str, str]
Check = Callable[[_Doc, "re.Match[str]", int, int], "Level | bool | None"]


@dataclass(frozen=True)
class _Rule:
    name: str
    pattern: str
    severity: str
    category: str
    mode: str = "subject"      # self: the phrase is self-directed; subject: judge its subject; third
    negatable: bool = True
    others: bool = True        # a third-person subject means concern for someone (else: no alarm)
    noun: bool = False         # an implicit subject needs an experiential context
    check: Check | None = None  # -> False (veto) | (severity, category) | True/None (keep)
    neg_scope: str = "prefix"  # negation looked for before the phrase, or also inside it ("all")
    # words of which any match must contain one (a cheap set test before the regex runs; empty: always run)
    gate: frozenset[str] = frozenset()

    @property
    def regex(self) -> re.Pattern[str]:
        return _compiled(self.pattern)


@lru_cache(maxsize=MAX_COMPILED)
def _compiled(p: str) -> re.Pattern[str]:
    """A rule's pattern compiled once; bounded (the table's rules, with room for rules a test makes)."""
    return re.compile(p)


def _unless_media_or(words: str) -> Check:
    """A rule's check: not in a sentence about media, and none of `words` (a regex) anywhere in the message."""
    words_re = re.compile(words)
    return lambda d, m, i, j: not d.sentence_has(i, _MEDIA) and words_re.search(d.norm) is None


def _words_of(doc: _Doc, m: re.Match[str]) -> tuple[int, int]:
    """(first word index, one past the last word index) of a match."""
    return doc.word_at(m.start()), doc.word_at(max(m.start(), m.end() - 1)) + 1


def _group_level(levels: dict[str, Level]) -> Check:
    def check(doc: _Doc, m: re.Match[str], i: int, j: int) -> Level | None:
        for g, lvl in levels.items():
            if m.group(g):
                return lvl
        return None
    return check


def _progressive_needs_intent(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    """"killing myself" (progressive) is hyperbole ("killing myself at the gym") unless an intent
    word precedes it or the clause ends / a time follows."""
    if not re.match(r"(?:killing|killin|hurting|cutting) ", m.group()):
        return True
    before = " ".join(doc.before(i, 4))
    if re.search(rf"\b{_INTENT}\b|\b(?:about|of|instead of|end up|ending up)$", before):
        return True
    nxt = doc.after(j, 3)
    return not nxt or " ".join(nxt).startswith(("tonight", "today", "now", "soon", "this weekend",
                                                "tomorrow", "later", "eventually", "one day", "someday",
                                                "again", "right now", "lol", "tbh", "honestly", "fr"))


def _kill_myself_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> Level | bool:
    text = m.group()
    nxt = " ".join(doc.after(j, 4))
    if re.match(r"(?:laughing|lmao|in the foot|a favor|a favour)", nxt):
        return False
    if text.startswith("drown") and re.match(r"in (?!(?:the|a) (?:lake|river|bathtub|tub|ocean|sea|bath|pool))", nxt):
        return False  # "drown myself in work / ice cream"
    if text.startswith("poison") and re.match(r"with (?:junk|fast|sugar|food|carbs|caffeine|coffee|fries|snacks)",
                                               nxt):
        return False
    if not _progressive_needs_intent(doc, m, i, j):
        return False
    before = " ".join(doc.before(i, 4))
    if re.search(r"\b(?:told|tell|telling|tells|said|say|says) (?:me )?to$|\b(?:told|tell|telling|tells) me$", before):
        return ("medium", "suicidal_ideation")  # being told to kill oneself: harassment, check in
    if re.search(r"\bcould$", before) and nxt.startswith("for "):
        return ("medium", "suicidal_ideation")  # "I could kill myself for forgetting her birthday"
    return True


def _kms_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    prev = doc.before(i, 1)
    if prev and (prev[0][:1].isdigit() or prev[0] in ("few", "many", "several", "some", "hundred", "hundreds",
                                                      "thousand", "thousands", "of", "the", "those", "these",
                                                      "more", "extra", "couple", "ten", "five", "two", "three")):
        return False  # kilometres
    nxt = " ".join(doc.after(j, 2))
    return not re.match(r"(?:away|from|per|an hour|a day|long|to go|left|north|south|east|west|ahead|of)\b", nxt)


def _rather_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    nxt = doc.after(j, 6)
    if nxt and nxt[0] == "than":
        rest = " ".join(nxt[1:])
        return bool(re.match(r"(?:live|living|be alive|being alive|go on|keep going|keep living|feel|feeling|"
                             r"wake up|exist|existing|be here|spend another|deal with (?:this|life)|stay|keep "
                             r"(?:feeling|living|going|"
                             r"doing this|being)|feel like this|go through)", rest))
    return True


def _wish_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    """"wish I was never born / didn't exist / wouldn't wake up" need the negation; "wish I was dead" not."""
    if re.search(r"\b(?:do not|does not|did not|never|not|no longer)$", " ".join(doc.before(i, 2))):
        return False  # "I don't wish I was dead, I wish I had a better job": the speaker's own denial
    mid = m.group("mid") or ""
    end = m.group("end")
    if end in ("born", "exist", "existed", "wake up", "woken up", "alive", "here"):
        return bool(re.search(r"\b(?:not|never)\b", mid)) or end == "existed" and "never" in mid
    nxt = " ".join(doc.after(j, 2))
    return not re.match(r"(?:of|for|laughing|from) ", nxt + " ")


# a wish bounded in time or to a place online ("stop existing for a while", eighth round: "... on social media")
_BOUNDED_AFTER = re.compile(r"(?:until|till|til|for (?:a|the|an) (?:bit|while|day|weekend|week|hour|minute|few)|during|"
                            r"on (?:social media|twitter|instagram|insta|tiktok|facebook|socials|the internet|this app|"
                            r"discord|snapchat|here)|online|at (?:work|school|parties|the party))\b")


def _eoc_disappear(doc: _Doc, m: re.Match[str], i: int, j: int) -> Level | bool:
    if _BOUNDED_AFTER.match(" ".join(doc.after(j, 3))):
        return False  # bounded in time: "cease to exist until this hangover passes"
    if m.group("forever"):
        return ("high", "suicidal_ideation")
    if m.group("exist"):
        return ("high", "suicidal_ideation")
    nxt = doc.after(j, 1)
    if not nxt or nxt[0] in ("lol", "tbh", "honestly", "fr", "ngl", "sometimes", "completely", "entirely"):
        return ("medium", "hopelessness")
    return False


def _intent_before(n: int = 4, extra: str = "") -> Check:
    def check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
        before = " ".join(doc.before(i, n))
        return bool(re.search(rf"\b{_INTENT}\b{extra}", before))
    return check


def _not_conditional(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    before = " ".join(doc.before(i, 6))
    return not re.search(r"\bif (?:you|someone|somebody|they|anyone|he|she)\b", before)


def _better_off_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> Level:
    before = doc.before(i, 4)
    if any(w in ("you", "he", "she", "him", "her", "boyfriend", "girlfriend", "bf", "gf", "partner", "ex")
           for w in before) and not any(w in ("everyone", "everybody", "world", "family", "all", "they",
                                              "people", "kids", "parents", "friends") for w in before):
        return ("medium", "hopelessness")  # "you'd be better off without me": often a break-up
    return ("high", "suicidal_ideation")


def _self_harm_level(doc: _Doc, m: re.Match[str], i: int, j: int) -> Level:
    if m.group("soft"):
        return ("medium", "self_harm")
    return ("high", "self_harm")


def _cutting_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    nxt = " ".join(doc.after(j, 2))
    return not re.match(r"(?:a|an|some|off|short|out|slack|free|loose|in|down|the|with a|on a|on the|by|"
                        r"shaving|while|when|cooking|back)\b", nxt)


_ANIMALS = frozenset("dog dogs cat cats puppy kitten pet pets hamster rabbit bunny bird parrot fish horse".split())


def _overdose_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    if doc.before(i, 1) and doc.before(i, 1)[0] in _ANIMALS:
        return False  # "my cat overdosed on catnip": a pet (seventh round)
    nxt = " ".join(doc.after(j, 2))
    return not re.match(r"(?:on|of) (?:sun|sunshine|sugar|caffeine|coffee|candy|chocolate|netflix|anime|cuteness|love|carbs|junk|"
                        r"tv|memes|content|vitamin)", nxt)


def _wrist_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    nxt = " ".join(doc.after(j, 3))
    if re.match(r"(?:swing|ladder|lights?|toy|course|bridge|bracelet|basket|net|knot)\b", nxt):
        return False  # a compound: "a rope swing", "a rope ladder"
    return not (m.group().startswith(("cut ", "cutting ")) and re.match(
        r"(?:on|with|while|by accident|accidentally|opening|when)\b", nxt))


def _third_reflexive_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    nxt = " ".join(doc.after(j, 3))
    if re.match(r"(?:swing|ladder|lights?|toy|course|bridge|bracelet|basket|net|knot)\b", nxt):
        return False  # a compound: "a rope swing", "a rope ladder"
    if re.match(r"(?:laughing|in the foot|at work|at the gym|to (?:finish|get|make|pay|meet))", nxt):
        return False
    if not re.match(r"(?:killing|killin) ", m.group()):
        return True
    return _progressive_needs_intent(doc, m, i, j)


def _third_harm_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    before = " ".join(doc.before(i, 4))
    nxt = " ".join(doc.after(j, 3))
    if re.match(r"(?:swing|ladder|lights?|toy|course|bridge|bracelet|basket|net|knot)\b", nxt):
        return False  # a compound: "a rope swing", "a rope ladder"
    return bool(re.search(rf"\b(?:{_INTENT}|threatening|threatened|talks|talking|started|starting|been|keeps)\b",
                          before) or re.match(r"(?:again|on purpose|deliberately|intentionally)", nxt))


_PLACES = re.compile(r"\b(?:roof|rooftop|bridge|ledge|edge|building|balcony|cliff|window|tracks|platform|overpass|"
                     r"multistorey|multi storey|parking garage|top floor|"
                     r"floor|tower|car park|garage|dam|quarry)\b")


_BENIGN_REASON = re.compile(r"\b(?:moving|move|moved|new (?:one|job|place|flat|apartment|house|phone|car)|bought a new|"
                            r"upgrade|upgraded|outgrown|declutter|decluttering|charity|trip|holiday|vacation|travel|"
                            r"travelling|traveling|visiting|camping|abroad|conference|honeymoon|wedding|party|quit my "
                            r"job|"
                            r"new job|university|college|course|puppy|adopt|adopting|diet|exam|exams|semester|"
                            r"graduat\w*|"
                            r"surgery|hospital for|offline|off grid|detox|signal|job|offer|promotion|flying|flight|"
                            r"airport|new school|new me|new start|fresh start|i (?:will|would) be (?:in|at|away|abroad|visiting|travelling|traveling|staying) "
                            r"\w+|while i am (?:in|at|away|abroad|visiting|travelling|traveling|on (?:holiday|vacation|a trip|"
                            r"leave|tour|call|shift)))\b")


# a goodbye for now: until tomorrow, for the night, before a trip
_BENIGN_FAREWELL = re.compile(r"\b(?:for now|for today|for tonight|for the night|see you|talk (?:tomorrow|soon|later)|"
                              r"tomorrow|next week|later|goodnight|good night|bed|off to|gym|class|flight|plane|"
                              r"ttyl|brb|xx|haha|lol|party|birthday|new year|christmas|vacation)\b")


def _outside(doc: _Doc, m: re.Match[str]) -> str:
    """The message without the matched phrase (eighth round): a rule's own words ("by this time next week", "goodnight
    and goodbye") are not the everyday reason that clears it."""
    return doc.norm[:m.start()] + " | " + doc.norm[m.end():]


def _no_benign_reason(doc: _Doc) -> bool:
    """A warning sign without a death word holds only when the message gives no everyday reason for it
    ("I won't need them, I'm moving", "I won't be around next week, camping")."""
    return _BENIGN_REASON.search(doc.norm) is None


def _took_all_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    """"took all my pills" is a daily dose; with a time, "at once", an intent or how it feels now it is an
    overdose taken. "the whole bottle", "40 tylenol" are one by themselves."""
    text = m.group()
    if re.search(r"\b(?:whole|entire|bottle|pack|packet|box|everything|medicine cabinet|rest of|half of|\d+)\b", text):
        return True
    if re.search(r"\b(?:just|already)$", " ".join(doc.before(i, 1))) and re.search(r"\b(?:mums|moms|dads|mothers|"
                                                                         r"fathers|sleeping)\b", text):
        return True  # "I just took all of my mom's sleeping pills": not the speaker's daily dose
    return bool(re.search(r"\b(?:ago|earlier|at once|too late|sick|dizzy|tonight|on purpose|goodbye|want to die|"
                          r"so i (?:die|do not wake up))\b", " ".join(doc.after(j, 8))))


_DOSE_NOUN = (r"(?:pills|tablets|meds|medication|insulin|paracetamol|tylenol|acetaminophen|ibuprofen|advil|"
              r"painkillers|sleeping pills|antidepressants|opioids|oxy|morphine|aspirin|benadryl|tramadol|lithium|"
              r"codeine|co codamol|cocodamol|zopiclone|diazepam|xanax|valium|quetiapine|seroquel|citalopram|"
              r"sertraline|fluoxetine|prozac|amitriptyline|oxycodone|fentanyl|sleeping tablets)")


# who took it is a pet or a child, or it was an accident (sixth round): "my dog drank some antifreeze"
_NOT_THE_SPEAKER = re.compile(r"\b(?:(?:my|the|our) (?:dog|cat|puppy|kitten|pet|toddler|baby|son|daughter|kid|kids)|"
                              r"the vet|poison control|accidentally|by accident|by mistake)\b")


def _took_quantity_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    """A quantity taken is an overdose unless the message names a treatment; "all my pills" alone is a daily
    dose (as in `_took_all_check`) unless alcohol, a time since, or how it feels now follows."""
    if _NOT_THE_SPEAKER.search(doc.norm) or re.search(r"\b(?:film|movie|book|novel|show|series|episode|play|villain|"
                                                      r"character|scene)\b", doc.norm):
        return False  # a pet, a child, an accident; a story
    if _subject(doc, i, True)[0] in ("third", "generic", "fiction"):
        return False  # "the news said a man drank bleach": somebody else's act (poison_taken reads it as concern)
    if re.search(r"\b(?:prescribed|feel better|for (?:my|this|the|a|that) (?:headache|migraine|back|cold|flu|pain|"
                 r"cramps|fever|hangover|toothache)|doctor|go me|"
                 r"remembered|morning|this morning|today like|vitamins?)\b", doc.norm):
        return False
    if re.search(r"\ball\b", m.group()):
        return _took_all_check(doc, m, i, j) or re.search(
            r"\b(?:with (?:vodka|wine|alcohol|whisky|whiskey|beer|gin)|it is done|can feel it|feeling (?:sleepy|dizzy)|"
            r"bye|goodbye|do not tell)\b", doc.norm) is not None
    return True


def _bought_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    """"I bought a rope today" alone, or with "I know why": means; "a rope for the hammock": not."""
    nxt = re.sub(r"^(?:online|today|yesterday|off amazon|from amazon|off ebay|from ebay) ", "", " ".join(doc.after(j, 5)))
    if re.match(r"(?:swing|ladder|lights?|toy|course|bridge|bracelet|basket|net|knot)\b", nxt):
        return False  # a compound: "a rope swing", "a rope ladder"
    if re.match(r"(?:for|to|from|at|on sale|in the|so we|so my|because we|and (?:some|a|the))\b", nxt):
        return bool(re.match(r"(?:for (?:myself|me|when|tonight|it|the end)|to (?:end|kill|hang|use on myself))", nxt))
    return True


_SUICIDE_EXCL = (r"(?! (?:squad|mission|missions|doors?|run|runs|drill|drills|sprint|sprints|lane|bomber|"
                 r"bombers|bombing|bombings|booth|rate|rates|prevention|awareness|statistics|stats|blonde|king|"
                 r"forest|watch|pact song|hotline|hot line|line|lifeline|helpline|crisis line|squeeze|pass|"
                 r"risk|risks|research|study|studies|epidemic|crisis|number|numbers)\b)")
_EXPERIENCE_BEFORE = re.compile(
    r"\b(?:feel|feeling|felt|been|get|getting|got|having|have|had|so|very|really|super|kinda|pretty|bit|lil|"
    r"little|again|still|extremely|always|my|passive|active|commit|committing|attempt|attempted|attempting|"
    r"thinking|think|thought|thoughts|considering|consider|contemplating|contemplate|planning|plan|plans|"
    r"tried|try|trying|want|wanted|wanting|urge|urges|started|start|relapsed|relapse|keep|kept|survived|"
    r"going|about|stop)\b")
_EXPERIENCE_AFTER = re.compile(r"^(?:(?:has|have|is|keeps|keep) (?:been )?(?:on my mind|in my head|all i think|the "
                               r"only|"
                               r"helping|what helps)|helps|thoughts|again|lately|tonight|right now|today|feelings|"
                               r"urges|attempt|"
                               r"note|plan|ideation lately|scars|relapse)\b")


def _noun_context(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    if len(doc.before(i, 3)) + (j - i) + len(doc.after(j, 3)) <= 3:
        return True  # the whole sentence is about it: "suicidal", "so suicidal rn", "self harm again"
    return bool(_EXPERIENCE_BEFORE.search(" ".join(doc.before(i, 3)))
                or _EXPERIENCE_AFTER.search(" ".join(doc.after(j, 5))))


# ---------------------------------------------------- issue 21, sixth round: the slot lexicons of explicit risk
# Each family below is a grammar: a verb class, an object or means class, and a marker of time, purpose or outcome.
# The classes are lexicons (public drug names, body parts, surfaces), never the words of a message.

# what one overdoses on: drug classes and the common generic and brand names (vitamins, gum and sweets are not)
_SUBSTANCE = (r"(?:pills?|tablets?|capsules|meds|medication|medications|medicine|painkillers|pain killers|"
              r"sleeping (?:pills|tablets)|sleepers|antidepressants|anti depressants|benzos|opioids|opiates|xanax|"
              r"xannies|valium|diazepam|klonopin|clonazepam|ativan|lorazepam|oxy|oxys|oxycodone|oxycontin|percocet|"
              r"percs|vicodin|hydrocodone|codeine|co codamol|cocodamol|tramadol|morphine|fentanyl|methadone|sertraline|"
              r"zoloft|prozac|fluoxetine|citalopram|escitalopram|lexapro|venlafaxine|effexor|seroquel|quetiapine|"
              r"olanzapine|lithium|ambien|zolpidem|zopiclone|insulin|paracetamol|tylenol|acetaminophen|ibuprofen|advil|"
              r"motrin|aspirin|nurofen|panadol|benadryl|diphenhydramine|nyquil|gabapentin|lyrica|pregabalin|adderall|"
              r"amitriptyline|propranolol)")
# containers that hold only medicine, and containers that need "of <substance>"
_MED_CONTAINER = (r"(?:medicine (?:cabinet|box|drawer|cupboard|bag)|bathroom cabinet|pill ?box|pill organi[sz]er|"
                  r"first aid (?:kit|box)|blister packs?|prescriptions?|scripts?|repeat prescription)")
_CONTAINER = r"(?:bottles?|box|boxes|packs?|packets?|strips?|sheets?|tubs?|jars?|stash|supply|bag|cabinet|drawer)"
# how much: a whole, all, a count of ten or more, a handful
_TOTAL = (r"(?:(?:[2-9]|two|three|four|five|six|several|multiple|a few|a couple of)(?= (?:packs|packets|boxes|"
          r"bottles|strips|blister packs|sheets|tubs)\b)|(?:way |far |far too |way too |so )?too many(?: of)?|"
          r"every single|everything (?:in|from)|the whole|a whole|the entire|an entire|the full|a "
          r"full|two full|the rest of|what was left (?:of|in)|whatever was (?:left )?in|most of|half of|half|a lot of|"
          r"a bunch of|loads of|a load of|tons of|a ton of|a handful of|handfuls of|a fistful of|fistfuls of|dozens of|"
          r"a mouthful of|(?:like |about |over |around |maybe |at least |more than |almost )?(?:1\d|[2-9]\d|1\d\d|ten|"
          r"twelve|fifteen|twenty|thirty|forty|fifty|a hundred)(?: of)?)")
# whose: mine or a relative's supply taken (a relative's pills are no daily dose)
_OWNER = (r"(?:(?:my|the|those|these|that|this|his|her|their|our|mums?|moms?|dads?|my (?:mums|moms|mothers|dads|"
          r"fathers|nans|grans|grandmas|grandads|sisters|brothers|partners|wifes|husbands|roommates|flatmates)) )?")
# ingesting, past or perfect
_INGESTED = (r"(?:took|taken|swallowed|downed|ate|eaten|popped|chugged|necked|gulped|washed down|drank|drunk|"
             r"overdosed on|od on|injected|shot up)")
# the body parts one harms (not hair, nails or teeth: "I cut my hair", "bit my nails")
_BODY = (r"(?:head|forehead|face|fists?|hands?|knuckles|arms?|forearms?|wrists?|legs?|thighs?|skin|stomach|belly|hips?|"
         r"chest|shoulders?|ankles?|calves|shins?|ribs|neck)")
_HARM_VERB = (r"(?:hurt|hurts|hurting|harm|harmed|harming|cut|cuts|cutting|burn|burns|burned|burnt|burning|scratch|scratched|scratching|hit|hits|hitting|punch|"
              r"punched|punching|slam|slammed|slamming|bang|banged|banging|bash|bashed|bashing|smash|smashed|smashing|"
              r"bite|bit|biting|carve|carved|carving|stab|stabbed|stabbing|pinch|pinched|pinching|scrape|scraped|"
              r"scraping|slap|slapped|slapping|headbutt|headbutted|headbutting|claw|clawed|clawing|gouge|gouged|"
              r"gouging)")
_SURFACE = r"(?:(?:brick |concrete |bathroom |kitchen |bedroom |stone )?(?:wall|walls|door|mirror|tiles|floor|desk|table))"
# what makes a blow or a wound self-harm: done on purpose, to hurt, until it bleeds, as a habit, with the marks
_HARM_MARK = (rf"(?:on purpose|deliberately|intentionally|(?:until|till|til) (?:i|it|they|there was|there were|my {W}) "
              r"(?:bleed|bleeds|bled|blood|bruised|bruise|bruises|cracked|split|broke|was raw|were raw|went numb|"
              r"blistered|blisters)|to feel (?:something|pain|anything|real)|to (?:punish|hurt) myself|because i deserve"
              r"|as (?:a )?punishment|(?:i )?wanted it to hurt|so it (?:would|will) hurt|to make it hurt|every (?:night|"
              r"day|evening|morning|time|single (?:day|night))|again|so no one sees|where no one (?:can|will) see|the "
              r"marks|new marks|leaves? marks)")
# the time words of an act that has just happened or is happening now
_JUST_NOW = (r"(?:just now|right now|now|an hour ago|hours ago|minutes ago|a few minutes ago|earlier|earlier tonight|"
             r"tonight|just|already)")
# what follows an overdose taken: a time since, alcohol with it, how it feels, a goodbye
_AFTERMATH = re.compile(r"\b(?:ago|earlier|just now|at once|all at once|too late|on purpose|goodbye|bye|sorry|vodka|"
                        r"wine|whisky|whiskey|gin|rum|beer|alcohol|booze|sleepy|drowsy|dizzy|numb|weird|sick|throwing up|"
                        r"vomit\w*|racing|can not (?:feel|stay awake|keep my eyes open|see straight)|kicking in|it is "
                        r"done|its done|done now|die|dying|dead|wake up|hospital|ambulance|scared|so i|it is over|"
                        r"forgive me|do not tell|numb)\b")
# a dose for a treatment or by the label
_TREATMENT = re.compile(r"\b(?:prescribed|as directed|doctor (?:said|told|says)|with food|for (?:my|this|the|a|that|her|"
                        r"his) (?:headache|migraine|back|cold|flu|pain|cramps|period|fever|hangover|toothache|tooth|"
                        r"allergies|allergy|hay fever|knee|injury|sore throat|cough)|vitamins?|supplements?|gummies|"
                        r"antibiotics|a course of|by mistake|accidentally|poison control|the vet|my (?:dog|cat|puppy|kitten|toddler|son|daughter|"
                        r"baby|kid))\b")


def _overdose_taken_check(doc: _Doc, m: re.Match[str], i: int, j: int) -> bool:
    """An amount taken is an overdose unless the message names a treatment or a pet's or child's accident; "all my
    <meds>" alone is the daily dose unless an aftermath follows (a time since, alcohol, how it feels, a goodbye)."""
    if _TREATMENT.search(doc.norm) and not _AFTERMATH.search(" ".join(doc.after(j, 10))):
        return False
    if m.group("all") and not m.group("more"):
        return _AFTERMATH.search(doc.norm) is not None
    return True


# an everyday reason to sit in a running car or to stand at an edge
_CAR_BENIGN = re.compile(r"\b(?:warm|warming|warm up|defrost\w*|heater|heating|cold|freezing|ice|icy|frost|snow|"
                         r"mechanic|fix|fixing|battery|charge|charging|jump start|waiting for|pick up|picking up|music|"
                         r"radio|podcast|parked outside|drive thru|drive through|traffic|call|phone call|school run|"
                         r"carwash|car wash|queue|lesson|instructor|test)\b")
_ENCLOSED = re.compile(r"\b(?:garage|door (?:is )?(?:shut|closed|locked)|doors (?:are )?(?:shut|closed|locked)|windows? "
                       r"(?:up|shut|closed|sealed|taped)|hose|tape|taped|exhaust|sealed)\b")
_IN_PROGRESS = re.compile(r"\b(?:now|right now|typing this|sitting in|sitting inside|inside|in the (?:driver|drivers|"
                          r"front|back) seat|drivers seat|driver seat|can smell|getting sleepy|sleepy|dizzy|headache|"
                          r"goodbye|bye|this is it|next one|next train|here|platform|station|standing|on the tracks|"
                          r"bleeding|blood)\b")
_TRANSIT_BENIGN = re.compile(r"\b(?:accident|accidentally|nearly|almost|cross|crossing|photo|photos|video|pic|game|"
                             r"dream|dreamt|movie|film|careful|watch out|mind the gap|by mistake|board|boarding|catch|"
                             r"catching|get on|getting on|ticket|late|delayed|delay|commute|seat|window seat|lol|"
                             r"lmao|haha\w*)\b")
# a height one can fall from (an edge or a ledge alone may be a bed's, a pool's or a seat's)
_HEIGHT = re.compile(r"\b(?:roof|rooftop|bridge|building|balcony|cliff|window|windowsill|window sill|tracks|platform|"
                     r"overpass|flyover|tower|car park|parking garage|parking structure|multistorey|multi storey|garage|"
                     r"dam|quarry|parapet|viaduct|skyscraper|block|flats|storey|stories|floors up|\d+(?:st|nd|rd|th) "
                     r"floor)\b")
# a rope, a belt or a cord is up: a climbing wall, a boat, a swing, a washing line or a gym say what it is
_ROPE_BENIGN = re.compile(r"\b(?:climb\w*|boulder\w*|boat|sail\w*|dock|swing|tyre|tire|hammock|tent|camping|washing|"
                          r"laundry|clothes ?line|flag|tug|gym|crossfit|boxing|ring|skipping|jump rope|decorat\w*|"
                          r"lights|banner|curtain|pulley|tree ?house|fence|barrier|queue|belay|abseil\w*|rappel\w*|"
                          r"course|horse|dog|leash|lead|net|hoist|suitcase|luggage|box|parcel|package|bag|car|roof rack|"
                          r"bike|trailer|load|trousers|pants|waist|jeans|dress)\b")
# a farewell's everyday reason: leaving a job, a group, a place, a number; a goodbye for now
_LEAVING_BENIGN = re.compile(r"\b(?:company|team|office|retir\w*|last day|new number|changing (?:my )?number|new phone|"
                             r"deleting (?:this|my|the) (?:app|account)|delete (?:this|my|the) (?:app|account)|"
                             r"uninstall\w*|quitting (?:this|the) app|leaving (?:the|this) (?:group|server|channel|chat|"
                             r"class|club|team|company|job|city|country)|this (?:group|server|channel|thread)|group chat|"
                             r"internship|contract|placement|term|semester|season|shift|hospital|surgery|operation|"
                             r"rehab|detox|retreat|deploy\w*|army|navy|basic training|boot camp|signal|wifi|"
                             r"battery|exam|exams|finals|dissertation|thesis|interview|hike|trek|expedition|"
                             r"next (?:time|week|month|year))\b")
# gratitude for the bond itself (not for one answer: "thanks for the tips")
_GRATITUDE = (rf"(?:(?:thank you|thanks|thank u|thx|ty|so grateful|grateful|i appreciate you|appreciate you) "
              rf"(?:so much |really |truly |honestly |again )?(?:for |you for )?(?:everything|being there|being here|"
              rf"being my friend|being (?:so )?(?:kind|good|patient) (?:to|with) me|listening to me all|putting up with me|"
              rf"always being there|all (?:of )?(?:our|the|those|these) (?:chats|talks|conversations|messages|nights|"
              rf"years|time)|every (?:single )?(?:chat|conversation|talk|message|night|day)|everything you (?:have )?"
              rf"(?:ever )?done|all you (?:have )?done|never giving up on me|caring about me|trying|all of it|you|"
              rf"our (?:chats|talks)|the (?:chats|talks|conversations))\b(?! (?:today|tonight|this|earlier|yesterday|at|with|on|in|during|last)\b)"
              rf"|you (?:helped|saved|meant) (?:me )?more than you (?:know|will ever know|realise|realize)"
              rf"|you (?:were|have been) (?:kind|good|there) (?:to|for) me when (?:nobody|no one|noone) else was)")
# a last message: it will not be followed by another one
_FINAL = (rf"(?:goodbye|farewell|for the last time|(?:goodbye|bye|gone|leaving|signing off) (?:for good|forever)"
          rf"|(?:this is|this will be|that was|that is) (?:the|my) (?:last|final) (?:one|message|text|msg|time|chat)"
          rf"|(?:last|final) (?:text|message|msg|words) from me"
          rf"|i will not be (?:around|here|messaging|texting|talking|writing|online|replying|answering|bothering "
          rf"(?:you|anyone)) (?:{W} ){{0,2}}?(?:anymore|any more|again|after (?:today|tonight|this)|much longer)"
          rf"|i will not (?:talk|speak|message|text|write) (?:to (?:you|anyone) )?(?:again|anymore|any more)"
          rf"|you will not (?:hear from|see) me (?:again|anymore|any more)"
          rf"|(?:have|live) a (?:good|great|wonderful|happy|beautiful|long|nice|lovely) life|hope your life is (?:good|"
          rf"great|wonderful|happy|beautiful|long|amazing)|be well always|take care (?:of yourself )?always"
          rf"|(?:it|that|this|you) (?:was|were|is) not enough(?= \||$| but)|(?:it is )?too late for me"
          rf"|(?:made|make|making) (?:the|my) (?:end|last (?:days|weeks|months|bit|part)) (?:so )?(?:easier|bearable|"
          rf"less lonely|less scary|better|lighter|kinder|softer))")
_FINAL_RE = re.compile(rf"\b{_FINAL}\b")
# what releases the listener from blame for what is about to happen
_ABSOLVE = (r"(?:none of (?:this|it|that) (?:is|was|will be|would be) (?:on you|your fault|because of you|on anyone|"
            r"anyones fault|yours to carry)|(?:it is|its|this is|that is|thats|it was|this was|it will be) not (?:on you|your fault|yours to "
            r"carry)|you could not have (?:done anything|stopped (?:it|me|this)|changed (?:it|anything))|there (?:is|"
            r"was) nothing you could (?:have )?(?:do|done|say|said)|do not (?:ever )?blame yourself)")
_ABSOLVE_WHEN = (r"(?:(?:whatever|no matter what) happens(?: (?:to me|tonight|next|now|from here|later|after (?:tonight|"
                 r"today|this|i go)))?|after (?:tonight|today)|when you (?:hear|find out|get the news)|if you hear "
                 r"(?:about me|the news|what happened)|once i am gone|when i am gone|whatever i do)")
# a passive wish's object: an event of one's own death (heart stopping, not waking, not seeing another day)
_DEATH_EVENT = (rf"(?:my heart (?:would |will |to |could )?(?:just )?(?:stops?|gives? out|gives? up|quits|stopped)"
                rf"\b(?! (?:racing|pounding|aching|hurting|breaking|skipping|fluttering|beating|pounding|for|when)\b)"
                rf"|(?:i )?(?:(?:would|will|do|did) )?(?:not|never) (?:wake up|wake|see (?:another|the next|one more|"
                rf"tomorrow|the morning)|make it (?:through the night|to (?:the )?morning|to tomorrow)|open my eyes "
                rf"again)"
                rf"|(?:let|make) me (?:not wake up|not wake|die|not see (?:another|tomorrow|the morning)|stop "
                rf"breathing|sleep forever|not be here|not exist|just go)"
                rf"|(?:take|takes) me (?:in my sleep|tonight|soon|early|already)"
                rf"|(?:i )?(?:(?:would|will|do|did) )?(?:not|never) hear (?:it|the alarm|my alarm) (?:go off|ring)"
                rf"|(?:everything|it all|the (?:whole )?world|things|all of it) (?:to )?(?:go|fade|turn) (?:to )?(?:dark|black|"
                rf"quiet|silent) "
                rf"(?:forever|for good|and stay (?:dark|black|quiet|silent)(?: forever)?)"
                rf"|(?:die|pass away|go) in my sleep"
                rf"|(?:a|an) (?:heart attack|stroke|aneurysm|fatal (?:accident|crash|illness|disease)|car crash|plane crash|"
                rf"bullet|terminal (?:illness|diagnosis)|quick death|painless death|early death|painless end|"
                rf"overdose)\b(?! (?:free|report|claim|insurance|lawyer|survivor|awareness|recovery|scare)\b)"
                rf"|(?:i )?(?:would |could )?(?:just )?(?:stop breathing|stop being alive|stop living|not be alive|stop existing|"
                rf"not exist|cease to exist|"
                rf"cease to be|be dead|be gone for good|be gone forever|get hit by (?:a|the) (?:bus|car|truck|train|"
                rf"lorry)))")
_WISH_VERB = (r"(?:hope|hopes|hoping|hoped|pray|prays|praying|prayed|wish|wishing|wished|(?:ask|asking|asked|beg|"
              r"begging|begged) god(?: to| that)?|would be nice|it would be nice|would be great|would be a relief|"
              r"would be (?:such )?(?:a )?(?:relief|blessing|mercy)|would love|want|wanted|wanting|wants|dream of|dreaming of|dreaming about|waiting for the day|long for|longing for)")
def _other_contents(doc: _Doc, m: re.Match[str]) -> bool:
    """The container taken is of something that is no medicine or poison: "ate the whole box of chocolates", "downed
    the whole bottle of wine" (sixth round: the attempt rules' hard negatives)."""
    if re.search(rf"\b{_SUBSTANCE}\b", m.group()):
        return False  # the medicine is named in the phrase: "mixed all my antidepressants with the bottle of gin"
    words = m.group().split()
    if words and words[-1] == "of":
        words, rest = words[:-1], "of " + " ".join(doc.after(doc.word_at(max(m.start(), m.end() - 1)) + 1, 4))
    else:
        rest = " ".join(doc.after(doc.word_at(max(m.start(), m.end() - 1)) + 1, 4))
    if not words or not re.fullmatch(r"(?:bottle|box|pack|packet|tub|jar|bag|strip|tin|carton|case|crate|sleeve)s?",
                                     words[-1]):
        return False
    return rest.startswith("of ") and not re.match(
        rf"of {_OWNER}(?:{W} )?(?:{_SUBSTANCE}|sleeping|cough (?:syrup|medicine)|syrup|calpol|bleach|antifreeze|weed "
        rf"killer|rat poison|poison)\b", rest)


def _wake_bounded(doc: _Doc, j: int) -> bool:
    """Not waking up bounded by a time or a purpose: "hope I don't wake up before noon", "... in time for work"."""
    return re.match(r"(?:before|until|till|til|early|in time|on time|at|to (?:a|an|the|my|your|rain|snow|noise|sun\w*|"
                    r"alarms?|kids|dogs?|texts|messages|emails|news|work|that|this)|late|for (?:work|school|class|the|"
                    r"my))\b", " ".join(doc.after(j, 3))) is not None


# sport, play and work where one gets hurt by accident (sixth round: "I hurt myself again at football")
_SPORT = (r"football|soccer|rugby|hockey|netball|basketball|tennis|training|practice|gym|workout|match|game|karate|"
          r"boxing|sparring|judo|climbing|skating|skiing|cycling|dance|rehearsal")


# a wish bounded by an everyday thing ("hope I don't wake up before noon", "never see another day of school")
_WISH_BENIGN = re.compile(r"\b(?:wake up (?:early|before|at|in time|on time|late|to (?:a|an|the|my))|another (?:day|"
                          r"morning|week) (?:of|like|at|in|without)|rollercoaster|roller coaster|race|marathon|scary "
                          r"movie|horror|exam|shift|meeting)\b")


RULES: tuple[_Rule, ...] = (
    # ---------------------------------------------------------------- suicidal ideation (first person)
    _Rule("want_to_die",
          rf"\b(?:want|wanted|wanting|wants|need|needs|ready|planning|plan|plans|tempted|wish|wishing|wished|"
          rf"longing|desperate|trying|tried|going to try|decided|choose|choosing) {_gap(1)}{TO} "
          rf"(?:(?:just|literally|fucking|fkin|fking|simply|actually|really|honestly|quietly|peacefully|finally|"
          rf"already|gladly|fr) )?(?:die|dye{EOC})\b{_DIE_EXCL}",
          "high", "suicidal_ideation",
          check=lambda d, m, i, j: not re.search(r"cross my heart and$", " ".join(d.before(i, 4))), neg_scope="all"),
    _Rule("feel_like_dying",
          rf"\b(?:feel|feeling|felt) like (?:just )?(?:dying|giving up on life|ending it|ending it all)\b"
          rf"(?! (?:of|after|from|laughing|here|in this|inside|because of the|with)\b)",
          "high", "suicidal_ideation"),
    _Rule("deserve_to_die", rf"\b(?:deserve|deserves|deserved) {TO} (?:just )?(?:die|be dead|suffer and die)\b",
          "high", "suicidal_ideation", others=False),
    _Rule("should_die",
          rf"\b(?:should|ought to|might as well|may as well|better) (?:just )?(?:go )?(?:die|be dead)\b{_DIE_EXCL}",
          "high", "suicidal_ideation", others=False),
    _Rule("wish_dead",
          rf"\bwish(?:ed|ing)? (?:that )?i (?P<mid>(?:{W} ){{0,3}}?)(?P<end>dead|die|died|born|exist|existed|"
          rf"wake up|woken up|alive|here)\b",
          "high", "suicidal_ideation", mode="self", negatable=False, check=_wish_check),
    _Rule("hope_i_die",
          rf"\bhop(?:e|ing) (?:that )?i (?:{W} ){{0,4}}?(?:and )?(?:just )?(?:die|do not wake up|never wake up|will "
          rf"not wake up|"
          rf"get hit by a (?:bus|car|truck|train)|do not make it|do not survive|will die)\b{_DIE_EXCL}",
          "high", "suicidal_ideation", mode="self", negatable=False,
          check=lambda d, m, i, j: not _wake_bounded(d, j) and not (m.group().endswith("make it") and re.match(
              r"(?:in|into|on|onto|in time|on time|back|home|there|out|for (?:the|a|my)|past the|to (?:class|work|"
              r"school|practice|training|the (?:party|meeting|gym|game|match|office|class|wedding|lecture|concert|"
              r"show|final|finals|team|next round))|to (?:the )?\d+ ?(?:am|pm))\b", " ".join(d.after(j, 3))))),
    _Rule("be_dead",
          rf"\b(?:want|wanted|wanting|wants|wish|need|rather|prefer|better off) {_gap(1)}(?:{TO} )?(?:be |being )?"
          rf"dead\b(?! (?:tired|serious|wrong|right|on|set|last|end|inside|asleep|silent|quiet|honest|broke|"
          rf"center|centre|ass|meat|weight|heat|beat|ringer|giveaway|lift|air|zone|link|stop|eyes|calm|sexy|"
          rf"gorgeous|cute|funny|than)\b)",
          "high", "suicidal_ideation", others=False),
    _Rule("rather_die", r"\brather (?:just )?(?:die|be dead)\b", "high", "suicidal_ideation", others=False,
          check=_rather_check),
    _Rule("not_live",
          rf"\b(?:do not|does not|did not|no longer|not|never|will not|would not) (?:really |even |actually |"
          rf"honestly |truly |fully |just )?(?:want|wish|feel like|care|need|deserve|see the point|see a point|"
          rf"see any point|see a reason|see any reason|have a reason|have any reason|have the will|have any will|"
          rf"have the strength|plan) {_gap(1)}(?:{TO}|in|of|for) (?P<high>(?:be|being|stay|staying) alive|"
          rf"live|living|exist|existing|keep living|go on living|continue living|(?:wake|waking) up|"
          rf"be on this earth|be in this world|breathe|be born|have been born)"
          rf"(?! (?:in|with|at|near|by|there|here|abroad|together|alone|on|off|under|somewhere|anywhere|nearby|"
          rf"close|far|next|out|up|my|a|an|the|so far|stream|streaming|music|show|tv|broadcast|early|before|"
          rf"for (?:work|school|class)|so early|this early|that early)\b)",
          "high", "suicidal_ideation", negatable=False),
    _Rule("not_be_here",
          rf"\b(?:do not|does not|no longer|not) (?:really |even |just )?(?:want|wish|feel like) {TO} "
          rf"(?:be here|be around|go on|keep going|carry on|continue) {ANYMORE}\b",
          "high", "suicidal_ideation", negatable=False,  # eighth round: "..., this party is dead" is a place
          check=lambda d, m, i, j: not re.search(r"\b(?:this|that) (?:party|place|class|job|town|city|meeting|school|"
                                                 r"office|club|bar|house|lecture|wedding|queue|line)\b", d.norm)),
    _Rule("not_be_here_eoc",
          rf"\b(?:do not|does not|no longer|not) (?:really |even |just )?(?:want|wish|feel like) {TO} "
          rf"(?:be here|be around|go on|keep going|carry on|continue|try){EOC}",
          "medium", "hopelessness", negatable=False, others=False),
    _Rule("kill_myself",
          rf"\b(?:kill|killing|off|offing|unalive|unaliving|end|ending|hang|hanging|shoot|shooting|drown|drowning|"
          rf"poison|poisoning|suffocate|suffocating|electrocute|stab|stabbing|murder|murdering|overdose|"
          rf"self delete|delete) {MYSELF}\b",
          "high", "suicidal_ideation", mode="self", check=_kill_myself_check),
    _Rule("kms", r"\b(?:kms|k m s|kmys)\b", "high", "suicidal_ideation", mode="self", check=_kms_check),
    _Rule("unalive", r"\b(?:unalive|unaliving|self delete|self deleting|self deletion|ctb)\b",
          "high", "suicidal_ideation", noun=True),
    _Rule("end_my_life",
          r"\b(?:end|ending|ended|take|taking|took) (?:my|me) (?:own )?life\b(?! (?:back|in|into|to|by the horns|"
          r"seriously|more seriously|for granted|one day|a day|easy|slow|slowly|a step|over|apart)\b)",
          "high", "suicidal_ideation", mode="self"),
    _Rule("end_it_all",
          r"\bend(?:ing|ed)? (?:it all|this all|it for good|it once and for all|it forever|my suffering|"
          r"everything(?= \||$))\b",
          "high", "suicidal_ideation"),
    _Rule("end_it",
          rf"\b(?:want|going|ready|planning|plan|about|decided|thinking about|thought about|think about|tempted|"
          rf"need|gonna|intention of|intend to|intent on) {_gap(1)}(?:{TO} )?(?:end|ending) it(?: (?:tonight|today|now|"
          rf"soon|this weekend|"
          rf"tomorrow|already|finally|for real))?{EOC}",
          "high", "suicidal_ideation", neg_scope="all"),
    _Rule("end_things",
          rf"\b(?:thinking|thought|think|want|wanting|going|planning|ready|considering|contemplating) {_gap(1)}"
          rf"(?:of |about |to )?end(?:ing)? "
          rf"things(?:{EOC}| for real| for good| tonight)",
          "medium", "hopelessness", neg_scope="all"),
    _Rule("suicidal", r"\bsuicidal\b(?! (?:tendencies|squad|mission)\b)", "high", "suicidal_ideation",
          noun=True),
    _Rule("suicide", rf"\bsuicide\b{_SUICIDE_EXCL}", "high", "suicidal_ideation", noun=True),
    _Rule("hotline", r"\b(?:suicide|crisis|suicide prevention) (?:hotline|hot line|lifeline|helpline|line)\b",
          "medium", "help_seeking", mode="self", negatable=False),
    _Rule("no_reason",
          rf"\b(?:no|not any|not a single|zero|nothing|lost (?:my|the|all)) (?:good |real )?(?:reason|reasons|"
          rf"point|purpose|will|desire|motivation) (?:left )?(?:to|in|for|of|2) (?:(?P<high>live|living|life|"
          rf"be alive|being alive|stay alive|staying alive|exist|existing|wake up|waking up)|"
          rf"(?P<med>go on|going on|keep going|keep living|carry on))\b",
          "high", "suicidal_ideation", mode="self", negatable=False,
          check=_group_level({"high": ("high", "suicidal_ideation"), "med": ("medium", "hopelessness")})),
    _Rule("nothing_to_live_for", rf"\bnothing (?:left )?(?:to|2) live for\b", "high", "suicidal_ideation",
          mode="self", negatable=False),
    _Rule("not_worth_living",
          r"\b(?:(?:life|living|being alive|existence|existing|this life|my life) (?:is|was|feels|seems|has become|"
          r"am) (?:not|no longer|never|so not) (?:really )?worth (?:it|living|anything)|not worth (?:living|being "
          r"alive|staying alive))\b",
          "high", "suicidal_ideation", mode="self", negatable=False),
    _Rule("point_of_living",
          r"\bwhat is (?:even )?the point (?:of|in) (?:(?P<high>living|being alive|existing|staying alive|"
          r"going on)|(?P<med>life|anything|trying|it all|any of this|everything))\b",
          "high", "suicidal_ideation", mode="self", negatable=False,
          check=_group_level({"high": ("high", "suicidal_ideation"), "med": ("medium", "hopelessness")})),
    _Rule("no_point",
          rf"\bno point (?:anymore|any more|in anything|to anything|in life|to life|in it all|to any of this|"
          rf"in any of this|in (?:even )?trying{EOC}|trying{EOC})",
          "medium", "hopelessness", mode="self", negatable=False),
    _Rule("better_off_without_me", r"\bbetter (?:off )?without me\b", "high", "suicidal_ideation", mode="self",
          negatable=False, check=_better_off_check),
    _Rule("better_off_if_gone",
          r"\bbetter off if i (?:was|were|am|had|just) (?:not |never )?(?:gone|dead|around|here|born|been born|"
          r"died|disappeared)\b(?! (?:less|more|so much|all the time|for (?:work|a|the|two|three|some|\d+)|on|during|"
          r"at|this|next|until|till|while|every|in the)\b)",
          "high", "suicidal_ideation", mode="self", negatable=False),
    _Rule("nobody_if_i_died",
          rf"\b(?:nobody|no one|no body|not a single person|none of them) (?:{W} ){{0,3}}(?:care|notice|miss me|"
          rf"cry|mind|come to my funeral)\b(?: {W}){{0,2}} if i (?:died|die|was gone|were gone|disappeared|"
          rf"disappear|was dead|were dead|kill myself|was not here|were not here|was not around|left forever|"
          rf"never woke up|did not wake up|vanished|killed myself|took my own life|ended it)\b"
          rf"|\bif i (?:died|die|was gone|were gone|disappeared|was dead|killed myself|kill myself) "
          rf"(?:{W} ){{0,4}}(?:nobody|no one|no body) (?:would |will )?(?:even )?(?:care|notice|miss me|cry)\b",
          "high", "suicidal_ideation", mode="self", negatable=False),
    _Rule("nobody_would_miss_me", r"\b(?:nobody|no one|no body) (?:would|will) (?:even )?(?:miss me|notice "
          r"if i was gone)\b", "medium", "hopelessness", mode="self", negatable=False),
    _Rule("disappear",
          rf"\b(?:want|wish|wishing|need|just want|could) {_gap(2)}(?:{TO} )?(?:(?P<exist>not exist|cease to exist|"
          rf"stop existing)|(?:just )?(?:disappear|vanish|fade away)(?P<forever> (?:forever|for good|for ever|"
          rf"permanently|from this world|from existence|off the face of the earth|from the earth|and never "
          rf"come back|and never return))?)\b",
          "medium", "hopelessness", check=_eoc_disappear, neg_scope="all"),
    _Rule("sleep_forever",
          rf"\b(?:want|wish|hope|need|going) {_gap(2)}(?:{TO} )?(?:go to )?(?:sleep|fall asleep|close my eyes|go to "
          rf"bed)(?: and)? (?:just )?(?:(?P<never>never wake up|not wake up|never wake|do not wake up|never open them "
          rf"again)|"
          rf"(?P<forever>forever|for ever|permanently))\b",
          "high", "suicidal_ideation",
          check=lambda d, m, i, j: not (_wake_bounded(d, j) or m.group("forever") and re.match(
              r"(?:on|at|in|every|this|when|after|until|till|lol|haha|lmao|tomorrow|today|tonight|like)\b",
              " ".join(d.after(j, 1)))) and _group_level({"never": ("high", "suicidal_ideation"),
                                                          "forever": ("medium", "hopelessness")})(d, m, i, j)),
    _Rule("tired_of_living",
          r"\b(?:(?P<high>(?:tired|sick|exhausted|weary) of (?:living|being alive|existing|life itself)|"
          r"(?:done|finished) with (?:life|living|being alive|existing|this life)|hate (?:being alive|existing|"
          r"living)|over (?:living|being alive|existing))|(?P<med>(?:tired|sick|exhausted|weary) of (?:life|this "
          r"life|my life|it all|everything|fighting|trying)|done with (?:everything|it all|my life)))\b",
          "high", "suicidal_ideation",
          check=_group_level({"high": ("high", "suicidal_ideation"), "med": ("medium", "hopelessness")})),
    _Rule("want_it_to_end",
          rf"\bwant (?:(?P<high>it all|everything|all of it|all of this|all this|my life|life) {TO} (?:end|stop|be "
          rf"over)|(?P<med>the pain|the suffering|this pain|it|this) {TO} (?:end|stop|be over){EOC})\b",
          "high", "suicidal_ideation",
          check=_group_level({"high": ("high", "suicidal_ideation"), "med": ("medium", "hopelessness")})),
    # ------------------------------------------------------------------------------ hopelessness
    _Rule("cant_take_anymore",
          rf"\bcan not (?:take|handle|bear|stand|do|cope with|deal with|live with|face|keep doing|survive|endure|"
          rf"manage|go through|keep up with|live like|go on like|keep going like|continue like) {_FEELING_GAP}"
          rf"{ANYMORE}\b"
          rf"|\bcan not take (?:it|this|much|any) ?(?:more|no more)\b",
          "medium", "hopelessness", negatable=False, others=False),
    _Rule("cant_go_on",
          rf"\bcan not (?:live|go on|keep going|carry on|keep living|cope|do it|do this|take it|take this|handle it|"
          rf"handle this|handle life|be here|keep doing this|breathe)(?: like this| anymore| any more| any longer|"
          rf"{EOC})",
          "medium", "hopelessness", negatable=False, others=False),
    _Rule("give_up_on_life",
          r"\b(?:give|giving|gave|given) up on (?:life|living|everything|myself)\b",
          "medium", "hopelessness", others=False),
    _Rule("burden",
          r"\b(?:i am|am|such|just|only|being|been|i feel like|feel like) (?:such |just |only |nothing but |a "
          r"total |so much of )?(?:a|an) (?:huge |big |massive |total |complete )?burden\b",
          "medium", "hopelessness", others=False),
    _Rule("hopeless",
          r"\b(?:(?:feel|feeling|felt|am|so|completely|totally|utterly) (?:so |completely |totally |utterly |just )?"
          r"(?:hopeless|worthless)|(?:life|everything|my life) is (?:so |completely |totally )?hopeless|there is "
          r"no hope(?: left)?|no hope left|lost all hope|have no hope left)\b",
          "medium", "hopelessness", others=False),
    # ---------------------------------------------------------------------------------- self harm
    _Rule("self_harm_intent",
          rf"\b(?:{_INTENT}|started|start|starting|been|can not stop|could not stop|relapsed and|keep on) "
          rf"{_gap(2)}(?:{TO} )?(?:(?P<hard>hurt|hurting|harm|harming|cut|cutting|burn|burning|scratch|scratching|"
          rf"bleed|bleeding|slice|slicing|carve|carving)|(?P<soft>hit|hitting|punch|punching|punish|punishing|"
          rf"starve|starving)) {MYSELF}\b",
          "high", "self_harm", mode="self", check=_self_harm_level, neg_scope="all"),
    _Rule("want_to_cut",
          rf"\b(?:want|wanted|wanting|wants|urge|urges|need|needing|going|tempted|craving|itching) {TO} (?:cut|self "
          rf"harm|bleed){EOC}",
          "medium", "self_harm", mode="self", neg_scope="all",
          check=lambda d, m, i, j: ("high", "self_harm") if re.search(
              r"\b(?:knife|knives|blade|blades|razor|razors|again|relapse|relapsed)\b", d.norm) else True),
    _Rule("cutting_again",
          rf"\b(?:cutting|cut|burning|burned|burnt|hurting|hurt|harming|harmed|scratching|scratched|carving|carved) "
          rf"(?:into )?(?:myself|my (?:wrists?|arms?|legs?|thighs?|skin|body|stomach|hips?)) {_gap(2)}(?:again|on "
          rf"purpose|"
          rf"deliberately|intentionally|til i bleed|until i bleed|till i bleed|to feel something|to cope|to feel "
          rf"better|to punish myself)\b",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: not re.match(r"(?:while|when|cooking|shaving|by accident|accidentally|on (?:a|an|"
                                                r"the)|at (?:the|work))\b", " ".join(d.after(j, 3)))
          and not re.search(rf"\b(?:{_SPORT})\b", d.norm)),
    _Rule("cutting_myself",
          r"\bcutting (?:myself|my (?:wrists?|arms?|thighs?|legs?|skin))\b",
          "high", "self_harm", mode="self", check=_cutting_check),
    _Rule("wrists",
          r"\b(?:slit|slitting|slash|slashing|cut|cutting|slice|slicing|open|opening) (?:my|both my|my own) wrists?\b",
          "high", "suicidal_ideation", mode="self", check=_wrist_check),
    _Rule("self_harm_noun", r"\bself (?:harm|harming|harmed|injury|injuring|injure|mutilation|mutilating)\b",
          "high", "self_harm", noun=True),
    # ------------------------------------------------------------------------------- plans and means
    _Rule("means_ready",
          r"\b(?:have|got|with|holding|hold|bought|got out) (?:the |my |all the |all my |enough |a bottle of |a "
          r"handful of )?(?:pills|tablets|sleeping pills|rope|noose|razor blades?|blades?|painkillers) (?:ready|lined "
          r"up|counted out|counted|in front of me|in my hand|set up)\b|\bnoose (?:is |all )?(?:ready|tied|set up)\b",
          "high", "suicide_plan"),
    _Rule("stockpiling",
          rf"\b(?:saved|saving|stockpiled|stockpiling|hoarding|hoarded|stashing|stashed|collected|collecting) (?:up )?"
          rf"(?:{W} ){{0,4}}?"
          rf"(?:pills|sleeping pills|tablets|meds|painkillers|paracetamol|tylenol)\b",
          "high", "suicide_plan"),
    _Rule("take_all_pills",
          rf"\b(?:take|taking|swallow|swallowing|down|downing|overdose on|od on) (?:all|every one of|every single "
          rf"one of|the whole|a whole|the entire|the rest of|a handful of) (?:{W} ){{0,2}}?(?:pills|meds|tablets|"
          rf"(?:bottle|pack|packet|box) of (?:{W} )?(?:pills|meds|tablets|sleeping pills|tylenol|paracetamol|advil|"
          rf"painkillers))\b",
          "high", "suicide_plan", check=_intent_before(4)),
    _Rule("took_pills",
          r"\b(?:took|swallowed|downed) (?:a |an )?(?:whole |entire |full )?(?:bottle|handful|box|pack|packet) of "
          r"(?:pills|tablets|sleeping pills|painkillers|meds|paracetamol|tylenol)\b|\bswallowed all (?:of )?(?:my|"
          r"the) (?:pills|meds|tablets)\b",
          "high", "suicide_plan"),
    _Rule("note",
          r"\b(?:writing|wrote|written|write|left|leaving|leave|drafting|drafted|typed|typing|finished) (?:(?:my|a|the|"
          r"out my|"
          r"out a|writing|writing my) )?(?:suicide|goodbye) (?:note|letter|letters|notes|message|messages)\b"
          r"|\b(?:my )?(?:final|last) goodbye\b|\bgoodbye (?:forever|for good|everyone forever)\b",
          "high", "suicide_plan", check=lambda d, m, i, j: not _to_a_thing(d, j)),
    _Rule("jump",
          r"\b(?:jump|jumping|leap|leaping|throw myself|throwing myself|step|stepping) (?:off|from|in front of|onto) "
          r"(?:a|the|this|that|my) (?:[^\s|]+ )?(?:bridge|building|roof|rooftop|cliff|balcony|ledge|overpass|tower|"
          r"skyscraper|train|bus|truck|lorry|car|traffic|highway|motorway|subway|garage|car park|window|platform|dam|"
          r"quarry|parking structure)\b",
          "high", "suicide_plan",
          check=_intent_before(4, extra=r"|\b(?:of|about)$")),
    _Rule("crash_car",
          r"\b(?:drive|driving|crash|crashing|swerve|swerving|steer|steering) (?:my car |the car |myself )?"
          r"(?:into|off) "
          r"(?:a|the|an|some|oncoming) (?:[^\s|]+ )?(?:wall|tree|bridge|cliff|traffic|truck|lorry|river|barrier|pole|"
          r"pillar|lake|overpass)\b",
          "high", "suicide_plan", check=_intent_before(4, extra=r"|\b(?:of|about)$")),
    _Rule("gun_to_head",
          r"\b(?:gun|pistol|barrel|knife|blade) (?:to|against|at|in) my (?:head|temple|mouth|throat|wrists?|chest)\b",
          "high", "suicide_plan", mode="self", check=_not_conditional),
    _Rule("overdose", r"\boverdos(?:e|ed|ing)\b", "high", "suicide_plan", noun=True, check=_overdose_check),
    _Rule("od", rf"\b(?:going to|want to|about to|will|ready to|planning to|thinking about) od\b(?! on (?:sugar|"
          rf"caffeine|coffee|candy|netflix)\b)", "high", "suicide_plan"),
    # ------------------------------------------------- attempts, being at the place, means at hand (C-SSRS)
    _Rule("took_overdose",
          rf"\b(?:took|swallowed|downed|have taken|taken) (?:(?:all|all of|every one of|every single one of|the whole|"
          rf"a "
          rf"whole|the entire|an entire|the rest of|everything in|most of|half of) (?:the |my |a |an )?(?:{W} ){{0,2}}?"
          rf"(?:pills|meds|tablets|tylenol|paracetamol|painkillers|sleeping pills|advil|ibuprofen|bottle|pack|packet|"
          rf"box|medicine cabinet|prescription)|(?:like |about |over |around |maybe )?(?:[2-9]\d|1\d\d) (?:{W} )?"
          rf"(?:pills|tablets|tylenol|paracetamol|painkillers|sleeping pills|advil|ibuprofen))\b",
          "high", "suicide_plan", check=lambda d, m, i, j: _took_all_check(d, m, i, j) and not _other_contents(d, m)),
    _Rule("already_took",
          r"\b(?:already|just) (?:took|swallowed|downed|taken) (?:the|my|those|all the|all my|all of my) (?:pills|meds|"
          r"tablets)\b(?= \||$| it is too late| and| now| feeling| bye| goodbye)",
          "high", "suicide_plan"),
    _Rule("jump_now",
          rf"\b(?:going to|about to|ready to|want to|will|gonna) (?:just )?(?:jump|let go|step off)"
          rf"(?= \||$| now| right now| tonight| off| i mean| for real| and| when i get| once i get| this time)",
          "high", "suicide_plan", check=lambda d, m, i, j: _BENIGN_JUMP.search(d.norm) is None and (
              _PLACES.search(d.norm) is not None or _SERIOUS.search(d.norm) is not None)),
    _Rule("at_the_edge",
          r"\b(?:on|at|standing on|sitting on|up on) (?:the |a |this )?(?:edge of (?:the |a |my |this )?(?:roof|"
          r"rooftop|"
          r"balcony|bridge|cliff|building|platform)|ledge|train tracks|railway tracks|tracks)\b",
          "high", "suicide_plan", check=lambda d, m, i, j: re.search(
              r"\b(?:right now|now|floor|next (?:one|train)|comes in|jump|let go|goodbye)\b", d.norm) is not None
          and not re.search(r"\b(?:view|photo|photos|pic|pics|selfie|hike|hiking|sunset|amazing|beautiful|pretty)\b",
                            d.norm)),
    # being at the place right now: "I'm standing on the bridge right now", "sitting on the roof now" (a view, a
    # photo, waiting for someone, traffic or a walk is an everyday reason)
    _Rule("at_the_place_now",
          r"\b(?:i am|im) (?:standing|sitting|up|right|out) (?:on|at|on top of) (?:the |a |this )?(?:bridge|roof|rooftop|"
          r"ledge|cliff|top of (?:the |a |this )?(?:bridge|building|car park|parking garage|cliff))\b",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: re.search(
              r"\b(?:right now|now|alone|again|goodbye|jump|let go|edge)\b", d.norm) is not None
          and re.search(r"\b(?:view|views|photo|photos|pic|pics|picture|selfie|hike|hiking|sunset|sunrise|amazing|"
                            r"beautiful|pretty|wait|waiting|meet|meeting|traffic|bus|stuck|walk|walking|fishing|"
                            r"concert|party|smoke|smoking|fireworks|repair|repairs|fix|fixing|shingles|gutter|"
                            r"gutters|antenna|work|working|job|dinner|drinks|bar)\b", d.norm) is None),
    _Rule("weapon_intent",
          rf"\b(?:gun|pistol|rifle|shotgun|revolver|knife|blade|razor|rope|noose) (?:{W} ){{0,10}}?(?:going to|gonna|"
          rf"ready to|about to|will|want to) (?:use it|use them|use it on myself|pull the trigger|do it)\b"
          rf"|\b(?:ready|going|about|want) to pull the trigger\b",
          "high", "suicide_plan", mode="self", check=_not_conditional),
    _Rule("bought_means",
          r"\b(?:bought|buying|got|ordered|purchased|picked up) (?:a |the |some |extra |more |new )?(?:rope|noose|"
          r"charcoal|blades|razor blades|razors|gun|pistol|firearm|helium)\b",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: _bought_check(d, m, i, j)),
    _Rule("hiding_meds",
          rf"\b(?:hiding|hid|saving|keeping|stashing|not taking) (?:{W} ){{0,3}}?(?:pills|meds|tablets|painkillers|"
          rf"medication) (?:instead of taking them|so i (?:have|will have|would have|can have|have got) enough|in (?:a|"
          rf"an|"
          rf"my|the) (?:jar|drawer|box|bag|sock)|for when i am ready)\b",
          "high", "suicide_plan"),
    _Rule("noose",
          r"\b(?:tie|tied|tying|make|made|making|tied up|set up) (?:a|the|my) noose\b|\bnoose (?:tied|hanging|up)\b",
          "high", "suicide_plan"),
    _Rule("last_message",
          r"\b(?:this is|this will be|these are) (?:my|the) (?:very )?(?:last|final) (?:message|words|text|post|"
          r"goodbye)\b"
          r"(?! (?:before|for (?:today|tonight|now|a while|the day|the night|this week)|of the (?:day|night|week|"
          r"evening|year|month|shift|session)|until|till|from|on this|"
          r"tonight|"
          r"today)\b)|\byou (?:will|wo) not (?:hear|see) (?:from )?(?:me )?(?:ever )?again\b",
          "high", "warning_sign", mode="self"),
    _Rule("after_im_gone",
          r"\b(?:after|when|once) i (?:am|have) (?:gone|dead|not here|not around|no longer here|passed)\b"
          r"(?! (?:for|on|to|away|camping|travelling|traveling|abroad|this|next|at|in)\b)",
          "high", "warning_sign", mode="self", check=lambda d, m, i, j: _no_benign_reason(d)),
    _Rule("wish_not_wake",
          rf"\b(?:pray|praying|prayed|hope|hoping|wish|fine|okay|ok|happy|relieved|glad) (?:{W} ){{0,3}}?(?:if |that "
          rf")?i "
          rf"(?:do not|did not|never|would not|will not|wo not) wake up\b",
          "high", "suicidal_ideation", mode="self", negatable=False, check=lambda d, m, i, j: not _wake_bounded(d, j)),
    _Rule("want_not_alive",
          rf"\bwant {TO} not (?:be alive|exist|be here|wake up|be around)\b",
          "high", "suicidal_ideation"),
    _Rule("wish_hit",
          r"\b(?:wish|wishes|wished|wishing|hope|hoping) (?:that )?(?:a|the|some) (?:car|bus|truck|train|lorry) "
          r"(?:would |"
          r"will |could )?(?:just )?(?:hit|run over|kill) me\b",
          "high", "suicidal_ideation", mode="self"),
    _Rule("self_harm_worse",
          r"\b(?:cuts|cutting|burns|burning|self harm|self harming|marks|scars|wounds) (?:are |is |keep |have been |"
          r"has "
          r"been )?(?:getting|got|get|gotten) (?:deeper|worse|more often|more frequent|bigger|longer)\b"
          r"|\b(?:cut|cutting|burn|burning|hurt|hurting|harm|harming) (?:myself )?(?:almost |nearly |pretty much "
          r")?every "
          r"(?:day|night|single day)\b"
          r"|\b(?:relapsed|relapse)(?: and| again and)? (?:cut|cutting|burned|burnt|hurt|harmed)\b"
          r"|\b(?:scratch|scratching|scratched|punch|punching|punched|hit|hitting|bang|banging|burn|burning|burned|cut|"
          r"cutting|carve|carving|pick|picking|bite|biting|bit) (?:[^\s|]+ ){0,3}?(?:until|till|til) (?:i|they|it|my [^\s|]+) "
          r"(?:bleed|bleeds|bled|bruise|bruised)\b",
          "high", "self_harm", mode="self", check=lambda d, m, i, j: not re.search(
              r"\b(?:accident|accidentally|cooking|shaving|gym|fell|scab)\b", d.norm) and _HARM_BENIGN.search(d.norm) is None),
    _Rule("harm_is",
          r"\b(?:hurting|cutting|harming|burning) (?:myself|my skin|my arms?) (?:is|was|has been|helps|makes me)\b",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: not re.match(r"(?:not|never|no longer)\b", " ".join(d.after(j, 1)))),
    # ------------------------------------------- warning signs without a death word (public-health lists)
    _Rule("wont_need",
          rf"\bi (?:will|would) not (?:be )?(?:need|needing|use|using|wear|wearing|drive|driving|play|playing|listen "
          rf"to) "
          rf"(?:it|them|this|these|that|those|my {W}|any of (?:it|them|this)|anything)(?: {W})?(?: {ANYMORE}| where i "
          rf"am "
          rf"going| soon| after (?:this|tonight|today|friday|the weekend)|{EOC})"
          rf"|\bwhere i am going i (?:will|would) not need\b",
          "high", "warning_sign", mode="self", check=lambda d, m, i, j: _no_benign_reason(d)),
    _Rule("gave_everything",
          r"\b(?:gave|giving|given|give) (?:away )?(?:all|everything|most|almost everything|nearly everything) (?:of )?"
          r"(?:my (?:stuff|things|belongings|possessions|clothes|money)|i own|i have)\b"
          r"|\b(?:handing|giving) (?:out|away) my (?:things|stuff|belongings) (?:to people )?so (?:they|people|"
          r"everyone) "
          r"(?:have|has) something\b",
          "high", "warning_sign", mode="self", check=lambda d, m, i, j: _no_benign_reason(d)),
    _Rule("this_is_goodbye",
          r"\bthis is (?:goodbye|farewell|the end for me)\b(?! (?:to|for now|for a while|for today|from)\b)"
          r"|\b(?:last|final) time (?:we (?:will )?(?:talk|speak)|(?:i am |i will be )?talking to (?:you|anyone)|i "
          r"(?:will )?"
          r"(?:talk|write|message|speak) (?:to )?(?:you|anyone|anybody))\b"
          r"|\bi (?:will|would) not be bothering (?:you|anyone|anybody) (?:again|anymore|any more|ever again)\b"
          r"|\btell (?:my (?:mom|mum|mother|dad|father|parents|family|kids|sister|brother|wife|husband|partner)|"
          r"everyone|"
          r"them) (?:that )?i (?:(?:love|loved) (?:them|her|him|you|everyone|everybody|all|each|you all|all of you|"
          r"them all)|am sorry|was sorry)\b",
          "high", "warning_sign", mode="self"),
    _Rule("wont_be_here",
          r"\bi (?:will|would) not (?:be (?:here|around|alive)|see|make it to) (?:for |by |in |to |at )?(?:my |the |"
          r"this |"
          r"next )?(?:birthday|christmas|spring|summer|autumn|fall|winter|new year|weekend|end of|graduation|next one|"
          r"much longer|long)\b"
          r"|\bmy last (?:christmas|birthday|weekend|summer|day|night|week)(?= \||$| ever| alive| on earth)"
          r"|\b(?:it|this|everything|all of this|all this) will (?:all )?be over (?:soon|by|after|tomorrow|tonight|"
          r"this|on)\b|\bit will all be over\b",
          "high", "warning_sign", mode="self", check=lambda d, m, i, j: _no_benign_reason(d)),
    _Rule("decided",
          r"\b(?:made (?:my|the) decision|made up my mind|my mind is made up|(?:the )?decision is made|it is "
          r"(?:already )?"
          r"(?:decided|settled)|already decided|made peace with it|i have decided|i know how (?:it|this) ends)"
          r"(?= \||$| and i| please| do not| so| nothing| it is| i (?:feel|am))"
          r"|\b(?:soon|then) it (?:will not|wo not) hurt (?:anymore|any more)\b"
          r"|\b(?:at peace|calm|relieved) now that i (?:have )?(?:decided|chosen|know)\b"
          r"|\bready to let go(?= \||$)",
          "high", "warning_sign", mode="self",  # eighth round: "ive decided! pizza tonight" is no such decision
          check=lambda d, m, i, j: _no_benign_reason(d) and _DECISION_BENIGN.search(d.norm) is None),
    _Rule("means_at_hand",
          r"\b(?:there (?:is|are)|i have|i have got|got|bought|saved|collected) enough (?:pills|tablets|meds|"
          r"medication|paracetamol|tylenol|painkillers|sleeping pills|insulin)\b"
          r"|\b(?:gun|pistol|rifle) is loaded\b"
          r"|\bengine (?:is )?running\b(?=.*\bgarage\b)|\bgarage\b(?=.*\bengine (?:is )?running\b)"
          r"|\bcounted (?:my|the|out my|out the|all my) (?:pills|tablets|meds)(?= \||$| and| there)",
          "high", "warning_sign", mode="self", check=lambda d, m, i, j: not re.search(
              r"\b(?:organiser|organizer|weekly|for the week|trip|holiday|refill)\b", d.norm)
          and not (re.search(r"\b(?:engine|garage)\b", m.group()) and _CAR_BENIGN.search(d.norm))),
    # ------------------- general shapes the train part's cross-validation missed (issue 21), one per C-SSRS level
    # a passive wish: death welcome, not minded, hoped for from outside (an illness, a crash, a god)
    _Rule("death_welcome",
          r"\b(?:welcome death|(?:death|being dead|dying) (?:sounds|seems|would be|feels|looks) (?:so |really |like )?"
          r"(?:(?:so )?(?:peaceful|nice|good|better|easier|appealing|tempting|comforting)|a relief|like a relief|"
          r"like freedom)|(?:fine|ok|okay|at peace) (?:with )?dying)\b",
          "high", "suicidal_ideation", others=False),
    _Rule("not_mind_dying",
          rf"\b(?:do not|did not|would not|will not) (?:even |really )?(?:care|mind) (?:if|whether) i (?:live or die|"
          rf"die|died|was dead|do not wake up|did not wake up|never woke up|never wake up|make it|live)\b"
          rf"|\b(?:would not|will not) (?:even |really )?mind (?:dying|being dead)\b",
          "high", "suicidal_ideation", mode="self", negatable=False),
    _Rule("wish_end_from_outside",
          rf"\b(?:hope|hoping|hoped|wish|wishing|wished|pray|praying|prayed) (?:that )?(?:(?:i|i would) (?:get|got|had|"
          rf"have|catch|develop) (?:{W} ){{0,3}}?(?:terminal|fatal|incurable|cancer|disease|illness)|(?:the|my|a) "
          rf"(?:plane|flight) (?:would |will )?(?:just )?(?:crash|crashes|goes down|go down)|(?:god|the universe|"
          rf"someone|somebody) (?:would |will |could )?(?:just )?(?:takes? me(?= \||$| already| away| home| tonight| "
          rf"in my sleep| now)|puts? me out of my misery))\b"
          rf"|\b(?:wish|wishing|hope|hoping) (?:someone|somebody) would (?:just )?put me out of my misery\b",
          "high", "suicidal_ideation", mode="self", negatable=False),
    _Rule("wake_or_sleep",
          rf"\b(?:fine|ok|okay|happy|relieved|glad|nice|relief|mind) (?:{W} ){{0,2}}?if i (?:never|did not|do not) "
          rf"(?:wake|woke) up\b"
          rf"|\b(?:give anything|love|like) {TO} (?:just )?(?:go to sleep|fall asleep|sleep) and (?:never|not) "
          rf"(?:wake|woke) up\b"
          rf"|\b(?:go to sleep|fall asleep|sleep) and (?:stay asleep|never come back|not come back)\b"
          rf"|\b(?:tired|sick|exhausted) of waking up(?: every (?:day|morning)| each (?:day|morning)|{EOC})",
          "high", "suicidal_ideation", mode="self", negatable=False),  # "not" is part of the wish
    _Rule("stop_being_alive",
          rf"\b(?:want|wish|need|could|just want) {_gap(1)}{TO} (?:just )?(?:stop|quit) (?:being alive|living)\b"
          rf"|\b(?:do not|can not) see why i should (?:keep|stay|go on) (?:being )?(?:alive|living)\b",
          "high", "suicidal_ideation", neg_scope="all"),
    # active ideation: considering, close to, thinking of ending it; dying by one's own hand; the only way out
    _Rule("ending_it_thoughts",
          rf"\b(?:considering|contemplating|thinking of|close to|this close to|so close to|wants to|wanting to|been "
          rf"wanting to|before i|knowing i can|idea of|fantasi[sz]ing about|dreaming of) "
          rf"(?:end|ending) it(?: all)?(?: for good| forever)?{EOC}"
          rf"|(?:(?<=\bthoughts )|(?<=\bthought ))(?:of|about) (?:ending it|ending (?:my|it all)|killing myself|"
          rf"dying|being dead|suicide|ending things|ending everything|unaliving(?: myself)?)\b"
          rf"|\bby my own hand\b|\bwant out of (?:this|my) life\b"
          rf"|\b(?:fantasi[sz]ing|dreaming|daydreaming) about (?:being dead|dying|my (?:own )?death)\b",
          "high", "suicidal_ideation", neg_scope="all"),
    _Rule("only_way_out",
          r"\b(?:suicide|dying|death|ending it|ending my life|killing myself|being dead) (?:feels|seems|is|looks) "
          r"(?:like )?(?:the|my) only (?:way out|option|answer|choice|solution|way|escape)\b",
          "high", "suicidal_ideation", others=False),
    _Rule("doubt_living",
          rf"\b(?:do not|dont) (?:think|know if|know whether) i (?:want|can|wanna) (?:to )?(?:live|be alive|stay alive|"
          rf"keep living|go on living)(?: {ANYMORE}| like this| like that| this way)?(?= \||$| (?:tbh|honestly|ngl|"
          rf"lol|fr|right now|much longer|another day|if|because|and|but|i)\b| {ANYMORE})",
          "high", "suicidal_ideation", mode="self", negatable=False),
    # method: looking up doses, heights and how long it takes; the quickest or painless way; a fixation on a means
    _Rule("research_dose",
          rf"\bhow (?:many|much) (?:of )?(?:my |the |your |his |her )?(?:{W} )?{_DOSE_NOUN} "
          rf"(?:{W} ){{0,3}}?(?:would it take|does it take|it would take|it takes|would be enough|is enough|"
          rf"is a lethal dose|is an overdose|is lethal|{TO} die|{TO} overdose|{TO} kill (?:me|myself)|"
          rf"{TO} not wake up|would kill me|would do it|before i die)\b"
          rf"|\bhow (?:many|much) (?:{W} ){{0,4}}?(?:would it take|does it take|it would take|it takes) {TO} (?:die|"
          rf"kill myself|not wake up|end it)\b"
          rf"|\blethal (?:dose|amount|with alcohol)\b|\bwhich {_DOSE_NOUN} (?:are|is|would|work) (?:{W} ){{0,2}}?"
          rf"(?:lethal|kill|fastest|quickest)\b"
          rf"|\bif i took all (?:of )?my (?:{W} )?{_DOSE_NOUN} would (?:that|it) (?:do it|kill me|be enough)\b"
          rf"|\bwhat happens if (?:you|i|u) take (?:[2-9]\d|1\d\d|all) (?:{W} )?{_DOSE_NOUN}\b",
          "high", "suicide_plan", mode="self"),
    _Rule("research_way",
          rf"\b(?:quickest|fastest|easiest|surest|least painful|most painless|painless|quick|best) (?:{W} )?"
          rf"(?:way|ways|method|methods) {TO} (?:die|end it|end my life|kill myself|go{EOC})"
          rf"|\b(?:ways|how) {TO} (?:die|end it|end my life|kill myself)(?: that do not hurt| painlessly| quickly)?"
          rf"(?= \||$| without| that| painlessly| quickly| fast)"
          rf"|\bhow long (?:does it |would it |it )?(?:takes? |would take )?{TO} (?:die|bleed out|drown|suffocate)\b"
          rf"|\bbleed out\b|\bis it painless {TO} (?:die|drown|hang|jump)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not d.sentence_has(i, _TOPIC | _MEDIA)),
    _Rule("hold_my_weight",
          r"\b(?:would|will|could|can) (?:the |a |my |this |that )?(?:[^\s|]+ )?(?:hold|take) my weight\b"
          r"|\b(?:tested|testing|test|checked|checking) (?:whether|if) the (?:[^\s|]+ )?(?:beam|rail|railing|hook|"
          r"pipe|door|bar) (?:[^\s|]+ )?(?:would )?hold\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:hammock|swing|climb|climbing|shelf|shelves|tv|mirror|"
                                                 r"chair|ladder|bike|kids?|boat)\b", d.norm)),
    _Rule("exhaust_hose",
          r"\b(?:hose|pipe|tube) (?:for|to|on|into|from) the (?:car )?exhaust\b|\bcarbon monoxide\b(?= and the car| in "
          r"the (?:car|garage))|\bexhaust (?:and|in|into) the garage\b",
          "high", "suicide_plan", mode="self"),
    _Rule("into_the_sea",
          rf"\bwalk(?:ing)? into the (?:sea|ocean|river|lake|water|waves)(?: and| until)(?: just)? (?:not|never|keep|"
          rf"kept|keep on) (?:come|coming|stop|stopping|walking|come back|coming back)\b",
          "high", "suicide_plan"),
    _Rule("means_fixation",
          rf"\b(?:keep|kept|keeps|been|always|can not stop) (?:{W} )?(?:staring at|looking at|eyeing|thinking about|"
          rf"picturing|imagining) (?:the |my |his |her |that |those |a )?(?:{W} ){{0,2}}?(?:pills|pill bottles?|bottle "
          rf"of pills|knives|knife|razor|razors|razor blades|blades|rope|noose|gun|train tracks|tracks|bridge|cliff|"
          rf"ledge|edge|rooftop|roof|window|exhaust|train)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:view|views|photo|photos|pic|pics|picture|selfie|hike|hiking|"
                                                 r"sunset|sunrise|beautiful|pretty|buy|buying|price|recipe|cook|"
                                                 r"cooking|sharpen|model|lego|painting|draw|drawing|climbing|fishing|"
                                                 r"renovat\w*|delay|delayed|late|cancelled|commute|ticket)\b",
                                                 d.norm)),
    # intent: a commitment with the marks of meaning it, without a method named
    _Rule("doing_it_meant",
          rf"\b(?:going to|gonna|will|am|i am|finally|really|actually) (?:really |actually |finally |just )?(?:do|"
          rf"doing|go through with) it\b",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: re.search(r"\b(?:not bluffing|not a joke|not joking|not kidding|not backing "
                                             r"out|i am sorry|goodbye|not scared anymore|not afraid anymore|no one "
                                             r"can stop me|nobody can stop me|end it|going to die|die tonight|"
                                             r"survive this)\b", d.norm) is not None and _no_benign_reason(d)),
    # plan: when and how settled, with a method or the act named
    _Rule("planned_it",
          rf"\b(?:have |had )?planned (?:it|everything|where|when|how|the whole thing)\b|\b(?:it is|its|all|"
          rf"everything is|it is all|its all|got it|got the whole thing|have it all|have got it) (?:all )?(?:planned|"
          rf"figured out|mapped out|set)(?: out)?\b|\b(?:the|my) plan is\b|\bi have a plan\b"
          rf"|\b(?:picked|chosen|chose|set|circled) (?:the|a) (?:date|day|spot|place|time|bridge)\b"
          rf"|\bi know (?:exactly )?(?:when and how|how and when|where and when)\b"
          rf"|\bwritten down every step\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: (_METHOD_CUE.search(d.norm) is not None or re.search(
              r"\b(?:do it|doing it|end it|ending it|ending my life|be gone|not come back|never come back|it will "
              r"be done|that is it|that is when|go through with it|kill myself|die|overdose)\b", d.norm) is not None)
          and not re.search(r"\b(?:wedding|party|trip|holiday|vacation|birthday party|surprise|dinner|date night|"
                            r"proposal|presentation|workout|diet|meeting|interview|camping|hike|move|moving|"
                            r"fireworks|watch the|picnic|photos|concert|festival|sunset|sunrise)\b", d.norm)),
    # preparatory: letters to everyone, a note drafted, pills from several shops, a weapon loaded, pills hidden
    _Rule("letters_written",
          r"\b(?:wrote|written|writing|drafted|drafting|finished|sealed) (?:the |my )?(?:goodbye )?(?:letters|notes) "
          r"(?:to|for) (?:everyone|everybody|my (?:family|kids|children|parents)|each of them)\b"
          r"|\b(?:drafted|finished|wrote|written) my note\b|\bmy note is (?:written|done|finished|ready)\b"
          r"|\bnote is written\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:thank you|thank|christmas|holiday|wedding|cards?|penpals?|"
                                                 r"teacher|class|school|exam|lecture|meeting)\b", d.norm)),
    _Rule("pills_gathered",
          r"\bfrom (?:two|three|four|several|different|multiple|a few) (?:different )?(?:shops|stores|pharmacies|"
          r"chemists|doctors)\b(?=.*\b(?:pills|paracetamol|tylenol|tablets|meds|painkillers)\b)"
          r"|\b(?:pills|paracetamol|tylenol|tablets|meds|painkillers)\b.*\bfrom (?:two|three|four|several|different|"
          r"multiple|a few) (?:different )?(?:shops|stores|pharmacies|chemists|doctors)\b"
          r"|\b(?:hid|hidden|hiding) (?:the |my |a |some |a bottle of |a stash of |a box of )?(?:pills|meds|tablets|"
          r"bottle of pills|painkillers)\b|\bstash of (?:pills|meds|tablets|painkillers|sleeping pills)\b"
          r"|\bloaded (?:the|my|his|her|dad's|a) (?:gun|pistol|rifle|shotgun)\b",
          "high", "suicide_plan", mode="self"),
    # attempts: a quantity of pills taken, a poison drunk, an attempt named, being at the place
    _Rule("took_quantity",
          rf"\b(?:took|swallowed|downed|taken|drank|have taken) (?:like |about |over |around |maybe )?(?:a bunch of|a "
          rf"lot of|loads of|a load of|a ton of|a handful of|all (?:of )?(?:my|the|my mums|my moms|my mom's|my "
          rf"mum's)|every|everything in|[2-9]\d of my|1\d\d of my|a bottle of) (?:{W} ){{0,2}}?(?:pills?|meds|tablets|"
          rf"antidepressants|sertraline|prozac|insulin|sleeping pills|sleeping tablets|painkillers|paracetamol|tylenol|oxy|"
          rf"opioids|medication|prescription)\b"
          rf"|\bdrank (?:some |a bottle of |the )?(?:bleach|antifreeze|poison|weed killer)\b",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: _took_quantity_check(d, m, i, j)),
    _Rule("attempted",
          rf"\b(?:attempted|tried) (?:again|suicide|last (?:night|week|month)|yesterday|on (?:monday|tuesday|wednesday|"
          rf"thursday|friday|saturday|sunday))\b|\btried to end it\b",
          "high", "suicide_plan", mode="self"),
    _Rule("on_the_place_now",
          r"\b(?:i am|im) (?:on|at) (?:the |a )?(?:roof|rooftop|ledge|bridge|cliff|train tracks|tracks|top of "
          r"(?:the|a) (?:building|bridge|car park|multistorey|tower))\b",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: re.search(
              r"\b(?:right now|now|tonight|goodbye|bye|jump|let go|this is it|going to|gonna|sorry|done)\b",
              d.norm) is not None and re.search(
              r"\b(?:view|views|photo|photos|pic|pics|picture|selfie|hike|hiking|sunset|sunrise|amazing|beautiful|"
              r"pretty|wait|waiting|meet|meeting|traffic|bus|stuck|walk|walking|fishing|concert|party|smoke|smoking|"
              r"fireworks|repair|repairs|fix|fixing|work|working|job|dinner|drinks|drink|bar|terrace|garden|bbq|"
              r"barbecue)\b", d.norm) is None),
    # self-harm: again, deep, with an instrument, the urge, as the only relief
    _Rule("harm_again",
          r"\b(?:i |relapsed |relapsed and |and )(?:cut|self harmed|sh|burned myself|hurt myself) (?:again|so deep|"
          r"too deep|really deep|deeper|tonight)\b|\bcut (?:so|too|really) deep\b|\bstarted cutting again\b"
          r"|\b(?:sh|self harm|cutting) (?:urges?|again|relapse)\b|\brelapsed(?: (?:on|with|into) (?:sh|self harm|"
          r"cutting))\b|\bmade myself bleed\b",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:accident|accidentally|cooking|shaving|hair|grass|lawn|"
                                                 r"hours|budget|paper|onions?|salon|barber|hairdresser|bangs|fringe|free|clean for|years clean|months "
                                                 r"clean)\b", d.norm) and not re.search(rf"\b(?:{_SPORT})\b", d.norm)),
    _Rule("harm_instrument",
          r"\b(?:burned|burnt|burning|burn|cut|cutting|carved|carving|scratched|scratching) (?:into )?(?:myself|my "
          r"(?:wrists?|arms?|legs?|thighs?|skin|stomach|hips?)) with (?:a |the |my )?(?:cigarette|lighter|blade|razor|"
          r"razor blade|knife|scissors|compass|glass)\b"
          r"|\b(?:carved|carving|slit|slitting|sliced|slicing) (?:\w+ )?(?:into |up )?my (?:wrists?|arms?|legs?|"
          r"thighs?|skin|stomach)\b",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: not re.match(r"(?:open )?on (?:a|the|some|my) ", " ".join(d.after(j, 3)))
          and not re.search(r"\b(?:accident|accidentally|fence|nail|by mistake)\b", d.norm)),
    _Rule("harm_urge",
          rf"\burges? {TO} (?:cut|self harm|sh|burn myself|hurt myself)\b|\b(?:need|want|going) {TO} cut(?= so bad| rn|"
          rf" right now| tonight| again| the urge|{EOC})"
          rf"|\b(?:cutting|self harm|self harming|sh) is the only (?:way|thing)\b|\bthe only thing that (?:{W} ){{0,4}}"
          rf"is (?:cutting|self harm|hurting myself)\b|\b(?:cutting|self harm) (?:helps|is how i cope)\b",
          "high", "self_harm", mode="self"),
    # ---------------- warning signs (issue 21): a farewell, a decision, things given or arranged, a timeline, a
    # burden, each with the mark of finality that tells it from the everyday one (for good, remember me, when
    # I'm gone, it won't matter soon); an everyday reason in the message (a trip, a move, a new job) clears it
    _Rule("farewell_final",
          rf"\b(?:goodbye|bye|farewell) (?:world|forever|for good|cruel world)\b(?! to (?:my|the|this|that|these|those|"
          rf"all)\b)"
          rf"|\b(?:signing off|logging off|leaving|gone) (?:\| )?(?:for good|forever|permanently)\b(?! (?:from|on|off) )"
          rf"|\b(?:last time|the last time) (?:i will |i am going to |i am )?(?:text|texting|message|messaging|talk "
          rf"to|talking to|speak to|write to) (?:you|anyone)\b"
          rf"|\bi (?:will not|wo not) be (?:talking|texting|messaging|writing) (?:to )?(?:you|anyone) (?:again|anymore|"
          rf"any more|ever again)\b"
          rf"|\bforgive me for what i am (?:about to|going to) do\b"
          rf"|\b(?:know|remember|tell (?:them|my {W}|everyone)|want you to know) (?:that )?(?:it is|its|it was) not "
          rf"(?:your|their|his|her|anyones|anyone s) fault\b"
          rf"|\b(?:if|when) you (?:do not )?(?:hear|hear from) (?:from )?me\b(?= (?:again|tomorrow|anymore|know|"
          rf"remember|it is|its|thank|please))"
          rf"|\b(?:say|said|saying) goodbye (?:properly )?(?:before i go|while i (?:still )?can|to everyone i (?:care "
          rf"about|love))\b"
          rf"|\b(?:goodbye|bye)\b(?=.*\b(?:i am sorry|forgive me|remember me|it was nice knowing you|love you all|"
          rf"take care of (?:yourself|each other|my)|you were the only one|not strong enough|thank you for "
          rf"(?:everything|trying|always))\b)"
          rf"|\b(?:i am sorry|remember me|thank you for everything|love you all)\b(?=.*\b(?:goodbye|bye)\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _BENIGN_FAREWELL.search(d.norm) is None
          and not _to_a_thing(d, j) and not re.search(  # eighth round: "logging off for good, too much drama on here"
              r"\b(?:on here|this (?:app|site|platform|account|server|forum|sub)|social media|twitter|instagram|tiktok|"
              r"reddit|discord|facebook|drama)\b", d.norm)),
    _Rule("decided_calm",
          rf"\b(?:do not|no point|no use|there is no point) (?:even )?(?:try|trying|bother|bothering) (?:to |in "
          rf"trying to )?talk(?:ing)? me out of it\b"
          rf"|\bnothing (?:you|anyone|anybody) (?:can |could )?(?:say|do) (?:will|can|could|is going to) (?:change|"
          rf"stop) (?:my mind|me)\b|\bthere is no (?:changing|going back)\b"
          rf"|\b(?:i know|i have accepted|accepted|at peace with|ok with|okay with|fine with) (?:what i (?:am going "
          rf"to|have to|need to|will) do|what is next|how (?:it|this) ends|what comes next)\b"
          rf"|\bsoon (?:none of (?:this|it)|nothing) will matter\b|\bsoon i (?:will not|wo not) have to (?:feel|"
          rf"hurt|suffer|deal with)\b"
          rf"|\bleav(?:e|ing) this (?:world|earth|life)\b|\bmade peace with (?:leaving|going|dying|it all)\b",
          "high", "warning_sign", mode="self", negatable=False,  # "stopped fighting" is no denial
          check=lambda d, m, i, j: _no_benign_reason(d) and _DECISION_BENIGN.search(d.norm) is None and not re.search(
              r"\b(?:exam|essay|homework|job|diet|recipe|game|match|season|series|book|movie|show|ending of|"
              r"the end of the (?:book|film|movie|show))\b", d.norm)),
    _Rule("given_for_good",
          rf"\b(?:gave|giving|given|give|left|leaving|handed) (?:away )?(?:{W} ){{0,6}}?(?:so (?:they|she|he|you) "
          rf"(?:will |can )?remember me|to remember me(?: by)?|and told (?:him|her|them) to remember me)\b"
          rf"|\b(?:it is|its|they are|he is|she is) (?:yours|theirs|his|hers) now(?: for good| forever)?\b"
          rf"(?=.*\b(?:gave|give|giving|have|take|keep)\b)"
          rf"|\b(?:gave|giving|given) (?:away )?my (?:{W} ){{0,3}}?to (?:{W} ){{1,4}}?(?:will|would|can|could) "
          rf"(?:take (?:better )?care of (?:him|her|them|it)|love (?:him|her|them|it) longer) (?:better |longer )?than "
          rf"i (?:can|could|will)\b",
          "high", "warning_sign", mode="self", check=lambda d, m, i, j: _no_benign_reason(d)),
    _Rule("arranged_for_after",
          rf"\b(?:tied up|tying up) (?:all )?(?:my )?loose ends\b|\b(?:my )?affairs (?:are|in) (?:all )?(?:in )?order\b"
          rf"|\b(?:whoever|someone|somebody|they|my family) (?:has|have|will have|needs to|will need to) (?:to )?"
          rf"(?:deal with|sort out|go through|clear out|close) my (?:stuff|things|affairs|room|belongings|accounts)\b"
          rf"|\b(?:for|after) (?:when )?i am (?:no longer (?:around|here)|not around (?:anymore|any more))\b"
          rf"|\b(?:songs?|music) (?:i want )?(?:played )?at my funeral\b|\bmy ashes\b"
          rf"|\b(?:if|in case) anything happens to me\b(?=.*\b(?:look after|take care of|kids|passwords|will|"
          rf"insurance|key|papers|dog|cat|in charge)\b)",
          "high", "warning_sign", mode="self", check=lambda d, m, i, j: _no_benign_reason(d) and not (
              "affairs" in m.group() and _AFFAIRS_BENIGN.search(d.norm))),
    _Rule("timeline_gone",
          rf"\bi (?:will|would) be gone (?:by|before|after|soon|tomorrow|tonight|next)\b"
          rf"|\bi (?:will|would) not be (?:here|around|alive) (?:when|by|next|after|to see|for much|much longer|long|"
          rf"this time next)\b"
          rf"|\b(?:i have|i have got|i only have|only|just) (?:a few|two|three|four|five|\d) (?:more )?(?:days|nights|"
          rf"weeks) left(?! (?:of|at|in|until|till|before)\b)"
          rf"|\byou (?:will not|wo not) have to (?:worry about|deal with|put up with) me (?:anymore|any more|after|"
          rf"for much longer|soon|much longer)\b"
          rf"|\b(?:do not|no) plan (?:on|to) (?:being|be) (?:alive|here|around) (?:next|after|by)\b",
          "high", "warning_sign", mode="self", check=lambda d, m, i, j: _no_benign_reason(d)),
    _Rule("burden_shapes",
          rf"\b(?:a|such a|just a|just|only a|nothing but a|dead) (?:weight|drain|waste of space|waste of oxygen|"
          rf"waste of air) (?:on|to|for) (?:everyone|everybody|my (?:family|mum|mom|dad|parents|partner|friends)|"
          rf"them|the people|people)\b|\b(?:i am|am|just|such) a waste of (?:space|oxygen|air)\b"
          rf"|\b(?:everyone|everybody|they|my (?:family|kids|parents|mum|mom|dad|partner|friends)|the world) (?:would|"
          rf"will) be (?:so much |much |a lot )?(?:better|happier|easier|free|freer|relieved|fine) (?:off )?(?:if i "
          rf"(?:was|were|am|had|just) (?:not|never|gone|dead|out)|without me)\b"
          rf"|\b(?:just|only|simply) by (?:existing|being alive|being here|being around)\b"
          rf"|\bfavou?r by (?:leaving|disappearing|going|dying|being gone)\b"
          rf"|\bmake (?:things|everything|everyones life|life) worse (?:for everyone )?(?:just )?by (?:being alive|"
          rf"existing|being here)\b",
          "medium", "hopelessness", mode="self", negatable=False),
    # ------------------ issue 21, round 2: shapes of each level written from the C-SSRS questions and public
    # warning-sign lists (not from any held-out message): a wish from outside, research, the act in progress,
    # a weapon or a stash at hand, an order for after, a date, a calm decision
    _Rule("wish_shapes",
          rf"\b(?:would |i would )?welcome (?:a |the )?(?:heart attack|death|car crash|crash|accident|bullet|end)\b"
          rf"|\b(?:waiting|ready|can not wait|longing|looking forward) (?:{TO}|for) (?:just )?(?:die|death|be dead|"
          rf"the day i (?:die|am (?:finally )?dead|do not wake up))\b"
          rf"|\b(?:jealous of|envy|envious of) (?:people who (?:get to )?die|the dead|dead people|(?:people|those) "
          rf"who (?:died|are dead))\b"
          rf"|\b(?:give anything|do anything) {TO} (?:just )?(?:not (?:be alive|exist|wake up)|be dead|die|stop "
          rf"existing)\b"
          rf"|\b(?:want|wish|need|wanna) (?:{TO} )?(?:just )?(?:be gone|be erased|not exist)(?= \||$| not| forever|"
          rf" for good| like i| gone| tbh| honestly| lol)"
          rf"|\b(?:want|wish|need) my life {TO} (?:just )?(?:be over|end|stop)\b"
          rf"|\b(?:never|not) (?:open|opened|opening) my eyes again\b"
          rf"|\b(?:hope|hoping|pray|praying|wish) (?:{W} ){{0,2}}?(?:the )?(?:cancer|illness|tumou?r|disease) (?:comes|"
          rf"would come|will come) back\b"
          rf"|\b(?:hope|pray|praying|hoping|wish) (?:{W} ){{0,3}}?(?:that )?(?:this|today|tonight|it) (?:is|will be|would be) my last "
          rf"(?:day|night|one|breath|birthday)\b"
          rf"|\b(?:mercy|blessing|relief|gift) if i (?:just )?(?:died|die|stopped breathing|did not wake up|never woke "
          rf"up)\b"
          rf"|\b(?:sad|disappointed|upset|angry|annoyed|gutted) (?:that )?i (?:made it|woke up|survived|am still "
          rf"(?:alive|here)|lived)\b(?! (?:at|in|on|early|late|before|after|until|till|so|with|for|to|waiting|instead|"
          rf"while|from|through|and (?:missed|forgot|was late))\b)"
          rf"|\b(?:fall asleep|sleep|drift off) (?:and stay asleep |and never wake up )?forever\b(?! (?:on|at|in|every|"
          rf"this|when|after|until|till|lol|haha|lmao|tomorrow|today|tonight|like)\b)",
          "high", "suicidal_ideation",
          check=_unless_media_or(
              r"\b(?:movie|game|match|exam|concert|holiday|vacation|weekend|show|season|party|trip|episode|release|"
              r"poem|story|character)\b")),
    _Rule("struck_welcome",
          rf"\b(?:if|hope|hoping|wish|pray) (?:that )?(?:{W} ){{0,4}}?(?:struck|strikes|hit|hits|ran over|runs over|"
          rf"shot|shoots|killed|kills|took|takes|ended|ends|collapsed on|collapses on|fell on|falls on|crushed|crushes) "
          rf"me\b",
          "high", "suicidal_ideation", mode="self", negatable=False,
          check=lambda d, m, i, j: re.search(r"\b(?:thanks|thank|grateful|fine|relief|relieved|happy|glad|mind|mad|"
                                             r"welcome|nice|honestly|tbh|hope|hoping|wish|pray)\b", d.norm) is not None
          and not re.search(r"\b(?:if you|if he|if she|if they|ball|punch|fist|sister|brother|mom|mum|dad|"
                            r"idea|thought|realization|song|laugh|laughing)\b", d.norm)),
    _Rule("ideation_shapes",
          rf"\b(?:suicide|killing myself|ending my life|ending it|dying|death) (?:keeps|keep|kept) (?:popping|coming|"
          rf"creeping|crawling) (?:into|back into) my (?:head|mind|thoughts)\b"
          rf"|\b(?:imagining|picturing|planning|rehearsing|visualising|visualizing) (?:my (?:own )?)?(?:ending it|"
          rf"suicide|death|killing myself|funeral)\b"
          rf"|\b(?:want|wanna|going|gonna|thinking about|thought about) {_gap(1)}(?:{TO} )?(?:off|offing|unalive|"
          rf"unaliving) myself\b"
          rf"|\b(?:intend|intending|intention is|intent is|mean|meant) {TO} (?:die|end (?:it|my life)|kill myself|"
          rf"take my (?:own )?life)\b",
          "high", "suicidal_ideation", mode="self"),
    # C-SSRS "thoughts about killing yourself": the thought named as a steady presence, or the how
    _Rule("ideation_on_mind",
          rf"\b(?:suicide|killing myself|ending my life|ending it(?: all)?|taking my (?:own )?life) (?:is|has been|"
          rf"have been|was|been) (?:on my mind|all i (?:can )?think about|stuck in my head)\b"
          rf"|\bthinking (?:a lot |so much |constantly |all the time )?about (?:how|ways) {TO} (?:end it|end my life|"
          rf"kill myself|take my (?:own )?life)\b",
          "high", "suicidal_ideation", mode="self"),
    _Rule("end_it_when",
          rf"\b(?:i am |am |im )?(?:end|ending) (?:it(?: all)?|things) (?:tonight|today|this weekend|tomorrow|"
          rf"right now|for real|"
          rf"for good)\b|\bi am ending it(?= \||$)",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:with (?:him|her|them)|relationship|boyfriend|girlfriend|bf|gf|"
                                                 r"break up|breaking up|subscription|contract|lease|streak|"
                                                 r"conversation|call|meeting|game|series|season|show|chapter)\b",
                                                 d.norm)),
    _Rule("method_shapes",
          rf"\blethal (?:doses|amounts?|combinations?|combo)\b"
          rf"|\b(?:deadly|lethal|fatal) (?:with|if mixed with|mixed with|combined with) (?:alcohol|booze|vodka|"
          rf"wine|beer)\b"
          rf"|\b(?:most |least |quickest |easiest |a )?painless (?:way|ways|method) (?:{TO} )?go\b"
          rf"|\b(?:bridges?|roofs?|rooftops?|buildings?|cliffs?|car parks?|overpass(?:es)?) (?:{W} ){{0,4}}?(?:no|"
          rf"without) (?:fences?|barriers?|nets?|railings?|guard rails?)\b"
          rf"|\b(?:use|using|with) (?:{W} ){{0,4}}?(?:pills|tablets|meds|rope|gun|knife|belt|cord|blade|razor) "
          rf"(?:{W} ){{0,4}}?{TO} (?:end it|end my life|kill myself|overdose)\b"
          rf"|\b(?:if|when) i (?:ever |finally )?do it (?:{W} ){{0,3}}?(?:with|using|by|from|off)\b"
          rf"|\b(?:balcony|bridge|ledge|roof|rooftop|cliff|tracks|pills|rope|window|edge|river|sea|gun|water) "
          rf"(?:{W} ){{0,5}}?(?:keeps|keep|is|are|been) calling (?:to )?(?:me|my name)\b"
          rf"|\b(?:googl\w*|research\w*|looked up|looking up|look up|reading about|read about|searched|searching) "
          rf"(?:{W} ){{0,6}}?(?:lethal|fatal|deadly|how to die|painless|helium|carbon monoxide|suicide methods?|ways "
          rf"{TO} die|how long it takes {TO} die|how (?:high|far|tall) (?:the drop|the fall|you need))\b"
          rf"|\b(?:step|stepping|stepped|jump|jumping|walk|walking|throw myself|throwing myself) in front of (?:a|the) "
          rf"(?:bus|train|truck|lorry|car|tram|subway|express)\b"
          rf"|\b(?:crash|crashing|drive|driving|swerve|swerving|steer|steering) (?:my car |the car )?(?:into|off) "
          rf"(?:a|the) (?:tree|wall|bridge|river|cliff|oncoming \w+|truck|barrier|pillar)(?: at (?:full speed|\d+)| on "
          rf"purpose| deliberately)\b"
          rf"|\b(?:would|will|could|can) (?:it|that|the \w+|this \w+) hold me\b"
          rf"|\b(?:it|that|the \w+|this \w+) (?:would|will|could|can) hold me\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not d.sentence_has(i, _TOPIC | _MEDIA) and not re.search(
              r"\b(?:game|video game|minecraft|fortnite|roblox|skydiv\w*|bungee|cliff div\w*|diving|pool|trampoline|"
              r"parkour|rescue|lifeguard|stunt|character|novel|story|cooking|recipe|mushrooms?|berries|snake|spider|"
              r"dog|cat|pet|plant|plants)\b", d.norm)),
    _Rule("fatal_question",
          rf"\b(?:is|would|are|will) (?:{W} ){{1,7}}?(?:always |definitely |certainly |usually )?(?:fatal|lethal|"
          rf"deadly|painless|instant|be quick|be enough to die)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: re.search(r"\b(?:jump|jumping|floor|storey|story|bridge|overdose|hanging|hang|"
                                             r"helium|train|drown|drowning|wall at|pills|gun|wrists?|fall|dose)\b",
                                             d.norm) is not None and _RULES_BY_NAME["method_shapes"].check(d, m, i, j)),
    _Rule("attempt_shapes",
          rf"\b(?:took|swallowed|downed|ate|have taken) (?:everything (?:i had|in the (?:cabinet|drawer|bottle|box|"
          rf"house))|the whole (?:blister pack|pack|packet|box|bottle|strip)|all (?:of )?the (?:pills|tablets|meds))\b"
          rf"|\b(?:rope|noose|belt|cord|scarf) (?:is )?(?:around|round) my neck\b"
          rf"|\b(?:waiting for|watching) the (?:train|express|bus|truck) (?:{W} ){{0,4}}?not {TO} (?:get on|board|"
          rf"catch)\b"
          rf"|\b(?:mixed|mixing|took|taking|washed down) (?:all )?(?:my |the )?(?:{W} )?{_DOSE_NOUN} (?:with|and) "
          rf"(?:the |a |half a |a whole )?(?:bottle|vodka|gin|whiskey|whisky|wine|rum|alcohol|booze)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not _other_contents(d, m) and not re.search(
              r"\b(?:view|views|photo|photos|pic|pics|selfie|sunset|sunrise|fix|fixing|repair|repairs|gutters?|"
              r"antenna|dish|paint|painting|cleaning|clean|wait for me|meet|meeting|concert|party|headache|"
              r"prescribed|doctor said|hangover|necklace|scarf is|costume|tie|cosplay|chilly|cold)\b", d.norm)),
    _Rule("place_now_shapes",
          rf"\b(?:i am|im|am) (?:sitting|standing|stood|sat|perched|hanging|leaning) (?:on|at|over|off|out of) "
          rf"(?:the |a |my )?(?:edge|ledge|railing|rail|roof|rooftop|bridge|cliff|tracks|train tracks|window|"
          rf"balcony)\b",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: _RULES_BY_NAME["on_the_place_now"].check(
              d, m, i, j)),
    _Rule("plan_shapes",
          rf"\b(?:the )?(?:date|day|time|place|spot) is (?:set|chosen|picked|decided|fixed)\b"
          rf"|\bdecided on (?:the )?(?:method|way|how|day|date|place|spot)\b"
          rf"|\b(?:it is|its|all|everything is|it is all|its all) (?:all )?arranged\b"
          rf"|\b(?:the how and the when|how and when|when and how|the when and the how|where and how) (?:are|is) "
          rf"(?:all )?(?:sorted|decided|set|planned|worked out|figured out)\b"
          rf"|\b(?:worked out|figured out|sorted out|planned out) (?:the |when |how |where )?(?:time|place|method|"
          rf"when|how|where)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: (_METHOD_CUE.search(d.norm) is not None or re.search(
              r"\b(?:do it|doing it|end it|ending it|ending my life|be gone|not come back|go through with it|kill "
              r"myself|die|overdose|just waiting|waiting for the day|happening|method)\b", d.norm) is not None)
          and not re.search(r"\b(?:wedding|party|trip|holiday|vacation|birthday party|surprise|dinner|date night|"
                            r"proposal|presentation|workout|diet|meeting|interview|camping|hike|move|moving|"
                            r"appointment|surgery|delivery|flight|match|game)\b", d.norm)),
    _Rule("prep_shapes",
          rf"\b(?:bought|got|ordered|picked up|purchased) (?:{W} ){{1,5}}?{TO} (?:end it|end my life|kill myself|"
          rf"do it with|die|overdose)\b"
          rf"|\b(?:with|next to|beside|and|under|by) my (?:suicide |goodbye )?note\b"
          rf"|\bto see if i (?:could|can|would) (?:do it|go through with it|jump|survive the fall)\b"
          rf"|\b(?:tried|trying|tested|testing|test) (?:the|my) (?:rope|noose|belt|cord|knot) (?:on|out)\b"
          rf"|\bset (?:everything|it all|it) up (?:in|at) the (?:garage|car|bathroom|attic|woods|closet|basement)\b"
          rf"(?=.*\b(?:tonight|tomorrow|when|ready|done|goodbye|sorry|rope|pills|hose|charcoal)\b)"
          rf"|\b(?:letter|note|letters|notes) (?:explaining why|saying why|for whoever finds me|to whoever finds "
          rf"me)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:camping|tent|boat|swing|climbing|gym|party|decorat\w*|"
                                                 r"present|gift|homework|class|teacher|school project|costume)\b",
                                                 d.norm)),
    _Rule("harm_shapes",
          rf"\b(?:keep|kept|been|started|start|stop|can not stop) (?:cutting|burning|scratching|hurting|hitting|"
          rf"punching|starving|biting)(?: myself| my (?:arms?|legs?|thighs?|wrists?|skin|stomach|hips?))?\b"
          rf"(?! (?:corners|back|down|out|class|school|the|a|an|my hair|hair|onions|coupons|costs|ties|the grass|himself|"
          rf"herself|themselves|him|her|them)\b)"
          rf"|\b(?:fresh|new|deep|open) (?:cuts|wounds|slashes|burns) (?:on|in|across) my\b"
          rf"|\b(?:cut|cutting|burned|burnt|burning|scratched|scratching|carved) my (?:arms?|legs?|thighs?|wrists?|"
          rf"skin|stomach|hips?|forearms?)\b(?! (?:on|with|while|by accident|accidentally|shaving|opening|when|in the "
          rf"kitchen)\b)"
          rf"|\b(?:sh ing|shing|self harming|selfharming|sh ed)\b"
          rf"|\b(?:hit|hitting|punch|punching|punched|slap|slapped|slapping|bite|biting|bit|hurt|hurting|starve|"
          rf"starving) myself (?:{W} ){{0,6}}?(?:when|until|till|so|because|as punishment|to punish|deserve|bleed|"
          rf"bled|bruise|bruised|red|raw)\b"
          rf"|\bto punish myself\b"
          rf"|\b(?:until|till|til) (?:it|they|my (?:skin|face|arms?|legs?|knuckles)) (?:bleeds?|bled|was raw|is raw|"
          rf"bruised|bruises)\b(?=.*\b(?:myself|on purpose|wanted it|deserve|punish)\b)",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:accident|accidentally|cooking|shaving|hair|grass|lawn|"
                                                 r"budget|paper|onion|onions|free|clean for|years clean|months clean|"
                                                 r"gym|workout|dance|running|sparring|boxing|karate|garden|"
                                                 r"gardening|wood|woodwork|carpentry|sunburn|sun|oven|stove|"
                                                 r"iron|bee|mosquito|itchy|eczema|rash|sandwich|diet|fasting)\b",
                                                 d.norm)),
    _Rule("means_shapes",
          rf"\b(?:i have|i have got|i got|got|i keep|keeping|i am keeping|there is|there are|i have a|i have the) "
          rf"(?:a |the |my |some |his |her |dads |my dads |a loaded |the loaded )?(?:{W} )?(?:knife|knives|gun|pistol|"
          rf"rifle|shotgun|rope|noose|blade|blades|razor|razors|pills|tablets|meds|stash|cord)\b (?:{W} ){{0,4}}?"
          rf"(?:right here|here with me|next to me|in front of me|with me|on me|in my (?:room|car|bag|backpack|"
          rf"drawer|pocket|wallet|hand|lap)|hidden|ready|just in case|in case|loaded|unlocked|in the house)\b"
          rf"|\b(?:gun|safe|cabinet|rifle|pistol) (?:{W} ){{0,6}}?(?:i know the (?:code|combination)|is unlocked|"
          rf"the key is)\b"
          rf"|\b(?:bought|got|picked up|ordered) (?:a lot of|lots of|loads of|a ton of|extra|so many|several "
          rf"(?:boxes|packs|bottles) of|\d+ (?:boxes|packs|packets|bottles) of) (?:{W} )?{_DOSE_NOUN}\b"
          rf"|\b(?:\d+|a hundred|hundreds of|dozens of) (?:{W} )?{_DOSE_NOUN} (?:saved|stashed|hidden|stored|put away|"
          rf"collected|saved up)\b"
          rf"|\b(?:saving|saved|collecting|collected|hoarding|hoarded|stockpiling|stockpiled|stocking up on|stocked up "
          rf"on) (?:up )?(?:all )?(?:my |on |the )?(?!(?:her|his|their|your) )(?:{W} )?{_DOSE_NOUN}\b"
          rf"|\bloaded (?:gun|pistol|rifle|shotgun)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: not re.search(
              r"\b(?:kitchen|cooking|chef|steak|hunting season|hunt|range|shooting range|camping|tent|fishing|"
              r"shaving|shave|barber|prescribed|pharmacist|doctor said|trip|holiday|travel|organiser|organizer|"
              r"refill|police|cop|officer|security|army|soldier|museum|collection|antique|toy|nerf|water gun|"
              r"glue gun|nail gun|airsoft|paintball|craft|crafts|climbing|sailing|boat|gym|skipping|jump rope|"
              r"headache|migraine|cold|flu|period cramps|cramps|first aid|kit|patient|patients|client|clients|"
              r"nurse|pharmacy tech|disposal|dispose|safe disposal|pharmacy|chopping|chop|onions?|vegetables|veg|curry|dinner|meal|slicing|carving the|"
              r"turkey)\b", d.norm)),
    _Rule("farewell_shapes",
          rf"\b(?:wanted|want|just wanted|needed) {TO} (?:say|tell (?:you|everyone)) goodbye\b"
          rf"|\b(?:the )?last thing i (?:will )?(?:ever )?(?:say|write|tell|send) (?:to )?(?:you|anyone|anybody)\b"
          rf"|\b(?:it was|its been|it has been|been) (?:nice|good|great|an honou?r|a pleasure|lovely) knowing (?:you|"
          rf"ya|u|all of you|everyone)\b"
          rf"|\bi (?:will|would) not be (?:around|here) (?:anymore|any more|much longer|after (?:tonight|today))\b"
          rf"|\bsaying goodbye to (?:everyone|everybody|all of you|my family|the people i love)\b"
          rf"|\byou (?:mattered|meant (?:a lot|so much|the world|everything)) to me\b(?=.*\b(?:goodbye|bye|thank|"
          rf"remember|sorry|forgive)\b)"
          rf"|\b(?:sorry|forgive me) (?:that )?i (?:could not|was not|could never|was never) (?:be )?(?:stronger|"
          rf"strong enough|enough|better)\b(?=.*\b(?:goodbye|bye|forgive|remember)\b)"
          rf"|\bthank (?:you|u) before i go\b|\bone last (?:thing|time)\b(?=.*\b(?:thank|goodbye|bye|love you|"
          rf"sorry)\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _BENIGN_FAREWELL.search(d.norm) is None),
    _Rule("giving_shapes",
          rf"\b(?:been |am |i am )?giving (?:away )?(?:all )?my (?:things|stuff|belongings|possessions|clothes|"
          rf"books|records|games)(?: away)?\b"
          rf"|\bi (?:want|would like) (?:you|my \w+|him|her|them) {TO} (?:have|keep) my\b"
          rf"|\b(?:keep|have) (?:it|them|my \w+) forever\b"
          rf"|\b(?:do not|no longer|will not|wo not) need (?:my|any of my|all my) (?:things|stuff|belongings|"
          rf"possessions)\b"
          rf"|\bsigned (?:my|the) (?:car|house|flat|truck|bike|savings) over\b"
          rf"|\b(?:need|needing|use for|use) (?:{W} ){{0,3}}?where i am (?:going|headed|heading)\b"
          rf"|\bcan have my (?:{W} ){{1,3}}?(?:i am done with|i do not need|no use|i will not need|i wo not need|i "
          rf"have no use)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and not re.search(
              r"\b(?:old|spare|extra|outgrown|grown out|too small|too big|upgrade|new one|replaced|declutter\w*|"
              r"goodwill|donat\w*|sale|selling|sold|marie kondo|spring clean\w*|minimalis\w*|borrow|lend|lending|"
              r"secret|promise|recipe|password)\b", d.norm)),
    _Rule("arrange_shapes",
          rf"\b(?:who|whoever) (?:should |will |gets? to |is going to |can )?(?:take|takes|get|gets|look after|"
          rf"looks after|adopt|have|keep) my (?:pets?|dog|cat|kids|children|fish|rabbit|bird|hamster|plants)\b"
          rf"|\b(?:instructions|music|songs|plans|wishes|outfit) for my (?:own )?funeral\b"
          rf"|\b(?:planning|planned|chose|chosen|picked) (?:the )?(?:music|songs|readings|flowers) (?:for|at) my "
          rf"(?:own )?funeral\b"
          rf"|\b(?:where to find|a copy of) my will\b"
          rf"|\b(?:changed|updated|rewrote|finished|made) my will\b(?=.*\b(?:everything|all|gets|goes|this week|"
          rf"yesterday|today|so)\b)"
          rf"|\b(?:if|in case) (?:anything|something) (?:happens|were to happen|should happen) to me\b(?=.*\b(?:please|"
          rf"look after|take care|kids|children|passwords|will|insurance|dog|cat|pets?)\b)"
          rf"|\b(?:in order|sorted|arranged|taken care of|organised|organized) for (?:after|afterwards|when i am "
          rf"(?:gone|not here|not around))\b"
          rf"|\bmade arrangements for (?:my|the) (?:kids|children|dog|cat|pets?|family)\b"
          rf"|\bso (?:nobody|no one|my family|they|my kids) (?:inherits|has to pay|has to deal|have to deal|have to "
          rf"pay|is left with)\b"
          rf"|\bfor whoever (?:takes|gets|finds|looks after)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and not re.search(
              r"\b(?:baby|newborn|pregnant|lawyer|solicitor|mortgage|married|wedding|good practice|advice|tips|"
              r"adult thing|grown up|financial advisor|estate planning|retire\w*|sitter|petsit\w*|kennel|"
              r"while i am (?:away|at|on|in)|holiday|vacation|trip|weekend away|hospital stay|surgery|deployment|"
              r"deployed)\b", d.norm)),
    _Rule("burden_more",
          rf"\b(?:i )?(?:only|just|always) (?:cause|because|bring|make|create) (?:problems|trouble|pain|misery|stress|"
          rf"everything worse) (?:for|to) (?:everyone|everybody|my family|people|the people i love|them)\b"
          rf"|\b(?:people|nobody|no one|everyone|everybody|they|my (?:family|friends|parents|kids|partner|wife|"
          rf"husband)) (?:would|will) be (?:so |so much |a lot )?(?:relieved|glad|happier|better off|fine|free)"
          rf" (?:if i (?:was|were|am) (?:gone|dead|not here|not around)|when i am gone|if i (?:disappeared|"
          rf"vanished|died))\b"
          rf"|\b(?:easier|better|simpler|happier|lighter) for (?:everyone|everybody|them|my family|all of them) if i "
          rf"(?:was|were|did|just|am) (?:not|never|gone|dead|disappeared)\b"
          rf"|\bin (?:everyones|everyone s|everyone|everybodys|everybody) way\b|\bin the way of everyone\b",
          "medium", "hopelessness", mode="self", negatable=False,
          check=lambda d, m, i, j: not re.search(r"\b(?:used to think|used to feel|no longer|not anymore|"
                                                 r"therapist helped|know now)\b", d.norm)),
    _Rule("timeline_more",
          rf"\bi (?:will|would) not be (?:a problem|a burden|your problem|anyones problem|in (?:the|your|anyones) "
          rf"way) (?:anymore|any more|much longer|for long|after|soon)\b"
          rf"|\b(?:tonight is|today is|tonights|todays|this is) (?:the|my) (?:very )?last (?:night|day)\b(?! at\b| of "
          rf"(?:work|school|term|the|my|this|our)\b| in the office\b| before\b| with\b| as\b| here\b)"
          rf"|\bnone of (?:this|it) will matter (?:by|after|soon|tomorrow|next|anymore)\b"
          rf"|\bby (?:tomorrow|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|the "
          rf"weekend) none of (?:this|it) will matter\b"
          rf"|\bi (?:will|would) not be (?:here|around) (?:to (?:bother|annoy|bug|burden|bore)|anymore|any more)\b"
          rf"|\bi (?:will|would) not (?:see|make it to|live to see) (?:next|the end of|another) (?:year|month|week|"
          rf"christmas|birthday|summer|spring|winter)\b"
          rf"|\bi am not going to be (?:here|around|alive) (?:after|by|next|for)\b"
          rf"|\b(?:all )?(?:going to|gonna|will) (?:all )?be over (?:soon|tonight|tomorrow|by)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and not re.search(
              r"\b(?:lease|contract|job|shift|semester|term|season|show|series|game|match|exam|exams|diet|"
              r"internship|school|class|course|project|deadline|flu|cold|storm|winter|pain|hangover|headache|"
              r"visit|stay|in town|at the office|at work|on call)\b", d.norm)),
    _Rule("decided_more",
          rf"\b(?:it is|its) (?:already )?decided(?= \||$| there| no| nothing| so)"
          rf"|\bnothing (?:will|can|is going to|could) change my mind\b"
          rf"|\b(?:not scared|not afraid|at peace|calm|ready) (?:anymore |any more |now )?(?:{W} ){{0,3}}?i know "
          rf"what i am doing\b"
          rf"|\b(?:i have )?accepted it (?:{W} ){{0,3}}?(?:it is|its) time\b|\b(?:it is|its) time(?= \||$)(?=.*\b(?:accepted|ready|"
          rf"peace|decided|goodbye)\b)"
          rf"|\bi (?:have )?found (?:a|my|the) way out\b(?! of (?:the|this) (?:maze|building|room|level|game|"
          rf"cave|forest|parking))"
          rf"|\b(?:calm|peace|relief|relieved|clear|light) (?:{W} ){{0,6}}?(?:it will|it is going to|it is gonna|"
          rf"everything will|it will all) (?:all )?be over\b",
          "high", "warning_sign", mode="self", negatable=False,
          check=lambda d, m, i, j: _no_benign_reason(d) and not re.search(
              r"\b(?:exam|essay|homework|job|diet|recipe|game|match|season|series|book|movie|show|surgery|"
              r"procedure|interview|test|results|puzzle|bug|code|maze|escape room)\b", d.norm)),
    _Rule("attempt_more",
          rf"\b(?:pills|meds|tablets|it) (?:are|is) (?:kicking in|starting to work|working now)\b"
          rf"|\b(?:took|swallowed|downed|drank|taken) (?:a |the )?(?:full|whole|entire) (?:pack|packet|box|bottle|strip|"
          rf"blister pack) of\b"
          rf"|\b(?:halfway|climbing|climbed|leaning|hanging) (?:over|off) the (?:railing|rail|edge|barrier|fence|ledge|"
          rf"side)\b"
          rf"|\b(?:tried|trying|try) {TO} (?:strangle|hang|drown|suffocate|poison|electrocute|smother) myself\b"
          rf"|\bjumped (?:in|into|off) (?:the|a) (?:river|bridge|sea|lake|building|roof|canal)\b(?=.*\b(?:pulled me|"
          rf"survived|woke up|rescued|still here|did not work)\b)"
          rf"|\bwent too far this time\b|\b(?:in|into) the (?:bath|tub|bathtub) with (?:the|a|my) (?:razor|blade|knife)\b"
          rf"|\bi did it\b(?=.*\b(?:took|pills|swallowed|overdose|cut|goodbye|too late)\b)",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: not _other_contents(d, m)),
    _Rule("harm_more",
          rf"\b(?:cuts|burns|slashes) (?:on|all over|across|up and down) my (?:arms?|legs?|thighs?|wrists?|stomach|"
          rf"body)\b|\bcovered in (?:cuts|burns|fresh scars)\b"
          rf"|\bso i (?:cut|hurt myself|burn myself|burned myself|hit myself)\b"
          rf"|\b(?:burn|burned|burnt|burning) myself with (?:the|a|my) \w+"
          rf"|\b(?:took|take|taking) (?:a|the|my) (?:razor|blade|knife|scissors) to my\b"
          rf"|\b(?:bang|banging|banged|hit|hitting|slam|slamming) my head (?:on|against|into) (?:the )?(?:wall|floor|"
          rf"door|desk)\b"
          rf"|\bdigging my nails into\b|\b(?:picking|pick|picked) at (?:the|my) (?:wounds|cuts|scabs)\b"
          rf"|\b(?:need|needed|want) {TO} feel (?:the )?pain\b",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:accident|accidentally|cooking|oven|stove|iron|curling iron|"
                                                 r"straighteners? (?:slipped)|sunburn|tattoo|gym|workout|massage|"
                                                 r"dentist|cupboard|low ceiling|doorframe|door frame|clumsy|tripped|slipped|"
                                                 r"aloe|bbq|barbecue|pan|kettle|campfire|bonfire|fireworks?|burn cream|"
                                                 r"banged my head on the "
                                                 r"(?:cupboard|shelf|car))\b", d.norm)),
    _Rule("burden_more2",
          rf"\b(?:holding|hold|drag|dragging|pulling|pull|bring|bringing) (?:everyone|everybody|them|my family|"
          rf"people) (?:back|down)\b"
          rf"|\b(?:deserves?|deserved) (?:so much )?better than (?:me|a wreck like me|someone like me|a mess like me)\b"
          rf"|\b(?:easier|less stress|less trouble|less worry|better|happier|lighter) (?:{W} ){{0,3}}?without me\b"
          rf"|\b(?:happier|better off|fine|relieved|free) if i (?:just )?(?:disappeared|vanished|was gone|were gone|"
          rf"was not (?:here|around))\b"
          rf"|\ba problem for (?:everyone|everybody|my family|them)\b",
          "medium", "hopelessness", mode="self", negatable=False,
          check=lambda d, m, i, j: not re.search(r"\b(?:used to think|used to feel|no longer|not anymore|"
                                                 r"therapist helped|know now|team|game|match|project|trip|party)\b",
                                                 d.norm)),
    _Rule("warning_more",
          rf"\bi (?:will|would) not be (?:here|around|alive) (?:tomorrow|tonight|by (?:tomorrow|morning|monday|"
          rf"friday|the weekend))\b"
          rf"|\b(?:next week|soon|after (?:tonight|today|this|friday|sunday)) you (?:will not|wo not) have to worry "
          rf"about me\b|\b(?:do not|dont) make (?:any )?plans with me\b"
          rf"|\bmy decision is (?:final|made)\b|\bat peace with (?:my|the) decision\b"
          rf"|\b(?:do not|please do not|dont) (?:try to )?stop me\b"
          rf"|\bsoon i (?:will not|wo not) (?:feel|be) (?:anything|a thing|in pain)\b"
          rf"|\bplease forgive me\b(?=.*\b(?:love|goodbye|bye|sorry)\b)|\b(?:love|loved) (?:you all|all of you|you)"
          rf"\b(?=.*\bplease forgive me\b)"
          rf"|\bthanks? (?:you )?for being my friend\b(?=.*\b(?:goodbye|bye)\b)"
          rf"|^remember me$|\btake care of my (?:mum|mom|dad|kids|children|dog|cat|sister|brother) for me\b"
          rf"|\bhear it from me first\b(?=.*\bgoodbye\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _BENIGN_FAREWELL.search(d.norm) is None),
    _Rule("giving_more",
          rf"\b(?:gave|give|given|left|leaving) (?:away )?(?:all )?my (?:{W} ){{0,2}}?(?:to|away)\b(?=.*\b(?:better than i "
          rf"(?:could|can|ever)|for good|will not need|wo not need|not need|no use|who will be around|(?:someone|"
          rf"somebody) who will be around|should have it now|he should have|she should have|i will not be)\b)"
          rf"|\b(?:handing|giving) out my (?:stuff|things|belongings)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and not re.search(
              r"\b(?:old|spare|extra|outgrown|grown out|too small|too big|upgrade|new one|replaced|declutter\w*|"
              r"goodwill|donat\w*|sale|selling|sold|borrow|lend|lending|while i am)\b", d.norm)),
    _Rule("arrange_more",
          rf"\b(?:who should get what|who gets what)\b|\bleft (?:instructions|a list|notes) (?:with|for) (?:my|the)\b"
          rf"|\bfuneral is (?:planned|arranged|paid for|sorted)\b|\bclosed (?:all )?my (?:accounts|bank accounts)\b"
          rf"(?=.*\b(?:cancelled|canceled|subscriptions|everything)\b)"
          rf"|\b(?:the kids|my kids|the children|my children|my dog|my cat|the dog|the cat|my pets) (?:will|are going "
          rf"to) (?:go to|live with|stay with|be looked after)\b(?=.*\b(?:arranged|sorted|made sure|for good|"
          rf"after)\b)"
          rf"|\bmade sure (?:my|the) (?:dog|cat|pets?|kids|children|fish) (?:will be|are|is) (?:looked after|taken "
          rf"care of|fed)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and not re.search(
              r"\b(?:sitter|petsit\w*|kennel|while i am|holiday|vacation|trip|weekend|work|shift|hospital stay|"
              r"surgery|divorce|custody|school|nursery)\b", d.norm)),
    _Rule("method_more",
          rf"\b{_DOSE_NOUN} (?:is|are) (?:fatal|lethal|deadly)\b"
          rf"|\bwould (?:\d+|all|all of) (?:my |the )?(?:{W} )?{_DOSE_NOUN} (?:do it|kill me|be enough)\b"
          rf"|\b(?:easier|quicker|better|faster|surer) {TO} (?:jump|hang|overdose|drown|shoot) or (?:{TO} )?(?:jump|"
          rf"hang|overdose|drown|shoot|use)\b"
          rf"|\b(?:tracks|bridge|ledge|pills|rope|gun|knife|blade) (?:{W} ){{0,4}}?(?:looking|look|looks|seem|seems|"
          rf"seeming) (?:real |so |really |very )?(?:tempting|inviting)\b"
          rf"|\b(?:going to|gonna|will) (?:jump|hang myself|shoot myself) (?:tonight|today|now|later|tomorrow)\b"
          rf"|\bdrink myself {TO} death\b|\b(?:going to|gonna|will) (?:swallow|take) (?:all|every one) of them\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not d.sentence_has(i, _TOPIC | _MEDIA) and not re.search(
              r"\b(?:dog|cat|pet|puppy|kitten|bungee|skydiv\w*|pool|lake for a swim|parachute|trampoline|"
              r"recipe|cake|diet)\b", d.norm)),
    _Rule("explicit_more",
          rf"\b(?:legs|feet) (?:dangling )?(?:over|off) the (?:side|edge|railing|rail|ledge)\b"
          rf"|\balready (?:swallowed|took|taken|drank|downed) (?:them|it all|the pills|all of them|everything)\b"
          rf"|\bswallowed all (?:of )?my \w+\b(?! (?:pride|words|feelings|anger|tears))"
          rf"|\b(?:took|swallowed|downed|taken) (?:like |about |maybe |over )?(?:[1-9]\d|1\d\d) (?!mg|ml|mcg|minutes|"
          rf"mins|seconds|steps|photos|pics|tries)(?:{W} )?{_DOSE_NOUN}\b"
          rf"|\b(?:car|engine) is (?:still )?running\b(?=.*\bgarage\b)"
          rf"|\boverdosed (?:{W} ){{0,3}}?(?:ago|earlier|tonight|today|just now)\b"
          rf"|\b(?:cord|rope|belt|noose|rail|beam) (?:snapped|broke|gave way)\b"
          rf"|\b(?:i am|im) (?:on|at) the (?:ledge|edge of the (?:roof|cliff|bridge|building|platform))\b"
          rf"|\bi am standing at the edge\b(?=.*\b(?:cliff|cliffs|bridge|roof|building)\b)",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:swing|hammock|climb\w*|tent|boat|dock|pier|pool|view|"
                                                 r"views|photo|selfie|fishing|prescribed|doctor|vitamins?|"
                                                 r"tow|towing|washing line|clothesline|laundry|dog lead|leash)\b",
                                                 d.norm)),
    _Rule("harm_more2",
          rf"\bsince i last (?:cut|self harmed|hurt myself|burned myself|burnt myself)\b(?=.*\b(?:want|urge|need|"
          rf"so bad|again)\b)"
          rf"|\bend up (?:cutting|hurting myself|burning myself|scratching myself)\b"
          rf"|\b(?:scratches|cuts|marks|burns|bruises) (?:on|across) my \w+ (?:are|were) from me\b"
          rf"|\b(?:burn|burned|burnt|cut|hit|scratch|scratched|bruise|bruised) my (?:hands?|arms?|legs?|thighs?|"
          rf"wrists?|skin|stomach|face) on purpose\b"
          rf"|\b(?:use|used|using) (?:a|the|my) (?:compass|razor|blade|knife|scissors|sharpener|lighter|needle) {TO} "
          rf"(?:cut|hurt|burn|scratch) myself\b"
          rf"|\bbit (?:my )?(?:arm|hand|wrist|lip|skin) (?:until|till|til) it bled\b",
          "high", "self_harm", mode="self"),
    _Rule("wish_more",
          rf"\b(?:wish|want|need) (?:i could |to )?(?:just )?stop waking up\b"
          rf"|\bif i died (?:{W} ){{0,3}}?i (?:would|will) be (?:relieved|fine|happy|glad|grateful|okay|ok)\b"
          rf"|\b(?:happy|glad|relieved|grateful) if i (?:got|get) (?:hit|run over|killed|shot)\b"
          rf"|\bhope (?:my heart|my lungs|my body) (?:just )?(?:stops|gives out|gives up|fails)\b"
          rf"|\bpraying (?:for|that i get) (?:a )?(?:car crash|heart attack|accident|fatal|terminal|death)\b"
          rf"|\b(?:nice|better|easier|good) if i (?:just )?(?:did not|didnt|never) exist(?:ed)?\b"
          rf"|\b(?:want|wish|wanna|need) {TO} (?:just )?not be here (?:anymore|any more|at all)\b"
          rf"|\b(?:would|i would) rather not be alive\b|\bfade away forever\b"
          rf"|\b(?:seems|feels|is|looks) like the (?:answer|solution|only way|only option|best option)\b"
          rf"(?=.*\b(?:dying|death|kill|killing|suicide|end|ending|dead)\b)"
          rf"|\b(?:dying|death|killing myself|suicide|ending it|ending my life) (?:seems|feels|is|looks) like the "
          rf"(?:answer|solution|only way|only option|best option)\b",
          "high", "suicidal_ideation",
          check=_unless_media_or(
              r"\b(?:movie|game|exam|concert|holiday|vacation|show|season|party|trip|poem|story|character|wifi|"
              r"traffic|meeting|lecture|work|job|monday|mondays|class|homework|math|maths)\b")),
    _Rule("method_more2",
          rf"\bhow much (?:{W} ){{0,3}}?would be (?:lethal|fatal|deadly|enough)\b"
          rf"|\bdoes (?:hanging|drowning|overdosing|jumping|bleeding out|slitting \w+ wrists) (?:hurt|take long|work)\b"
          rf"|\b(?:height|floor|dose|amount|drop) would (?:guarantee|be enough|do it)\b"
          rf"|\b(?:imagining|picturing|thinking about|thinking of|fantasi[sz]ing about) (?:jumping off|jumping in front "
          rf"of|hanging myself|overdosing|slitting my|swallowing all|driving into|drowning myself)\b"
          rf"|\bdo it (?:on|this|next) \w+ when (?:my|everyone|everybody|nobody|no one)\b"
          rf"|\b(?:a|the) (?:date|day|time) and (?:a|the) (?:method|way|plan|place)\b"
          rf"|\b(?:buying|bought|collecting|getting) (?:{W} )?{_DOSE_NOUN} every (?:day|week|time)\b"
          rf"|\b(?:note|letter|letters) (?:is |are )?(?:written|ready|done|sealed)\b(?=.*\b(?:pills|rope|gun|"
          rf"ready|tonight|goodbye)\b)"
          rf"|\bto see how (?:high|far|deep|tall) (?:it is|the drop is|the fall is)\b"
          rf"|\btake every (?:pill|tablet|one of my pills) (?:i have|in the house|i own)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not d.sentence_has(i, _TOPIC | _MEDIA) and not re.search(
              r"\b(?:bungee|skydiv\w*|pool|diving|dive|zipline|climb\w*|hike|hiking|view|photo|party|wedding|"
              r"trip|holiday|vitamins?|prescribed|thank you|cards?|essay|homework)\b", d.norm)),
    # --------------------------------- issue 21, fourth round: from the C-SSRS screener's wording and the
    # public-health farewell signs (goodbyes as if for the last time, thanks for a whole relationship, "don't
    # blame yourself", orders for after), not from any held-out message
    _Rule("wish_signs",
          rf"\bwhy (?:could not|did not|can not) i (?:just )?(?:have )?(?:died|die|been stillborn|never been born|not "
          rf"been born)\b"
          rf"|\b(?:evaporate|vanish|disappear|fade away|dissolve|melt away) and (?:nobody|no one|noone|no body) "
          rf"(?:would|will|could|would ever|will ever) (?:even )?(?:remember|notice|miss|care|look for)\b"
          rf"|\b(?:wish|want|wanna|need) (?:i could |{TO} )?(?:just )?(?:evaporate|dissolve|melt away|vanish|disappear|"
          rf"fade away) (?:forever|for good|permanently|and never (?:come back|return|be seen again|be found))\b",
          "high", "suicidal_ideation", mode="self",
          check=_unless_media_or(
              r"\b(?:until|till|meeting|class|lecture|party|exam|weekend|holiday|lol|lmao|haha\w*)\b")),
    _Rule("attempt_signs",
          r"\b(?:made|make|making) (?:an |another |a second |a )?(?:suicide )?attempt on my (?:own )?life\b(?! (?:savings|insurance|story|work|hard)\b)"
          r"|\battempted (?:to take )?my (?:own )?life\b",
          "high", "suicide_plan", mode="self"),
    _Rule("farewell_signs",
          rf"\b(?:wanted|want|needed) (?:you|u) to be the last (?:person|one) i (?:talk|talked|speak|spoke|text|"
          rf"texted|hear|heard)\b"
          rf"|\b(?:last|final) time (?:we|we will|you and i|you and me) (?:ever )?(?:talk|speak|chat|text)\b"
          rf"|\b(?:whatever|no matter what) happens(?: to me| tonight| next)? (?:\| )?(?:it is|its|it was|it will) "
          rf"(?:not|never) (?:be )?(?:your|anyones|anyone s) fault\b"
          rf"|\bsorry for everything(?: i (?:have )?(?:put you through|done|did|caused))?(?= \||$)(?=.*\b(?:take care|"
          rf"goodbye|bye|love (?:you|u)|remember me|forgive me|thank you)\b)"
          rf"|\b(?:thank you|thanks|thank u|thx) for (?:putting up with me|being my friend|being (?:there|here) for me|"
          rf"always being there|everything you (?:have )?(?:ever )?done for me)\b(?=.*\b(?:all these years|for so "
          rf"long|all this time|through it all|it is time|its time|goodbye|bye|i love (?:you|u)|for the last time)\b)"
          rf"|\bplease (?:always )?remember (?:that )?i (?:love|loved) (?:you|u)(?: all| guys| so much| always| forever)?"
          rf"(?= \||$)"
          rf"|\blove (?:you|u) all (?:\| )?(?:please )?(?:always )?remember (?:that|this|it)(?= \||$)"
          rf"|\b(?:so )?this is it(?= \|)(?=.*\b(?:thank you|thanks|thank u|goodbye|bye|love (?:you|u)|sorry)\b)"
          rf"|\b(?:goodbye|bye) (?:everyone|everybody|all|all of you|world|guys) (?:\| )?(?:it|its|it has|it was) "
          rf"(?:been )?(?:real|a good run|a ride|fun while it lasted)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _BENIGN_FAREWELL.search(d.norm) is None),
    # the imperative carries its own "do not": negation is read before it, not inside it
    _Rule("farewell_dont",
          rf"\b(?:do not|please do not|try not to) (?:be sad|cry|blame yourself|be angry|be mad|hate me|feel guilty) "
          rf"(?:when|after|once|if) (?:you )?(?:find out|hear|they tell you|it happens|i am gone|i go|i do it)"
          rf"(?= \||$| okay| ok| please| i love| that i| what i| about me)"
          rf"|\b(?:do not|please do not) (?:worry|cry) (?:about|for) me (?:after (?:today|tonight|this)|anymore|any "
          rf"more|ever again)\b(?=.*\bi will (?:finally )?be (?:at peace|free|gone|okay now|ok now)\b)",
          "high", "warning_sign", mode="self", negatable=False,
          check=lambda d, m, i, j: _BENIGN_REASON.search(d.norm.replace("be at peace", "be peaceful")) is None
          and _BENIGN_FAREWELL.search(d.norm) is None and not _negated(d.before(i, 3))),
    # a goodbye beyond this life ("see you on the other side"): "see you" here is no goodbye for now
    _Rule("farewell_beyond",
          rf"\bsee (?:you|u|ya|you all|yall) (?:on the other side|in (?:another|the next|a better|my next) (?:life|world|"
          rf"place)|in heaven|up there)\b(?! of\b| after\b| when\b)"
          rf"|\bi will (?:always )?be watching over (?:you|u|all of you|everyone|my (?:{W} )?{W})\b(?= from| \||$| always| now)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _BENIGN_FAREWELL.search(
              d.norm[:m.start()] + d.norm[m.end():]) is None and not re.search(
              r"\b(?:exam|exams|game|match|shift|week|surgery|operation|flight|trip|party|move|semester|finals|"
              r"deadline|dentist|wedding|meeting|interview)\b", d.norm)),
    # --------------------------------- issue 21, fifth round: the grammar of explicit risk (C-SSRS intent, plan,
    # method questions, preparatory behaviour, self-harm ongoing), each family written as a grammar with a slot,
    # not as a message; every row has an example and a hard negative of the same surface in
    # tests/test_crisis_round5.py
    # intent: first person + a decided modality + not surviving / not waking ("every intention of not surviving")
    _Rule("intent_not_survive",
          rf"\b(?:every|full|firm|clear|real) intention of (?:not (?:surviving|making it|waking up|coming back|being "
          rf"(?:alive|here|around))|dying|ending (?:it|my life)|killing myself)\b"
          rf"|\b(?:intend|intending|plan|planning|mean|meaning|determined|decided) (?:{TO} )?(?:make sure (?:that )?i )?"
          rf"(?:not|never) (?:survive|surviving|make it|wake up|come back|be (?:alive|here|around))\b"
          rf"(?! (?:to|in time|on time|through the|out of|without|before|until|till|til|early|at|for|late|in the "
          rf"morning)\b)"
          rf"|\bnot (?:going {TO}|gonna) (?:survive|make it through) (?:this|tonight|the (?:night|weekend|week))\b"
          rf"(?=.*\b(?:see to it|make sure of it|i will make sure|i have decided|i mean it|on purpose)\b)",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: _EVERYDAY_TASK.search(d.norm) is None),
    # plan: a place or time slot + "I will" + the act ("that is where I will end it", "I will end it on friday")
    _Rule("slot_then_act",
          rf"\b(?:that is|this is|there is|here is|thats|that will be) (?:where|when|how) i (?:will|am going to|am "
          rf"gonna|plan to|am planning to|intend to|want to|would|am) (?:finally |just )?(?:end it|end it all|end my "
          rf"life|kill myself|take my (?:own )?life|die|do it|jump|go through with it)\b"
          rf"|\bi (?:will|am going to|am gonna) (?:just |finally )?end (?:it|it all|my life) (?:there|then|on "
          rf"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the \w+)|at the \w+|in the (?:woods|garage|"
          rf"car|bath|bathroom|river|sea|lake)|after (?:work|payday|that|the \w+)|once (?:everyone|everybody|they|he|she)|"
          rf"when (?:everyone|everybody|they|he|she|nobody|no one)|this (?:weekend|week|friday|saturday|sunday)|next "
          rf"(?:week|weekend|month)|tonight|tomorrow|today|soon)\b",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: _slot_check(d, m)),
    # plan: "going to drive up to <place> (<time>) and jump": a journey, then a lethal act, in one clause
    _Rule("go_and_act",
          rf"\b(?:going {TO}|gonna|will|plan {TO}|planning {TO}|about {TO}|want {TO}|i am|i would) (?:just )?(?:go|drive|"
          rf"walk|head|take the car|take a taxi|get the train|get a train|ride|cycle|climb|go back) (?:{W} ){{0,10}}?"
          rf"(?:and|then|to) (?:just )?(?:jump(?: off| from)?|end it(?: all)?|end my life|kill myself|throw myself "
          rf"(?:off|in front of)|step (?:off|in front of)|drive (?:off|into) (?:the |a )?(?:edge|cliff|bridge|quarry|"
          rf"river|sea|lake|wall|tree|barrier|overpass))(?= \||$| (?:the|a|it|tonight|today|tomorrow|then|when|once|"
          rf"after|is|its|for good|for real)\b)",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: _BENIGN_JUMP.search(d.norm) is None),
    # method: a self-directed lethality question (how high / which way hurts least / is hanging painful)
    _Rule("lethality_question",
          rf"\bhow (?:high|tall|far|deep|long|much|many|hard) (?:{W} ){{1,12}}?(?:fatal|lethal|deadly|certain death|"
          rf"instant death|guaranteed|{TO} (?:die|not survive|kill (?:you|me|someone|a person)))\b"
          rf"|\b(?:which|what) (?:way|method|kind of death|way of dying|ways of dying|way {TO} die|ways {TO} die|way {TO} "
          rf"go) (?:{W} ){{0,3}}?(?:hurts? (?:the )?least|hurts? less|(?:is|would be) (?:the )?(?:least painful|"
          rf"quickest|fastest|most painless|surest|most certain|most reliable))\b"
          rf"|\b(?:is|does|would) (?:hanging|drowning|overdosing|an overdose|jumping|bleeding out|slitting (?:your|my|"
          rf"the) wrists|suffocating|carbon monoxide|helium) (?:{W} )?(?:painful|hurt|quick|slow|painless|peaceful)\b"
          rf"|\b(?:comparing|researching|looking up|reading up on|googling|calculating) (?:{W} ){{0,3}}?(?:overdose|"
          rf"lethal|fatal|deadly) (?:amounts?|doses?|levels?|thresholds?|heights?)\b"
          rf"|\b(?:which|what) (?:floor|height|bridge|building|dose|amount|storey|story) (?:{W} ){{0,6}}?(?:to be sure|{TO} "
          rf"die|fatal|lethal|{TO} not survive|would do it|would guarantee)\b"
          rf"|\b(?:most effective|most reliable|surest|quickest|fastest|easiest|least painful|painless|best) (?:way|"
          rf"method|ways|methods) {TO} (?:overdose|od|hang (?:myself|yourself)|drown (?:myself|yourself)|bleed out)\b(?! proof)"
          rf"|\bis (?:drowning|hanging|overdosing|an overdose|dying|bleeding out) (?:peaceful|quick)\b(?=.*\b(?:for me|"
          rf"asking for (?:me|myself)|i need to know)\b)",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: _lethality_check(d, i)),
    # method: the way one would do it, named ("thinking about how I'd do it, probably pills", "overdosing on my
    # antidepressants is what I'd do", "I know which bridge I'd use")
    _Rule("method_for_it",
          rf"\bhow i (?:would|will|could|am going {TO}|might) do it\b"
          rf"|\bthe (?:best |easiest |quickest |only )?way (?:i would|{TO}|i will|i could|i would want {TO}) do it\b"
          rf"|\bis (?:what|how) i (?:would|will|am going {TO}) (?:do it|use|go|do(?= \||$))\b"
          rf"|\b(?:which|what) (?:bridge|building|floor|pills|rope|gun|dose|cliff|roof|train|tracks|overpass|car park) "
          rf"i (?:would|will|could) use\b(?! {TO} (?:get|go|cross|reach|drive|walk|commute|take)\b)"
          rf"|\bthe (?:dose|amount|height|floor) that would do it\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: (_CONCEALED_ACT.search(d.norm) is not None or re.search(
              r"\b(?:railway|floor|dose|antidepressants|overdos\w*|bridge|cliff|roof|building|train)\b",
              d.norm) is not None) and _ENDS_A_THING.search(d.norm) is None and not re.search(
              r"\b(?:recipe|cake|paint|painting|wallpaper|shelf|shelves|tattoo|hair|dye|makeup|lego|model|drawing|"
              r"diy|renovat\w*|garden|plumbing|tiles?|floor(?:ing|boards)|laminate|carpet)\b", d.norm)),
    # preparatory: a supply of one's own medication built up, or means acquired with a mark of finality
    _Rule("supply_built",
          rf"\b(?:stockpil\w*|stock piling|hoard\w*|saving up|saved up|stashing|stashed|squirrell?ing away|building up|"
          rf"putting aside|put aside|setting aside|set aside|putting away) (?:up )?(?:{W} ){{0,4}}?(?:my |the )?"
          rf"(?:{W} )?(?:prescriptions?|scripts?|refills?|repeat prescriptions?|doses|{_DOSE_NOUN})\b"
          rf"|\b(?:ordered|bought|got|picked up|filled|collected|purchased|refilled) (?:{W} ){{0,5}}?(?:pills|tablets|"
          rf"meds|prescription|rope|charcoal|helium|gun|bullets|ammo|blades|razor|hose)\b(?=.*\b(?:then i am done|"
          rf"then that is it|then it is over|after that nothing|so i (?:will|would|can|could) have enough|enough {TO} "
          rf"(?:end it|do it|die)|(?:ready|it is ready) when i am|for when i (?:am ready|do it|go)|in the (?:trunk|"
          rf"boot) (?:for|ready)|for the car)\b)",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: _SUPPLY_BENIGN.search(d.norm) is None
          and d.before(i, 2) != ["used", "to"]),
    # self-harm ongoing: a relapse, wounds reopened, covered in fresh cuts, a purpose clause ("so I can cut")
    _Rule("harm_ongoing",
          rf"\b(?:relapsed|relapse|relapsing|slipped up|broke (?:my )?(?:clean )?streak)\b(?=.*\b(?:self harm\w*|sh|"
          rf"cutting|cuts|wounds|blade|blades|razor|burn(?:ed|t|ing)? myself|hurt(?:ing)? myself|cut myself)\b)"
          rf"|\b(?:self harm\w*|sh|cutting|used {TO} cut|cut myself|blade|razor)\b(?=.*\b(?:relapsed|broke (?:my )?"
          rf"(?:clean )?streak)\b)"
          rf"|\b(?:picking|picked|pick|ripping|ripped|tearing|tore|reopening|reopened|pulling|pulled) (?:the |my |at "
          rf"my |at the )?(?:{W} )?(?:wounds?|cuts?|scabs?|stitches) (?:back )?open\b"
          rf"|\b(?:covered in|full of) (?:fresh|new|deep|open) (?:cuts|wounds|burns|scratches|slashes)\b"
          rf"|\b(?:took|take|taking|got|get|getting|pulled) (?:the|my) (?:blade|blades|razor|razors|razor blades?) "
          rf"(?:back )?out(?! of\b)(?: again)?\b"
          rf"|\bso (?:that )?i (?:can|could|will be able {TO}) (?:cut|self harm|sh|hurt myself|burn myself)"
          rf"(?= \||$| (?:at|in|when|whenever|later|again|tonight|during)\b)",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: _HARM_BENIGN.search(d.norm) is None),
    # ideation: rehearsing how people would react to one's death
    _Rule("reaction_to_my_death",
          rf"\b(?:planning|imagining|picturing|thinking about|wondering|rehearsing|fantasi[sz]ing about|daydreaming "
          rf"about) (?:how|what) (?:people|everyone|everybody|they|my (?:{W} )?{W}) (?:would|will|might|are going {TO}) "
          rf"(?:react|feel|say|do|cope|respond) (?:{W} ){{0,2}}?(?:to|about|after|at|when|if) (?:my (?:suicide|death|"
          rf"funeral|dying|body)|i (?:am gone|was gone|died|die|killed myself|kill myself|was dead|do it|did it|end it))\b",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:insurance|a will|my will|estate|terminal|story|novel|"
                                                 r"character|book|film|script)\b", d.norm)),
    # passive wish: not minding a fatal accident ("if the plane went down I wouldn't even mind")
    _Rule("wish_conditional",
          rf"\bif (?:i (?:{W} ){{0,4}}?(?:died|die|got hit|get hit|got sick|got cancer|did not wake up|never woke up|"
          rf"was gone|were gone)|(?:the|my|a|this|that) (?:plane|flight|car|bus|truck|train|lorry) (?:{W} ){{0,4}}?"
          rf"(?:crashed|crashes|crash|went down|goes down|go down|hit me|hits me|ran me over|runs me over)) "
          rf"(?:{W} ){{0,6}}?(?:would not|will not|do not|would|i would) (?:even |really |honestly )?(?:mind|care|be "
          rf"relieved|be glad)\b"
          rf"|\bbutton (?:{W} ){{0,6}}?(?:stop existing|cease {TO} exist|not exist|disappear forever|die|be gone|never "
          rf"have existed|be erased|never (?:have )?been born|stop (?:being alive|living|breathing)|not be alive|be dead|"
          rf"(?:never|not) wake up|vanish forever|end (?:it all|my life|everything))\b"
          rf"|\b(?:over|end|ends|gone|burn|burns|go|goes|sink|sinks) (?:{W} )?and (?:take )?me (?:along )?with it\b",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:game|phone|laptop|app|server|website|battery|plant|lol|"
                                                 r"lmao|haha\w*|meeting|class|exam|party|work)\b", d.norm)),
    # intent/plan: first person + a future or decided modality + a lethal act, with a time, place or means slot
    # after it ("I'm gonna end it after this shift", "I will end it before the sun comes up", "I'm going to take
    # the pills on sunday when nobody's home"); a slot that hides the act from others is a plan of its own
    _Rule("intent_act",
          rf"\b(?:i will|i am going {TO}|i am gonna|going {TO}|gonna|i plan {TO}|planning {TO}|planning on|i intend {TO}|"
          rf"ready {TO}|i am) (?:just |finally |really |actually )?(?:end it(?: all)?|end my life|take my (?:own )?life|"
          rf"kill myself|overdose|od|hang myself|make it (?:all )?stop for good|walk into the (?:sea|ocean|lake|river|"
          rf"water|waves)|(?:take|taking|swallow|swallowing) (?:all (?:of )?)?(?:the|my|those) (?:pills|tablets|meds)|"
          rf"(?:take|taking|swallow|swallowing) everything in the (?:cabinet|medicine cabinet|drawer|house|box)|"
          rf"use (?:my |the |his |her |my dads |dads |my fathers )?(?:gun|pistol|rifle|rope|belt))"
          rf"(?= \||$| (?:after|before|when|once|while|on|at|in|this|next|tonight|tomorrow|today|soon|sunday|monday|"
          rf"tuesday|wednesday|thursday|friday|saturday|there|then|and i|i mean|for real|for good|no matter)\b)",
          "high", "suicidal_ideation", mode="self", neg_scope="all", check=lambda d, m, i, j: _intent_act_check(d, m)),
    _Rule("concealed_plan",
          rf"\b(?:when|once|after|until|till|while) (?:everyone|everybody|nobody|no ones?|my (?:{W} )?(?:parents|wife|"
          rf"husband|partner|mum|mom|dad|flatmate|roommate|family|sister|brother|kids)|the (?:kids|house)|they|he|she) "
          rf"(?:is |are |has |have |goes |go |leaves |leave |left |gets |get )?(?:{W} )?(?:asleep|{TO} sleep|gone|out|"
          rf"away|at work|for work|for the weekend|not (?:home|around|here)|home alone)\b"
          rf"|\bwhen (?:i am|i am home) alone\b|\bso (?:that )?(?:nobody|no one|noone) (?:finds|can stop|will find|"
          rf"would find|stops|can find) me\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: _CONCEALED_ACT.search(d.norm) is not None and _ENDS_A_THING.search(d.norm) is None
          and _BENIGN_JUMP.search(d.norm) is None),
    # --------------------------------- issue 21, sixth round: explicit risk as grammars over the slot lexicons above
    # (verb class + object or means class + a marker of time, purpose or outcome); each family has its own
    # paraphrases and same-surface hard negatives in tests/test_crisis_round6.py
    # attempt: an amount of a substance ingested ("necked a whole strip of my sertraline", "ate 40 of mum's
    # tablets"); "all my <meds>" with nothing after it is the daily dose
    _Rule("overdose_taken",
          rf"\b{_INGESTED} (?:(?P<more>{_TOTAL}) {_OWNER}(?:{W} )?(?:{_SUBSTANCE}|{_MED_CONTAINER}|{_CONTAINER} of "
          rf"(?:{W} )?{_SUBSTANCE})|(?P<all>all|all of|every one of) {_OWNER}(?:{W} )?{_SUBSTANCE}"
          rf"|{_OWNER}(?:{W} )?(?:whole|entire|full) (?:{_MED_CONTAINER}|{_CONTAINER} of (?:{W} )?{_SUBSTANCE}))\b",
          "high", "suicide_plan", mode="self", check=_overdose_taken_check,
          gate=frozenset("took taken swallowed downed ate eaten popped chugged necked gulped washed drank drunk overdosed od injected shot".split())),
    # attempt: a container emptied into one's mouth ("tipped the pill box down my throat")
    _Rule("emptied_into_mouth",
          rf"\b(?:emptied|tipped|poured|dumped|shook|shoved|stuffed|crammed) {_OWNER}(?:{W} ){{0,2}}?(?:{_SUBSTANCE}|"
          rf"{_MED_CONTAINER}|{_CONTAINER})(?: of (?:{W} )?{_SUBSTANCE})? (?:out )?(?:into|in|down) my (?:mouth|throat)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:sweets|candy|chips|crisps|popcorn|cereal|tic tacs|mints|"
                                                 r"gummies|skittles|vitamins?)\b", d.norm),
          gate=frozenset("mouth throat".split())),
    # attempt in progress: a cut to a lethal site with bleeding or a time of now ("opened up my wrist just now")
    _Rule("wound_now",
          rf"\b(?:cut|slit|sliced|slashed|opened|carved|stabbed|gashed) (?:up |open |into )?(?:my |both my |both of my |"
          rf"my own )(?:left |right )?(?:wrists?|veins?|throat|neck|arm open|forearm open)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: (re.search(rf"\b(?:{_JUST_NOW}|bleeding|blood|will not stop|so deep|too deep|"
                                              rf"towel|bath|bathtub|tub)\b", d.norm) is not None
                                    or re.search(r"\bi have(?: just| already| finally)?$", " ".join(d.before(i, 3)))
                                    is not None)
          and _HARM_BENIGN.search(d.norm) is None and not re.search(r"\b(?:glass|knife slipped|kitchen|bottle opener|"
                                                                     r"tin|can|paper|fence|nail|metal|wire|while|"
                                                                     r"surgeon|doctor|nurse)\b", d.norm)
          and not re.match(r"(?:open )?on (?:a|the|some|my) ", " ".join(d.after(j, 3))),
          gate=frozenset("wrist wrists vein veins throat neck arm forearm".split())),
    # attempt in progress: the engine running in a closed space, the speaker inside ("motor on, garage shut, typing
    # this from the driver's seat")
    _Rule("exhaust_now",
          r"\b(?:engine|motor|car|ignition) (?:is |was |left |turned |switched )?(?:on|running|started|idling)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: _ENCLOSED.search(d.norm) is not None and _IN_PROGRESS.search(d.norm) is not None
          and _CAR_BENIGN.search(d.norm) is None,
          gate=frozenset("engine motor car ignition".split())),
    # attempt in progress: stepping in front of a train, onto the tracks or into traffic, now
    _Rule("in_front_now",
          rf"\b(?:stepping|walking|jumping|throwing myself|lying down|laying down|going {TO} (?:step|walk|jump|lie "
          rf"down)|about {TO} (?:step|walk|jump|lie down)|gonna (?:step|walk|jump|lie down)|stepping out|walking out|"
          rf"running out) (?:out )?(?:in front of (?:the |a |this |that |an )?(?:next |oncoming |coming |approaching |"
          rf"fast |express |\d+\w* )?(?:one|train|tram|bus|lorry|truck|car|cars|traffic|express)|(?:onto|on to|on) "
          rf"the (?:tracks|rails|railway line|railway|train line|motorway|highway|freeway))\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: _IN_PROGRESS.search(d.norm) is not None and _TRANSIT_BENIGN.search(d.norm) is None
          and not re.search(r"\b(?:dog|cat|child|kid|kids|ball|wallet|phone|hat)\b", d.norm),
          gate=frozenset("front tracks rails railway line motorway highway freeway".split())),
    # attempt in progress: at the edge, said without a subject ("standing at the edge of the car park roof. this is
    # it"); the place now rules' everyday readings (a view, waiting, a repair) apply
    _Rule("edge_now",
          rf"(?:^|\| |\b(?:i am|am) )(?:sitting|standing|stood|sat|perched|hanging|leaning|balancing|swaying|"
          rf"climbing|climbed) (?:on|at|over|off|out of|on top of|onto|up) (?:the |a |my |this )?(?:{W} ){{0,3}}?"
          rf"(?:edge|ledge|railing|rail|parapet|roof|rooftop|bridge|cliff|tracks|train tracks|window sill|windowsill|"
          rf"balcony)\b",
          "high", "suicide_plan", mode="self", check=lambda d, m, i, j: _RULES_BY_NAME["on_the_place_now"].check(
              d, m, i, j) and _HEIGHT.search(" ".join(d.sentence_words(i))) is not None and not re.search(r"\b(?:bed|sofa|couch|seat|chair|pool|bath|tub|desk|"
                                                               r"stage|dock|pier)\b", d.norm),
          gate=frozenset("edge ledge railing rail parapet roof rooftop bridge cliff tracks sill windowsill balcony".split())),
    # attempt: "it is done" / "I did it" with the means or the act named in the message
    _Rule("done_it",
          r"\b(?:i (?:already |just |finally )?did it|i have (?:already |just |finally )?done it|it is (?:already )?"
          r"done|its (?:already )?done|there is no going back|no going back now|too late (?:now|to stop it)|can not undo "
          r"it)\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: re.search(rf"\b(?:{_SUBSTANCE}|rope|noose|blood|bleeding|kicking in|overdose|od|gas|"
                                             rf"engine|jumped|edge|razor|blade|(?:took|swallowed|downed|taken) (?:them|it|"
                                             rf"everything|all of them|them all|the lot|all(?= \||$)))\b", d.norm) is not None and _TREATMENT.search(d.norm) is None
          and not re.search(r"\b(?:hair|haircut|tattoo|piercing|essay|project|homework|test|exam|job|deal|"
                            r"application|cake|recipe|lawn|grass)\b", d.norm),
          gate=frozenset("did done going late undo".split())),
    # preparatory: a ligature is up ("the rope is up", "the belt is tied to the beam"); sport, boats and
    # washing lines clear it
    _Rule("ligature_up",
          r"\b(?:the |my |a )?(?:ropes?|nooses?|belts?|cords?|cables?|ligatures?) (?:is |are |was )?(?:already )?(?:(?:up|"
          r"hung|hanging|ready|set up|in place)\b|(?:tied|secured|knotted) (?:from|to|on|over|around|in) (?:the |my )?"
          r"(?:beam|banister|bannister|door|railing|hook|rafter|rafters|tree|loft|attic|ceiling|stairs|closet|"
          r"wardrobe)\b)",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: _ROPE_BENIGN.search(d.norm) is None,
          gate=frozenset("rope ropes noose nooses belt belts cord cords cable cables ligature ligatures".split())),
    # self-harm: a harm verb on one's own body with a mark of purpose, outcome or habit ("burning my forearm with
    # the lighter every evening", "slammed my forehead into the tiles on purpose")
    _Rule("harm_marked",
          rf"\b{_HARM_VERB} (?:myself|my (?:own )?(?:left |right )?{_BODY})(?: (?P<gap>(?:{W} ){{0,6}}?)(?P<mark>{_HARM_MARK}|with "
          rf"(?:a |the |my )?(?:lighter|cigarette|blade|razor|razor blade|knife|compass|scissors|glass|hot (?:iron|"
          rf"spoon|knife|metal)|needle|pin|safety pin)))\b",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: _HARM_BENIGN.search(d.norm) is None and not (
              re.match(r"(?:again|every)\b", m.group("mark") or "")
              and re.search(r"\b(?:on|at|in|against|into|with) (?:the|a|an|some|that|this)\b", m.group("gap") or ""))
          and not re.search(
              r"\b(?:gym|workout|sparring|boxing|karate|martial|sport|football|rugby|hockey|match|dance|stove|oven|pan|"
              r"iron(?:ing)?|kettle|sun|sunburn|bee|wasp|itchy|allergic|eczema|bed frame|cupboard|door frame|by "
              r"mistake|clumsy|tripped|slipped|stairs?|fell|walking|running|playing|lifting|moving|ball|bike|"
              r"skat\w*|ski|skiing|snowboard\w*|climb\w*|hiking|work|job|physio|injury)\b", d.norm),
          gate=frozenset("myself my".split())),
    # self-harm: a blow against a surface until one's own body is damaged, or wanted to hurt
    _Rule("harm_on_surface",
          rf"\b(?:punch|punched|punching|hit|hitting|slam|slammed|slamming|bang|banged|banging|bash|bashed|bashing|"
          rf"smash|smashed|smashing|headbutt|headbutted|headbutting|kick|kicked|kicking) (?:my (?:{_BODY}) "
          rf"(?:into|against|on) )?(?:the |a )?{_SURFACE} (?:{W} ){{0,4}}?(?:(?:until|till|til) (?:(?:my {W}|i) "
          rf"(?:bled|bleed|bleeds|cracked|split|broke|bruised|were raw|was raw)|(?:it|they) (?:bled|bleeds|bruised)|"
          rf"there was blood)|(?:i )?wanted it "
          rf"to hurt|to feel (?:pain|something|anything)|to (?:punish|hurt) myself|so it (?:would|will) hurt)\b",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: _HARM_BENIGN.search(d.norm) is None and not re.search(
              r"\b(?:game|match|goal|karate|boxing|gym|sparring|film|movie)\b", d.norm),
          gate=frozenset("wall walls door mirror tiles floor desk table".split())),
    # self-harm resumed or habitual: "back to cutting", "went to the bathroom and cut. like every night"
    _Rule("harm_habit",
          rf"\bback {TO} (?:cutting|burning|scratching|hitting|punching|carving|self harming|sh|hurting myself|"
          rf"harming myself)(?= \||$| myself| my {_BODY}| again| every| most| (?:{W} ){{0,3}}?(?:night|nights|day|"
          rf"days|evening|week)\b)"
          rf"|\bsh (?:would |had )?(?:again|last night|tonight|today|yesterday)\b"
          rf"|\b(?:and|then|i|i just|just) (?:cut|sh|self harmed)(?: again)?(?= \|(?: like)? every| \| again| like "
          rf"every| every (?:night|day|evening|time)| again (?:tonight|last night|today))",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: _HARM_BENIGN.search(d.norm) is None and not re.search(
              r"\b(?:carbs|sugar|calories|meat|dairy|gluten|costs|corners|class|classes|ties|the grass|coupons|"
              r"candles|incense|the gym|the books|fabric|wood|paper|hair|nails|fringe|bangs|lines|cds|rice)\b", d.norm),
          gate=frozenset("back cut sh self".split())),
    # wish to be dead: a wish verb + an event of one's own death ("praying my heart gives out", "would be nice not to
    # wake up", "asked god to let me not see another morning")
    _Rule("wish_death_event",
          rf"\b{_WISH_VERB} (?:(?:that|if|for|to|god|so) )?(?:{W} ){{0,3}}?{_DEATH_EVENT}",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: _WISH_BENIGN.search(d.norm) is None and not _wake_bounded(d, j) and not
          _BOUNDED_AFTER.match(" ".join(d.after(j, 3))) and not re.search(
              r"\b(?:(?:do|did|does) not|never) (?:hope|pray|wish|want)\b|\b(?:he|she|they|him|her|my (?:dad|mum|mom|"
              r"grandma|grandad|nan|dog|cat)) (?:would |will )?(?:not|never)\b", " ".join(d.before(i, 4) + d.words[i:j])),
          gate=frozenset("hope hopes hoping hoped pray prays praying prayed wish wishing wished ask asking asked beg begging begged would want wanted wanting wants dream dreaming waiting long longing".split())),
    # wish to be dead: disappointed to be alive ("gutted I woke up still breathing", "annoyed I'm still here. again")
    _Rule("sorry_still_alive",
          rf"\b(?:disappoint\w*|annoyed|upset|angry|mad|pissed|gutted|sad|let down|frustrated|furious|devastated|"
          rf"cursing|hate|hating|resent|resenting) (?:{W} ){{0,3}}?(?:that |because |when |to (?:find|realise|realize|"
          rf"see|be) (?:that )?)?(?:i |i am |am )?(?:was |am |woke up |have woken up |wake up )?(?:still )?(?:here|alive|"
          rf"breathing|woke up|woken up)(?= \||$| again| every| each| tbh| honestly| ngl| fr| another day| one more "
          rf"day)"
          rf"|\b(?:disappoint\w*|sad|gutted|upset|let down) (?:{W} ){{0,2}}?(?:that |when )?(?:the|my) (?:scan|scans|test|"
          rf"tests|results?|biopsy|bloods|blood work|mri|ct) (?:came back|come back|comes back|were|was|are|is) (?:all )?"
          rf"(?:clear|negative|fine|normal|benign|clean)\b(?=.*\b(?:end|die|dead|dying|over|wanted it|hoped it|gone)\b)",
          "high", "suicidal_ideation", mode="self", negatable=False,
          check=lambda d, m, i, j: re.search(r"\b(?:still|woke|woken|wake|alive|breathing|came back|come back|"
                                             r"comes back)\b", m.group()) is not None
          and not re.search(r"\b(?:office|work|school|queue|airport|line|waiting|traffic|party|bar|class|meeting|"
                            r"hospital|station)\b", d.norm),
          gate=frozenset("here alive breathing woke woken clear negative fine normal benign clean".split())),
    # burden: others would be better, freer or relieved with the speaker gone for good ("everyone would breathe easier
    # if I were out of the picture"); a bounded absence ("out of the office for a week", "gone on weekends") is none
    _Rule("burden_if_gone",
          rf"\b(?:everyone|everybody|people|they|the world|my (?:{W} )?(?:family|kids|children|parents|friends|mum|mom|"
          rf"dad|wife|husband|partner|sister|brother)|life for everyone|things) (?:would|will|could) (?:all )?(?:finally "
          rf")?(?:be better|be better off|be happier|be relieved|be fine|be lighter|be easier|breathe easier|sleep "
          rf"better|have it easier|get on better|move on|be free|do better|manage better)(?: (?:{W} ){{0,3}}?)? if i "
          rf"(?:were|was|am|had|just|could just) (?:just )?(?:gone|not (?:here|around|alive)|out of (?:the picture|the "
          rf"way|their (?:lives|way|hair)|everyones (?:lives|way))|dead|never born|disappeared|vanished|no longer "
          rf"(?:here|around|alive)|not in (?:it|the picture|their lives))"
          rf"(?! (?:for (?:a|an|the|two|three|some|one|this|that|work|\d+)|on|during|until|till|while|this|next|at|in the|"
          rf"less|more|so much|all the time|every)\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: (_no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None) and (
              True if re.search(r"\b(?:for good|forever|for ever|permanently|dead|never born|not alive|no longer alive)\b",
                                d.norm) else ("medium", "hopelessness")),
          gate=frozenset("if".split())),
    # attempt: a poison drunk ("I've drunk bleach", "swallowed some drain cleaner"); an act taken, in the past or
    # perfect ("consider drinking bleach", said to others, is none)
    _Rule("poison_taken",
          r"\b(?:drank|drunk|swallowed|downed|took|taken|ingested|chugged) (?:some |a (?:bottle|"
          r"cup|glass|mouthful|can) of |the |a load of |half a bottle of |a whole bottle of )?(?:bleach|antifreeze|poison|"
          r"weed ?killer|rat poison|pesticide|drain cleaner|paraquat|lighter fluid|cleaning fluid|oven cleaner|"
          r"toilet cleaner|methanol)\b",
          "high", "suicide_plan",
          check=lambda d, m, i, j: _NOT_THE_SPEAKER.search(d.norm) is None and not re.search(
              r"\b(?:game|film|movie|book|show|play|character|villain|poison ivy|ivy)\b", d.norm),
          gate=frozenset("bleach antifreeze poison weed weedkiller pesticide cleaner paraquat fluid methanol".split())),
    # attempt: what was taken is in the body now ("the pills are in my system", "it's all in my stomach now")
    _Rule("in_my_system",
          rf"\b(?:is|are|s) (?:already |all )?in my (?:system|stomach|blood|bloodstream|body)\b"
          rf"(?= \||$| now| already| and| i can| so| nothing| it is too| its too| no going back)",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: re.search(rf"\b(?:{_SUBSTANCE}|overdose|poison|bleach|took|swallowed|it all|"
                                             rf"everything i took)\b", d.norm) is not None
          and _TREATMENT.search(d.norm) is None and not re.search(
              r"\b(?:caffeine|coffee|sugar|alcohol|booze|beer|wine|virus|covid|flu|bacteria|infection|working|better|"
              r"kicking in for|antibiotic\w*|vaccine|cold)\b", d.norm),
          gate=frozenset("system stomach blood bloodstream body".split())),
    # attempt in progress: bleeding out, in the water now
    _Rule("dying_now",
          r"\b(?:i am|im|am) (?:bleeding out|losing (?:so much|a lot of|too much) blood)\b"
          r"|\b(?:i am|im|am) (?:in|into) the (?:water|river|sea|ocean|lake|canal|reservoir|loch|estuary) (?:right )?now\b",
          "high", "suicide_plan", mode="self",
          check=lambda d, m, i, j: not re.search(r"\b(?:game|character|raid|match|zombie|npc|level|boss|squad|"
                                                 r"period|nose|nosebleed|swim|swimming|beach|holiday|surf\w*|paddl\w*|"
                                                 r"wetsuit|come in|lifeguard|kayak\w*|boat|fishing|dip|dog|warm|lovely|"
                                                 r"amazing|training|triathlon)\b", d.norm) and (
              "bleeding" in m.group() or "losing" in m.group() or re.search(
                  r"\b(?:cold|bye|goodbye|sorry|let go|can not swim|far out|sinking|current|weights|stones|pockets|"
                  r"this is it|forgive me)\b", d.norm) is not None),
          gate=frozenset("bleeding losing water river sea ocean lake canal reservoir loch estuary".split())),
    # self-harm: a cut deep, said of one's own act ("cut deep tonight", "i cut deeper than ever")
    _Rule("cut_deep",
          r"\b(?:cut|sliced|went) (?:way |really |too |so |much )?(?:deep|deeper)\b"
          r"(?! (?:into the|into our|into my (?:savings|budget|pocket)|in the)\b)",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: d.before(i, 1) in ([], ["|"], ["i"], ["and"], ["then"], ["just"]) and re.search(rf"\b(?:tonight|last night|bleeding|blood|again|than usual|than ever|"
                                             rf"stitches|steri|bandage\w*|plasters?|{_BODY}|scared me)\b", d.norm)
          is not None and _HARM_BENIGN.search(d.norm) is None and not re.search(
              r"\b(?:budget|costs|spending|comment|words|joke|insult|lore|hair|fringe|wood|fabric|cake|bread|"
              r"meat|steak|argument|fight|debate|discussion|conversation|rabbit hole|research|thought|thinking|"
              r"dive|diving|water|pool)\b", d.norm),
          gate=frozenset("deep deeper".split())),
    # self-harm: a wound deeper than meant ("went way too deep on my thigh", "went deeper than usual last night")
    _Rule("harm_depth",
          rf"\bwent (?:way |much |a bit |a little |far )?(?:too deep|deeper|so deep|really deep|too far)(?: {W})?"
          rf"(?= \||$| (?:on|into|in) my {_BODY}| (?:than|last|tonight|this|again|and|had|it|i)\b)",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: re.search(rf"\b(?:{_BODY}|bandaids?|plasters?|stitches|bandages?|blood|bleeding|"
                                             rf"scared me|than usual|than i meant|than i wanted|than before|blade|razor|"
                                             rf"cut|cutting|cuts)\b", d.norm) is not None and not re.search(
              r"\b(?:lore|rabbit hole|forest|woods|water|pool|sea|ocean|dive|diving|research|conversation|thought|"
              r"debt|overdraft|mine|cave|tunnel|fandom|wiki|book|show|joke|prank|argument|fight|tattoo)\b", d.norm),
          gate=frozenset("went".split())),
    # self-harm: a hot or sharp thing pressed, dragged or held to one's own body ("pressing hot spoons on my skin")
    _Rule("harm_pressed",
          rf"\b(?:press|pressed|pressing|presses|hold|held|holding|put|putting|drag|dragged|dragging|run|ran|running|"
          rf"dig|dug|digging|push|pushed|pushing|stub|stubbed|stubbing) (?:a |the |my |some )?(?:hot |burning |lit |"
          rf"heated |red hot |sharp )?(?:spoons?|lighter|cigarettes?|blades?|razors?|razor blades?|knife|knives|needles?|"
          rf"pins?|compass|iron|match|matches|lighters|scissors|glass) (?:{W} )?(?:on|onto|into|against|across|along|"
          rf"over|to) my (?:own )?{_BODY}\b",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: _HARM_BENIGN.search(d.norm) is None and not re.search(
              r"\b(?:tattoo|piercing|acupuncture|doctor|nurse|injection|vaccine|splinter|ironing|shirt|massage|"
              r"hairdresser|curling)\b", d.norm),
          gate=frozenset("spoon spoons lighter lighters cigarette cigarettes blade blades razor razors knife knives needle needles pin pins compass iron match matches scissors glass".split())),
    # self-harm: hiding new wounds ("covered the fresh cuts with long sleeves again")
    _Rule("harm_hidden",
          rf"\b(?:hide|hid|hidden|hiding|cover|covered|covering|conceal|concealed|concealing) (?:up )?(?:the |my )?"
          rf"(?:(?:new|fresh|latest) (?:marks|cuts|burns|scratches|wounds|scars)|(?:marks|cuts|burns) on my {_BODY})\b",
          "high", "self_harm", mode="self", check=lambda d, m, i, j: _HARM_BENIGN.search(d.norm) is None
          and not re.search(r"\b(?:tattoo|hickey|hickeys|love bites|bruise from|makeup for the|eczema|aloe|bbq|barbecue|"
                            r"oven|stove|pan|kettle|iron|cooking|kitchen|sunburn|burn cream|ointment|antiseptic|"
                            r"fireworks?|campfire|bonfire|surgery|operation)\b", d.norm),
          gate=frozenset("marks cuts burns scratches wounds scars".split())),
    # wish to be dead: trading places with the dead ("I'd swap places with him", at a grave)
    _Rule("wish_trade_places",
          rf"\b(?:trade|swap|switch|change) places with (?:him|her|them|the dead|my (?:{W} )?{W}|whoever)\b",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: re.search(r"\b(?:grave|graves|cemetery|funeral|buried|dead|died|passed away|"
                                             r"heaven|coffin|casket|obituary|late)\b", d.norm) is not None
          and not re.search(r"\b(?:holiday|vacation|beach|rich|famous|lottery|job|lol|lmao|haha\w*)\b", d.norm),
          gate=frozenset("places".split())),
    # wish to be dead: relieved if the vehicle one is in crashed ("relieved if the flight went down with me on it")
    _Rule("wish_crash_relief",
          rf"\b(?:relieved|glad|grateful|happy|fine|okay|ok|at peace|not (?:mind|care)) if (?:{W} ){{0,3}}?(?:the|that|my|"
          rf"a|this) (?:plane|flight|car|bus|train|boat|ship|ferry|taxi|uber|coach) (?:{W} )?(?:crashed|crashes|went down|"
          rf"goes down|sank|sinks|flipped|hit something|fell)\b",
          "high", "suicidal_ideation", mode="self", check=lambda d, m, i, j: re.search(
              r"\b(?:with me|me (?:on|in) it|my (?:plane|flight|car|bus|train|boat|ship|ferry|taxi|uber|coach))\b", d.norm)
          is not None,
          gate=frozenset("if".split())),
    # farewell: leaving a record so someone knows what one was ("sending this so someone knows I tried")
    _Rule("farewell_record",
          rf"\bso (?:that )?(?:someone|somebody|people|you|everyone|everybody|they|my (?:{W} )?{W}) (?:knows?|will know|"
          rf"remembers?|will remember|can (?:know|remember)) (?:that )?i (?:was|tried|loved|cared|did try|existed|meant)"
          rf"(?: (?:grateful|here|real|happy|sorry|trying|loved|something|you|her|him|them|everyone))?(?= \||$)"
          rf"|\b(?:a )?record (?:that|of how) i (?:tried|was|existed|loved|cared)(?: (?:here|real|happy|trying))?"
          rf"(?= \||$)"
          rf"|\b(?:say|tell (?:them|people|everyone))(?: that)? i was (?:happy|good|kind|trying|loved|okay)(?: once| "
          rf"sometimes| at least once)(?= \||$| ok| please| for the last)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None
          and _BENIGN_FAREWELL.search(d.norm) is None and re.search(
              r"\b(?:love|loved|goodbye|bye|take care|always|remember|forgive|sorry|grateful|thank\w*|last|goodnight|"
              r"for the last time|forever|gone)\b", d.norm[:m.start()] + d.norm[m.end():]) is not None,
          gate=frozenset("so record say tell".split())),
    # farewell: a goodnight or a sign-off for the last time, or no text after this one
    _Rule("farewell_last_time",
          rf"\b(?:goodnight|good night|goodbye|bye|signing off|logging off|saying goodbye) for the (?:very )?last time\b"
          rf"(?! (?:in|at|from|on|as|before|this|here|to)\b)"
          rf"|\byou (?:will not|will never|wo not) (?:get|receive|see|hear) (?:another|any more|any other|one more|a "
          rf"single|any) (?:text|message|msg|word|reply)s? from me\b(?! (?:until|till|before|tonight|today|for a|this|"
          rf"while|during)\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None and not _to_a_thing(
              d, j) and not re.search(r"\b(?:until|till|before|land|landing|flight|phone|battery|data|signal|back|"
                                      r"tomorrow|later|exam|exams|apartment|flat|house|account)\b", d.norm),
          gate=frozenset("last me".split())),
    # farewell: gratitude for the bond + a mark that this is the last message (either order)
    _Rule("farewell_thanks",
          rf"\b{_GRATITUDE}",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _FINAL_RE.search(d.norm) is not None and _no_benign_reason(d) and not re.match(
              r"(?:you (?:did|have done|do|gave) )?(?:for|to|with) (?:my|our|his|her|their|the) ", " ".join(d.after(j, 5))) and _LEAVING_BENIGN.search(d.norm) is None
          and _BENIGN_FAREWELL.search(d.norm) is None,
          gate=frozenset("thank thanks thx ty grateful appreciate you".split())),
    # farewell: the message names itself the last ("last text from me", "this is the last one" after our chats)
    _Rule("farewell_last_text",
          rf"\b(?:(?:last|final) (?:text|message|msg|words|note) from me|(?:this is|this will be|heres|here is) (?:my |"
          rf"the )?(?:last|final) (?:text|message|msg) (?:you will (?:ever )?get|i will (?:ever )?send))\b"
          rf"(?! (?:before|for|until|till|tonight|today|this|of the|in this|on this|was|got|went|is still|has|had|never|"
          rf"did|that)\b)"
          rf"|\b(?:chats?|talks?|messages|texts|conversations)\b(?: {W}){{0,3}} \| (?:and )?(?:this is|this will be|"
          rf"that was) the (?:last|final) one(?= \||$)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None
          and _BENIGN_FAREWELL.search(d.norm) is None,
          gate=frozenset("last final".split())),
    # farewell: releasing the listener from blame for what is about to happen
    _Rule("farewell_absolve",
          rf"\b{_ABSOLVE_WHEN} (?:\| )?(?:{W} ){{0,2}}?{_ABSOLVE}\b|\b{_ABSOLVE}\b(?: {W}){{0,3}} (?:\| )?{_ABSOLVE_WHEN}",
          "high", "warning_sign", mode="self", negatable=False,
          check=lambda d, m, i, j: not re.search(
              r"\b(?:interview|exam|exams|game|match|meeting|result|results|trial|court|surgery|operation|vote|"
              r"election|project|presentation|launch|deal|wedding|trip|flight|divorce|custody|break ?up|breakup|"
              r"tournament|audition|application|test|biopsy|scan)\b", d.norm),
          gate=frozenset("happens after when if once whatever".split())),
    # farewell: nobody will have to look after me after tonight ("after tonight nobody has to check on me, bye")
    _Rule("farewell_no_one_has_to",
          rf"\b(?:nobody|no one|noone|no body|you|none of you|they|everyone) (?:has|have|will have|needs?|will need|"
          rf"(?:will|wo|do|does|would) not (?:have|need)) "
          rf"{TO} (?:check on|check up on|worry about|look after|deal with|take care of|babysit|put up with|save|"
          rf"watch) me (?:anymore|any more|again|ever again)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: re.search(r"\b(?:after (?:tonight|today|this)|bye|goodbye|for good|ever again|soon|"
                                             r"x)\b", d.norm) is not None and _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None and not re.search(
              r"\b(?:cast|recover\w*|better|healed|heal|sober|discharged|home|own place|back|sister|brother|nurse|"
              r"carer|covid|flu|fever|babysitter|18|eighteen|grown up|adult)\b", d.norm),
          gate=frozenset("check worry look deal take babysit put save watch".split())),
    # farewell: asking the listener to look after themselves on one's behalf ("take care of yourself for me")
    _Rule("farewell_for_me",
          rf"\b(?:take care of|look after|be good to|be kind to|be gentle with) (?:yourself|yourselves|each other) "
          rf"for me\b|\bpromise (?:me )?(?:you will|you|to) (?:look after|take care of) yourself\b(?=.*\b(?:last|"
          rf"bye|goodbye|forever|for good|after (?:tonight|today))\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None and not re.search(
              r"\b(?:while|till|until|back|when i am back|this weekend|for a (?:few|couple)|for the (?:week|weekend|day)|"
              r"tonight|tomorrow|next week|see you|talk soon|later|cold|flu|sick|exam|exams|shift|match|game|trip|"
              r"drive|driving|flight)\b", d.norm),
          gate=frozenset("me yourself".split())),
    # farewell: messages left to be read after, with everything said ("I said all I had to say, they'll find the
    # letters in the morning")
    _Rule("farewell_all_said",
          rf"\b(?:said|wrote|written|told them|told everyone) (?:everything|all|what) i (?:needed|wanted|had|have|need) "
          rf"{TO} say\b(?! (?:to|at|in|about|on) (?:him|her|them|my|the|that|this)\b)(?=.*\b(?:read|letters?|notes?|messages|texts|goodbye|bye|tomorrow|when i am gone|after|"
          rf"find)\b)"
          rf"|\b(?:read|find|get|open|see) my (?:letters?|notes?|messages|texts|emails?|goodbyes?|videos?) (?:{W} )?"
          rf"(?:tomorrow|in the morning|when|after|once|later|then|soon)\b(?=.*\b(?:said|wrote|written) (?:everything|"
          rf"all|what) i (?:needed|wanted|had|have|need) {TO} say\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and not re.search(
              r"\b(?:meeting|interview|ex|boyfriend|girlfriend|bf|gf|boss|manager|landlord|speech|presentation|review|"
              r"therapist|hr|council|complaint|feedback|essay|report|application|cv|resume|minutes|card|birthday|"
              r"christmas|wedding|proposal|apology|argument|fight)\b", d.norm),
          gate=frozenset("say".split())),
    # ------------------------------------------------------------------------------ third persons
    # ------------------------------------------------------------------ issue 21, seventh round (chat wordings)
    # the speaker joins a third person's act ("my friend cuts herself and honestly so do i", "my brother overdosed
    # last year and i think about doing the same"): the speaker's own risk, not concern for somebody else
    _Rule("me_too",
          rf"\b(?P<act>(?P<harm>(?:cuts?|cutting|burns?|burning|hurts?|hurting|harms?|harming|scratches|scratching) "
          rf"(?:herself|himself|themselves)|self harms?|self harming)|(?:wants?|wanting) {TO} (?:die|kill (?:herself|"
          rf"himself|themselves)|end it(?: all)?|end (?:her|his|their) life)|(?:is|are|was|were|feels?|feeling) "
          rf"suicidal|(?:killed|hung|hanged|shot|unalived|overdosed on purpose) (?:herself|himself|themselves)|took "
          rf"(?:her|his|their) (?:own )?life|overdosed|attempted suicide)\b(?: {W}){{0,8}}? (?:\| )?(?:(?:and|but|"
          rf"honestly|tbh|lowkey|ngl|now|sometimes|if i am honest|to be honest) )*(?:(?P<too>so do i|so am i|so have "
          rf"i|so did i|i do too|i do as well|i do it too|i do that too|i am too|me too|i have too|i also do|i do "
          rf"sometimes too|i kinda do too)(?= \||$| (?:lol|tbh|honestly|ngl|sometimes|now|again|lately|tho|though|rn|"
          rf"right now|every|a lot|fr)\b)|(?P<same>i (?:{W} ){{0,3}}?(?:think|thinking|thought|keep thinking|can not "
          rf"stop thinking|want|wanting|considering|been thinking) (?:about |of )?(?:doing|to do|do) (?:the same|it "
          rf"too|that too|the same thing|it as well)))\b",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: False if re.search(r"\boverdosed on (?!purpose)", m.group()) or _HARM_BENIGN.search(
              d.norm) or re.search(rf"\b(?:bangs|fringe|hair|nails|{_SPORT})\b", d.norm) or _ENDS_A_THING.search(
              m.group()) else (("high", "self_harm") if m.group("harm") and m.group("too") else True),
          gate=frozenset("herself himself themselves self die end suicidal life overdosed suicide".split())),
    # the mind goes back to ending it ("my brain keeps going to ending things", "my head drifts to the pills")
    _Rule("mind_goes_to",
          r"\bmy (?:brain|mind|head|thoughts) (?:(?:keeps?|kept|always|just|still|constantly) )?(?:going|goes|went|"
          r"drifting|drifts|drifted|wandering|wanders|wandered|jumping|jumps|running|runs|turning|turns) (?:back )?"
          r"(?:to|towards) (?:ending (?:it|things|it all|everything|my life)|dying|killing myself|suicide|unaliving"
          r"(?: myself)?|not being (?:here|alive|around)|not existing|my (?:own )?death|the (?:pills|rope|bridge|"
          r"blade|razor|tracks))\b(?! (?:in|of|from|scene|scenes|movie|film|game|episode|book|plot)\b)",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: not d.sentence_has(i, _TOPIC | _MEDIA),
          gate=frozenset("brain mind head thoughts".split())),
    # thinking about dying, over and over ("i keep thinking about dying", "thinking abt not being here")
    _Rule("dying_on_mind",
          r"\b(?:(?:keep|kept|keeps|always|constantly|been|can not stop|obsessively|just|i|i often|i still|i "
          r"sometimes) (?:thinking|think|thought|"
          r"daydreaming)|thoughts|thought) (?:about|of|abt|bout) (?:dying|being dead|not being (?:here|alive|around)|not existing|not "
          r"waking up|my (?:own )?death|ending things|unaliving(?: myself)?)(?= \||$| again| lately| every| all| "
          r"tbh| honestly| ngl| lol| and| so| more| a lot| tonight| today| rn| right now)",
          "high", "suicidal_ideation",
          check=lambda d, m, i, j: re.search(r"\b(?:scared|afraid|terrified|fear|anxiety|anxious|panic|"
                                             r"hypochondria\w*|health|plane|flight|flying|game)\b", d.norm) is None,
          gate=frozenset("thinking think thought thoughts daydreaming".split())),
    # a vehicle's hit welcomed ("id be ok if a truck hit me")
    _Rule("wish_hit_ok",
          rf"\b(?:would|will) (?:be|feel) (?:totally |honestly |kinda |kind of |perfectly |just )?(?:ok|okay|fine|"
          rf"relieved|glad|happy|at peace|alright|cool with it|grateful) (?:{W} ){{0,2}}?if (?:a|the|some) (?:car|bus|"
          rf"truck|train|lorry|plane|drunk driver) (?:{W} )?(?:hit|hits|ran over|runs over|killed|kills|took) me\b",
          "high", "suicidal_ideation", neg_scope="all", others=False,
          gate=frozenset("car bus truck train lorry plane driver".split())),
    # dying said not to be bad ("dying doesnt sound so bad", "not waking up wouldnt be the worst thing")
    _Rule("death_not_bad",
          r"\b(?:death|being dead|dying|not waking up|not existing|not being here) (?:does not|would not|did not) "
          r"(?:sound|seem|look|be|feel) (?:so |that |too |all that |half |the )?(?:bad|scary|terrible|worst "
          r"(?:thing|idea|option))\b",
          "high", "suicidal_ideation", others=False,
          check=lambda d, m, i, j: not d.sentence_has(i, _MEDIA | _TOPIC) and re.search(
              r"\b(?:game|character|grandma|grandpa|old age|when (?:you|we) are old|pet|dog|cat)\b", d.norm) is None,
          gate=frozenset("death dead dying waking existing here".split())),
    # a cut or a burn now, with no object ("cut again last nite", "i cut last night", "sh again tonight")
    _Rule("harm_bare_now",
          r"(?:^|(?<=\| )|(?<=\bi )|(?<=\bjust )|(?<=\band )|(?<=\bthen )|(?<=\bso )|(?<=\brelapsed )|(?<=\bfinally )"
          r"|(?<=\bliterally ))(?:cut|burned|burnt|self harmed)(?: again)? (?:last (?:night|nite)|tonight|this "
          r"(?:morning|evening|afternoon)|earlier(?: today| tonight)?|today|yesterday)(?= \||$| again| and| lol| tbh| ngl| "
          r"after| before| i | im )"
          r"|(?:^|(?<=\| )|(?<=\bi )|(?<=\bjust )|(?<=\band )|(?<=\brelapsed ))cut again(?= \||$| lol| tbh| ngl| and i| "
          r"i am| im )",
          "high", "self_harm", mode="self",
          check=lambda d, m, i, j: _HARM_BENIGN.search(d.norm) is None and not re.search(
              rf"\b(?:{_SPORT}|class|classes|power|signal|wifi|call|line|lines|hair|nails|fringe|bangs|grass|lawn|"
              r"hedge|film|edit|scene|carbs|sugar|budget|costs|toast|dinner|steak|bbq|barbecue|sun|sunburn|sunburnt|"
              r"pan|oven|stove|iron|fingers on|my finger|tongue)\b", d.norm),
          gate=frozenset("cut burned burnt harmed".split())),
    # passwords and accounts left for a relative in case ("wrote down my passwords for my sister in case")
    _Rule("arranged_in_case",
          rf"\b(?:wrote down|written down|writing down|left|gave|given|shared|sent|put|saved|listed|printed out|"
          rf"printed) (?:all )?(?:of )?my (?:{W} )?(?:passwords?|logins?|pins?|pin codes?|passcodes?|bank details|"
          rf"account details|accounts|bank info|banking info|insurance (?:details|info|policy|papers)) "
          rf"(?:{W} ){{0,5}}?(?:just )?(?:in case(?= \||$| anything happens| something happens| i (?:do not|am not|am "
          rf"gone|die|am no longer|never))|for (?:when|after) i am (?:gone|not (?:here|around)))",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and re.search(
              r"\b(?:sister|brother|mom|mum|dad|mother|father|parents|family|partner|wife|husband|kids|son|daughter|"
              r"best friend|friend|girlfriend|boyfriend|gf|bf|someone|somebody|whoever)\b", d.norm) is not None
          and re.search(r"\b(?:forget|forgot|forgetting|lose|lost|hacked|locked out|new phone|phone breaks|"
                        r"emergency contact|sitter|babysit\w*|house ?sit\w*|netflix|spotify|wifi)\b", d.norm) is None,
          gate=frozenset("passwords password logins login pins pin codes passcodes passcode details accounts info "
                         "insurance".split())),
    # the last message named as such ("this is the last time youll hear from me", "say i love you one last time")
    _Rule("farewell_hear_last",
          r"\b(?:the )?last (?:time )?(?:you will|youll|you all will|you guys will) (?:ever )?(?:hear from|see|talk "
          r"to|get a (?:text|message|msg) from) me\b"
          r"|\b(?:say|tell (?:you|everyone|you all|you guys)|wanted to say) (?:i love (?:you|everyone)(?: all| guys)?|"
          r"goodbye|thank you|thanks) (?:one )?(?:last|final) time\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None
          and _BENIGN_FAREWELL.search(d.norm) is None and not re.search(
              r"\b(?:before|until|till|today|tonight|this (?:year|week|month)|for (?:a|the) (?:while|week|month|"
              r"summer|year)|house|flat|apartment|home|school|stage|show|concert|tour|band|season)\b", d.norm),
          gate=frozenset("last final".split())),
    # who gets one's things or pets if one is gone ("if anything happens to me my sister gets my stuff", "make sure
    # my dog goes to a good home", "she can have my clothes after")
    _Rule("arranged_who_gets",
          rf"\bif (?:anything|something) (?:happens|were to happen|should happen|happened) to me (?:{W} ){{0,4}}?"
          rf"(?:gets|get|can have|should have|should get|will get|takes|can take|inherits|keeps|can keep) my\b"
          rf"|\bmake sure my (?:dog|cat|pets?|puppy|kitten|rabbit|bunny|hamster|bird|fish|horse|plants?) "
          rf"(?:goes|go|gets|get|finds|has|have|is|are) (?:to )?(?:a )?(?:good|loving|nice|new|safe) (?:home|homes|"
          rf"family|owner|owners)\b"
          rf"|\b(?:can|could|should|will|may) (?:have|keep|take) (?:all )?(?:of )?my (?:{W} )?(?:stuff|things|clothes|"
          rf"games|books|records|jewelry|jewellery|savings|money|car|guitar|console|cat|dog|plants) (?:after|when i am "
          rf"gone|once i am gone|after i am gone)(?= \||$| lol| tbh| ok| okay| i)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None and not re.search(
              r"\b(?:after (?:the|this|my|our|work|school|class|dinner|lunch|breakfast|tonight|today|tomorrow|i "
              r"(?:move|moved|leave|finish|get|wash|wear))|never (?:play|use|wear|read|watch)|outgrown|too small|doesnt fit|does not fit|donate|"
              r"charity|swap|lend|borrow|while i am|at the vet|vet|allerg\w*|landlord|rehoming fee|litter)\b", d.norm),
          gate=frozenset("happens happen happened make can could should will may".split())),
    # affairs put in order ("sorted my affairs, everything is in order now")
    _Rule("affairs_in_order",
          r"\b(?:sorted|sorting|put|putting|got|getting|have|had|set) (?:all )?(?:of )?my affairs(?: (?:in order|"
          r"sorted|straight|settled))?\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and not _AFFAIRS_BENIGN.search(d.norm),
          gate=frozenset({"affairs"})),
    # no problem for much longer ("its ok, i wont be a problem for much longer")
    _Rule("no_problem_long",
          r"\b(?:i )?(?:will not|wont|am not going to|not going to|will not be) be (?:a |your |anyones |everyones |"
          r"such a |)(?:problem|burden|bother|worry|nuisance|pain|trouble) (?:to (?:you|anyone|anybody|everyone) )?"
          r"(?:for (?:much|any|very|too) (?:longer|long)|much longer|for long|(?:very )?soon)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None,
          gate=frozenset("problem burden bother worry nuisance pain trouble".split())),
    # remembered as one was ("please remember me as i was")
    _Rule("remember_me",
          r"\bremember me (?:as i (?:was|am|used to be)|fondly|kindly|the way i (?:was|am|used to be)|for who i "
          r"(?:was|am)|as (?:someone|somebody) who|happy|smiling|when i was happy)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None
          and _BENIGN_FAREWELL.search(d.norm) is None and not d.sentence_has(i, _MEDIA)
          and not re.search(r"\b(?:famous|rich|when you are|when u are|photo|selfie|yearbook|reunion|"
                            r"graduat\w*)\b", d.norm),
          gate=frozenset({"remember"})),
    # love to all with an apology for everything ("love u all, sorry for everything")
    _Rule("farewell_sorry_love",
          r"\b(?:i )?love (?:you|ya|everyone|you guys)(?: all| guys| so much| always)? (?:and )?(?:i am )?(?:so )?"
          r"sorry for everything(?= \||$| i love| love)"
          r"|\b(?:i am )?(?:so )?sorry for everything (?:\| )?(?:i )?love (?:you|ya|everyone|you guys)(?: all| so much|"
          r" always)?(?= \||$)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(d.norm) is None
          and _BENIGN_FAREWELL.search(d.norm) is None,
          gate=frozenset({"everything"})),
    # ------------------------------------------------------------------ issue 21, eighth round (chat wordings)
    # Written from the C-SSRS definitions (a passive wish, active ideation) and the public-health warning signs (a
    # time named for the end, a goodbye that reads final, a decision made with a sudden calm), in chat wording;
    # tests/test_crisis_round8.py holds each family's paraphrases and its same-surface hard negatives.
    #
    # a passive wish, said as what one would not mind or would be relieved by ("wouldnt mind not being here
    # anymore", "id be relieved if it was over for good", "wouldnt be sad if i died tomorrow", "happy to not wake
    # up tomorrow"). Must not: "wouldnt mind not being at work", "relieved if the exam was over", "wouldnt be upset
    # if my flight got cancelled" (the event is one's own death or not being alive, nothing else)
    _Rule("wish_relief",
          rf"\bwould not (?:even |really |honestly )?mind (?:not (?:being (?:here|around|alive)|existing|waking up|"
          rf"living)|never waking up|just disappearing forever)(?= \||$| anymore| any more| tbh| honestly| ngl| lol| "
          rf"at all| if| to be honest)"
          rf"|\b(?:would|will) (?:be|feel) (?:so |really |honestly |kinda |kind of |just |totally |actually )?"
          rf"(?:relieved|glad|happy|fine|ok|okay|at peace|grateful) (?:{W} ){{0,2}}?if (?:it (?:was|were|is) (?:all )?"
          rf"over (?:for good|forever|for me)|it all ended(?: for me| for good)?|i (?:was not|were not) (?:alive|"
          rf"around) (?:anymore|any more)|i (?:did not|never) exist(?:ed)?)(?= \||$| tbh| honestly| ngl| lol| to "
          rf"be honest)"
          rf"|\bwould not (?:even |really |honestly )?be (?:sad|upset|mad|sorry|bothered|unhappy) if i (?:died|was "
          rf"dead|did not wake up|never woke up)\b"
          rf"|\b(?:happy|glad|relieved|fine|ok|okay|grateful) {TO} (?:just )?(?:not|never) wake up\b"
          rf"|\b(?:everything|life|things|it all|it) would be (?:so much |much |a lot |way )?(?:easier|better|simpler|"
          rf"more peaceful|lighter) if i (?:was not|were not) (?:alive|born|around anymore|here anymore)\b"
          # second probe: "wouldnt fight it if i got sick", "rather not be around anymore", "ok with not waking up",
          # "not wanting to live anymore" (non-native), "if tomorrow never came for me"
          rf"|\b(?:would not|will not) (?:even )?(?:fight|resist) it\b"
          rf"|\brather not (?:be|exist|be here|be around|be alive)(?: anymore| any more| at all)(?= \||$| tbh| "
          rf"honestly| ngl)"
          rf"|\b(?:ok|okay|fine|at peace|cool|alright) with (?:not waking up|never waking up|not being (?:here|alive|"
          rf"around)|not existing)\b"
          rf"|\b(?:i am |am |i )not wanting {TO} (?:live|be alive|exist) (?:anymore|any more|no more)(?= \||$)"
          rf"|\bwould not (?:even |really )?be (?:sad|upset|mad|sorry|bothered|unhappy) if tomorrow never (?:came|comes)"
          rf"(?: for me)?(?= \||$)"
          # third probe: "would be ok if i never saw another day", "hoping something happens to me", "death would be a
          # vacation at this point", "i ask god to just take me"
          rf"|\b(?:would|will) (?:be|feel) (?:so |really |honestly |kinda |kind of |just |totally |actually )?(?:relieved|"
          rf"glad|happy|fine|ok|okay|at peace|grateful) (?:{W} ){{0,2}}?if i never (?:saw|see|woke up to|wake up to|"
          rf"lived to see) another (?:day|morning|sunrise|year|birthday)\b"
          rf"|\b(?:hope|hoping|pray|praying|wish|wishing) (?:that )?(?:something|anything) (?:bad )?(?:happens|will happen|"
          rf"would happen) to me\b(?! (?:at|in|on|today|this|for|like)\b)"
          rf"|\b(?:death|dying|being dead) (?:would be|sounds like|feels like|is) (?:a |such a )?(?:vacation|holiday|rest|"
          rf"break|mercy|blessing|gift|release)\b"
          rf"|\b(?:ask|asking|asked|beg|begging|begged) (?:god|the universe|jesus|allah) {TO} (?:just )?(?:take me|let me "
          rf"die|end (?:it|me|my life))\b",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: not ("wake" in m.group() and _wake_bounded(d, j)) and not d.sentence_has(i, _MEDIA)
          and re.search(
              r"\b(?:game|character|exam|exams|shift|meeting|surgery went|flight|plane (?:lands|landed)|moved|"
              r"cancelled|canceled|postponed|rescheduled)\b", d.norm) is None and (not re.search(
              r"\b(?:fight|resist) it$", m.group()) or re.search(r"\b(?:sick|ill|illness|cancer|disease|happened to me|"
                                                               r"happens to me|my time|dying|death|die)\b", d.norm)),
          gate=frozenset("mind relieved glad happy fine ok okay peace grateful sad upset mad sorry bothered "
                         "unhappy easier better simpler peaceful lighter fight resist rather cool alright wanting "
                         "tomorrow another something anything vacation holiday rest break mercy blessing gift release "
                         "god universe jesus allah".split())),
    # done with being alive, better dead, wishing not to be living, "i just want to not be" ("im done being
    # alive", "better for me to be dead i think", "i am wishing to not be living anymore"). Must not: "done with
    # living in london", "done with life admin", "better dead than red" (the life, not a thing of it)
    _Rule("wish_not_living",
          rf"\b(?:i am|am|i am so|so|just|honestly) (?:so |just |really |completely |totally )?done (?:with )?"
          rf"(?:being alive|existing|living)(?= \||$| honestly| tbh| ngl| lol| anymore| any more| i | and)"
          rf"|\bbetter (?:for (?:me|everyone|everybody) )?(?:to be|if i (?:was|were|am)) dead\b"
          rf"|\b(?:wish|wishing|want|wanting|wanna|would like) (?:{TO} )?(?:just )?not (?:be )?(?:living|alive|"
          rf"exist|existing)(?: anymore| any more| no more)?(?= \||$| anymore| honestly| tbh| ngl| lol| i | and)"
          rf"|\b(?:want|wanna|wish) {TO} (?:just )?(?:not be|stop being)(?= \||$)",
          "high", "suicidal_ideation", mode="self",
          check=_unless_media_or(
              r"\b(?:than red|game|character|in (?:london|this|the|my|a)|with (?:my|them|him|her|roommates?|parents)|"
              r"paycheck|admin|on (?:social media|twitter|instagram|tiktok|facebook|socials|the internet|here)|"
              r"online|for a (?:while|bit|day|week|weekend))\b"),
          gate=frozenset("done dead not stop".split())),
    # not being here, after a wish and some words ("wish i could fall asleep and just not be here anymore").
    # Must not: "wish i was not here at work", "wish i could just not be here for this meeting"
    _Rule("wish_not_here_far",
          rf"\b(?:wish|want|wanna|wanted|hope|would like|would love) (?:{W} ){{1,6}}?(?:just )?not (?:be|being) "
          rf"(?:here|around|alive) (?:anymore|any more|at all|forever|for good|ever again)\b",
          "high", "suicidal_ideation", mode="self",
          check=_unless_media_or(
              r"\b(?:at (?:work|school|this|the)|in (?:this|the) (?:meeting|class|office|room|house|city|town|job)|"
              r"this (?:meeting|party|class|job|town|city|place|school|office)|for (?:this|the) (?:meeting|party|"
              r"class|exam|dinner|talk)|job|work|school)\b"),
          gate=frozenset("here around alive".split())),
    # a time named for the end, no act named (warning sign: talking about a time): "after my mom's birthday i'll be
    # gone", "once the rent is paid i can finally be gone", "3 more days and it's over for me", "i wont need to be
    # here anymore", "by sunday none of this will be my problem anymore", "set a date. the 14th", "get through my
    # sisters wedding, then i can finally go". Must not: "after christmas i'll be gone to my parents" (a place
    # or trip), "3 more days and its over, last exam on thursday", "set a date for the wedding", "the project
    # ships friday", "get through this shift then i can finally go home"
    _Rule("timeline_set",
          rf"\b(?:after|once|when|by) (?:{W} ){{1,6}}?(?:\| )?(?:then )?i (?:will|can|am going to|am gonna) "
          rf"(?:finally )?be gone(?= \||$| for good| forever| tbh| honestly| lol| ngl| and)"
          rf"|\b(?:the|my) last (?:weekend|week|christmas|birthday|summer|day|night|month|sunday|friday) i (?:will|"
          rf"am going to) ever (?:have|see|spend)(?= \||$| tbh| honestly| ngl| lol| i )"
          # second probe: "by this time next week i wont be a problem", "in 2 weeks none of this will matter", "i gave
          # myself till the end of the month", "once i finish the letters its time", "when my lease ends so do i"
          rf"|\b(?:by|after|before|in) (?:this time )?(?:next (?:week|month)|tomorrow|tonight|the weekend|monday|tuesday|"
          rf"wednesday|thursday|friday|saturday|sunday|{_NUM8} (?:days|weeks)) (?:\| )?i (?:will not|am not going to) "
          rf"be (?:a |your |anyones |)(?:problem|burden|bother)(?= \||$| anymore| any more)"
          rf"|\b(?:in {_NUM8} (?:days|weeks|hours)|by (?:tomorrow|tonight|the weekend|next week|monday|tuesday|wednesday|"
          rf"thursday|friday|saturday|sunday)|soon|tomorrow|next week) (?:\| )?none of (?:this|it) (?:will|is going "
          rf"to) matter(?= \||$)"
          rf"|\bi (?:have )?(?:gave|given|give) myself (?:until|till|til|to|one more|another|{_NUM8}) (?:{W} ){{0,4}}?"
          rf"(?:week|weeks|month|months|days|year|birthday|christmas|friday|saturday|sunday|monday)(?= \||$)"
          rf"|\b(?:once|when|after) (?:{W} ){{1,6}}?(?:letters|notes|note|letter|goodbyes|affairs|will) (?:{W} ){{0,3}}?"
          rf"(?:\| )?(?:it is|its|then its|then it is) time(?= \||$)"
          rf"|\b(?:when|once|after) my {W}(?: {W}){{0,2}} (?:ends?|runs out|is over|is up|expires?) so (?:do|will) i\b"
          # third probe: "after my results come out, im out. permanently", "2 more weeks. then its finished", "after
          # this weekend you wont hear from me"
          rf"|\b(?:after|once|when|by) (?:{W} ){{1,7}}?(?:\| )?(?:i am|i will be) (?:out|done|gone)(?: with (?:all of )?(?:it|"
          rf"this|everything))? (?:\| )?(?:permanently|for good|forever)(?= \||$)"
          rf"|\b{_NUM8} more (?:days|weeks|nights) (?:\| )?(?:and )?(?:then )?(?:it is|its) (?:all )?(?:finished|over|done)"
          rf"(?= \||$)"
          rf"|\b(?:after|from|by) (?:{W} ){{1,3}}?you (?:will not|are not going to) (?:hear from|see) me(?= \||$| again| "
          rf"anymore| any more)"
          rf"|\bi (?:will|would) not need {TO} be (?:here|around|alive) (?:anymore|any more|much longer|after "
          rf"(?:that|this|then))\b"
          rf"|\bnone of (?:this|it) will be my (?:problem|concern|business) (?:anymore|any more|soon|after)\b"
          rf"|\b(?:(?:\d+|a few|two|three|four|five|six|couple of|couple) more (?:days|weeks|nights)|until (?:{W} ){{1,5}}?|"
          rf"till (?:{W} ){{1,5}}?|if nothing changes|and then|then) (?:{W} ){{0,2}}?(?:\| )?(?:and )?(?:then )?"
          rf"(?:it is|its|that is|thats|it will be|it all) (?:all )?(?:over|it|done) for me(?= \||$| for good| "
          rf"forever| lol| tbh| honestly| ngl)"
          rf"|(?:^|(?<=\| )|(?<=\bi )|(?<=\bi have )|(?<=\balready )|(?<=\bfinally ))(?:set|picked|chosen|chose|"
          rf"decided on|got) (?:a|the|my) (?:date|day)(?: already)?(?= \||$)"
          rf"|\b(?:get|getting|got) through (?:{W} ){{1,5}}?(?:\| )?(?:and |then |and then )+i can (?:finally )?"
          rf"(?:go|let go|be gone)(?= \||$)"
          rf"|\b(?:i will|i can|i will finally|i can finally|then i will|then i can|soon i will) (?:finally )?be "
          rf"free(?: of (?:all )?(?:this|it)(?: all)?| from (?:all )?(?:this|it)(?: all)?)? (?:for good|forever)\b"
          rf"|\b(?:nothing|nobody|no one|no reason) (?:left )?(?:keeping|to keep|holding) me here\b(?=.*\b(?:once|"
          rf"after|when|by|until)\b)|\b(?:once|after|when) (?:{W} ){{1,6}}?(?:\| )?(?:there is |there will be |"
          rf"then )?(?:nothing|nobody|no one|no reason) (?:left )?(?:keeping|to keep|holding) me here\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _LEAVING_BENIGN.search(_outside(d, m)) is None and not re.search(
              r"\b(?:lease|contract|shift|semester|term|season|show|series|game|match|exam|exams|test|diet|"
              r"internship|school|class|course|project|deadline|flu|cold|storm|winter|pain|hangover|headache|visit|"
              r"stay|in town|at the office|at work|on call|loan|loans|debt|debts|mortgage|paid off|pay off|wedding "
              r"(?:is|date)|for the wedding|party|meeting|appointment|interview|launch|release|home|to bed|bed|"
              r"to (?:my|the|our) \w+|visa|landlord|braces|cast|rehab|detox|sentence|probation|school|uni|"
              r"dinner|lunch|vacation|baby|due date|renovation|build|building|construction|kitchen|bathroom|"
              r"thesis|essay|book|retail|i mean)\b", _outside(d, m)),
          gate=frozenset("gone need problem concern business me date day go free here ever burden bother matter "
                         "myself time i permanently finished over".split())),
    # a goodbye that reads final, in chat wording: gratitude for everything said twice ("thank you for everything.
    # really. for everything"), the listener told not to be sad because one is free ("dont be sad ok? im finally
    # free"), a goodbye said to all with thanks ("i am saying the goodbye to all of you, thank you for all"), a bond
    # in the past tense and a goodbye ("u were the best friend anyone could ask for. goodbye", "i love u. always
    # did. goodbye"), "it's been a good run, love you all", "take care of mom for me", "make sure my brother
    # knows it wasnt his fault". Must not: "thank you for everything, see you monday", "dont be sad, ill be back
    # in june", "its been a good run guys, the show ends next week", "take care of mom for me while im in london",
    # "i love u. always did. see u at dinner"
    _Rule("farewell_final_chat",
          rf"\b(?:thank you|thanks|thank u|thx) for everything (?:\| )?(?:(?:really|truly|seriously|honestly|i mean it)"
          rf" (?:\| )?)+(?:for everything|for all of it|every single thing)(?= \||$)"
          rf"|\b(?:do not|please do not) (?:be sad|cry|mourn|grieve|miss me|cry for me|be sad for me)\b(?: {W}){{0,3}}?"
          rf" (?:\| )?(?:i am|i will be) (?:finally )?(?:free|at peace|in a better place|somewhere better|not in pain "
          rf"(?:anymore|any more))(?= \||$)"
          rf"|\b(?:saying|say|said|to say) (?:the |my )?(?:goodbye|goodbyes|farewell) to (?:all of you|you all|"
          rf"everyone|everybody|all)\b(?=.*\b(?:thank|thanks|love|sorry|forgive)\b)"
          rf"|\b(?:you were (?:the best|always (?:there|the best|so good)|my best|such a good|the only)|you (?:meant|"
          rf"mattered) (?:so much|everything|the world|to me)|always did|i (?:loved|always loved) (?:you|u))\b"
          rf"(?=(?:(?! see you| talk| tomorrow| later| tonight| dinner).)*\bgoodbye(?= \||$))"
          rf"|\b(?:it has been|its been|it was|been) (?:a )?(?:good|great|nice|fun|long) (?:run|ride)\b(?=.*\b(?:love "
          rf"(?:you|u|ya)|goodbye|bye|sorry|take care)\b)"
          rf"|(?:^|(?<=\| ))(?:please )?(?:take care of|look after) (?:mom|mum|dad|my (?:mom|mum|dad|mother|father|"
          rf"kids|children|sister|brother|dog|cat|parents|family)) for me(?= \||$| ok| okay| please| alright)"
          rf"|\bmake sure (?:my {W}(?: {W})?|they|he|she|everyone|mom|mum|dad) knows? (?:that )?(?:it is|its|it was|"
          rf"this is|this was|none of this (?:is|was)) not (?:his|her|their|your|anyones) fault(?= \||$)"
          # second probe: "none of this is ur fault. bye", "goodbye my friend, you were always good to me", "youll be
          # fine without me. goodbye", "im sorry i couldnt stay" with thanks, "hug mom for me", "goodnight. and goodbye."
          rf"|\bnone of (?:this|it) (?:is|was) (?:your|ur|anyones|their|his|her) fault\b(?=.*\b(?:bye|goodbye|love you|take "
          rf"care)\b)"
          rf"|\bgoodbye\b(?=.*\b(?:you were (?:always|the best|my best|such a|so good)|you (?:meant|mattered) (?:so much|"
          rf"everything|the world|to me))\b)"
          rf"|\b(?:you|you all|everyone|everybody|they) (?:will|would) (?:all )?be (?:fine|ok|okay|better|happier|better "
          rf"off) without me\b(?=.*\b(?:goodbye|bye|farewell)\b)"
          rf"|\bsorry (?:that )?i (?:could not|can not|was not strong enough to) (?:stay|hold on|be stronger|fight "
          rf"(?:it )?(?:anymore|any longer)|keep going)(?= \||$)(?=.*\b(?:thank|thanks|love|the best|goodbye|bye)\b)"
          rf"|\b(?:thank you|thanks|thank u|thx) for being (?:the best|my|such|a|so)\b(?=.*\bsorry (?:that )?i (?:could not|"
          rf"can not) (?:stay|hold on|be stronger|keep going)(?= \||$))"
          rf"|(?:^|(?<=\| ))(?:please |pls )?(?:hug|kiss) (?:mom|mum|dad|my (?:mom|mum|dad|mother|father|kids|children|"
          rf"sister|brother|parents|family)|the kids|everyone) for me(?= \||$)"
          rf"|\bgood ?night (?:\| )?(?:and )?goodbye(?= \||$)"
          # third probe: "this is the last thing ill ever write", "thank you for being there, even at the end", "when
          # youre reading this ill be at peace", "please dont blame yourselves", "just know i tried my best. bye"
          rf"|\b(?:this is|these are) the last (?:thing|things|words?|message|text|post) i (?:will|am going to) ever "
          rf"(?:write|say|send|post|type)(?= \||$)"
          rf"|\b(?:thank you|thanks|thank u) for (?:{W} ){{1,4}}?even (?:at|to|until|till) the (?:very )?end(?= \||$)"
          rf"|\b(?:when|by the time|if) you are reading this (?:\| )?i (?:will|would) (?:already )?(?:be|have) (?:at "
          rf"peace|gone|dead|free|somewhere better|left)\b"
          rf"|\b(?:please (?:do not|never)|do not ever) blame (?:yourself|yourselves|anyone|each other)(?= \||$)"
          rf"|\bdo not blame yourselves(?= \||$)"
          rf"|\b(?:just )?(?:know|remember) (?:that )?i (?:tried|did) my (?:best|very best)\b(?=.*\b(?:bye|goodbye|love "
          rf"you|sorry)\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _BENIGN_REASON.search(_outside(d, m)) is None and _LEAVING_BENIGN.search(d.norm) is None
          and _BENIGN_FAREWELL.search(_outside(d, m)) is None and not d.sentence_has(i, _MEDIA) and not re.search(
              r"\b(?:show|season|series|team|career|band|store|shop|server|stream|podcast|club|league|semester|"
              r"while i am|until i|till i|when i am back|this weekend|for the week|back in|broke|lost|accident|"
              r"vase|game|match|spill\w*|mess)\b", d.norm),
          gate=frozenset("everything sad cry mourn grieve miss goodbye goodbyes farewell were meant mattered did "
                         "loved run ride care after knows know fault without sorry hug kiss night goodnight "
                         "being ever end reading blame yourselves tried".split())),
    # love said to someone through a go-between, non-native wording ("please say to my mother i am loving her").
    # Must not: "tell my mom i loved the flowers" (a thing loved, not the person)
    _Rule("farewell_tell_love",
          rf"\b(?:please )?(?:say|tell) to (?:my {W}|them|everyone|everybody|my family|all) (?:that )?i (?:am loving|"
          rf"was loving|love|loved|always loved) (?:her|him|them|you|everyone|all of you|all)\b"
          rf"|\bif i (?:do not|never|can not) (?:reply|answer|text (?:you )?back|respond|come back|make it|wake up)\b"
          rf"(?: {W}){{0,3}} (?:\| )?(?:please )?(?:know|remember) (?:that )?i (?:loved|always loved|love) (?:you|them|"
          rf"you all|everyone)\b",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and (m.group().startswith("if") or _BENIGN_FAREWELL.search(
              d.norm) is None) and not re.search(r"\b(?:battery|signal|wifi|exam|surgery|busy|asleep|late)\b", d.norm),
          gate=frozenset({"to", "if"})),
    # a decision made, with the sudden calm or the closed door that marks it final ("ive made my decision. dont
    # try to change my mind", "my minds made up. no one can talk me out of it", "i made my choice and im ok with
    # it now", "ive never felt so at peace. its all decided", "i have taken my decision, nobody can stop me now").
    # Must not: a decision named as everyday ("made my decision, im taking the job in berlin", "ive decided!
    # pizza tonight", "my minds made up, im dyeing my hair blue", "i made my choice, going with the blue one")
    _Rule("decided_final",
          rf"\b(?:(?:i have |i )?(?:made|taken) (?:my|the|a) (?:decision|choice)|my minds? (?:is )?made up|made up "
          rf"my mind|(?:it is|its) (?:all )?decided|i have decided|i (?:have )?chosen)\b"
          rf"|(?P<strong>\b(?:(?:my|the) (?:choice|decision) is (?:made|final)|nothing (?:left|more) to decide)(?= \||$)"
          rf"|\b(?:no one|nobody|nothing) can (?:change|stop) (?:this|it|my mind) (?:now|anymore)(?= \||$| it| its| i )"
          rf"|\bi already decided(?= (?:\| )?(?:it is|its) (?:just )?a matter of time))"
          rf"|(?P<calm>\b(?:feel|feeling|am|i am) (?:so much |much |a lot |weirdly |strangely |so |really )?(?:better|lighter|calmer|"
          rf"calm|relieved|at peace|ok|okay|good) now that i (?:(?:know|have decided) (?:when|how)(?= \||$)|know what i "
          rf"(?:will|am going to) do|have decided|have chosen|made (?:my|the) (?:decision|choice)|have a plan)\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _DECISION_BENIGN.search(d.norm) is None
          and (_DECISION_FINAL.search(d.norm) is not None or m.group("strong") is not None or m.group("calm") is not None),
          gate=frozenset("decision choice made decided chosen decide change stop that".split())),
    # ready to go, with the sadness said to be gone ("i dont feel sad anymore, i just feel ready to go"); "no more
    # doubts. i know what im doing tonight". Must not: "i dont feel nervous anymore, i feel ready for the race",
    # "packed and ready to go", "i know what im doing tonight: netflix"
    _Rule("decided_ready",
          rf"\b(?:feel|am|i am|feeling) (?:so |really |finally |just )?ready {TO} (?:go|let go|leave)(?= \||$| now| "
          rf"tbh| honestly)"
          rf"|\bno more doubts (?:\| )?i know what i am (?:doing|going to do) (?:tonight|tomorrow|this weekend|now)"
          rf"(?= \||$)"
          rf"|(?P<soon>\bno more (?:pain|suffering|hurting|hurt) (?:soon|after (?:tonight|today)|tomorrow|forever)(?= \||$)"
          rf"|\bi know (?:it|this|everything) (?:all )?ends? (?:soon|tonight|tomorrow)\b)",
          "high", "warning_sign", mode="self",
          check=lambda d, m, i, j: _no_benign_reason(d) and _DECISION_BENIGN.search(d.norm) is None and (
              m.group().startswith("no more") or re.search(
                  r"\b(?:(?:not|no longer) (?:feel )?(?:sad|scared|afraid|depressed|anxious|worried|angry)|(?:do not|"
                  r"dont) feel (?:sad|scared|afraid|anything)|(?:sad|scared|afraid|pain) (?:anymore|any more)|feel (?:so "
                  r"|really |strangely |weirdly )?(?:calm|at peace|peaceful|relieved))\b",
                  d.norm) is not None),
          gate=frozenset("ready doubts pain suffering hurting hurt ends end".split())),
    # active ideation wondered about or imagined ("wondering what it would be like to just end everything", "keep
    # thinking how easy it would be to just end it"), thought of in non-native wording ("i am thinking to kill
    # myself", "many times i think to finish my life"), held back ("how much longer i can stop myself from ending
    # it"), fantasised ("i fantasize about not waking up ever"). Must not: "wondering what it would be like to end
    # things with him", "thinking to finish my thesis", "stop myself from eating the cake"
    _Rule("ideation_wonder",
          rf"\b(?:wonder|wondering|wondered|imagine|imagining|thinking|think|thought) (?:about )?(?:what it would be "
          rf"like|how easy it would be|how it would feel|how peaceful it would be|how nice it would be) {TO} (?:just )?"
          rf"(?:end (?:it|it all|everything|my life)|kill myself|die|not exist|not be here|disappear forever)\b"
          rf"|\b(?:think|thinking|thought|am thinking|was thinking) {TO} (?:kill myself|finish my (?:own )?life|end "
          rf"my (?:own )?life|finish with my life|take my (?:own )?life|make suicide|do suicide|commit suicide)\b"
          rf"|\bfinish(?:ing)? (?:with )?my (?:own )?life(?= \||$| tonight| soon| now| because| i | and)"
          rf"|\b(?:stop|stopping|keep|keeping|hold|holding) myself (?:back )?from (?:ending it|ending (?:my life|it "
          rf"all|everything)|killing myself)\b"
          rf"|\b(?:fantasi[sz]e|fantasi[sz]ing|dream|dreaming|daydream\w*) (?:about|of) (?:not waking up|not existing|"
          rf"not being here|ending it|ending my life|killing myself)\b"
          rf"|\b(?:ending it(?: all)?|ending my life|killing myself|suicide|taking my (?:own )?life) (?:sounds|seems|looks|"
          rf"feels) (?:better|more appealing|more tempting|easier|nicer|like a good idea|like the answer|like relief)"
          rf"(?: and better)?(?: every day| each day| by the day| lately| tbh| honestly|(?= \||$))"
          # third probe: "i could just end it, nobody would know", "suicide keeps popping up in my head"
          rf"|\bi could (?:just |easily )?(?:end it(?: all)?|end my life|take my (?:own )?life)(?= \||$| nobody| no one| "
          rf"and| tonight| tbh| honestly)"
          rf"|\b(?:suicide|killing myself|ending it(?: all)?|ending my life|kms) (?:keeps|kept|keeps on|has been|is) "
          rf"(?:popping up|coming up|creeping in|crossing my mind|coming back) (?:in my (?:head|mind|thoughts)|again|"
          rf"lately)?\b",
          "high", "suicidal_ideation", mode="self",
          check=lambda d, m, i, j: _ENDS_A_THING.search(d.norm) is None and not d.sentence_has(i, _TOPIC | _MEDIA),
          gate=frozenset("like easy feel peaceful nice kill finish end take suicide life myself not ending killing "
                         "taking could popping coming creeping crossing".split())),
    # thinking about ending things, a bare progressive ("not sure i want to keep going, thinking bout ending
    # things"). Must not: "thinking about ending things with him" (a relationship), "my friend is thinking about
    # suicide" (somebody else's: concern), "they taught us to ask whether someone is thinking about suicide" (a
    # generic subject), a topic or a story
    _Rule("ideation_thinking",
          r"\b(?:thinking|thinkin) (?:about|abt|bout|of) "
          r"(?:ending (?:things|it all|everything|my life)|killing myself|unaliving(?: myself)?|suicide)"
          r"(?= \||$| again| lately| tbh| honestly| ngl| lol| fr| a lot| more)",
          "high", "suicidal_ideation",  # its subject judged: "whether someone is thinking about suicide" is nobody's
          check=lambda d, m, i, j: _ENDS_A_THING.search(d.norm) is None and not d.sentence_has(i, _TOPIC | _MEDIA)
          and (not m.group().endswith("ending things") or re.search(  # alone, "ending things" stays medium (end_things)
              r"\b(?:keep going|go on|carry on|no point|give up|giving up|tired of (?:everything|life|living|it all)|"
              r"hopeless|can not do this)\b", d.norm) is not None),
          gate=frozenset({"thinking", "thinkin"})),
    _Rule("third_reflexive",
          r"\b(?:kill|killed|kills|killing|killin|unalive|unalived|unalives|hang|hanged|hung|shoot|shot|shoots|off|"
          r"offed|end|ended|ends|ending|overdosed on purpose) (?:himself|herself|themselves)\b",
          "medium", "third_party_concern", mode="third", check=_third_reflexive_check),
    _Rule("third_harm",
          r"\b(?:hurt|hurts|hurting|harm|harms|harming|cut|cuts|cutting|burn|burns|burning|starve|starves|starving) "
          r"(?:himself|herself|themselves)\b",
          "medium", "third_party_concern", mode="third", check=_third_harm_check),
    _Rule("third_life",
          r"\b(?:end|ended|ending|ends|take|took|taking|takes) (?:his|her|their) (?:own )?life\b(?! back\b)",
          "medium", "third_party_concern", mode="third"),
)


# ------------------------------------------------------------- issue 21, eighth round: the checks' vocabularies
# a decision named as everyday: a job, a move, food, a purchase, a look, study, a relationship ("made my decision,
# im taking the job in berlin", "ive decided! pizza tonight", "i know what i have to do now: study")
_DECISION_BENIGN = re.compile(r"\b(?:job|offer|move|moving|pizza|food|dinner|lunch|breakfast|takeaway|order|ordering|"
                              r"hair|dye|dyeing|dying my|tattoo|piercing|car|house|flat|apartment|dress|outfit|colou?r|"
                              r"blue|red|green|black|pink|(?:the|that|this|other|new|first|second|cheaper|bigger|smaller) one|buy|buying|bought|study|studying|revise|revising|uni|"
                              r"college|major|course|degree|break up|breaking up|broke up|dump|dumping|divorce|"
                              r"propose|proposing|quit|quitting|resign\w*|vote|voting|name|puppy|kitten|gym|diet|"
                              r"vegan|sober|drinking|smoking|cake|pick me up|race|match|game|trip|flight|holiday|"
                              r"vacation|party|wedding|exam|interview)\b")
# what makes a decision final: the door closed on others, a calm or readiness now ("dont try to change my mind",
# "nobody can stop me now", "im ok with it now", "ive never felt so at peace")
_DECISION_FINAL = re.compile(r"\b(?:(?:do not|dont|please do not) (?:try|bother)|nobody can|no one can|noone can|"
                             r"(?:can not|cannot|will not|wont) (?:stop|change) me|stop me|talk me out|change my mind|"
                             r"at peace|peaceful|so calm|calm now|feel calm|ready now|i am ready|not scared|"
                             r"not afraid|no more doubts|lighter|(?:ok|okay|fine) with it|there is no going back|"
                             r"no turning back|for the best)\b")


# ------------------------------------------------------------- issue 21, fifth round: the checks' vocabularies
# an everyday task or event that "not surviving" is about ("I'm not going to survive this exam week")
_EVERYDAY_TASK = re.compile(r"\b(?:exam|exams|finals|party|meeting|class|deadline|diet|workout|gym|shift|semester|"
                            r"wedding|hen do|stag do|holiday|trip|dinner|in laws?|inlaws|lol|lmao|haha\w*|cold|flu|"
                            r"hangover|heat|heatwave|winter|commute|course|marathon|race|season)\b")
# "end it" / "do it" about a thing that ends (a story, a relationship, a call), not a life
_ENDS_A_THING = re.compile(r"\b(?:with (?:him|her|them)|relationship|boyfriend|girlfriend|bf|gf|break up|breaking up|"
                           r"subscription|contract|lease|streak|conversation|call|meeting|game|series|season|show|"
                           r"chapter|story|essay|book|novel|speech|presentation|stream|video|post|email|lesson|class|"
                           r"project|homework|proposal|propose|ring|tattoo|piercing|haircut|gig|set|song|match|"
                           r"trip|run|hike|race|interview|bungee|skydiv\w*|parachute|pool|dive|diving)\b")
_DEATH_CONTEXT = re.compile(r"\b(?:die|dying|dead|death|suicide|kill myself|end it|end my life|pills|overdose|rope|"
                            r"noose|gun|jump|bridge|cliff|roof|quarry|tracks|goodbye|not survive|be gone|"
                            r"no one will find|nobody will find|find me)\b")


def _slot_check(d: _Doc, m: re.Match[str]) -> bool:
    """A place/time + "I will" + the act: an act that ends a life ("do it", "go through with it" and "jump" need
    a death word or a means in the message), about no thing that ends by itself (a story, a relationship)."""
    if _ENDS_A_THING.search(d.norm) or re.search(r"\b(?:someday|one day|when i am old|old age|retire\w*)\b", d.norm):
        return False
    if re.search(r"\b(?:do it|jump|go through with it|die)$", m.group()):
        return bool(_DEATH_CONTEXT.search(d.norm[:m.start()] + d.norm[m.end():]) or _METHOD_CUE.search(d.norm))
    return True


# a jump, a drive off or "end it" that is sport, a swim or a game
_BENIGN_JUMP = re.compile(r"\b(?:bungee|skydiv\w*|parachut\w*|base jump\w*|pool|pier|dock|jetty|swim|swimming|"
                          r"diving board|dive|trampoline|rope swing|waterfall|puddle|waves|dance|party|concert|queue|"
                          r"cannonball|lake for|river for|cliff jumping|hurdles?|long jump|high jump|ski|skiing|"
                          r"snowboard\w*|parkour|game|level|scene|film|movie|story|character|video)\b")
# a self-directed lethality question: "for me", "I need to know", "someone my size" make it one whatever else is
# said; without that, a question for a story, a class, a job or about an animal is information
_FOR_ME = re.compile(r"\b(?:for me|for myself|i need to know|asking for myself|not for a (?:story|book|novel|"
                     r"class|project|game|script)|my (?:weight|size|height)|someone my (?:size|weight)|person my "
                     r"(?:size|weight)|if i (?:did|do|tried|try))\b")
_INFO_CONTEXT = re.compile(r"\b(?:story|novel|book|character|script|film|movie|show|game|class|homework|essay|"
                           r"physics|biology|chemistry|exam|course|lecture|nurse|nursing|paramedic|first aid|doctor|"
                           r"medic|for (?:my )?(?:job|work)|at work|safety|climbing|roofer|roofers|scaffold\w*|documentary|podcast|dog|cat|"
                           r"puppy|kitten|pet|pets|plant|fish|bird|caffeine|coffee|energy drinks?|water|salt|"
                           r"chocolate|grapes|xylitol|nutmeg|toddler|baby|kid|child|mystery|writing|writer|author|plot|crime|"
                           r"thriller|fiction|screenplay|dnd|campaign)\b")


def _lethality_check(d: _Doc, i: int) -> bool:
    if re.search(r"\bhow (?:many|much) (?:more )?(?:of us|of them|people|humans|kids|children|lives|soldiers|animals|"
                 r"innocent|americans|patients|civilians)\b", d.norm):
        return False  # "how many of us have to die before ...": a rhetorical count of others' deaths
    if _FOR_ME.search(d.norm):
        return True
    return _INFO_CONTEXT.search(d.norm) is None and not d.sentence_has(i, _TOPIC | _MEDIA)


# a supply with an everyday reason (a strike, travel, a shortage) or somebody else's
_SUPPLY_BENIGN = re.compile(r"\b(?:money|cash|pay|paying|afford|cost|costs|price|strike|shortage|shortages|travel|travelling|traveling|trip|holiday|vacation|"
                            r"abroad|insurance|lockdown|hurricane|storm|snow|winter supply|in case the pharmacy|"
                            r"pharmacy (?:closes|is closing|closed)|(?:her|his|their|mums|moms|dads|grans) "
                            r"(?:prescription|pills|meds)|bbq|barbecue|grill|camping|hunting|range|fishing|"
                            r"tape for the (?:box|boxes|move|parcel)|moving|dispose|disposal|hand(?:ed)? (?:them|it) in|"
                            r"take (?:them|it) back|return)\b")
# affairs put in order for an everyday reason (seventh round): taxes, a baby, a wedding, retiring, a posting
_AFFAIRS_BENIGN = re.compile(r"\b(?:tax|taxes|accountant|retire\w*|estate planning|lawyer|solicitor|baby|pregnan\w*|"
                             r"married|wedding|mortgage|deploy\w*|before the|financial|finances|budget|new year)\b")
# self-harm words about a hobby, a cook, a pet, skin or somebody else's wound
_HARM_BENIGN = re.compile(r"\b(?:accident|accidentally|cooking|shaving|shave|shaved|hair ?cut|haircut|grass|lawn|budget|paper|"
                          r"onions?|garden\w*|brambles?|thorns?|roses|cat|dog|puppy|kitten|pet|vet|cone|eczema|"
                          r"rash|mosquito|bites|"
                          r"chickenpox|spots|acne|surgery|stitches from|fell|falling|fall off|bike|skateboard|graze|"
                          r"grazed|scrape|scraped)\b")

_SERIOUS = re.compile(r"\b(?:not a joke|no joke|not joking|not kidding|i mean it|for real|this time|goodbye|not "
                      r"bluffing|i am serious|nobody can stop me|no one can stop me)\b")
# the act a concealed slot hides: a lethal means or the act named
_CONCEALED_ACT = re.compile(r"\b(?:pills|tablets|overdose|od|rope|noose|gun|pistol|rifle|hose|exhaust|charcoal|knife|"
                            r"blade|razor|end it|end my life|kill myself|take my life|jump|hang|the bridge|the cliff|"
                            r"the tracks|the garage|everything in the)\b")


def _intent_act_check(d: _Doc, m: re.Match[str]) -> Level | bool:
    """The lethal act meant: no thing that ends by itself, no sport; a pill taken at a time is a plan only with
    a slot that hides it or a quantity ("the pills on sunday when nobody's home", not "my pills at 8"). A means
    named makes it a plan's category (suicide_plan), the act alone ideation with intent."""
    if _ENDS_A_THING.search(d.norm) or _BENIGN_JUMP.search(d.norm):
        return False
    if not re.search(r"\b(?:pills|tablets|meds|everything|gun|pistol|rifle|rope|belt|sea|ocean|lake|river|water|waves|"
                     r"overdose|od|hang)\b", m.group()):
        return ("high", "suicidal_ideation")
    if re.search(r"\b(?:pills|tablets|meds)$", m.group()) and "all" not in m.group().split():
        return re.search(r"\b(?:nobody|no ones?|noone|alone|asleep|everyone (?:is )?(?:gone|out)|hotel|goodbye|for "
                         r"good|i mean it|there)\b", d.norm) is not None and not re.search(
            r"\b(?:prescribed|doctor|antibiotics|course|with food|after (?:breakfast|lunch|dinner|food|meals?)|"
            r"headache|vitamins?)\b", d.norm) and ("high", "suicide_plan")
    return ("high", "suicide_plan")


# a farewell addressed to a thing ("bye for good, old car", "goodbye forever, old apartment"): a vocative object
_THING_ADDRESSED = re.compile(r"^(?:\| )?(?:to )?(?:old |my |dear |sweet |little |you |beloved |lovely )*(?:car|apartment|flat|house|"
                              r"home|phone|laptop|job|office|desk|city|town|school|uni|dorm|room|bike|van|jeans|shoes|"
                              r"hair|couch|sofa|bed|mattress|kitchen|garden|street|neighbourhood|neighborhood|team|"
                              r"cubicle|braces|cast|boots|jacket|coat|plant|sweater|hoodie|pc|computer|console)\b")


def _to_a_thing(d: _Doc, j: int) -> bool:
    nxt = []
    k = j
    while k < len(d.words) and len(nxt) < 5:
        nxt.append(d.words[k])
        k += 1
    return _THING_ADDRESSED.search(" ".join(nxt)) is not None


_RANK = {"high": 2, "medium": 1}
_RULES_BY_NAME = {r.name: r for r in RULES}

_METHOD_CUE = re.compile(r"\b(?:pills|tablets|overdose|od|rope|noose|hang|hanging|jump|jumping|bridge|roof|gun|pistol|"
                         r"rifle|knife|blade|razor|wrists|train|drown|car)\b")
_TOPIC = frozenset("""awareness training trained course workshop class exam thesis research study studying article
news documentary docu podcast album track statistics rates deaths campaign fundraiser volunteer volunteering leaflet
session lecture seminar patient patients students prevention screening certified charity dissertation essay paper
module clients client therapist counsellor counselor psychologist psychiatrist nurse nurses paramedic
paramedics survivors group protocol protocols guidelines policy""".split())
