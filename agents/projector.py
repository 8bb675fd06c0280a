"""The projector: applies one batch of processed events to a projection version in ONE transaction.

A batch commits together: the ledger rows of its source events, the rows its derived events
produce, the contacts' folded state, the tracking records (processed event ids, per-contact order)
and the per-partition offset watermarks with the broker epoch. So a crash either loses the whole
batch (it is redelivered and applied once) or none of it; a redelivered event is recognised by its
tracking record and skipped (see agents/pipeline.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby
from typing import Any, Callable

import numpy as np
import orjson
import psycopg
from pgvector import Vector

from domain import clock
from domain.text import doc_row
from schemas import events as ev
from schemas.codec import decode
from schemas.envelope import Envelope, encode, parse_time
from streams import shredding, tracing, tracking_key
from streams.webhooks import store as webhook_store

State = dict[str, Any]


@dataclass
class Applied:
    """A source event this batch applied, and where it came from."""
    env: Envelope
    contact_seq: int
    partition: int | None = None
    offset: int | None = None


@dataclass
class Batch:
    applied: list[Applied] = field(default_factory=list)
    derived: list[Envelope] = field(default_factory=list)
    states: dict[tuple[str, str], State] = field(default_factory=dict)
    # (topic, partition) -> (broker epoch, next offset to read)
    watermarks: dict[tuple[str, int], tuple[str, int]] = field(default_factory=dict)
    # ContactErased events, applied after everything else in this batch
    erasures: list[Applied] = field(default_factory=list)
    # source events that could not be applied (dead-lettered): only their tracking records, so that
    # neither a redelivery nor the ledger relay sends them round again
    failed: list[Applied] = field(default_factory=list)
    # source events with nothing to apply: ones that need an existing contact, for a contact with no state
    # (agents/core/contact.moot: erased while they were on their way). Recorded as handled the way an
    # erasure records itself, not as `applied` (nothing was) nor `failed` (nothing went wrong, no dead
    # letter): a tracking record under the erased tracking id at seq 0 (handled in this version, so
    # neither a redelivery nor the relay sends it round, and `after=` sees it; no row naming the
    # contact), and its ledger row deleted with a keyed tombstone (the row names the contact and what it
    # held, e.g. the erased memories' ids; a re-send of the id is a duplicate, a replay never reads it)
    moot: list[Applied] = field(default_factory=list)
    # a live worker publishes the derived events after the commit: kept in derived_outbox until it has
    # (a replay builds a version and publishes nothing)
    publish: bool = False
    # the source events go into the ledger; not when they were read from it (a replay from the ledger)
    record: bool = True
    # (tenant, event id)s of erased events read again (a tombstone): out of the ledger, if a re-send that
    # raced the erasure's transaction put them back (streams/ingest.record), so the relay stops at them
    unrecord: list[tuple[str, str]] = field(default_factory=list)


# Every table of a projection version that holds rows of a contact (erasure deletes from all of them).
CONTACT_TABLES = ("derived_outbox", "memory_entities", "memory_terms", "memory_term_docs", "memory_term_stats",
                  "memory_terms_pending",
                  "entities", "memories", "sessions", "session_summaries", "mood_log",
                  "triggers", "events", "processed_events", "contacts")


TOMBSTONE_INSERT = ("INSERT INTO rapport.erased_events (tenant_id, event_key) SELECT %s, unnest(%s::text[]) "
                    "ON CONFLICT (tenant_id, event_key) DO NOTHING")


async def _delete_ledger(cur: psycopg.AsyncCursor, tenant_id: str, sql: str, args: tuple) -> None:
    """Delete the contact's ledger rows `sql` (a DELETE ... RETURNING event_id) names, leaving a keyed
    tombstone of each event id: a re-send of one is then a duplicate, not a resurrection (the ingest
    reads rapport.erased_events, streams/ingest.py)."""
    await cur.execute(sql, args)
    gone = [r[0] if not isinstance(r, dict) else r["event_id"] for r in await cur.fetchall()]
    if gone:
        await cur.execute(TOMBSTONE_INSERT, (tenant_id, [tracking_key.event_tombstone(tenant_id, e) for e in gone]))


def ledger_row(env: Envelope) -> tuple:
    return (env.tenant_id, env.contact_id, env.event_id, env.event_type, env.schema_version,
            env.occurred_at, env.recorded_at, orjson.dumps(env.to_dict()).decode())


LEDGER_INSERT = ("INSERT INTO rapport.ledger (tenant_id, contact_id, event_id, event_type, schema_version, "
                 "occurred_at, recorded_at, envelope) VALUES (%s,%s,%s,%s,%s,%s,%s,%s::jsonb) "
                 "ON CONFLICT (tenant_id, event_id) DO NOTHING")


def _memory_row(m: dict[str, Any]) -> tuple:
    emb = m.get("embedding")
    vec = Vector(np.asarray(emb, dtype=np.float32)) if emb is not None else None
    return (m["id"], m["tenantId"], m["contactId"], m["scope"], m["memoryType"], m["content"], m["importance"],
            m["decayRate"], m["confidence"], m["source"], m["status"], m["pinned"], m["entityRefs"],
            m["memoryKey"], m["topics"], m["validFrom"], m["validTo"], m["expiresAt"], m["supersededBy"],
            m["accessCount"], m["accessedAt"], m["sourceEventIds"], m["createdAt"], m["updatedAt"],
            m["personaId"], m["contentHash"], vec, m.get("embeddingModel"), len(emb) if emb is not None else None,
            m.get("speaker"))


MEMORY_INSERT = (
    "INSERT INTO memories (id, tenant_id, contact_id, scope, memory_type, content, importance, decay_rate, "
    "confidence, source, status, pinned, entity_refs, memory_key, topics, valid_from, valid_to, expires_at, "
    "superseded_by, access_count, accessed_at, source_event_ids, created_at, updated_at, persona_id, "
    "content_hash, embedding, embedding_model, embedding_dim, speaker) VALUES "
    "(%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
    "ON CONFLICT (tenant_id, contact_id, id) DO NOTHING")

# every statement below that changes a derived row names the tenant and the contact of the event that
# changes it (the row's key is (tenant_id, contact_id, id): migrations/version/0008_tenant_keys.sql)
_MINE = "tenant_id=%s AND contact_id=%s"


def _session_row(e: Envelope) -> tuple:
    s = e.payload["session"]
    return (e.tenant_id, e.contact_id, s["sessionId"], s["index"], s.get("personaId"), s["startedAt"],
            s["lastActivityAt"], s.get("endedAt"), s["turnCount"])


SESSION_UPSERT = (
    "INSERT INTO sessions (tenant_id, contact_id, session_id, idx, persona_id, started_at, last_activity_at, "
    "ended_at, turn_count) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (tenant_id, contact_id, session_id) "
    "DO UPDATE SET last_activity_at=EXCLUDED.last_activity_at, ended_at=EXCLUDED.ended_at, "
    "turn_count=EXCLUDED.turn_count")

# a pattern that takes in more episodes: its digest, weight, provenance and vector follow them
PATTERN_UPDATE = (
    "ON CONFLICT (tenant_id, contact_id, id) DO UPDATE SET content=EXCLUDED.content, content_hash=EXCLUDED.content_hash, "
    "importance=EXCLUDED.importance, entity_refs=EXCLUDED.entity_refs, source_event_ids=EXCLUDED.source_event_ids, "
    "accessed_at=EXCLUDED.accessed_at, updated_at=EXCLUDED.updated_at, embedding=EXCLUDED.embedding, "
    "embedding_model=EXCLUDED.embedding_model, embedding_dim=EXCLUDED.embedding_dim")

# A memory's keyword statistics (projections/lexical.py), written after its row is inserted or its text
# changes, and only if the row holds that text and is searched (not merged away): a memory row the insert
# left as it was (ON CONFLICT DO NOTHING) keeps statistics of its own text. One statement per memory, so
# two changes of one memory in a batch apply in order: the terms it no longer has go, the others are
# upserted (memory_term_docs holds the previous terms: the statement's CTEs all read the state before it).
TERMS_UPSERT = (
    "WITH mem AS (SELECT created_at, memory_type FROM memories WHERE tenant_id=%(t)s AND contact_id=%(c)s AND id=%(m)s "
    "AND status <> 'merged' AND content = %(content)s AND speaker IS NOT DISTINCT FROM %(speaker)s), "
    "gone AS (DELETE FROM memory_terms p USING memory_term_docs d WHERE EXISTS (SELECT 1 FROM mem) "
    "AND d.tenant_id=%(t)s AND d.contact_id=%(c)s AND d.memory_id=%(m)s AND p.tenant_id=%(t)s "
    "AND p.contact_id=%(c)s AND p.memory_id=%(m)s AND p.term = ANY(d.terms) AND p.term <> ALL(%(terms)s::text[])), "
    # the contact's totals (memory_term_stats) move by this memory's difference: one more doc if it had none
    "old AS (SELECT d.length FROM memory_term_docs d WHERE d.tenant_id=%(t)s AND d.contact_id=%(c)s "
    "AND d.memory_id=%(m)s), "
    "stats AS (INSERT INTO memory_term_stats (tenant_id, contact_id, docs, total_length) SELECT %(t)s, %(c)s, "
    "CASE WHEN EXISTS (SELECT 1 FROM old) THEN 0 ELSE 1 END, %(length)s - coalesce((SELECT length FROM old), 0) "
    "FROM mem ON CONFLICT (tenant_id, contact_id) DO UPDATE SET docs = memory_term_stats.docs + EXCLUDED.docs, "
    "total_length = memory_term_stats.total_length + EXCLUDED.total_length), "
    "doc AS (INSERT INTO memory_term_docs (tenant_id, contact_id, memory_id, length, terms, tfs, created_at, "
    "memory_type) SELECT %(t)s, %(c)s, %(m)s, %(length)s, %(terms)s::text[], %(tfs)s::int[], created_at, "
    "memory_type FROM mem ON CONFLICT (tenant_id, contact_id, memory_id) DO UPDATE SET "
    "length=EXCLUDED.length, terms=EXCLUDED.terms, tfs=EXCLUDED.tfs) "
    "INSERT INTO memory_terms (tenant_id, contact_id, term, memory_id, tf, length) "
    "SELECT %(t)s, %(c)s, u.term, %(m)s, u.tf, %(length)s FROM unnest(%(terms)s::text[], %(tfs)s::int[]) AS u(term, tf) "
    "WHERE EXISTS (SELECT 1 FROM mem) "
    "ON CONFLICT (tenant_id, contact_id, term, memory_id) DO UPDATE SET tf=EXCLUDED.tf, length=EXCLUDED.length")
# a memory merged into another is searched no more (Store.memory_docs leaves it out too)
TERMS_DELETE = (
    "WITH d AS (DELETE FROM memory_term_docs WHERE tenant_id=%(t)s AND contact_id=%(c)s AND memory_id=%(m)s "
    "RETURNING terms, length), "
    "s AS (UPDATE memory_term_stats SET docs = docs - (SELECT count(*) FROM d), "
    "total_length = total_length - (SELECT coalesce(sum(length), 0) FROM d) "
    "WHERE tenant_id=%(t)s AND contact_id=%(c)s AND EXISTS (SELECT 1 FROM d)) "
    "DELETE FROM memory_terms p USING d WHERE p.tenant_id=%(t)s AND p.contact_id=%(c)s "
    "AND p.memory_id=%(m)s AND p.term = ANY(d.terms)")


def terms_row(tenant_id: str, contact_id: str, memory_id: str, speaker: str | None, content: str) -> dict[str, Any]:
    length, terms, tfs = doc_row(speaker, content)
    return {"t": tenant_id, "c": contact_id, "m": memory_id, "speaker": speaker, "content": content,
            "length": length, "terms": terms, "tfs": tfs}


def _memory_terms(m: dict[str, Any]) -> dict[str, Any]:
    return terms_row(m["tenantId"], m["contactId"], m["id"], m.get("speaker"), m["content"])


MEMORY_CORRECT = (
    "UPDATE memories SET content=coalesce(%(content)s::text, content), "
    "content_hash=coalesce(%(hash)s::text, content_hash), memory_type=coalesce(%(type)s::text, memory_type), "
    "decay_rate=coalesce(%(decay)s::float8, decay_rate), importance=coalesce(%(imp)s::float8, importance), "
    "pinned=coalesce(%(pinned)s::boolean, pinned), "
    "accessed_at=CASE WHEN %(imp)s::float8 IS NULL THEN accessed_at ELSE GREATEST(accessed_at, %(at)s) END, "
    "embedding=CASE WHEN %(content)s::text IS NULL THEN embedding ELSE %(vec)s::vector END, "
    "embedding_model=CASE WHEN %(content)s::text IS NULL THEN embedding_model ELSE %(model)s::text END, "
    "embedding_dim=CASE WHEN %(content)s::text IS NULL THEN embedding_dim ELSE %(dim)s::int END, "
    f"updated_at=GREATEST(updated_at, %(at)s) WHERE tenant_id=%(t)s AND contact_id=%(c)s AND id=%(m)s")
# a TERMS_UPSERT that matches no memory row (a correction that leaves the text as it was)
_NO_TERMS = {"t": "", "c": "", "m": "", "speaker": None, "content": "", "length": 0, "terms": [], "tfs": []}


def _correction_row(e: Envelope) -> dict[str, Any]:
    p = e.payload
    emb = p.get("embedding") if "content" in p else None
    return {"content": p.get("content"), "hash": p.get("contentHash"), "type": p.get("memoryType"),
            "decay": p.get("decayRate"), "imp": p.get("importance"), "pinned": p.get("pinned"), "at": p["at"],
            "vec": Vector(np.asarray(emb, dtype=np.float32)) if emb is not None else None,
            "model": p.get("embeddingModel") if emb is not None else None,
            "dim": len(emb) if emb is not None else None, "t": e.tenant_id, "c": e.contact_id, "m": p["memoryId"]}


# A forgotten memory (MemoryForgotten), shredded as erasure shreds a contact: its row, postings and entity
# links, the derived events about it (history and the unpublished outbox: MemoryForgotten itself, which
# holds no content, stays), and its webhook deliveries not yet sent; a tombstone keeps the webhook process
# from enqueueing what is still on the topics about it. The contact's key rows are locked first: the
# webhook process share-locks them while it stores deliveries, so those in flight are committed (and
# deleted here) or wait and then see the tombstone (streams/webhooks/delivery.py).
_ABOUT = "(payload->>'memoryId' = %(m)s OR payload->'memory'->>'id' = %(m)s OR payload->'pattern'->>'id' = %(m)s)"
FORGET_STATEMENTS = (
    "SELECT 1 FROM rapport.contact_keys WHERE tenant_id=%(t)s AND contact_id=%(c)s FOR UPDATE",
    # the profile paragraphs that stated it (ProfileRewritten snapshots: the current one is rebuilt without it)
    "WITH m AS (SELECT lower(content) AS text FROM memories WHERE tenant_id=%(t)s AND contact_id=%(c)s AND id=%(m)s) "
    f"DELETE FROM events e USING m WHERE e.tenant_id=%(t)s AND e.contact_id=%(c)s AND e.event_type = "
    f"'{ev.PROFILE_REWRITTEN}' AND strpos(lower(e.payload->>'profile'), m.text) > 0",
    "WITH m AS (SELECT lower(content) AS text FROM memories WHERE tenant_id=%(t)s AND contact_id=%(c)s AND id=%(m)s) "
    "DELETE FROM derived_outbox o USING m WHERE o.tenant_id=%(t)s AND o.contact_id=%(c)s AND "
    f"convert_from(o.envelope, 'UTF8')::jsonb->>'event_type' = '{ev.PROFILE_REWRITTEN}' "
    "AND strpos(lower(convert_from(o.envelope, 'UTF8')::jsonb->'payload'->>'profile'), m.text) > 0",
    "DELETE FROM memories WHERE tenant_id=%(t)s AND contact_id=%(c)s AND id=%(m)s",
    "DELETE FROM memory_entities WHERE tenant_id=%(t)s AND contact_id=%(c)s AND memory_id=%(m)s",
    TERMS_DELETE,
    f"DELETE FROM events WHERE tenant_id=%(t)s AND contact_id=%(c)s AND event_type <> '{ev.MEMORY_FORGOTTEN}' "
    f"AND {_ABOUT}",
    "DELETE FROM derived_outbox WHERE tenant_id=%(t)s AND contact_id=%(c)s AND event_id IN (SELECT event_id FROM "
    "(SELECT event_id, convert_from(envelope, 'UTF8')::jsonb AS d FROM derived_outbox WHERE tenant_id=%(t)s "
    f"AND contact_id=%(c)s) o WHERE d->>'event_type' <> '{ev.MEMORY_FORGOTTEN}' AND "
    "(d->'payload'->>'memoryId' = %(m)s OR d->'payload'->'memory'->>'id' = %(m)s "
    "OR d->'payload'->'pattern'->>'id' = %(m)s))",
    "DELETE FROM rapport.webhook_deliveries WHERE tenant_id=%(t)s AND contact_id=%(c)s AND status <> 'delivered' "
    f"AND event_type <> '{ev.MEMORY_FORGOTTEN}' AND body IS NOT NULL AND (SELECT d->>'memoryId' = %(m)s OR "
    "d->'memory'->>'id' = %(m)s OR d->'pattern'->>'id' = %(m)s FROM (SELECT convert_from(body, 'UTF8')::jsonb->'data' "
    "AS d) x) IS TRUE",
    "INSERT INTO rapport.forgotten_memories (tenant_id, contact_id, memory_id) VALUES (%(t)s, %(c)s, %(m)s) "
    "ON CONFLICT DO NOTHING",
)


async def forget_memory(cur: psycopg.AsyncCursor, e: Envelope) -> None:
    """The end of the segment that applied MemoryForgotten `e` (agents/pipeline.py starts a new one after a
    forget request): what it shreds is exactly what the log wrote before it, live or in a replay."""
    args = {"t": e.tenant_id, "c": e.contact_id, "m": e.payload["memoryId"]}
    await cur.execute("SELECT content, memory_type FROM memories WHERE tenant_id=%(t)s AND contact_id=%(c)s "
                      "AND id=%(m)s", args)
    row = await cur.fetchone()
    if row is not None and (row["memory_type"] if isinstance(row, dict) else row[1]) == "episode":
        await _scrub_summaries(cur, e, row["content"] if isinstance(row, dict) else row[0])
    for sql in FORGET_STATEMENTS:
        await cur.execute(sql, args)


async def _scrub_summaries(cur: psycopg.AsyncCursor, e: Envelope, text: str) -> None:
    """An episode's text is its message: the session summaries and rolling summaries that quote it (rows
    and their events) lose those sentences, as the fold's state does (agents/core/curation.py)."""
    from agents.core.curation import scrub_rolling, scrub_summary

    t, c = e.tenant_id, e.contact_id
    await cur.execute("SELECT session_id, summary FROM session_summaries WHERE tenant_id=%s AND contact_id=%s",
                      (t, c))
    for sid, summary in [(r[0], r[1]) if not isinstance(r, dict) else (r["session_id"], r["summary"])
                         for r in await cur.fetchall()]:
        if (new := scrub_summary(summary, text)) != summary:
            await cur.execute("UPDATE session_summaries SET summary=%s::jsonb WHERE tenant_id=%s AND contact_id=%s "
                              "AND session_id=%s", (orjson.dumps(new).decode(), t, c, sid))
    await cur.execute("SELECT session_id, rolling_summary FROM sessions WHERE tenant_id=%s AND contact_id=%s "
                      "AND rolling_summary IS NOT NULL", (t, c))
    for sid, rolling in [(r[0], r[1]) if not isinstance(r, dict) else (r["session_id"], r["rolling_summary"])
                         for r in await cur.fetchall()]:
        if (new := scrub_rolling(rolling, text)) != rolling:
            await cur.execute("UPDATE sessions SET rolling_summary=%s WHERE tenant_id=%s AND contact_id=%s "
                              "AND session_id=%s", (new, t, c, sid))
    await cur.execute("SELECT event_id, event_type, payload FROM events WHERE tenant_id=%s AND contact_id=%s AND "
                      "event_type = ANY(%s)", (t, c, [ev.SESSION_SUMMARIZED, ev.ROLLING_SUMMARY_UPDATED,
                                                      ev.SESSION_CLOSED]))
    for eid, etype, payload in [(r[0], r[1], r[2]) if not isinstance(r, dict) else
                                (r["event_id"], r["event_type"], r["payload"]) for r in await cur.fetchall()]:
        if etype == ev.SESSION_CLOSED:  # the closed session as it stood, its rolling summary included
            session = payload.get("session") or {}
            if isinstance(session.get("rollingSummary"), str):
                session = {**session, "rollingSummary": scrub_rolling(session["rollingSummary"], text)}
            new_payload = {**payload, "session": session}
        else:
            old = payload.get("summary")
            new_payload = {**payload, "summary": scrub_summary(old, text) if etype == ev.SESSION_SUMMARIZED
                           and isinstance(old, dict) else scrub_rolling(old, text) if isinstance(old, str) else old}
        if new_payload != payload:
            await cur.execute("UPDATE events SET payload=%s::jsonb WHERE tenant_id=%s AND contact_id=%s AND "
                              "event_id=%s", (orjson.dumps(new_payload).decode(), t, c, eid))


