"""Webhook subscriptions and the delivery outbox in PostgreSQL (streams/migrations/meta/0005_webhooks.sql).

Every function takes an async psycopg connection (or cursor, where it joins the caller's transaction)
and reads rows by name, whatever the connection's row factory. Tenant-facing functions always filter
on the tenant: a subscription id of another tenant is "not found".
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Iterable

from psycopg.rows import dict_row

from schemas import events as ev
from schemas.envelope import Envelope
from streams import tracking_key
from streams.webhooks import rules
from streams.webhooks.signing import new_secret

STATUSES = ("pending", "delivered", "dead")
_COLUMNS = ("w.webhook_id, w.tenant_id, w.url, w.events, w.description, w.created_at, "
            "(SELECT count(*) FROM rapport.webhook_deliveries d WHERE d.webhook_id = w.webhook_id "
            "AND d.status = 'pending') AS pending, "
            "(SELECT count(*) FROM rapport.webhook_deliveries d WHERE d.webhook_id = w.webhook_id "
            "AND d.status = 'dead') AS dead")


class TooMany(Exception):
    """The tenant has rules.MAX_WEBHOOKS_PER_TENANT subscriptions already."""


async def _rows(conn: Any, sql: str, params: Any = None) -> list[dict[str, Any]]:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(sql, params)
        return await cur.fetchall() if cur.description else []


# ------------------------------------------------------------------ subscriptions
async def create(conn: Any, tenant_id: str, url: str, events: list[str],
                 description: str | None = None) -> tuple[dict[str, Any], str]:
    """A new subscription and its signing secret (returned here only)."""
    webhook_id, secret = "wh_" + secrets.token_hex(8), new_secret()
    rows = await _rows(conn, "INSERT INTO rapport.webhooks (webhook_id, tenant_id, url, events, secret, description) "
                             "SELECT %s, %s, %s, %s, %s, %s WHERE (SELECT count(*) FROM rapport.webhooks "
                             "WHERE tenant_id = %s) < %s RETURNING webhook_id",
                       (webhook_id, tenant_id, url, list(dict.fromkeys(events)), secret, description, tenant_id,
                        rules.MAX_WEBHOOKS_PER_TENANT))
    if not rows:
        raise TooMany(tenant_id)
    return (await get(conn, tenant_id, webhook_id)), secret  # type: ignore[return-value]


async def get(conn: Any, tenant_id: str, webhook_id: str) -> dict[str, Any] | None:
    rows = await _rows(conn, f"SELECT {_COLUMNS} FROM rapport.webhooks w WHERE w.tenant_id = %s AND w.webhook_id = %s",
                       (tenant_id, webhook_id))
    return rows[0] if rows else None


async def list_for(conn: Any, tenant_id: str | None) -> list[dict[str, Any]]:
    """A tenant's subscriptions (every tenant's for None: the operator's CLI), oldest first."""
    return await _rows(conn, f"SELECT {_COLUMNS} FROM rapport.webhooks w WHERE %(t)s::text IS NULL "
                             f"OR w.tenant_id = %(t)s ORDER BY w.created_at, w.webhook_id", {"t": tenant_id})


async def delete(conn: Any, tenant_id: str | None, webhook_id: str) -> bool:
    """Remove a subscription and its deliveries (pending ones are not sent). tenant_id None: any tenant's."""
    rows = await _rows(conn, "DELETE FROM rapport.webhooks WHERE webhook_id = %(w)s AND (%(t)s::text IS NULL "
                             "OR tenant_id = %(t)s) RETURNING webhook_id", {"w": webhook_id, "t": tenant_id})
    return bool(rows)


async def any_subscription(conn: Any) -> bool:
    """Whether any tenant has a subscription."""
    return bool(await _rows(conn, "SELECT 1 FROM rapport.webhooks LIMIT 1"))


async def subscriptions(conn: Any, tenants: Iterable[str]) -> list[rules.Subscription]:
    ts = sorted(set(tenants))
    if not ts:
        return []
    rows = await _rows(conn, "SELECT webhook_id, tenant_id, events, created_at FROM rapport.webhooks "
                             "WHERE tenant_id = ANY(%s)", (ts,))
    return [rules.Subscription(r["webhook_id"], r["tenant_id"], tuple(r["events"]), r["created_at"]) for r in rows]


