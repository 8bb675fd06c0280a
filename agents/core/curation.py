"""Memory curation as events: corrections and forgetting, as pure functions of (state, event).

A correction (MemoryCorrectionRequested, PATCH /contacts/{id}/memories/{memoryId}) changes a memory's
content, type, importance or pin; the fold records it as MemoryCorrected, which every reader then sees.
Forgetting (MemoryForgetRequested, DELETE .../memories/{memoryId}) takes the memory out of the contact's
memory and records MemoryForgotten, on which the projector shreds every copy of its content
(agents/projector.forget_memory).

What extraction may bring back afterwards (the rule, `admit`):
  - a corrected memory keeps its memoryKey: the contact saying something *new* under that key ("I moved
    to Delhi") supersedes the correction as it would any fact; restating a content the correction
    replaced ("I live in Mumbai" after "Lives in Mumbai" was corrected to "Lives in Pune") is not new:
    a candidate whose normalized content is a replaced one is dropped (no new memory, no supersession,
    no reinforcement), whichever message or model proposes it;
  - a forgotten memory does not come back from the messages it came from: a candidate with its id (the
    same message folded again) is dropped, and so is a model's (LLM) proposal for one of those messages
    arriving after the forgetting (it would restate it; the fold keeps no hash of a forgotten text to
    tell which one, since a digest of a short text gives the text away to whoever guesses it). The
    contact saying it again in a new message is a new memory: they told us again.

State: `s["curation"] = {"rejected": {contentHash: {"memoryId", "n"}}, "forgotten": {memoryId: {"sources",
"n"}}}`, each bounded (the oldest by `n` go first: dict order does not survive jsonb).
"""
from __future__ import annotations

from typing import Any

from agents.core import dedup, remember, summaries
from agents.core import memory as mem
from domain.decay import latest
from schemas import events as ev
from schemas.envelope import Envelope

State = dict[str, Any]
KEPT = 1000  # replaced contents and forgotten memories remembered per contact
SOURCES_KEPT = 20


def _book(s: State) -> dict[str, Any]:
    c = s.setdefault("curation", {})
    c.setdefault("rejected", {})
    c.setdefault("forgotten", {})
    return c


def _target(s: State, env: Envelope) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any] | None] | None:
    """The memory a curation request names: (its id, the curation book, the memory index, its index item
    or None), on `s` (mutated: both made if missing); None once it is forgotten (nothing more is done to it)."""
    mid = env.payload["memoryId"]
    book = _book(s)
    if mid in book["forgotten"]:
        return None
    idx = s.setdefault("memoryIndex", remember.empty_index())
    return mid, book, idx, idx["items"].get(mid)


def _put(table: dict[str, Any], key: str, entry: dict[str, Any]) -> None:
    n = max((e.get("n", 0) for e in table.values()), default=0) + 1
    table[key] = {**entry, "n": n}
    while len(table) > KEPT:
        table.pop(min(table, key=lambda k: (table[k].get("n", 0), k)))


