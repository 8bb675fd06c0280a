"""Offline mood classifier: the default of the mood chain (seed 000 §4.1), numpy + stdlib only.

`classify(text, vector=None, previous=None)` -> {"mood", "energy", "style", "confidence"}, deterministic,
~0.5 ms a message;
`keyword_baseline(text)` is the seed's keyword fallback, kept verbatim for comparison
(ops/bench_mood.py runs both on the same data).

Mood
    Two multinomial logistic regressions, trained by ops/train_mood.py on the GoEmotions train split
    mapped onto our moods (data/README.md), the `train` part of data/mood_labelled.jsonl (hand-written
    chat messages, the only source of `flirty` and `bored`) and of data/mood_dialogue.jsonl (everyday
    dialogue lines, five moods), pooled as log-odds (`pooled_logits`):
      z = mix[0] * words(text) + mix[1] * embedding(vector) + offsets  [+ context for the previous mood]
    The embedding's model reads the message's sentence embedding (VECTOR_MODEL, the worker's batch
    computes it: `message_vector` of the fold); without one the words' model decides alone, with its own
    offsets. The offsets are calibrated thresholds (the neutral one: how sure an emotion must be to win
    over `neutral`); the previous message's mood in the session (not `neutral`) gets `context` added.
    The weights are the committed artifact data/mood_model.npz (the words' weights int8 with one scale
    per mood, the embedding's float32; ~0.56 MB), read once, lazily, on the first call. The words'
    features (crc32-hashed into N_BUCKETS, L2-normalised per group):
      - words: folded tokens (lower case, "sooo" -> "soo", "hahaha" -> "haha", digits -> 0, emoji and
        emoticons as tokens) with the up-to-3 words after a negator ("not", "never", "don't", "no", ...;
        the scope ends at punctuation or "but") marked "NOT_"; word bigrams;
      - char 2-5-grams inside words, for misspellings and unseen inflections;
      - cues: mood-lexicon hits, plain and negated, emoji/emoticon mood hints, "!" / "?" / shouting /
        stretched words / laughter / "..." / intensifiers / length buckets, the dry-reply flag below.
    Negators that do not negate: "no worries", "no way", "never been this happy", "couldn't be
    happier", "can't stop smiling", "can't wait".
    Rules on top of the model, in order:
      1. emoji and phrases shift the scores (log-odds): +1.5 per emoji/emoticon hinting at a mood
         (x sqrt(count), at most 2 counted); +2.5 to flirty for a flirty phrase ("you're cute",
         "miss your voice", "wink", "thinking about you", "love you", ...; not when the message names
         family: "miss you mom"); +2.5 to grateful for a thanks phrase ("thank you", "lifesaver", ...);
      2. a dry short reply -- at most 3 words, all dry ("k", "ok.", "whatever", "meh", "fine", "sure",
         "idc", "hmm") or a dry phrase ("if you say so", "nothing much", "sure whatever"), or bored
         emoji only (🥱 😐) -- with no "!", "?" or positive emoji is bored (confidence >= 0.75); the
         same words with "!", "?" or a positive emoji ("ok!", "sure 😊") are never bored;
      3. emoji-only messages take the mood most of their emoji hint at;
      4. negation: when the winning mood's lexicon occurs only negated ("not happy", "don't feel
         great", "not worried"), that mood and the moods of the same polarity without a plain lexicon
         hit are dropped and the best remaining mood wins ("not happy" -> sad, "not worried" -> neutral).
    confidence = the chosen mood's probability renormalised over the moods still allowed.

Energy (high|medium|low), by rule from the mood and surface cues:
    "!!", three or more "!", or shouting (mostly capital letters, 4+ of them in ALL-CAPS words) -> high,
    always (so adding "!!!" never lowers energy). Otherwise start from the mood (excited, angry: high;
    sad, anxious, bored: low; the others: medium) and go one level up for a strong cue (a stretched
    word "yesss", laughter "haha"/"lol"/😂, 2+ emoji) or two weak ones (one "!", each intensifier
    "so"/"really"/"super"/..., an ALL-CAPS word "SO"); low moods need two cues of any kind. Go one level
    down for a trailing "...", a diminisher ("kinda", "a bit"), a dry reply, calm words ("chill",
    "cozy", "relaxed") or tiredness ("tired", "exhausted", "sleepy"; not "tired of").

Style (playful|deep|casual|supportive|romantic|venting), the approach the reply should take (§4.3):
    flirty -> romantic; angry, frustrated -> venting; sad, anxious -> deep when long (20+ words) or
    reflective ("i feel like", "why do i", "what's the point", ...), else supportive; happy, excited ->
    playful with high energy, laughter or emoji, else casual; bored -> playful (bring new topics);
    neutral -> deep when long and reflective, else casual; grateful -> casual.
"""
from __future__ import annotations

