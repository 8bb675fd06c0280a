"""Extraction's compiled patterns: folds, clause splitting, time cues, phrase cutting, subjects, and the
patterns the rule tables read (agents/core/rules/extraction_rules.py, extraction_complement.py).

Pure data; no function here. A pattern is named for the rule that reads it.
"""
from __future__ import annotations

import re

from agents.core.rules.extraction_lexicon import (
    ABBREVIATIONS, BUSINESS_WORDS, PLAN_VERBS, _NEG, _NOT_SUBJECT_ROLES, _POS,
)
from domain.entities import KINSHIP, PET_WORDS


_FOLDS = [(re.compile(p, re.I), r) for p, r in (
    (r"\bi\s*'\s*m\b", "I am"), (r"\bim\b(?=\s+[a-z0-9])", "I am"), (r"\bi\s*'\s*ve\b", "I have"),
    (r"\bive\b(?=\s+(?:got|been|a|an|two|three|\d))", "I have"), (r"\bi\s*'\s*d\b", "I would"),
    (r"\bi\s*'\s*ll\b", "I will"), (r"\bwon'?t\b", "will not"), (r"\bcan'?t\b", "cannot"),
    (r"\b(do|does|did|is|are|was|were|have|has|had|could|would|should|must|need)n'?t\b", r"\1 not"),
    (r"\bwe\s*'\s*re\b", "we are"), (r"\bwe\s*'\s*ve\b", "we have"), (r"\bthey\s*'\s*re\b", "they are"),
    (r"\byou\s*'\s*re\b", "you are"), (r"\bhe\s*'\s*s\b", "he is"), (r"\bshe\s*'\s*s\b", "she is"),
    (r"\bit\s*'\s*s\b", "it is"), (r"\bthat\s*'\s*s\b", "that is"), (r"\bname\s*'\s*s\b", "name is"),
    (r"\blet\s*'\s*s\b", "let us"), (r"\b(what|where|who|how)\s*'\s*s\b", r"\1 is"),
    (r"\bwanna\b", "want to"), (r"\bgonna\b", "going to"), (r"\bgotta\b", "got to"), (r"\bkinda\b", "kind of"),
    (r"\bsorta\b", "sort of"), (r"\bu\b", "you"), (r"\bur\b", "your"), (r"\b(?:pls|plz|plss)\b", "please"),
    (r"\bluv\b", "love"), (r"\bfav\b", "favorite"), (r"\bfave\b", "favorite"), (r"\bfavourite\b", "favorite"),
    (r"\bcoz\b|\bcuz\b|\bbcoz\b|\bbc\b", "because"), (r"\s*&\s*", " and "), (r"\btmrw\b|\btmr\b", "tomorrow"),
    (r"\bi\b", "I"),
)]
_NOT_ABBREV = "".join(f"(?<!\\b{re.escape(a)}\\.)" for a in
                      dict.fromkeys(v for a in ABBREVIATIONS for v in (a, a.lower(), a.upper())))
_NOT_ABBREV += r"(?<!\b(?-i:[A-Z])\.)"
_SENT_SPLIT = re.compile(r"(?<=[.!?])" + _NOT_ABBREV + r"\s+|(?<=[!?])(?=[A-Za-z])|\n+|\s*;\s*|\s+(?=\()|\)\s*"
                         r"|(?<=[\u2600-\u27bf\U0001F300-\U0001FAFF])\s+(?=[A-Za-z])")
_TAG_Q = re.compile(r"(?:,?\s*(?:right|ok|okay|yeah|yk|you know|lol|haha|huh|no|eh|innit|correct|remember|"
                    r"did I not|do I not|is it not|am I not|you see))\s*\?+\s*$", re.I)


# ============================================================================ clauses
_SUBJ_AHEAD = r"(?:i|my|our|we|he|she|they|you|me)\b"


_Q_AHEAD = (r"(?:what|where|when|who|why|how|which|do|does|did|are|is|can|could|would|will|have|has|"
            r"and you|what about|how about)\b")
