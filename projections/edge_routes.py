"""The API's core routes: /healthz, POST /ingest, GET /context (and its assembly glue: build_context,
query_candidates), a contact's memories, triggers and export, its erasure, POST /payload and /metrics.
Thin: retrieval and ranking are projections/context.py and retrieval.py, the SQL projections/store.py,
the payload's packing projections/payload.py; the service is the request's app's (projections/deps.svc)."""
from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field

from agents.core.curation import exported, forgotten_messages
from domain.entities import find_mentions
from projections import auth, fence, metrics, pages
from projections import responses as out
from projections.context import (CARD_MIN_IMPORTANCE, assemble, entity_json, importance_then, iso,
                                 memory_detail_json, memory_histories, rank, refs_in_play, top_anchors)
from projections.deps import (MAX_INGEST_BODY, MAX_PAYLOAD_BODY, MAX_PERSONA_CHARS, MAX_QUERY_BYTES,
                               MEMORY_STATUSES, AfterParam, AsOfParam, BadParam, ContactIdPath, CursorParam, JSONBody,
                               MemoryStatusParam, PersonaParam, QueryParam, TenantParam, _bearer, answers, bad_param,
                               check_param, contact_now, contact_param, json_body, not_reflected, pages_position,
                               parse_as_of, principal, read_body, reflected, request_body, svc, tenant_of)
from projections import lexical
from projections.lexical import query_terms
from projections.payload import LIMITS, build_payload
from projections.retrieval import (NEIGHBOUR_ANCHORS, NEIGHBOUR_WIDTH, NEIGHBOUR_WITHIN_S, Timeline, asks_about_past,
                                   speakers_named, without_names)
from projections.service import KEYWORD_K, LAG_DEGRADED_AGE_S, LAG_DEGRADED_EVENTS, RETRY_AFTER_S
from schemas import events as ev
from schemas import validate
from schemas.envelope import format_time, new_event_id, now_utc
from streams import ingest as ingest_mod
from streams import outbox, shredding
from streams.config import loopback
from streams.webhooks import store as webhook_store

router = APIRouter()


def health_status(h: dict[str, Any], ready_once: bool, lag_events: int = LAG_DEGRADED_EVENTS,
                  lag_age_s: float = LAG_DEGRADED_AGE_S) -> tuple[str, bool, list[str], int]:
    """(status, degraded, reasons, HTTP status). Before the stack was first ready: 503 "starting".
    Once ready, 200 "ok" while healthy; 200 "degraded" (with the reasons) while it still answers
    but something is behind or impaired: a stalled cache, no live worker, a backlog; 503
    "unavailable" when the database or broker is gone (nothing can be served or accepted)."""
    reasons = []
    lag = h.get("lag") or {}
    if not h["cache"]:
        reasons.append("cache unreachable")
    if not h["workers"]:
        reasons.append("no live worker")
    if lag.get("events", 0) >= lag_events:
        reasons.append(f"{lag['events']} events unprocessed")
    if (lag.get("oldestAgeS") or 0) >= lag_age_s:
        reasons.append(f"oldest unprocessed event {lag['oldestAgeS']:.0f} s old")
    if h["ok"] and not reasons:
        return "ok", False, [], 200
    if not ready_once:
        return "starting", bool(reasons), reasons, 503
    if not (h["database"] and h["broker"]):
        return "unavailable", True, reasons + [k + " unreachable" for k in ("database", "broker") if not h[k]], 503
    return "degraded", True, reasons, 200


@router.get("/healthz", response_model=out.Health, responses={503: {"model": out.Health}})
async def healthz() -> JSONBody:
    h = await svc.health()
    problem = h.pop("databaseProblem", None)
    status, degraded, reasons, code = health_status(h, svc.ready_once, svc.settings.lag_degraded_events,
                                             svc.settings.lag_degraded_age_s)
    if problem and not h["database"]:
        reasons.append(problem)
    if h["ok"]:
        svc.ready_once = True
    return JSONBody({"status": status, "degraded": degraded, "reasons": reasons, **h}, status_code=code)


@router.post("/ingest", **answers(out.IngestAccepted, 202, {400: out.ErrorBody, 413: out.ErrorBody, 429: out.Backlogged}),
          **request_body(ingest_mod.ingest_body_schema()))
