"""`rapport bench load`: ingest rate, processing rate, freshness and /context latency through the HTTP
contract, against a running instance (--url) or a fresh embedded stack it starts and stops itself.

The messages are synthetic but realistic chat (facts, preferences, plans, small talk, moods), written
for this benchmark; contacts are spread over batches so every batch mixes partitions.
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import tempfile
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx

PETS = ["Bruno", "Max", "Luna", "Miso", "Pepper", "Coco"]
PLACES = ["Berlin", "Chennai", "Austin", "Lisbon", "Osaka", "Toronto"]
WORK = ["Infosys", "a bakery", "the hospital", "a startup", "the university library"]
FOOD = ["biryani", "sushi", "tacos", "ramen", "dosa", "pizza"]
TEMPLATES = [
    "I have a dog named {pet}, he is {n} years old", "My dog {pet} ate my shoes again this morning",
    "I live in {place} now, moved here last year", "I work at {work} and the week was exhausting",
    "I love {food} but I don't like spicy food", "Can we talk about my trip to {place} next month?",
    "I'm so worried about my exam tomorrow", "haha that's hilarious", "ok", "lol",
    "Took {pet} to the park, he made a new friend", "My mom lives in {place} and I miss her",
    "I don't really like talking about politics", "What do you think I should cook tonight?",
    "Finally finished the project at {work}!!!", "meh, whatever", "I'm 29 and still figuring things out",
    "I prefer tea over coffee in the mornings", "Had a long day, just want to relax with some {food}",
]
QUESTIONS = ["How is my dog doing?", "Where do I live?", "What food do I like?", "Where does my mom live?",
             "What do I do for work?", "What was I worried about?", "What should we talk about?"]


def message(rng: random.Random, distinct: bool = False) -> str:
    """One chat message from the templates; `distinct`: three of them, so that nearly every message of a
    run is a text of its own, as in real traffic (the templates alone give ~130 texts per run, which the
    worker embeds once each)."""
    one = rng.choice(TEMPLATES).format(pet=rng.choice(PETS), place=rng.choice(PLACES), work=rng.choice(WORK),
                                       food=rng.choice(FOOD), n=rng.randint(1, 12))
    return f"{one}. {message(rng)}. {message(rng)}" if distinct else one


def pct(values: list[float], p: float) -> float:
    v = sorted(values)
    k = (len(v) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def summary(seconds: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {"n": len(ms), "p50_ms": round(pct(ms, 50), 2), "p95_ms": round(pct(ms, 95), 2),
            "p99_ms": round(pct(ms, 99), 2), "mean_ms": round(statistics.fmean(ms), 2)}


@contextmanager
def target(url: str | None, workers: int, with_db: bool = False, with_kafka: bool = False,
           data_dirs: list[Path] | None = None, api_processes: int | None = None) -> Iterator[Any]:
    """A running instance: the given URL, or an embedded stack in a temp dir (and its database URL, its
    broker URL when asked), with the headers to send. The benchmarks name their own tenants (bench,
    scale): against --url, $RAPPORT_API_KEY (else ./.rapport/api-key) must be an admin key or one of
    that tenant; the URLs come from RAPPORT_DATABASE_URL and RAPPORT_KAFKA_URL. `data_dirs` gets the
    embedded stack's data dir (its run.json names the workers' /metrics)."""
    from ops.keys import auth_headers

    if url:
        headers = auth_headers()
        yield (url, os.environ.get("RAPPORT_DATABASE_URL"), headers) if with_db else \
            (url, os.environ.get("RAPPORT_KAFKA_URL"), headers) if with_kafka else (url, headers)
        return
    from unittest import mock

    from ops.embedded import Stack, free_port

    # on an external broker (RAPPORT_KAFKA_URL) the bench stack gets topics and a consumer group of its
    # own: a benchmark never reads or writes the cluster's real rapport topics
    own_topics = {}
    if os.environ.get("RAPPORT_KAFKA_URL"):
        from ops.kafka_cluster import stack_env

        own_topics = stack_env(os.environ["RAPPORT_KAFKA_URL"], f"bench-{os.urandom(4).hex()}")
    with tempfile.TemporaryDirectory(prefix="rapport-bench-") as d:
        stack = Stack(Path(d), http_port=free_port(), workers=workers,
                      **({"api_processes": api_processes} if api_processes else {}))
        if data_dirs is not None:
            data_dirs.append(Path(d))
        try:
            with mock.patch.dict(os.environ, own_topics):
                stack.start_services()
            import psycopg

            from projections import auth
            from streams import db

            with psycopg.connect(stack.env["RAPPORT_DATABASE_URL"], autocommit=True) as conn:
                db.migrate_meta(conn)
                headers = auth_headers(key=auth.create_key(conn, "bench", admin=True)[1])
            stack.start_app()
            if not stack.wait_ready(180):
                raise RuntimeError("the embedded stack did not become ready")
            yield (stack.url, stack.env["RAPPORT_DATABASE_URL"], headers) if with_db else \
                (stack.url, stack.env["RAPPORT_KAFKA_URL"], headers) if with_kafka else (stack.url, headers)
        finally:
            stack.stop()
            if own_topics:  # the cluster keeps no bench topics
                from ops.bench_transport import bench_topics

                topics = [v for k, v in own_topics.items() if k.endswith("_TOPIC")]
                asyncio.run(bench_topics(own_topics["RAPPORT_KAFKA_URL"], topics, create=False))


def bulk_load(database_url: str, contacts: int, per_contact: int, seed: int = 5, archived: int = 0) -> float:
    """Synthetic memories straight into the live projection (binary COPY): realistic texts, random unit
    vectors of the local model's size; per contact `per_contact` in the working set and `archived` more
    that a consolidation tier retired (compressed into a pattern), which every query searches too. For
    measuring the read path at scale only."""
    import numpy as np
    import orjson
    import psycopg
    from pgvector.psycopg import register_vector

    from agents.core.memory import content_hash
    from domain.embedder import LOCAL_MODEL_NAME

    rng = random.Random(seed)
    vecs = np.random.default_rng(seed)
    t0 = time.perf_counter()
    with psycopg.connect(database_url) as conn:
        register_vector(conn)
        version = conn.execute("SELECT version FROM rapport.active_version").fetchone()[0]
        s = f"proj_{version}"
        now = datetime.now(timezone.utc)
        with conn.cursor() as cur:
            with cur.copy(f"COPY {s}.contacts (tenant_id, contact_id, display_name, message_count, session_count, "
                          f"active_streak, state, seq) FROM STDIN") as cp:
                for c in range(contacts):
                    st = {"tenantId": "scale", "contactId": f"s{c}", "displayName": f"Contact {c}", "channel": None,
                          "personaId": None, "firstSeen": (now - timedelta(days=60)).isoformat(),
                          "lastSeen": now.isoformat(), "messageCount": per_contact * 2, "userMessageCount": per_contact,
                          "sessionCount": 20, "session": None, "lastActiveDay": now.date().isoformat(),
                          "activeStreak": 5, "window": [], "seq": per_contact * 2, "memoryVersion": 1}
                    cp.write_row(("scale", f"s{c}", f"Contact {c}", per_contact * 2, 20, 5,
                                  orjson.dumps(st).decode(), per_contact * 2))
            cols = ("id, tenant_id, contact_id, scope, memory_type, content, importance, decay_rate, confidence, "
                    "source, status, pinned, entity_refs, topics, source_event_ids, created_at, updated_at, "
                    "accessed_at, content_hash, embedding, embedding_model, embedding_dim, retired_at")
            # what the projector writes beside each memory: its keyword statistics (projections/lexical.py),
            # streamed on connections of their own (one COPY at a time per connection)
            terms = _TermsCopy(database_url, s) if _has_table(conn, s, "memory_terms") else None
            with cur.copy(f"COPY {s}.memories ({cols}) FROM STDIN WITH (FORMAT BINARY)") as cp:
                cp.set_types(["text", "text", "text", "text", "text", "text", "float8", "float8", "float8", "text",
                              "text", "bool", "text[]", "text[]", "text[]", "timestamptz", "timestamptz",
                              "timestamptz", "text", "vector", "text", "int4", "timestamptz"])
                for c in range(contacts):
                    block = vecs.standard_normal((per_contact + archived, 384)).astype(np.float32)
                    block /= np.linalg.norm(block, axis=1, keepdims=True)
                    for i in range(per_contact + archived):
                        text = message(rng)
                        at = now - timedelta(days=rng.randint(0, 365), minutes=i)
                        if i < per_contact:
                            mtype, status, retired = rng.choice(["episode", "episode", "fact", "preference"]), "active", None
                        else:
                            mtype, status, retired = "episode", "compressed", at + timedelta(days=3)
                        cp.write_row((f"s{c}-m{i}", "scale", f"s{c}", "contact", mtype, text, rng.uniform(0.1, 1.0),
                                      0.008, 1.0, "rules", status, False, [], [], [f"s{c}-e{i}"], at, at, at,
                                      content_hash(text), block[i], LOCAL_MODEL_NAME, 384, retired))
                        if terms is not None:
                            terms.write(f"s{c}", f"s{c}-m{i}", text, at, mtype)
            if terms is not None:
                terms.close()
        conn.execute(f"ANALYZE {s}.memories")
        conn.commit()
        if terms is not None:  # visibility map set, as autovacuum keeps it in a projection written over time
            conn.autocommit = True
            conn.execute(f"VACUUM (ANALYZE) {s}.memory_terms, {s}.memory_term_docs"
                         + (f", {s}.memory_term_stats" if _has_table(conn, s, "memory_term_stats") else ""))
            conn.autocommit = False
        # the load's pages written out now, not by the checkpointer while /context is being timed (it
        # took ~8 ms off the 8-client p95): a projection this size was written over months, not just now
        try:
            conn.execute("CHECKPOINT")
        except psycopg.errors.InsufficientPrivilege:  # --url with a role that may not: measured as it is
            conn.rollback()
    return time.perf_counter() - t0


def _has_table(conn: Any, schema: str, table: str) -> bool:
    return conn.execute("SELECT 1 FROM information_schema.tables WHERE table_schema=%s AND table_name=%s",
                        (schema, table)).fetchone() is not None


class _TermsCopy:
    """The rows projector.TERMS_UPSERT writes for each bulk-loaded memory, by binary COPY."""

    def __init__(self, database_url: str, schema: str):
        import psycopg

        self.conns = [psycopg.connect(database_url) for _ in range(2)]
        self.copies = [self.conns[0].cursor().copy(
            f"COPY {schema}.memory_term_docs (tenant_id, contact_id, memory_id, length, terms, tfs, created_at, "
            f"memory_type) FROM STDIN WITH (FORMAT BINARY)"), self.conns[1].cursor().copy(
            f"COPY {schema}.memory_terms (tenant_id, contact_id, term, memory_id, tf, length) FROM STDIN "
            f"WITH (FORMAT BINARY)")]
        # contact -> [docs, total length]: its memory_term_stats row, if the version has the table
        self.schema, self.totals = schema, {}
        self.docs, self.postings = (cp.__enter__() for cp in self.copies)
        self.docs.set_types(["text", "text", "text", "int4", "text[]", "int4[]", "timestamptz", "text"])
        self.postings.set_types(["text", "text", "text", "text", "int4", "int4"])

    def write(self, contact: str, memory_id: str, text: str, at: datetime, memory_type: str) -> None:
        from domain.text import doc_row

        length, terms, tfs = doc_row(None, text)
        self.docs.write_row(("scale", contact, memory_id, length, terms, tfs, at, memory_type))
        total = self.totals.setdefault(contact, [0, 0])
        total[0] += 1
        total[1] += length
        for term, tf in zip(terms, tfs):
            self.postings.write_row(("scale", contact, term, memory_id, tf, length))

    def close(self) -> None:
        for cp, conn in zip(self.copies, self.conns):
            cp.__exit__(None, None, None)
            conn.commit()
        if _has_table(self.conns[0], self.schema, "memory_term_stats"):
            with self.conns[0].cursor().copy(f"COPY {self.schema}.memory_term_stats (tenant_id, contact_id, docs, "
                                             f"total_length) FROM STDIN") as cp:
                for contact, (docs, length) in self.totals.items():
                    cp.write_row(("scale", contact, docs, length))
            self.conns[0].commit()
        for conn in self.conns:
            conn.close()


async def run_context(url: str, contacts: int, queries: int, concurrency: int, seed: int = 9,
                      headers: dict[str, str] | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    out: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=httpx.Limits(max_connections=concurrency),
                                 headers=headers or {}) as c:
        for name, with_query, clients in (("query_1_client", True, 1), ("no_query_1_client", False, 1),
                                          (f"query_{concurrency}_clients", True, concurrency)):
            lat: list[float] = []

            async def client(j: int) -> None:
                r2 = random.Random(seed + j)
                for _ in range(queries // clients):
                    params: dict[str, Any] = {"tenant_id": "scale", "budget": 1200}
                    if with_query:
                        params["query"] = f"{r2.choice(QUESTIONS)} ({r2.randint(0, 10**6)})"
                    s = time.perf_counter()
                    (await c.get(f"/context/s{r2.randrange(contacts)}", params=params)).raise_for_status()
                    lat.append(time.perf_counter() - s)

            for _ in range(20):  # warm-up
                await c.get(f"/context/s{rng.randrange(contacts)}", params={"tenant_id": "scale", "query": "hi"})
            s = time.perf_counter()
            await asyncio.gather(*(client(j) for j in range(clients)))
            out[name] = {**summary(lat), "requests_per_s": round(len(lat) / (time.perf_counter() - s), 1)}
    return out


def context_main(url: str | None, contacts: int, per_contact: int, queries: int, concurrency: int,
                 archived: int = 0) -> dict[str, Any]:
    with target(url, 1, with_db=True) as (u, database_url, headers):
        if not database_url:
            raise RuntimeError("--url needs RAPPORT_DATABASE_URL of that instance to load the synthetic data")
        took = bulk_load(database_url, contacts, per_contact, archived=archived)
        print(f"loaded {contacts} contacts x ({per_contact} active + {archived} archived) memories in {took:.0f} s")
        r = asyncio.run(run_context(u, contacts, queries, concurrency, headers=headers))
    for name, v in r.items():
        print(f"/context {name:<20} p50 {v['p50_ms']} ms, p95 {v['p95_ms']} ms, p99 {v['p99_ms']} ms, "
              f"{v['requests_per_s']} req/s")
    return r


async def ask_while(url: str, headers: dict[str, str], run: str, contacts: int, clients: int, seed: int,
                    stop: asyncio.Event) -> list[float]:
    """`clients` clients asking /context with a query, each without pause, until `stop`: the latencies."""
    lat: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=60, headers=headers,
                                 limits=httpx.Limits(max_connections=clients)) as c:
        async def client(j: int) -> None:
            r = random.Random(seed * 1000 + j)
            while not stop.is_set():
                params = {"tenant_id": "bench", "budget": 1200,
                          "query": f"{r.choice(QUESTIONS)} ({r.randint(0, 10**6)})"}
                s = time.perf_counter()
                (await c.get(f"/context/bench-{run}-{r.randrange(contacts)}", params=params)).raise_for_status()
                lat.append(time.perf_counter() - s)

        await asyncio.gather(*(client(j) for j in range(clients)))
    return lat


async def run_load(url: str, contacts: int, events: int, queries: int, concurrency: int, seed: int = 7,
                   headers: dict[str, str] | None = None,
                   stages: Callable[[], dict[str, float] | None] | None = None, busy_clients: int = 0,
                   distinct: bool = False, api: Callable[[], dict[str, float] | None] | None = None
                   ) -> dict[str, Any]:
    rng = random.Random(seed)
    run = uuid.uuid4().hex[:8]
    per = max(events // contacts, 1)
    t0 = 1_700_000_000
    evs = [{"contact_id": f"bench-{run}-{c}", "tenant_id": "bench", "event_id": f"{run}-{c}-{i}",
            "role": "user" if i % 3 != 2 else "assistant", "message": message(rng, distinct),
            "occurred_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0 + i * 90 + c))}
           for i in range(per) for c in range(contacts)]
    out: dict[str, Any] = {"contacts": contacts, "events": len(evs)}
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=httpx.Limits(max_connections=concurrency),
                                 headers=headers or {}) as c:
        # 0. warm-up: one event through, so the timing starts with the workers' partitions assigned and
        # their model loaded (a fresh stack's group join is not what this measures)
        warm = {"contact_id": f"bench-{run}-warm-up", "tenant_id": "bench", "event_id": f"{run}-warm-up",
                "role": "user", "message": message(rng)}
        (await c.post("/ingest", json=[warm])).raise_for_status()
        while (await c.get(f"/context/{warm['contact_id']}",
                           params={"tenant_id": "bench", "after": warm["event_id"]})).status_code == 504:
            pass

        # 1. ingest: batches of 100 events that mix contacts (and, if asked, /context asked meanwhile)
        stop = asyncio.Event()
        busy = asyncio.create_task(ask_while(url, headers or {}, run, contacts, busy_clients, seed, stop)) \
            if busy_clients else None
        before = stages() if stages else None
        api_before = api() if api else None
        batches = [evs[i:i + 100] for i in range(0, len(evs), 100)]
        post_lat: list[float] = []
        start = time.perf_counter()
        # batches go out `concurrency` at a time, in order: a contact's later events are in later batches
        for i in range(0, len(batches), concurrency):
            group = batches[i:i + concurrency]

            async def one(b: list[dict]) -> None:
                s = time.perf_counter()
                (await c.post("/ingest", json=b)).raise_for_status()
                post_lat.append(time.perf_counter() - s)

            await asyncio.gather(*(one(b) for b in group))
        posted = time.perf_counter() - start
        out["ingest"] = {"accepted_events_per_s": round(len(evs) / posted, 1), "post_latency": summary(post_lat)}

        # 2. drain: every contact's last event reflected
        last = {e["contact_id"]: e["event_id"] for e in evs}
        for contact, eid in last.items():
            while (await c.get(f"/context/{contact}", params={"tenant_id": "bench", "after": eid})).status_code == 504:
                pass
        drained = time.perf_counter() - start
        out["processing"] = {"end_to_end_events_per_s": round(len(evs) / drained, 1), "seconds": round(drained, 2)}
        if busy is not None:
            stop.set()
            lat = await busy
            out["context_during_ingest"] = {"clients": busy_clients, **summary(lat),
                                            "requests_per_s": round(len(lat) / drained, 1)}
        after = stages() if stages else None
        api_after = api() if api else None
        if api_before is not None and api_after is not None:
            out["api_during_ingest"] = api_cost(api_before, api_after)
        if before is not None and after is not None:
            out["stages"] = breakdown(before, after)
            cpu = out["stages"].pop(CPU, None)
            if cpu is not None:  # CPU per event: what a worker costs, less moved than rates by a shared machine
                out["worker_cpu"] = {"seconds": round(cpu, 2), "ms_per_event": round(cpu * 1000 / len(evs), 3)}
        out["texts"] = [e["message"] for e in evs]  # for the model-only rate (load_main), not printed
        out["turns"] = [(e["role"], e["message"]) for e in evs]  # for the worker's model calls, not printed

        # 3. freshness: one new event, then the time until /context?after= answers
        fresh: list[float] = []
        for k in range(min(50, contacts)):
            e = {"contact_id": f"bench-{run}-{k}", "tenant_id": "bench", "event_id": f"{run}-fresh-{k}",
                 "role": "user", "message": message(rng)}
            (await c.post("/ingest", json=e)).raise_for_status()
            s = time.perf_counter()
            while (await c.get(f"/context/{e['contact_id']}",
                               params={"tenant_id": "bench", "after": e["event_id"]})).status_code == 504:
                pass
            fresh.append(time.perf_counter() - s)
        out["freshness"] = summary(fresh)

        # 4. /context latency, with the query embedding and without a query, 1 and `concurrency` clients
        async def ask(n: int, clients: int, with_query: bool) -> dict[str, Any]:
            lat: list[float] = []

            async def client(j: int) -> None:
                r2 = random.Random(seed + j)
                for _ in range(n // clients):
                    params = {"tenant_id": "bench", "budget": 1200}
                    if with_query:  # vary the text so the query-embedding cache does not answer
                        params["query"] = f"{r2.choice(QUESTIONS)} ({r2.randint(0, 10**6)})"
                    s = time.perf_counter()
                    (await c.get(f"/context/bench-{run}-{r2.randrange(contacts)}", params=params)).raise_for_status()
                    lat.append(time.perf_counter() - s)

            s = time.perf_counter()
            await asyncio.gather(*(client(j) for j in range(clients)))
            return {**summary(lat), "requests_per_s": round(len(lat) / (time.perf_counter() - s), 1)}

        out["context"] = {"query_1_client": await ask(queries, 1, True)}
        api_before = api() if api else None
        out["context"][f"query_{concurrency}_clients"] = await ask(queries, concurrency, True)
        api_after = api() if api else None
        if api_before is not None and api_after is not None:
            out["api_after_ingest"] = api_cost(api_before, api_after)
        out["context"]["no_query_1_client"] = await ask(queries, 1, False)
    return out


CONTEXT_ROUTE = "/context/{contact_id:path}"


def api_seconds(metrics_urls: list[str]) -> dict[str, float] | None:
    """The API processes' CPU seconds and requests served (by route), summed over them (projections/metrics.py);
    None when one cannot be read."""
    from ops.worker_metrics import samples

    got = samples(metrics_urls)
    if got is None:
        return None
    out: dict[str, float] = {CPU: 0.0, "requests": 0.0, "context": 0.0, "checkouts": 0.0, "statements": 0.0}
    for sample in got:
        if sample.name == "process_cpu_seconds_total":
            out[CPU] += sample.value
        elif sample.name in ("rapport_api_db_checkouts_total", "rapport_api_db_statements_total"):
            out[sample.name.split("_")[3]] += sample.value  # the reads' pool checkouts, statements sent
        elif sample.name == "rapport_ingested_total" and sample.labels.get("event_type") == "MemoriesAccessed" \
                and sample.labels.get("result") == "new":  # what /context gives the workers to fold
            out["accesses"] = out.get("accesses", 0.0) + sample.value
        elif sample.name == "rapport_api_card_rows_ahead_total":  # card rows read ahead: used, read again
            key = f"cards_{sample.labels.get('outcome')}"
            out[key] = out.get(key, 0.0) + sample.value
        elif sample.name == "rapport_request_seconds_count":
            out["requests"] += sample.value
            if sample.labels.get("route") == CONTEXT_ROUTE:
                out["context"] += sample.value
    return out


def api_cost(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """What the API processes spent between two readings: CPU seconds, requests (all routes, /context), and
    CPU per request: what a request costs the API whatever else the machine runs (latency is that times the
    queue in front of it, and the share of the cores the API gets)."""
    cpu, requests = after[CPU] - before[CPU], after["requests"] - before["requests"]
    return {"cpu_s": round(cpu, 2), "requests": int(requests), "context_requests": int(after["context"] - before["context"]),
            "cpu_ms_per_request": round(cpu * 1000 / requests, 3) if requests else None,
            **{f"{k}_per_request": round((after.get(k, 0.0) - before.get(k, 0.0)) / requests, 2) if requests else None
               for k in ("checkouts", "statements")},
            "cards_read_again": int(after.get("cards_read_again", 0) - before.get("cards_read_again", 0)),
            "cards_ahead_used": int(after.get("cards_used", 0) - before.get("cards_used", 0)),
            "access_events": int(after.get("accesses", 0) - before.get("accesses", 0))}


def _rate(label: str, value: Any, unit: str, rest: str) -> None:
    """One line of print_load's table: the label, the value right-aligned, its unit, then what it means."""
    print(f"{label:<20} {value:>10} {unit}   {rest}")


