"""Read queries against the live projection version (the API's only access to PostgreSQL rows).

Table names are schema-qualified with the version readers are switched to (rapport.active_version),
which the store re-reads at most once a second, so a `rapport replay` switch takes effect at once.
"""
from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any

import numpy as np
from pgvector import Vector
from psycopg import AsyncConnection
from psycopg.rows import tuple_row
from psycopg_pool import AsyncConnectionPool

from domain import decay
from projections import lexical, metrics
from streams import db
from streams import tracking_key

MEMORY_COLUMNS = ("id, scope, memory_type, content, importance, decay_rate, retired_at, confidence, source, status, "
                  "pinned, entity_refs, "
                  "memory_key, topics, valid_from, valid_to, expires_at, superseded_by, access_count, accessed_at, "
                  "source_event_ids, created_at, updated_at, persona_id, speaker")
# what ranking and packing an answer read (projections/context.py): fetching and converting the other
# columns was a third of the candidates' cost in the API, whose Python time bounds /context under load
RANKING_COLUMNS_M = ("m.id, m.memory_type, m.content, m.importance, m.decay_rate, m.retired_at, m.status, m.pinned, "
                     "m.entity_refs, m.expires_at, m.access_count, m.accessed_at, m.source_event_ids, m.created_at, m.speaker")


# The working set at %(as_of)s: memories created by then, not yet retired (superseded, merged,
# compressed, pruned, expired, archived) then, unexpired, and with importance at %(as_of)s
# (domain/decay.py, the same closed form in SQL; accesses after as_of had not happened yet, as in
# context.rank) of 0.1 or pinned. domain/decay.in_working_set is its Python twin (a parity test on
# PostgreSQL holds them together). %(created_by)s is as_of for an explicit as_of, else infinity (a
# producer clock a little ahead is fine).
def visible(m: str = "m") -> str:
    anchor = f"(CASE WHEN {m}.accessed_at <= %(as_of)s THEN {m}.accessed_at ELSE {m}.created_at END)"
    idle = f"GREATEST(0, EXTRACT(EPOCH FROM (%(as_of)s - {anchor})) / 86400 - {decay.GRACE_DAYS})"
    return (f"{retrievable(m)} "
            f"AND ({m}.status='active' OR {m}.retired_at > %(as_of)s) "
            f"AND ({m}.expires_at IS NULL OR {m}.expires_at > %(as_of)s) "
            f"AND ({m}.pinned OR {m}.importance - {m}.decay_rate * {idle} >= {decay.PRUNE_BELOW})")


# What a query searches at %(as_of)s: the working set and the archive (everything a tier retired without
# an erasure: compressed, pruned, expired, archived, decayed). Left out: a near-duplicate merged into
# another memory (the winner holds its content and provenance), and a superseded fact unless %(past)s
# (the query asks about the past).
def retrievable(m: str = "m") -> str:
    return (f"{m}.tenant_id=%(t)s AND {m}.contact_id=%(c)s AND {m}.created_at <= %(created_by)s "
            f"AND ({m}.status NOT IN ('merged', 'superseded') OR {m}.retired_at > %(as_of)s "
            f"OR ({m}.status = 'superseded' AND %(past)s)) "
            f"AND ({m}.persona_id IS NULL OR {m}.persona_id = %(persona)s)")


def visibility_params(tenant_id: str, contact_id: str, as_of: datetime, explicit: bool,
                      persona_id: str | None, past: bool = False) -> dict[str, Any]:
    return {"t": tenant_id, "c": contact_id, "as_of": as_of, "created_by": as_of if explicit else "infinity",
            "persona": persona_id, "past": past}


# a candidate's cosine similarity to the query %(q)s (0 for a vector of another model, or none)
SIMILARITY = "CASE WHEN m.embedding_model=%(model)s THEN 1 - (m.embedding <=> %(q)s) ELSE 0 END"



