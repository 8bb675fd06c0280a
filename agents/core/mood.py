"""Offline mood classifier: the default of the mood chain (seed 000 §4.1), numpy + stdlib only.

`classify(text)` -> {"mood", "energy", "style", "confidence"}; `keyword_baseline(text)` is the seed's
keyword fallback, kept verbatim for comparison (ops/bench_mood.py runs both).

Mood
    A multinomial logistic regression over hashed sparse features (ops/train_mood.py trains it on the
    GoEmotions train split mapped onto our moods, data/README.md, plus the hand-labelled chat messages
    in data/mood_labelled.jsonl, which alone teach `flirty` and `bored`). Features, all hashed with
    crc32 into N_BUCKETS buckets and L2-normalised per group:
      - words: folded unigrams (stretched letters "sooo" -> "soo", digits -> 0, emoticons/emoji as
        tokens) where words in the scope of a negator ("not", "never", "don't", ...; up to 3 words, up
        to punctuation or "but") are marked "NOT_", plus word bigrams;
      - char n-grams (2-5) inside word boundaries, for misspellings and unseen inflections;
      - cues: mood-lexicon hits (plain and negated), emoji/emoticon mood hints, "!" / "?" / ALL CAPS /
        stretched-word / laughter / length buckets, a "dry short reply" flag.
    The weights are the committed artifact data/mood_model.npz (float16, loaded once, lazily).
    Rules applied on top of the model's probabilities, in order:
      1. dry short replies ("k", "ok.", "whatever", "meh", "fine", "sure", "idc", 🙄, 🥱; at most three
         words, no "!", no positive emoji) -> bored;
      2. negation: if the predicted mood is supported by its lexicon only under negation ("not happy",
         "don't feel great", "not worried"), that mood and the same-polarity moods without a plain
         lexicon hit are removed and the best remaining mood wins;
      3. strong flirty cues (😘 😏 😉 💋, "wink", "you're cute", "miss your voice", "thinking about you")
         add a bonus to flirty; "thank you" style phrases add a bonus to grateful.
    confidence = the model's probability of the chosen mood renormalised over the moods still allowed
    (rule 1 reports max(p, 0.75)).

Energy (high|medium|low), by rule from the mood and surface cues:
    base level by mood: excited, angry -> high; sad, anxious, bored -> low; others -> medium.
    "!!" or three or more "!", or shouting (ALL-CAPS words of 2+ letters making up most of the letters,
    at least 4 letters) -> high, always (so adding "!!!" never lowers energy).
    Otherwise +1 for one "!", for an intensifier ("so", "really", "super", "sooo", ...), for a stretched
    word ("yesss"), for laughter ("haha", "lol", 😂) or for 2+ emoji (each at most once, capped at +1
    for moods whose base is low unless two cues agree), -1 for a trailing "...", tiredness words
    ("tired", "exhausted", "sleepy"), diminishers ("kinda", "a bit") or a dry short reply.

Style (playful|deep|casual|supportive|romantic|venting), the approach the reply should take:
    flirty -> romantic; angry, frustrated -> venting; sad, anxious -> deep when the message is long
    (20+ words) or reflective ("i feel like", "why do i", "life", ...), else supportive; happy, excited
    -> playful with high energy, laughter or emoji, else casual; bored -> playful (introduce topics);
    grateful -> casual; neutral -> deep when long and reflective, else casual.
"""
from __future__ import annotations

import re
import threading
import unicodedata
import zlib
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

MOODS = ("happy", "sad", "anxious", "excited", "neutral", "angry", "frustrated", "flirty", "bored", "grateful")
ENERGIES = ("high", "medium", "low")
STYLES = ("playful", "deep", "casual", "supportive", "romantic", "venting")
MODEL_PATH = Path(__file__).with_name("data") / "mood_model.npz"
N_BUCKETS = 1 << 18
FEATURE_VERSION = 1  # bump when the features change; the artifact records the version it was trained on

POSITIVE = frozenset({"happy", "excited", "grateful", "flirty"})
NEGATIVE = frozenset({"sad", "anxious", "angry", "frustrated", "bored"})

