"""The Python client (clients/python, rapport_client) without a server: retries and Retry-After,
typed errors, read-your-writes re-asks, batching, where the key comes from. Answers come from an
httpx.MockTransport standing in for the API; tests/test_client_e2e.py runs it against `rapport up`."""
from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from httpx_retries import retry as retry_module

from rapport_client import (AsyncRapport, AuthError, Conflict, Event, InvalidSignature, NotFound, NotReflected, Rapport,
                            RateLimited, Unavailable, ValidationError, verify_webhook)
from rapport_client import PayloadTooLarge, RapportError

RECEIPT = {"accepted": 1, "eventIds": ["e1"], "duplicates": 0}


class Api:
    """A scripted API: answers in order (the last one repeats), every request recorded."""

    def __init__(self, *answers: httpx.Response):
        self.answers, self.requests = list(answers), []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    def bodies(self) -> list:
        return [json.loads(r.content) for r in self.requests]


@pytest.fixture
def sleeps(monkeypatch):
    """The waits the retries ask for, instead of waiting them."""
    asked: list[float] = []
    monkeypatch.setattr(retry_module.time, "sleep", asked.append)

    async def asleep(s):
        asked.append(s)
    monkeypatch.setattr(retry_module.asyncio, "sleep", asleep)
    return asked


def client(api: Api, **options) -> Rapport:
    return Rapport("http://rapport.test", api_key="rk_test_secret", transport=httpx.MockTransport(api), **options)


def test_a_429_is_retried_after_the_servers_retry_after_with_the_same_event_ids(sleeps):
    api = Api(httpx.Response(429, headers={"Retry-After": "3"}, json={"error": "backlog", "tenantId": "t",
                                                                      "backlog": 9, "limit": 5}),
              httpx.Response(202, json=RECEIPT))
    receipt = client(api).ingest({"contact_id": "arjun", "role": "user", "message": "I love biryani"})
    assert receipt.accepted == 1 and receipt.event_ids == ["e1"]
    assert sleeps == [3.0]
    first, second = api.bodies()
    assert first == second and first[0]["event_id"]  # an id fixed before the first attempt: idempotent
    assert api.requests[0].headers["authorization"] == "Bearer rk_test_secret"


def test_without_retry_after_the_waits_back_off_then_the_typed_error(sleeps):
    api = Api(httpx.Response(503, json={"error": "unavailable"}))
    with pytest.raises(Unavailable) as e:
        client(api, retries=3, backoff_s=1.0).memories("arjun")
    assert len(api.requests) == 4 and e.value.status == 503
    # full jitter: the n-th wait lies in [0, backoff x 2^n]
    assert len(sleeps) == 3 and all(0 <= s <= 2.0 ** n for n, s in enumerate(sleeps, start=1))


def test_rate_limited_after_the_retries_carries_retry_after(sleeps):
    api = Api(httpx.Response(429, headers={"Retry-After": "5"}, json={"error": "too many unprocessed events"}))
    with pytest.raises(RateLimited) as e:
        client(api, retries=2).ingest([{"contact_id": "a", "role": "user", "message": "hi"}])
    assert e.value.retry_after == 5.0 and sleeps == [5.0, 5.0] and len(api.requests) == 3


def test_errors_are_typed_and_name_the_fields(sleeps):
    bad = {"error": "invalid events; nothing was accepted",
           "errors": [{"index": 0, "field": "role", "problem": "Input should be 'user' or 'assistant'"}]}
    with pytest.raises(ValidationError) as e:
        client(Api(httpx.Response(422, json=bad))).ingest({"contact_id": "a", "role": "user", "message": "x"})
    assert e.value.fields == ["role"] and e.value.errors[0].index == 0 and "role: Input should be" in str(e.value)
    with pytest.raises(AuthError):
        client(Api(httpx.Response(401, json={"error": "invalid or revoked API key"}))).triggers("a")
    assert sleeps == []  # refusals are not retried


def test_after_asks_again_while_the_api_answers_504_then_gives_up(sleeps):
    late = httpx.Response(504, json={"error": "event not reflected in the projections yet", "event_id": "e1"})
    api = Api(late, late, httpx.Response(200, json=CONTEXT))
    ctx = client(api).context("arjun", query="where do I live?", after="e1")
    assert ctx.context_text == "Knows: lives in Berlin" and ctx.memories[0].memory_type == "fact"
    assert len(api.requests) == 3 and all(r.url.params["after"] == "e1" for r in api.requests)
    with pytest.raises(NotReflected) as e:
        client(Api(late)).context("arjun", after="e1", after_timeout=0)
    assert e.value.event_id == "e1"
    assert sleeps == []  # the API did the waiting, 5 s per ask