def _latency(v: dict[str, Any], *pcts: int) -> str:
    return ", ".join(f"p{p} {v[f'p{p}_ms']} ms" for p in pcts)


def print_load(r: dict[str, Any]) -> None:
    print(f"events: {r['events']} over {r['contacts']} contacts")
    _rate("ingest accepted", r["ingest"]["accepted_events_per_s"], "events/s",
          f"POST {_latency(r['ingest']['post_latency'], 50, 95)}")
    _rate("processed end to end", r["processing"]["end_to_end_events_per_s"], "events/s",
          f"({r['processing']['seconds']} s)")
    if r.get("transport"):
        t = r["transport"]
        _rate("bare transport", t["events_per_s"], "events/s", "(a Faust pass-through worker on the same broker); "
              f"the pipeline runs at {t['ratio']:.2f}x of it")
    if r.get("stages"):
        batch = {k: v for k, v in r["stages"].items() if k not in BACKGROUND_STAGES}
        total = sum(batch.values()) or 1.0
        print("worker time by stage (s, share): " + ", ".join(
            f"{k} {v:.2f} ({v / total:.0%})" for k, v in batch.items() if v >= 0.005) + "".join(
            f"; {k} {r['stages'][k]:.2f} beside them" for k in BACKGROUND_STAGES if r["stages"].get(k, 0) >= 0.005))
    if r.get("worker_cpu"):
        _rate("worker CPU", r["worker_cpu"]["ms_per_event"], "ms/event",
              f"({r['worker_cpu']['seconds']} s of CPU over the ingest and its processing)")
    if r.get("context_during_ingest"):
        v = r["context_during_ingest"]
        print(f"/context while ingesting, {v['clients']} clients: {_latency(v, 50, 95, 99)}, "
              f"{v['requests_per_s']} req/s")
    for key, when in (("api_during_ingest", "during the ingest"), ("api_after_ingest", "after it, 8 clients")):
        if r.get(key) and r[key]["requests"]:
            a = r[key]
            _rate("API CPU", a["cpu_ms_per_request"], "ms/request", f"{when}: {a['cpu_s']} s over {a['requests']} "
                  f"requests ({a['context_requests']} /context)")
            if a.get("statements_per_request"):
                _rate("API reads", a["statements_per_request"], "stmts/request", f"{when}: PostgreSQL statements "
                      f"the API's reads sent, on {a['checkouts_per_request']} pool connections a request; card "
                      f"rows read ahead used {a['cards_ahead_used']} times, read again {a['cards_read_again']}; "
                      f"{a['access_events']} MemoriesAccessed events recorded")
    if r.get("model_only"):
        m = r["model_only"]
        _rate("model alone", m["events_per_s"], "events/s", f"({m['distinct_texts']} distinct texts at "
              f"{m['texts_per_s']} texts/s); processed / model-only = {m['ratio']:.2f}")
        if "alone_events_per_s" in m:
            _rate("model, one text/call", m["alone_events_per_s"], "events/s", f"({m['alone_texts_per_s']} texts/s, "
                  f"as the worker embeds a message); processed / that = {m['alone_ratio']:.2f}")
        if "as_worker_events_per_s" in m:
            _rate("model, as the worker", m["as_worker_events_per_s"], "events/s", f"(the worker's calls: "
                  f"{m['as_worker_texts'][0]} user messages one a call, {m['as_worker_texts'][1]} other "
                  f"candidates' texts batched); processed / that = {m['as_worker_ratio']:.2f}")
    print(f"freshness            {_latency(r['freshness'], 50, 95, 99)}")
    for name, v in r["context"].items():
        print(f"/context {name:<20} {_latency(v, 50, 95, 99)}, {v['requests_per_s']} req/s")


