"""The interaction pipeline: one batch of raw topic records -> projected state + derived events.

This is the shell around the functional core (agents/core/). The Faust agent (agents/app_agents.py)
only hands it batches; tests drive it directly. For each batch it:
  1. decodes every record, opening sealed payloads with their contacts' keys (streams/shredding.py: one
     whose key was erased is shredded and skipped; a record that does not decode or validate becomes
     a dead letter with its reason; the rest of the batch goes on),
  2. drops records already applied: below the partition's watermark for the same broker epoch, or
     whose event id has a tracking record (a redelivery, or a ledger re-publish after a restart),
  3. loads the contacts' state (an in-process cache, else PostgreSQL),
  4. plans candidate memories and embeds them all in one call, off the event loop,
  5. folds each event through the core in log order,
  6. commits everything through the projector in one transaction, then refreshes Redis.

Poison: an event the fold cannot apply (or one dated outside what PostgreSQL and the fold can hold)
is dead-lettered once and gets a tracking record, so a redelivery or the ledger relay never sends it
round again. When the batch itself fails (a projection write or a state read raising for one
contact), the batch is retried contact by contact: the contacts that fail again are dead-lettered and
marked done, the others are applied (`_isolate`).
"""
from __future__ import annotations

import asyncio
import logging
import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson
import psycopg
from cachetools import LRUCache
from psycopg.rows import dict_row

from datetime import timezone

from agents import metrics
from agents.core import consolidation, curation, emotion
from agents.core import contact as core
from agents.core import mood as mood_model
from agents.core import redaction
from agents.core.redaction import parse_policy
from domain.embedder import Embedder, embed_each
from streams import db
from agents.projector import Applied, Batch, mark_published, project_segments
from schemas import events as ev
from schemas import logsafe, recordsig
from schemas.cachekeys import window_key
from schemas.codec import decode
from schemas.envelope import Envelope, InvalidEvent, encode, now_utc, parse_time, partition_key
from streams import shredding, tracing, tracking_key
from streams.config import settings

log = logging.getLogger("rapport.pipeline")


@dataclass(frozen=True)
class Record:
    value: bytes
    topic: str = ""
    partition: int | None = None
    offset: int | None = None
    key: bytes | None = None
    headers: Any = None  # the record's Kafka headers (a producer's trace context: streams/tracing.py)


@dataclass
class DeadLetter:
    record: Record
    reason: str

    def to_bytes(self) -> bytes:
        return orjson.dumps({"reason": self.reason, "topic": self.record.topic, "partition": self.record.partition,
                             "offset": self.record.offset, "failedAt": now_utc().isoformat(),
                             "value": self.record.value.decode("utf-8", "replace")})


@dataclass
class Outcome:
    derived: list[Envelope] = field(default_factory=list)
    dead_letters: list[DeadLetter] = field(default_factory=list)
    applied: int = 0
    skipped: int = 0
    sources: list[Envelope] = field(default_factory=list)      # the source events this batch applied
    # (partition, offset) of the records it applied, erasures included (the others were skipped or dead-lettered)
    applied_at: set[tuple[int | None, int | None]] = field(default_factory=set)
    profiles: dict[tuple[str, str], Any] = field(default_factory=dict)


@dataclass
class Gathered:
    """What a batch's fold needs beside the contacts' states (InteractionPipeline._gather); `hot`,
    `known`, `new_vectors` and `curated_rows` follow the batch's own derived events as it folds
    (`_carry_forward`)."""
    plans: list[list[dict]]                           # each event's candidates, embedded
    message_vectors: dict[tuple[str, str], Any]       # (tenant, event id) -> the message's vector
    hot: dict[str, Any]                               # memory id -> vector, of the hot sets
    known: dict[tuple[str, str], dict]                # contact -> the tiers' view of its memories
    new_vectors: dict[tuple[str, str], dict]          # contact -> vectors for memories stored without one
    llm_moods: dict[tuple[str, str], Any]             # (tenant, event id) -> a model's mood
    curated_rows: dict[tuple[str, str, str], dict | None]  # what the forget requests' memories say

    def inputs(self, e: Envelope, candidates: list[dict], config: core.CoreConfig) -> core.Inputs:
        """The fold's inputs for event `e` of the batch."""
        key, ids = (e.tenant_id, e.contact_id), (e.tenant_id, e.event_id)
        return core.Inputs(
            config=config, candidates=candidates, hot_vectors=self.hot, llm_mood=self.llm_moods.get(ids),
            known=self.known.get(key), fresh=self.new_vectors.get(key), message_vector=self.message_vectors.get(ids),
            memory=self.curated_rows.get((*key, e.payload["memoryId"]))
            if e.event_type == ev.MEMORY_FORGET_REQUESTED else None)


# the event times the fold and PostgreSQL can both hold, with room for the intervals the fold adds
# (a year of consolidation, due times): outside them an event is a dead letter, never a crash
MIN_EVENT_YEAR, MAX_EVENT_YEAR = 2, 9998


def time_problem(e: Envelope) -> str | None:
    """Why this event's occurred_at cannot be processed, or None."""
    try:
        year = parse_time(e.occurred_at).astimezone(timezone.utc).year
    except (ValueError, TypeError, OverflowError):
        return f"occurred_at {e.occurred_at!r} is not a representable time"
    if not MIN_EVENT_YEAR <= year <= MAX_EVENT_YEAR:
        return f"occurred_at {e.occurred_at} is outside the years {MIN_EVENT_YEAR}-{MAX_EVENT_YEAR}"
    return None


def record_ids(r: Record) -> dict[str, str]:
    """The envelope's clear fields of a record (tenant_id, contact_id, event_id, event_type: payloads may
    be sealed, these never are); those it lacks are left out, all of them when it does not decode."""
    try:
        d = orjson.loads(r.value)
        return {k: str(d[k]) for k in ("tenant_id", "contact_id", "event_id", "event_type") if k in d}
    except (orjson.JSONDecodeError, TypeError):
        return {}


