"""`rapport replay` against a real PostgreSQL: the rebuilt version digests equal to the live one,
including a ledger that mixes v1 and v2 events, and readers switch only when complete (and verified)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest

from agents.pipeline import InteractionPipeline, Record
from ops import replay as rp
from streams import db
from projections.digest import digest
from schemas.envelope import encode
from tests.helpers import FakeEmbedder, interaction
from tests.backends import pg_url  # noqa: F401  (every test here runs on each PostgreSQL backend)

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]
FIXTURES = Path(__file__).resolve().parents[1] / "schemas" / "fixtures"


@pytest.fixture
def fresh_db(pg_url):
    """A database of its own (replay works on the live version of a whole database)."""
    import uuid

    name = "r" + uuid.uuid4().hex[:10]
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    url = pg_url.replace("/rapport?", f"/{name}?")
    db.prepare(url, "v1")
    return url


async def live_run(url: str, records: list[Record], embedder: Any = None) -> None:
    """`records` through the live worker's pipeline (version v1), three at a time (default: FakeEmbedder)."""
    conn = await db.connect_async(url, schema=db.schema_of("v1"))
    p = InteractionPipeline(conn, embedder or FakeEmbedder(), broker_epoch="live", version="v1")
    for i in range(0, len(records), 3):  # live batches differ from the replay's
        await p.process(records[i:i + 3])
    await conn.close()


def conversation() -> list[Record]:
    msgs = ["I'm Arjun and I work at Infosys", "My dog Bruno ate my shoes again", "lol",
            "My dog Bruno ate my shoes again", "I moved to Berlin last month", "Bruno learned a new trick"]
    envs = [interaction(f"c{i}", m, minutes=i * 7) for i, m in enumerate(msgs)]
    envs += [interaction(f"o{i}", f"Other contact message number {i} about gardening", contact="olga",
                         minutes=i) for i in range(4)]
    recs = [Record(encode(e), "t", 0, i) for i, e in enumerate(envs)]
    # a v1 event (the upcaster's golden fixture) among the v2 ones
    v1 = json.loads((FIXTURES / "InteractionRecorded.v1.json").read_text())
    recs.append(Record(orjson.dumps(v1), "t", 0, len(recs)))
    return recs


async def test_replay_from_ledger_matches_live_and_switches(fresh_db, monkeypatch):
    monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
    await live_run(fresh_db, conversation())
    r = await rp.replay("v2", "ledger", verify=True, data_dir=None, batch_size=4, progress=False,
                        embedder=FakeEmbedder())
    assert r["verified"] and r["switched"] and r["events"] == 11
    with psycopg.connect(fresh_db, autocommit=True) as c:
        assert db.active_version(c) == "v2"
        assert digest(c, "proj_v1") == digest(c, "proj_v2") == r["digest"]
        # the v1 fixture event was replayed through the upcaster
        assert c.execute("SELECT count(*) FROM proj_v2.memories WHERE content='My dog Bruno ate my shoes again' "
                         "AND contact_id='arjun'").fetchone()[0] == 1
        assert c.execute("SELECT source_event_ids FROM proj_v2.memories WHERE content='My dog Bruno ate my shoes "
                         "again'").fetchone()[0] == ["c1", "c3", "fx-v1-0001"]
    # a second replay from the new live version is the same again (determinism across processes)
    r3 = await rp.replay("v3", "ledger", verify=True, data_dir=None, progress=False, embedder=FakeEmbedder())
    assert r3["digest"] == r["digest"]
    with pytest.raises(rp.ReplayError):
        rp.drop("v3", None)  # live
    rp.drop("v1", None)
    with psycopg.connect(fresh_db, autocommit=True) as c:
        assert not c.execute("SELECT 1 FROM information_schema.schemata WHERE schema_name='proj_v1'").fetchone()