# what a trigger's row keeps beyond its columns (GET /contacts/{id}/triggers shows them): a crisis flag's
# category, clinical level, cue, model score, detector and conversation context; an insight's audience
TRIGGER_DETAILS = ("category", "audience", "level", "cue", "score", "detector", "context")
MEMORY_ENTITY_INSERT = ("INSERT INTO memory_entities (memory_id, tenant_id, contact_id, ref) "
                        "SELECT %s, %s, %s, unnest(%s::text[]) ON CONFLICT (tenant_id, contact_id, memory_id, ref) DO NOTHING")

ENTITY_UPSERT = (
    "INSERT INTO entities (tenant_id, contact_id, ref, entity_type, display_name, metadata, aliases, first_seen, "
    "last_seen, mentions) VALUES (%s,%s,%s,%s,%s,%s::jsonb,%s,%s,%s,%s) ON CONFLICT (tenant_id, contact_id, ref) "
    "DO UPDATE SET display_name=EXCLUDED.display_name, metadata=EXCLUDED.metadata, aliases=EXCLUDED.aliases, "
    "last_seen=EXCLUDED.last_seen, mentions=EXCLUDED.mentions")


def _entity_row(e: Envelope) -> tuple:
    n = e.payload["entity"]
    return (e.tenant_id, e.contact_id, n["ref"], n["entityType"], n["displayName"],
            orjson.dumps(n.get("metadata") or {}).decode(), n.get("aliases") or [], n["firstSeen"], n["lastSeen"],
            n.get("mentions", 1))