def test_a_receipt_as_after_waits_for_that_contacts_last_event():
    api = Api(httpx.Response(202, json={"accepted": 3, "eventIds": ["a1", "b1", "a2"], "duplicates": 0}),
              httpx.Response(200, json=CONTEXT))
    rapport = client(api)
    receipt = rapport.ingest([Event(contact_id="a", role="user", message="one", event_id="a1"),
                              Event(contact_id="b", role="user", message="two", event_id="b1"),
                              Event(contact_id="a", role="assistant", message="three", event_id="a2")])
    rapport.context("a", after=receipt)
    assert api.requests[1].url.params["after"] == "a2"
    with pytest.raises(ValueError):
        rapport.context("c", after=receipt)


def test_ingest_many_sends_batches_in_order_and_merges_the_receipts():
    def answer(request):
        ids = [e["event_id"] for e in json.loads(request.content)]
        return httpx.Response(202, json={"accepted": len(ids), "eventIds": ids, "duplicates": 0})

    sent = []
    rapport = Rapport("http://rapport.test", api_key="k",
                      transport=httpx.MockTransport(lambda r: sent.append(r) or answer(r)))
    events = ({"contact_id": f"c{i % 3}", "role": "user", "message": f"message {i}"} for i in range(1201))
    receipt = rapport.ingest_many(events, batch_size=500)
    assert [len(json.loads(r.content)) for r in sent] == [500, 500, 201]
    messages = [e["message"] for r in sent for e in json.loads(r.content)]
    assert messages == [f"message {i}" for i in range(1201)]
    assert receipt.accepted == 1201 and len(set(receipt.event_ids)) == 1201
    assert receipt.last_event_id("c0") == json.loads(sent[-1].content)[-1]["event_id"]  # message 1200 is c0's
    with pytest.raises(ValueError):  # as before, and a typed error of the client's, naming the body
        rapport.ingest([{"contact_id": "c", "role": "user", "message": "m"}] * 1001)
    with pytest.raises(PayloadTooLarge) as too_many:
        rapport.ingest([{"contact_id": "c", "role": "user", "message": "m"}] * 1001)
    assert too_many.value.fields == ["body"] and isinstance(too_many.value, RapportError)
    with pytest.raises(ValidationError) as empty:
        rapport.ingest([])
    assert empty.value.errors[0].problem == "no events" and len(sent) == 3  # nothing sent for either


def test_a_failed_batch_says_what_was_recorded_before_it():
    answers = iter([httpx.Response(202, json={"accepted": 2, "eventIds": ["1", "2"], "duplicates": 0}),
                    httpx.Response(413, json={"error": "too large", "errors": [{"field": "body", "problem": "x"}]})])
    rapport = Rapport("http://rapport.test", api_key="k", transport=httpx.MockTransport(lambda r: next(answers)))
    with pytest.raises(ValidationError) as e:
        rapport.ingest_many([{"contact_id": "c", "role": "user", "message": str(i)} for i in range(4)], batch_size=2)
    assert e.value.status == 413 and e.value.receipt.event_ids == ["1", "2"]


def test_healthz_reports_a_starting_stack_instead_of_waiting(sleeps):
    starting = {"status": "starting", "degraded": False, "reasons": [], "broker": False, "database": True,
                "cache": True, "workers": 0, "ok": False, "lag": {"events": 0, "oldestAgeS": None}}
    api = Api(httpx.Response(503, json=starting))
    h = client(api).healthz()
    assert h.status == "starting" and not h.ok and h.lag.oldest_age_s is None
    assert len(api.requests) == 1 and sleeps == []


