"""Where a worker's batches end, and whether it restarted in between (its states then read back from
PostgreSQL, whose jsonb reorders keys), must not change the projections: otherwise a killed worker
makes the live projection differ from `rapport replay` (found by the fault suite: profile paragraphs in
another order, a pattern's vector, a merge's provenance)."""
from __future__ import annotations

import time
import uuid

import psycopg
import pytest

from agents.pipeline import InteractionPipeline
from ops.chaos import make_events
from streams import db
from projections.digest import digest
from schemas import events as ev
from tests.helpers import records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def as_envelopes(raw: list[dict], spacing_s: int):
    """The chaos bench's messages, `spacing_s` apart: long enough for the consolidation tiers to run."""
    out = []
    for i, e in enumerate(raw):
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_760_000_000 + i * spacing_s))
        out.append(ev.interaction(event_id=e["event_id"], tenant_id=e["tenant_id"], contact_id=e["contact_id"],
                                  occurred_at=at, recorded_at=at, role=e["role"], message=e["message"]))
    return out


async def build(pg_url: str, envs, batch: int, cold: bool, embedder) -> str:
    v = "d" + uuid.uuid4().hex[:10]
    with psycopg.connect(pg_url, autocommit=True) as c:
        db.migrate_meta(c)
        db.ensure_version(c, v, activate_if_none=False, status="building")
    p = None
    for i in range(0, len(envs), batch):
        if p is None or cold:  # cold: a new process for every batch, states and vectors from PostgreSQL
            p = InteractionPipeline(await db.connect_async(pg_url, schema=db.schema_of(v)), embedder,
                                    broker_epoch="e", switch_lock=False)
        await p.process(records(envs[i:i + batch], start_offset=i))
    return v


async def test_batch_boundaries_and_restarts_do_not_change_the_projection(pg_url, embedder):
    envs = as_envelopes(make_events(300, 3, "det", seed=5), spacing_s=240)  # 20 hours of three contacts
    warm = await build(pg_url, envs, 64, cold=False, embedder=embedder)  # the real model: merges by similarity
    cold = await build(pg_url, envs, 7, cold=True, embedder=embedder)
    with psycopg.connect(pg_url, autocommit=True) as c:
        s = db.schema_of(warm)
        assert c.execute(f"SELECT count(profile) FROM {s}.contacts").fetchone()[0] >= 2  # profiles are built
        assert c.execute(f"SELECT count(*) FROM {s}.events WHERE event_type IN ('MemoryMerged', 'PatternDetected')"
                         ).fetchone()[0] > 0  # and the tiers ran
        assert digest(c, s) == digest(c, db.schema_of(cold))
