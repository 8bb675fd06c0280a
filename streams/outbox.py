"""The outbox's bookkeeping: the relay cursor (persisted), the unprocessed backlog and its age.

Everything at or below the relay cursor of a projection schema is applied by it (relay_once only
moves the cursor past applied rows), so both the relay and the backlog counts read only the ledger
after it: a bounded scan, however long the ledger."""
from __future__ import annotations

import time
from typing import Any

# a backlog count stops at this many rows: an answer in milliseconds even when far behind
COUNT_CAP = 1_000_000


async def load_cursor(pool: Any, schema: str) -> int:
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT seq FROM rapport.relay_cursor WHERE schema_name=%s", (schema,))
        row = await cur.fetchone()
    return int(row["seq"] if isinstance(row, dict) else row[0]) if row else 0


async def save_cursor(pool: Any, schema: str, seq: int) -> None:
    async with pool.connection() as conn:
        await conn.execute("INSERT INTO rapport.relay_cursor (schema_name, seq) VALUES (%s, %s) "
                           "ON CONFLICT (schema_name) DO UPDATE SET seq=GREATEST(relay_cursor.seq, EXCLUDED.seq), "
                           "updated_at=now()", (schema, seq))


async def backlog(pool: Any, schema: str, after_seq: int, tenant_id: str | None = None,
                  cap: int = COUNT_CAP) -> tuple[int, float | None]:
    """(ledger events after `after_seq` not applied by `schema` — of one tenant, or all — at most
    `cap`; seconds since the oldest of them was recorded, None when there is none)."""
    tenant_sql = "AND l.tenant_id = %(tenant)s " if tenant_id is not None else ""
    async with pool.connection() as conn:
        cur = await conn.execute(
            f"SELECT count(*) AS n, extract(epoch FROM now() - min(recorded_at)) AS age FROM ("
            f"SELECT l.recorded_at FROM rapport.ledger l WHERE l.seq > %(after)s {tenant_sql}"
            f"AND NOT EXISTS (SELECT 1 FROM {schema}.processed_events p "
            f"WHERE p.tenant_id = l.tenant_id AND p.event_id = l.event_id) LIMIT %(cap)s) b",
            {"after": after_seq, "tenant": tenant_id, "cap": cap})
        row = await cur.fetchone()
    n, age = (row["n"], row["age"]) if isinstance(row, dict) else row
    return int(n), (max(0.0, float(age)) if age is not None else None)


class Cached:
    """An async function's answers per key, reused for `ttl_s` (a burst of requests costs one query)."""

    def __init__(self, fn: Any, ttl_s: float = 1.0, clock: Any = time.monotonic) -> None:
        self.fn, self.ttl_s, self.clock = fn, ttl_s, clock
        self.values: dict[Any, tuple[float, Any]] = {}

    async def get(self, key: Any) -> Any:
        hit = self.values.get(key)
        now = self.clock()
        if hit is not None and now - hit[0] < self.ttl_s:
            return hit[1]
        value = await self.fn(key)
        if len(self.values) > 10_000:
            self.values.clear()
        self.values[key] = (now, value)
        return value
