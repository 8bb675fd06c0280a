"""End to end through the HTTP API, `rapport up` as a user runs it: each test on the embedded broker and on a
3-broker Apache Kafka cluster (tests/conftest.py BACKENDS)."""
from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid

import orjson
import pytest

from projections import hygiene
from schemas.envelope import encode, format_time, now_utc, partition_key
from tests.conftest import BACKENDS
from tests.helpers import interaction
from streams.config import bootstrap_servers
from tests.stack import RunningStack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

CONVERSATION = [
    ("user", "Hi! I'm Arjun, a software engineer at Infosys."),
    ("assistant", "Nice to meet you, Arjun!"),
    ("user", "I have a golden retriever named Bruno, he's three."),
    ("user", "lol"),
    ("user", "My dog Bruno ate my shoes again this morning"),
    ("user", "My mom lives in Chennai and I visit her every Diwali"),
]


def conversation(contact: str, run: str) -> list[dict]:
    return [{"contact_id": contact, "role": r, "message": m, "event_id": f"{run}-{i}", "display_name": "Arjun",
             "channel": "whatsapp", "occurred_at": f"2026-04-03T21:{10 + i:02d}:00+05:30"}
            for i, (r, m) in enumerate(CONVERSATION)]


def wait_for(c, contact: str, event_id: str, **params) -> dict:
    r = c.get(f"/context/{contact}", params={"after": event_id, **params})
    deadline = time.monotonic() + 60
    while r.status_code == 504 and time.monotonic() < deadline:
        r = c.get(f"/context/{contact}", params={"after": event_id, **params})
    assert r.status_code == 200, r.text
    return r.json()


async def publish_raw(kafka_url: str, topic: str, records: list[tuple[bytes, bytes]],
                      signing_key: bytes | None = None) -> None:
    """Records straight on a topic, signed with `signing_key` (schemas/recordsig.py) when given."""
    from aiokafka import AIOKafkaProducer

    from schemas.recordsig import signed_headers

    p = AIOKafkaProducer(bootstrap_servers=bootstrap_servers(kafka_url))
    await p.start()
    try:
        for k, v in records:
            await p.send_and_wait(topic, key=k, value=v, headers=signed_headers(signing_key, k, v))
    finally:
        await p.stop()


