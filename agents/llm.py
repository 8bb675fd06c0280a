"""Optional OpenAI-compatible accelerators (any base_url), never on the critical path.

Mood chain (seed 000 §4.1): a haiku-class chat model classifies each user message, JSON only, within
200 ms. Outcomes per message: the model's mood; "timeout" (the fold keeps the contact's previous mood);
"error" / provider down (the fold uses the offline classifier). The outcome is recorded in the
MoodClassified event, and a replay reuses recorded outcomes instead of asking the model again, so a
rebuild gives the same projections whether or not the model is reachable (RecordedMoods).
"""
from __future__ import annotations

import asyncio
import json
import re
import logging
from typing import Any

from agents.core.redaction import redact
from schemas import events as ev
from schemas.envelope import Envelope, derived_id, legacy_derived_id

log = logging.getLogger("rapport.llm")

MOODS = ("happy", "sad", "anxious", "excited", "neutral", "angry", "frustrated", "flirty", "bored", "grateful")
ENERGIES = ("high", "medium", "low")
STYLES = ("playful", "deep", "casual", "supportive", "romantic", "venting")
PROMPT = ('Classify this message\'s emotion. JSON only.\nMessage: "{message}"\n'
          '{{ "mood": "<emotion>", "energy": "<level>", "style": "<approach>" }}\n'
          "mood: " + "|".join(MOODS) + "\nenergy: " + "|".join(ENERGIES) + "\nstyle: " + "|".join(STYLES))
TIMEOUT = "timeout"
ERROR = "error"


def parse_mood(text: str) -> dict[str, Any] | None:
    """The model's JSON, validated; None when it is not a usable answer."""
    try:
        start, end = text.index("{"), text.rindex("}") + 1
        d = json.loads(text[start:end])
    except (ValueError, json.JSONDecodeError):
        return None
    if d.get("mood") not in MOODS or d.get("energy") not in ENERGIES:
        return None
    style = d.get("style") if d.get("style") in STYLES else "casual"
    return {"mood": d["mood"], "energy": d["energy"], "style": style, "confidence": 0.9, "source": "llm"}


class LLMMoods:
    """Asks the model about each user message of a batch, concurrently, each within `timeout_s`."""

    def __init__(self, base_url: str | None, api_key: str, model: str, timeout_s: float = 0.2):
        from openai import AsyncOpenAI

        self.model, self.timeout_s = model, timeout_s
        self.client = AsyncOpenAI(base_url=base_url, api_key=api_key or "none", max_retries=0, timeout=5.0)

    async def _one(self, text: str) -> dict[str, Any] | str:
        try:
            resp = await asyncio.wait_for(self.client.chat.completions.create(
                model=self.model, max_tokens=40, temperature=0,
                messages=[{"role": "user", "content": PROMPT.format(message=text[:2000])}]), self.timeout_s)
        except asyncio.TimeoutError:
            return TIMEOUT
        except Exception as e:  # provider down, HTTP error, bad request: offline classifier
            log.debug("mood model unavailable: %s", e)
            return ERROR
        return parse_mood(resp.choices[0].message.content or "") or ERROR

    async def moods(self, envs: list[Envelope]) -> dict[str, Any]:
        todo = [e for e in envs if e.event_type == ev.INTERACTION_RECORDED and e.payload["role"] == "user"]
        results = await asyncio.gather(*(self._one(redact(e.payload["message"])) for e in todo))
        return {(e.tenant_id, e.event_id): r for e, r in zip(todo, results)}  # event ids are per tenant


class RecordedMoods:
    """For a replay: the outcomes the live version recorded (model answers and timeouts), by the
    MoodClassified event's deterministic id; messages classified offline are simply classified again."""

    def __init__(self, conn: Any, live_schema: str):
        self.conn, self.schema = conn, live_schema

    async def moods(self, envs: list[Envelope]) -> dict[str, Any]:
        msgs = [e for e in envs if e.event_type == ev.INTERACTION_RECORDED]
        if not msgs:
            return {}
        # by the id the live version gave it: scheme 2, or scheme 1 in a version built before it (the
        # replay that moves a deployment to scheme 2 keeps the model's moods); within the tenant and contact
        want = [(e, derived_id(e, "mood"), 0) for e in msgs] + [(e, legacy_derived_id(e.event_id, "mood"), 1)
                                                               for e in msgs]
        cur = await self.conn.execute(
            f"SELECT b.n, d.payload FROM {self.schema}.events d "
            f"JOIN unnest(%s::text[], %s::text[], %s::text[]) WITH ORDINALITY AS b(t, c, i, n) "
            f"ON d.tenant_id = b.t AND d.contact_id = b.c AND d.event_id = b.i "
            f"WHERE d.event_type = 'MoodClassified' AND d.payload->>'source' <> 'offline'",
            ([e.tenant_id for e, _, _ in want], [e.contact_id for e, _, _ in want], [i for _, i, _ in want]))
        found = sorted(((want[n - 1][2], want[n - 1][0], payload) for n, payload in await cur.fetchall()),
                       key=lambda x: x[0], reverse=True)  # scheme 2 last: it wins
        out = {}
        for _, e, payload in found:
            out[(e.tenant_id, e.event_id)] = TIMEOUT if payload["source"] == "previous" else {
                k: payload[k] for k in ("mood", "energy", "style", "confidence", "source")}
        return out