_CARRY_VERBS = (r"(?:(?:also|really|totally|absolutely|still|just|even|kind of|truly|now)\s+){0,2}"
                r"(?:love|loves|like|likes|hate|hates|enjoy|enjoys|adore|adores|dislike|dislikes|do not|"
                r"does not|cannot|prefer|prefers|work|works|live|lives|have|has|am|play|plays|study|studies|"
                r"moved|grew|turned|own|owns|detest|despise|never|go|goes|sell|offer|make|bake|serve|deliver)\b")
_CLAUSE_SPLIT = re.compile(
    rf"(?P<carry>\s*,?\s+(?:and|but)\s+(?={_CARRY_VERBS}))"
    rf"|\s*[,:]\s*(?:and\s+|but\s+|so\s+|then\s+|plus\s+|also\s+)?(?={_SUBJ_AHEAD}|{_Q_AHEAD})"
    rf"|\s+(?:and|but|so|plus|although|though|while|whereas|because|since|then|also|yet)\s+"
    rf"(?=(?:also\s+|then\s+|now\s+)?{_SUBJ_AHEAD})"
    rf"|\s+(?:and|but|or)\s+(?=(?:do|does|did|are|is|can|could|would|will|have|has)\s+you\b)"
    rf"|\s*,?\s+(?=(?:if|unless|when|whenever|until|whether|even though|in case)\s)"
    rf"|\s+-\s+", re.I)
_LEAD = re.compile(
    r"^(?:(?:and|but|so|also|plus|now|then|oh|ohh|well|yeah|yea|yes|yep|no|nah|nope|ok|okay|anyway|anyways|"
    r"btw|by the way|lol|lmao|haha\w*|hehe\w*|honestly|actually|basically|hey+|hi+|hello+|heya|hiya|yo|um+|"
    r"uh+|hmm+|tbh|fyi|just so you know|for the record|fun fact|as you know|like I said|I mean|oh and|"
    r"and also|speaking of which|good morning|good evening|good night|sup|dear|bro|dude|man|oops|ah+|wow|"
    r"omg|ugh|alright|right|namaste|hola|guess what|you know what|ngl|not going to lie|funnily enough|"
    r"of course|sure|true|exactly|same|also also|anyhow|so yeah|oh yeah|oh btw|update|quick update|"
    r"lastly|finally|firstly|first of all|secondly|plus|again|to be honest|truth is|the thing is|"
    r"in fact|seriously|literally|personally|for me|as for me|me personally|thanks|thank you|on weekends|"
    r"on the weekends?|at night|in the evenings?|in the mornings?|every (?:day|morning|evening|night|weekend)|"
    r"these days|nowadays|usually|mostly|sometimes|most days|after work|lately|recently|currently|"
    r"right now|at the moment|tonight|today|tomorrow|this weekend|next week|next month|this week|this month|"
    r"these past few (?:days|weeks|months)|since last year|for the past few (?:years|months)|in general)"
    r"(?=[\s,:;!.\-]|$)[\s,:;!.\-]*)+", re.I)
_RHETORIC = re.compile(
    r"^(?:did I (?:ever )?(?:tell|mention to) you|did I (?:ever )?mention|did you know|you know|remember|"
    r"I (?:think I )?(?:told|mentioned to) you|I (?:think I )?mentioned|I forgot to (?:tell you|mention)|"
    r"I should (?:mention|tell you|say)|I must (?:say|admit)|I have to (?:say|admit)|I (?:will|would|can) "
    r"(?:admit|say)|let me tell you|I can tell you|I want you to know|just so you know|as I said|like I said|"
    r"you should know|I guess|I suppose|I think|I feel like|I believe|I realised|I realized|I found out)"
    r"(?: that)?(?=[\s,:]|$)[\s,:]*", re.I)
_QSTART = re.compile(r"^(?:what|where|when|who|whom|whose|why|how|which|do|does|did|are|is|am|was|were|can|"
                     r"could|would|will|should|shall|have|has|had|may|might|wanna|any idea|is it|and you|"
                     r"what about|how about|you)\b", re.I)
_CONDITIONAL = re.compile(r"^(?:if|unless|when|whenever|until|whether|even though|in case|suppose|supposing|"
                          r"imagine|what if|even if|assuming|pretend|let us say|say)\b", re.I)
_BLOCKS_REST = re.compile(r"^(?:if|unless|suppose|supposing|imagine|what if|even if|assuming|pretend|let us say|"
                          r"in case)\b", re.I)
