"""Crypto-shredding's pure functions (streams/shredding.py): sealing, opening, what stays clear."""
from __future__ import annotations

import base64

import orjson
import pytest

from schemas import events as ev
from schemas.codec import decode
from schemas.envelope import InvalidEvent, encode
from streams import shredding as sh
from tests.helpers import interaction

KEY = sh.new_key()
IDS = ("acme", "arjun", "evt-1")


def test_round_trip_and_a_fresh_nonce_per_message():
    payload = {"role": "user", "message": "My dog Bruno ate my shoes", "n": [1, 2]}
    a, b = sh.seal_payload(payload, KEY, *IDS), sh.seal_payload(payload, KEY, *IDS)
    assert sh.is_sealed(a) and a["enc"] == sh.SCHEME and len(base64.b64decode(a["nonce"])) == 12
    assert a["nonce"] != b["nonce"] and a["ct"] != b["ct"]
    assert sh.open_payload(a, KEY, *IDS) == sh.open_payload(b, KEY, *IDS) == payload
    assert b"Bruno" not in orjson.dumps(a)


@pytest.mark.parametrize("ids", [("acme", "priya", "evt-1"), ("other", "arjun", "evt-1"), ("acme", "arjun", "evt-2")])
def test_a_ciphertext_does_not_open_under_another_contact_tenant_or_event(ids):
    sealed = sh.seal_payload({"message": "secret"}, KEY, *IDS)
    with pytest.raises(sh.Shredded):
        sh.open_payload(sealed, KEY, *ids)


def test_tampering_a_wrong_key_and_a_missing_key_fail():
    sealed = sh.seal_payload({"message": "secret"}, KEY, *IDS)
    ct = bytearray(base64.b64decode(sealed["ct"]))
    ct[0] ^= 1
    for bad in ({**sealed, "ct": base64.b64encode(bytes(ct)).decode()},
                {**sealed, "nonce": base64.b64encode(b"\0" * 12).decode()}):
        with pytest.raises(sh.Shredded):
            sh.open_payload(bad, KEY, *IDS)
    with pytest.raises(sh.Shredded):
        sh.open_payload(sealed, sh.new_key(), *IDS)
    with pytest.raises(sh.Shredded):
        sh.open_payload(sealed, None, *IDS)  # the key was erased
    # not shredded but malformed: a dead letter with its reason
    for bad in ({**sealed, "enc": "rot13"}, {**sealed, "nonce": "!!"}, {**sealed, "nonce": "AAAA"}):
        with pytest.raises(InvalidEvent):
            sh.open_payload(bad, KEY, *IDS)


def test_only_the_payload_is_sealed_and_empty_payloads_stay_clear():
    e = interaction("m1", "I moved to Berlin", contact="arjun")
    sealed = sh.seal_envelope(e, KEY)
    wire = orjson.loads(encode(sealed))
    assert {k: v for k, v in wire.items() if k != "payload"} == {k: v for k, v in e.to_dict().items()
                                                                  if k != "payload"}
    assert b"Berlin" not in encode(sealed)
    assert sh.seal_envelope(sealed, KEY) == sealed  # never sealed twice
    assert sh.open_dict(wire, KEY) == orjson.loads(encode(e))
    erase = ev.contact_erased(event_id="x", tenant_id="default", contact_id="arjun", at=e.occurred_at)
    assert sh.seal_envelope(erase, None) is erase and not sh.contacts_to_seal([erase])
    assert sh.contacts_to_seal([e, wire, erase.to_dict()]) == {("default", "arjun")}
    plain = e.to_dict()
    assert sh.open_dict(plain, None) is plain  # events from before sealing are accepted as they are


def test_decode_opened_passes_envelopes_and_raises_dead_letter_reasons():
    e = interaction("m2", "hello")
    assert sh.decode_opened(orjson.loads(encode(e))) == decode(encode(e))
    with pytest.raises(InvalidEvent, match="unknown scheme"):
        sh.decode_opened(InvalidEvent("payload sealed with an unknown scheme 'x'"))
    with pytest.raises(InvalidEvent, match="not JSON"):
        sh.decode_opened(sh.parse(b"garbage"))
