"""Memory records and the episode rule: every meaningful user message becomes a lightweight episode.

A memory is a plain dict with the camelCase fields of the contract; `new_memory` fills the
type-specific defaults (importance and decay per type, seed 000 §2.2).
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache
from typing import Any

from domain.text import WORD, words as text_words

TENANT_DECAY_PER_DAY = 0.01  # seed 002: business context changes fast

# type -> (default importance, decay per day) for contact memories (seed 000 §2.2)
MEMORY_TYPES: dict[str, tuple[float, float]] = {
    "fact": (0.7, 0.003),
    "preference": (0.8, 0.005),
    "episode": (0.5, 0.008),
    "pattern": (0.8, 0.004),
}

# Messages made only of these words (after folding repeats like "hahaha") carry no memory.
FILLER_WORDS = frozenset("""
lol lmao lmfao rofl ok okay k kk okk hmm hm hmmm mhm mm haha hehe heh ha yes yeah yep yup ya yah no nope
nah sure cool nice great good fine thanks thank thx ty tysm hi hey hello hiya yo bye cya gn gm night
morning wow oh ohh ah ahh uh um umm right true same np alright aight kay omg idk ikr yay ugh meh
""".split())
# Small talk: greetings, sign-offs and reactions ("hi there!", "talk later", "what a day", "how are you")
# say nothing to remember about the person (seed 000 §3.1). A message made only of these and filler
# words makes no memory, so repeating it reinforces nothing either.
PHATIC_WORDS = frozenset("""
a an the and or but so to of for on in at with it its s is are was were be been am m re ve ll d i me we you u
your ur my our this that there here all everyone everybody guys folks buddy dear what whats how hows sup
wassup talk ttyl later soon again too much very really just day today tonight tomorrow night evening
afternoon going doing been good fine well great awesome cool nice lovely love sounds got get welcome sorry
anyway anyways then take care catch up see glad hope same back have had has do did
""".split())
_REPEATS = re.compile(r"(.)\1{2,}")


@lru_cache(maxsize=50_000)  # the tiers fold the same memories' texts again on every run
def normalize_text(text: str) -> str:
    """Case-, accent- and whitespace-folded text, for hashing and matching."""
    if text.isascii():  # the common case, and NFKD leaves ASCII as it is: the same result, ~20x sooner
        return " ".join(WORD.findall(text.casefold()))
    # drop combining accents only: non-Latin letters (Cyrillic, CJK, ...) must survive
    t = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()
    return " ".join(WORD.findall(t))


def content_hash(text: str) -> str:
    return hashlib.sha1(normalize_text(text).encode()).hexdigest()


@lru_cache(maxsize=50_000)  # per word of every message and summary sentence; chat repeats its words
def _fold_word(w: str) -> str:
    w = _REPEATS.sub(r"\1\1", w)  # stretched words: "sooo" -> "soo", "okkk" -> "okk"
    if re.fullmatch(r"(ha)+h?|(he)+h?|(lo)+l", w):
        return "haha" if w.startswith("ha") else ("hehe" if w.startswith("he") else "lol")
    if w not in FILLER_WORDS:  # "yesss" -> "yess" is no filler word, but "yes" is
        single = re.sub(r"(.)\1+", r"\1", w)
        if single in FILLER_WORDS:
            return single
    return w


@lru_cache(maxsize=20_000)  # the session summaries ask again for every turn of the window
def is_low_content(text: str) -> bool:
    """True for messages like "lol", "ok", "hmm", "👍", "ok thanks!!", "hi there!", "talk later", "what a
    day" that carry no memory."""
    words = [_fold_word(w) for w in text_words(text)]
    if not words:
        return True  # emoji, punctuation only
    if all(w in FILLER_WORDS or w in PHATIC_WORDS for w in words):
        return True
    return sum(len(w) for w in words if w not in FILLER_WORDS) < 3


def new_memory(*, memory_id: str, tenant_id: str, contact_id: str, memory_type: str, content: str,
               created_at: str, source_event_ids: list[str], source: str = "rules", scope: str = "contact",
               importance: float | None = None, confidence: float = 1.0, entity_refs: list[str] | None = None,
               memory_key: str | None = None, topics: list[str] | None = None, expires_at: str | None = None,
               persona_id: str | None = None, speaker: str | None = None) -> dict[str, Any]:
    base_importance, decay = MEMORY_TYPES[memory_type]
    if scope == "tenant":
        decay = TENANT_DECAY_PER_DAY
    return {
        "id": memory_id, "tenantId": tenant_id, "contactId": contact_id, "scope": scope,
        "memoryType": memory_type, "content": content,
        "importance": round(base_importance if importance is None else importance, 4),
        "decayRate": decay, "confidence": confidence, "source": source, "status": "active", "pinned": False,
        "entityRefs": entity_refs or [], "memoryKey": memory_key, "topics": topics or [],
        "validFrom": created_at, "validTo": None, "expiresAt": expires_at, "supersededBy": None,
        "accessCount": 0, "accessedAt": created_at, "sourceEventIds": list(source_event_ids),
        "createdAt": created_at, "updatedAt": created_at, "personaId": persona_id,
        "contentHash": content_hash(content), "speaker": speaker,
    }


def embedding_text(m: dict[str, Any]) -> str:
    """What gets embedded: the content, prefixed with who said it when known."""
    return f"{m['speaker']}: {m['content']}" if m.get("speaker") else m["content"]


def episode_content(message: str, max_chars: int = 600) -> str:
    """The episode's text: the message itself, whitespace-folded and bounded."""
    text = " ".join(message.split())
    return text if len(text) <= max_chars else text[: max_chars - 1].rsplit(" ", 1)[0] + "…"
