"""Webhooks, the pure parts: signatures (against the Standard Webhooks example and its own library),
replay protection, the retry schedule, subscription filters, bodies and URL rules."""
from __future__ import annotations

import asyncio
import base64
import dataclasses
import time
from datetime import datetime, timedelta, timezone

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemas import events as ev
from streams.webhooks import addresses, rules, signing
from tests.helpers import interaction

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


# ------------------------------------------------------------------ signatures
def test_signature_is_the_standard_webhooks_example():
    # the example of the Standard Webhooks specification (also reproduced with `openssl dgst -sha256 -hmac`)
    assert signing.signature(SECRET, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, b'{"test": 2432232314}') == \
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    # non-ASCII body bytes are signed as they are (computed apart: printf 'e1.1800000000.{"content":"café ☕"}' |
    # openssl dgst -sha256 -mac HMAC -macopt hexkey:<the secret's base64-decoded bytes> -binary | base64)
    assert signing.signature(SECRET, "e1", 1_800_000_000, '{"content":"café ☕"}'.encode()) == \
        "v1,i8p8XLkaaazmBzpjP43lr3Dx4ZPDmBaGrcuXHlqJ2cE="


def test_the_standard_webhooks_library_verifies_our_deliveries_and_we_verify_its():
    from standardwebhooks.webhooks import Webhook

    secret, body = signing.new_secret(), b'{"id":"e1","type":"TriggerCreated"}'
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
    headers = signing.sign(secret, "e1", body)
    assert Webhook(secret).verify(body, headers) == {"id": "e1", "type": "TriggerCreated"}
    theirs = Webhook(secret).sign("e2", datetime.now(timezone.utc), body.decode())
    assert signing.verify(secret, {"Webhook-Id": "e2", "Webhook-Timestamp": str(int(time.time())),
                                   "Webhook-Signature": theirs}, body) == "e2"


def test_verify_refuses_tampering_other_secrets_replays_and_malformed_headers():
    body, now = b'{"id":"e1"}', 1_800_000_000
    h = signing.sign(SECRET, "e1", body, timestamp=now)
    assert signing.verify(SECRET, h, body, now=now + 299) == "e1"
    bad = [
        (SECRET, h, b'{"id":"e2"}', now),                                       # body changed
        (signing.new_secret(), h, body, now),                                   # another subscription's secret
        (SECRET, {**h, "webhook-id": "e2"}, body, now),                         # id swapped: dedupe id is signed
        (SECRET, h, body, now + 301),                                           # replayed after the window
        (SECRET, h, body, now - 301),                                           # dated in the future
        (SECRET, {**h, "webhook-timestamp": str(now + 1)}, body, now),          # timestamp changed
        (SECRET, {k: v for k, v in h.items() if k != "webhook-signature"}, body, now),
        (SECRET, {**h, "webhook-timestamp": "1e9"}, body, now),
        (SECRET, {**h, "webhook-timestamp": "١٨٠٠٠٠٠٠٠٠"}, body, now),               # not ASCII digits
        (SECRET, {**h, "webhook-signature": "v1,AAAA"}, body, now),
        (SECRET, {**h, "webhook-signature": "v2," + h["webhook-signature"][3:]}, body, now),
    ]
    for secret, headers, b, at in bad:
        with pytest.raises(signing.InvalidSignature):
            signing.verify(secret, headers, b, now=at)
    # several signatures (a receiver rotating its secret): any match is enough
    rotated = {**h, "webhook-signature": "v1,AAAA " + h["webhook-signature"]}
    assert signing.verify(SECRET, rotated, body, now=now) == "e1"


@given(st.text(max_size=1000).map(str.encode), st.text(min_size=1, max_size=64).filter(lambda s: "." not in s),
       st.integers(0, 2_000_000_000), st.integers(0, 1999))