MOOD_INSERT = (
    "INSERT INTO mood_log (tenant_id, contact_id, event_id, source_id, at, mood, energy, style, confidence, "
    "unusual, source) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (tenant_id, contact_id, event_id) "
    "DO NOTHING")

# Inserts no other statement of a segment reads or changes before its end (rows added, never updated: a
# conflict keeps the first), so a segment's rows of each go in ONE statement over unnest after the others,
# in the order they were derived, instead of one statement per row (a batch of 256 messages: ~170 moods
# and ~200 memories' entity links). The forget requests' statements, which delete entity links, run after
# them (`_apply`), and a forget request ends its segment. -> (the statement over arrays, rows -> columns)
DEFERRED: dict[str, tuple[str, Callable[[list[tuple]], list[list]]]] = {
    MOOD_INSERT: (
        "INSERT INTO mood_log (tenant_id, contact_id, event_id, source_id, at, mood, energy, style, confidence, "
        "unusual, source) SELECT u.t, u.c, u.e, u.s, u.at, u.m, u.en, u.st, u.cf, u.un, u.src FROM unnest("
        "%b::text[], %b::text[], %b::text[], %b::text[], %b::timestamptz[], %b::text[], %b::text[], %b::text[], "
        "%b::float8[], %b::bool[], %b::text[]) WITH ORDINALITY AS u(t, c, e, s, at, m, en, st, cf, un, src, n) "
        "ORDER BY u.n ON CONFLICT (tenant_id, contact_id, event_id) DO NOTHING",
        lambda rows: columns(rows)),
    MEMORY_ENTITY_INSERT: (
        "INSERT INTO memory_entities (memory_id, tenant_id, contact_id, ref) SELECT u.m, u.t, u.c, u.r FROM "
        "unnest(%b::text[], %b::text[], %b::text[], %b::text[]) WITH ORDINALITY AS u(m, t, c, r, n) ORDER BY u.n "
        "ON CONFLICT (tenant_id, contact_id, memory_id, ref) DO NOTHING",
        lambda rows: columns([(m, t, c, ref) for m, t, c, refs in rows for ref in refs]) or [[], [], [], []]),
}

