"""Due work: which contacts' deferred/periodic work the wall clock has reached, as ContactTick events.

The Faust timer (agents/app_agents.py) sends what `due_ticks` returns; this module only reads. A
contact whose stored due time cannot be represented (a year-0001 event with a +14:00 offset stored a
BC timestamp before ingest rejected such times) is left out by the query, never raised:
one contact must not stop every contact's ticks.
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from domain import clock
from streams import db
from schemas import events as ev
from schemas.envelope import Envelope

log = logging.getLogger("rapport.scheduler")

SCHEDULE_LIMIT = 2000
# due times Python and the fold can hold (timestamptz reaches 4713 BC and 294276 AD)
DUE_RANGE = ("0002-01-01T00:00:00Z", "9998-12-31T00:00:00Z")


async def due_ticks(conn: Any, now: datetime, limit: int = SCHEDULE_LIMIT) -> list[Envelope]:
    """ContactTick events for the contacts due at `now` in the live version ([] when none is live).
    An idle contact's event time moves on at the wall clock's pace from its last event (event time =
    wall clock - clock_skew_s, domain/clock.py): a live contact's ticks come at about the due time, a contact imported
    with 2023 timestamps is not jumped to today. Ids derive from (contact, due time)."""
    version = await db.active_version_async(conn)
    if version is None:
        return []
    schema = db.schema_of(version)
    cur = await conn.execute(
        f"SELECT tenant_id, contact_id, next_due_at, clock_skew_s FROM {schema}.contacts "
        f"WHERE next_due_wall <= %s AND next_due_at BETWEEN %s::timestamptz AND %s::timestamptz "
        f"ORDER BY next_due_wall LIMIT %s", (now, *DUE_RANGE, limit))
    rows = await cur.fetchall()
    out = []
    for tenant_id, contact_id, due, skew in (r.values() if isinstance(r, dict) else r for r in rows):
        try:
            at = max(due, clock.contact_now(now, skew))
            out.append(ev.contact_tick(tenant_id=tenant_id, contact_id=contact_id, due_at=due.isoformat(),
                                       occurred_at=at.isoformat(), recorded_at=now.isoformat()))
        except (OverflowError, ValueError) as err:
            log.warning("contact %s/%s: no tick (%s)", tenant_id, contact_id, type(err).__name__)
    return out