# ---------------------------------------------------------------------------------------------------
# lexicons (folded forms: lower case, letter runs of 3+ folded to 2)

LEXICON: dict[str, frozenset[str]] = {
    "happy": frozenset("""happy happier happiest glad great awesome amazing love loved loving lovely fun funny
        hilarious haha hehe lol lmao lmfao rofl yay good nice wonderful fantastic joy enjoy enjoyed enjoying
        smile smiling laugh laughing laughed cool best beautiful perfect delighted pleased cheerful content
        excellent brilliant glorious blessed proud fab fabulous""".split()),
    "sad": frozenset("""sad sadness unhappy depressed depressing depression down crying cry cried cries tears
        miss missed missing lonely alone heartbroken hurt hurts hurting upset grief grieving lost loss sorry
        miserable awful devastated gloomy empty broken died dead death funeral disappointed disappointing
        disappointment hopeless sucks terrible worst""".split()),
    "anxious": frozenset("""worried worry worrying worries nervous anxious anxiety scared afraid fear fears
        terrified panic panicking stressed stress stressing stressful overthinking freaking dread dreading
        uneasy tense frightened scary scares nightmare""".split()),
    "excited": frozenset("""excited exciting excite pumped thrilled hyped hype stoked woohoo woo psyched
        ecstatic eager finally yess yesss omg wow""".split()),
    "angry": frozenset("""angry anger mad furious rage raging hate hated hating pissed livid outraged fuming
        disgusting disgusted wtf stupid idiot idiots bullshit fuck fucking fucked damn asshole""".split()),
    "frustrated": frozenset("""annoyed annoying annoys frustrated frustrating frustration ugh ugh irritated
        irritating smh argh ridiculous bothered bothering tired sick seriously again""".split()),
    "flirty": frozenset("""cute cutie handsome gorgeous sexy hot kiss kisses kissing babe baby darling
        sweetheart wink winks crush flirt flirting cuddle cuddles xoxo xo beautiful hun hottie""".split()),
    "bored": frozenset("""bored boring boredom meh whatever yawn dull tedious idc nothing""".split()),
    "grateful": frozenset("""thank thanks thankful grateful gratitude appreciate appreciated appreciates
        thx ty tysm tyvm blessed""".split()),
}
# mood-lexicon words that are too ambiguous to drive the negation rule on their own
_WEAK_LEX = frozenset({"good", "cool", "nice", "love", "lol", "down", "lost", "sorry", "dead", "again", "sick",
                       "tired", "nothing", "hot", "baby", "finally", "omg", "wow", "damn", "best"})

FLIRTY_PHRASES = ("you're cute", "youre cute", "you are cute", "ur cute", "you're hot", "ur hot", "so cute",
                  "miss your", "miss you", "thinking about you", "thinking of you", "can't stop thinking",
                  "cant stop thinking", "your voice", "your smile", "your eyes", "wink wink", "*wink*",
                  "on a date", "come over", "kiss you", "hold you", "cuddle", "good night beautiful",
                  "hey handsome", "hey gorgeous", "hey beautiful", "wish you were here", "dream about you",
                  "you look good", "you look great", "looking good", "turn me on", "in bed")
GRATEFUL_PHRASES = ("thank you", "thanks so much", "thank u", "thanks a lot", "much appreciated",
                    "means a lot", "so grateful", "appreciate it", "appreciate you", "thanks again",
                    "you're the best", "youre the best", "ur the best", "you saved me", "lifesaver")
REFLECTIVE_PHRASES = ("i feel like", "why do i", "why am i", "i wonder", "sometimes i", "i keep thinking",
                      "my life", "what's the point", "whats the point", "meaning", "i don't know what",
                      "i dont know what", "ever since", "i realized", "i've been thinking", "ive been thinking",
                      "no one understands", "nobody understands", "i used to")

NEGATORS = frozenset("""not no never nothing nobody none neither nor cannot cant dont doesnt didnt isnt arent
    wasnt werent wont wouldnt couldnt shouldnt havent hasnt hadnt aint without hardly barely nt""".split())
_NOT_NEGATION = frozenset({"no way", "no doubt", "no problem", "no worries", "not only", "never mind",
                           "nothing but"})