async def test_verify_mismatch_does_not_switch(fresh_db, monkeypatch):
    monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
    await live_run(fresh_db, conversation())
    with psycopg.connect(fresh_db, autocommit=True) as c:  # tamper with the live projection
        c.execute("UPDATE proj_v1.memories SET importance = importance + 0.01 WHERE contact_id='olga'")
    r = await rp.replay("v2", "ledger", verify=True, data_dir=None, progress=False, embedder=FakeEmbedder())
    assert r["verified"] is False and not r.get("switched")
    with psycopg.connect(fresh_db, autocommit=True) as c:
        assert db.active_version(c) == "v1"
    with pytest.raises(rp.ReplayError):
        await rp.replay("v2", "ledger", verify=False, data_dir=None, progress=False)  # exists: drop first


class CountingEmbedder(FakeEmbedder):
    """The fake model, remembering every text it was asked to embed."""

    def __init__(self):
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        return super().embed(texts)


async def test_replay_takes_vectors_from_the_live_version_not_the_model(fresh_db, monkeypatch):
    monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
    model = CountingEmbedder()
    await live_run(fresh_db, conversation())
    r = await rp.replay("v2", "ledger", verify=True, data_dir=None, batch_size=4, progress=False,
                        embedder=model)
    assert r["verified"] and r["switched"]
    with psycopg.connect(fresh_db, autocommit=True) as c:
        stored = {f"{s}: {t}" if s else t for t, s in c.execute(
            "SELECT content, speaker FROM proj_v1.memories WHERE embedding IS NOT NULL").fetchall()}
        # the model is asked only for what live never stored: the v1 fixture's two candidates (said by
        # "Arjun"), which the dedup merged into the memories the first messages made
        assert sorted(model.texts) == ["Arjun: Has a dog named Bruno", "Arjun: My dog Bruno ate my shoes again"]
        assert r["texts_embedded"] == 2 and r["texts_recorded"] >= len(stored) > 5
        assert c.execute("SELECT count(*) FROM proj_v2.memories WHERE embedding IS NOT NULL").fetchone()[0] > 0
        assert c.execute("SELECT count(*) FROM proj_v1.memories a FULL JOIN proj_v2.memories b USING (id) "
                         "WHERE a.embedding IS DISTINCT FROM b.embedding").fetchone()[0] == 0


async def test_recorded_vectors_are_the_batch_contacts_and_never_a_pattern_centroid(fresh_db):
    import numpy as np

    from ops.replay import RecordedEmbedder

    await live_run(fresh_db, conversation())
    with psycopg.connect(fresh_db, autocommit=True) as c:  # as if consolidation had written this row
        assert c.execute("UPDATE proj_v1.memories SET source='consolidation' "
                         "WHERE content='I moved to Berlin last month'").rowcount == 1
    conn = await db.connect_async(fresh_db, schema=db.schema_of("v1"))
    model = CountingEmbedder()
    recorded = RecordedEmbedder(lambda: model, model.model_name, db.schema_of("v1"))
    await recorded.prefetch(conn, {("default", "arjun")})
    await conn.close()
    texts = ["My dog Bruno ate my shoes again", "I moved to Berlin last month",
             "Other contact message number 0 about gardening",  # olga's: not a contact of this batch
             "My dog Bruno ate my shoes again", "never said"]
    vectors = recorded.embed(texts)
    assert model.texts == ["I moved to Berlin last month", "Other contact message number 0 about gardening",
                           "never said"]
    assert (recorded.recorded, recorded.computed) == (1, 3)
    assert np.allclose(vectors, FakeEmbedder().embed(texts), atol=1e-6)


async def test_parallel_replay_gives_the_live_digest(fresh_db, monkeypatch, embedder):
    """Two processes, each with contacts of its own and the real local model, build what one live
    worker built."""
    monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
    conn = await db.connect_async(fresh_db, schema=db.schema_of("v1"))
    p = InteractionPipeline(conn, embedder, broker_epoch="live", version="v1")
    recs = conversation()
    for i in range(0, len(recs), 3):
        await p.process(recs[i:i + 3])
    await conn.close()
    r = await rp.replay("v2", "ledger", verify=True, data_dir=None, progress=False, jobs=2)
    assert r["verified"] and r["switched"] and r["events"] == 11 and r["jobs"] == 2
    assert r["texts_recorded"] > 0


