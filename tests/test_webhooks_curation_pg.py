"""Webhooks and memory curation on a real PostgreSQL: MemoryCorrected and MemoryForgotten are events a
subscription can filter on, and nothing about a forgotten memory still on the topics is enqueued (the
projector recorded it in rapport.forgotten_memories), while its MemoryForgotten is."""
from __future__ import annotations

import dataclasses

import psycopg
import pytest

from schemas import events as ev
from schemas.envelope import format_time, now_utc
from streams.webhooks import delivery, rules, store
from tests.helpers import interaction
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own)
from tests.test_webhooks_pg import rows, sealed
from tests.backends import pg_url  # noqa: F401  (every test here runs on each PostgreSQL backend)

pytestmark = [pytest.mark.pg]


def derived(event_id: str, event_type: str, payload: dict) -> ev.Envelope:
    src = interaction(event_id, "I have a dog named Bruno", tenant="acme", contact="c1")
    at = format_time(now_utc())
    return ev.derived(dataclasses.replace(src, occurred_at=at, recorded_at=at), event_type, "x", payload)


def test_the_curation_events_are_filters():
    assert rules.filter_problem(["MemoryCorrected", "MemoryForgotten"]) is None
    assert rules.matches(["MemoryForgotten"], ev.MEMORY_FORGOTTEN)
    assert not rules.matches(["MemoryForgotten"], ev.MEMORY_CORRECTED)
    assert not rules.matches(["*"], ev.MEMORY_FORGET_REQUESTED)  # the request is not delivered: its outcome is


async def test_events_about_a_forgotten_memory_are_not_enqueued_but_its_forgetting_is(fresh_db):  # noqa: F811
    conn = await psycopg.AsyncConnection.connect(fresh_db, autocommit=True)
    hook, _ = await store.create(conn, "acme", "https://a.example/all", ["*"])
    gone = derived("e1", ev.MEMORY_EXTRACTED, {"memory": {"id": "mem-dog", "content": "Has a dog named Bruno"}})
    fixed = derived("e2", ev.MEMORY_CORRECTED, {"memoryId": "mem-dog", "content": "Has a cat named Bruno", "at": "x"})
    kept = derived("e3", ev.MEMORY_EXTRACTED, {"memory": {"id": "mem-tea", "content": "Loves green tea"}})
    forgotten = derived("e4", ev.MEMORY_FORGOTTEN, {"memoryId": "mem-dog", "at": "x"})
    await conn.execute("INSERT INTO rapport.forgotten_memories (tenant_id, contact_id, memory_id) "
                       "VALUES ('acme', 'c1', 'mem-dog')")
    assert await delivery.enqueue_batch(conn, await sealed(conn, [gone, fixed, kept, forgotten])) == 2
    assert sorted(e for (e,) in await rows(conn, "SELECT event_id FROM rapport.webhook_deliveries")) == sorted(
        [kept.event_id, forgotten.event_id])
    # another contact's memory of the same id is its own
    other = dataclasses.replace(gone, contact_id="c2", event_id="e5")
    assert await delivery.enqueue_batch(conn, await sealed(conn, [other])) == 1
    # an erasure of the contact takes its tombstones with it
    async with conn.cursor() as cur:
        await store.forget_contact(cur, "acme", "c1")
    assert await rows(conn, "SELECT count(*) FROM rapport.forgotten_memories") == [(0,)]
    assert hook["webhook_id"]
    await conn.close()