_HYPO = re.compile(
    r"\b(?:if|unless|whether|wish|wished|wishing|would(?!\s+(?:rather|prefer|like to (?:talk|chat|discuss)|"
    r"love to (?:talk|chat)))|could|might|maybe|perhaps|probably|suppose|supposing|imagine|imagining|pretend|"
    r"pretending|hypothetically|someday|one day|"
    r"(?<!getting )(?<!get )(?<!got )(?<!be )(?<!am )(?<!is )(?<!are )used to|"
    r"dream of|dreaming of|dreaming about|hope to|hoping to|"
    r"hopefully|plan to|planning to|planning on|thinking of|thinking about|considering|want to|wants to|"
    r"wanted to|should|if only|ever since|was(?!\s+born)|were|(?<!have )(?<!has )had|did|pretty sure I|not sure|"
    r"guess I|bet I|pretend|fake|fictional|in my dreams?|in the game|my character)\b", re.I)
_CUES = [(re.compile(p, re.I), lt) for p, lt in (
    (r"\b(?:tonight|tonite|today|this (?:evening|morning|afternoon|arvo)|right now|rn|at the moment|"
     r"later today|in an hour|in a few hours|for now)\b", "1d"),
    (r"\b(?:tomorrow|this weekend|day after tomorrow|in a (?:few|couple(?: of)?) days|in (?:two|2|three|3) days|"
     r"over the weekend|this saturday|this sunday)\b", "3d"),
    (r"\b(?:this week|next week|next weekend|this coming week|in a week|(?:on|this|next) (?:monday|tuesday|"
     r"wednesday|thursday|friday|saturday|sunday)|soon|later this week)\b", "7d"),
    (r"\b(?:this month|next month|in a (?:few|couple(?: of)?) weeks|in (?:two|2|three|3|four|4) weeks|"
     r"later this month|this year|next year|this (?:summer|winter|spring|fall|autumn)|next (?:summer|winter|"
     r"spring|fall|autumn))\b", "30d"),
)]


# ============================================================================ phrases and objects
_CUT = re.compile(
    r"\s*(?:[,;:()\[\]\"!?]|\." + _NOT_ABBREV + r"(?:\s|$)|\s-\s|\s(?:e\.g|i\.e)\.|"
    r"\b(?:because|since|but|although|though|which|who|whom|whose|"
    r"where|while|whereas|so that|so I|when|whenever|if|unless|until|as long as|lol|lmao|haha\w*|hehe\w*|"
    r"tbh|btw|imo|ngl|honestly|and I|and my|and we|and you|and it|and he|and she|and they|and then|"
    r"you know|I guess|I think|I suppose|I mean|anyway|right)\b)", re.I)


_TAIL = re.compile(
    r"(?:\s+(?:so much|so so much|a lot|a ton|very much|too|as well|also|really|anymore|any more|these days|"
    r"nowadays|at all|now|right now|currently|lately|still|though|actually|and stuff|and all|and things|"
    r"or something|or so|etc|in general|generally|so bad|like crazy|for sure|every day|everyday|"
    r"all the time|xd|ig|man|dude|bro|ok|okay|yeah|please|again|more|most|the most|haha|lol|even more|"
    r"more and more|personally|myself|to be honest|anyways|anyway|ever|obviously|of course|"
    r"tonight|today|tomorrow|this week|next week|this weekend|this month|next month|for now|with me|"
    r"with you|here|there|just|only|sometimes|a little|a bit|quite a bit))+\s*$", re.I)
_TAIL_ADV = re.compile(
    r"(?:\s+(?:online|outdoors|indoors|at home|alone|with (?:my )?friends|on (?:the )?weekends|at night|"
    r"in the (?:evenings?|mornings?)|after work|on my phone|in my free time|in my spare time|whenever I can|"
    r"when I can|every (?:day|week|weekend|morning|evening|night)))+\s*$", re.I)