async def read_topic(kafka_url: str, topic: str, timeout: float = 20) -> list[bytes]:
    from aiokafka import AIOKafkaConsumer

    c = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap_servers(kafka_url), auto_offset_reset="earliest",
                         group_id=None, enable_auto_commit=False)
    await c.start()
    out = []
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not out:
            batch = await c.getmany(timeout_ms=1000)
            for msgs in batch.values():
                out += [m.value for m in msgs]
    finally:
        await c.stop()
    return out


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_ingest_context_poison_restart_and_clean_stop(tmp_path, backend):
    stack = RunningStack(tmp_path / "data", env=backend)
    started_in = stack.start()
    try:
        assert started_in < 120, f"first start took {started_in:.0f} s"
        run = uuid.uuid4().hex[:6]
        events = conversation("arjun", run)
        with stack.client() as c:
            assert c.get("/healthz").json()["status"] == "ok"
            r = c.post("/ingest", json=events)
            assert r.status_code == 202, r.text
            assert r.json()["accepted"] == len(events) and r.json()["eventIds"] == [e["event_id"] for e in events]

            ctx = wait_for(c, "arjun", events[-1]["event_id"], query="What is the dog called?", budget=500)
            contents = [m["content"] for m in ctx["memories"]]
            assert "My dog Bruno ate my shoes again this morning" in contents
            assert "lol" not in contents and "Nice to meet you, Arjun!" not in contents
            assert all(m["sourceEventIds"] and m["sourceEventIds"][0].startswith(run) for m in ctx["memories"])
            assert ctx["contact"] == {"contactId": "arjun", "displayName": "Arjun", "channel": "whatsapp"}
            assert ctx["history"][0]["content"] == CONVERSATION[0][1]
            assert ctx["state"]["sessionCount"] == 1 and ctx["memory_budget"] == 500
            # a dog question ranks the dog memories first
            assert "Bruno" in ctx["memories"][0]["content"]

            # idempotent: re-sending changes nothing
            assert c.post("/ingest", json=events).json()["duplicates"] == len(events)
            mems = c.get("/contacts/arjun/memories").json()["memories"]
            assert len([m for m in mems if m["memoryType"] == "episode"]) == 4  # the meaningful user messages
            assert {m["content"] for m in mems} >= {"Has a golden retriever named Bruno", "Mom lives in Chennai"}
            assert all(m["status"] == "active" for m in mems)

            # an invalid batch: 422 naming the field, and nothing of it is published
            bad = [{"contact_id": "arjun", "role": "user", "message": "I love sushi", "event_id": f"{run}-ok"},
                   {"contact_id": "arjun", "role": "robot", "message": "x" * 20000, "event_id": f"{run}-bad"}]
            r = c.post("/ingest", json=bad)
            assert r.status_code == 422
            fields = {(e["index"], e["field"]) for e in r.json()["errors"]}
            assert {(1, "role"), (1, "message")} <= fields
            assert c.post("/ingest", content=b"{nope").status_code == 400
            assert c.post("/ingest", json=[]).status_code == 422
            assert c.post("/ingest", json=[events[0]] * 1001).status_code == 413
            assert c.post("/ingest", json={"role": "user", "message": "hi"}).json()["errors"][0]["field"] == "contact_id"
            assert c.get("/context/arjun", params={"after": f"{run}-ok"}).status_code == 504

            # a poison record straight on the topic goes to the dead-letter topic; the next good one is processed
            info = stack.run_info
            good = dataclasses.replace(  # a producer records it now, like the API does
                interaction(f"{run}-direct", "I started learning the guitar", contact="arjun", minutes=20),
                recorded_at=format_time(now_utc()))
            key = (stack.data_dir / "record-key").read_text().strip().encode()  # a producer given the key
            asyncio.run(publish_raw(info["kafka_url"], stack.topic("interactions"),
                                    [(b"default/arjun", b"\x00poison"), (partition_key("default", "arjun"), encode(good))],
                                    signing_key=key))
            ctx = wait_for(c, "arjun", good.event_id, budget=2000)
            assert "I started learning the guitar" in [m["content"] for m in ctx["memories"]]
            dead = asyncio.run(read_topic(info["kafka_url"], stack.topic("dead-letter")))
            assert dead and orjson.loads(dead[0])["reason"].startswith("not JSON")

            # replay the log into a new version beside the running stack: same digest, readers switch
            import subprocess
            import sys
            rep = subprocess.run([sys.executable, "-m", "ops.cli", "replay", "--into", "v2", "--from", "log",
                                  "--verify", "--data-dir", str(stack.data_dir)], capture_output=True, text=True,
                                 timeout=300)
            assert rep.returncode == 0, rep.stdout + rep.stderr
            assert "MATCH" in rep.stdout and "readers switched to v2" in rep.stdout
            ctx = wait_for(c, "arjun", good.event_id, budget=2000)
            assert "I started learning the guitar" in [m["content"] for m in ctx["memories"]]

            before = {m["id"] for m in c.get("/contacts/arjun/memories").json()["memories"]}
            # published but maybe not yet processed when the stop comes: must survive the restart
            late = [{"contact_id": "late", "role": "user", "message": f"Late message number {i} about my garden",
                     "event_id": f"{run}-late-{i}"} for i in range(30)]
            assert c.post("/ingest", json=late).status_code == 202

        code, took, alive = stack.stop()
        assert code == 0 and took < 30 and alive == [], (code, took, alive)

        stack.start()
        with stack.client() as c:
            after = {m["id"] for m in c.get("/contacts/arjun/memories").json()["memories"]}
            assert after == before
            ctx = wait_for(c, "late", f"{run}-late-29", budget=2000)
            assert len([m for m in c.get("/contacts/late/memories").json()["memories"]
                        if m["memoryType"] == "episode"]) == 30
            ctx = wait_for(c, "arjun", events[-1]["event_id"], query="Where does mom live?", budget=500)
            assert any("Chennai" in m["content"] for m in ctx["memories"])
            # and from the ledger, after the restart (the memory-only embedded broker's log restarted
            # empty; a Kafka cluster's kept it)
            rep = subprocess.run([sys.executable, "-m", "ops.cli", "replay", "--into", "v3", "--verify",
                                  "--data-dir", str(stack.data_dir)], capture_output=True, text=True, timeout=300)
            assert rep.returncode == 0 and "MATCH" in rep.stdout, rep.stdout + rep.stderr
            assert {m["id"] for m in c.get("/contacts/arjun/memories").json()["memories"]} == before

            # GDPR export: everything held, memories with their history, the ledger's messages
            ex = c.get("/contacts/arjun/export").json()
            assert {m["id"] for m in ex["memories"]} == before and all(m["history"] for m in ex["memories"])
            assert {e["eventId"] for e in ex["messages"]} >= {e["event_id"] for e in events}
            assert ex["state"]["messageCount"] >= len(events)

            # erasure: nothing of the contact anywhere afterwards
            assert c.delete("/contacts/arjun").status_code == 202
            deadline = time.monotonic() + 30
            while c.get("/contacts/arjun/memories").json()["memories"] and time.monotonic() < deadline:
                time.sleep(0.2)
            assert c.get("/contacts/arjun/memories").json()["memories"] == []
            ctx = c.get("/context/arjun", params={"query": "dog"}).json()
            assert ctx["memories"] == [] and ctx["state"]["relationshipStage"] == "new" and ctx["history"] == []
            ex = c.get("/contacts/arjun/export").json()
            assert ex["state"] is None and ex["memories"] == [] and ex["messages"] == []
            import psycopg
            import redis
            with psycopg.connect(stack.run_info["database_url"]) as conn:
                tables = conn.execute("SELECT table_schema, table_name FROM information_schema.columns "
                                      "WHERE column_name='contact_id' AND table_schema IN ('rapport') "
                                      "OR (column_name='contact_id' AND table_schema LIKE 'proj_%%')").fetchall()
                assert len(tables) >= 8
                for schema, table in tables:
                    n = conn.execute(f"SELECT count(*) FROM {schema}.{table} WHERE contact_id='arjun'").fetchone()[0]
                    assert n == 0, (schema, table, n)
            r = redis.Redis.from_url(stack.run_info["redis_url"])
            assert [k for k in r.scan_iter("*") if b"arjun" in k] == []  # KEYS is disabled (ops/embedded.py)
        code, took, alive = stack.stop()
        assert code == 0 and alive == []
    finally:
        stack.kill()


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_two_workers_share_partitions_and_apply_each_event_once(tmp_path, backend):
    stack = RunningStack(tmp_path / "data", workers=2, env=backend)
    stack.start()
    try:
        n_contacts, per_contact = 40, 25
        events = [{"contact_id": f"c{c}", "role": "user" if i % 2 == 0 else "assistant",
                   "message": f"Contact {c} tells story {i} about their weekend trip to the lake",
                   "event_id": f"w2-{c}-{i}", "occurred_at": f"2026-05-01T10:{i:02d}:00Z"}
                  for i in range(per_contact) for c in range(n_contacts)]
        with stack.client() as c:
            for i in range(0, len(events), 500):
                assert c.post("/ingest", json=events[i:i + 500]).status_code == 202
            for k in range(n_contacts):
                wait_for(c, f"c{k}", f"w2-{k}-{per_contact - 1}")
            import redis
            r = redis.Redis.from_url(stack.run_info["redis_url"])
            assignments = [orjson.loads(r.get(k))["partitions"] for k in r.scan_iter("rapport:workers:*")]
            assert len(assignments) == 2 and all(assignments), assignments
            assert not set(assignments[0]) & set(assignments[1])
            import psycopg
            with psycopg.connect(stack.run_info["database_url"]) as conn:
                assert conn.execute("SELECT count(*), count(DISTINCT event_id) FROM proj_v1.processed_events "
                                    "WHERE event_id LIKE 'w2-%'").fetchone() == (len(events), len(events))
                assert conn.execute("SELECT count(*) FROM proj_v1.memories WHERE contact_id LIKE 'c%'"
                                    ).fetchone()[0] == n_contacts * ((per_contact + 1) // 2)
                counts = conn.execute("SELECT min(message_count), max(message_count) FROM proj_v1.contacts "
                                      "WHERE contact_id LIKE 'c%'").fetchone()
                assert counts == (per_contact, per_contact)
        code, _, alive = stack.stop()
        assert code == 0 and alive == []
    finally:
        stack.kill()


SEED_000 = ["Hi, I'm Arjun! I work at Infosys as a software engineer.",
            "I have a golden retriever named Bruno, he is 3 years old.",
            "Bruno had his vet appointment today, he was so brave", "ugh Bruno ate my shoes again",
            "Bruno loves belly rubs", "I'm so stressed about the sprint deadline at work", "I play Valorant",
            "I prefer to game on weekends", "My mom lives in Chennai", "I visited my mom for Diwali",
            "I love biryani", "I don't like spicy food", "I don't really like talking about politics",
            "I like playful banter and humor"]


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_seed_conversation_and_emotional_layer_over_http(tmp_path, backend):
    stack = RunningStack(tmp_path / "data", env=backend)
    stack.start()
    try:
        with stack.client() as c:
            # seed 000: the Arjun conversation builds the entity graph of §2.4 and the memories of §5.3
            evs = [{"contact_id": "arjun", "role": "user", "message": m, "event_id": f"s0-{i}",
                    "display_name": "Arjun", "occurred_at": f"2026-04-0{1 + i // 5}T22:{10 + i:02d}:00+05:30"}
                   for i, m in enumerate(SEED_000)]
            assert c.post("/ingest", json=evs).status_code == 202
            wait_for(c, "arjun", evs[-1]["event_id"])
            mems = {m["content"]: m for m in c.get("/contacts/arjun/memories").json()["memories"]}
            for fact in ("Works at Infosys as a software engineer", "Has a golden retriever named Bruno",
                         "Dog Bruno is 3 years old", "Plays Valorant", "Mom lives in Chennai", "Loves biryani",
                         "Doesn't like spicy food", "Doesn't like talking about politics", "Likes playful banter"):
                assert fact in mems and mems[fact]["status"] == "active", fact
            assert mems["Loves biryani"]["memoryType"] == "preference" and mems["Loves biryani"]["sourceEventIds"] == ["s0-10"]
            assert "pet:bruno" in mems["ugh Bruno ate my shoes again"]["entityRefs"]
            assert "person:mom" in mems["I visited my mom for Diwali"]["entityRefs"]
            assert "workplace:infosys" in mems["I'm so stressed about the sprint deadline at work"]["entityRefs"]
            ctx = c.get("/context/arjun", params={"query": "How is Bruno doing?", "budget": 1200}).json()
            ents = {e["ref"]: e for e in ctx["entities"]}
            assert ents["pet:bruno"]["metadata"]["species"] == "dog" and ctx["memories"][0]["entityRefs"] == ["pet:bruno"]
            ex = {e["ref"]: e for e in c.get("/contacts/arjun/export").json()["entities"]}
            for ref in ("pet:bruno", "workplace:infosys", "hobby:gaming", "person:mom", "topic:politics",
                        "food:biryani", "food:spicy_food"):
                assert ref in ex, ref
            assert ex["person:mom"]["metadata"]["relation"] == "mother"

            # three sad messages in a row (contact in India, evening): a difficult-period memory and a
            # check-in due the next morning at 09:00 local time
            sad = ["I feel so sad today, nothing is going right", "I've been crying all evening",
                   "I miss my grandmother so much, it hurts"]
            evs = [{"contact_id": "meera", "role": "user", "message": m, "event_id": f"sad-{i}",
                    "occurred_at": f"2026-03-10T21:{10 + i:02d}:00+05:30"} for i, m in enumerate(sad)]
            assert c.post("/ingest", json=evs).status_code == 202
            ctx = wait_for(c, "meera", "sad-2", budget=1000)
            assert ctx["state"]["mood"] == "sad"
            mems = c.get("/contacts/meera/memories").json()["memories"]
            assert any(m["content"] == "Went through a difficult period around March 10, 2026" for m in mems)
            trig = c.get("/contacts/meera/triggers").json()["triggers"]
            check = [t for t in trig if t["kind"] == "check_in"]
            assert len(check) == 1 and check[0]["dueAt"].startswith("2026-03-11T03:30:00")  # 09:00 +05:30
            assert check[0]["sourceEventIds"] == ["sad-2"]
            assert "ADAPTATION:" in ctx["context_text"] and "don't force positivity" in ctx["context_text"]

            # crisis language: an immediate trigger for human review, guidance in the very next context
            r = c.post("/ingest", json={"contact_id": "meera", "role": "user", "event_id": "crisis-1",
                                        "message": "honestly I can't take this anymore, I just want to die",
                                        "occurred_at": "2026-03-10T21:20:00+05:30"})
            assert r.status_code == 202
            ctx = wait_for(c, "meera", "crisis-1", as_of="2026-03-10T21:21:00+05:30")
            assert ctx["context_text"].startswith("CONTACT CONTEXT") and "SAFETY FIRST" in ctx["context_text"]
            assert "988" in ctx["context_text"] or "helpline" in ctx["context_text"].lower()
            crisis = [t for t in c.get("/contacts/meera/triggers").json()["triggers"] if t["kind"] == "crisis"]
            assert len(crisis) == 1 and crisis[0]["humanReview"] and crisis[0]["severity"] == "high"
            # an idiom is not a crisis
            c.post("/ingest", json={"contact_id": "ravi", "role": "user", "event_id": "idiom-1",
                                    "message": "this traffic is killing me lol"})
            wait_for(c, "ravi", "idiom-1")
            assert c.get("/contacts/ravi/triggers").json()["triggers"] == []

            # 20 days of late-evening messages: the timing pattern and preferred outreach hours
            late = [{"contact_id": "nina", "role": "user", "event_id": f"late-{d}",
                     "message": f"Finally done with day {d}, time to unwind and chat about the shows I watch",
                     "occurred_at": f"2026-02-{d + 1:02d}T22:{15 + d:02d}:00-05:00"} for d in range(20)]
            assert c.post("/ingest", json=late).status_code == 202
            ctx = wait_for(c, "nina", "late-19", as_of="2026-02-21T12:00:00-05:00", budget=2000)
            assert ctx["state"]["preferredOutreachHours"]["label"] == "Usually chats between 10pm-12am"
            patterns = [m for m in c.get("/contacts/nina/memories").json()["memories"] if m["memoryType"] == "pattern"]
            assert "Usually chats between 10pm-12am" in [p["content"] for p in patterns]
            # the periodic tier ran in the contact's event time as the nights went by: the nightly
            # episodes 3+ days old became one pattern that keeps their provenance
            themed = [p for p in patterns if p["content"].startswith("Often talks about")]
            assert len(themed) == 1 and len(themed[0]["sourceEventIds"]) >= 5
            compressed = c.get("/contacts/nina/memories", params={"status": "compressed"}).json()["memories"]
            assert {m["sourceEventIds"][0] for m in compressed} <= set(themed[0]["sourceEventIds"])

            # what the model reads about each of these contacts says each thing once (projections/hygiene.py)
            for contact in ("arjun", "meera", "ravi", "nina"):
                for params in ({}, {"query": "How are you doing?", "budget": 2000}):
                    body = c.get(f"/context/{contact}", params=params).json()
                    assert hygiene.context_problems(body) == [], (contact, params)
                r = c.post("/payload", json={"contact_id": contact, "message": "How is Bruno doing?"})
                assert r.status_code == 200 and hygiene.payload_problems(r.json()) == [], contact
        code, _, alive = stack.stop()
        assert code == 0 and alive == []
    finally:
        stack.kill()
