"""A worker that restarts (its states read back from PostgreSQL, whose jsonb reorders keys) must project
exactly what one that never restarts does: otherwise a killed worker makes the live projection differ
from `rapport replay` (found by the fault suite: profile paragraphs in another order)."""
from __future__ import annotations

import psycopg
import pytest

from agents.pipeline import InteractionPipeline
from ops.chaos import make_events
from projections import db
from projections.digest import digest
from schemas import events as ev
from tests.helpers import FakeEmbedder, records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def as_envelopes(raw: list[dict]):
    return [ev.interaction(event_id=e["event_id"], tenant_id=e["tenant_id"], contact_id=e["contact_id"],
                           occurred_at=e["occurred_at"], recorded_at=e["occurred_at"], role=e["role"],
                           message=e["message"]) for e in raw]


async def test_a_worker_restarted_after_every_batch_projects_what_a_warm_one_does(pg_url):
    envs = as_envelopes(make_events(240, 3, "det", seed=5))
    versions = []
    for cold in (False, True):
        v = ("cold" if cold else "warm") + __import__("uuid").uuid4().hex[:8]
        with psycopg.connect(pg_url, autocommit=True) as c:
            db.migrate_meta(c)
            db.ensure_version(c, v, activate_if_none=False, status="building")
        p = None
        for i in range(0, len(envs), 20):
            if p is None or cold:  # cold: a new process for every batch, states from PostgreSQL
                p = InteractionPipeline(await db.connect_async(pg_url, schema=db.schema_of(v)), FakeEmbedder(),
                                        broker_epoch="e", switch_lock=False)
            await p.process(records(envs[i:i + 20], start_offset=i))
        versions.append(v)
    with psycopg.connect(pg_url, autocommit=True) as c:
        profiles = c.execute(f"SELECT count(profile) FROM {db.schema_of(versions[0])}.contacts").fetchone()
        assert profiles[0] >= 2  # the events do build profiles, so their order is tested
        assert digest(c, db.schema_of(versions[0])) == digest(c, db.schema_of(versions[1]))
