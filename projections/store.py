"""Read queries against the live projection version (the API's only access to PostgreSQL rows).

Table names are schema-qualified with the version readers are switched to (rapport.active_version),
which the store re-reads at most once a second, so a `rapport replay` switch takes effect at once.
"""
from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import numpy as np
from pgvector import Vector
from psycopg_pool import AsyncConnectionPool

from projections import db

MEMORY_COLUMNS = ("id, scope, memory_type, content, importance, confidence, source, status, pinned, entity_refs, "
                  "memory_key, topics, valid_from, valid_to, expires_at, superseded_by, access_count, accessed_at, "
                  "source_event_ids, created_at, updated_at, persona_id, speaker")


PRIVATE_STATE = ("memoryIndex", "moodHistory", "profileFacts", "timing", "engagement", "sustained")


class Store:
    def __init__(self, pool: AsyncConnectionPool):
        self.pool = pool
        self._version: str | None = None
        self._version_at = 0.0

    async def schema(self) -> str:
        if self._version is None or time.monotonic() - self._version_at > 1.0:
            async with self.pool.connection() as conn:
                self._version = await db.active_version_async(conn) or db.DEFAULT_VERSION
            self._version_at = time.monotonic()
        return db.schema_of(self._version)

    async def is_processed(self, tenant_id: str, event_id: str) -> bool:
        s = await self.schema()
        async with self.pool.connection() as conn:
            cur = await conn.execute(f"SELECT 1 FROM {s}.processed_events WHERE tenant_id=%s AND event_id=%s",
                                     (tenant_id, event_id))
            return await cur.fetchone() is not None

    async def contact(self, tenant_id: str, contact_id: str) -> dict[str, Any] | None:
        """The contact's state without the fold's private bookkeeping (indexes, histograms): readers need
        a few fields, and the whole state of a long-running contact is tens of kilobytes."""
        s = await self.schema()
        async with self.pool.connection() as conn:
            cur = await conn.execute(f"SELECT state - %s::text[] AS state FROM {s}.contacts "
                                     f"WHERE tenant_id=%s AND contact_id=%s",
                                     (list(PRIVATE_STATE), tenant_id, contact_id))
            row = await cur.fetchone()
            return row["state"] if row else None

    async def lexical_docs(self, tenant_id: str, contact_id: str) -> list[tuple[str, str]]:
        """(id, "speaker: content") of the contact's active memories, for its BM25 index."""
        s = await self.schema()
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                f"SELECT id, coalesce(speaker || ': ', '') || content AS text FROM {s}.memories "
                f"WHERE tenant_id=%s AND contact_id=%s AND status='active' AND importance >= 0.1",
                (tenant_id, contact_id))
            return [(r["id"], r["text"]) for r in await cur.fetchall()]

    async def candidates(self, tenant_id: str, contact_id: str, *, query_vec: np.ndarray | None,
                         model: str | None, extra_ids: list[str], as_of: datetime, persona_id: str | None,
                         entity_refs: list[str] | None = None, k: int = 30) -> list[dict[str, Any]]:
        """Active, unexpired memories with importance >= 0.1 (persona: its own or global): the top k by
        cosine UNION `extra_ids` (keyword matches) UNION memories linked to `entity_refs` (the entities the
        query names), each with its cosine similarity to the
        query (0 without a comparable embedding). Without a query: the k most important, newest."""
        s = await self.schema()
        where = ("m.tenant_id=%(t)s AND m.contact_id=%(c)s AND m.status='active' AND m.importance >= 0.1 "
                 "AND (m.expires_at IS NULL OR m.expires_at > %(as_of)s) "
                 "AND (m.persona_id IS NULL OR m.persona_id = %(persona)s)")
        params: dict[str, Any] = {"t": tenant_id, "c": contact_id, "as_of": as_of, "persona": persona_id,
                                  "k": k, "model": model, "extra": extra_ids, "refs": entity_refs or [],
                                  "q": Vector(query_vec.astype(np.float32)) if query_vec is not None else None}
        if query_vec is not None:
            pick = (f"SELECT m.id FROM {s}.memories m WHERE {where} AND m.embedding_model=%(model)s "
                    f"ORDER BY m.embedding <=> %(q)s LIMIT %(k)s")
            sim = "CASE WHEN m.embedding_model=%(model)s THEN 1 - (m.embedding <=> %(q)s) ELSE 0 END"
        else:
            pick = f"SELECT m.id FROM {s}.memories m WHERE {where} ORDER BY m.importance DESC, m.created_at DESC LIMIT %(k)s"
            sim = "0.0"
        cols = ", ".join("m." + c.strip() for c in MEMORY_COLUMNS.split(","))
        sql = (f"SELECT {cols}, {sim} AS similarity FROM {s}.memories m "
               f"WHERE {where} AND (m.id IN ({pick}) OR m.id = ANY(%(extra)s) OR m.entity_refs && %(refs)s::text[])")
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql, params)
            return await cur.fetchall()

    async def entities(self, tenant_id: str, contact_id: str) -> list[dict[str, Any]]:
        s = await self.schema()
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                f"SELECT ref, entity_type, display_name, metadata, aliases, mentions FROM {s}.entities "
                f"WHERE tenant_id=%s AND contact_id=%s ORDER BY mentions DESC, ref", (tenant_id, contact_id))
            return await cur.fetchall()

    async def card_memories(self, tenant_id: str, contact_id: str, refs: list[str], as_of: datetime,
                            persona_id: str | None, min_importance: float) -> list[dict[str, Any]]:
        """Memories about these entities that belong on their cards: important enough, or pinned."""
        if not refs:
            return []
        s = await self.schema()
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM {s}.memories WHERE tenant_id=%s AND contact_id=%s "
                f"AND status='active' AND (expires_at IS NULL OR expires_at > %s) "
                f"AND (persona_id IS NULL OR persona_id = %s) AND entity_refs && %s::text[] "
                f"AND (importance >= %s OR pinned) ORDER BY pinned DESC, importance DESC, created_at DESC, id",
                (tenant_id, contact_id, as_of, persona_id, refs, min_importance))
            return await cur.fetchall()

    async def triggers(self, tenant_id: str, contact_id: str) -> list[dict[str, Any]]:
        s = await self.schema()
        async with self.pool.connection() as conn:
            cur = await conn.execute(f"SELECT * FROM {s}.triggers WHERE tenant_id=%s AND contact_id=%s "
                                     f"ORDER BY due_at, id", (tenant_id, contact_id))
            return await cur.fetchall()

    async def export(self, tenant_id: str, contact_id: str) -> dict[str, list[dict[str, Any]]]:
        """Every row held about the contact, table by table (GDPR export)."""
        s = await self.schema()
        queries = {
            "contact": f"SELECT state FROM {s}.contacts WHERE tenant_id=%(t)s AND contact_id=%(c)s",
            "memories": f"SELECT {MEMORY_COLUMNS} FROM {s}.memories WHERE tenant_id=%(t)s AND contact_id=%(c)s "
                        f"ORDER BY created_at, id",
            "events": f"SELECT event_id, event_type, occurred_at, causation_id, payload FROM {s}.events "
                      f"WHERE tenant_id=%(t)s AND contact_id=%(c)s ORDER BY occurred_at, event_id",
            "entities": f"SELECT ref, entity_type, display_name, metadata, aliases, first_seen, last_seen, mentions "
                        f"FROM {s}.entities WHERE tenant_id=%(t)s AND contact_id=%(c)s ORDER BY ref",
            "sessions": f"SELECT session_id, idx, persona_id, started_at, last_activity_at, ended_at, turn_count "
                        f"FROM {s}.sessions WHERE tenant_id=%(t)s AND contact_id=%(c)s ORDER BY idx",
            "ledger": "SELECT event_id, event_type, occurred_at, recorded_at, envelope->'payload' AS payload "
                      "FROM rapport.ledger WHERE tenant_id=%(t)s AND contact_id=%(c)s ORDER BY seq",
        }
        present = await self._tables(s)
        out: dict[str, list[dict[str, Any]]] = {}
        async with self.pool.connection() as conn:
            for name, sql in queries.items():
                if name in ("contact", "ledger") or name in present:
                    cur = await conn.execute(sql, {"t": tenant_id, "c": contact_id})
                    out[name] = await cur.fetchall()
            if "triggers" in present:
                cur = await conn.execute(f"SELECT * FROM {s}.triggers WHERE tenant_id=%(t)s AND contact_id=%(c)s "
                                         f"ORDER BY due_at, id", {"t": tenant_id, "c": contact_id})
                out["triggers"] = await cur.fetchall()
        return out

    async def _tables(self, schema: str) -> set[str]:
        async with self.pool.connection() as conn:
            cur = await conn.execute("SELECT table_name FROM information_schema.tables WHERE table_schema=%s",
                                     (schema,))
            return {r["table_name"] for r in await cur.fetchall()}

    async def memories(self, tenant_id: str, contact_id: str, status: str | None) -> list[dict[str, Any]]:
        s = await self.schema()
        sql = f"SELECT {MEMORY_COLUMNS} FROM {s}.memories WHERE tenant_id=%s AND contact_id=%s"
        args: list[Any] = [tenant_id, contact_id]
        if status == "expired":
            sql += " AND status='active' AND expires_at <= now()"
        elif status == "active":
            sql += " AND status='active' AND (expires_at IS NULL OR expires_at > now())"
        elif status:
            sql += " AND status=%s"
            args.append(status)
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql + " ORDER BY created_at, id", args)
            return await cur.fetchall()
