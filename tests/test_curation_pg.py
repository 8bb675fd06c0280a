"""Memory curation through the pipeline and the projector on a real PostgreSQL: a correction is what the
rows say, a forgotten memory's content is gone from every table (and the webhook outbox), and folding
the same log in other batches (a replay) digests the same."""
from __future__ import annotations

import uuid

import orjson
import pytest

from streams import db
from projections.digest import digest
from schemas import events as ev
from tests.helpers import interaction, records
from tests.test_pipeline_pg import pipeline_for, rows

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def conversation(contact: str) -> list:
    return [interaction(f"{contact}-1", "I live in Mumbai and I have a dog named Bruno", contact=contact),
            interaction(f"{contact}-2", "Bruno chewed my favourite slippers today", contact=contact, minutes=1)]


def memory_ids(pg_url: str, version: str, contact: str) -> dict[str, str]:
    return {c: i for i, c in rows(pg_url, version, "SELECT id, content FROM memories WHERE contact_id=%s", contact)}


def curation(contact: str, lives: str, dog: str, episode: str | None = None) -> list:
    at = "2026-04-03T21:10:00+05:30"
    out = [ev.memory_correction_requested(event_id=f"{contact}-fix", tenant_id="default", contact_id=contact,
                                          memory_id=lives, at=at, changes={"content": "Lives in Pune"}),
           ev.memory_forget_requested(event_id=f"{contact}-forget", tenant_id="default", contact_id=contact,
                                      memory_id=dog, at=at),
           interaction(f"{contact}-3", "I live in Mumbai", contact=contact, minutes=20)]  # the old text again
    if episode is not None:
        out.append(ev.memory_forget_requested(event_id=f"{contact}-forget-ep", tenant_id="default",
                                              contact_id=contact, memory_id=episode, at=at))
    return out


SESSION_ONE = ["My sister Maya and I had a huge fight about the wedding", "I work at Siemens as an engineer",
               "Going to the gym later today", "The weather is lovely here"]


async def test_forgetting_an_episode_scrubs_the_window_and_every_summary(pg_url, version):
    contact = "ep-" + uuid.uuid4().hex[:8]
    p = await pipeline_for(pg_url, version)
    first = [interaction(f"{contact}-{i}", t, contact=contact, minutes=i) for i, t in enumerate(SESSION_ONE)]
    later = interaction(f"{contact}-9", "Back from a long trip to Goa", contact=contact, minutes=600)  # closes it
    await p.process(records(first + [later]))
    fight = memory_ids(pg_url, version, contact)[SESSION_ONE[0]]
    assert rows(pg_url, version, "SELECT count(*) FROM session_summaries WHERE contact_id=%s AND summary::text "
                                 "LIKE '%%huge fight%%'", contact)[0][0] == 1
    forget = ev.memory_forget_requested(event_id=f"{contact}-f", tenant_id="default", contact_id=contact,
                                        memory_id=fight, at="2026-04-04T08:00:00+05:30")
    out = await p.process(records([forget], start_offset=10))
    assert out.dead_letters == []
    for table in ("memories", "events", "session_summaries", "sessions", "contacts"):
        found = rows(pg_url, version, f"SELECT t::text FROM {table} t WHERE contact_id=%s AND t::text LIKE %s",
                     contact, "%huge fight%")
        assert found == [], (table, found)
    (summary,) = rows(pg_url, version, "SELECT summary FROM session_summaries WHERE contact_id=%s", contact)[0]
    assert "Siemens" in summary["one_liner"] + " ".join(summary["what_mattered"])
    (state,) = rows(pg_url, version, "SELECT state FROM contacts WHERE contact_id=%s", contact)[0]
    assert state["curation"]["forgotten"][fight]["episode"] is True