def _bm25(s: str, name: str, terms: str) -> str:
    """CTEs `{name}_p` (the postings of the terms in `terms`, a relation of (term, ord)), `{name}_w` (each
    term's idf) and `{name}` (the top %(k)s memories by BM25 score, best first, ties by id): the arithmetic
    of lexical.BM25Index.scores step by step in doubles, each memory's terms summed in the query's order,
    so the scores are the same numbers."""
    return (f"{name}_p AS MATERIALIZED (SELECT q.ord, p.memory_id, p.tf, p.length FROM {terms} q CROSS JOIN LATERAL "
            f"(SELECT p.memory_id, p.tf, p.length FROM {s}.memory_terms p WHERE p.tenant_id=%(t)s "
            f"AND p.contact_id=%(c)s AND p.term = q.term OFFSET 0) p), "
            f"{name}_w AS MATERIALIZED (SELECT ord, ln(1 + ((st.n - count(*)) + 0.5::float8) / (count(*) + 0.5::float8)) AS w "
            f"FROM {name}_p, st GROUP BY ord, st.n), "
            f"{name} AS MATERIALIZED (SELECT p.memory_id, sum(w.w * p.tf * %(k1p1)s / (p.tf + %(k1)s * ((1 - %(b)s) "
            f"+ %(b)s * p.length / st.avgdl)) ORDER BY p.ord) AS score FROM {name}_p p JOIN {name}_w w USING (ord), "
            f"st GROUP BY p.memory_id ORDER BY score DESC, p.memory_id LIMIT %(k)s)")


def keyword_search_sql(s: str) -> str:
    """Okapi BM25 with pseudo-relevance feedback (lexical.BM25Index.search) over the postings the projector
    keeps in schema `s`: the contact's totals (memory_term_stats), the query's terms' postings, the best
    FEEDBACK_DOCS matches' own terms and those terms' document frequencies, then the feedback terms'
    postings; never all of the contact's memories.
    Rows (pass, id, score): (0, NULL, NULL) if the contact's memories predate the postings
    (memory_terms_pending), then the first search's top k (pass 1) and the feedback search's (pass 2),
    each best first. Every step is computed once (MATERIALIZED) and each term's postings are read by their
    index range (the LATERAL): on tables not yet analysed, a contact just ingested, the planner otherwise
    walked all the contact's postings once per query term and the idf once per posting."""
    return (
        # N and the average length from the contact's totals the projector keeps (memory_term_stats): one
        # row, where counting the lengths of its memory_term_docs read every memory's index entry; the same
        # integers, so the same doubles. Always one row (none when the contact has no searched memory).
        f"WITH st AS MATERIALIZED (SELECT coalesce(max(docs), 0) AS n, max(total_length)::float8 / "
        f"nullif(max(docs), 0) AS avgdl FROM {s}.memory_term_stats WHERE tenant_id=%(t)s AND contact_id=%(c)s), "
        f"q1 AS MATERIALIZED (SELECT term, ord FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS u(term, ord)), "
        + _bm25(s, "s1", "q1") + ", "
        f"top AS MATERIALIZED (SELECT memory_id, row_number() OVER (ORDER BY score DESC, memory_id) AS r FROM s1 "
        f"ORDER BY score DESC, memory_id LIMIT %(fb_docs)s), "
        # the feedback: the terms of the best matches not in the query, 3+ characters, in at most
        # lexical.feedback_limit of the docs, weighed by their summed tf x idf (the best match's first)
        f"cand AS MATERIALIZED (SELECT top.r, u.term COLLATE \"C\" AS term, u.tf FROM top CROSS JOIN LATERAL "
        f"(SELECT d.terms, d.tfs FROM {s}.memory_term_docs d WHERE d.tenant_id=%(t)s AND d.contact_id=%(c)s "
        f"AND d.memory_id = top.memory_id OFFSET 0) d, unnest(d.terms, d.tfs) AS u(term, tf) WHERE u.term <> ALL(%(terms)s::text[]) AND char_length(u.term) >= 3), "
        f"cdf AS MATERIALIZED (SELECT x.term, (SELECT count(*) FROM {s}.memory_terms p WHERE p.tenant_id=%(t)s "
        f"AND p.contact_id=%(c)s AND p.term = x.term) AS df FROM (SELECT DISTINCT term FROM cand) x), "
        f"q2 AS MATERIALIZED (SELECT term, row_number() OVER (ORDER BY weight DESC, term) AS ord FROM ("
        f"SELECT c.term, sum(c.tf * ln(1 + ((st.n - f.df) + 0.5::float8) / (f.df + 0.5::float8)) ORDER BY c.r) "
        f"AS weight FROM cand c JOIN cdf f USING (term), st WHERE f.df <= greatest(2, st.n / 10) GROUP BY c.term "
        f"ORDER BY weight DESC, c.term LIMIT %(fb_terms)s) x), "
        + _bm25(s, "s2", "q2") + " "
        f"SELECT 0 AS pass, NULL AS memory_id, NULL::float8 AS score FROM {s}.memory_terms_pending "
        f"WHERE tenant_id=%(t)s AND contact_id=%(c)s "
        f"UNION ALL SELECT 1, memory_id, score FROM s1 UNION ALL SELECT 2, memory_id, score FROM s2 "
        f"ORDER BY pass, score DESC, memory_id")