CPU = "cpu"  # stage_seconds' key for the workers' process CPU seconds (not a stage)
# stages that run beside a worker's batches, not in them (agents/metrics.background)
BACKGROUND_STAGES = ("send", "scheduler")
STAGES = ("open", "dedup", "state", "plan", "model", "fold", "project", "commit", "redis", "publish", "send",
          "scheduler")


def stage_seconds(metrics_urls: list[str]) -> dict[str, float] | None:
    """rapport_stage_seconds of the workers (agents/metrics.py), summed over them; None when one cannot
    be read."""
    from ops.worker_metrics import samples

    got = samples(metrics_urls)
    if got is None:
        return None
    out: dict[str, float] = {}
    for sample in got:
        if sample.name == "rapport_stage_seconds_total":
            out[sample.labels["stage"]] = out.get(sample.labels["stage"], 0.0) + sample.value
        elif sample.name == "process_cpu_seconds_total":  # the workers' CPU, whatever else runs on the machine
            out[CPU] = out.get(CPU, 0.0) + sample.value
    return out


def breakdown(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """Seconds per stage between two readings of the workers' counters (a stage new in `after` counts
    from 0), in STAGES order, then any other."""
    names = [s for s in STAGES if s in after] + sorted(set(after) - set(STAGES))
    return {s: round(after[s] - before.get(s, 0.0), 3) for s in names}


def model_only_rate(texts: list[str], batch: int = 64) -> tuple[float, int]:
    """(texts per second, distinct texts) of the configured embedder over `texts`' distinct ones, in batches
    as the worker embeds a batch's candidates: what the model alone would take for this run."""
    from domain.embedder import default_embedder
    from streams.config import settings

    distinct = list(dict.fromkeys(texts))
    model = default_embedder(settings())
    model.embed(distinct[:8])  # loaded and warm before the clock
    t = time.perf_counter()
    for i in range(0, len(distinct), batch):
        model.embed(distinct[i:i + batch])
    return len(distinct) / (time.perf_counter() - t), len(distinct)


def model_alone_rate(texts: list[str], sample: int = 300) -> float:
    """Texts per second of the configured embedder called with one text at a time, as the worker embeds a
    user message (agents/pipeline.py `_embed_sync`: a vector that does not depend on its batch), over up to
    `sample` of `texts`' distinct ones."""
    from domain.embedder import default_embedder
    from streams.config import settings

    distinct = list(dict.fromkeys(texts))[:sample]
    model = default_embedder(settings())
    t = time.perf_counter()
    for text in distinct:
        model.embed([text])
    return len(distinct) / (time.perf_counter() - t)


def worker_model_texts(turns: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """What a worker's model embeds for these (role, message) turns (agents/pipeline.py `_embed_sync`), each
    distinct text once: (the user messages' texts, each in a model call of its own; the other texts of
    their candidate memories, which a batch embeds together). An assistant turn is not embedded."""
    from agents.core import contact as core
    from agents.core.memory import embedding_text
    from schemas import events as ev

    alone: dict[str, None] = {}
    batched: dict[str, None] = {}
    for i, (role, text) in enumerate(turns):
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_700_000_000 + i))
        e = ev.interaction(event_id=f"t{i}", tenant_id="bench", contact_id="c", occurred_at=at, recorded_at=at,
                           role=role, message=text)
        said = core.message_embedding_text(e)
        if said is not None:
            alone[said] = None
        batched.update(dict.fromkeys(embedding_text(m) for m in core.plan_memories(e)))
    return list(alone), [t for t in batched if t not in alone]