async def test_correct_and_forget_through_the_projector(pg_url, version):
    contact = "cur-" + uuid.uuid4().hex[:8]
    p = await pipeline_for(pg_url, version, publishes=True)
    await p.process(records(conversation(contact)))
    ids = memory_ids(pg_url, version, contact)
    lives, dog = ids["Lives in Mumbai"], ids["Has a dog named Bruno"]
    # a webhook delivery of the dog's extraction waiting to be sent, and one of another memory
    with db.connect(pg_url) as conn:
        conn.execute("INSERT INTO rapport.webhooks (webhook_id, tenant_id, url, events, secret) VALUES "
                     "(%s, 'default', 'https://example.com/h', '{*}', 's')", (f"wh_{contact}",))
        for mid, content in ((dog, "Has a dog named Bruno"), (lives, "Lives in Mumbai")):
            body = orjson.dumps({"id": f"x-{mid}", "type": ev.MEMORY_EXTRACTED, "data": {"memory": {"id": mid,
                                                                                            "content": content}}})
            conn.execute("INSERT INTO rapport.webhook_deliveries (webhook_id, tenant_id, contact_id, event_id, "
                         "event_type, body) VALUES (%s, 'default', %s, %s, %s, %s)",
                         (f"wh_{contact}", contact, f"x-{mid}", ev.MEMORY_EXTRACTED, body))
        conn.commit()
    # the outbox still holds the dog's events (as if the worker died before publishing them)
    assert rows(pg_url, version, "SELECT count(*) FROM derived_outbox WHERE contact_id=%s AND "
                                 "convert_from(envelope, 'UTF8') LIKE %s", contact, "%Has a dog named Bruno%")[0][0] > 0

    out = await p.process(records(curation(contact, lives, dog), start_offset=10))
    assert out.dead_letters == []
    assert rows(pg_url, version, "SELECT content, content_hash, embedding_model, status FROM memories WHERE id=%s",
                lives) == [("Lives in Pune", ev_hash("Lives in Pune"), "fake-8", "active")]
    assert rows(pg_url, version, "SELECT count(*) FROM memories WHERE id=%s", dog)[0][0] == 0
    # nothing extracted from the restated old text: no fact says Mumbai again, the correction stands
    assert [c for (c,) in rows(pg_url, version, "SELECT content FROM memories WHERE contact_id=%s AND "
                                                "memory_type='fact' ORDER BY content", contact)] == ["Lives in Pune"]
    terms = {t for (t,) in rows(pg_url, version, "SELECT term FROM memory_terms WHERE memory_id=%s", lives)}
    assert "pune" in terms and "mumbai" not in terms
    assert rows(pg_url, version, "SELECT count(*) FROM memory_terms WHERE memory_id=%s", dog)[0][0] == 0
    assert rows(pg_url, version, "SELECT count(*) FROM memory_entities WHERE memory_id=%s", dog)[0][0] == 0
    # the dog's content is nowhere in this version, nor in the webhook outbox; its forgetting is recorded
    for table in ("memories", "events", "derived_outbox", "contacts", "memory_term_docs"):
        found = rows(pg_url, version, f"SELECT count(*) FROM {table} t WHERE contact_id=%s AND t::text LIKE %s",
                     contact, "%Has a dog named Bruno%")[0][0]
        assert found == 0, (table, rows(pg_url, version, f"SELECT t::text FROM {table} t WHERE contact_id=%s "
                                                         "AND t::text LIKE %s", contact, "%Has a dog named Bruno%"))
    left = rows(pg_url, version, "SELECT event_id FROM rapport.webhook_deliveries WHERE contact_id=%s", contact)
    assert left == [(f"x-{lives}",)]
    assert rows(pg_url, version, "SELECT count(*) FROM rapport.forgotten_memories WHERE memory_id=%s", dog)[0][0] == 1
    history = [t for (t,) in rows(pg_url, version, "SELECT event_type FROM events WHERE contact_id=%s AND "
                                                    "(payload->>'memoryId' = %s OR payload->'memory'->>'id' = %s) "
                                                    "ORDER BY occurred_at, event_type", contact, lives, lives)]
    assert history[0] == ev.MEMORY_EXTRACTED and ev.MEMORY_CORRECTED in history
    assert [t for (t,) in rows(pg_url, version, "SELECT event_type FROM events WHERE payload->>'memoryId' = %s",
                               dog)] == [ev.MEMORY_FORGOTTEN]
    (profile,) = rows(pg_url, version, "SELECT profile FROM contacts WHERE contact_id=%s", contact)[0]
    assert "Pune" in profile and "Bruno" not in profile


def ev_hash(text: str) -> str:
    from agents.core.memory import content_hash

    return content_hash(text)


async def test_the_same_log_in_other_batches_digests_the_same(pg_url, version):
    """Live: one event per batch; a replay: the whole log in one batch, into a fresh version."""
    contact = "rep-" + uuid.uuid4().hex[:8]
    live = await pipeline_for(pg_url, version)
    envs = conversation(contact)
    for i, e in enumerate(envs):
        await live.process(records([e], start_offset=i))
    ids = memory_ids(pg_url, version, contact)
    more = curation(contact, ids["Lives in Mumbai"], ids["Has a dog named Bruno"],
                    ids["Bruno chewed my favourite slippers today"])
    for i, e in enumerate(more):
        await live.process(records([e], start_offset=10 + i))

    other = "r" + uuid.uuid4().hex[:10]
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        db.ensure_version(conn, other, activate_if_none=False, status="building")
    replay = await pipeline_for(pg_url, other, records=False)
    await replay.process(records(envs + more))
    with psycopg.connect(pg_url) as conn:
        a = rows(pg_url, version, "SELECT id, content, status, importance FROM memories WHERE contact_id=%s "
                                  "ORDER BY id", contact)
        b = rows(pg_url, other, "SELECT id, content, status, importance FROM memories WHERE contact_id=%s "
                                "ORDER BY id", contact)
        assert a == b and a
        assert digest(conn, db.schema_of(version)) == digest(conn, db.schema_of(other))