# event type -> [(SQL, row builder)]; one executemany per statement per run of consecutive events of one
# type (the DEFERRED ones: one statement per segment).
HANDLERS: dict[str, list[tuple[str, Callable[[Envelope], tuple | dict[str, Any]]]]] = {
    ev.SESSION_STARTED: [(SESSION_UPSERT, _session_row)],
    ev.SESSION_CLOSED: [(SESSION_UPSERT, _session_row)],
    ev.MEMORY_EXTRACTED: [
        (MEMORY_INSERT, lambda e: _memory_row(e.payload["memory"])),
        (TERMS_UPSERT, lambda e: _memory_terms(e.payload["memory"])),
        (MEMORY_ENTITY_INSERT, lambda e: (e.payload["memory"]["id"], e.tenant_id, e.contact_id,
                                          e.payload["memory"]["entityRefs"]))],
    ev.MEMORY_EMBEDDED: [(
        f"UPDATE memories SET embedding=%s, embedding_model=%s, embedding_dim=%s WHERE {_MINE} AND id=%s",
        lambda e: (Vector(np.asarray(e.payload["embedding"], dtype=np.float32)), e.payload["model"],
                   len(e.payload["embedding"]), e.tenant_id, e.contact_id, e.payload["memoryId"]))],
    ev.MEMORY_REINFORCED: [(
        "UPDATE memories SET importance=%s, access_count=access_count+1, accessed_at=GREATEST(accessed_at, %s), "
        "updated_at=GREATEST(updated_at, %s), source_event_ids=CASE WHEN %s = ANY(source_event_ids) "
        f"THEN source_event_ids ELSE array_append(source_event_ids, %s) END WHERE {_MINE} AND id=%s",
        lambda e: (e.payload["importance"], e.payload["at"], e.payload["at"], e.payload["sourceEventId"],
                   e.payload["sourceEventId"], e.tenant_id, e.contact_id, e.payload["memoryId"]))],
    ev.MEMORY_SUPERSEDED: [(
        "UPDATE memories SET status='superseded', valid_to=%s, superseded_by=%s, updated_at=%s, retired_at=%s "
        f"WHERE {_MINE} AND id=%s",
        lambda e: (e.payload["validTo"], e.payload["supersededBy"], e.payload["validTo"], e.payload["validTo"],
                   e.tenant_id, e.contact_id, e.payload["memoryId"]))],
    # MEMORY_ACCESSED moves no row: being served is not being used (issue 23). access_count and
    # accessed_at, which ranking and decay read, move when the contact mentions the memory again
    # (MEMORY_REINFORCED, MEMORY_MERGED); the served ids stay in the ledger and the memory's history.
    ev.MEMORY_ARCHIVED: [(
        f"UPDATE memories SET status='archived', updated_at=%s, retired_at=%s WHERE {_MINE} AND id=%s",
        lambda e: (e.occurred_at, e.occurred_at, e.tenant_id, e.contact_id, e.payload["memoryId"]))],
    # the consolidation tiers (agents/core/consolidation.py); MemoryDecayed changes no row: the decayed
    # importance is a function of (importance, accessed_at, decay_rate, time) that readers evaluate
    ev.MEMORY_MERGED: [
        (f"UPDATE memories SET status='merged', superseded_by=%s, retired_at=%s, updated_at=%s WHERE {_MINE} AND id=%s",
         lambda e: (e.payload["into"], e.payload["at"], e.payload["at"], e.tenant_id, e.contact_id,
                    e.payload["memoryId"])),
        (TERMS_DELETE, lambda e: {"t": e.tenant_id, "c": e.contact_id, "m": e.payload["memoryId"]}),
        ("UPDATE memories SET importance=%s, access_count=%s, accessed_at=GREATEST(accessed_at, %s), "
         f"updated_at=GREATEST(updated_at, %s), source_event_ids=%s, entity_refs=%s WHERE {_MINE} AND id=%s",
         lambda e: (e.payload["importance"], e.payload["accessCount"], e.payload["at"], e.payload["at"],
                    e.payload["sourceEventIds"], e.payload["entityRefs"], e.tenant_id, e.contact_id,
                    e.payload["into"])),
        (MEMORY_ENTITY_INSERT, lambda e: (e.payload["into"], e.tenant_id, e.contact_id, e.payload["entityRefs"]))],
    ev.MEMORY_PRUNED: [(
        f"UPDATE memories SET status='pruned', retired_at=%s, updated_at=%s WHERE {_MINE} AND id=%s",
        lambda e: (e.payload["at"], e.payload["at"], e.tenant_id, e.contact_id, e.payload["memoryId"]))],
    ev.MEMORY_EXPIRED: [(
        f"UPDATE memories SET status='expired', retired_at=%s, updated_at=GREATEST(updated_at, %s) "
        f"WHERE {_MINE} AND id=%s",
        lambda e: (e.payload["at"], e.payload["at"], e.tenant_id, e.contact_id, e.payload["memoryId"]))],
    ev.EPISODES_COMPRESSED: [
        (MEMORY_INSERT.replace("ON CONFLICT (tenant_id, contact_id, id) DO NOTHING", PATTERN_UPDATE), lambda e: _memory_row(e.payload["pattern"])),
        (TERMS_UPSERT, lambda e: _memory_terms(e.payload["pattern"])),
        (MEMORY_ENTITY_INSERT, lambda e: (e.payload["pattern"]["id"], e.tenant_id, e.contact_id,
                                          e.payload["pattern"]["entityRefs"])),
        (f"UPDATE memories SET status='compressed', superseded_by=%s, retired_at=%s, updated_at=%s "
         f"WHERE {_MINE} AND id = ANY(%s)",
         lambda e: (e.payload["pattern"]["id"], e.payload["at"], e.payload["at"], e.tenant_id, e.contact_id,
                    e.payload["episodeIds"]))],
    ev.PATTERN_RELABELLED: [(
        f"UPDATE memories SET content=%s, content_hash=%s, updated_at=GREATEST(updated_at, %s) WHERE {_MINE} AND id=%s",
        lambda e: (e.payload["content"], e.payload["contentHash"], e.payload["at"], e.tenant_id, e.contact_id,
                   e.payload["memoryId"])),
     # a pattern has no speaker (consolidation.compress)
     (TERMS_UPSERT, lambda e: terms_row(e.tenant_id, e.contact_id, e.payload["memoryId"], None, e.payload["content"]))],
    # a correction (agents/core/curation.py): the fields it names; new content brings its vector (none when
    # the embedder failed: the old one no longer stands for it) and its keyword statistics
    ev.MEMORY_CORRECTED: [
        (MEMORY_CORRECT, lambda e: _correction_row(e)),
        (TERMS_UPSERT, lambda e: terms_row(e.tenant_id, e.contact_id, e.payload["memoryId"], e.payload.get("speaker"),
                                           e.payload["content"]) if "content" in e.payload else _NO_TERMS),
        ("UPDATE memory_term_docs SET memory_type=%s WHERE tenant_id=%s AND contact_id=%s AND memory_id=%s",
         lambda e: (e.payload.get("memoryType"), e.tenant_id, e.contact_id,
                    e.payload["memoryId"] if "memoryType" in e.payload else None))],
    # MEMORY_FORGOTTEN: forget_memory, after the batch's other rows are written (_apply)
    ev.ENTITY_UPSERTED: [(ENTITY_UPSERT, _entity_row)],
    ev.MOOD_CLASSIFIED: [(MOOD_INSERT, lambda e: (
        e.tenant_id, e.contact_id, e.event_id, e.causation_id, e.payload["at"], e.payload["mood"], e.payload["energy"],
        e.payload["style"], float(e.payload["confidence"]), bool(e.payload["unusual"]), e.payload["source"]))],
    ev.TRIGGER_CREATED: [(
        "INSERT INTO triggers (id, tenant_id, contact_id, kind, due_at, reason, status, severity, human_review, "
        "source_event_ids, created_at, details) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s::jsonb) "
        "ON CONFLICT (tenant_id, contact_id, id) DO NOTHING",
        lambda e: (lambda t: (t["id"], e.tenant_id, e.contact_id, t["kind"], t["dueAt"], t["reason"], t["status"],
                              t.get("severity"), bool(t.get("humanReview")), t["sourceEventIds"], t["createdAt"],
                              orjson.dumps({k: v for k, v in t.items() if k in TRIGGER_DETAILS}).decode())
                   )(e.payload["trigger"]))],
    ev.SESSION_SUMMARIZED: [(
        "INSERT INTO session_summaries (tenant_id, contact_id, session_id, persona_id, ended_at, summary) "
        "VALUES (%s,%s,%s,%s,%s,%s::jsonb) ON CONFLICT (tenant_id, contact_id, session_id) DO UPDATE SET "
        "ended_at=EXCLUDED.ended_at, summary=EXCLUDED.summary",
        lambda e: (e.tenant_id, e.contact_id, e.payload["sessionId"], e.payload.get("personaId"),
                   e.payload["endedAt"], orjson.dumps(e.payload["summary"]).decode()))],
    ev.ROLLING_SUMMARY_UPDATED: [(
        "UPDATE sessions SET rolling_summary=%s WHERE tenant_id=%s AND contact_id=%s AND session_id=%s",
        lambda e: (e.payload["summary"], e.tenant_id, e.contact_id, e.payload["sessionId"]))],
}