async def post_ingest(request: Request, p: auth.Principal = Depends(principal)) -> JSONBody:
    raw = await read_body(request, MAX_INGEST_BODY)
    try:
        envs = ingest_mod.parse_ingest_body(raw, lambda named, i: auth.tenant_for(p, named, f"{i}.tenant_id"))
    except ingest_mod.BadRequest as e:
        return JSONBody(e.body, status_code=e.status)
    # backpressure, atomic across requests and API processes (streams/outbox.py; README "Backpressure")
    admission = outbox.Admission(svc.settings.backlog_limit, await svc.store.schema(), svc.relay_cursor)
    try:
        fresh, dups = await ingest_mod.ingest(svc.pool, svc.publisher if svc.broker_ok else None, envs, admission)
    except outbox.Backlogged as b:
        return JSONBody({"error": "too many unprocessed events for this tenant; retry later",
                         "tenantId": b.tenant_id, "backlog": b.backlog, "limit": b.limit},
                        status_code=429, headers={"Retry-After": str(RETRY_AFTER_S)})
    svc.traces.remember((e.tenant_id, e.event_id) for e in envs)  # what /context?after= links to
    return JSONBody({"accepted": len(envs), "eventIds": [e.event_id for e in envs], "duplicates": dups},
                          status_code=202)