def record_contact(r: Record) -> tuple[str, str] | None:
    """(tenant, contact) of a record, from its envelope's clear fields."""
    ids = record_ids(r)
    return (ids["tenant_id"], ids["contact_id"]) if "tenant_id" in ids and "contact_id" in ids else None


def record_outcomes(records: list[Record], outcome: Outcome) -> list[tuple[str, dict[str, str]]]:
    """What became of each record of a processed batch ("applied", "dead_letter" or "skipped": a
    redelivery, a duplicate, shredded), with its clear fields."""
    dead = {id(dl.record) for dl in outcome.dead_letters}
    return [("dead_letter" if id(r) in dead else "applied" if (r.partition, r.offset) in outcome.applied_at
             else "skipped", record_ids(r)) for r in records]


# The contact states a worker keeps between batches are bounded by their size as well as their number:
# a state grows with its contact's memories (about 3.6 bytes of Python objects per byte of its JSON), so
# 50,000 of them could take gigabytes (README: Operations, memory)
STATE_CACHE_BYTES = int(float(os.environ.get("RAPPORT_STATE_CACHE_MB", "96")) * 2**20)
VECTORS_KEPT = 20_000  # hot-set embeddings (384 float32, ~1.6 KB each)
# messages' vectors by text (each computed alone, so the same text always has the same bits): a text
# said again in a later batch ("ok", "lol", a template a bot sends) is not embedded again; ~16 MB, and as
# much again for candidates' texts (live only)
MESSAGE_VECTORS_KEPT = 10_000


def state_size(state: dict) -> int:
    """An estimate of a contact state's memory: 4x its JSON (measured 3.6x on a 19 KB state)."""
    return 4 * len(orjson.dumps(state, default=str))