def neighbours_sql(s: str) -> str:
    """The episodes said just before and after each anchor (retrieval.Timeline.around over the contact's
    memories but the merged ones, from memory_term_docs), those retrievable at %(as_of)s, each with its
    anchor: in the anchors' order, those before then those after, nearest first."""
    def side(cmp: str, order: str, gap: str) -> str:
        return (f"SELECT an.ord, {0 if cmp == '<' else 1} AS side, x.k, x.memory_id COLLATE \"default\" AS id, "
                f"an.memory_id COLLATE \"default\" AS anchor "
                f"FROM an CROSS JOIN LATERAL (SELECT e.memory_id, e.created_at, row_number() OVER () AS k FROM "
                f"(SELECT e.memory_id, e.created_at FROM {s}.memory_term_docs e WHERE e.tenant_id=%(t)s "
                f"AND e.contact_id=%(c)s AND e.memory_type = 'episode' AND (e.created_at, e.memory_id) {cmp} "
                f"(an.created_at, an.memory_id) ORDER BY {order} LIMIT %(width)s) e) x "
                f"WHERE {gap} <= make_interval(secs => %(within)s)")
    return (f"WITH a AS (SELECT id, ord FROM unnest(%(anchors)s::text[]) WITH ORDINALITY AS u(id, ord)), "
            f"an AS (SELECT a.ord, d.memory_id, d.created_at FROM a JOIN {s}.memory_term_docs d ON "
            f"d.tenant_id=%(t)s AND d.contact_id=%(c)s AND d.memory_id = a.id), "
            # each computed once: on tables not yet analysed (a contact just ingested) the planner ran the
            # neighbours' lookups again for every memory of the contact (70-110 ms on a LoCoMo contact)
            f"nb AS MATERIALIZED ({side('<', 'e.created_at DESC, e.memory_id DESC', 'an.created_at - x.created_at')} "
            f"UNION ALL {side('>', 'e.created_at, e.memory_id', 'x.created_at - an.created_at')}), "
            f"r AS MATERIALIZED (SELECT {RANKING_COLUMNS_M}, {SIMILARITY} AS similarity FROM {s}.memories m "
            f"WHERE {retrievable()} AND m.id = ANY(ARRAY(SELECT id FROM nb))) "
            f"SELECT r.*, nb.anchor FROM nb JOIN r ON r.id = nb.id ORDER BY nb.ord, nb.side, nb.k")


def candidates_sql(s: str, query: bool, refs: bool) -> str:
    """Store.candidates' statement. With a query: the picks' ids first (the vector's top k; the keyword
    `ids`; with `refs`, the working set's memories linked to them), then those rows by primary key. The
    vector pick is an index range of the contact's rows reading only the id and the vector; the other
    columns are read for the ~k+40 rows returned, where one statement with `id IN (pick) OR ...` walked
    all the contact's rows a second time (1,100 with an archive) to find them. Without `refs` the entity
    pick is left out of the text (`entity_refs && '{}'` is false, but a prepared statement's generic
    plan cannot know it and would walk the contact's rows for it). Without a query: the working set's k
    most important, newest, or linked to `refs`; `visible` finds the working set by two index ranges
    (status 'active', or retired after as_of: memories_retired), not among the whole archive. Ties in a
    pick's order are broken by id, so the same rows are picked whatever the plan."""
    if query:
        where = retrievable()
        pick = (f"SELECT m.id FROM {s}.memories m WHERE {where} AND m.embedding_model=%(model)s "
                f"ORDER BY m.embedding <=> %(q)s, m.id LIMIT %(k)s")
        linked = f"SELECT m.id FROM {s}.memories m WHERE {visible()} AND m.entity_refs && %(refs)s::text[]"
        return (f"SELECT {RANKING_COLUMNS_M}, {SIMILARITY} AS similarity FROM {s}.memories m WHERE {where} AND "
                f"m.id = ANY(ARRAY({pick}) || %(ids)s::text[]" + (f" || ARRAY({linked})" if refs else "") + ")")
    where = visible()
    pick = (f"SELECT m.id FROM {s}.memories m WHERE {where} "
            f"ORDER BY m.importance DESC, m.created_at DESC, m.id LIMIT %(k)s")
    return (f"SELECT {RANKING_COLUMNS_M}, 0.0 AS similarity FROM {s}.memories m "
            f"WHERE {where} AND (m.id IN ({pick}) OR m.entity_refs && %(refs)s::text[])")