import re
import unicodedata
import zlib
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from agents.core.rules.mood_lexicon import (  # noqa: F401 (re-exported)
    _RUN3, _fold, _words, LEXICON, _WEAK_LEX, FLIRTY_PHRASES, FAMILY, GRATEFUL_PHRASES, HOSTILE_PHRASES,
    REFLECTIVE_PHRASES,
    NEGATORS, _NOT_NEGATION, _EMPHATIC_AFTER_NEG, _EMPHATIC_THIRD, _SCOPE_BREAK, INTENSIFIERS, DIMINISHERS,
    TIRED_WORDS, CALM_WORDS, LAUGH, DRY_WORDS, _DRY_CORE, EMOJI_MOODS, EMOTICONS,
)
from agents.core.rules.mood_rules import DEFAULT_STYLE, NOT_NEGATING, STYLE_RULES

MOODS = ("happy", "sad", "anxious", "excited", "neutral", "angry", "frustrated", "flirty", "bored", "grateful")
ENERGIES = ("high", "medium", "low")
STYLES = ("playful", "deep", "casual", "supportive", "romantic", "venting")
MODEL_PATH = Path(__file__).with_name("data") / "mood_model.npz"
VECTOR_MODEL = "all-MiniLM-L6-v2"  # the sentence embedding `classify(vector=...)` expects (domain/embedder.py)
VECTOR_DIM = 384
N_BUCKETS = 1 << 18
FEATURE_VERSION = 1  # bump when the features change; the artifact records the version it was trained on

POSITIVE = frozenset({"happy", "excited", "grateful", "flirty"})
NEGATIVE = frozenset({"sad", "anxious", "angry", "frustrated", "bored"})

_EMOTICON_RE = "|".join(re.escape(e) for e in sorted(EMOTICONS, key=len, reverse=True))
_TOKEN_RE = re.compile(rf"(?:{_EMOTICON_RE})(?=\s|$)|[a-z0-9]+(?:'[a-z]+)*|\.\.+|[!?]+|[^\w\s]", re.UNICODE)
_STRIP_CHARS = dict.fromkeys([0xFE0F, 0xFE0E, 0x200D] + list(range(0x1F3FB, 0x1F400)))
_PUNCT = frozenset(".,;:!?")


def _is_emoji(ch: str) -> bool:
    return ch in EMOJI_MOODS or unicodedata.category(ch) == "So" or 0x1F000 <= ord(ch) <= 0x1FAFF


_WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)*")


def _phrases(items: tuple[str, ...]) -> tuple[str, ...]:
    """Phrases in the padded folded-word form that `Cues.padded` is matched against."""
    return tuple(" " + " ".join(_fold(w) for w in _WORD_RE.findall(p.lower())) + " " for p in items)


_FLIRTY_P, _GRATEFUL_P, _REFLECTIVE_P = _phrases(FLIRTY_PHRASES), _phrases(GRATEFUL_PHRASES), \
    _phrases(REFLECTIVE_PHRASES)
_HOSTILE_RE = re.compile("(?<! not)(?<! never)(?<! dont)(?<! do not)(?<! please)(" +
                         "|".join(re.escape(p.rstrip()) for p in _phrases(HOSTILE_PHRASES)) + ") ")