_TRAIL_JUNK = re.compile(r"[^\w)'+#&%$]+$")
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.I)
_CUT_LIST = re.compile(_CUT.pattern.replace("[,;:()", "[;:()", 1), re.I)
_NAME_RX = re.compile(r"[^\W\d_][\w'-]*")
_AGE_RX = re.compile(r"^(\d{1,3}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|"
                     r"three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|"
                     r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
                     r"(?:\s*(?:years?|yrs?|y/?o|yo)(?:\s+old)?|\s+(?:months?)\s+old)?"
                     r"(?:\s+(?:now|this year|already|lol|haha|btw|actually|and counting|today|next month))*\s*$",
                     re.I)
_ROLE_ALT = "|".join(
    r"[\s-]+".join(re.escape(w) for w in k.split())
    for k in sorted((set(KINSHIP) | set(PET_WORDS)) - _NOT_SUBJECT_ROLES, key=lambda k: (-len(k), k)))
_ADJ = (r"(?:little|younger|older|elder|big|baby|twin|new|old|lovely|sweet|crazy|dear|late|beloved|cute|"
        r"adorable|step|eldest|youngest|oldest|only|own|two|three|rescue|adopted|precious|fluffy|lazy|"
        r"black|white|grumpy|silly|favorite|favourite|other|middle|ex|future|current)")
_ROLE_SUBJ = re.compile(rf"^(?:my|our)\s+(?P<adj>(?:{_ADJ}\s+){{0,2}})(?P<role>{_ROLE_ALT})(?:s|es)?(?![\w-])", re.I)
_SELF_SUBJ = re.compile(r"^(?:I|we)\b\s*", re.I)
_PRON_SUBJ = re.compile(r"^(?:he|she|they)\b\s*", re.I)
_ADV = re.compile(r"^(?:(?:also|really|absolutely|totally|truly|just|still|currently|now|actually|honestly|"
                  r"literally|basically|kind of|sort of|mostly|mainly|usually|personally|definitely|seriously|"
                  r"recently|finally|officially|originally|even|so|too|already|simply|genuinely|pretty much|"
                  r"lowkey|low key|highkey|deeply|super|generally|both|all|obviously|secretly|happily|"
                  r"proudly|always|lately|right now|at the moment|these days|nowadays|for some reason)\s+){0,4}",
                  re.I)
_THIRD_VERB = re.compile(r"^(?:is|has|lives|works|loves|likes|hates|enjoys|adores|prefers|plays|studies|does|"
                         r"goes|stays|turned|was|got|just|also|really|still|moved|comes|grew|teaches|runs|owns|"
                         r"can|cannot|will|would|never|absolutely|totally)\b", re.I)
_IMPLICIT_I = re.compile(r"^(?:(?:just|recently|finally|also|still|currently|now)\s+)?(?:moved|relocated|live|love|hate|"
                         r"adore|work|started|got|have|turned|grew\s+up|study|play|prefer|living|working|studying|"
                         r"based|originally\s+from|from)\b", re.I)


# ============================================================================ objects: places, orgs, jobs
_PLACE_CUT = re.compile(r"\s+(?:for|since|with|as|near|and|but|now|currently|these days|from|to|by|after|"
                        r"before|until|on|where|because|working|studying|right now|at the moment|all my life|"
                        r"my whole life|forever|alone|together|temporarily|permanently|again|though|too|"
                        r"lately|nowadays|this|next|last|tonight|today|tomorrow|originally|in (?:a|an|the)\s)\b.*$", re.I)


_PLACE_COMMA = re.compile(r"^(?-i:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2},\s*[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)?)(?![\w'])")
_ORG_CUT = re.compile(r"\s+(?:as|since|for|in|and|but|now|currently|where|because|with|doing|on|from|until|till|"
                      r"back|full[\s-]time|part[\s-]time|remotely|these days|right now|for now|over|at|"
                      r"this|next|last|today|tonight|tomorrow|every|lately|again|though|too|while|which|who|"
                      r"after|before|during|hybrid)\b.*$", re.I)
