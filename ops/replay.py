"""`rapport replay`: rebuild every projection into a fresh version from the ledger or the log.

  1. create the version's schema (status `building`; readers stay on the live version);
  2. feed the events the live version has applied, in its per-contact order (ledger), or the topic from
     its earliest offset (log, a consumer group of its own), through the same pipeline the workers run
     (which opens sealed payloads: the events of an erased contact, whose key is gone, stay shredded);
  3. take the version-switch lock (live batches pause), catch up on what the live version applied in
     the meantime, compare digests when asked, switch readers (one UPDATE), release the lock. Live
     workers follow the switch at their next batch; the old version stays until `--drop`.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Sequence

import numpy as np
import orjson
import psycopg

from agents.core.memory import embedding_text
from domain.embedder import Embedder
from streams import db
from projections.digest import digest


class RecordedEmbedder:
    """For a replay: the vectors the live version stored, looked up by the text they embed; the model
    only for texts it never stored (a candidate the dedup merged away, a pattern's text).

    Why by text: the same text gives the same vector (up to the runtime's float rounding, which the
    digest leaves out), and every stored vector but a consolidated pattern's is the model's vector of
    its row's `embedding_text` (MemoryExtracted, MemoryEmbedded). A pattern built by consolidation
    (source 'consolidation') holds the centroid of its episodes, so its rows are never read here.
    `prefetch` loads the vectors of the contacts of one batch (the pipeline calls it before embedding),
    so memory stays bounded by a batch, whatever the size of the live projection."""

    def __init__(self, model: Callable[[], Embedder], model_name: str, live_schema: str):
        # `model` is called on the first text live never stored: loading the local model takes ~1 s
        self.model, self.model_name, self.schema = model, model_name, live_schema
        self.vectors: dict[str, np.ndarray] = {}
        self.by_id: dict[str, tuple[str, np.ndarray]] = {}  # memory id -> (its embedding text, vector)
        self.recorded = self.computed = 0  # texts answered from the live projection / by the model

    async def prefetch(self, conn, contacts: set[tuple[str, str]]) -> None:  # noqa: ANN001
        self.vectors, self.by_id = {}, {}
        if not contacts:
            return
        cur = await conn.execute(
            f"SELECT m.id, m.content, m.speaker, m.embedding FROM {self.schema}.memories m "
            f"JOIN unnest(%s::text[], %s::text[]) AS b(t, c) ON m.tenant_id = b.t AND m.contact_id = b.c "
            f"WHERE m.embedding IS NOT NULL AND m.embedding_model = %s AND m.source <> 'consolidation'",
            ([t for t, _ in contacts], [c for _, c in contacts], self.model_name), binary=True)
        for mid, content, speaker, vec in await cur.fetchall():
            text = embedding_text({"content": content, "speaker": speaker})
            v = np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)
            self.vectors[text] = v
            self.by_id[mid] = (text, v)

    def embed_messages(self, items: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """Message vectors as live computed them (agents/pipeline.py `_embed_sync`): for each (the id of
        the message's episode, its text), the vector live stored with that episode when its text is the
        message's (computed alone, as a message), else the model's, one text per call as live did. Never
        a vector read by text from another row: that one may come from a batch, a few ulps away."""
        out = []
        for mid, text in items:
            hit = self.by_id.get(mid)
            if hit is not None and hit[0] == text:
                out.append(hit[1])
                self.recorded += 1
            else:
                out.append(self.model().embed([text])[0])
                self.computed += 1
        return out

    @property
    def dim(self) -> int:
        return self.model().dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        if missing:
            self.vectors.update(zip(missing, self.model().embed(missing)))
        out = np.asarray([self.vectors[t] for t in texts], dtype=np.float32)
        self.computed += len(missing)
        self.recorded += len(set(texts)) - len(missing)
        return out


class ReplayError(RuntimeError):
    pass


def resolve_env(data_dir: str | None) -> dict[str, str]:
    """URLs from the environment, else from a running `rapport up --data-dir DIR` (DIR/run.json)."""
    env = {k: os.environ[k] for k in ("RAPPORT_DATABASE_URL", "RAPPORT_KAFKA_URL", "RAPPORT_INTERACTIONS_TOPIC",
                                      "RAPPORT_BROKER_EPOCH") if os.environ.get(k)}
    run = Path(data_dir or "./.rapport") / "run.json"
    if "RAPPORT_DATABASE_URL" not in env and run.exists():
        info = json.loads(run.read_text())
        env.setdefault("RAPPORT_DATABASE_URL", info["database_url"])
        if info.get("kafka_url"):
            env.setdefault("RAPPORT_KAFKA_URL", info["kafka_url"])
        if info.get("broker_epoch") and info.get("kafka_url") == env.get("RAPPORT_KAFKA_URL"):
            env.setdefault("RAPPORT_BROKER_EPOCH", info["broker_epoch"])  # the embedded broker's, this start
        if info.get("interactions_topic"):  # the running stack's topic (an external broker may hold several)
            env.setdefault("RAPPORT_INTERACTIONS_TOPIC", info["interactions_topic"])
    if "RAPPORT_DATABASE_URL" not in env:
        raise ReplayError(f"no database: set RAPPORT_DATABASE_URL or run `rapport up` with this --data-dir "
                          f"({run} not found)")
    return env


def use_tracking_key(data_dir: str | None) -> None:
    """An erasure the replay applies keys its tracking records and tombstones as the live stack does:
    with the data dir's tracking key, unless the environment names one (streams/tracking_key.py)."""
    from streams import tracking_key

    f = Path(data_dir or "./.rapport") / tracking_key.FILE_NAME
    if not os.environ.get(tracking_key.ENV_KEY) and not os.environ.get(tracking_key.ENV_FILE) and f.exists():
        os.environ[tracking_key.ENV_FILE] = str(f)


def log_record_key(data_dir: str | None) -> bytes:
    """The record key the log's records are checked with: RAPPORT_RECORD_KEY(_FILE), else the data dir's."""
    from schemas.recordsig import parse_key
    from streams.config import record_key_from_env

    key = record_key_from_env()
    f = Path(data_dir or "./.rapport") / "record-key"
    if key is None and f.exists():
        key = parse_key(f.read_text(), str(f))
    if key is None:
        raise ReplayError(f"--from log needs the record key: RAPPORT_RECORD_KEY, RAPPORT_RECORD_KEY_FILE or {f}")
    return key


def _ledger_sql(live: str, new: str, of_contacts: bool = False) -> str:
    # what the live version applied and the new one has not, in the live per-contact order (of the
    # contacts given as two arrays, tenants and contacts, when asked)
    only = ("JOIN unnest(%s::text[], %s::text[]) AS o(t, c) ON o.t = l.tenant_id AND o.c = l.contact_id "
            if of_contacts else "")
    return (f"SELECT l.envelope FROM rapport.ledger l {only}"
            f"JOIN {live}.processed_events p ON p.tenant_id = l.tenant_id AND p.event_id = l.event_id "
            f"LEFT JOIN {new}.processed_events n ON n.tenant_id = l.tenant_id AND n.event_id = l.event_id "
            f"WHERE n.event_id IS NULL ORDER BY l.tenant_id, l.contact_id, p.contact_seq, l.seq")


def split_contacts(counts: list[tuple[str, str, int]], parts: int) -> list[list[tuple[str, str]]]:
    """Contacts (tenant, contact, events) into `parts` groups of about equal events: the largest first,
    each to the group with the fewest so far. A contact stays whole: its events fold in order."""
    groups: list[list[tuple[str, str]]] = [[] for _ in range(parts)]
    load = [0] * parts
    for t, c, n in sorted(counts, key=lambda x: (-x[2], x[0], x[1])):
        i = load.index(min(load))
        groups[i].append((t, c))
        load[i] += n
    return [g for g in groups if g]


async def ledger_batches(url: str, live: str, new: str, size: int,
                         contacts: list[tuple[str, str]] | None = None) -> AsyncIterator[list[bytes]]:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        async with conn.cursor(name="replay_ledger") as cur:
            cur.itersize = size
            if contacts is None:
                await cur.execute(_ledger_sql(live, new))
            else:
                await cur.execute(_ledger_sql(live, new, of_contacts=True),
                                  ([t for t, _ in contacts], [c for _, c in contacts]))
            batch: list[bytes] = []
            async for (envelope,) in cur:
                batch.append(orjson.dumps(envelope))
                if len(batch) >= size:
                    yield batch
                    batch = []
            if batch:
                yield batch


async def log_batches(kafka_url: str, topic: str, group: str, size: int,
                      until: dict[int, int] | None = None, whole: frozenset[int] = frozenset()
                      ) -> AsyncIterator[list[tuple]]:
    """The topic from its earliest offset up to the end offsets seen at the start; with `until` (what
    the live version has consumed), no further than its offset for each partition (0 for one it lacks)
    but those in `whole`."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    from streams.config import bootstrap_servers

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap_servers(kafka_url), group_id=group,
                                auto_offset_reset="earliest", enable_auto_commit=False)
    await consumer.start()
    try:
        parts = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or
                                                          await _partitions(consumer, topic))]
        consumer.assign(parts)
        await consumer.seek_to_beginning(*parts)
        end = await consumer.end_offsets(parts)
        for tp in parts:
            if until is not None and tp.partition not in whole:
                end[tp] = min(end[tp], until.get(tp.partition, 0))
        remaining = {tp for tp in parts if end[tp] > 0}
        while remaining:
            got = await consumer.getmany(*remaining, timeout_ms=1000, max_records=size)
            batch = []
            for tp, msgs in got.items():
                for m in msgs:
                    if m.offset < end[tp]:
                        batch.append((m.value, tp.partition, m.offset, m.key, m.headers))
                if msgs and msgs[-1].offset + 1 >= end[tp]:
                    remaining.discard(tp)
            if batch:
                yield batch
    finally:
        await consumer.stop()


async def live_positions(url: str, live: str, topic: str, kafka_url: str, run_epoch: str | None
                         ) -> tuple[dict[int, int], frozenset[int]]:
    """Where the live version stands in the topic: per partition, the offset below which its workers
    have consumed every record (its watermark), when that watermark is of the broker the log is read
    from now (`run_epoch`: a running embedded stack's, else the cluster id). A log read past it would
    apply records the live version has not yet (an access a /context just published, a tick) and the
    digests could not match; what live applies meanwhile comes from the ledger under the switch lock.
    Also the partitions whose watermark is of an earlier broker (read whole: offsets not comparable)."""
    epoch = run_epoch
    if epoch is None:
        from streams.config import settings
        from streams.topics import describe

        epoch = (await describe(dataclasses.replace(settings(), kafka_url=kafka_url)))[0]
    with psycopg.connect(url, autocommit=True) as c:
        rows = c.execute(f"SELECT partition, broker_epoch, next_offset FROM {live}.watermarks WHERE topic=%s",
                         (topic,)).fetchall()
    until = {p: o for p, e, o in rows if e == epoch}
    return until, frozenset(p for p, e, _ in rows if e != epoch)


async def _partitions(consumer: Any, topic: str) -> set[int]:
    await consumer._client.force_metadata_update()
    return consumer.partitions_for_topic(topic) or set()


def _load_model_meanwhile() -> Any:
    """The model, loading on another core from now on: a replay needs it only for the few texts live
    never stored, and its first batch would otherwise wait for the load."""
    from domain.embedder import default_embedder
    from streams.config import settings

    return ThreadPoolExecutor(1, thread_name_prefix="load-model").submit(default_embedder, settings()).result


def _replay_pipeline(conn: Any, live: str, into: str, model: Any = None, source: str = "ledger",
                     embedder: Embedder | None = None) -> tuple[Any, Any]:
    """The pipeline a replay feeds, with the model outcomes of the live version: its recorded moods and
    its stored vectors. `model` gives the model for the few texts live never stored (by default it is
    loaded when first needed); `embedder`, a model already made (domain.embedder.Embedder), is that
    model and names the vectors instead of the configured one. Events read from the ledger are not
    written back to it (`source`); those read from the log are, as a worker would."""
    from domain.embedder import configured_model_name, default_embedder
    from agents.llm import RecordedMoods
    from agents.pipeline import InteractionPipeline
    from streams.config import settings

    s = settings()
    if embedder is not None:
        recorded = RecordedEmbedder(lambda: embedder, embedder.model_name, live)
    else:
        recorded = RecordedEmbedder(model or (lambda: default_embedder(s)), configured_model_name(s), live)
    return InteractionPipeline(conn, recorded, broker_epoch=f"replay-{into}", version=into, switch_lock=False,
                               moods=RecordedMoods(conn, live), publishes=False,
                               records=source != "ledger"), recorded


_progress: Any = None  # a replay part's queue to the parent's progress bar


def _part_init(queue: Any) -> None:
    global _progress
    _progress = queue


def replay_part(url: str, live: str, new: str, into: str, contacts: list[tuple[str, str]],
                batch_size: int, model: Embedder | None = None) -> dict[str, int]:
    """One process's share of a parallel replay: these contacts' events, folded and committed (`model`:
    as replay's `embedder`)."""
    return asyncio.run(_replay_part(url, live, new, into, contacts, batch_size, model))


async def _replay_part(url: str, live: str, new: str, into: str, contacts: list[tuple[str, str]],
                       batch_size: int, model: Embedder | None = None) -> dict[str, int]:
    from agents.pipeline import Record

    conn = await db.connect_async(url, schema=new)
    try:
        pipe, embedder = _replay_pipeline(conn, live, into, None if model is not None else _load_model_meanwhile(),
                                          embedder=model)
        events = 0
        async for batch in ledger_batches(url, live, new, batch_size, contacts):
            events += (await pipe.process([Record(v) for v in batch])).applied
            if _progress is not None:
                _progress.put(len(batch))
        return {"events": events, "recorded": embedder.recorded, "computed": embedder.computed}
    finally:
        await conn.close()


async def _replay_parallel(url: str, live: str, new: str, into: str, jobs: int, batch_size: int,
                           bar: Any, model: Embedder | None = None) -> dict[str, int]:
    """The ledger's contacts split over `jobs` processes (contacts are independent: the workers split
    them by partition the same way), each with its own pipeline and connection."""
    import multiprocessing
    import queue as queues
    from concurrent.futures import ProcessPoolExecutor

    with psycopg.connect(url, autocommit=True) as c:
        counts = c.execute(f"SELECT l.tenant_id, l.contact_id, count(*) FROM rapport.ledger l "
                           f"JOIN {live}.processed_events p ON p.tenant_id = l.tenant_id AND p.event_id = l.event_id "
                           f"GROUP BY 1, 2").fetchall()
    groups = split_contacts(counts, jobs)
    # fork where there is one: a spawned process spends ~1 s importing before its first event. Nothing
    # the children could trip over is open yet: no connection, no model, no thread but the progress bar's
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    progress = ctx.Queue()
    with ProcessPoolExecutor(len(groups), mp_context=ctx, initializer=_part_init, initargs=(progress,)) as pool:
        futures = [pool.submit(replay_part, url, live, new, into, g, batch_size, model) for g in groups]
        while not all(f.done() for f in futures):
            try:
                bar.update(progress.get(timeout=0.2))
            except queues.Empty:
                pass
        parts = [f.result() for f in futures]
    while not progress.empty():
        bar.update(progress.get())
    return {k: sum(p[k] for p in parts) for k in ("events", "recorded", "computed")}


async def replay(into: str, source: str, verify: bool, data_dir: str | None, batch_size: int = 1000,
                 progress: bool = True, jobs: int = 1, embedder: Embedder | None = None) -> dict[str, Any]:
    """`jobs` > 1: the ledger's contacts are replayed by that many processes forked from this one.
    `embedder`: the model for texts live never stored (a domain.embedder.Embedder; by default the
    configured one, loaded meanwhile); each part of a parallel replay gets a copy (pickled)."""
    from tqdm import tqdm

    from agents.pipeline import Record
    from streams.config import settings

    env = resolve_env(data_dir)
    url = env["RAPPORT_DATABASE_URL"]
    use_tracking_key(data_dir)
    new = db.schema_of(into)
    parallel = jobs > 1 and source == "ledger"
    with psycopg.connect(url, autocommit=True) as c:
        db.migrate_meta(c)
        live_version = db.active_version(c)
        if live_version is None:
            raise ReplayError("there is no live projection version to replay")
        if live_version == into:
            raise ReplayError(f"{into} is the live version")
        if c.execute("SELECT 1 FROM rapport.projection_versions WHERE version=%s", (into,)).fetchone():
            raise ReplayError(f"version {into} exists; drop it first with `rapport replay --drop {into}`")
        # while the schema is made; not when parts are forked from this process: they load their own
        model = None if parallel or embedder is not None else _load_model_meanwhile()
        db.ensure_version(c, into, activate_if_none=False, status="building")
        total = c.execute(f"SELECT count(*) FROM {db.schema_of(live_version)}.processed_events "
                          f"WHERE contact_id NOT LIKE 'erased:%%'").fetchone()[0]
    live = db.schema_of(live_version)

    t0 = time.monotonic()
    events = 0
    bar = tqdm(total=total, unit="ev", desc=f"replay -> {into}", disable=not progress)
    parts = {"recorded": 0, "computed": 0}
    if parallel:  # before this process opens its connection: the parts are forked from it
        done = await _replay_parallel(url, live, new, into, jobs, batch_size, bar, embedder)
        events += done["events"]
        parts = {k: done[k] for k in parts}
    conn = await db.connect_async(url, schema=new)
    pipe, recorded = _replay_pipeline(conn, live, into, model, source=source, embedder=embedder)

    async def feed(records: list) -> None:
        nonlocal events
        out = await pipe.process(records)
        events += out.applied
        bar.update(len(records))

    if source == "log":
        if "RAPPORT_KAFKA_URL" not in env:
            raise ReplayError("--from log needs the broker: RAPPORT_KAFKA_URL or a running `rapport up`")
        topic = env.get("RAPPORT_INTERACTIONS_TOPIC") or settings().interactions_topic
        # what a worker would not apply (unsigned or badly signed records) the replay does not either
        pipe.signing_key = log_record_key(data_dir)
        until, older = await live_positions(url, live, topic, env["RAPPORT_KAFKA_URL"], env.get("RAPPORT_BROKER_EPOCH"))
        if older:
            print(f"partitions {sorted(older)}: the live version's position is of an earlier broker; read whole")
        async for batch in log_batches(env["RAPPORT_KAFKA_URL"], topic, f"rapport-replay-{into}", batch_size,
                                       until, older):
            await feed([Record(v, topic, p, o, k, h) for v, p, o, k, h in batch])
        pipe.signing_key = None  # the catch-up below reads the ledger: rows rapport wrote, never signed
    elif not parallel:
        async for batch in ledger_batches(url, live, new, batch_size):
            await feed([Record(v) for v in batch])

    # the switch: live batches pause while we catch up, compare and flip the readers
    lock = await psycopg.AsyncConnection.connect(url, autocommit=True)
    try:
        await lock.execute("SELECT pg_advisory_lock(%s)", (db.SWITCH_LOCK,))
        async for batch in ledger_batches(url, live, new, batch_size):
            await feed([Record(v) for v in batch])
        bar.close()
        seconds = time.monotonic() - t0
        with psycopg.connect(url, autocommit=True) as c:
            new_digest = digest(c, new)
            result: dict[str, Any] = {"version": into, "from": source, "events": events,
                                      "seconds": round(seconds, 2),
                                      "events_per_s": round(events / seconds, 1) if seconds else None,
                                      "digest": new_digest, "live_version": live_version,
                                      "texts_recorded": recorded.recorded + parts["recorded"],
                                      "texts_embedded": recorded.computed + parts["computed"], "jobs": jobs}
            if verify:
                live_digest = digest(c, live)
                result["live_digest"] = live_digest
                result["verified"] = live_digest == new_digest
                if not result["verified"]:
                    c.execute("UPDATE rapport.projection_versions SET status='failed', events=%s, digest=%s "
                              "WHERE version=%s", (events, new_digest, into))
                    return result
            with c.transaction():
                c.execute("UPDATE rapport.active_version SET version=%s", (into,))
                c.execute("UPDATE rapport.projection_versions SET status='retired' WHERE version=%s",
                          (live_version,))
                c.execute("UPDATE rapport.projection_versions SET status='live', activated_at=now(), events=%s, "
                          "digest=%s WHERE version=%s", (events, new_digest, into))
            result["switched"] = True
        return result
    finally:
        await lock.execute("SELECT pg_advisory_unlock(%s)", (db.SWITCH_LOCK,))
        await lock.close()
        await conn.close()


def live_worker_rate(data_dir: str | None) -> dict[str, float] | None:
    """What the running workers of `rapport up --data-dir DIR` did since they started, from their
    /metrics: events applied and seconds spent in batches (process and commit, not waiting for the
    broker), so the replay's rate can be set beside the live one. None when they cannot be asked."""
    from ops.worker_metrics import metrics_urls, samples

    urls = metrics_urls(data_dir)
    got = samples(urls)
    if not urls or got is None:
        return None
    applied = seconds = 0.0
    for sample in got:
        if sample.name == "rapport_events_total" and sample.labels.get("outcome") == "applied":
            applied += sample.value
        elif sample.name == "rapport_batch_seconds_sum":
            seconds += sample.value
    if not urls or not seconds:
        return None
    return {"events": int(applied), "batch_seconds": round(seconds, 2), "events_per_s": round(applied / seconds, 1)}


def times_live(replay_rate: float | None, live_rate: float | None) -> str:
    """The replay's rate as a multiple of the live workers' ("2.0x live"), or "n/a" when either is not a
    positive number (workers that applied nothing yet have a live rate of 0)."""
    if not replay_rate or not live_rate or replay_rate < 0 or live_rate < 0:
        return "n/a"
    return f"{replay_rate / live_rate:.1f}x live"


def drop(version: str, data_dir: str | None) -> None:
    url = resolve_env(data_dir)["RAPPORT_DATABASE_URL"]
    with psycopg.connect(url, autocommit=True) as c:
        if db.active_version(c) == version:
            raise ReplayError(f"{version} is the live version; switch readers away first")
        if not c.execute("SELECT 1 FROM rapport.projection_versions WHERE version=%s", (version,)).fetchone():
            raise ReplayError(f"no projection version {version}")
        with c.transaction():
            c.execute(f"DROP SCHEMA {db.schema_of(version)} CASCADE")
            c.execute("DELETE FROM rapport.schema_migrations WHERE schema_name=%s", (db.schema_of(version),))
            c.execute("DELETE FROM rapport.projection_versions WHERE version=%s", (version,))


def run(into: str | None, source: str, verify: bool, data_dir: str | None, drop_version: str | None,
        jobs: int = 1) -> int:
    try:
        if drop_version:
            drop(drop_version, data_dir)
            print(f"dropped projection version {drop_version}")
            return 0
        r = asyncio.run(replay(into, source, verify, data_dir, jobs=jobs))
    except ReplayError as e:
        print(f"rapport replay: {e}")
        return 2
    line = f"replayed {r['events']} events into {r['version']} in {r['seconds']} s ({r['events_per_s']} events/s); " \
           f"digest {r['digest']}"
    print(line)
    print(f"vectors: {r['texts_recorded']} texts read from {r['live_version']}, {r['texts_embedded']} embedded by the model")
    live = live_worker_rate(data_dir)
    if live and r["events_per_s"]:
        print(f"live workers: {live['events']} events applied in {live['batch_seconds']} s of batches "
              f"({live.get('events_per_s')} events/s); replay {r['events_per_s']} events/s = "
              f"{times_live(r['events_per_s'], live.get('events_per_s'))}")
    if verify:
        print(f"live {r['live_version']} digest {r['live_digest']}: {'MATCH' if r['verified'] else 'MISMATCH'}")
    print(f"readers switched to {r['version']}" if r.get("switched") else "readers NOT switched")
    return 0 if r.get("switched") else 1
