"""The emotional layer of the fold (seed 000 §4, seed 001 §3.3): one step per user message, one per
closed session. Pure: mood comes from agents/core/mood.py (or a recorded LLM result passed in),
patterns from agents/core/patterns.py, crisis language from agents/core/crisis.py; every outcome is an
event (MoodClassified, TriggerCreated, MemoryExtracted for pattern memories, ChurnRiskChanged).
"""
from __future__ import annotations

from typing import Any

from agents.core import crisis_model, memory as mem, mood as mood_model, patterns, textmemo
from schemas import events as ev
from schemas.envelope import Envelope, derived_id, parse_time

NEGATIVE = {"sad", "anxious", "angry"}
CRISIS_CONTEXT_HOURS = 24      # helpline guidance stays in the context this long after crisis language
CHURN_STEP = 0.2


def _trigger(env: Envelope, kind: str, due_at: str, reason: str, **extra: Any) -> Envelope:
    tid = derived_id(env, f"trigger:{kind}")
    return ev.derived(env, ev.TRIGGER_CREATED, f"trigger:{kind}", {"trigger": {
        "id": tid, "kind": kind, "dueAt": due_at, "reason": reason, "sourceEventIds": [env.event_id],
        "createdAt": env.occurred_at, "status": "pending", **extra}})


def _pattern_memory(env: Envelope, content: str, key: str, importance: float, refs: list[str] | None = None,
                    sources: list[str] | None = None) -> dict[str, Any]:
    return mem.new_memory(memory_id=derived_id(env, f"memory:{key}"), tenant_id=env.tenant_id,
                          contact_id=env.contact_id, memory_type="pattern", content=content,
                          created_at=env.occurred_at, source_event_ids=sources or [env.event_id],
                          importance=importance, memory_key=key, entity_refs=refs or [], source="rules")


def _mood_answer(s: dict[str, Any], text: str, llm_mood: dict[str, Any] | str | None, message_vector: Any
                 ) -> dict[str, Any]:
    """The message's mood: the model's answer, the previous mood when the model was too slow, else the
    offline classifier's (with this session's moods so far as context)."""
    previous = s.get("mood")
    if isinstance(llm_mood, dict):
        return llm_mood
    if llm_mood == "timeout" and previous:  # the model was too slow: keep the mood we had
        return {k: previous[k] for k in ("mood", "energy", "style", "confidence")} | {"source": "previous"}
    # no model, the model down, or no previous mood: the offline classifier
    said = (s.get("session") or {}).get("moods") or []
    return {**_classify(text, message_vector, said[-1] if said else None), "source": "offline"}


# The offline classifier's answers by (text, vector, previous mood): classify is a pure function of the
# three, so a text said again with the same vector bits and previous mood is answered from the memo
# (agents/core/textmemo.py, one memo with the crisis scores'). Keyed by the function too (a test's spy is
# asked afresh). Dropped with the other memos of texts after an erasure (`forget_texts`).
def _classify(text: str, vector: Any, previous: str | None) -> dict[str, Any]:
    """mood_model.classify(text, vector, previous), from the memo when it was asked before."""
    classify = mood_model.classify
    answer = textmemo.MESSAGES.answer(lambda: classify(text, vector=vector, previous=previous), (classify,),
                                      text, vector, "mood", previous)
    return dict(answer)


def forget_texts() -> None:
    """Drop the memos of messages' moods and crisis scores (after an erasure: an erased contact's words are not
    kept)."""
    crisis_model.forget_texts()