# "the Open University", "the Royal London Hospital", "the University of Edinburgh": a capitalised name
# after "the" is a proper name, not a generic place ("the library", "the hospital" stay no organisation)
_THE_PROPER = re.compile(r"^the\s+(?-i:[A-Z][\w'&.-]*)(?:\s+(?:(?-i:[A-Z][\w'&.-]*)|of|and|for|&|de|in))*$", re.I)
_JOB_OK_WORD = re.compile(r"^(?:[a-z][a-z'/-]*|[A-Z]{2,5}s?|[A-Z][a-z]+|\d+(?:st|nd|rd|th))$")
_NAMES_AFTER = re.compile(r"^\s*,?\s*(?:(?:named|called|name is|whose name is|by the name of|(?:her|his|their|its)\s+"
                          r"names?\s+(?:is|are))\s+)?"
                          r"([^\W\d_][\w'-]*(?:\s*(?:,|and)\s*[^\W\d_][\w'-]*){0,3})", re.I)
_PIECE_SPLIT = re.compile(r"\s+and\s+(?=(?:an?|one|two|three|four|\d+|some|my)\s)|,\s*(?:and\s+)?"
                          r"(?=(?:an?|one|two|three|four|\d+|some)\s)", re.I)
_TOKEN = re.compile(r"[\w'-]+")
_NAMED_EXPLICIT = re.compile(r"^\s*,?\s*(?:named|called|name is|whose name is|by the name of|"
                             r"(?:her|his|their|its)\s+names?\s+(?:is|are))\s", re.I)
_NAME_LIST_SPLIT = re.compile(r"\s*(?:,|\band\b)\s*")
_POS_RX = re.compile(r"^(" + "|".join(sorted((re.escape(k) for k in _POS), key=len, reverse=True)) + r")\s+(.+)$",
                     re.I)
_NEG_RX = re.compile(r"^(?:(" + "|".join(sorted((re.escape(k) for k in _NEG), key=len, reverse=True)) +
                     r")|(?:do|does)\s+not\s+(?:really\s+|particularly\s+|even\s+|much\s+|actually\s+|"
                     r"totally\s+|like\s+)?(like|enjoy|love|care for|dig|eat|drink|do|fancy|support))\s+(.+)$",
                     re.I)
_COMPARE = re.compile(r"^(.+?)\s+(?:more than|better than|over|rather than|instead of|than)\s+(.+)$", re.I)
_TALKING = re.compile(r"^(?:talking|discussing|chatting|speaking|hearing|being asked|getting asked|"
                      r"thinking)\s+(?:about\s+)?(.+)$", re.I)
_CONSUME = re.compile(r"^(?:eating|having|drinking|trying|ordering)\s+(.+)$", re.I)
_PEOPLE_WHO = re.compile(r"^((?:people|persons?|guys|men|women|folks|anyone|someone|those|drivers|kids)\s+"
                         r"(?:who|that)\s+[^,;.!?]+)", re.I)


# ============================================================================ "I am ..." complements
_COMP_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+(?:also\s+)?", re.I)


_FAN_OF = re.compile(r"^(?:a\s+|an\s+)?(?:(big|huge|massive|great|die[\s-]?hard|total|true|crazy|absolute)\s+)?"
                     r"fan\s+of\s+(.+)$", re.I)
_X_FAN = re.compile(r"^(?:a|an)\s+(?:(?:big|huge|massive|great|die[\s-]?hard|total|true)\s+)?"
                    r"([\w' -]{2,40}?)\s+fan$", re.I)
_INTO = re.compile(r"^(?:really\s+|so\s+|super\s+|very\s+|kind of\s+|totally\s+|big\s+|heavily\s+|deeply\s+)?"
                   r"(?:into|obsessed with|in love with|crazy about|passionate about|addicted to|hooked on|"
                   r"big on|mad about|nuts about)\s+(.+)$", re.I)
_INTERESTED = re.compile(r"^(?:really\s+|very\s+|super\s+|so\s+|quite\s+|also\s+)?(?:interested|curious)\s+"
                         r"(?:in|about)\s+(.+)$", re.I)
_ALLERGIC = re.compile(r"^(?:severely\s+|very\s+|super\s+|deathly\s+|mildly\s+)?allergic\s+to\s+(.+)$", re.I)
_NEG_COMP = re.compile(r"^(?:not|never|no longer)\s+(?:really\s+|much\s+of\s+|very\s+|that\s+|a\s+|too\s+|so\s+)?"
                       r"(?:(?:a\s+)?(?:big\s+|huge\s+|great\s+)?fan\s+of|into|big on|keen on|fond of|"
                       r"(interested|curious)\s+in|crazy about)\s+(.+)$", re.I)
