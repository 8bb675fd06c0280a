"""Signed broker records (schemas/recordsig.py): the worker applies only what rapport signed; a forged
record (unsigned, signed with another key, or a signed value moved under another key) is a dead letter
with its reason, leaves no tracking record, and the real event with the same id is applied later."""
from __future__ import annotations

import hashlib
import hmac

import pytest

from agents.pipeline import InteractionPipeline, Record
from streams import db
from schemas import recordsig
from schemas.envelope import encode, partition_key
from tests.helpers import FakeEmbedder, interaction

KEY = b"k" * 32
OTHER = b"o" * 32


def test_signature_is_hmac_sha256_over_length_prefixed_tag_key_and_value():
    # by hand: 8-byte big-endian lengths, then the bytes, for the tag, the record key and the value
    msg = (b"\0\0\0\0\0\0\0\x11rapport-record-v1" + b"\0\0\0\0\0\0\0\x03a/b" + b"\0\0\0\0\0\0\0\x02{}")
    assert recordsig.signature(KEY, b"a/b", b"{}") == hmac.new(KEY, msg, hashlib.sha256).hexdigest().encode()
    # the boundary between key and value is part of what is signed
    assert recordsig.signature(KEY, b"a/b{", b"}") != recordsig.signature(KEY, b"a/b", b"{}")


def test_problem_names_each_way_a_record_is_not_rapports():
    v, k = b'{"event_id": "x"}', b"default/ana"
    good = recordsig.signed_headers(KEY, k, v, [("traceparent", b"00-abc")])
    assert good[0] == ("traceparent", b"00-abc") and good[1][0] == "rapport-sig"
    assert recordsig.problem(KEY, k, v, good) is None
    assert recordsig.problem(KEY, k, v, {"rapport-sig": good[1][1]}) is None  # Faust's dict form
    assert recordsig.problem(KEY, k, v, None).startswith("unsigned record")
    assert recordsig.problem(KEY, k, v, [("traceparent", b"x")]).startswith("unsigned record")
    assert recordsig.problem(OTHER, k, v, good).startswith("bad signature")  # another key
    assert recordsig.problem(KEY, b"default/bob", v, good).startswith("bad signature")  # moved to another contact
    assert recordsig.problem(KEY, k, v + b" ", good).startswith("bad signature")  # altered
    assert recordsig.problem(KEY, k, v, good + [good[1]]).startswith("bad signature: 2")
    # re-signing replaces an earlier signature rather than adding a second one
    assert recordsig.signed_headers(KEY, k, v, good) == good
    assert recordsig.signed_headers(None, k, v, [("a", b"b")]) == [("a", b"b")]


def test_short_keys_are_refused_with_where_they_came_from():
    with pytest.raises(ValueError, match="RAPPORT_RECORD_KEY is 5 bytes; at least 32"):
        recordsig.parse_key(" short\n", "RAPPORT_RECORD_KEY")
    assert recordsig.parse_key("x" * 40 + "\n", "f") == b"x" * 40


def signed(env, offset: int, key: bytes = KEY, record_key: bytes | None = None) -> Record:
    k, v = partition_key(env.tenant_id, env.contact_id), encode(env)
    return Record(v, "rapport.interactions", 0, offset, k,
                  recordsig.signed_headers(key, record_key if record_key is not None else k, v))


@pytest.mark.pg
@pytest.mark.asyncio
async def test_the_pipeline_dead_letters_forged_records_and_applies_the_signed_ones(pg_url, version):
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="e", signing_key=KEY)
    good = interaction("s1", "I live in Lisbon", contact="ana")
    forged = interaction("s2", "I live in Forgedville", contact="ana", minutes=1, display_name="Forged")
    unsigned = Record(encode(forged), "rapport.interactions", 0, 1, partition_key("default", "ana"))
    other_key = signed(forged, 2, key=OTHER)
    moved = signed(forged, 3, record_key=b"default/bob")
    out = await p.process([signed(good, 0), unsigned, other_key, moved])
    assert out.applied == 1
    assert [d.reason.split(":")[0] for d in out.dead_letters] == ["unsigned record", "bad signature", "bad signature"]
    with db.connect(pg_url) as c:
        c.execute(f"SET search_path TO {db.schema_of(version)}, rapport, public")
        assert c.execute("SELECT event_id FROM processed_events ORDER BY event_id").fetchall() == [("s1",)]
        assert c.execute("SELECT display_name FROM contacts WHERE contact_id='ana'").fetchone() == (None,)
        assert "Forgedville" not in str(c.execute("SELECT content FROM memories").fetchall())
    # the forged copies left no tracking record: the real s2, signed, is applied
    real = interaction("s2", "I moved to Porto", contact="ana", minutes=1)
    out = await p.process([signed(real, 4)])
    assert (out.applied, out.dead_letters) == (1, [])
    await conn.close()