def admit(state: State, candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The candidates extraction may still make memories of (the module's rule)."""
    c = state.get("curation")
    if not c or not candidates:
        return candidates
    rejected, forgotten = c.get("rejected") or {}, c.get("forgotten") or {}
    gone_sources = {src for f in forgotten.values() for src in f.get("sources") or ()}
    out = []
    for m in candidates:
        h = m.get("contentHash") or mem.content_hash(m["content"])
        if h in rejected or m["id"] in forgotten:
            continue
        if m.get("source") == "llm" and gone_sources & set(m.get("sourceEventIds") or ()):
            continue  # a model's late proposal for a message one of whose memories was forgotten
        out.append(m)
    return out


def from_forgotten(state: State, source_event_id: str | None) -> bool:
    """Was a memory of this message forgotten? (a model's late work on it is not taken)"""
    forgotten = (state.get("curation") or {}).get("forgotten") or {}
    return source_event_id is not None and any(source_event_id in (f.get("sources") or ()) for f in forgotten.values())


def correct(s: State, env: Envelope, vector: Any = None, model: str | None = None) -> list[Envelope]:
    """MemoryCorrectionRequested -> [MemoryCorrected] (none for a forgotten memory), on the fold's working
    copy `s` (mutated). `vector`: the embedding of the new content (the shell computes it, as it does
    for extracted memories)."""
    target = _target(s, env)
    if target is None:
        return []
    p, (mid, book, idx, item) = env.payload, target
    old_hash = item["contentHash"] if item is not None else p.get("previousContentHash")
    out: dict[str, Any] = {"memoryId": mid, "at": env.occurred_at}
    content = p.get("content")
    if content is not None:
        content = content.strip()
        new_hash = mem.content_hash(content)
        out.update(content=content, contentHash=new_hash, previousContentHash=old_hash)
        if p.get("speaker") is not None:
            out["speaker"] = p["speaker"]
        if vector is not None:
            out.update(embedding=[float(x) for x in vector], embeddingModel=model)
        if old_hash and old_hash != new_hash:
            _put(book["rejected"], old_hash, {"memoryId": mid})
        book["rejected"].pop(new_hash, None)  # corrected back to a content once replaced: it is current again
        s["memoryVersion"] = s.get("memoryVersion", 0) + 1
    if p.get("memoryType") is not None:
        decay = mem.TENANT_DECAY_PER_DAY if s.get("contactId") == ev.TENANT_CONTACT else mem.MEMORY_TYPES[p["memoryType"]][1]
        out.update(memoryType=p["memoryType"], decayRate=decay)
    if p.get("importance") is not None:
        out["importance"] = round(float(p["importance"]), 4)
    if p.get("pinned") is not None:
        out["pinned"] = bool(p["pinned"])
    if item is not None:
        item = {**item, "corrected": True}
        if content is not None:
            if idx["hashes"].get(old_hash) == mid:
                del idx["hashes"][old_hash]
            idx["hashes"][out["contentHash"]] = mid
            item.update(contentHash=out["contentHash"], sig=dedup.signature(content))
            if vector is not None:
                item["embedded"] = True
        if "memoryType" in out:
            item.update(memoryType=out["memoryType"], decayRate=out["decayRate"])
        if "importance" in out:  # the value set now; its decay runs from now
            item.update(importance=out["importance"], accessedAt=latest(env.occurred_at, item["accessedAt"]))
        if "pinned" in out:
            item["pinned"] = out["pinned"]
        idx["items"][mid] = item
    return [ev.derived(env, ev.MEMORY_CORRECTED, "corrected", out)]


def said_in(sentence: str, text: str) -> bool:
    """Is this summary sentence (perhaps clipped with "…") part of `text`?"""
    words = mem.normalize_text(sentence.rstrip("…"))
    return bool(words) and f" {words} " in f" {mem.normalize_text(text)} "


def scrub_summary(summary: dict[str, Any], text: str) -> dict[str, Any]:
    """A session summary (summaries.session_summary) without the sentences that come from `text`."""
    out = dict(summary)
    for f in ("what_mattered", "open_loops", "commitments"):
        if isinstance(out.get(f), list):
            out[f] = [x for x in out[f] if not (isinstance(x, str) and said_in(x, text))]
    if isinstance(out.get("one_liner"), str) and said_in(out["one_liner"], text):
        rest = out.get("what_mattered") or []
        out["one_liner"] = summaries._clip(rest[0], 160) if rest else "Small talk"
    return out


def scrub_rolling(rolling: str, text: str) -> str:
    """A rolling summary ("User: ... AI: ...") without the user's sentences that come from `text`."""
    for sentence in summaries.sentences(text):
        rolling = rolling.replace(f"User: {sentence}", "")
    return " ".join(rolling.split())


def _forget_episode(s: State, env: Envelope, text: str) -> list[Envelope]:
    """An episode's text is the message it was said in: the session window (the chat engine's history,
    cached in Redis) and the session summaries drop it too."""
    target = mem.normalize_text(text)
    kept = [t for t in s.get("window") or []
            if not (t.get("role") == "user" and mem.normalize_text(mem.episode_content(t["content"])) == target)]
    out: list[Envelope] = []
    if len(kept) != len(s.get("window") or []):
        s["window"] = kept
        session = s.get("session")
        if session is not None and session.get("rollingSummary"):
            session["rollingSummary"] = summaries.rolling_summary(kept)
            out.append(ev.derived(env, ev.ROLLING_SUMMARY_UPDATED, "forgotten:rolling", {
                "sessionId": session["sessionId"], "personaId": session.get("personaId"),
                "summary": session["rollingSummary"]}))
    for key, last in list((s.get("lastSessionSummary") or {}).items()):
        s["lastSessionSummary"][key] = scrub_summary(last, text)
    return out


def forgotten_messages(state: State | None) -> set[str]:
    """The messages whose text was a forgotten episode: what the export shows without its text."""
    forgotten = ((state or {}).get("curation") or {}).get("forgotten") or {}
    return {src for f in forgotten.values() if f.get("episode") for src in f.get("sources") or ()}


def exported(event_id: str, event_type: str, payload: dict[str, Any], state: State | None,
             hidden: set[str] | None = None) -> dict[str, Any]:
    """A recorded event's payload as the export shows it: a message whose text was a forgotten episode,
    and a correction of a memory since forgotten, without their text (`forgotten: true`)."""
    hidden = forgotten_messages(state) if hidden is None else hidden
    if event_id in hidden:
        return {**payload, "message": None, "forgotten": True}
    if event_type == ev.MEMORY_CORRECTION_REQUESTED and payload.get("memoryId") in \
            (((state or {}).get("curation") or {}).get("forgotten") or {}):
        return {**payload, "content": None, "forgotten": True}
    return payload


def forget(s: State, env: Envelope, memory: dict[str, Any] | None = None) -> list[Envelope]:
    """MemoryForgetRequested -> [MemoryForgotten] (once: forgetting again changes nothing), on the fold's
    working copy `s` (mutated). `memory`: the memory's {content, memoryType} as the log stands at this
    event (the shell reads it: the fold keeps no texts); an episode's message leaves the window too."""
    target = _target(s, env)
    if target is None:
        return []
    p, (mid, book, idx, item) = env.payload, target
    sources = [src for src, mids in (idx.get("bySource") or {}).items() if mid in mids]
    sources = list(dict.fromkeys(sources + list(p.get("sourceEventIds") or [])))[:SOURCES_KEPT]
    # no hash of its text: a digest of a short text is as good as the text to whoever guesses it
    episode = (memory or {}).get("memoryType") == "episode" and bool((memory or {}).get("content"))
    _put(book["forgotten"], mid, {"sources": sorted(sources), **({"episode": True} if episode else {})})
    for hh in [hh for hh, r in book["rejected"].items() if r["memoryId"] == mid]:
        book["rejected"].pop(hh)  # what it replaced is no longer kept out in its name
    if item is not None:
        remember.drop(idx, mid)
    for src in list((idx.get("bySource") or {})):
        if mid in idx["bySource"][src]:
            idx["bySource"][src] = [x for x in idx["bySource"][src] if x != mid]
    cons = s.get("consolidation")
    if cons and mid in cons.get("pending", []):
        cons["pending"] = [x for x in cons["pending"] if x != mid]
    s["memoryVersion"] = s.get("memoryVersion", 0) + 1
    out = [ev.derived(env, ev.MEMORY_FORGOTTEN, "forgotten", {"memoryId": mid, "at": env.occurred_at})]
    return out + (_forget_episode(s, env, memory["content"]) if episode else [])


def plan_correction(env: Envelope) -> list[dict[str, Any]]:
    """What the shell embeds for a correction: its new content, said by the memory's speaker (as an
    extracted memory's text is embedded: memory.embedding_text)."""
    content, speaker = env.payload.get("content"), env.payload.get("speaker")
    return [{"content": content.strip(), "speaker": speaker}] if isinstance(content, str) and content.strip() else []
