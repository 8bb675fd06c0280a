"""The API's memory curation routes (README "Correcting and forgetting memories"): one memory with its
history, a correction, a forgetting. Thin: the rules are agents/core/curation.py (in the fold), the
events schemas/events.py; a correction or a forgetting is recorded like any source event (the ledger,
then the topic: streams/ingest.py), so a 202 is never lost and a replay applies it again.

An APIRouter: projections/api.create_app mounts it ahead of `DELETE /contacts/{contact_id:path}`
(projections/edge_routes.py), whose path template would otherwise take `DELETE /contacts/c/memories/m`
for an erasure of contact "c/memories/m"."""
from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from projections import auth
from projections import responses as out
from projections.deps import (AfterParam, ContactIdPath, JSONBody, TenantParam, answers, check_param,
                             contact_now, contact_param, declared, error, json_body, not_reflected, principal,
                             reflected, request_body, svc, tenant_of)
from projections.context import importance_then, iso, memory_detail_json
from projections.store import MEMORY_COLUMNS
from schemas import events as ev
from schemas import validate
from schemas.envelope import format_time, new_event_id
from streams import ingest as ingest_mod

router = APIRouter()

MAX_BODY = 64 * 1024  # content (16 KiB of UTF-8, up to 4 bytes a character escaped as \\uXXXX pairs) and the rest

MemoryIdPath = Annotated[declared(validate.id_schema(), "a memory's id, as GET /contacts/{id}/memories lists it"),
                         Path()]


# what JSON Schema's (ECMA-262) \s matches: a text made only of these is blank (refused); the control
# characters among them, and those Python also counts as space, are refused as control characters anyway
SPACE_CHARS = "\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_BLANK = re.compile(f"[{SPACE_CHARS}]*")
# message text (schemas/validate.TEXT_PATTERN) with at least one character that is neither space nor control
CONTENT_PATTERN = (f"^[^{validate.CONTROL_IN_TEXT_CHARS}]*[^{SPACE_CHARS}{validate.CONTROL_IN_TEXT_CHARS}]"
                   f"[^{validate.CONTROL_IN_TEXT_CHARS}]*$")


def blank(value: str) -> str | None:
    return "must not be blank" if _BLANK.fullmatch(value) else None


Content = Annotated[str, validate.checked(lambda v: None if len(v.encode("utf-8", "surrogatepass")) <= ev.MAX_MESSAGE_BYTES
                                          else f"at most {ev.MAX_MESSAGE_BYTES} bytes of UTF-8"),
                    validate.checked(validate.check_text), validate.checked(blank),
                    validate.Declared.of(validate.utf8_schema(ev.MAX_MESSAGE_BYTES, CONTENT_PATTERN))]


class CorrectionRequest(BaseModel):
    """The body of PATCH /contacts/{id}/memories/{memoryId}: at least one of the fields to change (none
    may be null)."""
    model_config = ConfigDict(extra="forbid", json_schema_extra={  # at least one change
        "allOf": [{"anyOf": [{"required": [f]} for f in ev.CORRECTION_FIELDS]}]})
    content: Content = Field(None, description=f"the memory's new text (at most {ev.MAX_MESSAGE_BYTES} bytes of "
                                               f"UTF-8, not blank)")  # type: ignore[assignment]
    memoryType: Annotated[str, validate.Declared.of({"enum": list(ev.MEMORY_TYPE_NAMES)})] = None  # type: ignore
    importance: float = Field(None, ge=0.0, le=1.0)  # type: ignore[assignment]
    pinned: bool = None  # type: ignore[assignment]
    tenant_id: validate.Id | None = Field(default=None, description="default: the key's tenant (another only "
                                                                     "with an admin key)")



def correction_schema() -> dict[str, Any]:
    """CorrectionRequest's schema without the `default: null` of the fields it may leave out: null is no
    value of theirs (422), only leaving them out is."""
    schema = CorrectionRequest.model_json_schema()
    for prop in schema["properties"].values():
        if prop.get("default", 0) is None and "anyOf" not in prop:
            prop.pop("default")
    return schema