# ------------------------------------------------------------------ the outbox
def outbox_contact(env: Envelope) -> str:
    """The contact a delivery row is filed under. An erasure notice is not the contact's data (erasing
    the contact must not delete it): it is filed under the one-way id the erasure's tracking record uses."""
    if env.event_type == ev.CONTACT_ERASED:
        return tracking_key.erased_tracking_id(env.tenant_id, env.contact_id)
    return env.contact_id


async def enqueue(cur: Any, planned: list[tuple[rules.Subscription, Envelope]]) -> int:
    """Insert deliveries (one per subscription and event; an existing pair is left alone)."""
    if not planned:
        return 0
    await cur.executemany(
        "INSERT INTO rapport.webhook_deliveries (webhook_id, tenant_id, contact_id, event_id, event_type, body) "
        "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (webhook_id, event_id) DO NOTHING",
        [(s.webhook_id, e.tenant_id, outbox_contact(e), e.event_id, e.event_type, rules.body(e)) for s, e in planned])
    return len(planned)


@dataclass(frozen=True)
class Claimed:
    delivery_id: int
    webhook_id: str
    event_id: str
    attempt: int  # this attempt's number, 1-based
    body: bytes
    url: str
    secret: str


_CLAIM = """
WITH busy AS (SELECT * FROM unnest(%(ids)s::text[], %(ns)s::int[]) AS b(webhook_id, n)),
due AS (
    SELECT x.delivery_id, x.next_attempt_at FROM rapport.webhooks w
    LEFT JOIN busy b ON b.webhook_id = w.webhook_id
    CROSS JOIN LATERAL (
        SELECT d.delivery_id, d.next_attempt_at FROM rapport.webhook_deliveries d
        WHERE d.webhook_id = w.webhook_id AND d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at LIMIT GREATEST(%(per)s - COALESCE(b.n, 0), 0)
        FOR UPDATE OF d SKIP LOCKED) x
    ORDER BY x.next_attempt_at LIMIT %(limit)s)
UPDATE rapport.webhook_deliveries d
SET attempts = d.attempts + 1, next_attempt_at = now() + %(lease)s * interval '1 second'
FROM due, rapport.webhooks w
WHERE d.delivery_id = due.delivery_id AND w.webhook_id = d.webhook_id
  AND d.status = 'pending' AND d.next_attempt_at <= now()
RETURNING d.delivery_id, d.webhook_id, d.event_id, d.attempts, d.body, w.url, w.secret
"""


async def claim(conn: Any, limit: int, per_webhook: int, lease_s: float,
                in_flight: dict[str, int] | None = None) -> list[Claimed]:
    """Take up to `limit` due deliveries, at most `per_webhook` per subscription counting `in_flight`
    (this process's, by subscription): each gets its attempt counted and a lease (its next_attempt_at
    moves `lease_s` ahead), so another process does not send it meanwhile, and a process that dies
    mid-send leaves it to be sent again when the lease ends. Concurrent claimers never take one row
    twice and do not wait on each other: each skips the rows another is claiming (SKIP LOCKED) and takes
    the next due ones, and the UPDATE re-checks each row after any concurrent claim of it committed."""
    busy = in_flight or {}
    rows = await _rows(conn, _CLAIM, {"ids": list(busy), "ns": list(busy.values()), "per": per_webhook,
                                      "limit": limit, "lease": lease_s})
    return [Claimed(r["delivery_id"], r["webhook_id"], r["event_id"], r["attempts"], bytes(r["body"]), r["url"],
                    r["secret"]) for r in sorted(rows, key=lambda r: r["delivery_id"])]