def from_settings(s: Any = None) -> LLMMoods | None:
    """From the worker's settings (streams/config.Settings; default: the environment's)."""
    from streams.config import settings

    s = s or settings()
    if not s.mood_model:
        return None
    return LLMMoods(s.llm_base_url, s.openai_api_key or "", s.mood_model, s.mood_timeout_s)


# ------------------------------------------------------------------------------------- extraction
EXTRACTION_TOOL = {"type": "function", "function": {"name": "extract_memories", "parameters": {
    "type": "object", "required": ["memories"], "properties": {
        "memories": {"type": "array", "description": "Memories to store. Only genuinely new or noteworthy information.",
                     "items": {"type": "object", "required": ["memory", "topics", "expiration", "importance"],
                               "properties": {
                                   "memory": {"type": "string", "description": "A concise fact or observation."},
                                   "topics": {"type": "array", "items": {"type": "string"}},
                                   "expiration": {"type": "string", "enum": ["1d", "3d", "7d", "30d", "permanent"]},
                                   "importance": {"type": "string", "enum": ["low", "medium", "high"]}}}},
        "profile_update": {"type": ["string", "null"],
                           "description": "The full updated profile summary if a permanent fact was learned."}}}}}
EXTRACTION_PROMPT = ("Extract memories worth keeping about the user from this message, in the third person "
                     "(\"Has a dog named Bruno\"). Known profile: {profile}\nMessage: \"{message}\"")


def parse_proposals(arguments: str) -> dict[str, Any] | None:
    """The tool call's arguments, validated item by item; None when unusable."""
    try:
        d = json.loads(arguments)
    except (ValueError, TypeError):
        return None
    if not isinstance(d, dict) or not isinstance(d.get("memories"), list):
        return None
    items = []
    for m in d["memories"][:20]:
        if (isinstance(m, dict) and isinstance(m.get("memory"), str) and 3 <= len(m["memory"]) <= 500
                and m.get("expiration") in ("1d", "3d", "7d", "30d", "permanent")
                and m.get("importance") in ("low", "medium", "high")):
            items.append({"memory": m["memory"].strip(), "expiration": m["expiration"], "importance": m["importance"],
                          "topics": [str(t)[:40] for t in (m.get("topics") or [])][:8]})
    profile = d.get("profile_update") if isinstance(d.get("profile_update"), str) else None
    return {"memories": items, "profileUpdate": profile[:1000] if profile else None}


class LLMExtractor:
    """Deferred extraction: after a batch is committed, ask the model about each user message (in the
    background, a few at a time); a usable answer is published as a MemoriesProposed event."""

    def __init__(self, base_url: str | None, api_key: str, model: str, timeout_s: float = 15.0,
                 concurrency: int = 4):
        from openai import AsyncOpenAI

        self.model, self.timeout_s = model, timeout_s
        self.client = AsyncOpenAI(base_url=base_url, api_key=api_key or "none", max_retries=1, timeout=timeout_s)
        self.slots = asyncio.Semaphore(concurrency)
        self.tasks: set[asyncio.Task] = set()

    async def propose(self, env: Envelope, profile: str | None) -> Envelope | None:
        async with self.slots:
            try:
                resp = await asyncio.wait_for(self.client.chat.completions.create(
                    model=self.model, temperature=0, tools=[EXTRACTION_TOOL],
                    tool_choice={"type": "function", "function": {"name": "extract_memories"}},
                    messages=[{"role": "user", "content": EXTRACTION_PROMPT.format(
                        profile=profile or "(none)", message=redact(env.payload["message"])[:4000])}]), self.timeout_s)
                calls = resp.choices[0].message.tool_calls or []
                parsed = parse_proposals(calls[0].function.arguments) if calls else None
            except Exception as e:  # timeout, provider down: the rules' memories stand
                log.info("LLM extraction skipped for %s: %s", env.event_id, type(e).__name__)
                return None
        if not parsed or not (parsed["memories"] or parsed["profileUpdate"]):
            return None
        return ev.memories_proposed(source=env, model=self.model, **parsed)

    def submit(self, envs: list[Envelope], profiles: dict[tuple[str, str], str | None], publish) -> None:  # noqa: ANN001
        async def one(e: Envelope) -> None:
            proposal = await self.propose(e, profiles.get((e.tenant_id, e.contact_id)))
            if proposal is not None:
                await publish(proposal)

        for e in envs:
            if e.event_type == ev.INTERACTION_RECORDED and e.payload["role"] == "user":
                t = asyncio.get_running_loop().create_task(one(e))
                self.tasks.add(t)
                t.add_done_callback(self.tasks.discard)