def test_a_signed_body_verifies_and_any_changed_byte_does_not(body, msg_id, t, i):
    h = signing.sign(SECRET, msg_id, body, timestamp=t)
    assert signing.verify(SECRET, h, body, now=t) == msg_id
    if body:
        k = i % len(body)
        changed = body[:k] + bytes([body[k] ^ 0x01]) + body[k + 1:]
        with pytest.raises(signing.InvalidSignature):
            signing.verify(SECRET, h, changed, now=t)


def test_a_body_that_is_not_utf8_is_refused_not_signed_differently():
    # Standard Webhooks signs text: bytes that do not decode have no signature a receiver could check
    with pytest.raises(signing.InvalidSignature):
        signing.sign(SECRET, "e1", b'{"x": "\xff"}', timestamp=1)
    h = signing.sign(SECRET, "e1", b"{}", timestamp=1)
    with pytest.raises(signing.InvalidSignature):
        signing.verify(SECRET, h, b"\xff{}", now=1)


# ------------------------------------------------------------------ the retry schedule
def test_default_schedule_doubles_from_30_s_to_4_h_and_dead_letters_the_12th_failure():
    s = rules.RetrySchedule()
    waits = [s.after_failure(n) for n in range(1, 12)]  # u=0.5: no jitter
    assert waits == [30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 14400, 14400]
    assert s.after_failure(12) is None and s.after_failure(40) is None
    assert 12 * 3600 < sum(waits) < 12.5 * 3600


@given(st.integers(1, 200), st.floats(0, 1), st.floats(0.01, 1000), st.floats(1, 100_000), st.integers(1, 50),
       st.floats(0, 0.5))
def test_schedule_bounds(attempt, u, base, cap, attempts, jitter):
    s = rules.RetrySchedule(attempts=attempts, base_s=base, max_s=cap, jitter=jitter)
    d = s.after_failure(attempt, u)
    if attempt >= attempts:
        assert d is None
        return
    nominal = min(base * 2 ** (attempt - 1), cap)
    assert nominal * (1 - jitter) - 1e-9 <= d <= nominal * (1 + jitter) + 1e-9
    assert s.delay(attempt + 1, 0.5) >= s.delay(attempt, 0.5)  # never shorter the next time


@given(st.integers(1, 11), st.floats(0, 10 ** 7))
def test_retry_after_is_honoured_up_to_the_cap_and_never_shortens_the_wait(attempt, asked):
    s = rules.RetrySchedule()
    d = s.after_failure(attempt, 0.5, asked)
    assert d == max(s.after_failure(attempt, 0.5), min(asked, s.max_s))
    assert rules.retry_after("120") == 120 and rules.retry_after("Wed, 21 Oct 2015 07:28:00 GMT") is None


def test_config_from_env():
    c = rules.Config.from_env({"RAPPORT_WEBHOOK_MAX_ATTEMPTS": "3", "RAPPORT_WEBHOOK_RETRY_BASE_S": "0.5",
                               "RAPPORT_WEBHOOK_ALLOW_PRIVATE": "1"})
    assert (c.schedule.attempts, c.schedule.base_s, c.schedule.max_s, c.allow_private) == (3, 0.5, 14400, True)
    assert rules.Config.from_env({}).allow_private is False


# ------------------------------------------------------------------ what a subscription receives
def trigger(kind: str, event_id: str = "m1", tenant: str = "acme", minutes: float = 0):
    src = interaction(event_id, "whatever", tenant=tenant, minutes=minutes)
    return ev.derived(src, ev.TRIGGER_CREATED, f"trigger:{kind}", {"trigger": {"id": "t", "kind": kind}})