_SCOPE_BREAK = frozenset({"but", "though", "although", "however", "yet"})
INTENSIFIERS = frozenset("""so soo very really rly super extremely totally absolutely incredibly insanely
    completely utterly truly seriously hella mad crazy damn freaking fucking sooo such too most""".split())
DIMINISHERS = frozenset("""kinda kind sorta somewhat slightly bit little lil mildly""".split())
TIRED_WORDS = frozenset("""tired exhausted sleepy drained worn wiped yawn zzz sleep knackered""".split())
CALM_WORDS = frozenset("""calm chill chilling chilled relaxed relaxing cozy cosy peaceful lazy quiet mellow
    content""".split())
LAUGH = frozenset({"haha", "hehe", "lol", "lmao", "lmfao", "rofl", "xd", "hahah", "ahah", "ahaha"})

# dry, low-effort replies that read as disengaged when they are the whole message
DRY_WORDS = frozenset("""k kk ok okay okey okk fine whatever meh idc mhm hm hmm sure nm nvm eh yawn zzz
    cool nothing same w/e whatevs ig guess suppose bored boring nah""".split())
_DRY_NEEDS_COMPANY = frozenset({"cool", "same", "nah", "guess", "suppose"})  # dry only with another dry word

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
_EMOTICON_RE = "|".join(re.escape(e) for e in sorted(EMOTICONS, key=len, reverse=True))
_TOKEN_RE = re.compile(rf"(?:{_EMOTICON_RE})(?=\s|$)|[a-z0-9]+(?:'[a-z]+)*|\.\.+|[!?]+|[^\w\s]", re.UNICODE)
_STRIP_CHARS = dict.fromkeys([0xFE0F, 0xFE0E, 0x200D] + list(range(0x1F3FB, 0x1F400)))
_RUN3 = re.compile(r"([a-z])\1{2,}")
_PUNCT = frozenset(".,;:!?")


def _is_emoji(ch: str) -> bool:
    return ch in EMOJI_MOODS or unicodedata.category(ch) == "So" or 0x1F000 <= ord(ch) <= 0x1FAFF


def _fold(tok: str) -> str:
    tok = _RUN3.sub(r"\1\1", tok)
    if tok[0].isdigit():
        return re.sub(r"\d", "0", tok)
    if re.fullmatch(r"(?:a?h+a+)+h*|(?:ha)+h?|(?:he)+h?|(?:ah)+a?h?", tok) and len(tok) >= 4:
        return "haha"
    if re.fullmatch(r"lo+l+(?:o+l+)*|lolz|lulz", tok):
        return "lol"
    return tok.replace("'", "")


