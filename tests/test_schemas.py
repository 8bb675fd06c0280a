"""schemas/: the envelope, its orjson encoding, payload validation, upcasters and the golden fixtures."""
from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from importlib import resources

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import events as ev
from schemas.codec import decode
from schemas.envelope import (ENVELOPE_FIELDS, Envelope, InvalidEvent, derived_id, encode, scoped_id,
                              format_time, parse_time, partition_key)
from schemas.upcasters import UPCASTERS, upcast


def fixture(name: str) -> dict:
    return json.loads((resources.files("schemas") / "fixtures" / name).read_text())


def valid(**changes) -> dict:
    d = {"event_id": "e-1", "event_type": "InteractionRecorded", "schema_version": 2, "tenant_id": "default",
         "contact_id": "arjun", "occurred_at": "2026-04-03T22:15:00+05:30",
         "recorded_at": "2026-04-03T16:45:00.123456+00:00", "causation_id": None, "correlation_id": "e-1",
         "payload": {"role": "user", "message": "My dog Bruno ate my shoes again", "conversation_id": None,
                     "session_id": "s1", "channel": "whatsapp", "display_name": "Arjun", "persona_id": None}}
    d.update(changes)
    return d


def with_payload(**changes) -> dict:
    d = valid()
    d["payload"] = {**d["payload"], **changes}
    return d


def raw(d: dict) -> bytes:
    return orjson.dumps(d)


# ------------------------------------------------------------------------------------ round trips
def test_decode_valid_event():
    env = decode(raw(valid()))
    assert isinstance(env, Envelope)
    assert (env.event_id, env.event_type, env.schema_version, env.tenant_id, env.contact_id) == (
        "e-1", "InteractionRecorded", 2, "default", "arjun")
    assert env.payload["message"] == "My dog Bruno ate my shoes again"
    assert env.occurred == datetime(2026, 4, 3, 16, 45, tzinfo=timezone.utc)
    assert env.occurred.utcoffset().total_seconds() == 5.5 * 3600  # the producer's offset is kept


def test_encode_decode_round_trip():
    env = ev.interaction(event_id="e-7", tenant_id="acme", contact_id="c-42", occurred_at="2026-04-03T10:00:00Z",
                         recorded_at="2026-04-03T10:00:01+00:00", role="assistant", message="Hi there 👋",
                         session_id="s", channel="web", persona_id="coach")
    data = encode(env)
    assert isinstance(data, bytes)
    assert set(orjson.loads(data)) == set(ENVELOPE_FIELDS)
    assert decode(data) == env
    assert encode(decode(data)) == data  # byte-stable
    assert decode(data.decode()) == env  # str input
    assert decode(orjson.loads(data)) == env  # an already parsed dict


def test_decode_does_not_mutate_a_dict_input():
    d = fixture("InteractionRecorded.v1.json")
    before = json.loads(json.dumps(d))
    decode(d)
    assert d == before


def test_recorded_at_defaults_to_occurred_at():
    d = valid()
    del d["recorded_at"]
    assert decode(raw(d)).recorded_at == d["occurred_at"]


def test_contact_erased_is_a_valid_source_event():
    env = decode(raw(valid(event_type="ContactErased", schema_version=1, payload={})))
    assert env.event_type == ev.CONTACT_ERASED and env.payload == {}


text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)
ident = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=128)


@settings(max_examples=150, deadline=None)
@given(event_id=ident, tenant=ident, contact=ident, message=text, role=st.sampled_from(["user", "assistant"]),
       session=st.none() | ident, when=st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1),
                                                     timezones=st.just(timezone.utc)))
def test_round_trip_property(event_id, tenant, contact, message, role, session, when):
    env = ev.interaction(event_id=event_id, tenant_id=tenant, contact_id=contact, occurred_at=format_time(when),
                         recorded_at=format_time(when), role=role, message=message, session_id=session)
    assert decode(encode(env)) == env
    assert decode(encode(env)).occurred == when


# ------------------------------------------------------------------------------------ decode errors
@pytest.mark.parametrize("data", [b"not json", b"{", b"", b"\xff\xfe", b"{'single': 'quotes'}"])
def test_non_json_is_rejected(data: bytes):
    with pytest.raises(InvalidEvent) as e:
        decode(data)
    assert "not JSON" in e.value.reason


@pytest.mark.parametrize("data", [b"[]", b"[1, 2]", b"42", b'"a string"', b"null"])
def test_non_object_is_rejected(data: bytes):
    with pytest.raises(InvalidEvent):
        decode(data)


@pytest.mark.parametrize("field", ["event_id", "event_type", "schema_version", "tenant_id", "contact_id",
                                   "occurred_at", "payload"])
