"""The mood rules' data: the word lists, phrases, emoji and emoticons `agents/core/mood.py` reads its
cues from, with the token fold they are compared under (`_fold`: stretched letters, digits, laughs).
"""
from __future__ import annotations

import re
from functools import lru_cache

_RUN3 = re.compile(r"([a-z])\1{2,}")


@lru_cache(maxsize=50_000)  # per token of every message; chat repeats its words
def _fold(tok: str) -> str:
    tok = _RUN3.sub(r"\1\1", tok)
    if tok[0].isdigit():
        return re.sub(r"\d", "0", tok)
    if re.fullmatch(r"(?:a?h+a+)+h*|(?:ha)+h?|(?:he)+h?|(?:ah)+a?h?", tok) and len(tok) >= 4:
        return "haha"
    if re.fullmatch(r"lo+l+(?:o+l+)*|lolz|lulz", tok):
        return "lol"
    return tok.replace("'", "")



# ---------------------------------------------------------------------------------------------------
# word lists (compared with folded tokens, see _fold)


def _words(s: str) -> frozenset[str]:
    return frozenset(_fold(w) for w in s.split())


LEXICON: dict[str, frozenset[str]] = {
    "happy": _words("""happy happier happiest happiness glad great awesome amazing love loved loving lovely fun
        funny hilarious haha hehe lol lmao lmfao rofl yay good nice wonderful fantastic joy joyful enjoy enjoyed
        enjoying smile smiling smiled laugh laughing laughed cool best beautiful perfect delighted pleased
        cheerful content excellent brilliant glorious blessed proud fab fabulous awesome terrific superb
        marvelous cheers cheery jolly merry pleasant satisfied relieved grin grinning giggle giggling fantastic
        sweet adorable wholesome heartwarming yummy delicious gorgeous lucky fortunate gleeful"""),
    "sad": _words("""sad sadness sadly unhappy depressed depressing depression down crying cry cried cries tears
        teary miss missed missing lonely loneliness alone heartbroken heartbreak heartbreaking hurt hurts
        hurting upset grief grieving grieve mourn mourning lost loss sorry miserable awful devastated
        devastating gloomy empty broken died dead death funeral disappointed disappointing disappointment
        hopeless sucks terrible worst sob sobbing weep weeping unloved rejected abandoned numb melancholy
        regret regrets painful pain suffering gutted bummed blue worthless homesick tragic tragedy"""),
    "anxious": _words("""worried worry worrying worries nervous nervously anxious anxiety scared afraid fear
        fears fearful terrified terrifying panic panicking panicked stressed stress stressing stressful
        overthinking freaking dread dreading uneasy tense frightened frightening scary scares nightmare shaky
        shaking trembling insecure paranoid jittery restless apprehensive hesitant alarmed spooked creepy"""),
    "excited": _words("""excited exciting excite excitement pumped thrilled thrilling hyped hype stoked woohoo
        woo psyched ecstatic eager eagerly finally yess omg wow upcoming countdown celebrate celebrating party
        epic incredible unbelievable adventure"""),
    "angry": _words("""angry anger angrily mad furious fury rage raging enraged hate hated hating hates pissed
        livid outraged outrageous fuming disgusting disgusted disgust wtf stupid idiot idiots idiotic bullshit
        fuck fucking fucked damn asshole hostile resent resentful bitter infuriating infuriated unacceptable
        appalling despicable scum pathetic shameful hell screw screwed jerk"""),
    "frustrated": _words("""annoyed annoying annoys annoyance frustrated frustrating frustration ugh irritated
        irritating irritates smh argh ridiculous bothered bothering bothers tired sick seriously again
        impatient exasperated fed stuck useless pointless hassle inconvenient broke broken laggy slow
        waste wasted ugh whyy sigh"""),
    "flirty": _words("""cute cutie handsome gorgeous sexy hot kiss kisses kissing kissed babe baby darling
        sweetheart wink winks winking crush flirt flirting flirty cuddle cuddles cuddling xoxo xo beautiful
        hun honey hottie seductive tease teasing blush blushing date dating romantic naughty"""),
    "bored": _words("""bored boring boredom meh whatever yawn yawning dull tedious idc nothing monotonous
        uneventful lame blah zzz"""),
    "grateful": _words("""thank thanks thankful grateful gratitude appreciate appreciated appreciates
        appreciation thx ty tysm tyvm blessed indebted lifesaver"""),
}
# lexicon words too ambiguous to drive the negation rule as strongly as the others
_WEAK_LEX = _words("""good cool nice love lol down lost sorry dead again sick tired nothing hot baby finally omg
    wow damn best sweet broke broken slow stuck hell party date blue pain""")

FLIRTY_PHRASES = ("you're cute", "you are cute", "ur cute", "you're hot", "ur hot", "so cute", "miss your",
                  "miss you", "thinking about you", "thinking of you", "can't stop thinking", "your voice",
                  "your smile", "your eyes", "your lips", "wink wink", "wink", "on a date", "come over",
                  "kiss you", "kiss me", "hold you", "hold me", "cuddle", "good night beautiful", "hey handsome",
                  "hey gorgeous", "hey beautiful", "hey sexy", "wish you were here", "dream about you",
                  "dreamt about you", "you look good", "you look great", "looking good", "turn me on",
                  "in bed", "love you", "i want you", "u up", "you up", "my crush", "crush on you",
                  "make me blush", "making me blush")