def step_message(s: dict[str, Any], env: Envelope, llm_mood: dict[str, Any] | str | None = None,
                 message_vector: Any = None) -> tuple[list[Envelope], list[dict[str, Any]]]:
    """Classify the user's message and run the per-message detectors. Mutates `s` (the fold's copy).
    `llm_mood`: the mood model's answer (a dict), "timeout" or "error" (see agents/llm.py), or None.
    `message_vector`: the message's sentence embedding (contact.Inputs.message_vector), or None.
    Returns (events, pattern/episode memories to integrate through the usual dedup path)."""
    text, at = env.payload["message"], env.occurred_at
    out: list[Envelope] = []
    memories: list[dict[str, Any]] = []

    m = _mood_answer(s, text, llm_mood, message_vector)
    history = s.get("moodHistory")
    base = patterns.baseline(history)
    unusual = bool(base) and patterns.is_unusual(m, base)
    s["moodHistory"] = patterns.push_mood(history, m, at)
    s["mood"] = {"mood": m["mood"], "energy": m["energy"], "style": m["style"],
                 "confidence": round(float(m.get("confidence", 0.0)), 4), "at": at, "unusual": unusual,
                 "usual": patterns.describe_baseline(base) if base else None, "source": m.get("source", "offline")}
    out.append(ev.derived(env, ev.MOOD_CLASSIFIED, "mood", {**s["mood"]}))
    if s.get("session") is not None:
        s["session"].setdefault("moods", []).append(m["mood"])

    # sustained negative mood: a memory of the difficult period and a check-in the next morning
    s["sustained"], fired = patterns.step_sustained(s.get("sustained"), m["mood"], at)
    if fired:
        since = s["sustained"].get("since") or at
        d = parse_time(since)
        day = f"{d.strftime('%B')} {d.day}, {d.year}"
        memories.append(mem.new_memory(
            memory_id=derived_id(env, "memory:difficult-period"), tenant_id=env.tenant_id,
            contact_id=env.contact_id, memory_type="episode", content=f"Went through a difficult period around {day}",
            created_at=at, source_event_ids=[env.event_id], importance=0.7, topics=["wellbeing"]))
        out.append(_trigger(env, "check_in", patterns.next_morning(at),
                            f"{m['mood']} for 3+ messages in a row since {since}: check in gently"))

    # crisis language (rules, and the risk model over the message's vector and the conversation so far):
    # an immediate trigger for human review, and helpline guidance in the context
    found, own_risk = crisis_model.assess(text, message_vector, s.get("crisisContext"))
    if own_risk is not None:
        s["crisisContext"] = crisis_model.step_context(s.get("crisisContext"), own_risk, m["mood"])
    if found:
        s["crisis"] = {"at": at, "eventId": env.event_id, **found}
    if crisis_model.raises_alarm(found):  # concern for somebody else: the guidance only, no review trigger
        out.append(_trigger(env, "crisis", at, crisis_model.reason(found), severity=found["severity"],
                            category=found["category"], level=found["level"], cue=found["phrase"],
                            score=found["score"], detector=found["source"], context=found["context"],
                            humanReview=True))

    # consistent timing: a pattern memory and preferred outreach hours
    s["timing"] = patterns.step_timing(s.get("timing"), at)
    t = patterns.timing_pattern(s["timing"])
    if t and t["label"] != (s.get("preferredHours") or {}).get("label"):
        s["preferredHours"] = {"startHour": t["startHour"], "endHour": t["endHour"], "label": t["label"]}
        memories.append(_pattern_memory(env, t["label"], "pattern|self|chat_timing", 0.75))
        out.append(ev.derived(env, ev.PATTERN_DETECTED, "pattern:timing", {"pattern": "consistent_timing", **t}))
    return out, memories


def step_session_closed(s: dict[str, Any], env: Envelope, session: dict[str, Any], step: str) -> list[Envelope]:
    """Engagement decline over event time: churn risk up 0.2, and an owner insight when they are bored."""
    s["engagement"], declined = patterns.step_engagement(
        s.get("engagement"),
        {"endedAt": session["endedAt"], "userTurns": session.get("userTurns", 0), "sessionId": session["sessionId"]})
    if not declined:
        return []
    s["churnRisk"] = round(min(1.0, s.get("churnRisk", 0.0) + CHURN_STEP), 4)
    s["churnDecline"] = round(min(1.0, s.get("churnDecline", 0.0) + CHURN_STEP), 4)  # see consolidation.recompute_churn
    out = [ev.derived(env, ev.CHURN_RISK_CHANGED, f"{step}:churn", {"churnRisk": s["churnRisk"],
                                                                     "reason": "messages per session down 50%+ over 7 days"},
                      occurred_at=session["endedAt"])]
    base = patterns.baseline(s.get("moodHistory"))
    if base and base["mood"] == "bored":
        out.append(_trigger(env, "owner_insight", session["endedAt"],
                            "engagement down 50%+ over 7 days and the contact seems bored: try new topics",
                            audience="owner"))
    return out


def crisis_active(state: dict[str, Any] | None, as_of_iso: str) -> dict[str, Any] | None:
    c = (state or {}).get("crisis")
    if not c:
        return None
    hours = (parse_time(as_of_iso) - parse_time(c["at"])).total_seconds() / 3600
    return c if 0 <= hours <= CRISIS_CONTEXT_HOURS else None