def extractor_from_settings(s: Any = None) -> LLMExtractor | None:
    """From the worker's settings (streams/config.Settings; default: the environment's)."""
    from streams.config import settings

    s = s or settings()
    if not s.extraction_model:
        return None
    return LLMExtractor(s.llm_base_url, s.openai_api_key or "", s.extraction_model)


# ------------------------------------------------------------------------------------- summaries
SUMMARY_PROMPT = ("Summarize this chat session as JSON with exactly these keys: one_liner (string), what_mattered, "
                  "open_loops, commitments, people (lists of short strings), tone (one word). JSON only.\n\n{turns}")


LABEL_PROMPT = ("These are messages a person often sends about one theme. Name the theme the way a friend's notes "
                "would: 'topic: detail, detail' (at most 10 words, only what the messages say, no names of the people "
                "chatting). Answer with the label alone.\n\nCurrent label: {label}\n{examples}")


def parse_label(text: str) -> str | None:
    """The first line of the answer, without quotes or a "Label:" prefix; None when empty or too long."""
    line = next((ln.strip() for ln in (text or "").splitlines() if ln.strip()), "")
    line = re.sub(r"^(label|theme)\s*:\s*", "", line, flags=re.IGNORECASE).strip(" \"'`*.")
    return line if 0 < len(line) <= ev.MAX_LABEL_CHARS else None


def parse_summary(text: str) -> dict[str, Any] | None:
    try:
        d = json.loads(text[text.index("{"):text.rindex("}") + 1])
    except ValueError:
        return None
    if not isinstance(d, dict) or not isinstance(d.get("one_liner"), str) or not d["one_liner"].strip():
        return None
    out: dict[str, Any] = {"one_liner": d["one_liner"].strip()[:300]}
    for f in ev.SUMMARY_FIELDS[1:5]:
        v = d.get(f) or []
        out[f] = [str(x)[:200] for x in v][:8] if isinstance(v, list) else []
    out["tone"] = str(d.get("tone") or "neutral")[:40]
    return out


class LLMSummarizer:
    """When a session closes, ask the model for seed 004's summary in the background; a usable answer is
    published as a SummaryProposed event (the extractive summary stands until then, and otherwise)."""

    def __init__(self, base_url: str | None, api_key: str, model: str, timeout_s: float = 20.0):
        from openai import AsyncOpenAI

        self.model, self.timeout_s = model, timeout_s
        self.client = AsyncOpenAI(base_url=base_url, api_key=api_key or "none", max_retries=1, timeout=timeout_s)
        self.tasks: set[asyncio.Task] = set()

    async def propose(self, closed: Envelope) -> Envelope | None:
        turns = "\n".join(f"{t['role']}: {t['content']}" for t in closed.payload.get("turns") or [])[:12000]
        if not turns:
            return None
        try:
            resp = await asyncio.wait_for(self.client.chat.completions.create(
                model=self.model, temperature=0, max_tokens=400,
                messages=[{"role": "user", "content": SUMMARY_PROMPT.format(turns=turns)}]), self.timeout_s)
            summary = parse_summary(resp.choices[0].message.content or "")
        except Exception as e:
            log.info("LLM summary skipped for %s: %s", closed.event_id, type(e).__name__)
            return None
        return ev.summary_proposed(closed=closed, summary=summary, model=self.model) if summary else None

    async def propose_label(self, compressed: Envelope) -> Envelope | None:
        """A theme's label from the model, given the pattern's text (its offline label and examples)."""
        content = compressed.payload["pattern"]["content"]
        label, _, examples = content.partition(", e.g. ")
        try:
            resp = await asyncio.wait_for(self.client.chat.completions.create(
                model=self.model, temperature=0, max_tokens=40, messages=[{"role": "user", "content": LABEL_PROMPT.format(
                    label=label, examples="\n".join(f"- {x}" for x in examples.split("; ") if x))}]), self.timeout_s)
            text = parse_label(resp.choices[0].message.content or "")
        except Exception as e:
            log.info("LLM label skipped for %s: %s", compressed.event_id, type(e).__name__)
            return None
        return ev.label_proposed(compressed=compressed, label=text, model=self.model) if text else None

    def submit(self, derived: list[Envelope], publish) -> None:  # noqa: ANN001
        async def one(e: Envelope) -> None:
            proposal = await (self.propose(e) if e.event_type == ev.SESSION_CLOSED else self.propose_label(e))
            if proposal is not None:
                await publish(proposal)

        for e in derived:
            if e.event_type in (ev.SESSION_CLOSED, ev.EPISODES_COMPRESSED):
                t = asyncio.get_running_loop().create_task(one(e))
                self.tasks.add(t)
                t.add_done_callback(self.tasks.discard)


def summarizer_from_settings(s: Any = None) -> LLMSummarizer | None:
    """From the worker's settings (streams/config.Settings; default: the environment's)."""
    from streams.config import settings

    s = s or settings()
    return LLMSummarizer(s.llm_base_url, s.openai_api_key or "", s.summary_model) if s.summary_model else None
