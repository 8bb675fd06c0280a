"""What the model reads, checked over whole lives (issue 14): the year simulator's contact at months 1,
6 and 12, a contact who talks about work, the gym and cooking every evening for 120 days, and the
seed's Arjun conversation, each fed through the worker's pipeline into PostgreSQL with the real model
and read back through the API (GET /context with and without a query, POST /payload). At every reading:
no line or memory said twice, no memory both listed and on a card, no near-duplicate examples in a
pattern, a profile once there is something to say and never saying one thing twice, and every theme
label made of its episodes' words (projections/hygiene.py)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import httpx
import psycopg
import pytest

from agents.pipeline import InteractionPipeline
from ops import notes, simulate_year
from projections import hygiene
from streams import db
from schemas import events as ev
from schemas.envelope import Envelope, format_time
from tests.helpers import api_in_process, records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]


def night_events(contact: str, day: int, t: datetime, msgs: list[str], name: str | None):
    out = []
    for i, text in enumerate(msgs):
        at = format_time(simulate_year.message_time(t, i))
        out.append(ev.interaction(event_id=f"{contact}-{day}-{i}", tenant_id="default", contact_id=contact,
                                  occurred_at=at, recorded_at=at, role="user", message=text, display_name=name))
    return out


def full_state(pg_url: str, version: str, contact: str) -> dict:
    """The fold's whole state (readers get it without the private bookkeeping the checks look at)."""
    with psycopg.connect(pg_url) as c:
        return c.execute(f"SELECT state FROM {db.schema_of(version)}.contacts WHERE contact_id = %s",
                         (contact,)).fetchone()[0]


async def read(client: httpx.AsyncClient, contact: str, query: str) -> list[str]:
    problems = []
    for params in ({"budget": 1200}, {"budget": 1200, "query": query}, {}):
        r = await client.get(f"/context/{contact}", params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        problems += [f"{params}: {p}" for p in hygiene.context_problems(body)]
    r = await client.post("/payload", json={"contact_id": contact, "message": query})
    assert r.status_code == 200, r.text
    return problems + hygiene.payload_problems(r.json())


@pytest.mark.parametrize("name", notes.SCENARIOS)
async def test_what_the_model_reads_is_said_once_at_every_point_of_a_life(name, pg_url, version, embedder,
                                                                         monkeypatch):
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO rapport.active_version (version) VALUES (%s) "
                  "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version", (version,))
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    pipeline = InteractionPipeline(conn, embedder, broker_epoch="e", version=version)
    app, pool = await api_in_process(pg_url, embedder=embedder, redis=None)
    # the same hour of the day every run (the chat-time habit follows it), a day or so before now
    end = datetime.now(timezone.utc).replace(hour=20, minute=0, second=0, microsecond=0) - timedelta(days=1)
    nights, days, display = notes.scenario(name, end)
    contact, offset, readings = f"life-{name}", 0, []
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            for day, t, msgs in nights:
                if msgs:
                    envs = night_events(contact, day, t, msgs, display)
                    await pipeline.process(records(envs, start_offset=offset))
                    offset += len(envs)
                if day in days:
                    state = full_state(pg_url, version, contact)
                    problems = hygiene.state_problems(state) + await read(client, contact, notes.QUERIES[name])
                    readings.append((day, state, problems))
        if name == "daily":  # a model's label for one theme (RAPPORT_SUMMARY_MODEL) reaches the row and the text
            state = full_state(pg_url, version, contact)
            pid, item = next((m, it) for m, it in state["memoryIndex"]["items"].items() if it.get("theme"))
            proposal = Envelope(event_id="label-1", event_type=ev.LABEL_PROPOSED, schema_version=1, tenant_id="default",
                                contact_id=contact, occurred_at=format_time(t), recorded_at=format_time(t),
                                payload={"patternId": pid, "count": item["theme"]["count"],
                                         "label": "her training: squats and deadlifts", "model": "m"},
                                causation_id=None, correlation_id="label-1")
            await pipeline.process(records([proposal], start_offset=offset))
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
                text = (await client.get(f"/context/{contact}", params={"budget": 2000})).json()["context_text"]
                mems = (await client.get(f"/contacts/{contact}/memories")).json()["memories"]
            assert "her training (squats and deadlifts)" in text
            assert next(m for m in mems if m["id"] == pid)["content"].startswith(
                "Maya often talks about her training: squats and deadlifts (")
    finally:
        await pool.close()
        await conn.close()
    assert [(day, p) for day, _, p in readings if p] == []
    assert len(readings) == len(days)
    for day, state, _ in readings:  # something to say, and it is said
        assert state["profile"] and state["profileItems"], day
    if name != "arjun":  # a long life: what they keep coming back to is part of who they are
        last = readings[-1][1]
        assert any(f["type"] == "habit" for f in last["profileFacts"].values())
