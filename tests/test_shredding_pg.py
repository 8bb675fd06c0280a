"""Crypto-shredding against a real PostgreSQL: what the broker gets is sealed, the workers open it,
and an erasure makes every copy of the contact's events in the log unreadable -- re-reading the log
(a replay, with or without the ContactErased record) brings nothing back."""
from __future__ import annotations

import orjson
import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from agents.pipeline import InteractionPipeline, Record
from ops import replay as rp
from schemas.recordsig import signed_headers
from streams import db
from agents.projector import CONTACT_TABLES
from schemas import events as ev
from schemas.envelope import encode, partition_key
from streams import ingest
from tests.helpers import FakeEmbedder, interaction
from tests.test_replay_pg import fresh_db  # noqa: F401  (a database of its own: replay uses its live version)
from tests.backends import pg_url  # noqa: F401  (every test here runs on each PostgreSQL backend)

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]
SECRETS = ["Lisbon", "Bruno", "allergic to penicillin"]


class CapturingPublisher:
    """Publisher's interface; keeps the bytes the broker would get."""

    def __init__(self) -> None:
        self.sent: list[tuple[bytes, bytes]] = []

    async def publish(self, envs) -> None:  # noqa: ANN001
        self.sent += [(partition_key(e.tenant_id, e.contact_id), encode(e)) for e in envs]

    async def publish_raw(self, rows) -> None:  # noqa: ANN001
        self.sent += rows

    def take(self) -> list[Record]:
        """What was published since the last take, as a consumer reads it (offsets continue)."""
        out = [Record(v, "rapport.interactions", 0, self.offset + i, k)
               for i, (k, v) in enumerate(self.sent[self.offset:])]
        self.offset = len(self.sent)
        return out

    offset = 0


def count(c: psycopg.Connection, contact: str) -> dict[str, int]:
    """Rows of the contact in the live version's tables, the ledger and the key store."""
    tables = [f"proj_v1.{t}" for t in CONTACT_TABLES] + ["rapport.ledger", "rapport.contact_keys"]
    return {t: c.execute(f"SELECT count(*) FROM {t} WHERE contact_id=%s", (contact,)).fetchone()[0]
            for t in tables}