@router.get("/context/{contact_id:path}", **answers(out.Context, errors={400: out.ErrorBody, 504: out.NotReflected}))
async def get_context(contact_id: ContactIdPath, query: QueryParam = None, tenant_id: TenantParam = None,
                      persona_id: PersonaParam = None, budget: int | None = Query(None, ge=0, le=1_000_000),
                      as_of: AsOfParam = None, after: AfterParam = None,
                      p: auth.Principal = Depends(principal)) -> Response:
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    if query is not None and len(query.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES:
        raise BadParam(400, "query", f"at most {MAX_QUERY_BYTES} bytes of UTF-8")
    if persona_id is not None:  # a problem is text (it was `False` for a valid one: 400 on every persona)
        check_param("persona_id", persona_id, validate.check_name(persona_id) or (
            None if 1 <= len(persona_id) <= MAX_PERSONA_CHARS else f"must be 1-{MAX_PERSONA_CHARS} characters"))
    if after is not None:
        check_param("after", after, validate.check_id(after))
    at = parse_as_of(as_of)
    if after and not await reflected(tenant_id, after):
        return not_reflected(after)
    body = await build_context(tenant_id, contact_id, query=query, persona_id=persona_id, budget=budget, at=at,
                               fresh=after is not None)
    # an access happens in the contact's now (its event time, domain/clock.py), whatever earlier `as_of`
    # the caller evaluates at
    served = [m["id"] for m in body["memories"][:svc.settings.accessed_per_response]]
    if served:
        accessed = body["as_of"] if at is None else format_time(contact_now(await svc.store.contact(tenant_id,
                                                                                                  contact_id)))
        svc.accesses.record(tenant_id, contact_id, served, accessed)
    return JSONBody(body)


def entity_record(row: dict) -> dict:
    """A projected entity row in the shape domain/entities.py reads."""
    e = entity_json(row)
    e["metadata"] = {**e["metadata"], "aliases": list(row.get("aliases") or [])}
    return e


async def build_context(tenant_id: str, contact_id: str, *, query: str | None, persona_id: str | None,
                        budget: int | None, at: datetime | None, fresh: bool = False) -> dict:
    """The /context answer (also the memory part of /payload). With an explicit as_of the memories are
    those served then: retired since (compressed, pruned, ...) included, created later left out.
    `fresh` (a read with after=): nothing more to do, as every answer's session window is the projected
    state's, the snapshot the wait checked (Redis, which the worker refreshes only after its commit, could
    hold the window before the awaited event; no answer reads it)."""
    # the query embedding (CPU, in the embedder's thread) overlaps the reads that do not need it
    embedding = asyncio.ensure_future(svc.query_vector(query)) if query else None
    async with svc.store.reading():  # one connection for all its reads (Store.reading)
        return await _build_context(tenant_id, contact_id, query=query, persona_id=persona_id, budget=budget,
                                    at=at, embedding=embedding)


async def _build_context(tenant_id: str, contact_id: str, *, query: str | None, persona_id: str | None,
                         budget: int | None, at: datetime | None, embedding: asyncio.Future | None) -> dict:
    terms = query_terms(query) if query else []
    # the contact and the question's keyword searches in one round trip (Store.contact_and_searches)
    state, entities, speakers, found = await svc.store.contact_and_searches(
        tenant_id, contact_id, terms, keyword_searches(terms) if query else [], KEYWORD_K)
    named = speakers_named(query, speakers) if query else set()
    if named and embedding is not None:  # a question about what one of the speakers said: see retrieval.py
        embedding.add_done_callback(lambda f: f.cancelled() or f.exception())  # unused: its error is not news
        embedding = asyncio.ensure_future(svc.query_vector(without_names(query, named)))
    explicit_as_of = at is not None
    at = at if at is not None else contact_now(state)
    ranked: list = []
    card_rows: list[dict] = []
    matched: set[str] = set()
    keyword: dict[str, float] = {}
    if state is not None:
        where = dict(as_of=at, persona_id=persona_id, explicit_as_of=explicit_as_of, past=asks_about_past(query))
        scope = "tenant" if contact_id == ev.TENANT_CONTACT else "contact"  # seed 002's weights for the business
        ahead = None
        if query:
            candidates, keyword, neighbours, matched, ahead = await query_candidates(
                tenant_id, contact_id, state, entities, query, embedding, where, found)
        else:
            candidates, neighbours = await svc.store.candidates(
                tenant_id, contact_id, query_vec=None, model=svc.embedder.model_name, **where), []
        ranked = rank(candidates, at, scope=scope, keyword=keyword, matched_refs=matched, has_query=bool(query),
                      neighbours=neighbours, speakers=named)
        refs = refs_in_play(ranked, matched)
        if ahead is not None and ahead[0].issuperset(refs):  # read with the neighbours: the rows of these refs
            metrics.CARD_ROWS_AHEAD.labels("used").inc()
            wanted = set(refs)  # the statement's rows of fewer refs: a subsequence, in its order
            rows = [r for r in ahead[1] if wanted.intersection(r["entity_refs"] or ())]
        else:
            if ahead is not None:
                metrics.CARD_ROWS_AHEAD.labels("read_again").inc()
            rows = await svc.store.card_memories(tenant_id, contact_id, refs, at, persona_id, CARD_MIN_IMPORTANCE,
                                                 explicit_as_of)
        card_rows = [r for r in rows if r["pinned"] or importance_then(r, at) >= CARD_MIN_IMPORTANCE]
    elif embedding is not None:
        await embedding
    # the session window from the state just read: the one the worker also writes to Redis (after this
    # row, so never newer), and of the snapshot the memories are read in; a Redis read was one more
    # round trip per answer (issue 24)
    history = list((state or {}).get("window") or [])
    body = assemble(contact_id=contact_id, state=state, ranked=ranked, as_of=at, budget=budget, history=history,
                    count_tokens=svc.count_tokens, card_rows=card_rows, entities=entities, matched_refs=matched,
                    persona_id=persona_id, query=query)
    body["as_of"] = format_time(at)
    return body


async def query_candidates(tenant_id: str, contact_id: str, state: dict, entities: list[dict], query: str,
                           embedding: asyncio.Future, where: dict[str, Any],
                           found: list[dict[str, float] | None] | None = None
                           ) -> tuple[list[dict], dict[str, float], list[dict], set[str],
                                      tuple[set[str], list[dict]] | None]:
    """(candidates, BM25 scores, neighbour rows, entities the query names, card rows read ahead) for a
    question: the keyword search runs on the projection's postings while the query is embedded (or was
    read with the contact: `found`, keyword_search's); then one query fetches the vector, keyword and
    entity candidates, and another the neighbours of the most relevant, sent together with the card
    memories (Store.card_memories) of the refs the answer most likely puts on cards (card_refs_ahead):
    (those refs, their rows), or None."""
    keywords = asyncio.ensure_future(keyword_search(tenant_id, contact_id, state, query_terms(query), found))
    matched = set(find_mentions(query, {e["ref"]: entity_record(e) for e in entities}))
    query_vec = await embedding
    model = svc.embedder.model_name
    keyword, timeline = await keywords
    candidates = await svc.store.candidates(tenant_id, contact_id, query_vec=query_vec, model=model,
                                            entity_refs=sorted(matched), ids=list(keyword), **where)
    anchors = top_anchors(candidates, keyword, NEIGHBOUR_ANCHORS)
    if timeline is None:
        statements = []
        if anchors:
            statements.append((*await svc.store.neighbours_statement(
                tenant_id, contact_id, anchors, NEIGHBOUR_WITHIN_S, NEIGHBOUR_WIDTH, query_vec=query_vec, model=model,
                **where), None))
        refs = card_refs_ahead(candidates, keyword, matched)
        if refs:
            statements.append((*await svc.store.card_statement(
                tenant_id, contact_id, sorted(refs), where["as_of"], where["persona_id"], CARD_MIN_IMPORTANCE,
                where["explicit_as_of"]), None))
        got = await svc.store.pipelined(statements) if statements else []
        neighbours = got.pop(0) if anchors else []
        return candidates, keyword, neighbours, matched, (refs, got[0] if refs else [])
    near = timeline.around(anchors, NEIGHBOUR_WITHIN_S)
    rows = {r["id"]: r for r in await svc.store.retrievable_by_id(
        tenant_id, contact_id, list({n for n, _ in near}), query_vec=query_vec, model=model, **where)}
    return candidates, keyword, [{**rows[n], "anchor": a} for n, a in near if n in rows], matched, None


CARD_REFS_AHEAD = 20  # the most relevant candidates whose entities' card memories are read with the neighbours


def card_refs_ahead(candidates: list[dict], keyword: dict[str, float], matched: set[str]) -> set[str]:
    """The entities an answer most likely puts on cards (context.refs_in_play: those the question names and
    those of its ten best-ranked memories): the named ones and those of the CARD_REFS_AHEAD most relevant
    candidates. Their card memories are read with the neighbours, in the same round trip; when the ranked
    answer names another, the cards are read again for its own refs."""
    of = {r["id"]: r["entity_refs"] or () for r in candidates}
    return set(matched).union(*(of[mid] for mid in top_anchors(candidates, keyword, CARD_REFS_AHEAD)))


def keyword_searches(terms: list[str]) -> list[list[str]]:
    """The keyword searches a question's terms make: the terms, and their other forms ("camping" for
    "camped"), a search of their own (lexical.with_forms)."""
    forms = lexical.other_forms(terms) if lexical.VARIANT_SHARE > 0 else []
    return [terms, forms] if forms else [terms]


async def keyword_search(tenant_id: str, contact_id: str, state: dict, terms: list[str],
                         done: list[dict[str, float] | None] | None = None
                         ) -> tuple[dict[str, float], Timeline | None]:
    """BM25 scores (with feedback) of the contact's best KEYWORD_K keyword matches, from the postings the
    projector keeps (`done`: the Store.keyword_search results of keyword_searches(terms), already read);
    for a contact whose memories predate them, from an index built of their texts (cached while its state
    stays), with the timeline that index's build reads too."""
    searches = keyword_searches(terms)
    forms = searches[1] if len(searches) > 1 else []
    if done is None or len(done) != len(searches):
        done = await asyncio.gather(*(svc.store.keyword_search(tenant_id, contact_id, t, KEYWORD_K) for t in searches))
    found, *other = done
    if found is not None:
        return lexical.with_forms(found, other[0] if other and other[0] else {}), None
    bm25, timeline = await svc.contact_index(tenant_id, contact_id,
                                             (state.get("firstSeen"), state.get("memoryVersion", 0)))
    return lexical.with_forms(bm25.search(terms, KEYWORD_K), bm25.search(forms, KEYWORD_K) if forms else {}), timeline


@router.get("/contacts/{contact_id:path}/memories", **answers(out.MemoryList, errors={400: out.ErrorBody}))
async def get_memories(contact_id: ContactIdPath, tenant_id: TenantParam = None, status: MemoryStatusParam = None,
                       limit: int | None = Query(None, ge=1, le=200, description="a page of at most this many "
                                                 "(with `limit` or `cursor`: pages of 50 by default)"),
                       cursor: CursorParam = None, p: auth.Principal = Depends(principal)) -> Response:
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    if status is not None and status not in MEMORY_STATUSES:
        return bad_param("status", "one of " + ", ".join(MEMORY_STATUSES))
    next_cursor = None
    if limit is None and cursor is None:  # every memory, as before pages existed
        rows = await svc.store.memories(tenant_id, contact_id, status)
    else:  # a page: oldest first, after the cursor's (created_at, id); bound to contact and status
        scope, size = f"{contact_id}\n{status or ''}", limit or 50
        rows = await svc.store.memories_page(tenant_id, contact_id, status, size + 1,
                                             pages_position(cursor, "memories", tenant_id, scope))
        if len(rows) > size:
            rows = rows[:size]
            next_cursor = pages.encode_cursor("memories", tenant_id, scope, rows[-1]["created_at"], rows[-1]["id"])
    # importance in the contact's now: decayed since last use (domain/decay.py)
    now = contact_now(await svc.store.contact(tenant_id, contact_id))
    return JSONBody({"contactId": contact_id, "tenantId": tenant_id, "nextCursor": next_cursor,
                     "memories": [memory_detail_json({**r, "importance": importance_then(r, now)}, now) for r in rows]})


@router.delete("/contacts/{contact_id:path}", **answers(out.Erasure, 202, {400: out.ErrorBody}))
async def delete_contact(contact_id: ContactIdPath, tenant_id: TenantParam = None,
                         p: auth.Principal = Depends(principal)) -> JSONBody:
    """Right to erasure: a ContactErased event, ordered after the contact's earlier events; its
    processing removes every projection row, cache key and ledger row of the contact."""
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    now = format_time(now_utc())
    env = ev.contact_erased(event_id=new_event_id(), tenant_id=tenant_id, contact_id=contact_id, at=now)
    svc.accesses.forget(tenant_id, contact_id)  # what /context served of it is not published after the erasure
    await ingest_mod.ingest(svc.pool, svc.publisher if svc.broker_ok else None, [env])
    async with svc.pool.connection() as conn:  # what the contact sends from now on gets a new key
        await shredding.forget_keys_before(conn, tenant_id, contact_id, env.event_id)
        await webhook_store.forget_contact(conn, tenant_id, contact_id)  # its webhook deliveries, unsent
    return JSONBody({"accepted": True, "erasureEventId": env.event_id}, status_code=202)


class PayloadRequest(BaseModel):
    """The body of POST /payload: its fields' types carry the edge's rules and declare them in the
    OpenAPI document (schemas/validate.py); an unknown property is refused (additionalProperties: false)."""
    model_config = ConfigDict(extra="forbid")
    contact_id: validate.ContactId
    message: validate.Text(max_chars=16 * 1024)
    tenant_id: validate.Id | None = None  # None: the key's
    persona_id: validate.Name(256) | None = None
    system_prompt: validate.Text(max_chars=64 * 1024) | None = None
    service_data: Any = Field(default=None, description=f"any JSON, at most {validate.MAX_JSON_DEPTH} levels deep")
    tools: list[dict[str, Any]] | None = None
    # read-your-writes, as GET /context's: an event_id to wait for (up to 5 s; 504 if not reflected)
    after: validate.Id | None = None


@router.post("/payload", **answers(out.Payload, errors={400: out.ErrorBody, 413: out.ErrorBody, 504: out.NotReflected}),
          **request_body(PayloadRequest.model_json_schema()))
async def post_payload(request: Request, p: auth.Principal = Depends(principal)) -> JSONBody:
    """An LLM chat payload built with the AI Brain's section budgets and overflow rules (seed 002 §6)."""
    req = await json_body(request, MAX_PAYLOAD_BODY, PayloadRequest, "payload request")
    tenant_id = auth.tenant_for(p, req.tenant_id)
    if req.after and not await reflected(tenant_id, req.after):
        return not_reflected(req.after)
    ctx = await build_context(tenant_id, req.contact_id, query=req.message, persona_id=req.persona_id,
                              budget=LIMITS["memories"], at=None, fresh=req.after is not None)
    svc.accesses.record(tenant_id, req.contact_id,
                        [m["id"] for m in ctx["memories"][:svc.settings.accessed_per_response]], ctx["as_of"])
    tenant = await build_context(tenant_id, ev.TENANT_CONTACT, query=req.message, persona_id=None,
                                 budget=LIMITS["tenant_profile"], at=None)
    profile = "\n".join(f"- [{m['memoryType']}] {fence.inline(m['content'])}" for m in tenant["memories"]) or None
    # token counting and packing are CPU work: off the event loop, so /healthz and others keep answering
    return JSONBody(await asyncio.to_thread(
        build_payload, message=req.message, system_prompt=req.system_prompt, tenant_profile=profile,
        context_text=ctx["context_text"], memories=ctx["memories"], service_data=req.service_data,
        history=ctx["history"], tools=req.tools, count=svc.count_tokens))


def trigger_json(t: dict) -> dict:
    return {"id": t["id"], "kind": t["kind"], "dueAt": iso(t["due_at"]), "reason": t["reason"], "status": t["status"],
            "severity": t["severity"], "humanReview": t["human_review"], "sourceEventIds": t["source_event_ids"],
            "createdAt": iso(t["created_at"]), **(t["details"] or {})}


@router.get("/contacts/{contact_id:path}/triggers", **answers(out.TriggerList, errors={400: out.ErrorBody}))
async def get_triggers(contact_id: ContactIdPath, tenant_id: TenantParam = None,
                       p: auth.Principal = Depends(principal)) -> Response:
    """Check-ins, crisis flags and owner insights, with due time, reason and source events."""
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    rows = await svc.store.triggers(tenant_id, contact_id)
    return JSONBody({"contactId": contact_id, "tenantId": tenant_id, "triggers": [trigger_json(t) for t in rows]})


@router.get("/contacts/{contact_id:path}/export", **answers(out.Export, errors={400: out.ErrorBody}))
async def export_contact(contact_id: ContactIdPath, tenant_id: TenantParam = None,
                         p: auth.Principal = Depends(principal)) -> Response:
    """Everything held about the contact (GDPR export): state, memories with their event history,
    entities, sessions, triggers and the ledger's messages."""
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    rows = await svc.store.export(tenant_id, contact_id)
    history = memory_histories(rows.get("events", []))
    # what was forgotten is listed without its text (agents/core/curation.py)
    state = rows["contact"][0]["state"] if rows["contact"] else None
    hidden = forgotten_messages(state)
    return JSONBody({
        "contactId": contact_id, "tenantId": tenant_id, "exportedAt": format_time(now_utc()),
        "state": rows["contact"][0]["state"] if rows["contact"] else None,
        "memories": [{**memory_detail_json(m), "history": history.get(m["id"], [])} for m in rows.get("memories", [])],
        "entities": [{**entity_json(e), "aliases": e["aliases"], "firstSeen": iso(e["first_seen"]),
                      "lastSeen": iso(e["last_seen"]), "mentions": e["mentions"]} for e in rows.get("entities", [])],
        "sessions": [{k: iso(v) for k, v in s.items()} for s in rows.get("sessions", [])],
        "triggers": [trigger_json(t) for t in rows.get("triggers", [])],
        "messages": [{"eventId": r["event_id"], "eventType": r["event_type"], "occurredAt": iso(r["occurred_at"]),
                      "recordedAt": iso(r["recorded_at"]),
                      **exported(r["event_id"], r["event_type"], r["payload"] or {}, state, hidden)}
                     for r in rows.get("ledger", [])],
    })


@router.get("/metrics", response_class=Response,
         responses={200: {"content": {CONTENT_TYPE_LATEST: {}}, "description": "Prometheus text format"},
                    403: {"model": out.ErrorBody}})
async def get_metrics(cred: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> Response:
    """Open when the API listens on loopback only; otherwise an admin key (the numbers span tenants)."""
    if not loopback(svc.s.http_host) and not (await principal(cred)).admin:
        raise BadParam(403, "Authorization", "an admin key: the API listens beyond loopback", "forbidden")
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
