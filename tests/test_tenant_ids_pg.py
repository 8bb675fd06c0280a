"""Tenant-scoped identity (issue 20) on a real PostgreSQL, through the pipeline and the projector:
tenants and contacts reusing event ids, interleaved at random, each get the rows they get alone; a
replay of such a ledger verifies; an erased contact's event ids stay duplicates (keyed tombstones)."""
from __future__ import annotations

import asyncio
import uuid

import orjson
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.pipeline import InteractionPipeline
from ops import replay as rp
from streams import db
from projections.digest import TABLES
from schemas.events import contact_erased
from streams import ingest, tracking_key
from tests.helpers import FakeEmbedder, interaction, records
from tests.test_replay_pg import fresh_db  # noqa: F401
from tests.test_tenant_ids import streams
from tests.backends import pg_url  # noqa: F401  (every test here runs on each PostgreSQL backend)

pytestmark = [pytest.mark.pg]

CRISIS = "I want to kill myself, I can't go on"


def tenant_rows(conn: psycopg.Connection, schema: str, tenant: str) -> dict[str, list]:
    """Every row of the tenant in every projection table, as the replay digest reads them."""
    conn.execute("SET TIME ZONE 'UTC'")
    out = {}
    for table, (cols, order) in TABLES.items():
        out[table] = conn.execute(f"SELECT {cols} FROM {schema}.{table} WHERE tenant_id=%s ORDER BY {order}",
                                  (tenant,)).fetchall()
    return out


async def project(url: str, version: str, envs, batch: int) -> None:
    conn = await db.connect_async(url, schema=db.schema_of(version))
    p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch=uuid.uuid4().hex, version=version)  # its own log
    recs = records(envs)
    for i in range(0, len(recs), batch):
        await p.process(recs[i:i + batch])
    await conn.close()


def new_version(url: str) -> str:
    v = "t" + uuid.uuid4().hex[:10]
    with psycopg.connect(url, autocommit=True) as conn:
        db.migrate_meta(conn)
        db.ensure_version(conn, v, activate_if_none=False, status="building")
    return v


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=streams(), batch=st.integers(1, 7))
def test_each_tenant_gets_on_postgres_the_rows_it_gets_alone(pg_url, data, batch):
    per_tenant, mixed = data
    together = new_version(pg_url)
    asyncio.run(project(pg_url, together, mixed, batch))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for t, alone in per_tenant.items():
            v = new_version(pg_url)
            asyncio.run(project(pg_url, v, alone, 3))
            mine = tenant_rows(conn, db.schema_of(together), t)
            assert mine == tenant_rows(conn, db.schema_of(v), t), t
            assert len(mine["processed_events"]) == len(alone)  # every event of the tenant applied once


def test_issue_scenario_replays_verified_and_erased_ids_stay_duplicates(fresh_db, monkeypatch):  # noqa: F811
    """Tenant A and B send the same ids; B's contact is erased; the ledger replays into a version whose
    digest equals the live one; a re-send of the erased ids is a duplicate, the same ids in another
    tenant are new."""
    monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
    monkeypatch.setenv(tracking_key.ENV_KEY, "a-test-tracking-key-0123456789")

    def scenario(tenant: str, contact: str, start: float) -> list:
        return [interaction("col-1", "I live in Paris. I work at Airbus as an engineer.", tenant=tenant,
                            contact=contact, minutes=start),
                interaction("col-2", CRISIS, tenant=tenant, contact=contact, minutes=start + 1),
                interaction("col-3", "I moved to Berlin last month.", tenant=tenant, contact=contact,
                            minutes=start + 2)]

    a, b = scenario("A", "sam", 0), scenario("B", "sam", 0.5)
    mixed = [x for pair in zip(a, b) for x in pair]
    erase = contact_erased(event_id="erase-b", tenant_id="B", contact_id="sam", at=b[-1].occurred_at)

    async def live():
        from psycopg_pool import AsyncConnectionPool

        pool = AsyncConnectionPool(fresh_db, min_size=1, max_size=2, open=False,
                                   configure=db.configure_pool_conn, kwargs={"autocommit": True})
        await pool.open(wait=True)
        try:
            assert await ingest.record(pool, mixed) == {(e.tenant_id, e.event_id) for e in mixed}
            await project(fresh_db, "v1", mixed, 2)
            with psycopg.connect(fresh_db, autocommit=True) as c:
                crisis = c.execute("SELECT tenant_id, count(*) FROM proj_v1.triggers WHERE kind='crisis' "
                                   "GROUP BY tenant_id ORDER BY tenant_id").fetchall()
                assert crisis == [("A", 1), ("B", 1)]
                paris = c.execute("SELECT tenant_id, status FROM proj_v1.memories WHERE content='Lives in Paris' "
                                  "ORDER BY tenant_id").fetchall()
                assert paris == [("A", "superseded"), ("B", "superseded")]  # each by its own col-3
            assert await ingest.record(pool, [erase]) == {("B", "erase-b")}
            await project(fresh_db, "v1", [erase], 1)
            # B re-sends its erased ids: duplicates; the same ids of a third tenant are new
            assert await ingest.record(pool, b) == set()
            assert await ingest.record(pool, [e for e in mixed if e.tenant_id == "A"]) == set()
            c_envs = scenario("C", "sam", 10)
            assert await ingest.record(pool, c_envs) == {("C", e.event_id) for e in c_envs}
        finally:
            await pool.close()

    asyncio.run(live())
    with psycopg.connect(fresh_db, autocommit=True) as c:
        assert c.execute("SELECT count(*) FROM proj_v1.memories WHERE tenant_id='B'").fetchone()[0] == 0
        assert c.execute("SELECT count(*) FROM proj_v1.memories WHERE tenant_id='A'").fetchone()[0] > 0
        keys = {r[0] for r in c.execute("SELECT event_key FROM rapport.erased_events WHERE tenant_id='B'")}
        assert keys == {tracking_key.event_tombstone("B", e) for e in ("col-1", "col-2", "col-3", "erase-b")}
        assert not any(e in k for k in keys for e in ("col-1", "sam"))  # names no event and no contact
        (tracking,) = c.execute("SELECT contact_id FROM proj_v1.processed_events WHERE event_id='erase-b'").fetchone()
        assert tracking == tracking_key.erased_tracking_id("B", "sam") and "sam" not in tracking
    r = asyncio.run(rp.replay("v2", "ledger", verify=True, data_dir=None, batch_size=2, progress=False,
                              embedder=FakeEmbedder()))
    assert r["verified"], r