def _contact_row(s: State) -> tuple:
    skew = s.get("clockSkewS", 0.0)
    wall = clock.wall_time(parse_time(s["dueAt"]), skew).isoformat() if s.get("dueAt") else None
    return (s["tenantId"], s["contactId"], s["displayName"], s["channel"], s["personaId"], s["firstSeen"],
            s["lastSeen"], s["messageCount"], s["sessionCount"], s["activeStreak"],
            orjson.dumps(s).decode(), s["seq"], s.get("profile"), s.get("dueAt"), skew, wall)


CONTACT_UPSERT = (
    "INSERT INTO contacts (tenant_id, contact_id, display_name, channel, persona_id, first_seen, last_seen, "
    "message_count, session_count, active_streak, state, seq, profile, next_due_at, clock_skew_s, next_due_wall) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s::jsonb,%s,%s,%s,%s,%s) "
    "ON CONFLICT (tenant_id, contact_id) DO UPDATE SET display_name=EXCLUDED.display_name, "
    "channel=EXCLUDED.channel, persona_id=EXCLUDED.persona_id, first_seen=EXCLUDED.first_seen, "
    "last_seen=EXCLUDED.last_seen, message_count=EXCLUDED.message_count, session_count=EXCLUDED.session_count, "
    "active_streak=EXCLUDED.active_streak, state=EXCLUDED.state, seq=EXCLUDED.seq, profile=EXCLUDED.profile, "
    "next_due_at=EXCLUDED.next_due_at, clock_skew_s=EXCLUDED.clock_skew_s, next_due_wall=EXCLUDED.next_due_wall "
    "WHERE contacts.seq < EXCLUDED.seq")