_MOVING = re.compile(r"^(?:moving|relocating|shifting)\s+(?:back\s+)?to\s+(.+)$", re.I)
_GOING = re.compile(r"^(?:going|heading|flying|driving|travell?ing|off|leaving|taking a trip|going on a trip|"
                    r"going back)\s+(?:to|for)\s+(.+)$", re.I)
_VISITING = re.compile(r"^(?:visiting|meeting|seeing|catching up with|hosting)\s+(.+)$", re.I)
_BASED = re.compile(r"^(?:based|located|settled|living|staying|residing)\s+(?:in|out of|at)\s+(.+)$", re.I)
_IN_PLACE = re.compile(r"^(?:currently\s+|now\s+|still\s+)?(?:in|at)\s+(.+)$", re.I)
_WORKING = re.compile(r"^(?:working|employed|interning|an intern)\s+(at|for|with|as|on|in)\s+(.+)$", re.I)
_STUDYING = re.compile(r"^(?:studying|majoring in|doing (?:a|my)\s+(?:degree|masters|master's|bachelors|phd|"
                       r"mba|diploma|course)\s+in|pursuing(?: a)?(?: degree in)?)\s+(.+)$", re.I)
_LEARNING = re.compile(r"^(?:learning|teaching myself|taking (?:classes|lessons) in|"
                       r"practicing|practising|training for)\s+(.+)$", re.I)
# "learning (how) to play the cello" keeps the infinitive: "Is learning to play the cello", object "play the cello"
_LEARNING_TO = re.compile(r"^(?:learning|teaching myself)\s+(how\s+)?to\s+([a-z]+\b.*)$", re.I)
# "going to <verb> ...": only a verb of PLAN_VERBS, so "going to school/work/dinner" stays a trip (_GOING)
_GOING_TO_DO = re.compile(rf"^going\s+to\s+({'|'.join(sorted(PLAN_VERBS))})\s+(.+)$", re.I)
_STATUS_WITH = re.compile(r"^((?:happily\s+|newly\s+|recently\s+)?(?:married|engaged|divorced|single|separated|"
                          r"widowed))(?:\s+with\s+(.+))?$", re.I)
_COMP_ADV = re.compile(r"^(?:(?:now|currently|still|also|officially|finally)\s+){1,2}", re.I)
_INTO_VERB = re.compile(r"^(?:\w+\s+)?(into|obsessed with|in love with|crazy about|passionate about|addicted to|"
                        r"hooked on|big on|mad about|nuts about)", re.I)
_MY_WHO = re.compile(r"^(?:my|our)\s+(.+)$", re.I)
_AWAY = re.compile(r"\b(?:on (?:a )?(?:vacation|holiday|trip|work trip|business trip)|for (?:work|a conference|"
                   r"a wedding|the weekend)|visiting)\b", re.I)
_NOW = re.compile(r"^(?:currently|now)\s", re.I)
_LEARN_TAIL = re.compile(r"\s+(?:with|every|since|at|from|because|for|this|next|so that|on weekends)\b.*$", re.I)
_PLAN_CUT = re.compile(r"\s+(?:for|with|to|tomorrow|tonight|today|this|next|on|in a|in two|in three|after|before|"
                       r"since|because|and|but|so|later|soon|over the)\b.*$", re.I)


# ============================================================================ predicates
_P_BE = re.compile(r"^(?:am|is|are)\s+(.+)$", re.I)


_P_BUSINESS = re.compile(r"^(?:run|runs|own|owns|have|has|started|founded|opened|manage|manages)\s+"
                         r"(?:a|an|my own|our own|my|our|his|her|the family)\s+(.+)$", re.I)
_P_HAVE = re.compile(r"^(?:(?:have|has)\s+got|have|has|own|owns|got|adopted|bought|rescued|brought home|"
                     r"got myself)\s+(.+)$", re.I)
_P_LIVE = re.compile(r"^(?:live|lives|stay|stays|reside|resides)\s+(?:with\s+(?:my|our|his|her|their)\s+"
                     r"[\w'-]+(?:\s+[\w'-]+)?\s+)?(?:in|at)\s+(.+)$", re.I)
