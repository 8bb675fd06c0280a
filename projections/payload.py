"""The LLM chat payload (seed 002 §6): sections with token budgets, and what gives way when one overflows.

Sections and limits (tokens): system prompt 500, tenant profile 200, memories 1500, service data 2000,
conversation 2000, tools 1500, safety buffer 300; total 8000. Overflow rules, in the seed's order:
  1. memories: drop the lowest-scored until they fit;
  2. service data: keep only the fields relevant to the message (their keys or values share words with
     it), then cut what still does not fit;
  3. conversation: keep the last 4 turns verbatim and replace older turns by an extractive summary
     (the first sentence of each, oldest dropped first) that fits what is left.
The system prompt and the tenant profile are cut at a line/sentence boundary if they exceed their limit;
tools are kept in the given order while they fit. Pure functions; the API supplies the data.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable

from projections import fence
from domain.text import words
from projections.lexical import query_terms
from projections.retrieval import estimate_tokens

LIMITS = {"system_prompt": 500, "tenant_profile": 200, "memories": 1500, "service_data": 2000,
          "conversation": 2000, "tools": 1500, "safety_buffer": 300}
TOTAL = 8000
VERBATIM_TURNS = 4
EARLIER = "Earlier in this conversation"

Count = Callable[[str], int]


def _cut(text: str, limit: int, count: Count) -> str:
    """The longest prefix, ending at a line or sentence boundary when possible, within `limit` tokens."""
    if count(text) <= limit:
        return text
    pieces = re.split(r"(?<=[.!?\n])\s+", text)
    out = ""
    for p in pieces:
        cand = (out + " " + p).strip() if out else p
        if count(cand + " …") > limit:
            break
        out = cand
    if not out:  # one long sentence: cut by characters
        out = text[: max(0, limit * 4 - 8)]
        while out and count(out + " …") > limit:
            out = out[:-16]
    return out.rstrip() + " …"


def memories_section(memories: list[dict[str, Any]], count: Count, header: str = ""
                     ) -> tuple[str, list[dict[str, Any]]]:
    """Rule 1: the contact block (stage, what is known, mood, cards) then memories best-scored first;
    the lowest-scored are dropped until the section fits. A memory the block already states (on the
    Knows line or a card: its `section`) is not listed again."""
    kept = sorted((m for m in memories if m.get("section", "memories") == "memories"),
                  key=lambda m: -(m.get("score") or 0.0))
    while True:
        lines = [f"- [{m['memoryType']}] {fence.inline(m['content'])}" for m in kept]  # one line each
        text = "\n\n".join(p for p in (header, "MEMORIES (what you know about this contact):\n" + "\n".join(lines)
                                       if lines else "") if p)
        if count(text) <= LIMITS["memories"] or not kept:
            return _cut(text, LIMITS["memories"], count), kept
        kept = kept[:-1]


def _relevant(obj: Any, terms: set[str]) -> Any:
    """Rule 2: the parts of service data whose keys or values mention the message's words."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if terms & set(words(str(k))):
                out[k] = v
            else:
                sub = _relevant(v, terms)
                if sub not in (None, {}, []):
                    out[k] = sub
        return out
    if isinstance(obj, list):
        return [x for x in (_relevant(v, terms) for v in obj) if x not in (None, {}, [])]
    return obj if terms & set(words(str(obj))) else None


def service_section(data: Any, message: str, count: Count) -> tuple[str, bool]:
    if data in (None, "", {}, []):
        return "", False
    render = (lambda d: d) if isinstance(data, str) else (lambda d: json.dumps(d, ensure_ascii=False, indent=1))
    text = render(data)
    filtered = False
    if count(text) > LIMITS["service_data"] and not isinstance(data, str):
        data, filtered = _relevant(data, set(query_terms(message))), True
        text = render(data)
    return "CURRENT DATA:\n" + _cut(text, LIMITS["service_data"] - 4, count), filtered


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]


def conversation_section(history: list[dict[str, Any]], message: str, count: Count
                         ) -> tuple[list[dict[str, str]], str | None]:
    """Rule 3: the last VERBATIM_TURNS turns verbatim; older ones summarised to fit, oldest out first."""
    turns = [{"role": t["role"], "content": t["content"]} for t in history] + [{"role": "user", "content": message}]
    used = sum(count(t["content"]) for t in turns)
    if used <= LIMITS["conversation"]:
        return turns, None
    older, recent = turns[:-(VERBATIM_TURNS + 1)], turns[-(VERBATIM_TURNS + 1):]
    room = LIMITS["conversation"] - sum(count(t["content"]) for t in recent)
    # user text in the system message: a labelled quoted block, one `> role: ...` line per turn
    lines = [f"{t['role']}: {first_sentence(t['content'])}" for t in older]
    while lines and count(fence.quoted(EARLIER, lines)) > max(room, 0):
        lines.pop(0)
    summary = fence.quoted(EARLIER, lines) if lines else None
    if room <= 0:  # even the verbatim turns overflow: cut the oldest of them
        recent = [{"role": t["role"], "content": _cut(t["content"], LIMITS["conversation"] // len(recent), count)}
                  for t in recent]
    return recent, summary


def build_payload(*, message: str, system_prompt: str | None, tenant_profile: str | None, context_text: str | None,
                  memories: list[dict[str, Any]], service_data: Any, history: list[dict[str, Any]],
                  tools: list[dict[str, Any]] | None, count: Count | None = None) -> dict[str, Any]:
    def c(text: str) -> int:
        return estimate_tokens(text, count) if text else 0

    system = _cut(system_prompt or "", LIMITS["system_prompt"], c)
    profile = _cut(tenant_profile or "", LIMITS["tenant_profile"], c)
    contact_block = (context_text or "").split("\nMEMORIES:")[0].strip()  # stage + emotional blocks
    mem_text, kept = memories_section(memories, c, contact_block)
    service, filtered = service_section(service_data, message, c)
    turns, summary = conversation_section(history, message, c)
    kept_tools, tool_tokens = [], 0
    for t in tools or []:
        cost = c(json.dumps(t))
        if tool_tokens + cost <= LIMITS["tools"]:
            kept_tools.append(t)
            tool_tokens += cost
    system_parts = [p for p in (system, profile and "TENANT CONTEXT:\n" + profile, mem_text, service, summary) if p]
    messages = [{"role": "system", "content": "\n\n".join(system_parts)}] + turns
    conv_used = sum(c(t["content"]) for t in turns) + c(summary or "")
    budget = {
        "system_prompt": {"used": c(system), "limit": LIMITS["system_prompt"]},
        "tenant_profile": {"used": c(profile), "limit": LIMITS["tenant_profile"]},
        "memories": {"used": c(mem_text), "limit": LIMITS["memories"], "items": len(kept),
                     "dropped": sum(m.get("section", "memories") == "memories" for m in memories) - len(kept)},
        "service_data": {"used": c(service), "limit": LIMITS["service_data"], "filtered": filtered},
        "conversation": {"used": conv_used, "limit": LIMITS["conversation"], "summarized": summary is not None},
        "tools": {"used": tool_tokens, "limit": LIMITS["tools"], "dropped": len(tools or []) - len(kept_tools)},
    }
    total = sum(v["used"] for v in budget.values())
    budget["safety_buffer"] = {"used": 0, "limit": LIMITS["safety_buffer"]}
    budget["total"] = {"used": total, "limit": TOTAL}
    out: dict[str, Any] = {"messages": messages, "budget": budget}
    if kept_tools:
        out["tools"] = kept_tools
    return out