async def project_segments(conn: psycopg.AsyncConnection, segments: list[Batch]) -> None:
    """Apply the segments in order, atomically, on `conn` (whose search_path is the version's schema)."""
    with tracing.tracer.start_as_current_span("rapport.projection.write", attributes={
            "rapport.applied": sum(len(b.applied) + len(b.erasures) for b in segments),
            "rapport.derived": sum(len(b.derived) for b in segments)}):
        # one pipeline: the statements go out without waiting for each other's results (a batch's derived
        # events alternate between types, so it makes thousands of small executemany, each a round trip
        # otherwise); PostgreSQL works through them while we serialise the next rows
        async with conn.transaction(), conn.pipeline():
            for b in segments:
                await _apply(conn, b)


OUTBOX_RELAY_LIMIT = 500
OUTBOX_DELETE = ("DELETE FROM derived_outbox d USING unnest(%s::text[], %s::text[], %s::text[]) AS b(t, c, e) "
                 "WHERE d.tenant_id = b.t AND d.contact_id = b.c AND d.event_id = b.e")


async def mark_published(conn: psycopg.AsyncConnection, envs: list[Envelope]) -> None:
    """Derived events now on the broker (or dropped with an erased contact) leave the outbox."""
    if envs:
        async with conn.transaction():  # committed here, whatever the connection's autocommit
            await conn.execute(OUTBOX_DELETE, ([e.tenant_id for e in envs], [e.contact_id for e in envs],
                                               [e.event_id for e in envs]))