class InteractionPipeline:
    def __init__(self, conn: psycopg.AsyncConnection, embedder: Embedder, *, broker_epoch: str,
                 redis: Any = None, config: core.CoreConfig | None = None, window_ttl_s: int = 24 * 3600,
                 cache_size: int = 50_000, version: str | None = None, follow_active: bool = False,
                 switch_lock: bool = True, moods: Any = None, publishes: bool = True, records: bool = True,
                 signing_key: bytes | None = None, ledger_order: bool = False, cache_bytes: int | None = None):
        self.conn = conn  # search_path = the projection version's schema
        self.version = version
        self.follow_active = follow_active  # live workers move with `rapport replay`'s switch
        self._after_commit: tuple = ([], set())
        self.switch_lock = switch_lock  # False only for the replay, which holds the lock exclusively
        self.moods = moods  # agents/llm.py: LLMMoods live, RecordedMoods in a replay, None = offline only
        self.publishes = publishes  # its derived events go to the broker (kept in the outbox until they have)
        self.records = records  # its source events go into the ledger (False: they were read from it)
        self.embedder = embedder
        self.redis = redis
        # the fold's settings; the redaction policy from RAPPORT_REDACT (a live worker and a replay alike)
        self.config = config or core.CoreConfig(redaction=parse_policy(settings().redact))
        self.broker_epoch = broker_epoch
        self.window_ttl_s = window_ttl_s
        # `cache_bytes`: the states' budget (default STATE_CACHE_BYTES, from RAPPORT_STATE_CACHE_MB)
        self.cache: LRUCache[tuple[str, str], dict] = LRUCache(cache_bytes or STATE_CACHE_BYTES, getsizeof=state_size)
        self.cache_size = cache_size
        self.watermarks: dict[tuple[str, int], tuple[str, int]] | None = None
        # memory id -> embedding (hot sets), the most recently kept
        self.vectors: LRUCache[str, Any] = LRUCache(min(cache_size, VECTORS_KEPT))
        # message text -> its vector computed alone (`_embed_sync`); used by the executor's one thread only
        self.said_vectors: LRUCache[str, np.ndarray] = LRUCache(MESSAGE_VECTORS_KEPT)
        # candidates' texts -> their vectors as embedded in a batch (live only: `_embed_sync`)
        self.text_vectors: LRUCache[str, np.ndarray] = LRUCache(MESSAGE_VECTORS_KEPT)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="embed")
        self.keys = shredding.KeyRing(cache_size)  # contact keys (streams/shredding.py)
        self.erased: set[tuple[str, str]] = set()  # the contacts the last batch erased
        # records from the broker must carry rapport's signature (schemas/recordsig.py); None: not checked
        # (records read from the ledger, tests feeding the pipeline directly)
        self.signing_key = signing_key
        self.tombstoned: list[tuple[str, str]] = []  # erased events the last batch read again
        # a live worker over the ledger's projection version: a contact's events recorded but never
        # delivered fold before its next one (`_ledger_gaps`); not in tests whose versions share a ledger
        self.ledger_order = ledger_order and records
        # the connection's one user at a time: a batch, or the outbox rows of a batch sent in the
        # background meanwhile (agents/app_agents.py), between two batches' transactions
        self.conn_lock = asyncio.Lock()

    def unsigned(self, r: Record) -> str | None:
        """Why `r` is not a record rapport signed (a dead letter's reason), or None."""
        if self.signing_key is None:
            return None
        return recordsig.problem(self.signing_key, r.key, r.value, r.headers)

    def forget_cache(self) -> None:
        """Partitions moved to another worker: its writes make our cached states stale."""
        self.cache.clear()
        self.vectors.clear()
        self.watermarks = None
        self.keys.forget()

    async def process(self, records: list[Record]) -> Outcome:
        """One batch, in one transaction; when it fails, contact by contact (`_isolate`). A lost
        connection is raised: nothing is wrong with the events, the caller reconnects and retries."""
        async with self.conn_lock:
            try:
                return await self._process_tx(records)
            except (psycopg.OperationalError, psycopg.InterfaceError):
                raise
            except Exception as err:
                log.warning("batch of %d records failed (%s); retrying it contact by contact", len(records),
                            logsafe.where(err))  # never the exception's message: it can quote a message
                return await self._isolate(records)

    async def mark_published(self, derived: list[Envelope]) -> None:
        """Derived events now on the broker leave the outbox (projector.mark_published), on this
        pipeline's connection once no batch holds it."""
        if derived:
            async with self.conn_lock:  # the wait for the batch in progress is not counted
                with metrics.background("send"):
                    await mark_published(self.conn, derived)

    async def _process_tx(self, records: list[Record], track_offsets: bool = True) -> Outcome:
        """It holds the version-switch lock shared, so `rapport replay` (which takes it exclusively to
        switch readers) never interleaves with a batch."""
        self._after_commit = ([], set())
        with tracing.tracer.start_as_current_span("rapport.projection.transaction", attributes={
                "rapport.records": len(records)}) as span:  # ends after the COMMIT
            async with self.conn.transaction():
                metrics.switch("dedup")  # the version-switch lock waits here too
                if self.switch_lock:
                    await self.conn.execute("SELECT pg_advisory_xact_lock_shared(%s)", (db.SWITCH_LOCK,))
                if self.follow_active:
                    await self._follow_active_version()
                outcome = await self._process(records, track_offsets)
                metrics.switch("commit")
            span.set_attributes({"rapport.projection.version": self.version or "", "rapport.applied": outcome.applied})
        # the erasures deleted these contacts' keys: a cached one must not seal or open anything again
        self.erased = self._after_commit[1]
        self.keys.forget(self.erased)
        if self.erased:  # their words leave this process's memos of texts too (keyed by text: all of them)
            self.said_vectors.clear()
            self.text_vectors.clear()
            redaction.forget_texts()
            emotion.forget_texts()
        metrics.switch("redis")
        await self._refresh_redis(*self._after_commit)
        return outcome

    async def _isolate(self, records: list[Record]) -> Outcome:
        """The failed batch again, one contact at a time, in log order of each contact's first record. A
        contact that fails on its own has its events dead-lettered with the reason and marked done (a
        tracking record at the contact's current seq), so neither a redelivery nor the relay brings them
        back; the watermarks of the whole batch are committed at the end."""
        groups: dict[tuple[str, str] | None, list[Record]] = {}
        for r in records:
            groups.setdefault(record_contact(r), []).append(r)
        out = Outcome()
        for key, recs in groups.items():
            try:
                o = await self._process_tx(recs, track_offsets=False)
                await self._refresh_redis(*self._after_commit)
            except (psycopg.OperationalError, psycopg.InterfaceError):
                raise
            except Exception as err:
                log.exception("contact %s: %d events cannot be processed; dead-lettered", key, len(recs))
                o = await self._fail_contact(key, recs, f"processing error: {type(err).__name__}: {err}")
            out.derived += o.derived
            out.dead_letters += o.dead_letters
            out.applied += o.applied
            out.skipped += o.skipped
            out.sources += o.sources
            out.applied_at |= o.applied_at
            out.profiles.update(o.profiles)
        marks = self._marks(records)
        if marks:
            await project_segments(self.conn, [Batch(watermarks=marks)])
            self.watermarks.update(marks)  # type: ignore[union-attr]
        return out

    async def _fail_contact(self, key: tuple[str, str] | None, recs: list[Record], reason: str) -> Outcome:
        """Dead letters for `recs` (those not applied before), each with a tracking record."""
        out = Outcome()
        self.cache.pop(key, None)  # type: ignore[arg-type]
        async with self.conn.transaction():
            envs: list[tuple[Envelope, Record]] = []
            forged = [r for r in recs if self.unsigned(r)]  # dead letters, never tracking records
            out.dead_letters += [DeadLetter(r, self.unsigned(r) or reason) for r in forged]
            recs = [r for r in recs if r not in forged]
            for r, value in zip(recs, await self.keys.open_records(self.conn, [r.value for r in recs])):
                try:
                    envs.append((shredding.decode_opened(value), r))
                except (InvalidEvent, shredding.Shredded):
                    out.dead_letters.append(DeadLetter(r, reason))
            done = await self._already_applied([e for e, _ in envs])
            failed = []
            for e, r in envs:
                if (e.tenant_id, e.event_id) in done:
                    out.skipped += 1
                    continue
                done.add((e.tenant_id, e.event_id))
                out.dead_letters.append(DeadLetter(r, reason))
                failed.append(Applied(e, await self._current_seq(e.tenant_id, e.contact_id), r.partition, r.offset))
            if failed:
                await project_segments(self.conn, [Batch(failed=failed)])
        return out

    async def _current_seq(self, tenant_id: str, contact_id: str) -> int:
        """The contact's seq as stored (0 when its row cannot be read): where a dead letter sits in its order."""
        try:
            async with self.conn.transaction():  # a savepoint: a failing read must not end the outer one
                cur = await self.conn.execute("SELECT seq FROM contacts WHERE tenant_id=%s AND contact_id=%s",
                                              (tenant_id, contact_id))
                row = await cur.fetchone()
        except (psycopg.OperationalError, psycopg.InterfaceError):
            raise
        except psycopg.Error:
            return 0
        return int(row[0]) if row else 0

    def _marks(self, records: list[Record]) -> dict[tuple[str, int], tuple[str, int]]:
        marks: dict[tuple[str, int], tuple[str, int]] = {}
        for r in records:
            if r.partition is not None and r.offset is not None:
                tp = (r.topic, r.partition)
                marks[tp] = (self.broker_epoch, max(r.offset + 1, marks.get(tp, ("", 0))[1]))
        return marks

    async def _follow_active_version(self) -> None:
        active = await db.active_version_async(self.conn)
        if active and active != self.version:
            log.warning("readers switched to projection version %s; following", active)
            await self.conn.execute(f"SET search_path TO {db.schema_of(active)}, rapport, public")
            self.version = active
            self.forget_cache()

    async def _process(self, records: list[Record], track_offsets: bool = True) -> Outcome:
        """Decode, drop what was applied before, load and gather the fold's inputs, fold each event
        (agents/core/contact.apply), commit."""
        out = Outcome()
        if self.watermarks is None:
            await self._load_watermarks()
        marks = self._marks(records) if track_offsets else {}
        envs = await self._decode(records, out)
        # before the dedup: the batch's contacts locked and the cache checked against them, so a batch
        # that overlaps another worker's (a rebalance) waits for it and then sees its tracking records
        metrics.switch("dedup")
        await self._lock_contacts({(e.tenant_id, e.contact_id) for e, _ in envs})
        done = await self._already_applied([e for e, _ in envs])
        fresh = [(e, r) for e, r in envs if (e.tenant_id, e.event_id) not in done]
        out.skipped += len(envs) - len(fresh)
        if self.ledger_order:  # a contact's events fold in ledger order, also when a publish was lost
            fresh = in_ledger_order(fresh, await self._ledger_gaps([e for e, _ in fresh]))

        metrics.switch("state")
        states = await self._load_states({(e.tenant_id, e.contact_id) for e, _ in fresh})
        gathered = await self._gather(states, fresh)
        metrics.switch("fold")
        segments = await self._fold(fresh, states, gathered, out)
        segments[-1].watermarks = marks

        metrics.switch("project")
        await project_segments(self.conn, segments)
        self.watermarks.update(marks)  # type: ignore[union-attr]
        self._keep(segments, gathered.hot)
        return self._outcome(out, segments)

    async def _decode(self, records: list[Record], out: Outcome) -> list[tuple[Envelope, Record]]:
        """The batch's source events, once each, with their records; a record below its partition's
        watermark, shredded or repeated in the batch is skipped, one that is not rapport's, does not
        decode or is no source event is a dead letter (counted in `out`)."""
        envs: list[tuple[Envelope, Record]] = []
        seen: set[tuple[str, str]] = set()
        # a record rapport did not sign is not even parsed: a dead letter, nothing tracked
        forged = [self.unsigned(r) for r in records]
        # crypto-shredding: sealed payloads opened with their contacts' keys (one query, cached)
        metrics.switch("open")
        opened = await self.keys.open_records(self.conn, [b"null" if why else r.value
                                                          for r, why in zip(records, forged)])
        for r, value, why in zip(records, opened, forged):
            if r.partition is not None and r.offset is not None:
                wm = self.watermarks.get((r.topic, r.partition))  # type: ignore[union-attr]
                if wm and wm[0] == self.broker_epoch and r.offset < wm[1]:
                    out.skipped += 1
                    continue
            if why:
                out.dead_letters.append(DeadLetter(r, why))
                continue
            if isinstance(value, shredding.Shredded):  # its contact's key was erased: gone, no dead letter
                value.skip()
                out.skipped += 1
                continue
            try:
                e = shredding.decode_opened(value)
            except InvalidEvent as err:
                out.dead_letters.append(DeadLetter(r, err.reason))
                continue
            if e.event_type not in ev.SOURCE_TYPES:
                out.dead_letters.append(DeadLetter(r, f"{e.event_type} is not a source event"))
                continue
            if (e.tenant_id, e.event_id) in seen:
                out.skipped += 1
                continue
            seen.add((e.tenant_id, e.event_id))
            envs.append((e, r))
        return envs

    async def _gather(self, states: dict[tuple[str, str], dict], fresh: list[tuple[Envelope, Record]]) -> Gathered:
        """What the fold needs beside the states, for the whole batch at once: each event's planned
        memories embedded in one call, the messages' vectors, the hot sets' vectors, the tiers' inputs,
        the model's moods and the memories the forget requests name."""
        # each message is redacted knowing what the contact's previous one left open ("my card is 4242
        # 4242" / "4242 4242"), also within this batch: the carries in log order
        metrics.switch("plan")
        carries = core.redaction_carries(states, [e for e, _ in fresh if time_problem(e) is None], self.config)
        carries_of = iter(carries)
        carries = [next(carries_of) if time_problem(e) is None else None for e, _ in fresh]
        plans = [core.plan_memories(e, self.config, carry) if e.event_type == ev.INTERACTION_RECORDED
                 else core.plan_proposals(e) if e.event_type == ev.MEMORIES_PROPOSED
                 else curation.plan_correction(e) if e.event_type == ev.MEMORY_CORRECTION_REQUESTED else []
                 for (e, _), carry in zip(fresh, carries)]
        if (prefetch := getattr(self.embedder, "prefetch", None)) is not None:  # a replay's recorded vectors
            await prefetch(self.conn, set(states))
        said = self._messages((e for e, _ in fresh), carries)
        message_vectors = await self._embed([m for ms in plans for m in ms], said)

        metrics.switch("state")
        hot = await self._hot_vectors(states.values())
        known, new_vectors = await self._consolidation_inputs(states, fresh)
        llm_moods = await self.moods.moods([e for e, _ in fresh]) if self.moods is not None else {}
        curated_rows = await self._forgotten_rows(fresh)  # what a forget request's memory says (curation.forget)
        return Gathered(plans, message_vectors, hot, known, new_vectors, llm_moods, curated_rows)

    async def _fold(self, fresh: list[tuple[Envelope, Record]], states: dict[tuple[str, str], dict], g: Gathered,
                    out: Outcome) -> list[Batch]:
        """Each event through the fold in log order. An erasure ends a segment: what came before it is
        applied, then the contact is erased, then later events of the contact start from an empty
        state (so does a forget request: its memory is shredded before what comes after it is
        written). An event that needs an existing contact, for one with no state (core.moot: an access,
        a curation request, a tick or a model's proposal that was on its way at the erasure), creates
        nothing and is recorded as handled (Batch.moot). All segments commit in one transaction."""
        segments = [Batch(publish=self.publishes, record=self.records, unrecord=self.tombstoned)]
        for (e, r), candidates in zip(fresh, g.plans):
            key = (e.tenant_id, e.contact_id)
            batch = segments[-1]
            if e.event_type == ev.CONTACT_ERASED:
                states[key] = core.new_state(*key)
                batch.states.pop(key, None)
                batch.erasures.append(Applied(e, 0, r.partition, r.offset))
                segments.append(Batch(publish=self.publishes, record=self.records))
                continue
            if core.moot(states[key], e):  # no contact to apply it to (erased meanwhile): nothing is created
                batch.moot.append(Applied(e, 0, r.partition, r.offset))
                out.skipped += 1
                continue
            try:
                if (problem := time_problem(e)) is not None:
                    raise ValueError(problem)
                new_state, derived = core.apply(states[key], e, g.inputs(e, candidates, self.config))
            except Exception as err:  # a bug must not stop the stream: park the event with the reason, once
                log.error("processing failed for %s: %s", e.event_id, logsafe.where(err))  # no message text
                out.dead_letters.append(DeadLetter(r, f"processing error: {type(err).__name__}: {err}"))
                # its tracking record, at the contact's seq so far: never applied, never sent round again
                batch.failed.append(Applied(e, states[key].get("seq", 0), r.partition, r.offset))
                continue
            await self._carry_forward(key, derived, g)
            states[key] = new_state
            batch.states[key] = new_state
            batch.applied.append(Applied(e, new_state["seq"], r.partition, r.offset))
            batch.derived.extend(derived)
            if e.event_type == ev.MEMORY_FORGET_REQUESTED:  # shredded before what comes after it is written
                segments.append(Batch(publish=self.publishes, record=self.records))
        return segments

    async def _carry_forward(self, key: tuple[str, str], derived: list[Envelope], g: Gathered) -> None:
        """An event's derived memories into the batch's inputs: a later event of the batch (a tier, a
        forget request, a dedup against the hot set) sees them as a later batch would read them back."""
        known = g.known.get(key)
        for d in derived:
            if d.event_type == ev.MEMORY_REINFORCED and known is not None:
                # the projector appends the source to the stored row; a tier later in this batch
                # must see the provenance a later batch would read back
                k = known.get(d.payload["memoryId"])
                if k is not None and d.payload["sourceEventId"] not in k["sourceEventIds"]:
                    k["sourceEventIds"] = k["sourceEventIds"] + [d.payload["sourceEventId"]]
            if d.event_type in (ev.MEMORY_CORRECTED, ev.MEMORY_FORGOTTEN, ev.MEMORY_EXTRACTED):
                curated(d, g.hot, known, g.curated_rows)
            m = d.payload.get("memory") if d.event_type == ev.MEMORY_EXTRACTED else None
            if m is not None and m.get("embedding") is not None:
                g.hot[m["id"]] = m["embedding"]
            if m is not None and known is not None:  # a tier later in this batch sees it like a stored one
                known[m["id"]] = consolidation.known_entry(m)
                if m.get("embedding") is None:  # as a later batch would: its vector computed now
                    await self._fresh_vector(g.new_vectors, key, m)

    def _keep(self, segments: list[Batch], hot: dict[str, Any]) -> None:
        """Once the batch is projected: the hot vectors and the contacts' new states kept for the next
        batches (an erased contact's dropped), and the segments `_process_tx` refreshes Redis from."""
        for mid, v in hot.items():
            self._remember_vector(mid, v)
        erased = {(a.env.tenant_id, a.env.contact_id) for b in segments for a in b.erasures}
        for key in erased:
            self.cache.pop(key, None)
        for b in segments:
            for key, s in b.states.items():
                self._remember(key, s)
        self._after_commit = (segments, erased)

    @staticmethod
    def _outcome(out: Outcome, segments: list[Batch]) -> Outcome:
        out.derived = [d for b in segments for d in b.derived]
        out.sources = [a.env for b in segments for a in b.applied]
        out.profiles = {k: s.get("profile") for b in segments for k, s in b.states.items()}
        out.applied_at = {(a.partition, a.offset) for b in segments for a in b.applied + b.erasures}
        out.applied = sum(len(b.applied) + len(b.erasures) for b in segments)
        return out

    async def _forgotten_rows(self, fresh: list[tuple[Envelope, Record]]) -> dict[tuple[str, str, str], dict | None]:
        """(tenant, contact, memory id) -> {content, memoryType} of the memories this batch's forget requests
        name, as stored (`curated` keeps it current through the batch: its extractions and corrections)."""
        named = [(e.tenant_id, e.contact_id, e.payload["memoryId"]) for e, _ in fresh
                 if e.event_type == ev.MEMORY_FORGET_REQUESTED]
        if not named:
            return {}
        cur = await self.conn.execute(
            "SELECT m.tenant_id, m.contact_id, m.id, m.content, m.memory_type FROM memories m "
            "JOIN unnest(%s::text[], %s::text[], %s::text[]) AS b(t, c, i) "
            "ON m.tenant_id = b.t AND m.contact_id = b.c AND m.id = b.i",
            ([t for t, _, _ in named], [c for _, c, _ in named], [i for _, _, i in named]))
        rows: dict[tuple[str, str, str], dict | None] = dict.fromkeys(named)  # None: not stored (yet)
        rows.update({(t, c, i): {"content": content, "memoryType": mtype}
                     for t, c, i, content, mtype in await cur.fetchall()})
        return rows

    async def _consolidation_inputs(self, states: dict[tuple[str, str], dict], fresh: list[tuple[Envelope, Record]]
                                    ) -> tuple[dict[tuple[str, str], dict], dict[tuple[str, str], dict]]:
        """For contacts whose consolidation tiers can run in this batch (consolidation.needs_known): every
        active memory's vector, content and provenance, and vectors for those stored without one."""
        times: dict[tuple[str, str], list[str]] = {}
        for e, _ in fresh:
            if e.event_type != ev.MEMORIES_ACCESSED:
                times.setdefault((e.tenant_id, e.contact_id), []).append(e.occurred_at)
        keys = [k for k, ts in times.items() if consolidation.needs_known(states[k], ts)]
        known: dict[tuple[str, str], dict] = {k: {} for k in keys}
        ids = {mid: k for k in keys for mid in (states[k].get("memoryIndex") or {}).get("items", {})}
        if ids:
            cur = await self.conn.execute(
                "SELECT m.id, m.embedding, m.embedding_model, m.content, m.source_event_ids, m.speaker FROM memories m "
                "JOIN unnest(%s::text[], %s::text[], %s::text[]) AS b(t, c, i) "
                "ON m.tenant_id = b.t AND m.contact_id = b.c AND m.id = b.i",
                ([k[0] for k in ids.values()], [k[1] for k in ids.values()], list(ids)),
                binary=True)  # binary: vectors without parsing text
            for mid, vec, model, content, sources, speaker in await cur.fetchall():
                known[ids[mid]][mid] = {"embedding": vec.to_numpy() if vec is not None else None,
                                        "embeddingModel": model, "content": content,
                                        "sourceEventIds": list(sources), "speaker": speaker}
        new_vectors: dict[tuple[str, str], dict] = {}
        missing = [(k, mid) for k in keys for mid, kv in known[k].items() if kv["embedding"] is None]
        if missing:
            pseudo = [{"content": known[k][mid]["content"], "speaker": known[k][mid]["speaker"]} for k, mid in missing]
            await self._embed(pseudo)
            for (k, mid), m in zip(missing, pseudo):
                if m.get("embedding") is not None:
                    new_vectors.setdefault(k, {})[mid] = {"embedding": m["embedding"],
                                                          "embeddingModel": m["embeddingModel"]}
        return known, new_vectors

    async def _fresh_vector(self, new_vectors: dict[tuple[str, str], dict], key: tuple[str, str], m: dict) -> None:
        """A memory this batch created without a vector (a pattern) gets one for the tiers now, exactly as
        `_consolidation_inputs` computes it for a stored one in a later batch: what the deferred tier
        does must not depend on where the worker's batches happen to end (live vs replay)."""
        pseudo = {"content": m["content"], "speaker": m.get("speaker")}
        await self._embed([pseudo])
        if pseudo.get("embedding") is not None:
            new_vectors.setdefault(key, {})[m["id"]] = {"embedding": pseudo["embedding"],
                                                        "embeddingModel": pseudo["embeddingModel"]}

    # ------------------------------------------------------------------ helpers
    async def _load_watermarks(self) -> None:
        cur = await self.conn.execute("SELECT topic, partition, broker_epoch, next_offset FROM watermarks")
        self.watermarks = {(t, p): (e, o) for t, p, e, o in await cur.fetchall()}

    async def _already_applied(self, envs: list[Envelope]) -> set[tuple[str, str]]:
        if not envs:
            return set()
        # applied, or erased with its contact (a keyed tombstone, streams/tracking_key.py): an erased
        # contact's events published again straight to the topic do not bring it back
        # (self.tombstoned: the erased ones, whose ledger rows the batch deletes: a re-send that raced the
        # erasure's transaction into the ledger, streams/ingest.record)
        cur = await self.conn.execute(
            "SELECT p.tenant_id, p.event_id, false FROM processed_events p "
            "JOIN unnest(%s::text[], %s::text[]) AS b(t, e) ON p.tenant_id = b.t AND p.event_id = b.e "
            "UNION SELECT b.t, b.e, true FROM unnest(%s::text[], %s::text[], %s::text[]) AS b(t, e, k) "
            "JOIN rapport.erased_events x ON x.tenant_id = b.t AND x.event_key = b.k",
            ([e.tenant_id for e in envs], [e.event_id for e in envs], [e.tenant_id for e in envs],
             [e.event_id for e in envs], [tracking_key.event_tombstone(e.tenant_id, e.event_id) for e in envs]))
        rows = await cur.fetchall()
        self.tombstoned = sorted({(t, e) for t, e, erased in rows if erased})
        return {(t, e) for t, e, _ in rows}

    async def _ledger_gaps(self, envs: list[Envelope]) -> dict[tuple[str, str], list[Envelope]]:
        """Per contact of the batch, the ledger's events recorded before the batch's first one of that
        contact and not applied yet: an API that recorded an event (its 202 given) and then failed to
        publish it (PostgreSQL or the broker down between the two) leaves it to the relay, minutes later,
        while the contact's next events arrive now. Folding those first would apply them out of order and
        answer `after=` for the last one while earlier ones are missing. The look-back starts at the
        ledger position of the contact's last applied event (an index range, not its whole history);
        rows followed by an erasure of the contact are left to it, as the relay leaves them."""
        if not envs:
            return {}
        cur = await self.conn.execute(LEDGER_GAPS, ([e.tenant_id for e in envs], [e.event_id for e in envs]))
        gaps: dict[tuple[str, str], list[Envelope]] = {}
        for envelope in (row[0] for row in await cur.fetchall()):
            try:
                e = decode(envelope)
            except InvalidEvent as err:  # not expected of a row the API validated: the relay sends it round
                log.error("ledger row %s cannot be decoded: %s", envelope.get("event_id"), err.reason)
                continue
            gaps.setdefault((e.tenant_id, e.contact_id), []).append(e)
        if gaps:
            log.warning("%d events recorded but never delivered folded first from the ledger",
                        sum(map(len, gaps.values())))
        return gaps

    async def _lock_contacts(self, keys: set[tuple[str, str]]) -> None:
        """Lock the batch's existing contact rows (in key order: two workers never deadlock) until the
        commit, and drop each cached state whose seq is not the committed one. With more than one
        worker a partition can move away and back (its contacts' cached states stale by what the other
        worker applied meanwhile), and a worker can still be finishing a batch of a partition that a
        rebalance gave to another: folding either on an old state lost events from the contact's state
        while their tracking records stayed (seen on a 3-broker cluster: digest unequal to a replay)."""
        if not keys:
            return
        ordered = sorted(keys)
        cur = await self.conn.execute(
            "SELECT c.tenant_id, c.contact_id, c.seq FROM contacts c "
            "JOIN unnest(%s::text[], %s::text[]) AS b(t, c) ON c.tenant_id = b.t AND c.contact_id = b.c "
            "ORDER BY c.tenant_id, c.contact_id FOR UPDATE OF c",
            ([k[0] for k in ordered], [k[1] for k in ordered]))
        committed = {(t, c): seq for t, c, seq in await cur.fetchall()}
        for k in ordered:
            cached = self.cache.get(k)
            if cached is not None and cached.get("seq") != committed.get(k):
                del self.cache[k]

    async def _load_states(self, keys: set[tuple[str, str]]) -> dict[tuple[str, str], dict]:
        states = {k: self.cache[k] for k in keys if k in self.cache}
        missing = [k for k in keys if k not in states]
        if missing:
            async with self.conn.cursor(row_factory=dict_row) as cur:
                await cur.execute(
                    "SELECT c.tenant_id, c.contact_id, c.state FROM contacts c "
                    "JOIN unnest(%s::text[], %s::text[]) AS b(t, c) ON c.tenant_id = b.t AND c.contact_id = b.c",
                    ([k[0] for k in missing], [k[1] for k in missing]))
                for row in await cur.fetchall():
                    states[(row["tenant_id"], row["contact_id"])] = row["state"]
        for k in missing:
            states.setdefault(k, core.new_state(*k))
        return states

    async def _hot_vectors(self, states) -> dict[str, Any]:  # noqa: ANN001
        """Embeddings of the memories in these contacts' hot sets: cache first, then PostgreSQL."""
        ids = {mid: (s["tenantId"], s["contactId"]) for s in states
               for mid in (s.get("memoryIndex") or {}).get("recent", [])}
        hot = {mid: self.vectors[mid] for mid in ids if mid in self.vectors}
        missing = [mid for mid in ids if mid not in hot]
        if missing:
            cur = await self.conn.execute(
                "SELECT m.id, m.embedding FROM memories m JOIN unnest(%s::text[], %s::text[], %s::text[]) AS b(t, c, i) "
                "ON m.tenant_id = b.t AND m.contact_id = b.c AND m.id = b.i WHERE m.embedding IS NOT NULL",
                ([ids[m][0] for m in missing], [ids[m][1] for m in missing], missing), binary=True)
            for mid, vec in await cur.fetchall():
                hot[mid] = vec.to_numpy() if hasattr(vec, "to_numpy") else vec
        return hot

    def _remember_vector(self, mid: str, vec: Any) -> None:
        self.vectors[mid] = vec  # evicts the least recently kept or read past the bound

    def _remember(self, key: tuple[str, str], state: dict) -> None:
        """Keep the state for the contact's next batch: the most recent, within STATE_CACHE_BYTES and
        `cache_size` states (a state alone above the budget is not kept)."""
        self.cache.pop(key, None)
        try:
            self.cache[key] = state  # evicts the least recent ones past the budget
        except ValueError:  # larger than the whole budget
            pass
        while len(self.cache) > self.cache_size:
            self.cache.popitem()

    def _messages(self, envs: Any, carries: Any = None) -> list[tuple[tuple[str, str], str, str]]:
        """((tenant, event id), its episode's id, text) of the user messages whose sentence embedding the
        fold gets (`carries`: what each contact's previous message left open to redaction, in order):
        only when the embedder is the model the mood weights were trained on (another model's vectors
        mean nothing to them: the fold then runs on the words alone)."""
        if self.embedder.model_name != mood_model.VECTOR_MODEL:
            return []
        out = []
        for e, carry in zip(envs, carries if carries is not None else itertools.repeat(None)):
            text = core.message_embedding_text(e, carry, self.config)
            if text is not None:
                out.append(((e.tenant_id, e.event_id), core.episode_id(e), text))
        return out

    def _embed_sync(self, texts: list[str], said: list[tuple[str, str, str]]
                    ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Vectors of the candidates' texts (one batched call) and of the messages (by event id).

        A message's vector is computed alone, one text per model call, never in a batch: the runtime's
        float rounding depends on the batch's shape (up to ~5e-8 per component), and a mood or a risk
        score read off the vector must not depend on which events shared a batch, or a replay (other
        batches) would not give the live projection byte for byte. A replay reads the vector live
        stored with the message's own episode when its text is the message's (`embed_messages` of
        RecordedEmbedder), else computes it alone as live did. A candidate whose text is a message's
        (its episode, said without a speaker) takes that vector: one model call per text."""
        by_text: dict[str, Any] = {}
        by_event: dict[tuple[str, str], np.ndarray] = {}
        if said:
            each = getattr(self.embedder, "embed_messages", None)
            vecs = each([(mid, t) for _, mid, t in said]) if each is not None else \
                self._alone([t for _, _, t in said])
            for (eid, _, t), v in zip(said, vecs):
                by_event[eid] = np.asarray(v, dtype=np.float32)
                by_text.setdefault(t, by_event[eid])
        rest = list(dict.fromkeys(t for t in texts if t not in by_text))  # a text said twice: embedded once
        if rest and not hasattr(self.embedder, "embed_messages"):
            # live: a candidate's text embedded in an earlier batch (a fact many contacts state alike, a
            # message's episode) takes that vector; a replay reads live's stored vectors instead
            # (RecordedEmbedder), so it is left as it was
            for t in rest:
                v = self.said_vectors.get(t)
                if v is None:
                    v = self.text_vectors.get(t)
                if v is not None:
                    by_text[t] = v
            rest = [t for t in rest if t not in by_text]
            if rest:
                fresh = dict(zip(rest, self.embedder.embed(rest)))
                by_text.update(fresh)
                self.text_vectors.update(fresh)
        elif rest:
            by_text.update(zip(rest, self.embedder.embed(rest)))
        return by_text, by_event

    def _alone(self, texts: list[str]) -> list[np.ndarray]:
        """Each text's vector computed alone (`embed_each`), from `said_vectors` when an earlier batch
        computed it: a text alone gives the same bits in every call, so this changes no vector."""
        known = {t: self.said_vectors[t] for t in dict.fromkeys(texts) if t in self.said_vectors}
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        for t, v in zip(missing, embed_each(self.embedder, missing)):
            known[t] = self.said_vectors[t] = np.asarray(v, dtype=np.float32)
        return [known[t] for t in texts]

    async def _embed(self, memories: list[dict], said: list[tuple[str, str, str]] | None = None
                     ) -> dict[str, np.ndarray]:
        """Vectors onto the candidate memories; returns the messages' vectors by event id (`_embed_sync`)."""
        if not memories and not said:
            return {}
        from agents.core.memory import embedding_text

        texts = [embedding_text(m) for m in memories]
        try:
            with metrics.stage("model"):
                by_text, by_event = await asyncio.get_running_loop().run_in_executor(
                    self._pool, self._embed_sync, texts, said or [])
        except Exception:  # an unreachable remote embedder must not stop memory extraction
            log.exception("embedding failed; memories are stored without vectors")
            return {}
        for m, t in zip(memories, texts):
            m["embedding"] = by_text[t].tolist()
            m["embeddingModel"] = self.embedder.model_name
        return by_event

    async def _refresh_redis(self, segments: list[Batch], erased: set[tuple[str, str]]) -> None:
        states = {k: s for b in segments for k, s in b.states.items()}  # the last state of each contact
        if self.redis is None or not (states or erased):
            return
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for t, c in erased - set(states):
                    pipe.delete(window_key(t, c))
                for (t, c), s in states.items():
                    session = s.get("session") or {}
                    pipe.set(window_key(t, c), orjson.dumps({"sessionId": session.get("sessionId"),
                                                             "personaId": session.get("personaId"),
                                                             "turns": s["window"]}), ex=self.window_ttl_s)
                await pipe.execute()
        except Exception:  # Redis is a cache: /context falls back to PostgreSQL
            log.warning("redis refresh failed", exc_info=True)


# The ledger rows of a batch's contacts between the contact's last applied event and the batch's first
# (by ledger seq) that no tracking record names, in ledger order; not those an erasure of the contact
# recorded after them will delete (projector.erase_contact: every row up to the erasure's). Two parameters: the batch's (tenant, event id)s.
LEDGER_GAPS = (
    "WITH firsts AS (SELECT l.tenant_id AS t, l.contact_id AS c, min(l.seq) AS s FROM rapport.ledger l "
    "JOIN unnest(%s::text[], %s::text[]) AS b(t, e) ON l.tenant_id = b.t AND l.event_id = b.e GROUP BY 1, 2), "
    "bounds AS (SELECT f.t, f.c, f.s, coalesce((SELECT l.seq FROM processed_events p JOIN rapport.ledger l "
    "ON l.tenant_id = p.tenant_id AND l.event_id = p.event_id WHERE p.tenant_id = f.t AND p.contact_id = f.c "
    "ORDER BY p.contact_seq DESC, l.seq DESC LIMIT 1), 0) AS lo FROM firsts f) "
    "SELECT l.envelope FROM bounds b JOIN rapport.ledger l ON l.tenant_id = b.t AND l.contact_id = b.c "
    "AND l.seq > b.lo AND l.seq < b.s "
    "WHERE NOT EXISTS (SELECT 1 FROM processed_events p WHERE p.tenant_id = l.tenant_id AND p.event_id = l.event_id) "
    "AND NOT EXISTS (SELECT 1 FROM rapport.ledger x WHERE x.tenant_id = l.tenant_id AND x.contact_id = l.contact_id "
    f"AND x.seq > l.seq AND x.event_type = '{ev.CONTACT_ERASED}') "
    "ORDER BY l.seq")


def in_ledger_order(fresh: list[tuple[Envelope, Record]], gaps: dict[tuple[str, str], list[Envelope]]
                    ) -> list[tuple[Envelope, Record]]:
    """The batch with each contact's missing earlier events (`gaps`, from the ledger) before its first
    one; a ledger event carries no topic position (Record with none: nothing to track but its id)."""
    if not gaps:
        return fresh
    out: list[tuple[Envelope, Record]] = []
    for e, r in fresh:
        for g in gaps.pop((e.tenant_id, e.contact_id), ()):
            out.append((g, Record(encode(g), topic=r.topic)))
        out.append((e, r))
    return out


def curated(d: Envelope, hot: dict[str, Any], known: dict | None,
            rows: dict[tuple[str, str, str], dict | None]) -> None:
    """A memory extracted, corrected or forgotten in this batch: a tier or a forget request later in the
    batch sees the memory as a later batch would read it back (its content and vector, or nothing)."""
    if d.event_type == ev.MEMORY_EXTRACTED:
        m = d.payload["memory"]
        if (d.tenant_id, d.contact_id, m["id"]) in rows:  # one a forget request of this batch names
            rows[(d.tenant_id, d.contact_id, m["id"])] = {"content": m["content"], "memoryType": m["memoryType"]}
        return
    mid = d.payload["memoryId"]
    row = rows.get((d.tenant_id, d.contact_id, mid))
    if row is not None and d.event_type == ev.MEMORY_CORRECTED:
        row.update({k: d.payload[k] for k in ("content", "memoryType") if k in d.payload})
    if d.event_type == ev.MEMORY_FORGOTTEN:
        hot.pop(mid, None)
        if known is not None:
            known.pop(mid, None)
        return
    if d.payload.get("embedding") is not None:
        hot[mid] = d.payload["embedding"]
    elif "content" in d.payload:  # not embedded: the old content's vector no longer stands for it
        hot.pop(mid, None)
    if known is not None and mid in known and "content" in d.payload:
        known[mid] = {**known[mid], "content": d.payload["content"],
                      **({"embedding": np.asarray(d.payload["embedding"], dtype=np.float32),
                          "embeddingModel": d.payload.get("embeddingModel")}
                         if d.payload.get("embedding") is not None else {})}


def derived_record(e: Envelope) -> tuple[bytes, bytes]:
    """(key, value) for publishing a derived event."""
    return partition_key(e.tenant_id, e.contact_id), encode(e)
