"""The outbox's bookkeeping: the relay cursor (persisted), the unprocessed backlog and its age, and the
admission of new events against a tenant's backlog limit.

Everything at or below the relay cursor of a projection schema is applied by it (relay_once only
moves the cursor past applied rows), so both the relay and the backlog counts read only the ledger
after it: a bounded scan, however long the ledger.

Admission (backpressure): a per-tenant row of rapport.backlog_admission holds the backlog last measured
and the events admitted since; their sum is an upper bound of the real backlog (processing only lowers
it). An ingest transaction takes the tenant's advisory lock, decides (`admission`, pure), measures again
when the bound is stale or would refuse, inserts its ledger rows and adds them to `admitted` before it
commits. The lock is held until the commit, so concurrent requests, in any number of API processes, see
each other's events: the accepted backlog never passes the limit (by more than one batch when the
backlog was measured empty)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

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
    async with pool.connection() as conn:
        return await backlog_on(conn, schema, after_seq, tenant_id, cap)


async def backlog_on(conn: Any, schema: str, after_seq: int, tenant_id: str | None = None,
                     cap: int = COUNT_CAP) -> tuple[int, float | None]:
    """`backlog` on a connection the caller holds (inside its transaction)."""
    tenant_sql = "AND l.tenant_id = %(tenant)s " if tenant_id is not None else ""
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


# ----------------------------------------------------------------------------------------- admission
ADMISSION_LOCK = 72657012  # advisory lock class: (ADMISSION_LOCK, hashtext(tenant)) serialises a tenant's admissions
MEASURE_EVERY_S = 5.0      # the bound is re-measured from the ledger when older than this (events recorded
# outside the admission, such as MemoriesAccessed, join it then)
MEASURE_AT_MOST_S = 0.25   # ... and, while it refuses, not more often than this (a hammering producer)


class Backlogged(Exception):
    """A tenant's unprocessed backlog would pass its limit: the API answers 429."""

    def __init__(self, tenant_id: str, backlog: int, limit: int):
        super().__init__(f"tenant {tenant_id}: backlog {backlog}, limit {limit}")
        self.tenant_id, self.backlog, self.limit = tenant_id, backlog, limit


Decision = Literal["admit", "refuse", "measure"]


def admission(bound: int | None, age_s: float | None, k: int, limit: int,
              every_s: float = MEASURE_EVERY_S, at_most_s: float = MEASURE_AT_MOST_S) -> Decision:
    """Whether `k` more events of a tenant fit, from its backlog bound (measured + admitted since, None
    when never measured) and the measurement's age. Pure. A stale bound is measured again; one that
    would refuse is measured again too (the worker may have caught up), unless it is very fresh. An
    empty backlog admits any batch, so a limit below the batch size still lets events through."""
    if bound is None or age_s is None or age_s >= every_s:
        return "measure"
    if bound == 0 or bound + k <= limit:
        return "admit"
    return "refuse" if age_s < at_most_s else "measure"


def fits(measured: int, k: int, limit: int) -> bool:
    """After a fresh measurement: whether `k` more events fit (pure; as `admission`)."""
    return measured == 0 or measured + k <= limit


@dataclass(frozen=True)
class Admission:
    """What an ingest transaction checks its tenants against: `limit` unprocessed events per tenant in
    the projection `schema`, counting ledger rows after `after_seq` (the relay cursor)."""
    limit: int
    schema: str
    after_seq: int = 0

    async def admit(self, conn: Any, per_tenant: dict[str, int]) -> None:
        """Inside the ingest transaction, before its ledger insert: lock each tenant (in order: no
        deadlock between two multi-tenant batches) and check its bound; raises Backlogged."""
        for tenant in sorted(per_tenant):
            k = per_tenant[tenant]
            await conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (ADMISSION_LOCK, tenant))
            cur = await conn.execute("SELECT measured + admitted AS bound, extract(epoch FROM clock_timestamp() - "
                                     "measured_at) AS age FROM rapport.backlog_admission WHERE tenant_id=%s",
                                     (tenant,))
            row = await cur.fetchone()
            bound, age = (None, None) if row is None else (int(_col(row, "bound", 0)), float(_col(row, "age", 1)))
            decision = admission(bound, age, k, self.limit)
            if decision == "measure":
                # the lock is held: every earlier admission of this tenant has committed and is counted
                bound, _ = await backlog_on(conn, self.schema, self.after_seq, tenant, cap=self.limit + 1)
                await conn.execute(
                    "INSERT INTO rapport.backlog_admission (tenant_id, measured, admitted, measured_at) "
                    "VALUES (%s, %s, 0, clock_timestamp()) ON CONFLICT (tenant_id) DO UPDATE SET "
                    "measured=EXCLUDED.measured, admitted=0, measured_at=EXCLUDED.measured_at", (tenant, bound))
                decision = "admit" if fits(bound, k, self.limit) else "refuse"
            if decision == "refuse":
                raise Backlogged(tenant, int(bound or 0), self.limit)

    async def admitted(self, conn: Any, new_per_tenant: dict[str, int]) -> None:
        """In the same transaction, after the insert: the tenants' new events join their bounds."""
        for tenant, n in sorted(new_per_tenant.items()):
            if n:
                await conn.execute("UPDATE rapport.backlog_admission SET admitted = admitted + %s WHERE tenant_id=%s",
                                   (n, tenant))


def _col(row: Any, name: str, i: int) -> Any:
    return row[name] if isinstance(row, dict) else row[i]
