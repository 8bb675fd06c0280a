"""Tone adaptation: how the AI should answer in the contact's current mood and energy.

Rules come from seed 000 §4.3 (mood x energy) and seed 001 §3.3 (per mood, including "confused"),
merged into one list per (mood, energy); a low-energy contact gets shorter, calmer answers.
"""
from __future__ import annotations

BY_MOOD = {  # seed 001 §3.3
    "frustrated": ["Be patient, acknowledge the difficulty, offer concrete solutions", "No cheerful emojis"],
    "sad": ["Be warm and genuinely supportive, not cheerful", "Don't minimize their feelings",
            "Don't pivot to lighter topics unless they do first"],
    "anxious": ["Be calm and reassuring: acknowledge the feeling", "Break things into small, manageable steps"],
    "excited": ["Match their energy: be enthusiastic"],
    "confused": ["Explain clearly, use examples, ask clarifying questions"],
    "angry": ["Stay calm and non-defensive; acknowledge what upset them", "Don't argue or lecture"],
    "grateful": ["Receive the thanks warmly and keep the good momentum"],
    "bored": ["Introduce new topics and ask engaging questions"],
    "flirty": ["Depends on the bot persona: match it lightly or gently redirect"],
    "happy": ["Share their good mood"],
    "neutral": ["Be friendly and natural"],
}
BY_MOOD_ENERGY = {  # seed 000 §4.3
    ("happy", "high"): "Match their energy: be enthusiastic and playful, emojis welcome",
    ("happy", "low"): "Gentle warmth: they're content but tired",
    ("sad", "low"): "Supportive: listen first, don't force positivity",
    ("sad", "high"): "They want to talk about it: engage deeply",
    ("frustrated", "high"): "Let them vent: validate first, then offer perspective",
}
BY_ENERGY = {"low": "Shorter, calmer responses: match their energy", "high": "Keep the pace lively"}


def adaptation(mood: str, energy: str, unusual: bool = False, remembered: str | None = None) -> list[str]:
    lines = []
    if (mood, energy) in BY_MOOD_ENERGY:
        lines.append(BY_MOOD_ENERGY[(mood, energy)])
    lines += [x for x in BY_MOOD.get(mood, BY_MOOD["neutral"]) if x not in lines]
    if remembered and mood in ("sad", "anxious", "frustrated", "angry"):
        lines.append(f"Reference what you remember where it helps ({remembered})")
    if unusual:
        lines.append("This mood is unusual for them: gently acknowledge the change")
    if energy in BY_ENERGY and not (mood, energy) == ("happy", "high"):
        lines.append(BY_ENERGY[energy])
    return lines