async def relay_unpublished(conn: psycopg.AsyncConnection, older_than_s: float,
                            publish: Callable[[list[Envelope]], Any]) -> int:
    """Publish the derived events a worker committed and did not get to send (it died in between), in
    the order they were derived, at most OUTBOX_RELAY_LIMIT a pass; rows are locked while they are sent, so two relays
    never send the same, and deleted in the same transaction. `conn`'s search_path is the version's
    schema; `publish` awaits the sends. Returns how many were published."""
    async with conn.transaction():
        cur = await conn.execute(
            "SELECT envelope FROM derived_outbox WHERE created_at < now() - make_interval(secs => %s) "
            "ORDER BY seq LIMIT %s FOR UPDATE SKIP LOCKED", (older_than_s, OUTBOX_RELAY_LIMIT))
        rows = await cur.fetchall()
        if not rows:
            return 0
        envs = [decode(bytes(r["envelope"] if isinstance(r, dict) else r[0])) for r in rows]
        await publish(envs)
        await conn.execute(OUTBOX_DELETE, ([e.tenant_id for e in envs], [e.contact_id for e in envs],
                                           [e.event_id for e in envs]))
    return len(envs)


async def erase_contact(cur: psycopg.AsyncCursor, tenant_id: str, contact_id: str,
                        erasure_event_id: str | None = None) -> None:
    """Carry out an erasure. The first projection version to apply it erases everything: the contact's
    rows in every version (a retired one kept for rollback, one being built by a replay), its ledger
    rows recorded up to the erasure, and its data key (crypto-shredding, streams/shredding.py), which
    makes every copy of its sealed events in the log unreadable.

    Ledger rows recorded after the erasure event (the contact wrote again while the erasure was on its
    way) stay: they are later events, and the relay re-publishes them under the contact's new key when
    their log copy was sealed with the erased one.

    A version that applies an erasure another version already applied (`rapport replay --from log`
    re-reading it) erases only its own rows and the ledger rows of the events it applied before it:
    the key, ledger rows and other versions' rows that exist now belong to the contact's later events."""
    await cur.execute("SELECT current_schema()")
    here = (await cur.fetchone())[0]
    await cur.execute("SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN "
                      "(SELECT 'proj_' || version FROM rapport.projection_versions) AND table_name = ANY(%s)",
                      (list(CONTACT_TABLES),))
    tables = await cur.fetchall()
    if erasure_event_id is not None:
        for schema, table in tables:
            if table != "processed_events" or schema == here:
                continue
            await cur.execute(f"SELECT 1 FROM {schema}.processed_events WHERE tenant_id=%s AND event_id=%s",
                              (tenant_id, erasure_event_id))
            if await cur.fetchone():
                await _delete_ledger(
                    cur, tenant_id,
                    f"DELETE FROM rapport.ledger l USING {here}.processed_events p WHERE p.tenant_id=%s "
                    f"AND p.contact_id=%s AND l.tenant_id=p.tenant_id AND l.event_id=p.event_id RETURNING l.event_id",
                    (tenant_id, contact_id))
                tables = [(sch, t) for sch, t in tables if sch == here]
                for sch, t in tables:
                    await cur.execute(f"DELETE FROM {sch}.{t} WHERE tenant_id=%s AND contact_id=%s",
                                      (tenant_id, contact_id))
                return
    for schema, table in tables:
        await cur.execute(f"DELETE FROM {schema}.{table} WHERE tenant_id=%s AND contact_id=%s",
                          (tenant_id, contact_id))
    # the key first: which keys the erasure covers is read from its ledger row, deleted next
    await shredding.forget_keys_before(cur, tenant_id, contact_id, erasure_event_id)
    # after the key: the webhook process stores deliveries under a share lock on it, so any it was
    # storing for this contact are committed by now, and go too (streams/webhooks/delivery.py)
    await webhook_store.forget_contact(cur, tenant_id, contact_id)
    await _delete_ledger(cur, tenant_id,
                         "DELETE FROM rapport.ledger WHERE tenant_id=%s AND contact_id=%s AND seq <= COALESCE("
                         "(SELECT seq FROM rapport.ledger WHERE tenant_id=%s AND event_id=%s), 9223372036854775807) "
                         "RETURNING event_id", (tenant_id, contact_id, tenant_id, erasure_event_id))


# The batch-wide inserts: one statement each, its rows as arrays (unnest keeps their order, WITH ORDINALITY
# makes it explicit where the order is a row's position: the outbox's seq, the ledger's). The arrays go
# in binary (%b): psycopg builds a text array literal in Python, escaping each element (a batch's 600
# envelopes of ~3 KB as bytea: ~150 ms; in binary ~6 ms).
LEDGER_INSERT_BATCH = (
    "INSERT INTO rapport.ledger (tenant_id, contact_id, event_id, event_type, schema_version, occurred_at, "
    "recorded_at, envelope) SELECT u.t, u.c, u.e, u.ty, u.v, u.oa, u.ra, u.env FROM unnest(%b::text[], %b::text[], "
    "%b::text[], %b::text[], %b::int[], %b::timestamptz[], %b::timestamptz[], %b::jsonb[]) WITH ORDINALITY "
    "AS u(t, c, e, ty, v, oa, ra, env, n) ORDER BY u.n ON CONFLICT (tenant_id, event_id) DO NOTHING")