class Cues:
    """Surface analysis of one message, shared by the features and the rules."""

    __slots__ = ("raw", "lower", "tokens", "words", "marked", "n_words", "excl", "excl_run", "question",
                 "shout", "stretched", "laugh", "emoji", "emoji_moods", "lex_plain", "lex_neg", "intens",
                 "dimin", "tired", "calm", "trailing_dots", "dry", "flirty_phrase", "grateful_phrase", "reflective")

    def __init__(self, text: str) -> None:
        raw = unicodedata.normalize("NFKC", text or "").translate(_STRIP_CHARS)
        raw = raw.replace("’", "'").replace("‘", "'").replace("`", "'")
        self.raw = raw
        lower = raw.lower()
        self.lower = lower
        toks = _TOKEN_RE.findall(lower)
        tokens: list[str] = []
        for t in toks:
            if t in EMOTICONS:
                tokens.append(t)
            elif t[0].isalnum():
                tokens.append(_fold(t))
            else:
                tokens.append(t)
        self.tokens = tokens
        self.words = [t for t in tokens if t[0].isalnum() and t not in EMOTICONS]
        self.n_words = len(self.words)
        self.excl = raw.count("!")
        self.excl_run = "!!" in raw
        self.question = "?" in raw
        letters = [c for c in raw if c.isalpha()]
        caps_words = [w for w in re.findall(r"[^\W\d_]{2,}", raw) if w.isupper()]
        upper = sum(1 for c in letters if c.isupper())
        self.shout = (len(letters) >= 4 and upper / max(1, len(letters)) >= 0.6 and bool(caps_words)
                      and sum(len(w) for w in caps_words) >= 4)
        self.stretched = bool(re.search(r"([a-z])\1{2,}", lower)) and not re.fullmatch(r"[\Wz]*", lower)
        self.emoji = [c for c in raw if _is_emoji(c)]
        self.emoji_moods = [EMOJI_MOODS[c] for c in self.emoji if c in EMOJI_MOODS] + \
                           [EMOTICONS[t] for t in tokens if t in EMOTICONS]
        self.laugh = any(w in LAUGH for w in self.words) or "😂" in raw or "🤣" in raw
        self.trailing_dots = bool(re.search(r"(\.\.+|…)\s*$", raw))
        self.intens = any(w in INTENSIFIERS for w in self.words)
        self.dimin = any(w in DIMINISHERS for w in self.words) or "a bit" in lower or "a little" in lower
        self.tired = any(w in TIRED_WORDS and nxt != "of" for w, nxt in zip(self.words, self.words[1:] + [""]))
        self.calm = any(w in CALM_WORDS for w in self.words)
        # negation scope marking and lexicon hits
        marked: list[str] = []
        lex_plain: dict[str, int] = {}
        lex_neg: dict[str, int] = {}
        scope = 0
        prev = ""
        for t in tokens:
            if not t[0].isalnum() or t in EMOTICONS:
                if t[0] in _PUNCT or t.startswith(".."):
                    scope = 0
                marked.append(t)
                prev = ""
                continue
            if t in _SCOPE_BREAK:
                scope = 0
            neg_here = scope > 0
            marked.append("NOT_" + t if neg_here else t)
            for mood, lex in LEXICON.items():
                if t in lex:
                    d = lex_neg if neg_here else lex_plain
                    d[mood] = d.get(mood, 0) + (1 if t in _WEAK_LEX else 2)
            if scope:
                scope -= 1
            if t in NEGATORS:
                scope = 3
            if prev and f"{prev} {t}" in _NOT_NEGATION:
                scope = 0
            prev = t
        self.marked = marked
        self.lex_plain = lex_plain
        self.lex_neg = lex_neg
        padded = " " + " ".join(self.words) + " "
        self.flirty_phrase = any(p in lower for p in FLIRTY_PHRASES) or " wink" in padded
        self.grateful_phrase = any(p in lower for p in GRATEFUL_PHRASES)
        self.reflective = any(p in lower for p in REFLECTIVE_PHRASES)
        self.dry = self._dry()

    def _dry(self) -> bool:
        if self.excl or self.question or self.n_words > 3:
            return False
        if any(m in POSITIVE or m == "excited" for m in self.emoji_moods):
            return False
        if self.n_words == 0:
            return bool(self.emoji_moods) and all(m == "bored" for m in self.emoji_moods)
        words = self.words
        if not all(w in DRY_WORDS for w in words):
            return False
        return not all(w in _DRY_NEEDS_COMPANY for w in words)


# ---------------------------------------------------------------------------------------------------
# features


def _h(s: str) -> int:
    return zlib.crc32(s.encode("utf-8")) & (N_BUCKETS - 1)


def _group(feats: list[str], out: dict[int, float], weight: float) -> None:
    if not feats:
        return
    counts: dict[int, float] = {}
    for f in feats:
        i = _h(f)
        counts[i] = counts.get(i, 0.0) + 1.0
    norm = weight / float(np.sqrt(sum(v * v for v in counts.values())))
    for i, v in counts.items():
        out[i] = out.get(i, 0.0) + v * norm


GROUP_WEIGHTS = {"w": 1.0, "b": 0.6, "c": 1.0, "x": 0.8}


