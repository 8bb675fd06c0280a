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
import logging
from typing import Any

from schemas import events as ev
from schemas.envelope import Envelope, derived_id

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
        results = await asyncio.gather(*(self._one(e.payload["message"]) for e in todo))
        return {e.event_id: r for e, r in zip(todo, results)}


class RecordedMoods:
    """For a replay: the outcomes the live version recorded (model answers and timeouts), by the
    MoodClassified event's deterministic id; messages classified offline are simply classified again."""

    def __init__(self, conn: Any, live_schema: str):
        self.conn, self.schema = conn, live_schema

    async def moods(self, envs: list[Envelope]) -> dict[str, Any]:
        ids = {derived_id(e.event_id, "mood"): e.event_id for e in envs if e.event_type == ev.INTERACTION_RECORDED}
        if not ids:
            return {}
        cur = await self.conn.execute(
            f"SELECT event_id, payload FROM {self.schema}.events WHERE event_id = ANY(%s) "
            f"AND event_type = 'MoodClassified' AND payload->>'source' <> 'offline'", (list(ids),))
        out = {}
        for eid, payload in await cur.fetchall():
            out[ids[eid]] = TIMEOUT if payload["source"] == "previous" else {
                k: payload[k] for k in ("mood", "energy", "style", "confidence", "source")}
        return out


def from_settings() -> LLMMoods | None:
    from streams.config import settings

    s = settings()
    if not s.mood_model:
        return None
    return LLMMoods(s.llm_base_url, s.openai_api_key or "", s.mood_model, s.mood_timeout_s)