PROCESSED_INSERT = (
    "INSERT INTO processed_events (tenant_id, event_id, contact_id, contact_seq, topic_partition, topic_offset) "
    "SELECT * FROM unnest(%b::text[], %b::text[], %b::text[], %b::bigint[], %b::int[], %b::bigint[]) "
    "ON CONFLICT DO NOTHING")
OUTBOX_INSERT = (
    "INSERT INTO derived_outbox (event_id, tenant_id, contact_id, envelope) SELECT u.e, u.t, u.c, u.env "
    "FROM unnest(%b::text[], %b::text[], %b::text[], %b::bytea[]) WITH ORDINALITY AS u(e, t, c, env, n) "
    "ORDER BY u.n ON CONFLICT (tenant_id, contact_id, event_id) DO NOTHING")
EVENTS_INSERT = (
    "INSERT INTO events (event_id, tenant_id, contact_id, event_type, occurred_at, causation_id, payload) "
    "SELECT * FROM unnest(%b::text[], %b::text[], %b::text[], %b::text[], %b::timestamptz[], %b::text[], "
    "%b::jsonb[]) ON CONFLICT (tenant_id, contact_id, event_id) DO NOTHING")


def columns(rows: list[tuple]) -> list[list]:
    """Rows as one list per column: the parameters of a statement over unnest."""
    return [list(c) for c in zip(*rows)]


def _tracking_row(a: Applied) -> tuple:
    return (a.env.tenant_id, a.env.event_id, a.env.contact_id, a.contact_seq, a.partition, a.offset)


async def _record_moot(cur: psycopg.AsyncCursor, moot: list[Applied]) -> None:
    """Events the fold had nothing to apply to (Batch.moot): handled, as an erased contact's are."""
    await cur.execute(PROCESSED_INSERT, columns([
        (a.env.tenant_id, a.env.event_id, tracking_key.erased_tracking_id(a.env.tenant_id, a.env.contact_id), 0,
         a.partition, a.offset) for a in moot]))
    for tenant_id, events in groupby(sorted((a.env.tenant_id, a.env.event_id) for a in moot), key=lambda te: te[0]):
        await _delete_ledger(cur, tenant_id, "DELETE FROM rapport.ledger WHERE tenant_id=%s AND event_id = ANY(%s) "
                             "RETURNING event_id", (tenant_id, [e for _, e in events]))


async def _apply(conn: psycopg.AsyncConnection, batch: Batch) -> None:
    async with conn.cursor() as cur:
        if batch.unrecord:
            await cur.execute("DELETE FROM rapport.ledger l USING unnest(%s::text[], %s::text[]) AS u(t, e) "
                              "WHERE l.tenant_id = u.t AND l.event_id = u.e",
                              ([t for t, _ in batch.unrecord], [e for _, e in batch.unrecord]))
        recorded = [ledger_row(a.env) for a in batch.applied if a.env.event_type in ev.SOURCE_TYPES] \
            if batch.record else []
        if recorded:
            await cur.execute(LEDGER_INSERT_BATCH, columns(recorded))
        if batch.applied or batch.failed:
            await cur.execute(PROCESSED_INSERT, columns([_tracking_row(a) for a in batch.applied + batch.failed]))
        if batch.moot:
            await _record_moot(cur, batch.moot)
        deferred: dict[str, list[tuple]] = {}
        for etype, run in groupby(batch.derived, key=lambda e: e.event_type):
            run = list(run)
            for sql, row in HANDLERS.get(etype, []):
                if sql in DEFERRED:
                    deferred.setdefault(sql, []).extend(row(e) for e in run)
                else:
                    await cur.executemany(sql, [row(e) for e in run])
        for sql, rows in deferred.items():
            cols = DEFERRED[sql][1](rows)
            if cols[0]:
                await cur.execute(DEFERRED[sql][0], cols)
        if batch.derived and batch.publish:  # published after the commit; the outbox covers a death between
            await cur.execute(OUTBOX_INSERT, columns([(e.event_id, e.tenant_id, e.contact_id, encode(e))
                                                      for e in batch.derived]))
        if batch.derived:
            await cur.execute(EVENTS_INSERT, columns([(e.event_id, e.tenant_id, e.contact_id, e.event_type,
                                                       e.occurred_at, e.causation_id, ev.stored_payload(e))
                                                      for e in batch.derived]))
        for e in batch.derived:  # after the rows above: nothing of the memory is written after it is shredded
            if e.event_type == ev.MEMORY_FORGOTTEN:
                await forget_memory(cur, e)
        if batch.states:
            await cur.executemany(CONTACT_UPSERT, [_contact_row(s) for s in batch.states.values()])
        if batch.watermarks:
            await cur.executemany(
                "INSERT INTO watermarks (topic, partition, broker_epoch, next_offset) VALUES (%s,%s,%s,%s) "
                "ON CONFLICT (topic, partition) DO UPDATE SET broker_epoch=EXCLUDED.broker_epoch, "
                "next_offset=CASE WHEN watermarks.broker_epoch=EXCLUDED.broker_epoch "
                "THEN GREATEST(watermarks.next_offset, EXCLUDED.next_offset) ELSE EXCLUDED.next_offset END",
                [(t, p, epoch, off) for (t, p), (epoch, off) in batch.watermarks.items()])
        for a in batch.erasures:
            await erase_contact(cur, a.env.tenant_id, a.env.contact_id, a.env.event_id)
            await cur.execute(
                "INSERT INTO processed_events (tenant_id, event_id, contact_id, contact_seq, topic_partition, "
                "topic_offset) VALUES (%s,%s,%s,0,%s,%s) ON CONFLICT DO NOTHING",
                (a.env.tenant_id, a.env.event_id, tracking_key.erased_tracking_id(a.env.tenant_id, a.env.contact_id),
                 a.partition, a.offset))