def model_as_worker_rate(alone: list[str], batched: list[str], batch: int = 64) -> float:
    """Seconds of the configured embedder over `alone` (each text in a call of its own, as the worker embeds
    a user message: embed_each) and `batched` (`batch` texts a call, as a batch's candidates)."""
    from domain.embedder import default_embedder, embed_each
    from streams.config import settings

    model = default_embedder(settings())
    model.embed(["warm up"])
    t = time.perf_counter()
    embed_each(model, alone)
    for i in range(0, len(batched), batch):
        model.embed(batched[i:i + batch])
    return time.perf_counter() - t


def load_main(url: str | None, contacts: int, events: int, queries: int, concurrency: int, workers: int,
              out: str | None, busy_clients: int = 0, distinct: bool = False,
              api_processes: int | None = None) -> dict[str, Any]:
    from ops.worker_metrics import metrics_urls

    dirs: list[Path] = []
    with target(url, workers, with_kafka=True, data_dirs=dirs, api_processes=api_processes) as (u, kafka_url, headers):
        urls = metrics_urls(dirs[0] if dirs else None)
        api_urls = metrics_urls(dirs[0] if dirs else None, "api")
        r = asyncio.run(run_load(u, contacts, events, queries, concurrency, headers=headers,
                                 stages=(lambda: stage_seconds(urls)) if urls else None, busy_clients=busy_clients,
                                 distinct=distinct, api=(lambda: api_seconds(api_urls)) if api_urls else None))
        if kafka_url:  # the same broker, the same number of events, after the pipeline's run
            from ops.bench_transport import transport_rate

            rate = transport_rate(kafka_url, r["events"])
            r["transport"] = {"events_per_s": round(rate, 1),
                              "ratio": round(r["processing"]["end_to_end_events_per_s"] / rate, 3)}
    texts = r.pop("texts")
    alone_texts, batched_texts = worker_model_texts(r.pop("turns"))
    worker_model_s = model_as_worker_rate(alone_texts, batched_texts)
    rate, distinct = model_only_rate(texts)  # the same texts, the model alone, after the stack's run
    events_per_s = rate * len(texts) / distinct
    alone = model_alone_rate(texts)
    alone_events_per_s = alone * len(texts) / distinct
    r["model_only"] = {"texts_per_s": round(rate, 1), "distinct_texts": distinct, "events_per_s": round(events_per_s, 1),
                       "ratio": round(r["processing"]["end_to_end_events_per_s"] / events_per_s, 3),
                       "alone_texts_per_s": round(alone, 1), "alone_events_per_s": round(alone_events_per_s, 1),
                       "alone_ratio": round(r["processing"]["end_to_end_events_per_s"] / alone_events_per_s, 3),
                       # the model's calls a worker makes for this run: its user messages alone, the rest
                       # of their candidates batched, no assistant turn (the two above embed every turn)
                       "as_worker_texts": [len(alone_texts), len(batched_texts)],
                       "as_worker_events_per_s": round(len(texts) / worker_model_s, 1),
                       "as_worker_ratio": round(r["processing"]["end_to_end_events_per_s"] * worker_model_s / len(texts), 3)}
    print_load(r)
    if out:
        Path(out).write_text(json.dumps(r, indent=2))
    return r