def test_missing_envelope_fields_are_rejected(field: str):
    d = valid()
    del d[field]
    with pytest.raises(InvalidEvent) as e:
        decode(raw(d))
    assert field in e.value.reason
    d = valid(**{field: None})
    with pytest.raises(InvalidEvent):
        decode(raw(d))


@pytest.mark.parametrize("changes", [
    {"event_id": 17}, {"event_type": ["InteractionRecorded"]}, {"tenant_id": 1}, {"contact_id": {"id": "x"}},
    {"schema_version": "2"}, {"schema_version": 2.0}, {"schema_version": True}, {"payload": ["role", "user"]},
    {"payload": "text"},
])
def test_wrong_types_are_rejected(changes: dict):
    with pytest.raises(InvalidEvent):
        decode(raw(valid(**changes)))


@pytest.mark.parametrize("occurred_at", ["yesterday", "2026-13-01T00:00:00Z", "2026-04-03T25:00:00Z", 1712345678,
                                         "03/04/2026 10:00", "2026-04-03T10:00:00+25:00"])
def test_bad_occurred_at_is_rejected(occurred_at):
    with pytest.raises(InvalidEvent) as e:
        decode(raw(valid(occurred_at=occurred_at)))
    assert "occurred_at" in e.value.reason


def test_unknown_event_type_is_rejected():
    with pytest.raises(InvalidEvent) as e:
        decode(raw(valid(event_type="InteractionDeleted", schema_version=1)))
    assert "InteractionDeleted" in e.value.reason


def test_message_size_limit_is_16_kib_of_utf8():
    decode(raw(with_payload(message="a" * 16 * 1024)))  # exactly at the limit
    with pytest.raises(InvalidEvent) as e:
        decode(raw(with_payload(message="a" * (16 * 1024 + 1))))
    assert "payload.message" in e.value.reason
    # bytes, not characters: 8193 two-byte characters are 16386 bytes
    with pytest.raises(InvalidEvent):
        decode(raw(with_payload(message="é" * 8193)))
    decode(raw(with_payload(message="é" * 8192)))


@pytest.mark.parametrize("role", ["system", "User", "", None, 1, "bot"])
def test_bad_role_is_rejected(role):
    with pytest.raises(InvalidEvent) as e:
        decode(raw(with_payload(role=role)))
    assert "payload.role" in e.value.reason


@pytest.mark.parametrize("message", [None, 42, ["hi"], {"text": "hi"}])
def test_message_must_be_a_string(message):
    with pytest.raises(InvalidEvent) as e:
        decode(raw(with_payload(message=message)))
    assert "payload.message" in e.value.reason


def test_missing_message_is_rejected():
    d = valid()
    del d["payload"]["message"]
    with pytest.raises(InvalidEvent):
        decode(raw(d))


@pytest.mark.parametrize("field", ["conversation_id", "session_id", "channel", "display_name", "persona_id"])
def test_optional_strings_must_be_short_strings(field: str):
    with pytest.raises(InvalidEvent):
        decode(raw(with_payload(**{field: 7})))
    with pytest.raises(InvalidEvent):
        decode(raw(with_payload(**{field: "x" * 257})))
    decode(raw(with_payload(**{field: "x" * 256})))


def test_contact_and_tenant_id_length_limits():
    decode(raw(valid(contact_id="c" * 128, tenant_id="t" * 128)))
    with pytest.raises(InvalidEvent):
        decode(raw(valid(contact_id="c" * 129)))
    with pytest.raises(InvalidEvent):
        decode(raw(valid(tenant_id="t" * 129)))


def test_invalid_event_keeps_the_raw_bytes_of_unparsable_input():
    with pytest.raises(InvalidEvent) as e:
        decode(b"garbage")
    assert e.value.raw == b"garbage"


# ------------------------------------------------------------------------------------ versions
def test_v1_fixture_upcasts_to_exactly_the_v2_fixture():
    v1, v2 = fixture("InteractionRecorded.v1.json"), fixture("InteractionRecorded.v2.json")
    assert v1["schema_version"] == 1 and v2["schema_version"] == 2
    assert upcast(v1) == v2
    assert decode(raw(v1)).to_dict() == v2
    assert decode(raw(v1)) == decode(raw(v2))
    # same content; key order may differ (encode is not canonical), so compare a canonical form
    canonical = lambda env: orjson.dumps(env.to_dict(), option=orjson.OPT_SORT_KEYS)  # noqa: E731
    assert canonical(decode(raw(v1))) == canonical(decode(raw(v2)))


def test_memory_accessed_v1_is_the_v2_event_of_one_id():
    v1, v2 = fixture("MemoryAccessed.v1.json"), fixture("MemoryAccessed.v2.json")
    assert upcast(v1) == v2
    assert decode(raw(v1)) == decode(raw(v2))