def keyword_params(tenant_id: str, contact_id: str, terms: list[str], k: int, k1: float = 1.5, b: float = 0.75
                   ) -> dict[str, Any]:
    """keyword_search_sql's parameters."""
    return {"t": tenant_id, "c": contact_id, "terms": terms, "k": k, "k1": k1, "b": b, "k1p1": k1 + 1,
            "fb_docs": lexical.FEEDBACK_DOCS, "fb_terms": lexical.FEEDBACK_TERMS}


def keyword_result(rows: list[tuple]) -> dict[str, float] | None:
    """keyword_search_sql's rows (pass, id, score) read: the BM25 scores with feedback
    (lexical.with_feedback), None when the contact's memories predate the postings (pass 0)."""
    passes: tuple[dict[str, float], dict[str, float], dict[str, float]] = ({}, {}, {})
    for p, memory_id, score in rows:
        passes[p][memory_id] = score
    if rows and rows[0][0] == 0:
        return None
    return lexical.with_feedback(passes[1], passes[2])


PRIVATE_STATE = ("memoryIndex", "moodHistory", "profileFacts", "timing", "engagement", "sustained")



def memories_select(schema: str, tenant_id: str, contact_id: str, status: str | None) -> tuple[str, list[Any]]:
    """The SELECT (without ORDER BY) of a contact's memories, all or those of one `status`, and its args:
    shared by the whole list and its pages, so both read a status the same way."""
    sql = f"SELECT {MEMORY_COLUMNS} FROM {schema}.memories WHERE tenant_id=%s AND contact_id=%s"
    args: list[Any] = [tenant_id, contact_id]
    if status == "expired":  # the periodic tier marks them; until it runs they read as expired
        sql += " AND (status='expired' OR (status='active' AND expires_at <= now()))"
    elif status == "active":
        sql += " AND status='active' AND (expires_at IS NULL OR expires_at > now())"
    elif status:
        sql += " AND status=%s"
        args.append(status)
    return sql, args

# the connection the reads of the current task use (Store.reading), else None: one of the pool each
_READING: ContextVar[AsyncConnection | None] = ContextVar("rapport_store_reading", default=None)