async def test_a_ledger_replay_writes_no_ledger_rows_and_a_log_replay_does(fresh_db):
    """Events read from the ledger are not written back (a contact erased meanwhile must not get its rows
    back); events read from the log go into it, as a worker's would."""
    await live_run(fresh_db, conversation())
    with psycopg.connect(fresh_db, autocommit=True) as c:
        c.execute("DELETE FROM rapport.ledger WHERE contact_id='olga'")  # erased after the replay read them
        db.ensure_version(c, "v2", activate_if_none=False, status="building")
        db.ensure_version(c, "v3", activate_if_none=False, status="building")
    olga = [r for r in conversation() if b'"olga"' in r.value]
    for into, source, kept in (("v2", "ledger", 0), ("v3", "log", len(olga))):
        conn = await db.connect_async(fresh_db, schema=db.schema_of(into))
        pipe, _ = rp._replay_pipeline(conn, db.schema_of("v1"), into, source=source, embedder=FakeEmbedder())
        assert (await pipe.process(olga)).applied == len(olga)
        await conn.close()
        with psycopg.connect(fresh_db, autocommit=True) as c:
            assert c.execute("SELECT count(*) FROM rapport.ledger WHERE contact_id='olga'").fetchone()[0] == kept
            assert c.execute(f"SELECT count(*) FROM proj_{into}.processed_events WHERE contact_id='olga'"
                             ).fetchone()[0] == len(olga)


async def test_a_log_replay_reads_no_further_than_the_live_version_has_consumed(pg_url, version):
    """`replay --from log --verify` compares with the live version: a record live has not consumed yet
    (an access a /context published a moment ago) must not be applied by the replay alone. Its reading
    stops at live's watermark of the same broker; a watermark of an earlier broker is not comparable
    (read whole); a partition live never consumed is not read (the ledger catch-up brings the rest)."""
    from ops.replay import live_positions

    with db.connect(pg_url) as conn:
        conn.execute(f"INSERT INTO {db.schema_of(version)}.watermarks VALUES ('t.interactions', 0, 'b2', 17), "
                     "('t.interactions', 1, 'b1', 40), ('t.interactions', 2, 'b2', 3), ('other', 3, 'b2', 9)")
        conn.commit()
    until, whole = await live_positions(pg_url, db.schema_of(version), "t.interactions", "unused:9092", "b2")
    assert (until, whole) == ({0: 17, 2: 3}, frozenset({1}))


async def test_a_log_replay_takes_what_live_applied_after_its_log_pass_from_the_ledger(fresh_db, monkeypatch):
    """Live applies events while a `--from log` replay reads the log (an access a /context just
    published, a tick): the replay's log pass ends where live stood, and under the switch lock the rest
    comes from the ledger, whose rows carry no record signature (rapport wrote them): the digests match."""
    from schemas.recordsig import signed_headers

    key = b"k" * 32
    monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
    monkeypatch.setenv("RAPPORT_KAFKA_URL", "unused:9092")
    monkeypatch.setenv("RAPPORT_BROKER_EPOCH", "live")  # live's watermarks are of this broker
    monkeypatch.setenv("RAPPORT_RECORD_KEY", key.decode())
    recs = [Record(r.value, "rapport.interactions", 0, r.offset, b"default/arjun") for r in conversation()[:6]]
    await live_run(fresh_db, recs[:4])
    seen: dict = {}

    async def log_so_far(url, topic, group, size, until=None, whole=frozenset()):  # noqa: ANN001, ANN202
        seen["until"] = until  # the log as the broker holds it, up to where live stood
        yield [(r.value, 0, r.offset, r.key, signed_headers(key, r.key, r.value)) for r in recs[:until[0]]]
        await live_run(fresh_db, recs[4:])  # meanwhile live applies two more

    monkeypatch.setattr(rp, "log_batches", log_so_far)
    r = await rp.replay("v2", "log", verify=True, data_dir=None, progress=False, embedder=FakeEmbedder())
    assert seen["until"] == {0: 4}
    assert r["verified"] and r["switched"] and r["events"] == 6