async def record(conn: Any, c: Claimed, *, status_code: int | None, error: str | None,
                 next_in_s: float | None) -> bool:
    """Record attempt `c`: delivered (error None), tried again in `next_in_s`, or dead (next_in_s None).
    A result for a claim whose lease ran out and that was claimed again is dropped (False)."""
    if error is None:
        sql = ("status = 'delivered', body = NULL, last_status = %(code)s, last_error = NULL, finished_at = now()")
    elif next_in_s is not None:
        sql = ("next_attempt_at = now() + %(next)s * interval '1 second', last_status = %(code)s, "
               "last_error = %(error)s")
    else:
        sql = "status = 'dead', last_status = %(code)s, last_error = %(error)s, finished_at = now()"
    rows = await _rows(conn, f"UPDATE rapport.webhook_deliveries SET {sql} WHERE delivery_id = %(id)s "
                             f"AND attempts = %(attempt)s AND status = 'pending' RETURNING delivery_id",
                       {"code": status_code, "error": error, "next": next_in_s, "id": c.delivery_id,
                        "attempt": c.attempt})
    return bool(rows)


async def deliveries(conn: Any, tenant_id: str, webhook_id: str, status: str | None = None,
                     limit: int = 50) -> list[dict[str, Any]]:
    """A subscription's deliveries, newest first."""
    return await _rows(conn, "SELECT d.delivery_id, d.event_id, d.event_type, d.contact_id, d.status, d.attempts, "
                             "d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.finished_at "
                             "FROM rapport.webhook_deliveries d WHERE d.webhook_id = %(w)s AND d.tenant_id = %(t)s "
                             "AND (%(s)s::text IS NULL OR d.status = %(s)s) ORDER BY d.delivery_id DESC LIMIT %(n)s",
                       {"w": webhook_id, "t": tenant_id, "s": status, "n": limit})


async def redeliver(conn: Any, tenant_id: str, webhook_id: str, delivery_id: int) -> str:
    """Send a dead-lettered delivery again, with a fresh schedule: "queued", "missing" or its status."""
    rows = await _rows(conn, "UPDATE rapport.webhook_deliveries SET status = 'pending', attempts = 0, "
                             "next_attempt_at = now(), finished_at = NULL WHERE delivery_id = %s AND webhook_id = %s "
                             "AND tenant_id = %s AND status = 'dead' RETURNING delivery_id",
                       (delivery_id, webhook_id, tenant_id))
    if rows:
        return "queued"
    rows = await _rows(conn, "SELECT status FROM rapport.webhook_deliveries WHERE delivery_id = %s AND webhook_id = %s "
                             "AND tenant_id = %s", (delivery_id, webhook_id, tenant_id))
    return rows[0]["status"] if rows else "missing"


async def forget_contact(cur: Any, tenant_id: str, contact_id: str) -> None:
    """Right to erasure: every delivery of the contact goes, pending ones unsent (their bodies hold its
    memories). Called by the API when it records an erasure and by the projector when it applies one."""
    await cur.execute("DELETE FROM rapport.webhook_deliveries WHERE tenant_id = %s AND contact_id = %s",
                      (tenant_id, contact_id))
    await cur.execute("DELETE FROM rapport.forgotten_memories WHERE tenant_id = %s AND contact_id = %s",
                      (tenant_id, contact_id))


async def forgotten(conn: Any, envs: list[Envelope]) -> set[tuple[str, str, str]]:
    """(tenant, contact, memory id) of the memories these events are about that were forgotten
    (agents/projector.forget_memory records them)."""
    named = [(e.tenant_id, e.contact_id, m) for e in envs if (m := rules.memory_of(e)) is not None]
    if not named:
        return set()
    rows = await _rows(conn, "SELECT f.tenant_id, f.contact_id, f.memory_id FROM rapport.forgotten_memories f "
                             "JOIN unnest(%s::text[], %s::text[], %s::text[]) AS b(t, c, m) "
                             "ON f.tenant_id = b.t AND f.contact_id = b.c AND f.memory_id = b.m",
                       ([t for t, _, _ in named], [c for _, c, _ in named], [m for _, _, m in named]))
    return {(r["tenant_id"], r["contact_id"], r["memory_id"]) for r in rows}


async def prune(conn: Any, retention_s: float, batch: int = 10_000) -> int:
    """Delete delivered and dead deliveries finished more than `retention_s` ago (a batch at a time)."""
    rows = await _rows(conn, "DELETE FROM rapport.webhook_deliveries WHERE delivery_id IN (SELECT delivery_id FROM "
                             "rapport.webhook_deliveries WHERE status <> 'pending' AND finished_at < now() - "
                             "%s * interval '1 second' LIMIT %s) RETURNING delivery_id", (retention_s, batch))
    return len(rows)