DRY_PHRASES = frozenset(p.strip() for p in _phrases(("if you say so", "if u say so", "whatever you say",
                                                     "whatever u say", "nothing much", "not much", "same old",
                                                     "same old same old", "fine i guess", "ok i guess",
                                                     "cool i guess", "sure i guess", "lol ok", "lol k",
                                                     "ok whatever", "ok cool", "k cool", "yeah whatever",
                                                     "sure whatever", "i don't care", "idk whatever")))


def _negates(t: str, nxt: str, nxt2: str) -> bool:
    """Does negator `t` open a negation scope? Not when a rule of NOT_NEGATING holds ("no worries", "never
    been this happy", "couldn't be happier", "can't stop smiling", "can't wait")."""
    return not any(r.applies(t, nxt, nxt2) for r in NOT_NEGATING)


def _negation_scan(tokens: list[str]) -> tuple[list[str], dict[str, int], dict[str, int]]:
    """Negation scopes ("NOT_" marks up to 3 words after a negator, up to punctuation or "but") and
    lexicon hits, plain or negated (strong words count 2, ambiguous ones 1): (marked, plain, negated)."""
    marked: list[str] = []
    lex_plain: dict[str, int] = {}
    lex_neg: dict[str, int] = {}
    scope = 0
    n = len(tokens)
    for i, t in enumerate(tokens):
        if not t[0].isalnum() or t in EMOTICONS:
            if t[0] in _PUNCT:
                scope = 0
            marked.append(t)
            continue
        if t in _SCOPE_BREAK:
            scope = 0
        negated = scope > 0
        marked.append("NOT_" + t if negated else t)
        quiet = i > 0 and f"{tokens[i - 1]} {t}" in _NOT_NEGATION  # "no worries" is not worry
        for mood, lex in LEXICON.items():
            if t in lex and not quiet:
                hits = lex_neg if negated else lex_plain
                hits[mood] = hits.get(mood, 0) + (1 if t in _WEAK_LEX else 2)
        if scope:
            scope -= 1
        if t in NEGATORS and _negates(t, tokens[i + 1] if i + 1 < n else "", tokens[i + 2] if i + 2 < n else ""):
            scope = 3
    return marked, lex_plain, lex_neg


def _dry_words_only(words: list[str], emoji_moods: list[str]) -> bool:
    """A short reply made only of dry words ("k", "ok.", "meh", "fine", "sure whatever"), or only bored emoji."""
    if not words:
        return bool(emoji_moods) and all(m == "bored" for m in emoji_moods)
    joined = " ".join(words)
    return len(words) <= 4 and (
        joined in DRY_PHRASES or (len(words) <= 3 and all(w in DRY_WORDS for w in words)
                                  and any(w in _DRY_CORE for w in words)))


