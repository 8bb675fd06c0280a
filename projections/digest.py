"""A digest of one projection version: equal digests mean equal projections.

Every table of the version is read in primary-key order and hashed row by row, except what differs
between equally valid builds of the same events:
  - where each event sat in the log (topic partition and offset of tracking records, watermarks):
    a replay from the ledger has no offsets, a replay from the log has the new broker's;
  - raw embedding vectors: the same text gives the same vector up to float rounding of the runtime;
    the model name and dimension are digested.
"""
from __future__ import annotations

import hashlib

import psycopg

# table -> (columns, order by); columns are cast to text by PostgreSQL, so the digest does not depend
# on Python's formatting of values
TABLES: dict[str, tuple[str, str]] = {
    "contacts": ("tenant_id, contact_id, display_name, channel, persona_id, first_seen, last_seen, message_count, "
                 "session_count, active_streak, state, seq, profile, next_due_at", "tenant_id, contact_id"),
    "memories": ("id, tenant_id, contact_id, scope, memory_type, content, importance, decay_rate, confidence, source, "
                 "status, pinned, entity_refs, memory_key, topics, valid_from, valid_to, expires_at, superseded_by, "
                 "access_count, accessed_at, source_event_ids, created_at, updated_at, persona_id, content_hash, "
                 "embedding_model, embedding_dim, speaker", "tenant_id, contact_id, id"),
    "sessions": ("tenant_id, contact_id, session_id, idx, persona_id, started_at, last_activity_at, ended_at, "
                 "turn_count, rolling_summary", "tenant_id, contact_id, session_id"),
    "events": ("event_id, tenant_id, contact_id, event_type, occurred_at, causation_id, payload", "tenant_id, contact_id, event_id"),
    "entities": ("tenant_id, contact_id, ref, entity_type, display_name, metadata, aliases, first_seen, last_seen, "
                 "mentions", "tenant_id, contact_id, ref"),
    "memory_entities": ("memory_id, tenant_id, contact_id, ref", "tenant_id, contact_id, memory_id, ref"),
    "memory_terms": ("tenant_id, contact_id, term, memory_id, tf, length", "tenant_id, contact_id, term, memory_id"),
    "memory_term_docs": ("tenant_id, contact_id, memory_id, length, terms, tfs, created_at, memory_type",
                         "tenant_id, contact_id, memory_id"),
    "memory_term_stats": ("tenant_id, contact_id, docs, total_length", "tenant_id, contact_id"),
    "memory_terms_pending": ("tenant_id, contact_id", "tenant_id, contact_id"),
    "processed_events": ("tenant_id, event_id, contact_id, contact_seq", "tenant_id, event_id"),
    "mood_log": ("tenant_id, contact_id, event_id, source_id, at, mood, energy, style, confidence, unusual, source",
                 "tenant_id, contact_id, event_id"),
    "triggers": ("id, tenant_id, contact_id, kind, due_at, reason, status, severity, human_review, source_event_ids, "
                 "created_at, details", "tenant_id, contact_id, id"),
    "session_summaries": ("tenant_id, contact_id, session_id, persona_id, ended_at, summary",
                          "tenant_id, contact_id, session_id"),
}
# rows left out: an erasure's own tracking record (the erased contact's events, and so the erasure,
# are gone from the ledger a replay reads)
WHERE = {"processed_events": "contact_id NOT LIKE 'erased:%%'"}


def digest(conn: psycopg.Connection, schema: str, extra_tables: dict[str, tuple[str, str]] | None = None) -> str:
    h = hashlib.sha256()
    conn.execute("SET TIME ZONE 'UTC'")  # timestamps are digested as text
    present = {r[0] for r in conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema=%s", (schema,))}
    for table, (cols, order) in sorted({**TABLES, **(extra_tables or {})}.items()):
        if table not in present:
            continue
        h.update(f"\x1e{table}\x1f".encode())
        exprs = ", ".join(f"coalesce(({c.strip()})::text, '<null>')" for c in cols.split(","))
        where = f" WHERE {WHERE[table]}" if table in WHERE else ""
        sql = f"SELECT concat_ws(chr(31), {exprs}) FROM {schema}.{table}{where} ORDER BY {order}"
        with conn.transaction(), conn.cursor(name=f"digest_{table}") as cur:  # server-side: any size
            cur.itersize = 5000
            cur.execute(sql)
            for (line,) in cur:
                h.update(line.encode())
                h.update(b"\n")
    return h.hexdigest()