def test_v2_fixture_is_current():
    v2 = fixture("InteractionRecorded.v2.json")
    assert v2["schema_version"] == ev.CURRENT_VERSIONS[ev.INTERACTION_RECORDED]
    assert upcast(v2) == v2


def test_every_past_version_has_an_upcaster_and_a_fixture():
    fixtures = {p.name for p in (resources.files("schemas") / "fixtures").iterdir()}
    for event_type, current in ev.CURRENT_VERSIONS.items():
        for version in range(1, current):
            assert (event_type, version) in UPCASTERS
            assert f"{event_type}.v{version}.json" in fixtures
            assert f"{event_type}.v{current}.json" in fixtures


def test_a_newer_schema_version_is_rejected():
    with pytest.raises(InvalidEvent) as e:
        decode(raw(valid(schema_version=3)))
    assert "newer" in e.value.reason
    with pytest.raises(InvalidEvent):
        decode(raw(valid(event_type="ContactErased", schema_version=2, payload={})))


def test_a_version_without_upcaster_is_rejected():
    with pytest.raises(InvalidEvent):
        decode(raw(valid(schema_version=0)))


def test_v1_payload_with_v2_names_is_not_overwritten():
    v1 = fixture("InteractionRecorded.v1.json")
    v1["payload"] = {"role": "assistant", "message": "hello", "speaker": "user", "text": "ignored"}
    up = upcast(v1)
    assert (up["payload"]["role"], up["payload"]["message"]) == ("assistant", "hello")


# ------------------------------------------------------------------------------------ keys, ids, time
def test_partition_key():
    assert partition_key("default", "arjun") == b"default/arjun"
    assert partition_key("acme", "arjun") != partition_key("default", "arjun")
    assert isinstance(partition_key("t", "ç"), bytes)
    assert partition_key("t", "ç") == "t/ç".encode()


def test_derived_id_is_deterministic_and_step_specific():
    a = scoped_id("t", "c", "e-1", "memory:episode")
    assert a == scoped_id("t", "c", "e-1", "memory:episode")
    assert a != scoped_id("t", "c", "e-1", "session")
    assert a != scoped_id("t", "c", "e-2", "memory:episode")
    # the separator keeps (source, step) pairs apart
    assert scoped_id("t", "c", "e-1a", "b") != scoped_id("t", "c", "e-1", "ab")
    # UUIDv5 in the derived namespace over tenant, contact, event id and step, \x1f-separated
    assert a == str(uuid.uuid5(uuid.UUID("6f1c4c5e-8a0e-4d53-9a47-3b0c1f2f9a10"), "t\x1fc\x1fe-1\x1fmemory:episode"))


def test_derived_id_is_scoped_to_tenant_and_contact():
    """Issue 20: producers number events per tenant, so "msg-1" of two tenants (or two contacts) must
    derive different ids, and no split of the parts may collide with another."""
    ids = {scoped_id("acme", "arjun", "msg-1", "memory:episode"), scoped_id("globex", "arjun", "msg-1", "memory:episode"),
           scoped_id("acme", "maya", "msg-1", "memory:episode"), scoped_id("acmea", "rjun", "msg-1", "memory:episode"),
           scoped_id("acme", "arjunmsg-1", "", "memory:episode")}
    assert len(ids) == 5
    src = decode(raw(valid()))
    assert derived_id(src, "session") == scoped_id(src.tenant_id, src.contact_id, src.event_id, "session")


def test_derived_envelope_links_to_its_source():
    src = decode(raw(valid()))
    d = ev.derived(src, ev.SESSION_STARTED, "session:started", {"session": {}})
    assert d.event_id == scoped_id(src.tenant_id, src.contact_id, "e-1", "session:started")
    assert (d.causation_id, d.correlation_id) == ("e-1", "e-1")
    assert (d.tenant_id, d.contact_id, d.occurred_at, d.recorded_at) == (
        src.tenant_id, src.contact_id, src.occurred_at, src.recorded_at)
    assert d.schema_version == ev.CURRENT_VERSIONS[ev.SESSION_STARTED]


def test_parse_time():
    assert parse_time("2026-04-03T10:00:00Z") == datetime(2026, 4, 3, 10, tzinfo=timezone.utc)
    assert parse_time("2026-04-03T10:00:00") == datetime(2026, 4, 3, 10, tzinfo=timezone.utc)  # naive = UTC
    assert parse_time("2026-04-03T15:30:00+05:30") == datetime(2026, 4, 3, 10, tzinfo=timezone.utc)
    for bad in ("", None, "nope"):
        with pytest.raises(ValueError):
            parse_time(bad)
    assert format_time(datetime(2026, 4, 3, 10)) == "2026-04-03T10:00:00+00:00"