class Cues:
    """Surface analysis of one message, shared by the features and the rules."""

    __slots__ = ("raw", "tokens", "words", "padded", "marked", "n_words", "excl", "excl_run", "question",
                 "shout", "caps_emph", "stretched", "laugh", "emoji", "emoji_moods", "lex_plain", "lex_neg",
                 "intens", "dimin", "tired", "calm", "trailing_dots", "dry", "dry_words_only", "flirty_phrase",
                 "grateful_phrase", "hostile_phrase", "reflective")

    def __init__(self, text: str) -> None:
        raw = unicodedata.normalize("NFKC", text or "").translate(_STRIP_CHARS)
        raw = raw.replace("’", "'").replace("‘", "'").replace("`", "'")
        self.raw = raw
        lower = raw.lower()
        tokens = [t if t in EMOTICONS or not t[0].isalnum() else _fold(t) for t in _TOKEN_RE.findall(lower)]
        self.tokens = tokens
        self.words = words = [t for t in tokens if t[0].isalnum() and t not in EMOTICONS]
        self.padded = " " + " ".join(words) + " "
        self.n_words = len(words)
        self.excl = raw.count("!") + 2 * raw.count("‼")
        self.excl_run = "!!" in raw or "‼" in raw
        self.question = "?" in raw
        letters = [c for c in raw if c.isalpha()]
        caps_words = [w for w in re.findall(r"[^\W\d_]{2,}", raw) if w.isupper()]
        upper = sum(1 for c in letters if c.isupper())
        self.shout = (len(letters) >= 4 and upper / len(letters) >= 0.6 and sum(len(w) for w in caps_words) >= 4)
        self.caps_emph = bool(caps_words)
        self.stretched = bool(re.search(r"([a-z])\1{2,}", lower)) and not re.fullmatch(r"[\Wz]*", lower)
        self.emoji = [] if raw.isascii() else [c for c in raw if _is_emoji(c)]  # no ASCII character is one
        self.emoji_moods = [EMOJI_MOODS[c] for c in self.emoji if c in EMOJI_MOODS] + \
                           [EMOTICONS[t] for t in tokens if t in EMOTICONS]
        self.laugh = any(w in LAUGH for w in words) or "😂" in raw or "🤣" in raw
        self.trailing_dots = bool(re.search(r"(\.\.+|…)\s*$", raw))
        self.intens = sum(w in INTENSIFIERS for w in words)
        self.dimin = any(w in DIMINISHERS for w in words) or " a bit " in self.padded or " a little " in self.padded
        self.tired = any(w in TIRED_WORDS and nxt != "of" for w, nxt in zip(words, words[1:] + [""]))
        self.calm = any(w in CALM_WORDS for w in words)
        self.marked, self.lex_plain, self.lex_neg = _negation_scan(tokens)
        family = any(w in FAMILY for w in words)
        self.flirty_phrase = not family and any(p in self.padded for p in _FLIRTY_P)
        self.grateful_phrase = any(p in self.padded for p in _GRATEFUL_P)
        # a confrontation: a command or warning at the listener, not negated or pleaded ("please don't leave
        # me alone"), not in jest ("shut up lol", "shut up 😂")
        self.hostile_phrase = bool(_HOSTILE_RE.search(self.padded)) and not self.laugh and not any(
            m in POSITIVE for m in self.emoji_moods)
        self.reflective = any(p in self.padded for p in _REFLECTIVE_P)
        self.dry_words_only = _dry_words_only(words, self.emoji_moods)
        lively = self.excl or self.question or any(m in POSITIVE for m in self.emoji_moods)
        self.dry = self.dry_words_only and not lively


# ---------------------------------------------------------------------------------------------------
# features


_MASK = N_BUCKETS - 1