class Store:
    def __init__(self, pool: AsyncConnectionPool):
        self.pool = pool
        self._version: str | None = None
        self._version_at = 0.0

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[None]:
        """Every read of the current task (and of the tasks it starts) within the block on one connection
        of the pool, taken once: a /context's six to eight statements took a connection each (issue 24:
        a pool checkout and return per statement, under load each a wait for a core). The statements run
        one after another on it (psycopg's connection lock); `pipelined` sends several in one round trip.
        Autocommit stays, and each statement reads its own snapshot (read committed), as before."""
        if _READING.get() is not None:
            yield
            return
        async with self.pool.connection() as conn:
            metrics.DB_CHECKOUTS.inc()
            token = _READING.set(conn)
            try:
                yield
            finally:
                _READING.reset(token)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection]:
        """The connection `reading` bound, else one of the pool for this read."""
        conn = _READING.get()
        if conn is not None:
            yield conn
            return
        async with self.pool.connection() as conn:
            metrics.DB_CHECKOUTS.inc()
            yield conn

    async def pipelined(self, statements: list[tuple[str, Any, Any]]) -> list[list[Any]]:
        """Every row of each (sql, params, row factory or None: the connection's dicts), the statements sent
        together in one round trip (psycopg's pipeline mode) and their results read after the one sync."""
        async with self.connection() as conn:
            metrics.DB_STATEMENTS.inc(len(statements))
            if len(statements) == 1:  # nothing to send beside it
                sql, params, rows = statements[0]
                async with conn.cursor(**({"row_factory": rows} if rows is not None else {})) as cur:
                    await cur.execute(sql, params)
                    return [await cur.fetchall()]
            async with conn.pipeline():
                curs = []
                for sql, params, rows in statements:
                    cur = conn.cursor(row_factory=rows) if rows is not None else conn.cursor()
                    await cur.execute(sql, params)
                    curs.append(cur)
            return [await cur.fetchall() for cur in curs]

    async def schema(self) -> str:
        if self._version is None or time.monotonic() - self._version_at > 1.0:
            async with self.connection() as conn:
                metrics.DB_STATEMENTS.inc()
                self._version = await db.active_version_async(conn) or db.DEFAULT_VERSION
            self._version_at = time.monotonic()
        return db.schema_of(self._version)

    async def _rows(self, sql: str, params: Any) -> list[dict[str, Any]]:
        """Every row of one query, on the task's connection (`reading`) or one of the pool."""
        async with self.connection() as conn:
            metrics.DB_STATEMENTS.inc()
            cur = await conn.execute(sql, params)
            return await cur.fetchall()

    async def _row(self, sql: str, params: Any) -> dict[str, Any] | None:
        """The first row of one query (None: none), on the task's connection (`reading`) or one of the pool."""
        async with self.connection() as conn:
            metrics.DB_STATEMENTS.inc()
            cur = await conn.execute(sql, params)
            return await cur.fetchone()

    async def is_processed(self, tenant_id: str, event_id: str) -> bool:
        """Whether the tenant's event is reflected: applied, or applied and then erased with its contact
        (its tombstone: a re-send of it was a duplicate, so there is nothing more to wait for)."""
        s = await self.schema()
        return await self._row(
            f"SELECT 1 FROM {s}.processed_events WHERE tenant_id=%s AND event_id=%s UNION ALL "
            f"SELECT 1 FROM rapport.erased_events WHERE tenant_id=%s AND event_key=%s LIMIT 1",
            (tenant_id, event_id, tenant_id, tracking_key.event_tombstone(tenant_id, event_id))) is not None

    async def contact(self, tenant_id: str, contact_id: str) -> dict[str, Any] | None:
        """The contact's state without the fold's private bookkeeping (indexes, histograms): readers need
        a few fields, and the whole state of a long-running contact is tens of kilobytes."""
        s = await self.schema()
        row = await self._row(f"SELECT state - %s::text[] AS state FROM {s}.contacts "
                              f"WHERE tenant_id=%s AND contact_id=%s",
                              (list(PRIVATE_STATE), tenant_id, contact_id))
        return row["state"] if row else None

    async def contact_and_entities(self, tenant_id: str, contact_id: str
                                   ) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """`contact` and `entities` in one round trip (what every /context reads first)."""
        state, entities, _ = await self.contact_entities_speakers(tenant_id, contact_id, [])
        return state, entities

    async def contact_entities_speakers(self, tenant_id: str, contact_id: str, words: list[str]
                                        ) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[str]]:
        """`contact`, `entities` and the speakers of the contact's memories whose display name's first word
        is one of the lower-cased `words` (a question's; none asked when it has none), in one round trip:
        one probe of the index memories_speaker_first per word, one speaker each."""
        state, entities, speakers, _ = await self.contact_and_searches(tenant_id, contact_id, words, [], 0)
        return state, entities, speakers

    async def contact_and_searches(self, tenant_id: str, contact_id: str, words: list[str],
                                   searches: list[list[str]], k: int
                                   ) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[str],
                                              list[dict[str, float] | None]]:
        """`contact_entities_speakers` and, sent with it in one round trip (`pipelined`), a `keyword_search`
        of each list of terms in `searches`, with their results: what a /context with a question reads
        first, none of it waiting for another (issue 24: one wait for the database where there were two
        in a row, and three statements on one connection where each took one)."""
        s = await self.schema()
        speakers = (f"ARRAY(SELECT x.speaker FROM unnest(%(words)s::text[]) AS w(word) CROSS JOIN LATERAL "
                    f"(SELECT m.speaker FROM {s}.memories m WHERE m.tenant_id=%(t)s AND m.contact_id=%(c)s "
                    f"AND lower(split_part(m.speaker, ' ', 1)) = w.word LIMIT 1) x)" if words else "'{}'::text[]")
        contact = (
            f"SELECT (SELECT state - %(private)s::text[] FROM {s}.contacts "
            f"WHERE tenant_id=%(t)s AND contact_id=%(c)s) AS state, "
            f"(SELECT coalesce(jsonb_agg(jsonb_build_object('ref', ref, 'entity_type', entity_type, "
            f"'display_name', display_name, 'metadata', metadata, 'aliases', aliases, 'mentions', mentions) "
            f"ORDER BY mentions DESC, ref), '[]'::jsonb) FROM {s}.entities "
            f"WHERE tenant_id=%(t)s AND contact_id=%(c)s) AS entities, {speakers} AS speakers",
            {"private": list(PRIVATE_STATE), "t": tenant_id, "c": contact_id, "words": words}, None)
        rows, *found = await self.pipelined([contact] + [
            (keyword_search_sql(s), keyword_params(tenant_id, contact_id, terms, k), tuple_row) for terms in searches])
        return rows[0]["state"], rows[0]["entities"], list(dict.fromkeys(rows[0]["speakers"] or [])), [
            keyword_result(r) for r in found]

    async def memory_docs(self, tenant_id: str, contact_id: str) -> list[dict[str, Any]]:
        """id, text ("speaker: content"), created_at and memory_type of every memory of the contact, archive
        included: its BM25 index and its timeline (projections/lexical.py, retrieval.Timeline), for a
        contact whose memories predate the projection's postings (keyword_search, neighbours read those).
        The candidate queries then keep those retrievable at the request's as_of."""
        s = await self.schema()
        return await self._rows(
            f"SELECT id, coalesce(speaker || ': ', '') || content AS text, created_at, memory_type "
            f"FROM {s}.memories WHERE tenant_id=%s AND contact_id=%s AND status <> 'merged'",
            (tenant_id, contact_id))

    async def keyword_search(self, tenant_id: str, contact_id: str, terms: list[str], k: int,
                             k1: float = 1.5, b: float = 0.75) -> dict[str, float] | None:
        """BM25 scores of the contact's top k memories for the terms, with feedback: what
        lexical.BM25Index(memory_docs).search(terms, k) answers, from the projection's postings. None when
        the contact's memories predate them (memory_terms_pending: build the index from memory_docs)."""
        s = await self.schema()
        async with self.connection() as conn:
            metrics.DB_STATEMENTS.inc()
            async with conn.cursor(row_factory=tuple_row) as cur:
                await cur.execute(keyword_search_sql(s), keyword_params(tenant_id, contact_id, terms, k, k1, b))
                return keyword_result(await cur.fetchall())

    async def neighbours(self, tenant_id: str, contact_id: str, anchor_ids: list[str], within_s: float,
                         width: int, *, query_vec: np.ndarray, model: str | None, as_of: datetime,
                         persona_id: str | None, explicit_as_of: bool = False, past: bool = False
                         ) -> list[dict[str, Any]]:
        """The `width` episodes said just before and after each anchor, each within `within_s` of it (as
        retrieval.Timeline.around), those retrievable at `as_of`, each with its `anchor` and its cosine
        similarity to the query."""
        if not anchor_ids:
            return []
        return await self._rows(*await self.neighbours_statement(
            tenant_id, contact_id, anchor_ids, within_s, width, query_vec=query_vec, model=model, as_of=as_of,
            persona_id=persona_id, explicit_as_of=explicit_as_of, past=past))

    async def neighbours_statement(self, tenant_id: str, contact_id: str, anchor_ids: list[str], within_s: float,
                                   width: int, *, query_vec: np.ndarray, model: str | None, as_of: datetime,
                                   persona_id: str | None, explicit_as_of: bool = False, past: bool = False
                                   ) -> tuple[str, dict[str, Any]]:
        """`neighbours`' statement and its parameters (to send with others: `pipelined`)."""
        s = await self.schema()
        params = {**visibility_params(tenant_id, contact_id, as_of, explicit_as_of, persona_id, past),
                  "anchors": anchor_ids, "within": within_s, "width": width, "model": model,
                  "q": Vector(query_vec.astype(np.float32))}
        return neighbours_sql(s), params

    async def candidates(self, tenant_id: str, contact_id: str, *, query_vec: np.ndarray | None,
                         model: str | None, as_of: datetime, persona_id: str | None,
                         entity_refs: list[str] | None = None, k: int = 40, explicit_as_of: bool = False,
                         past: bool = False, ids: list[str] | None = None) -> list[dict[str, Any]]:
        """With a query: the `retrievable` memories (working set and archive) that are the top k by
        cosine, or among `ids` (the keyword matches), or, in the working set, linked to `entity_refs`
        (the entities the query names); each with its cosine similarity to the query. Without a query:
        the working set's k most important, newest, or linked to `entity_refs`. The caller tells the
        tiers apart (projections/context.tier)."""
        s = await self.schema()
        params: dict[str, Any] = {**visibility_params(tenant_id, contact_id, as_of, explicit_as_of, persona_id, past),
                                  "k": k, "model": model, "refs": entity_refs or [], "ids": ids or [],
                                  "q": Vector(query_vec.astype(np.float32)) if query_vec is not None else None}
        sql = candidates_sql(s, query_vec is not None, bool(entity_refs))
        return await self._rows(sql, params)

    async def retrievable_by_id(self, tenant_id: str, contact_id: str, ids: list[str], *, query_vec: np.ndarray,
                                model: str | None, as_of: datetime, persona_id: str | None,
                                explicit_as_of: bool = False, past: bool = False) -> list[dict[str, Any]]:
        """These memories, those of them retrievable at `as_of`, each with its cosine similarity to the query."""
        if not ids:
            return []
        s = await self.schema()
        params = {**visibility_params(tenant_id, contact_id, as_of, explicit_as_of, persona_id, past),
                  "ids": ids, "model": model, "q": Vector(query_vec.astype(np.float32))}
        return await self._rows(f"SELECT {RANKING_COLUMNS_M}, {SIMILARITY} AS similarity FROM {s}.memories m "
                                f"WHERE {retrievable()} AND m.id = ANY(%(ids)s)", params)

    async def card_memories(self, tenant_id: str, contact_id: str, refs: list[str], as_of: datetime,
                            persona_id: str | None, min_importance: float, explicit_as_of: bool = False
                            ) -> list[dict[str, Any]]:
        """Memories served at `as_of` about these entities that belong on their cards: important enough
        (as stored; the caller applies decay), or pinned."""
        if not refs:
            return []
        return await self._rows(*await self.card_statement(tenant_id, contact_id, refs, as_of, persona_id,
                                                           min_importance, explicit_as_of))

    async def card_statement(self, tenant_id: str, contact_id: str, refs: list[str], as_of: datetime,
                             persona_id: str | None, min_importance: float, explicit_as_of: bool = False
                             ) -> tuple[str, dict[str, Any]]:
        """`card_memories`' statement and its parameters (to send with others: `pipelined`). Its rows are
        in one total order (ties by id), so those of fewer refs are a subsequence of these, in order."""
        s = await self.schema()
        return (f"SELECT {RANKING_COLUMNS_M} FROM {s}.memories m "
                f"WHERE {visible()} AND m.entity_refs && %(refs)s::text[] AND (m.importance >= %(min)s OR m.pinned) "
                f"ORDER BY m.pinned DESC, m.importance DESC, m.created_at DESC, m.id",
                {**visibility_params(tenant_id, contact_id, as_of, explicit_as_of, persona_id), "refs": refs,
                 "min": min_importance})

    async def triggers(self, tenant_id: str, contact_id: str) -> list[dict[str, Any]]:
        s = await self.schema()
        return await self._rows(f"SELECT * FROM {s}.triggers WHERE tenant_id=%s AND contact_id=%s "
                                f"ORDER BY due_at, id", (tenant_id, contact_id))

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
        sql, args = memories_select(await self.schema(), tenant_id, contact_id, status)
        return await self._rows(sql + " ORDER BY created_at, id", args)

    # ------------------------------------------------------------------ pages for the console (issue 26)
    async def contacts_page(self, tenant_id: str, *, sort: str, limit: int, after: tuple[datetime | None, str] | None,
                            q: str | None) -> list[dict[str, Any]]:
        """One page of the tenant's contacts (not the reserved `_...` ones), `limit` rows after the cursor
        position `after` = (last_seen, contact_id) of the previous page's last row. `sort` "last_seen":
        newest activity first, ties (and contacts never seen) by contact id, descending, so the order is
        total and a contact that arrives while a client pages lands before its cursor, never repeating or
        hiding a row; "contact_id": by id. `q`: a case-insensitive substring of the id or display name.
        Each row: the columns the list shows, the few state fields its stage and mood are read from, and
        the count of its active memories."""
        s = await self.schema()
        where = ["c.tenant_id = %(t)s", "left(c.contact_id, 1) <> '_'"]
        params: dict[str, Any] = {"t": tenant_id, "limit": limit}
        if q:
            where.append("(c.contact_id ILIKE %(q)s OR c.display_name ILIKE %(q)s)")
            params["q"] = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        if sort == "contact_id":
            order = "c.contact_id"
            if after is not None:
                where.append("c.contact_id > %(after_id)s")
                params["after_id"] = after[1]
        else:
            order = "c.last_seen DESC NULLS LAST, c.contact_id DESC"
            if after is not None and after[0] is not None:
                where.append("((c.last_seen, c.contact_id) < (%(after_at)s, %(after_id)s) OR c.last_seen IS NULL)")
                params.update(after_at=after[0], after_id=after[1])
            elif after is not None:
                where.append("(c.last_seen IS NULL AND c.contact_id < %(after_id)s)")
                params["after_id"] = after[1]
        sql = (f"SELECT c.contact_id, c.display_name, c.channel, c.first_seen, c.last_seen, c.message_count, "
               f"c.session_count, c.state->'mood'->>'mood' AS mood, "
               f"jsonb_build_object('sessionCount', c.state->'sessionCount', 'lastActiveDay', c.state->'lastActiveDay', "
               f"'activeStreak', c.state->'activeStreak', 'lastSeen', c.state->'lastSeen', "
               f"'clockSkewS', c.state->'clockSkewS') AS state, "
               f"(SELECT count(*) FROM {s}.memories m WHERE m.tenant_id = c.tenant_id AND m.contact_id = c.contact_id "
               f"AND m.status = 'active') AS memory_count "
               f"FROM {s}.contacts c WHERE {' AND '.join(where)} ORDER BY {order} LIMIT %(limit)s")
        return await self._rows(sql, params)

    async def memories_page(self, tenant_id: str, contact_id: str, status: str | None, limit: int,
                            after: tuple[datetime, str] | None) -> list[dict[str, Any]]:
        """`memories` a page at a time: `limit` rows after (created_at, id) of the previous page's last."""
        sql, args = memories_select(await self.schema(), tenant_id, contact_id, status)
        if after is not None:
            sql += " AND (created_at, id) > (%s, %s)"
            args += [after[0], after[1]]
        return await self._rows(sql + " ORDER BY created_at, id LIMIT %s", [*args, limit])

    async def mood_log(self, tenant_id: str, contact_id: str, limit: int) -> list[dict[str, Any]]:
        """The contact's last `limit` classified moods, oldest first (ties in time by event id)."""
        s = await self.schema()
        return await self._rows(
            f"SELECT * FROM (SELECT event_id, source_id, at, mood, energy, style, confidence, unusual, source "
            f"FROM {s}.mood_log WHERE tenant_id=%s AND contact_id=%s ORDER BY at DESC, event_id DESC LIMIT %s) x "
            f"ORDER BY at, event_id", (tenant_id, contact_id, limit))

    async def pattern_spans(self, tenant_id: str, contact_id: str) -> list[dict[str, Any]]:
        """Each pattern memory that consolidation compressed episodes into, with the time its episodes span
        and how many it holds (agents/core/consolidation.compress)."""
        s = await self.schema()
        return await self._rows(
            f"SELECT p.id, p.content, p.status, min(e.created_at) AS start, max(e.created_at) AS end, "
            f"count(*) AS count FROM {s}.memories e JOIN {s}.memories p ON p.tenant_id = e.tenant_id "
            f"AND p.contact_id = e.contact_id AND p.id = e.superseded_by "
            f"WHERE e.tenant_id=%s AND e.contact_id=%s AND e.status='compressed' "
            f"GROUP BY p.id, p.content, p.status ORDER BY min(e.created_at), p.id", (tenant_id, contact_id))

    async def tenants(self, only: str | None, limit: int) -> list[dict[str, Any]]:
        """Tenants that have contacts (reserved `_` ones not counted), with how many, by id; `only`: that one."""
        s = await self.schema()
        where = "left(contact_id, 1) <> '_'" + (" AND tenant_id = %(t)s" if only is not None else "")
        return await self._rows(f"SELECT tenant_id, count(*) AS contacts FROM {s}.contacts WHERE {where} "
                                f"GROUP BY tenant_id ORDER BY tenant_id LIMIT %(limit)s",
                                {"t": only, "limit": limit})