def test_the_key_comes_from_the_argument_then_the_environment_then_the_key_file(tmp_path, monkeypatch):
    from rapport_client import settings

    monkeypatch.delenv("RAPPORT_API_KEY", raising=False)
    monkeypatch.delenv("RAPPORT_API_KEY_FILE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert settings.api_key() is None  # no key anywhere: keyless (or a 401 AuthError)
    (tmp_path / ".rapport").mkdir()
    (tmp_path / ".rapport" / "api-key").write_text("rk_file_1\n")
    assert settings.api_key() == "rk_file_1"  # `rapport up`'s key file in the default data dir
    (tmp_path / "other").write_text("rk_file_2\n")
    monkeypatch.setenv("RAPPORT_API_KEY_FILE", str(tmp_path / "other"))
    assert settings.api_key() == "rk_file_2"
    monkeypatch.setenv("RAPPORT_API_KEY", "rk_env")
    assert settings.api_key() == "rk_env"
    # what the caller names beats the environment
    assert settings.api_key("rk_arg") == "rk_arg"
    assert settings.api_key(key_file=tmp_path / ".rapport" / "api-key") == "rk_file_1"
    with pytest.raises(FileNotFoundError):
        settings.api_key(key_file=tmp_path / "missing")  # a key file named must exist


def test_the_async_client_retries_and_waits_alike(sleeps):
    late = httpx.Response(504, json={"error": "event not reflected in the projections yet", "event_id": "e1"})
    api = Api(httpx.Response(429, headers={"Retry-After": "2"}, json={"error": "backlog"}),
              httpx.Response(202, json=RECEIPT), late, httpx.Response(200, json=CONTEXT))

    async def run():
        async with AsyncRapport("http://rapport.test", api_key="k", transport=httpx.MockTransport(api)) as rapport:
            receipt = await rapport.ingest({"contact_id": "arjun", "role": "user", "message": "I moved to Berlin"})
            return await rapport.context("arjun", after=receipt)

    ctx = asyncio.run(run())
    assert ctx.state.relationship_stage == "building" and sleeps == [2.0] and len(api.requests) == 4
    assert api.requests[3].url.params["after"] == json.loads(api.requests[0].content)[0]["event_id"]


HOOK = {"id": "wh_0123456789abcdef", "tenantId": "acme", "url": "https://ops.example.com/rapport",
        "events": ["TriggerCreated:crisis"], "description": "pager", "createdAt": "2026-04-03T21:10:00+00:00",
        "pending": 0, "dead": 1}
DEAD = {"deliveryId": 7, "eventId": "e1", "eventType": "TriggerCreated", "contactId": "arjun", "status": "dead",
        "attempts": 12, "nextAttemptAt": None, "lastStatus": 503, "lastError": "HTTP 503",
        "createdAt": "2026-04-03T21:10:00+00:00", "finishedAt": "2026-04-04T09:10:00+00:00"}


def test_webhook_methods_send_the_tenant_and_read_the_answers(sleeps):
    api = Api(httpx.Response(201, json={**HOOK, "secret": "whsec_abc"}),
              httpx.Response(200, json={"tenantId": "acme", "webhooks": [HOOK]}),
              httpx.Response(200, json={"webhookId": HOOK["id"], "deliveries": [DEAD]}),
              httpx.Response(202, json={"deliveryId": 7, "status": "pending"}),
              httpx.Response(200, json={"id": HOOK["id"], "deleted": True}))
    rapport = client(api, tenant_id="acme")
    made = rapport.create_webhook("https://ops.example.com/rapport", ["TriggerCreated:crisis"], description="pager")
    assert made.secret == "whsec_abc" and made.id == HOOK["id"] and made.created_at.year == 2026
    assert rapport.webhooks().webhooks[0].dead == 1
    (dead,) = rapport.webhook_deliveries(made.id, status="dead", limit=5).deliveries
    assert (dead.delivery_id, dead.last_status, dead.last_error, dead.next_attempt_at) == (7, 503, "HTTP 503", None)
    assert rapport.retry_delivery(made.id, dead.delivery_id).status == "pending"
    assert rapport.delete_webhook(made.id).deleted
    create, listing, deliveries, retry, delete = api.requests
    assert json.loads(create.content) == {"url": "https://ops.example.com/rapport", "events": ["TriggerCreated:crisis"],
                                          "description": "pager", "tenant_id": "acme"}
    assert (listing.method, listing.url.path, dict(listing.url.params)) == ("GET", "/webhooks", {"tenant_id": "acme"})
    assert deliveries.url.path == f"/webhooks/{HOOK['id']}/deliveries"
    assert dict(deliveries.url.params) == {"tenant_id": "acme", "status": "dead", "limit": "5"}
    assert (retry.method, retry.url.path) == ("POST", f"/webhooks/{HOOK['id']}/deliveries/7/retry")
    assert (delete.method, delete.url.path) == ("DELETE", f"/webhooks/{HOOK['id']}")
    assert sleeps == []


def test_a_webhook_id_stays_one_path_segment():
    api = Api(httpx.Response(404, json={"error": "no such webhook", "webhookId": "a/../b"}))
    with pytest.raises(NotFound) as e:
        client(api).webhook("a/../b")
    assert api.requests[0].url.raw_path == b"/webhooks/a%2F..%2Fb" and e.value.body["webhookId"] == "a/../b"


def test_posts_that_are_not_idempotent_are_sent_once_and_conflicts_are_typed(sleeps):
    """A lost answer to POST /webhooks retried would subscribe twice, and a retried retry would answer
    409: both are sent once, whatever the retry policy; a 409 is Conflict."""
    api = Api(httpx.Response(503, json={"error": "unavailable"}))
    with pytest.raises(Unavailable):
        client(api, retries=3).create_webhook("https://h.example/", ["*"])
    assert len(api.requests) == 1
    with pytest.raises(Unavailable):
        client(api, retries=3).retry_delivery("wh_1", 7)
    assert len(api.requests) == 2 and sleeps == []
    busy = {"error": "only a dead delivery can be retried; this one is pending", "deliveryId": 7}
    with pytest.raises(Conflict) as e:
        client(Api(httpx.Response(409, json=busy))).retry_delivery("wh_1", 7)
    assert e.value.status == 409 and "this one is pending" in str(e.value)
    with pytest.raises(Unavailable):
        client(api, retries=1).webhooks()  # a read is retried as before
    assert len(api.requests) == 4


def test_the_async_client_manages_webhooks_alike():
    api = Api(httpx.Response(201, json={**HOOK, "secret": "whsec_abc"}), httpx.Response(200, json=HOOK))

    async def run():
        async with AsyncRapport("http://rapport.test", api_key="k", transport=httpx.MockTransport(api)) as rapport:
            made = await rapport.create_webhook(HOOK["url"], HOOK["events"])
            return made, await rapport.webhook(made.id)

    made, got = asyncio.run(run())
    assert made.secret == "whsec_abc" and got.url == HOOK["url"] and "secret" not in got.model_dump()
    assert json.loads(api.requests[0].content) == {"url": HOOK["url"], "events": HOOK["events"]}
    assert api.requests[1].url.path == f"/webhooks/{HOOK['id']}"


# ------------------------------------------------------------------ verifying deliveries
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def test_verify_webhook_accepts_the_standard_webhooks_example():
    # the Standard Webhooks specification's example (tests/test_webhooks.py checks the server signs it alike)
    headers = {"Webhook-Id": "msg_p5jXN8AQM9LWM0D4loKWxJek", "Webhook-Timestamp": "1614265330",
               "Webhook-Signature": "v1,bm9ldHZhbGlk v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="}
    body = b'{"test": 2432232314}'
    assert verify_webhook(SECRET, headers, body, now=1614265330 + 10) == "msg_p5jXN8AQM9LWM0D4loKWxJek"
    for bad in [(SECRET, headers, body + b" ", 1614265330),                 # a byte more
                ("whsec_" + "A" * 32, headers, body, 1614265330),           # another secret
                (SECRET, headers, body, 1614265330 + 301)]:                 # replayed after the window
        with pytest.raises(InvalidSignature):
            verify_webhook(*bad[:3], now=bad[3])


HEADER_CHANGES = st.sampled_from(["none", "drop-id", "drop-signature", "other-id", "timestamp+1", "leading-zero",
                                  "not-digits", "v2", "other-secret", "two-signatures", "late", "early"])


@given(body=st.text(max_size=300).map(str.encode), msg_id=st.text(st.characters(codec="ascii", min_codepoint=33), min_size=1,
                                                    max_size=40),
       t=st.integers(1_600_000_000, 1_900_000_000), change=HEADER_CHANGES, flip=st.integers(-1, 299))
def test_the_client_and_the_server_judge_every_delivery_alike(body, msg_id, t, change, flip):
    """The server's signing.verify and the client's verify_webhook (implemented apart: the client
    imports nothing of the server) accept and refuse the same signed bytes; what the server signs the
    client accepts, and a changed byte of the body it refuses. Bodies are UTF-8, as every delivery is
    (the server signs with the standardwebhooks package, which signs text)."""
    from streams.webhooks import signing

    h = signing.sign(SECRET, msg_id, body, timestamp=t)
    now = t + {"late": 301, "early": -301}.get(change, 0)
    h = {"none": h, "drop-id": {k: v for k, v in h.items() if k != "webhook-id"},
         "drop-signature": {k: v for k, v in h.items() if k != "webhook-signature"},
         "other-id": {**h, "webhook-id": msg_id + "x"}, "timestamp+1": {**h, "webhook-timestamp": str(t + 1)},
         "leading-zero": {**h, "webhook-timestamp": "0" + str(t)}, "not-digits": {**h, "webhook-timestamp": f"{t}.0"},
         "v2": {**h, "webhook-signature": "v2" + h["webhook-signature"][2:]},
         "other-secret": signing.sign(signing.new_secret(), msg_id, body, timestamp=t),
         "two-signatures": {**h, "webhook-signature": "v1,AAAA " + h["webhook-signature"]}}.get(change, h)
    if 0 <= flip < len(body):
        body = body[:flip] + bytes([body[flip] ^ 1]) + body[flip + 1:]

    def judge(verify):
        try:
            return verify(SECRET, h, body, now=now)
        except (signing.InvalidSignature, InvalidSignature) as e:
            return type(e).__name__

    server, client_says = judge(signing.verify), judge(verify_webhook)
    assert server == client_says
    expect_ok = change in ("none", "leading-zero", "two-signatures") and not 0 <= flip < len(body)
    assert client_says == (msg_id if expect_ok else "InvalidSignature")


CONTEXT = {
    "contact": {"contactId": "arjun", "displayName": "Arjun", "channel": "whatsapp"},
    "state": {"mood": "happy", "moodConfidence": 0.8, "energy": "high", "style": "casual",
              "relationshipStage": "building", "activeStreak": 2, "sessionCount": 3, "churnRisk": 0.0},
    "memories": [{"id": "m1", "memoryType": "fact", "content": "Lives in Berlin", "importance": 0.8, "score": 0.9,
                  "entityRefs": ["place:berlin"], "sourceEventIds": ["e1"], "createdAt": "2026-04-03T21:10:00+05:30",
                  "tier": "active", "section": "memories"}],
    "entities": [], "history": [], "context_text": "Knows: lives in Berlin", "memory_budget": 500,
    "as_of": "2026-04-03T21:11:00+05:30"}


def test_after_timeout_bounds_the_wait_below_the_apis_five_seconds():
    """A real socket: the stand-in API holds every ask 5 s then answers 504, as the API does for an
    `after=` event it has not reflected. after_timeout=1 must give up after about 1 s, not 5."""
    import http.server
    import threading
    import time

    class Held(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            time.sleep(5)
            body = json.dumps({"error": "event not reflected in the projections yet", "event_id": "e1"}).encode()
            try:
                self.send_response(504)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the client gave up first

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Held)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for make in (lambda: Rapport(url, api_key="k"), lambda: AsyncRapport(url, api_key="k")):
            started = time.monotonic()
            with pytest.raises(NotReflected) as e:
                rapport = make()
                if isinstance(rapport, AsyncRapport):
                    asyncio.run(rapport.context("arjun", after="e1", after_timeout=1))
                else:
                    rapport.context("arjun", after="e1", after_timeout=1)
            took = time.monotonic() - started
            assert 0.9 <= took < 2.5, took
            assert e.value.event_id == "e1" and isinstance(e.value, RapportError)
    finally:
        server.shutdown()
        server.server_close()


def test_bad_values_raise_the_clients_error_naming_the_field_before_sending():
    from rapport_client import InvalidRequest
    with pytest.raises(RapportError) as e:
        Event(contact_id="arjun", message="hi")  # no role
    assert isinstance(e.value, InvalidRequest) and isinstance(e.value, ValidationError)
    assert isinstance(e.value, ValueError)  # as pydantic's own error was: `except ValueError` still works
    assert e.value.fields == ["role"] and "role: Field required" in str(e.value) and "http" not in str(e.value)
    with pytest.raises(InvalidRequest) as e:
        Event(contact_id="arjun", role="user", message="hi", occurred_at="not a time")
    assert e.value.fields == ["occurred_at"]
    with pytest.raises(InvalidRequest) as e:
        Event.model_validate({"contact_id": "arjun", "role": "user"})
    assert e.value.fields == ["message"]
    api = Api(httpx.Response(202, json=RECEIPT))
    rapport = client(api)
    with pytest.raises(RapportError) as e:  # too many for one /ingest: typed, and still a ValueError
        rapport.ingest([{"contact_id": "a", "role": "user", "message": str(i)} for i in range(1001)])
    assert isinstance(e.value, PayloadTooLarge) and isinstance(e.value, ValueError)
    with pytest.raises(RapportError) as e:
        rapport.ingest_many([])
    assert isinstance(e.value, ValueError) and e.value.fields == ["body"]
    with pytest.raises(InvalidRequest) as e:
        rapport.ingest_many([{"contact_id": "a", "role": "user", "message": "x"}], batch_size=0)
    assert e.value.fields == ["batch_size"]
    with pytest.raises(InvalidRequest) as e:
        rapport.correct_memory("a", "m1", importance="very")
    assert e.value.fields == ["importance"]
    receipt = rapport.ingest({"contact_id": "a", "role": "user", "message": "x"})
    with pytest.raises(InvalidRequest) as e:
        rapport.context("someone-else", after=receipt)
    assert e.value.fields == ["after"]
    assert len(api.requests) == 1  # only the valid ingest was sent
