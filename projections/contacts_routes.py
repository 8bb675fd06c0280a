"""The read routes the console pages and charts with (issue 26): `GET /contacts` (a tenant's contacts, a
page at a time), `GET /contacts/{id}/timeline` (the mood and energy timeline with its pattern spans),
`GET /tenants` (which tenants the key may open), and the console itself (`GET /console`: static files, public; every datum comes from the keyed routes).

An APIRouter: projections/api.create_app mounts it; what it shares comes from projections/deps.py. Thin: the cursors and
spans are projections/pages.py, the SQL projections/store.py, the answers' shapes projections/responses.py."""
from __future__ import annotations

from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response

from projections import auth, pages
from projections import responses as out
from projections.deps import (BadParam, ContactIdPath, CursorParam, JSONBody, TenantParam, answers, contact_now,
                             contact_param, declared, pages_position, principal, svc, tenant_of)
from projections.context import contact_state_json, iso
from schemas import validate

router = APIRouter()

MAX_PAGE = 200
DEFAULT_PAGE = 50
MAX_Q_CHARS = 128
SORTS = ("last_seen", "contact_id")
MAX_MOODS = 5000
DEFAULT_MOODS = 1000
MAX_TENANTS = 1000

SearchParam = Annotated[declared(validate.name_schema(MAX_Q_CHARS, min_chars=1),
                                 "a substring of the contact id or display name (any case)") | None, Query()]
SortParam = Annotated[declared({"enum": list(SORTS)}, "last_seen (newest activity first, the default) or contact_id") | None, Query()]


def contact_summary(row: dict[str, Any]) -> dict[str, Any]:
    state = {k: v for k, v in (row["state"] or {}).items() if v is not None}
    state.setdefault("sessionCount", row["session_count"] or 0)
    stage = contact_state_json(state, contact_now(state))["relationshipStage"]
    return {"contactId": row["contact_id"], "displayName": row["display_name"], "channel": row["channel"],
            "lastSeenAt": iso(row["last_seen"]), "firstSeenAt": iso(row["first_seen"]), "relationshipStage": stage,
            "memoryCount": row["memory_count"], "messageCount": row["message_count"],
            "sessionCount": row["session_count"], "mood": row["mood"]}


@router.get("/contacts", **answers(out.ContactList, errors={400: out.ErrorBody}))
async def list_contacts(tenant_id: TenantParam = None, q: SearchParam = None, sort: SortParam = None,
                        limit: int = Query(DEFAULT_PAGE, ge=1, le=MAX_PAGE), cursor: CursorParam = None,
                        p: auth.Principal = Depends(principal)) -> JSONBody:
    """The tenant's contacts, newest activity first (or by id), a page at a time: pass `nextCursor` back
    as `cursor` until it is null. A contact that writes while a client pages moves to the top, before
    the client's cursor: no row is repeated."""
    tenant_id = tenant_of(p, tenant_id)
    sort = sort or "last_seen"
    if sort not in SORTS:
        raise BadParam(400, "sort", "one of " + ", ".join(SORTS))
    if q is not None:
        problem = validate.check_name(q) or (None if 1 <= len(q) <= MAX_Q_CHARS else f"1-{MAX_Q_CHARS} characters")
        if problem:
            raise BadParam(400, "q", problem)
    after = pages_position(cursor, "contacts", tenant_id, sort)
    rows = await svc.store.contacts_page(tenant_id, sort=sort, limit=limit + 1, after=after, q=q)
    more, rows = len(rows) > limit, rows[:limit]
    last = rows[-1] if rows else None
    next_cursor = (pages.encode_cursor("contacts", tenant_id, sort, last["last_seen"], last["contact_id"])
                   if more and last else None)
    return JSONBody({"tenantId": tenant_id, "contacts": [contact_summary(r) for r in rows], "nextCursor": next_cursor})


@router.get("/tenants", **answers(out.TenantList))
async def list_tenants(p: auth.Principal = Depends(principal)) -> JSONBody:
    """Which tenants this key may open: for an admin key every tenant that has contacts, else its own."""
    rows = await svc.store.tenants(None if p.admin else p.tenant_id, MAX_TENANTS)
    counts = {r["tenant_id"]: r["contacts"] for r in rows}
    if not p.admin:
        counts.setdefault(p.tenant_id, 0)
    return JSONBody({"tenantId": p.tenant_id, "admin": p.admin,
                     "tenants": [{"tenantId": t, "contacts": n} for t, n in sorted(counts.items())]})


@router.get("/contacts/{contact_id:path}/timeline", **answers(out.Timeline, errors={400: out.ErrorBody}))
async def get_timeline(contact_id: ContactIdPath, tenant_id: TenantParam = None,
                       limit: int = Query(DEFAULT_MOODS, ge=1, le=MAX_MOODS),
                       p: auth.Principal = Depends(principal)) -> JSONBody:
    """The contact's mood and energy, message by message (the last `limit`), and the spans to mark on
    them: difficult periods (runs of negative moods) and the episodes each pattern memory took in."""
    contact_id, tenant_id = contact_param(contact_id), tenant_of(p, tenant_id)
    moods = await svc.store.mood_log(tenant_id, contact_id, limit + 1)
    truncated, moods = len(moods) > limit, moods[-limit:]
    spans = pages.difficult_periods(moods) + [
        {"kind": "pattern", "start": r["start"], "end": r["end"], "label": r["content"], "count": r["count"],
         "memoryId": r["id"]} for r in await svc.store.pattern_spans(tenant_id, contact_id)]
    spans.sort(key=lambda s: (s["start"], s["kind"]))
    return JSONBody({"contactId": contact_id, "tenantId": tenant_id, "truncated": truncated,
                     "spans": [{**s, "start": iso(s["start"]), "end": iso(s["end"])} for s in spans],
                     "moods": [{"at": iso(m["at"]), "mood": m["mood"], "energy": m["energy"], "style": m["style"],
                                "confidence": m["confidence"], "unusual": m["unusual"], "source": m["source"],
                                "sourceEventId": m["source_id"]} for m in moods]})


# ----------------------------------------------------------------------------------------- console
# The console's files are package data (projections/console/); served as they are, with a policy that
# lets the page run its own scripts and styles and talk to this origin only: no inline script, no
# other origin, no frames. The key lives in the tab's sessionStorage and goes out as a bearer header,
# never as a cookie, so there is no cross-site request to forge.
CONSOLE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
               "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
CONSOLE_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}


def console_files() -> dict[str, tuple[bytes, str]]:
    """name -> (bytes, content type) of every console file (read once)."""
    root = resources.files("projections") / "console"
    return {f.name: (f.read_bytes(), CONSOLE_TYPES[ext]) for f in root.iterdir()
            if (ext := "." + f.name.rsplit(".", 1)[-1]) in CONSOLE_TYPES}


CONSOLE = console_files()
CONSOLE_HEADERS = {"Content-Security-Policy": CONSOLE_CSP, "X-Content-Type-Options": "nosniff",
                   "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"}


def console_file(name: str) -> Response:
    found = CONSOLE.get(name)
    if found is None:
        return JSONBody({"error": "no such console file"}, status_code=404)
    body, media = found
    return Response(body, media_type=media, headers=CONSOLE_HEADERS)


@router.get("/console", include_in_schema=False)
async def console_page() -> Response:
    """The web console (CONTRACT.md): a page that asks for a key and reads the keyed routes with it."""
    return console_file("index.html")


@router.get("/console/{name}", include_in_schema=False)
async def console_asset(name: str) -> Response:
    return console_file(name)