# no flirty phrase bonus when the message names family (or mates): "miss you mom", "love you bro"
FAMILY = _words("""mom mum mommy mummy mama ma dad daddy papa pa grandma grandpa granny gran nana nan grandad
    grandmother grandfather bro brother sis sister son daughter aunt auntie uncle cousin dude man guys
    bestie fam""")
GRATEFUL_PHRASES = ("thank you", "thanks so much", "thank u", "thanks a lot", "much appreciated",
                    "means a lot", "so grateful", "appreciate it", "appreciate you", "appreciate u",
                    "thanks again", "you're the best", "ur the best", "you saved me", "lifesaver",
                    "life saver", "owe you one", "bless you", "couldn't have done it without you")
# commands and warnings aimed at the listener, the shape of a confrontation: "stay away from my sister",
# "get out of my house", "don't you dare"; plain words the models read as neutral (no emotion word in them)
HOSTILE_PHRASES = ("stay away from", "keep away from", "get away from", "stay out of my", "keep out of my",
                   "get out of my", "leave me alone", "leave us alone", "leave her alone", "leave him alone",
                   "back off", "don't you dare", "how dare you", "don't you ever", "shut up", "get lost",
                   "piss off", "screw you", "go to hell", "you'll regret", "don't touch my",
                   "keep your hands off", "mind your own business", "i'm warning you")
REFLECTIVE_PHRASES = ("i feel like", "why do i", "why am i", "i wonder", "sometimes i", "i keep thinking",
                      "my life", "what's the point", "the point of", "meaning", "i don't know what",
                      "ever since", "i realized", "i've been thinking", "no one understands",
                      "nobody understands", "i used to", "deep down", "to be honest i")

NEGATORS = _words("""not no never nothing nobody none neither nor cannot cant dont doesnt didnt isnt arent
    wasnt werent wont wouldnt couldnt shouldnt havent hasnt hadnt aint without hardly barely nt""")
_NOT_NEGATION = frozenset({"no way", "no doubt", "no problem", "no worries", "not only", "never mind",
                           "nothing but"})
# "never been this happy", "couldn't be happier", "can't be more excited": emphasis, not negation
_EMPHATIC_AFTER_NEG = _words("been felt be feel")
_EMPHATIC_THIRD = _words("this so more happier better prouder gladder")
_SCOPE_BREAK = _words("but though although however yet")
INTENSIFIERS = _words("""so soo very really rly super extremely totally absolutely incredibly insanely
    completely utterly truly seriously hella mad crazy damn freaking fucking such too most""")
DIMINISHERS = _words("""kinda kind sorta somewhat slightly bit little lil mildly""")
TIRED_WORDS = _words("""tired exhausted sleepy drained worn wiped yawn zzz sleep knackered""")
CALM_WORDS = _words("""calm chill chilling chilled relaxed relaxing cozy cosy peaceful lazy quiet mellow
    content""")
LAUGH = _words("haha hehe lol lmao lmfao rofl xd")

# dry, low-effort replies that read as disengaged when they are the whole message
DRY_WORDS = _words("""k kk ok okay okey okk fine whatever meh idc mhm mhmm hm hmm sure nm nvm eh yawn zzz
    cool nothing same whatevs ig guess suppose bored boring nah""")
_DRY_CORE = _words("k kk ok okay okey okk fine whatever meh idc mhm mhmm hm hmm sure nm nvm eh yawn zzz "
                   "whatevs bored boring")  # at least one of these; "cool", "same", "nah" alone are not dry

# emoji / emoticon hints (variation selectors and skin tones are stripped before lookup)
EMOJI_MOODS: dict[str, str] = {}
for _mood, _chars in {
    "happy": "😂🤣😄😃😀😁😆😊🙂☺😹😸😺😅😋🤗😌🌞",
    "sad": "😢😭😞😔😟☹🙁😿💔🥀😪",
    "anxious": "😰😨😱😬😥😓🫣😧😦",
    "excited": "🤩🎉🥳🙌💃🕺🚀‼🎊✨",
    "angry": "😡😠🤬👿💢🖕",
    "frustrated": "😤🙄😒😩😫🤦😣😖",
    "flirty": "😘😍😏😉🥰😻💋❤♥💕💖💗💓💞💘😚😙🫦👅😜",
    "bored": "🥱😴😐😑💤🫥",
    "grateful": "🙏",
    "neutral": "👍👌🤔",
}.items():
    for _c in _chars:
        EMOJI_MOODS[_c] = _mood
EMOTICONS = {":)": "happy", ":-)": "happy", ":d": "happy", ":-d": "happy", "xd": "happy", "=)": "happy",
             ":p": "flirty", ":-p": "flirty", ";)": "flirty", ";-)": "flirty", "<3": "flirty", ":*": "flirty",
             ":(": "sad", ":-(": "sad", ":'(": "sad", "):": "sad", ":/": "frustrated", ":-/": "frustrated",
             ">:(": "angry", ":|": "bored", ":-|": "bored", "-_-": "bored", ":o": "excited"}