def test_filters():
    assert rules.matches(["*"], ev.MEMORY_EXTRACTED) and rules.matches(["*"], ev.CONTACT_ERASED)
    assert not rules.matches(["*"], ev.MOOD_CLASSIFIED) and not rules.matches(["*"], ev.INTERACTION_RECORDED)
    assert rules.matches(["TriggerCreated:crisis"], ev.TRIGGER_CREATED, "crisis")
    assert not rules.matches(["TriggerCreated:crisis"], ev.TRIGGER_CREATED, "check_in")
    assert rules.matches(["TriggerCreated"], ev.TRIGGER_CREATED, "owner_insight")
    assert not rules.matches(["MemoryExtracted"], ev.MEMORY_SUPERSEDED)
    assert rules.may_match(["TriggerCreated:crisis"], ev.TRIGGER_CREATED)
    assert not rules.may_match(["TriggerCreated:crisis"], ev.MEMORY_EXTRACTED)
    assert rules.filter_problem(["MemoryExtracted", "TriggerCreated:check_in"]) is None
    for bad in ([], "MemoryExtracted", ["MemoryExtracted", "Nope"], ["TriggerCreated:panic"], [1], ["*"] * 99):
        assert rules.filter_problem(bad) is not None, bad


def test_plan_matches_tenant_kind_and_only_events_recorded_after_the_subscription():
    created = datetime(2026, 4, 3, 15, 35, tzinfo=timezone.utc)  # T0 (21:00+05:30) + 5 min
    crisis = rules.Subscription("wh_a", "acme", ("TriggerCreated:crisis",), created)
    everything = rules.Subscription("wh_b", "acme", ("*",), created)
    other = rules.Subscription("wh_c", "other", ("*",), created - timedelta(days=1))
    old, new = trigger("crisis", "m0", minutes=0), trigger("crisis", "m1", minutes=10)
    checkin = trigger("check_in", "m2", minutes=10)
    undated = dataclasses.replace(trigger("crisis", "m3", minutes=10), recorded_at="yesterday")
    got = {(s.webhook_id, e.event_id) for s, e in rules.plan([old, new, checkin, undated], [crisis, everything, other])}
    assert got == {("wh_a", new.event_id), ("wh_b", new.event_id), ("wh_b", checkin.event_id)}


def test_body_leaves_out_vectors_and_is_bounded():
    src = interaction("m1", "I have a dog named Bruno", tenant="acme")
    mem = {"id": "mem1", "content": "Has a dog named Bruno", "embedding": [0.1] * 384}
    e = ev.derived(src, ev.MEMORY_EXTRACTED, "memory", {"memory": mem})
    b = orjson.loads(rules.body(e))
    assert b == {"id": e.event_id, "type": "MemoryExtracted", "tenantId": "acme", "contactId": "arjun",
                 "occurredAt": e.occurred_at, "recordedAt": e.recorded_at, "causationId": "m1",
                 "data": {"memory": {"id": "mem1", "content": "Has a dog named Bruno"}}}
    huge = ev.derived(src, ev.MEMORY_EXTRACTED, "memory", {"memory": {"id": "m", "content": "x" * 70_000}})
    raw = rules.body(huge)
    assert len(raw) < 1024 and orjson.loads(raw)["dataOmitted"] is True and orjson.loads(raw)["data"] is None


# ------------------------------------------------------------------ URLs
def test_url_text_rules():
    assert rules.url_problem("https://hooks.example.com/rapport?x=1") is None
    for bad in ("ftp://example.com/x", "file:///etc/passwd", "https://", "example.com/x", "https://u:p@example.com/",
                "https://example.com/#frag", "https://exa mple.com/", "https://example.com/\n",
                "https://example.com:99999/",
                "https://" + "a" * 2050 + ".com/", 42):
        assert rules.url_problem(bad) is not None, bad


def test_addresses_refused_unless_allowed():
    strict, lax = rules.Config(), rules.Config(allow_private=True)

    def problem(url, cfg):
        return asyncio.run(addresses.address_problem(url, cfg))

    for url in ("http://127.0.0.1:8080/", "http://localhost/", "http://10.1.2.3/", "http://169.254.169.254/latest",
                "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://192.168.1.10:8443/"):
        assert problem(url, strict) is not None, url
    assert "port" in problem("https://93.184.216.34:22/", strict)
    assert problem("https://93.184.216.34/hook", strict) is None
    assert problem("http://127.0.0.1:5001/hook", lax) is None
