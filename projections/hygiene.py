"""What the model reads, checked for the faults a reader notices first: the same thing said twice, a
memory listed and on a card, near-duplicate examples inside a pattern, a profile that repeats itself,
or no profile at all when there is something to say. Pure functions over a /context answer, a
/payload answer and a contact's state; the tests run them over every contact they build, and
`rapport bench notes` prints their verdict beside the text.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any

from agents.core import insights, summaries
from agents.core.memory import normalize_text
from domain.text import words

_ITEM_LINES = ("- Knows: ", "- Often talks about: ", "- Preferences: ")
_EXAMPLES = ", e.g. "


def stated_items(text: str) -> list[str]:
    """Every separately stated thing in a context_text or system message: the items of the Knows,
    Often-talks-about and Preferences lines, the emotional block's lines, each MEMORIES line and each
    memory on an entity card."""
    out: list[str] = []
    section = None
    for line in text.splitlines():
        if line and not line.startswith(("-", "[", ">", " ")) and line.rstrip().endswith(":"):
            section = line.split(" (")[0].rstrip(":")
            continue
        if line.startswith(_ITEM_LINES):
            out += line.split(": ", 1)[1].split("; ")
        elif section == "CONTACT EMOTIONAL CONTEXT" and line.startswith("- "):
            out.append(line[2:])
        elif section and section.startswith("MEMORIES") and line.startswith("- ["):
            body = re.sub(r"^- \[[^\]]*\] ", "", line)
            out.append(re.sub(r" \(importance: [0-9.]+\)$", "", body))
        elif section == "ENTITY CARDS" and line.startswith("["):
            out += line.split("]: ", 1)[1].split("; ")
    return out


def text_problems(text: str, where: str) -> list[str]:
    problems = []
    lines = Counter(ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().endswith(":"))
    problems += [f"{where}: line repeated {n} times: {ln[:80]!r}" for ln, n in lines.items() if n > 1]
    items = Counter(normalize_text(i) for i in stated_items(text) if normalize_text(i))
    problems += [f"{where}: stated {n} times: {i[:80]!r}" for i, n in items.items() if n > 1]
    for line in text.splitlines():
        if _EXAMPLES in line:
            shown = line.split(_EXAMPLES, 1)[1].split("; ")
            problems += [f"{where}: a pattern shows one example twice: {a[:60]!r} / {b[:60]!r}"
                         for i, a in enumerate(shown) for b in shown[i + 1:] if insights.same_thing(a, b)]
    return problems


def context_problems(body: dict[str, Any]) -> list[str]:
    """A /context answer: each memory once (by id and by content), each thing stated once in its text."""
    mems = body.get("memories") or []
    problems = [f"memories: id {i} served {n} times" for i, n in Counter(m["id"] for m in mems).items() if n > 1]
    contents = Counter(normalize_text(m["content"]) for m in mems)
    problems += [f"memories: {n} memories say {c[:80]!r}" for c, n in contents.items() if n > 1]
    return problems + text_problems(body.get("context_text") or "", "context_text")


def payload_problems(payload: dict[str, Any]) -> list[str]:
    system = next((m["content"] for m in payload.get("messages", []) if m["role"] == "system"), "")
    return text_problems(system, "payload")


def state_problems(state: dict[str, Any] | None) -> list[str]:
    """The contact's whole state (the fold's, private bookkeeping included): a profile once there are
    facts or habits, never saying one thing twice; every offline theme label made of its episodes' words."""
    if not state:
        return []
    problems = []
    items = summaries.profile_items(state.get("profileFacts") or {}, state.get("displayName"))
    if items and not state.get("profile"):
        problems.append("profile: empty although facts or habits are known")
    if state.get("profileSource") != "llm":
        said = [summaries._said(s) for s in re.split(r"(?<=\.)\s+", state.get("profile") or "") if s]
        problems += [f"profile: says {sorted(a)} twice" for i, a in enumerate(said) for b in said[i + 1:]
                     if a and b and (a <= b or b <= a)]
    names = {w for e in (state.get("entities") or {}).values() for w in words(e.get("displayName") or "", joined=True)}
    for mid, item in ((state.get("memoryIndex") or {}).get("items") or {}).items():
        theme = item.get("theme") or {}
        if theme.get("phrases") is None or theme.get("labelSource") == "llm":  # a model's words are its own
            continue
        own = {w for p in theme["phrases"] for w in p.split()} | names
        stray = set(words(theme["label"], joined=True)) - own - {"everyday", "life"}
        if stray:
            problems.append(f"pattern {mid}: label {theme['label']!r} has words of no episode: {sorted(stray)}")
    return problems