def memory_param(memory_id: str) -> str:
    check_param("memory_id", memory_id, validate.check_id(memory_id))
    return memory_id


def no_such_memory(memory_id: str) -> JSONBody:
    return error(404, "no such memory", memory_id=memory_id,
                 errors=[{"field": "memory_id", "problem": "the contact has no memory of this id (or it was forgotten)"}])


async def memory_row(tenant_id: str, contact_id: str, memory_id: str) -> dict[str, Any] | None:
    s = await svc.store.schema()
    async with svc.pool.connection() as conn:
        cur = await conn.execute(f"SELECT {MEMORY_COLUMNS}, content_hash FROM {s}.memories "
                                 f"WHERE tenant_id=%s AND contact_id=%s AND id=%s", (tenant_id, contact_id, memory_id))
        return await cur.fetchone()


# the derived events about one memory (as context.memory_histories reads them, and those that name it
# as the memory merged into, or as an episode a pattern took in)
HISTORY_SQL = (
    "SELECT event_id, event_type, occurred_at, causation_id, payload FROM {s}.events "
    "WHERE tenant_id=%(t)s AND contact_id=%(c)s AND (payload->>'memoryId' = %(m)s OR payload->'memory'->>'id' = %(m)s "
    "OR payload->'memoryIds' ? %(m)s OR payload->>'into' = %(m)s OR payload->'pattern'->>'id' = %(m)s "
    "OR payload->'episodeIds' ? %(m)s) ORDER BY occurred_at, event_id")
KINDS = {ev.EPISODES_COMPRESSED: "compressed", ev.PATTERN_RELABELLED: "relabelled"}


def history_entry(row: dict[str, Any], memory_id: str) -> dict[str, Any]:
    et, p = row["event_type"], row["payload"] or {}
    kind = KINDS.get(et) or (et[len("Memory"):] if et.startswith("Memory") else et).lower()
    content = None
    if et == ev.MEMORY_EXTRACTED:
        content = (p.get("memory") or {}).get("content")
    elif et in (ev.MEMORY_CORRECTED, ev.PATTERN_RELABELLED):
        content = p.get("content")
    elif et == ev.EPISODES_COMPRESSED and (p.get("pattern") or {}).get("id") == memory_id:
        content = p["pattern"].get("content")
    if et == ev.MEMORY_MERGED and p.get("into") == memory_id:
        kind = "absorbed"  # another memory merged into this one
    return {"event_id": row["event_id"], "kind": kind, "content": content, "at": p.get("at") or iso(row["occurred_at"]),
            "eventType": et, "causationId": row["causation_id"]}


async def memory_history(tenant_id: str, contact_id: str, memory_id: str) -> list[dict[str, Any]]:
    s = await svc.store.schema()
    async with svc.pool.connection() as conn:
        cur = await conn.execute(HISTORY_SQL.format(s=s), {"t": tenant_id, "c": contact_id, "m": memory_id})
        return [history_entry(r, memory_id) for r in await cur.fetchall()]


@router.get("/contacts/{contact_id:path}/memories/{memory_id}",
         **answers(out.MemoryWithHistory, errors={400: out.ErrorBody, 404: out.NoSuchMemory, 504: out.NotReflected}))
async def get_memory(contact_id: ContactIdPath, memory_id: MemoryIdPath, tenant_id: TenantParam = None,
                     after: AfterParam = None, p: auth.Principal = Depends(principal)) -> JSONBody:
    """One memory, as GET /contacts/{id}/memories lists it, with its history: every derived event about
    it, oldest first, and the text it had from each one that changed it. `after`: an event id (a
    correction's, a message's) to wait for, up to 5 s (504 if it is not reflected)."""
    contact_id, tenant_id, memory_id = contact_param(contact_id), tenant_of(p, tenant_id), memory_param(memory_id)
    if after is not None:
        check_param("after", after, validate.check_id(after))
        if not await reflected(tenant_id, after):
            return not_reflected(after)
    row = await memory_row(tenant_id, contact_id, memory_id)
    if row is None:
        return no_such_memory(memory_id)
    now = contact_now(await svc.store.contact(tenant_id, contact_id))
    return JSONBody({**memory_detail_json({**row, "importance": importance_then(row, now)}, now),
                     "contactId": contact_id, "tenantId": tenant_id,
                     "history": await memory_history(tenant_id, contact_id, memory_id)})