_P_MOVED = re.compile(r"^(?:moved|relocated|shifted)\s+(?:back\s+|over\s+|here\s+)?(?:to|into)\s+(.+)$", re.I)
_P_FROM = re.compile(r"^(?:come|comes|hail|hails)\s+(?:originally\s+)?from\s+(.+)$", re.I)
_P_GREW = re.compile(r"^(?:grew\s+up|was\s+raised|was\s+brought\s+up)\s+in\s+(.+)$", re.I)
_P_BORN = re.compile(r"^was\s+born\s+(?:and\s+(?:raised|brought\s+up)\s+)?(in|on)\s+(.+)$", re.I)
_P_WORK_AS = re.compile(r"^(?:work|works)\s+as\s+(.+)$", re.I)
_P_WORK_AT = re.compile(r"^(?:work|works)\s+(?:(?:night|day|late|early|evening|weekend|double)\s+shifts?\s+|"
                        r"part[\s-]time\s+|full[\s-]time\s+|remotely\s+|weekends\s+|nights\s+)?(?:at|for|with)\s+(.+)$",
                        re.I)
_P_WORK_IN = re.compile(r"^(?:work|works)\s+in\s+(.+)$", re.I)
_P_WFH = re.compile(r"^(?:work|works)\s+(?:from\s+home|remotely|remote)\b", re.I)
_P_JOINED = re.compile(r"^(?:started|joined|start|join)\s+(?:working\s+|a\s+(?:new\s+)?job\s+)?(?:at|for|with)\s+(.+)$"
                       r"|^(?:joined|got\s+(?:a\s+|my\s+first\s+)?(?:new\s+)?job\s+(?:at|with)|got\s+hired\s+(?:at|by)|"
                       r"got\s+(?:a\s+)?job\s+offer\s+from)\s+(.+)$", re.I)
_P_STUDY_AT = re.compile(r"^(?:study|studies|go\s+to\s+college|go\s+to\s+school|go\s+to\s+uni)\s+(?:at|in)\s+(.+)$",
                         re.I)
_P_STUDY = re.compile(r"^(?:study|studies|major\s+in|majors\s+in)\s+(.+)$", re.I)
_P_GO_TO = re.compile(r"^(?:go|goes|attend|attends)\s+(?:to\s+)?(.+)$", re.I)
_P_PLAY = re.compile(r"^(?:play|plays)\s+(.+)$", re.I)
_P_GO_ING = re.compile(r"^(?:go|goes)\s+([a-z]+ing)\b(.*)$", re.I)
_P_DO = re.compile(r"^(?:do|does|practice|practise|practices|practises|train)\s+(?:in\s+)?(.+)$", re.I)
_P_TURNED = re.compile(r"^(?:just\s+)?turned\s+(.+)$", re.I)
_P_GO_BY = re.compile(r"^(?:go|goes)\s+by\s+(.+)$", re.I)
_P_PREFER = re.compile(r"^(?:prefer|prefers|would\s+prefer|would\s+rather)\s+(.+)$", re.I)
_P_TEACH = re.compile(r"^(?:teach|teaches)\s+(.+?)(?:\s+at\s+(.+))?$", re.I)
_P_WANT = re.compile(r"^(?:(do|does)\s+not\s+)?(?:want|need|like)\s+(?!to\b)(.+)$", re.I)
_BEEN_TAIL = re.compile(r"\s+(?:for|since)\s+.*$|\s+(?:my|their|his|her)\s+whole\s+life.*$|\s+all\s+my\s+life.*$",
                        re.I)
_BEEN_MOTION = re.compile(r"^(?:going|moving|visiting|meeting|seeing|heading|flying|in|at|to)\b", re.I)
_SOON = re.compile(r"\b(?:next|tomorrow|in a)\b", re.I)
_DIGIT = re.compile(r"^\d")
_YEAR = re.compile(r"\d{4}")
_TURNED_AGE = re.compile(r"^(\d{1,3}|[a-z]+(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?)\b", re.I)
_FREQ = re.compile(r"\b(?:every\s+(?:day|morning|evening|night|weekend|week|sunday|saturday|monday|tuesday|"
                   r"wednesday|thursday|friday)|on\s+(?:the\s+)?weekends?|on\s+(?:sundays|saturdays|mondays|"
                   r"fridays)|at\s+night|daily|twice a week|once a week|most weekends|most days|after work|"
                   r"in the mornings?|in the evenings?)\b", re.I)