def _bucket(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8", "surrogatepass")) & _MASK


def _group(feats: list[str], out: dict[int, float], weight: float) -> None:
    """Hash one feature group into `out`, L2-normalised to `weight`."""
    if feats:
        _add_counts(Counter(map(_bucket, feats)), out, weight)


def _add_counts(counts: Counter, out: dict[int, float], weight: float) -> None:
    """Add bucket counts into `out`, L2-normalised to `weight`."""
    norm = weight / sum(v * v for v in counts.values()) ** 0.5
    for i, v in counts.items():
        out[i] = out.get(i, 0.0) + v * norm


@lru_cache(maxsize=50_000)  # per word of every message; chat repeats its words
def _char_buckets(word: str) -> tuple[int, ...]:
    """The buckets of a word's character 2-5-grams (padded " word ")."""
    p = f" {word} "
    return tuple(_bucket("c:" + p[i:i + n]) for n in (2, 3, 4, 5) if len(p) >= n for i in range(len(p) - n + 1))


GROUP_WEIGHTS = {"w": 1.0, "b": 0.6, "c": 1.0, "x": 0.8}


def featurize(text: str, cues: Cues | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sparse feature vector of a message: (bucket indices int32, values float32)."""
    c = cues or Cues(text)
    out: dict[int, float] = {}
    _group(["w:" + t for t in c.marked], out, GROUP_WEIGHTS["w"])
    plain = c.tokens
    _group([f"b:{a} {b}" for a, b in zip(["<s>"] + plain, plain + ["</s>"])], out, GROUP_WEIGHTS["b"])
    if c.words:
        chars: Counter = Counter()
        for w in c.words:
            chars.update(_char_buckets(w))
        _add_counts(chars, out, GROUP_WEIGHTS["c"])
    cue: list[str] = []
    for mood, n in c.lex_plain.items():
        cue += ["x:lex_" + mood] * n
    for mood, n in c.lex_neg.items():
        cue += ["x:neglex_" + mood] * n
    for m in c.emoji_moods:
        cue.append("x:emo_" + m)
    if c.excl:
        cue.append("x:excl" if c.excl == 1 and not c.excl_run else "x:excl2")
    # one cue per flag that is set, in this order (a dry message's counts twice)
    for flag, feats in ((c.question, ("x:q",)), (c.shout, ("x:shout",)), (c.stretched, ("x:stretch",)),
                        (c.laugh, ("x:laugh",)), (c.dry, ("x:dry", "x:dry")), (c.flirty_phrase, ("x:flirtp",)),
                        (c.grateful_phrase, ("x:gratp",)), (c.trailing_dots, ("x:dots",)),
                        (c.intens, ("x:intens",))):
        if flag:
            cue += feats
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

class Weights(NamedTuple):
    """The committed artifact, read once: the words' model, the embedding's model and how they mix."""
    w: np.ndarray            # (N_BUCKETS, n_moods) float32: the hashed features' weights
    b: np.ndarray            # (n_moods,) their bias
    classes: tuple[str, ...]
    e: np.ndarray | None     # (VECTOR_DIM, n_moods) float32: the sentence embedding's weights
    eb: np.ndarray | None    # (n_moods,) their bias
    mix: np.ndarray          # (lexical weight, embedding weight) of the pooled log-odds
    offset: np.ndarray       # (n_moods,) calibrated log-odds offsets with a vector (the neutral threshold)
    offset_lex: np.ndarray   # (n_moods,) the same without a vector
    context: float           # log-odds added to the previous message's mood in the session


@lru_cache(maxsize=1)
def _load(path: str = str(MODEL_PATH)) -> Weights:
    """The weights from the committed artifact, once."""
    with np.load(path, allow_pickle=False) as z:
        scale = z["scale"].astype(np.float32)
        w = z["W"].astype(np.float32) * scale  # (N_BUCKETS, n_classes), stored int8 per-class scaled
        b = z["b"].astype(np.float32)
        classes = tuple(str(x) for x in z["classes"])
        version = int(z["feature_version"])
        buckets = int(z["n_buckets"])
        k = len(classes)
        has_e = "E" in z.files
        e = np.ascontiguousarray(z["E"].astype(np.float32)) if has_e else None
        eb = z["Eb"].astype(np.float32) if has_e else None
        mix = z["mix"].astype(np.float32) if "mix" in z.files else np.array([1.0, 0.0], np.float32)
        offset = z["offset"].astype(np.float32) if "offset" in z.files else np.zeros(k, np.float32)
        offset_lex = z["offset_lex"].astype(np.float32) if "offset_lex" in z.files else np.zeros(k, np.float32)
        context = float(z["context"]) if "context" in z.files else 0.0
    if version != FEATURE_VERSION or buckets != N_BUCKETS:
        raise RuntimeError(f"{path}: trained for features v{version}/{buckets} buckets, code has "
                           f"v{FEATURE_VERSION}/{N_BUCKETS}; rerun ops/train_mood.py")
    return Weights(np.ascontiguousarray(w), b, classes, e, eb, mix, offset, offset_lex, context)


def usable_vector(vector: Any) -> np.ndarray | None:
    """The vector as the embedding model's weights read it, or None (absent, another model's shape,
    not finite): the words alone decide then."""
    if vector is None:
        return None
    v = np.asarray(vector, dtype=np.float32)
    if v.shape != (VECTOR_DIM,) or not np.isfinite(v).all():
        return None
    return v


def model_logits(text: str, cues: Cues | None = None) -> dict[str, float]:
    """The words' model's score per mood (no embedding, no calibration, no rules)."""
    m = _load()
    idx, val = featurize(text, cues)
    z = val @ m.w[idx] + m.b
    return {c: float(v) for c, v in zip(m.classes, z)}


def pooled_logits(text: str, vector: Any = None, previous: str | None = None,
                  cues: Cues | None = None) -> dict[str, float]:
    """The calibrated score per mood before the rules: the words' model, pooled with the sentence
    embedding's model when there is a vector (log-odds weighted by `mix`), the calibrated offsets
    (they set how sure an emotion must be to beat `neutral`), and the previous message's mood."""
    m = _load()
    idx, val = featurize(text, cues)
    z = val @ m.w[idx] + m.b
    v = usable_vector(vector) if m.e is not None else None
    if v is not None:
        z = m.mix[0] * z + m.mix[1] * (v @ m.e + m.eb) + m.offset
    else:
        z = z + m.offset_lex
    out = {c: float(x) for c, x in zip(m.classes, z)}
    if previous in out and previous != "neutral":
        out[previous] += m.context
    return out


def _softmax(z: dict[str, float]) -> dict[str, float]:
    top = max(z.values())
    e = {m: float(np.exp(v - top)) for m, v in z.items()}
    s = sum(e.values())
    return {m: v / s for m, v in e.items()}


def model_probs(text: str, cues: Cues | None = None, vector: Any = None) -> dict[str, float]:
    """The calibrated models' probability per mood (no rules, no context)."""
    return _softmax(pooled_logits(text, vector, None, cues))


EMOJI_BONUS = 1.5   # log-odds added to a mood hinted by an emoji/emoticon (x sqrt(count), at most 2 counted)
PHRASE_BONUS = 2.5  # log-odds added to flirty / grateful when one of their phrases occurs
HOSTILE_BONUS = 1.5  # log-odds added to angry for a command or warning at the listener ("stay away from my sister")


def rule_logits(z: dict[str, float], c: Cues) -> dict[str, float]:
    """Rule 3: emoji hints and the flirty / grateful / hostile phrase lists shift the model's scores."""
    z = dict(z)
    for m, n in Counter(c.emoji_moods).items():
        z[m] += EMOJI_BONUS * min(n, 2) ** 0.5
    if c.flirty_phrase:
        z["flirty"] += PHRASE_BONUS
    if c.grateful_phrase:
        z["grateful"] += PHRASE_BONUS
    if c.hostile_phrase:
        z["angry"] += HOSTILE_BONUS
    return z


def choose(probs: dict[str, float], c: Cues) -> tuple[str, float]:
    """Rules 1 and 2 over the (rule-shifted) probabilities: (mood, confidence)."""
    if c.dry:
        return "bored", max(probs["bored"], 0.75)
    if not c.words and c.emoji_moods:  # emoji only: the emoji decide
        votes = Counter(c.emoji_moods)
        top = max(votes.values())
        best = max((m for m in votes if votes[m] == top), key=probs.__getitem__)
        return best, max(probs[best], 0.8 * top / len(c.emoji_moods))
    allowed = dict(probs)
    if c.dry_words_only:  # "ok!", "sure 😊", "fine?": dry words, but a lively reply
        del allowed["bored"]
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
    weak = int(c.excl == 1) + min(2, c.intens) + int(c.caps_emph)
    up = (strong + weak >= 2) if level == 0 else (strong >= 1 or weak >= 2)
    down = c.trailing_dots or c.dimin or c.dry or c.calm or (c.tired and mood != "flirty")
    level += int(up) - int(down)
    return ENERGIES[2 - max(0, min(2, level))]


def style_of(mood: str, energy: str, c: Cues) -> str:
    """The approach the reply should take: the first rule of STYLE_RULES that holds (module docstring)."""
    return next((r.style for r in STYLE_RULES if r.applies(mood, energy, c)), DEFAULT_STYLE)


def classify(text: str, vector: Any = None, previous: str | None = None) -> dict[str, Any]:
    """{"mood", "energy", "style", "confidence"} for one message; deterministic, offline. `vector`: the
    message's sentence embedding (VECTOR_MODEL) when the shell has one; `previous`: the mood of the
    contact's previous message in this session, if any."""
    c = Cues(text)
    if not c.words and not c.emoji and not any(t in EMOTICONS for t in c.tokens):
        return {"mood": "neutral", "energy": "high" if c.excl >= 3 or c.excl_run else "medium",
                "style": "casual", "confidence": 0.5}
    mood, conf = choose(_softmax(rule_logits(pooled_logits(text, vector, previous, c), c)), c)
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