def test_a_version_made_before_tenant_keys_is_rekeyed_in_place(pg_url):
    """`rapport up` of the new build on an old data dir: the live version gets migration 0008 with its
    rows; afterwards two tenants' equal memory ids are two rows, and an update reaches only its own."""
    v = "t" + uuid.uuid4().hex[:10]
    schema = db.schema_of(v)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        db.migrate_meta(conn)
        old = [m for m in db._migrations("version") if m[0] < "0008"]
        with conn.transaction():
            conn.execute(f"CREATE SCHEMA {schema}")
            conn.execute(f"SET LOCAL search_path TO {schema}, public")
            db._apply(conn, schema, old)
        cols = ("id, tenant_id, contact_id, memory_type, content, importance, decay_rate, source, created_at, "
                "updated_at, content_hash")
        row = "(%s, %s, 'sam', 'fact', %s, 0.8, 0.001, 'rules', now(), now(), 'h')"
        conn.execute(f"INSERT INTO {schema}.memories ({cols}) VALUES {row}", ("m-1", "A", "Lives in Paris"))
        with pytest.raises(psycopg.errors.UniqueViolation):  # the old key: one id in one global space
            conn.execute(f"INSERT INTO {schema}.memories ({cols}) VALUES {row}", ("m-1", "B", "Lives in Rome"))
        db.ensure_version(conn, v, activate_if_none=False, status="building")
        conn.execute(f"INSERT INTO {schema}.memories ({cols}) VALUES {row}", ("m-1", "B", "Lives in Rome"))
        pk = conn.execute("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass "
                          "AND contype = 'p'", (f"{schema}.memories",)).fetchone()[0]
        assert pk == "PRIMARY KEY (tenant_id, contact_id, id)"
        assert conn.execute(f"SELECT tenant_id, content FROM {schema}.memories ORDER BY tenant_id").fetchall() == [
            ("A", "Lives in Paris"), ("B", "Lives in Rome")]
        # every projector UPDATE names the tenant and contact: B's supersession of its m-1 leaves A's alone
        from agents.projector import HANDLERS
        from schemas import events as ev
        from schemas.envelope import Envelope

        sup = Envelope(event_id="d-1", event_type=ev.MEMORY_SUPERSEDED, schema_version=1, tenant_id="B",
                       contact_id="sam", occurred_at="2026-04-03T10:00:00+00:00",
                       recorded_at="2026-04-03T10:00:00+00:00",
                       payload={"memoryId": "m-1", "supersededBy": "m-2", "validTo": "2026-04-03T10:00:00+00:00"})
        with conn.transaction():
            conn.execute(f"SET LOCAL search_path TO {schema}, public")
            for sql, row in HANDLERS[ev.MEMORY_SUPERSEDED]:
                conn.execute(sql, row(sup))
        assert conn.execute(f"SELECT tenant_id, status FROM {schema}.memories ORDER BY tenant_id").fetchall() == [
            ("A", "active"), ("B", "superseded")]