# ============================================================================ requests: avoidance and interest
_TALKV = (r"(?:(?:talk|talking|speak|speaking|chat|chatting|go\s+on|going\s+on|ask|asking|ask\s+me|asking\s+me|"
          r"hear|hearing|joke|joking|tease\s+me|teasing\s+me|get\s+into|getting\s+into|go\s+into|going\s+into)"
          r"\s+(?:to\s+me\s+|with\s+me\s+)?about|discuss|discussing|bring\s+up|bringing\s+up|mention|mentioning|"
          r"raise|raising|get\s+into|getting\s+into|go\s+into|going\s+into|revisit|revisiting|dwell\s+on|"
          r"dwelling\s+on)\s+")


# ============================================================================ "my name is", "call me", "my favorite X is"
_MY_NAME = re.compile(r"^(?:my\s+(?:full\s+|first\s+|real\s+|actual\s+|given\s+)?name\s+is|(?:the\s+)?name\s+is|"
                      r"this\s+is|it\s+is)\s+(.+)$", re.I)


_CALL_ME = re.compile(r"^(?:(?:you\s+can|you\s+may|please|just|pls|feel\s+free\s+to)\s+)?call\s+me\s+(.+)$"
                      r"|^(?:my\s+)?(?:friends|everyone|people|everybody|family)\s+(?:call|calls)\s+me\s+(.+)$"
                      r"|^my\s+nick\s*name\s+is\s+(.+)$", re.I)
_IS_MY_ROLE = re.compile(rf"^(?-i:([A-Z][a-z]+))\s+is\s+(?:my|our)\s+(?:{_ADJ}\s+){{0,2}}({_ROLE_ALT})"
                         rf"(?:\s+(?:lol|haha|btw))?$", re.I)
_HERE = re.compile(r"^(?-i:([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+here$")
_BIRTHDAY = re.compile(r"^my\s+(?:birthday|bday|b-day|birth\s*date|date\s+of\s+birth)\s+is\s+(?:on\s+)?(.+)$", re.I)
_FAVORITE = re.compile(r"^my\s+(?:absolute\s+|all[\s-]time\s+|most\s+)?favorite\s+([a-z][\w' -]{0,30}?)\s+"
                       r"(?:is|are|has\s+to\s+be|would\s+be|of\s+all\s+time\s+is)\s+(.+)$", re.I)
_IS_FAVORITE = re.compile(r"^(.+?)\s+(?:is|are)\s+my\s+(?:absolute\s+|all[\s-]time\s+)?favorite(?:\s+([a-z][\w' -]{0,30}))?$",
                          re.I)
_MY_ATTR = re.compile(r"^my\s+(hometown|home\s+town|age|major|pronouns|(?:star\s+|zodiac\s+|sun\s+)?sign|job|"
                      r"profession|occupation|day\s+job|(?:home|house|place|flat|apartment)\s+is\s+in|office|"
                      r"workplace|company|employer|native\s+place|native|mother\s+tongue|first\s+language|"
                      r"native\s+language)(?:(?<=\bin)|\s+(?:is|are))\s+(.+)$", re.I)  # "my flat is in Pune": no 2nd "is"
_PRONOUN_START = re.compile(r"^(?:you|it|this|that|he|she|they)\b", re.I)
_AT_PLACE = re.compile(r"^(?:in|at|near|on)\s", re.I)
_FIRST_WORD = re.compile(r"^\w+\s+")


# ============================================================================ tenant (business) statements
_BIZ = "|".join(BUSINESS_WORDS)


_BIZ_TYPE_REJECT = re.compile(r"^(?:bit|little|lot|team\s+of|few|couple|good|great|nice|new\s+here|"
                              r"(?:very\s+|really\s+)?(?:busy|small\s+team))\b", re.I)
# "I have a dog but he died last year": no current possession is asserted
_GONE = re.compile(r"\b(?:died|passed away|passed on|put down|put to sleep|ran away|no longer with us|"
                   r"lost (?:him|her|them) (?:last|this)|rest in peace|rip)\b", re.I)