def _after_erasure(url: str, offset: int) -> list[Record]:
    """arjun erased, then what was on its way for it (agents/core/contact.moot): an access of its memories,
    a forget and a correction of one, a tick; the access also recorded in the ledger first, as the
    API's ingest does."""
    from agents.projector import LEDGER_INSERT, ledger_row
    from schemas import events as ev

    with psycopg.connect(url, autocommit=True) as c:
        mids = [r[0] for r in c.execute("SELECT id FROM proj_v1.memories WHERE contact_id='arjun' ORDER BY id")]
    assert mids
    at = "2026-04-04T10:00:00+00:00"
    envs = [ev.contact_erased(event_id="x-erase", tenant_id="default", contact_id="arjun", at=at),
            ev.memories_accessed(event_id="x-acc", tenant_id="default", contact_id="arjun", memory_ids=mids,
                                 at=at, recorded_at=at),
            ev.memory_forget_requested(event_id="x-forget", tenant_id="default", contact_id="arjun",
                                       memory_id=mids[0], at=at, source_event_ids=["c0"]),
            ev.memory_correction_requested(event_id="x-fix", tenant_id="default", contact_id="arjun",
                                           memory_id=mids[-1], at=at, changes={"content": "Works at Wipro"}),
            ev.contact_tick(tenant_id="default", contact_id="arjun", due_at=at, recorded_at=at)]
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(LEDGER_INSERT, ledger_row(envs[1]))
    return [Record(encode(e), "rapport.interactions", 0, offset + i, b"default/arjun") for i, e in enumerate(envs)]


async def test_events_after_an_erasure_replay_to_the_live_projections(fresh_db, monkeypatch):
    """What reaches the fold after its contact's erasure creates nothing, live and in a ledger replay
    alike: the digests match, and neither version holds the contact."""
    monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
    await live_run(fresh_db, conversation())
    await live_run(fresh_db, _after_erasure(fresh_db, 100))
    r = await rp.replay("v2", "ledger", verify=True, data_dir=None, batch_size=4, progress=False,
                        embedder=FakeEmbedder())
    assert r["verified"] and r["switched"]
    with psycopg.connect(fresh_db, autocommit=True) as c:
        for v in ("proj_v1", "proj_v2"):
            assert c.execute(f"SELECT count(*) FROM {v}.contacts WHERE contact_id='arjun'").fetchone()[0] == 0, v
            assert c.execute(f"SELECT count(*) FROM {v}.contacts WHERE contact_id='olga'").fetchone()[0] == 1, v
        assert c.execute("SELECT count(*) FROM rapport.ledger WHERE contact_id='arjun'").fetchone()[0] == 0


async def test_events_after_an_erasure_replay_from_the_log_to_the_live_projections(fresh_db, monkeypatch):
    """A `--from log` replay reads them from the topic again (the access's ledger row is gone, its
    tombstone left): nothing of the erased contact comes back there either."""
    from schemas.recordsig import signed_headers

    key = b"k" * 32
    monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
    monkeypatch.setenv("RAPPORT_KAFKA_URL", "unused:9092")
    monkeypatch.setenv("RAPPORT_BROKER_EPOCH", "live")
    monkeypatch.setenv("RAPPORT_RECORD_KEY", key.decode())
    recs = [Record(r.value, "rapport.interactions", 0, r.offset, b"default/arjun") for r in conversation()]
    await live_run(fresh_db, recs)
    recs += _after_erasure(fresh_db, len(recs))
    await live_run(fresh_db, recs[-5:])

    async def the_log(url, topic, group, size, until=None, whole=frozenset()):  # noqa: ANN001, ANN202
        yield [(r.value, 0, r.offset, r.key, signed_headers(key, r.key, r.value)) for r in recs[:until[0]]]

    monkeypatch.setattr(rp, "log_batches", the_log)
    r = await rp.replay("v2", "log", verify=True, data_dir=None, progress=False, embedder=FakeEmbedder())
    assert r["verified"] and r["switched"]
    with psycopg.connect(fresh_db, autocommit=True) as c:
        assert c.execute("SELECT count(*) FROM proj_v2.contacts WHERE contact_id='arjun'").fetchone()[0] == 0