def test_recorded_moods_are_found_under_both_id_schemes_and_per_tenant(pg_url):
    """The replay that moves a deployment to scheme 2 reuses the model moods the live version recorded
    under scheme-1 ids; two tenants' equal event ids in one batch get their own moods."""
    from agents.llm import RecordedMoods
    from schemas.envelope import derived_id, legacy_derived_id

    v = new_version(pg_url)
    a, b = (interaction("m-1", "I feel great", tenant=t, contact="sam") for t in ("A", "B"))
    mood = {"mood": "happy", "energy": "high", "style": "casual", "confidence": 0.9, "source": "llm"}
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for eid, env, m in ((legacy_derived_id("m-1", "mood"), a, mood),
                            (derived_id(b, "mood"), b, {**mood, "mood": "sad"})):
            conn.execute(f"INSERT INTO {db.schema_of(v)}.events (event_id, tenant_id, contact_id, event_type, "
                         f"occurred_at, payload) VALUES (%s, %s, %s, 'MoodClassified', now(), %s::jsonb)",
                         (eid, env.tenant_id, env.contact_id, orjson.dumps(m).decode()))

    async def run():
        conn = await db.connect_async(pg_url)
        try:
            return await RecordedMoods(conn, db.schema_of(v)).moods([a, b])
        finally:
            await conn.close()

    assert asyncio.run(run()) == {("A", "m-1"): mood, ("B", "m-1"): {**mood, "mood": "sad"}}


async def _dict_pool(url: str):
    from psycopg_pool import AsyncConnectionPool

    pool = AsyncConnectionPool(url, min_size=1, max_size=2, open=False, configure=db.configure_pool_conn,
                               kwargs={"autocommit": True})
    await pool.open(wait=True)
    return pool


def test_a_resend_racing_the_erasure_transaction_never_comes_back(pg_url):
    """The re-send arrives while the erasure's transaction has deleted the ledger row and written the
    tombstone but not committed: the insert waits on the row, its snapshot has no tombstone, and the
    row is gone when it goes on, so the ledger takes it (the API counts it as new: the one case). The
    worker that reads it finds the tombstone: nothing applied, and the ledger row goes (else the relay
    would send it round for ever)."""
    from agents.projector import _delete_ledger

    tenant = "race-" + uuid.uuid4().hex[:8]
    env = interaction("r-1", "My dog Bruno ate my shoes again", tenant=tenant, contact="zoe")
    v = new_version(pg_url)

    async def run():
        pool = await _dict_pool(pg_url)
        try:
            assert await ingest.record(pool, [env]) == {(tenant, "r-1")}
            t1 = await psycopg.AsyncConnection.connect(pg_url)  # a transaction, as the projector's
            async with t1.cursor() as cur:
                await _delete_ledger(cur, tenant, "DELETE FROM rapport.ledger WHERE tenant_id=%s AND event_id=%s "
                                                  "RETURNING event_id", (tenant, "r-1"))
            resend = asyncio.create_task(ingest.record(pool, [env]))
            await asyncio.sleep(1.0)
            assert not resend.done()  # waiting on the ledger row the erasure deletes
            await t1.commit()
            await t1.close()
            await asyncio.wait_for(resend, 30)
            assert await ingest.record(pool, [env]) == set()  # from now on a duplicate
            conn = await db.connect_async(pg_url, schema=db.schema_of(v))
            try:
                out = await InteractionPipeline(conn, FakeEmbedder(), broker_epoch="x", version=v).process(records([env]))
            finally:
                await conn.close()
            return out
        finally:
            await pool.close()

    out = asyncio.run(run())
    assert (out.applied, out.skipped) == (0, 1)
    with psycopg.connect(pg_url) as c:
        assert c.execute("SELECT count(*) FROM rapport.ledger WHERE tenant_id=%s", (tenant,)).fetchone()[0] == 0
        assert c.execute(f"SELECT count(*) FROM {db.schema_of(v)}.memories WHERE tenant_id=%s",
                         (tenant,)).fetchone()[0] == 0


def test_the_worker_skips_an_erased_contacts_events_published_again(pg_url):
    """A producer that publishes straight to the topic re-sends an erased contact's events: the tracking
    records went with the contact, the tombstones did not, so nothing comes back."""
    v = new_version(pg_url)
    tenant = "t-" + uuid.uuid4().hex[:8]
    envs = [interaction(f"z{i}", m, tenant=tenant, contact="zoe", minutes=i)
            for i, m in enumerate(["I moved to Berlin last month", "My dog Bruno ate my shoes again"])]
    erase = contact_erased(event_id="erase-zoe", tenant_id=tenant, contact_id="zoe", at=envs[-1].occurred_at)

    async def run(batch, epoch):
        conn = await db.connect_async(pg_url, schema=db.schema_of(v))
        try:
            return await InteractionPipeline(conn, FakeEmbedder(), broker_epoch=epoch, version=v).process(records(batch))
        finally:
            await conn.close()

    assert asyncio.run(run(envs + [erase], "a")).applied == 3
    again = asyncio.run(run(envs + [erase], "b"))
    assert (again.applied, again.skipped) == (0, 3)
    with psycopg.connect(pg_url) as c:
        for table in ("memories", "contacts", "processed_events", "events"):
            n = c.execute(f"SELECT count(*) FROM {db.schema_of(v)}.{table} WHERE tenant_id=%s AND contact_id='zoe'",
                          (tenant,)).fetchone()[0]
            assert n == 0, table