async def test_sealed_log_is_processed_and_an_erasure_shreds_it(fresh_db, monkeypatch):  # noqa: F811
    pool = AsyncConnectionPool(fresh_db, min_size=1, max_size=2, open=False, configure=db.configure_pool_conn,
                               kwargs={"autocommit": True})
    await pool.open(wait=True)
    conn = await db.connect_async(fresh_db, schema=db.schema_of("v1"))
    live = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="live", version="v1")
    pub = CapturingPublisher()
    c = psycopg.connect(fresh_db, autocommit=True)
    try:
        # ana and bob write; everything goes through ingest (ledger first, then the broker)
        await ingest.ingest(pool, pub, [interaction("a1", "I live in Lisbon with my dog Bruno", contact="ana"),
                                        interaction("a2", "I am allergic to penicillin", contact="ana", minutes=1),
                                        interaction("b1", "I keep bees on my roof", contact="bob")])
        first = pub.take()
        out = await live.process(first)
        assert (out.applied, out.skipped, out.dead_letters) == (3, 0, [])
        await ingest.ingest(pool, None, [interaction("a3", "Bruno learned to sit", contact="ana", minutes=2)])
        assert (await ingest.relay_once(pool, pub, "proj_v1"))[0] == 1  # the broker was down for a3
        relayed = pub.take()
        out = await live.process(relayed)
        assert (out.applied, out.skipped, out.dead_letters) == (1, 0, [])
        first += relayed
        for r in first:  # what the broker holds: ids and type clear, payload sealed, no plaintext
            d = orjson.loads(r.value)
            assert d["event_type"] == ev.INTERACTION_RECORDED and set(d["payload"]) == {"enc", "nonce", "ct"}
            assert not any(s.encode() in r.value for s in SECRETS + ["bees"])
        assert c.execute("SELECT count(*) FROM proj_v1.memories WHERE contact_id='ana' AND content LIKE "
                         "'%Lisbon%'").fetchone()[0] >= 1
        # the ledger keeps plaintext (erasure deletes its rows)
        assert "Lisbon" in c.execute("SELECT envelope->'payload'->>'message' FROM rapport.ledger "
                                     "WHERE event_id='a1'").fetchone()[0]
        (old_key,) = c.execute("SELECT key FROM rapport.contact_keys WHERE contact_id='ana'").fetchone()

        # DELETE /contacts/ana; ana writes again before the worker has applied the erasure, so that
        # message is sealed with the key the erasure deletes, and lands in a later batch
        erase = ev.contact_erased(event_id="erase-ana", tenant_id="default", contact_id="ana",
                                  at=interaction("x", "x", minutes=3).occurred_at)
        await ingest.ingest(pool, pub, [erase])
        await ingest.ingest(pool, pub, [interaction("a4", "Hi again, new start", contact="ana", minutes=90)])
        erasure, late = pub.take()
        assert b"erase-ana" in erasure.value and orjson.loads(erasure.value)["payload"] == {}  # clear
        out = await live.process([erasure])
        assert out.applied == 1
        assert count(c, "ana") == {**{t: 0 for t in count(c, "ana")}, "rapport.ledger": 1}  # a4, later
        out = await live.process([late])  # its key is gone: shredded, skipped, not a dead letter
        assert (out.applied, out.skipped, out.dead_letters) == (0, 1, [])
        # the relay re-publishes a4 from the ledger under ana's new key; it starts from zero
        assert (await ingest.relay_once(pool, pub, "proj_v1"))[0] == 1
        out = await live.process(pub.take())
        assert out.applied == 1
        (new_key,) = c.execute("SELECT key FROM rapport.contact_keys WHERE contact_id='ana'").fetchone()
        assert new_key != old_key
        assert c.execute("SELECT message_count FROM proj_v1.contacts WHERE contact_id='ana'").fetchone()[0] == 1

        # the log re-read without its ContactErased record (a fresh broker epoch, tracking records
        # gone with the erasure): ana's erased events stay shredded, nothing comes back
        log = first + [late]
        again = await InteractionPipeline(conn, FakeEmbedder(), broker_epoch="other").process(
            [Record(r.value, r.topic, r.partition, r.offset + 1000, r.key) for r in log])
        assert again.applied == 0 and again.dead_letters == [] and again.skipped == len(log)
        assert c.execute("SELECT count(*) FROM proj_v1.memories WHERE contact_id='ana' AND (content LIKE "
                         "'%Lisbon%' OR content LIKE '%penicillin%' OR content LIKE '%Bruno%')").fetchone()[0] == 0

        # `rapport replay --from log` over the whole log: the same projection as live; re-applying the
        # old erasure erases only the new version's rows -- ana's new key and later events stay
        key = b"r" * 32  # the log's records carry the API's signature (schemas/recordsig.py)
        whole = [(v, 0, i, k, signed_headers(key, k, v)) for i, (k, v) in enumerate(pub.sent)]  # everything the broker got

        async def fake_log(*args, **kw):  # noqa: ANN002, ANN003
            yield whole

        monkeypatch.setenv("RAPPORT_DATABASE_URL", fresh_db)
        monkeypatch.setenv("RAPPORT_KAFKA_URL", "unused:9092")
        monkeypatch.setenv("RAPPORT_BROKER_EPOCH", "unused")  # the live watermarks' epoch is another: read whole
        monkeypatch.setenv("RAPPORT_RECORD_KEY", key.decode())
        monkeypatch.setattr(rp, "log_batches", fake_log)
        r = await rp.replay("v2", "log", verify=True, data_dir=None, progress=False, embedder=FakeEmbedder())
        assert r["verified"] and r["switched"]
        assert c.execute("SELECT key FROM rapport.contact_keys WHERE contact_id='ana'").fetchone()[0] == new_key
        assert c.execute("SELECT content FROM proj_v2.memories WHERE contact_id='ana' AND memory_type='episode'"
                         ).fetchall() == [("Hi again, new start",)]
        assert c.execute("SELECT event_id FROM rapport.ledger WHERE contact_id='ana'").fetchall() == [("a4",)]
        assert c.execute("SELECT count(*) FROM proj_v2.memories WHERE contact_id='bob'").fetchone()[0] >= 1
    finally:
        c.close()
        await conn.close()
        await pool.close()