def featurize(text: str, cues: Cues | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sparse feature vector of a message: (bucket indices int32, values float32)."""
    c = cues or Cues(text)
    out: dict[int, float] = {}
    _group(["w:" + t for t in c.marked], out, GROUP_WEIGHTS["w"])
    plain = c.tokens
    _group([f"b:{a} {b}" for a, b in zip(["<s>"] + plain, plain + ["</s>"])], out, GROUP_WEIGHTS["b"])
    chars: list[str] = []
    for w in c.words:
        p = f" {w} "
        for n in (2, 3, 4, 5):
            if len(p) < n:
                break
            chars.extend("c:" + p[i:i + n] for i in range(len(p) - n + 1))
    _group(chars, out, GROUP_WEIGHTS["c"])
    cue: list[str] = []
    for mood, n in c.lex_plain.items():
        cue += ["x:lex_" + mood] * n
    for mood, n in c.lex_neg.items():
        cue += ["x:neglex_" + mood] * n
    for m in c.emoji_moods:
        cue.append("x:emo_" + m)
    if c.excl:
        cue.append("x:excl" if c.excl == 1 and not c.excl_run else "x:excl2")
    if c.question:
        cue.append("x:q")
    if c.shout:
        cue.append("x:shout")
    if c.stretched:
        cue.append("x:stretch")
    if c.laugh:
        cue.append("x:laugh")
    if c.dry:
        cue += ["x:dry", "x:dry"]
    if c.flirty_phrase:
        cue.append("x:flirtp")
    if c.grateful_phrase:
        cue.append("x:gratp")
    if c.trailing_dots:
        cue.append("x:dots")
    if c.intens:
        cue.append("x:intens")
    n = c.n_words
    cue.append("x:len_" + ("0" if n == 0 else "1" if n == 1 else "3" if n <= 3 else "8" if n <= 8 else
                           "20" if n <= 20 else "big"))
    cue.append("x:bias")
    _group(cue, out, GROUP_WEIGHTS["x"])
    idx = np.fromiter(out.keys(), dtype=np.int32, count=len(out))
    val = np.fromiter(out.values(), dtype=np.float32, count=len(out))
    return idx, val


# ---------------------------------------------------------------------------------------------------
# model

_lock = threading.Lock()


@lru_cache(maxsize=1)
def _load(path: str = str(MODEL_PATH)) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    with _lock, np.load(path, allow_pickle=False) as z:
        scale = z["scale"].astype(np.float32)
        w = z["W"].astype(np.float32) * scale  # (N_BUCKETS, n_classes), stored int8 per-class scaled
        b = z["b"].astype(np.float32)
        classes = tuple(str(x) for x in z["classes"])
        version = int(z["feature_version"])
        buckets = int(z["n_buckets"])
    if version != FEATURE_VERSION or buckets != N_BUCKETS:
        raise RuntimeError(f"{path}: trained for features v{version}/{buckets} buckets, code has "
                           f"v{FEATURE_VERSION}/{N_BUCKETS}; rerun ops/train_mood.py")
    return np.ascontiguousarray(w), b, classes


def model_logits(text: str, cues: Cues | None = None) -> dict[str, float]:
    """The linear model's score per mood (no rules)."""
    w, b, classes = _load()
    idx, val = featurize(text, cues)
    z = val @ w[idx] + b
    return {m: float(v) for m, v in zip(classes, z)}


def _softmax(z: dict[str, float]) -> dict[str, float]:
    top = max(z.values())
    e = {m: float(np.exp(v - top)) for m, v in z.items()}
    s = sum(e.values())
    return {m: v / s for m, v in e.items()}


def model_probs(text: str, cues: Cues | None = None) -> dict[str, float]:
    """The linear model's probability per mood (no rules)."""
    return _softmax(model_logits(text, cues))


EMOJI_BONUS = 1.5   # log-odds added to a mood hinted by an emoji/emoticon (x sqrt(count), at most 2 counted)
PHRASE_BONUS = 2.5  # log-odds added to flirty / grateful when one of their phrases occurs


def rule_logits(z: dict[str, float], c: Cues) -> dict[str, float]:
    """Rule 3: emoji hints and the flirty / grateful phrase lists shift the model's scores."""
    z = dict(z)
    for m, n in Counter(c.emoji_moods).items():
        z[m] += EMOJI_BONUS * min(n, 2) ** 0.5
    if c.flirty_phrase:
        z["flirty"] += PHRASE_BONUS
    if c.grateful_phrase:
        z["grateful"] += PHRASE_BONUS
    return z


def choose(probs: dict[str, float], c: Cues) -> tuple[str, float]:
    """Rules 1 and 2 over the (rule-shifted) probabilities: (mood, confidence)."""
    if c.dry:
        return "bored", max(probs["bored"], 0.75)
    allowed = dict(probs)
    best = max(allowed, key=allowed.__getitem__)
    if c.lex_neg.get(best) and not c.lex_plain.get(best):
        group = POSITIVE if best in POSITIVE else NEGATIVE if best in NEGATIVE else frozenset({best})
        for m in group:
            if not c.lex_plain.get(m) and len(allowed) > 1:
                allowed.pop(m, None)
        best = max(allowed, key=allowed.__getitem__)
    return best, allowed[best] / sum(allowed.values())


_BASE_ENERGY = {"excited": 2, "angry": 2, "sad": 0, "anxious": 0, "bored": 0}


def energy_of(mood: str, c: Cues) -> str:
    """Energy from the mood's base level and the surface cues (module docstring)."""
    if c.excl >= 3 or c.excl_run or c.shout:
        return "high"
    level = _BASE_ENERGY.get(mood, 1)
    strong = int(c.stretched) + int(c.laugh) + int(len(c.emoji) >= 2)
    weak = int(c.excl == 1) + int(c.intens)
    up = (strong + weak >= 2) if level == 0 else (strong >= 1 or weak >= 2)
    down = c.trailing_dots or c.dimin or c.dry or c.calm or (c.tired and mood != "flirty")
    level += int(up) - int(down)
    return ENERGIES[2 - max(0, min(2, level))]


def style_of(mood: str, energy: str, c: Cues) -> str:
    """The approach the reply should take (module docstring)."""
    if mood == "flirty":
        return "romantic"
    if mood in ("angry", "frustrated"):
        return "venting"
    if mood in ("sad", "anxious"):
        return "deep" if c.n_words >= 20 or c.reflective else "supportive"
    if mood in ("happy", "excited"):
        return "playful" if energy == "high" or c.laugh or c.emoji else "casual"
    if mood == "bored":
        return "playful"
    if mood == "neutral" and c.n_words >= 20 and c.reflective:
        return "deep"
    return "casual"


def classify(text: str) -> dict[str, Any]:
    """{"mood", "energy", "style", "confidence"} for one message; deterministic, offline."""
    c = Cues(text)
    if not c.words and not c.emoji and not any(t in EMOTICONS for t in c.tokens):
        return {"mood": "neutral", "energy": "high" if c.excl >= 3 or c.excl_run else "medium",
                "style": "casual", "confidence": 0.5}
    mood, conf = choose(_softmax(rule_logits(model_logits(text, c), c)), c)
    energy = energy_of(mood, c)
    return {"mood": mood, "energy": energy, "style": style_of(mood, energy, c),
            "confidence": round(min(1.0, max(0.0, conf)), 4)}


# ---------------------------------------------------------------------------------------------------
# the seed's keyword fallback (seed 000 §4.1), verbatim: first matching row wins

KEYWORD_RULES = (
    (("haha", "lol", "😂", "amazing"), "happy", "high"),
    (("sad", "crying", "😢", "miss"), "sad", "low"),
    (("worried", "nervous", "anxious"), "anxious", "low"),
    (("ugh", "annoyed", "frustrated"), "frustrated", "medium"),
    (("bored", "meh", "whatever"), "bored", "low"),
)
_KW_STYLE = {"happy": "playful", "sad": "supportive", "anxious": "supportive", "frustrated": "venting",
             "bored": "casual", "neutral": "casual"}


def keyword_baseline(text: str) -> dict[str, Any]:
    """The seed's keyword list: words match whole words (case-insensitive), emoji match anywhere."""
    lower = (text or "").lower()
    words = set(re.findall(r"\w+", lower))
    for keys, mood, energy in KEYWORD_RULES:
        if any((k in words) if k.isalnum() else (k in lower) for k in keys):
            return {"mood": mood, "energy": energy, "style": _KW_STYLE[mood], "confidence": 0.5}
    return {"mood": "neutral", "energy": "medium", "style": "casual", "confidence": 0.3}
