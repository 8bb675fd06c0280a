"""Derived events are committed with their batch and kept in the outbox until published: a worker
that dies between the commit and the sends leaves them for the relay, which sends them in the order
they were derived, once per pass, and never those of an erased contact (nor any of a replay)."""
from __future__ import annotations

import psycopg
import pytest

from agents.pipeline import InteractionPipeline
from agents import projector
from streams import db
from schemas import events as ev
from tests.helpers import FakeEmbedder, interaction, records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def outbox(pg_url: str, version: str) -> list[str]:
    with psycopg.connect(pg_url) as c:
        return [r[0] for r in c.execute(f"SELECT event_id FROM {db.schema_of(version)}.derived_outbox ORDER BY seq")]


async def test_committed_but_unsent_derived_events_are_relayed_in_order_once(pg_url, version):
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    try:
        p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="e", version=version)
        out = await p.process(records([interaction("o1", "I have a golden retriever named Bruno"),
                                       interaction("o2", "My mom lives in Chennai", minutes=1)]))
        derived = [e.event_id for e in out.derived]
        assert derived and outbox(pg_url, version) == derived  # the worker "died" before publishing

        sent: list[list[str]] = []

        async def publish(envs):
            sent.append([e.event_id for e in envs])

        assert await projector.relay_unpublished(conn, 3600, publish) == 0  # within the grace: the worker's own
        assert await projector.relay_unpublished(conn, 0, publish) == len(derived)
        assert sent == [derived] and outbox(pg_url, version) == []
        assert await projector.relay_unpublished(conn, 0, publish) == 0  # once

        # a live worker's own publish takes them out at once
        out = await p.process(records([interaction("o3", "I love biryani", minutes=2)], start_offset=2))
        assert outbox(pg_url, version) == [e.event_id for e in out.derived]
        await projector.mark_published(conn, out.derived)
        assert outbox(pg_url, version) == []
    finally:
        await conn.close()


async def test_a_failed_send_keeps_them_and_an_erasure_or_a_replay_leaves_none(pg_url, version):
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    try:
        p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="e", version=version)
        await p.process(records([interaction("f1", "I have a cat named Miso")]))
        kept = outbox(pg_url, version)

        async def broker_down(envs):
            raise ConnectionError("broker down")

        with pytest.raises(ConnectionError):
            await projector.relay_unpublished(conn, 0, broker_down)
        assert outbox(pg_url, version) == kept  # rolled back: still there for the next pass

        erase = ev.contact_erased(event_id="f-erase", tenant_id="default", contact_id="arjun",
                                  at="2026-04-03T22:00:00+05:30")
        await p.process(records([erase], start_offset=1))
        assert outbox(pg_url, version) == []  # the erasure takes its unsent events too

        replay = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="r", version=version, publishes=False)
        await replay.process(records([interaction("r1", "I play the guitar", contact="dev")], topic="replay"))
        assert outbox(pg_url, version) == []
    finally:
        await conn.close()