@router.patch("/contacts/{contact_id:path}/memories/{memory_id}",
           **answers(out.CurationAccepted, 202, {400: out.ErrorBody, 404: out.NoSuchMemory, 413: out.ErrorBody}),
           **request_body(correction_schema()))
async def correct_memory(request: Request, contact_id: ContactIdPath, memory_id: MemoryIdPath,
                         tenant_id: TenantParam = None, p: auth.Principal = Depends(principal)) -> JSONBody:
    """Correct a memory: its content (and/or type, importance, pin). Recorded as an event; once applied
    every reader sees the corrected memory, its old text stays in its history, and extraction does not
    bring the old text back (README "Correcting and forgetting memories"). The tenant: `tenant_id` in the
    query, as GET and DELETE of this route take it, or in the body (422 when both name different ones)."""
    contact_id, memory_id = contact_param(contact_id), memory_param(memory_id)
    if tenant_id is not None:
        check_param("tenant_id", tenant_id, validate.check_id(tenant_id))  # 400, as the other routes
    req = await json_body(request, MAX_BODY, CorrectionRequest, "correction")
    changes = req.model_dump(exclude={"tenant_id"}, exclude_none=True)
    problems = ev.correction_errors({"memoryId": memory_id, **changes})
    if tenant_id is not None and req.tenant_id is not None and req.tenant_id != tenant_id:
        problems = [*problems, ("tenant_id", f"names tenant {req.tenant_id!r} but the query's tenant_id names "
                                             f"{tenant_id!r}: name it once, or the same in both")]
    if problems:
        return error(422, "invalid correction", errors=[{"field": f, "problem": why} for f, why in problems])
    tenant_id = tenant_of(p, tenant_id if tenant_id is not None else req.tenant_id)
    row = await memory_row(tenant_id, contact_id, memory_id)
    if row is None:
        return no_such_memory(memory_id)
    return await _request(ev.memory_correction_requested, tenant_id, contact_id, memory_id, changes=changes,
                          previous_content_hash=row["content_hash"], speaker=row["speaker"])


async def _request(make: Any, tenant_id: str, contact_id: str, memory_id: str, **fields: Any) -> JSONBody:
    """A curation request recorded as an event at the contact's now (ledger, then topic): 202 with its id."""
    state = await svc.store.contact(tenant_id, contact_id)
    env = make(event_id=new_event_id(), tenant_id=tenant_id, contact_id=contact_id, memory_id=memory_id,
               at=format_time(contact_now(state)), **fields)
    await ingest_mod.ingest(svc.pool, svc.publisher if svc.broker_ok else None, [env])
    return JSONBody({"eventId": env.event_id, "memoryId": memory_id}, status_code=202)


@router.delete("/contacts/{contact_id:path}/memories/{memory_id}",
            **answers(out.CurationAccepted, 202, {400: out.ErrorBody, 404: out.NoSuchMemory}))
async def forget_memory(contact_id: ContactIdPath, memory_id: MemoryIdPath, tenant_id: TenantParam = None,
                        p: auth.Principal = Depends(principal)) -> JSONBody:
    """Forget a memory: recorded as an event; once applied its content is shredded (its row, keyword
    postings, history, unpublished events and unsent webhook deliveries) and it is gone from every route
    and the export; extraction does not bring it back from the messages it came from."""
    contact_id, tenant_id, memory_id = contact_param(contact_id), tenant_of(p, tenant_id), memory_param(memory_id)
    row = await memory_row(tenant_id, contact_id, memory_id)
    if row is None:
        return no_such_memory(memory_id)
    return await _request(ev.memory_forget_requested, tenant_id, contact_id, memory_id,
                          source_event_ids=list(row["source_event_ids"] or []))
