"""The OpenAPI document (projections/responses.py on the routes) and the Python client agree: every
request the client sends is an operation of the spec, with parameters and body fields the spec
declares; every operation has a client method; the client's result and request types have the
spec's fields (names, JSON types, which are required). tests/test_client_e2e.py holds real answers
to the served spec."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import httpx
import pytest

from projections.api import app
from rapport_client import Event, Rapport, RapportError, calls
from rapport_client.models import Receipt
from tests import spec as S

SPEC = app.openapi()


def sent_by_every_method() -> list[httpx.Request]:
    """What each client method sends, with every optional argument given (the stand-in API refuses
    them all, so nothing needs a server)."""
    sent: list[httpx.Request] = []
    rapport = Rapport("http://rapport.test", api_key="k", tenant_id="acme", retries=0,
                      transport=httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(418, json={})))
    receipt = Receipt(accepted=1, event_ids=["e1"], duplicates=0)
    receipt._last = {"c": "e1"}
    t = datetime(2026, 4, 3, 21, 0, tzinfo=timezone.utc)
    event = Event(contact_id="c", role="user", message="m", event_id="e1", conversation_id="v", session_id="s",
                  channel="whatsapp", display_name="C", persona_id="p", occurred_at=t, scope="contact",
                  outcome_of="e0", outcome="positive")
    every = [rapport.healthz, lambda: rapport.ingest(event), lambda: rapport.ingest_many([event]),
             lambda: rapport.context("c", query="q", persona_id="p", budget=5, as_of=t, after=receipt, after_timeout=0),
             lambda: rapport.memories("c", status="active", limit=5, cursor="x"), lambda: rapport.triggers("c"),
             lambda: rapport.contacts(q="a", sort="contact_id", limit=5, cursor="x"),
             lambda: rapport.timeline("c", limit=5), rapport.tenants,
             lambda: rapport.export("c"), lambda: rapport.delete_contact("c"),
             lambda: rapport.payload("c", "m", system_prompt="s", service_data={"k": 1}, tools=[{"type": "function"}],
                                     persona_id="p", after="e1", after_timeout=0),
             lambda: rapport.wait_for(receipt, timeout=0), rapport.metrics, rapport.openapi,
             lambda: rapport.create_webhook("https://h.example/", ["*"], description="d"), rapport.webhooks,
             lambda: rapport.webhook("wh_1"), lambda: rapport.delete_webhook("wh_1"),
             lambda: rapport.webhook_deliveries("wh_1", status="dead", limit=5),
             lambda: rapport.retry_delivery("wh_1", 7),
             lambda: rapport.memory("c", "m1", after="e1", after_timeout=0),
             lambda: rapport.correct_memory("c", "m1", content="x", memory_type="fact", importance=0.5, pinned=True),
             lambda: rapport.forget_memory("c", "m1")]
    for call in every:
        with pytest.raises(RapportError):
            call()
    return sent


def body_fields(schema: dict) -> set[str]:
    return {k for s in S.variants(schema, SPEC) for item in [S.resolve(s.get("items", s), SPEC)]
            for k in item.get("properties", {})}


def test_every_request_the_client_sends_is_an_operation_of_the_spec():
    used = set()
    for request in sent_by_every_method():
        found = S.operation(SPEC, request.method, request.url.path)
        # /openapi.json serves the spec and is left out of it
        if request.url.path == "/openapi.json":
            continue
        assert found, f"{request.method} {request.url.path} is not in the spec"
        template, op = found
        used.add((request.method, template))
        declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
        assert set(request.url.params) <= declared, (template, set(request.url.params) - declared)
        if request.content:
            body = json.loads(request.content)
            fields = body_fields(op["requestBody"]["content"]["application/json"]["schema"])
            for item in body if isinstance(body, list) else [body]:
                assert set(item) <= fields, (template, set(item) - fields)
        assert request.headers["authorization"] == "Bearer k"
    every_operation = {(m.upper(), p) for p, ops in SPEC["paths"].items() for m in ops}
    assert used == every_operation  # and every operation has a client method


def test_the_clients_routes_are_the_specs():
    for name, route in calls.ROUTES.items():
        if route.path == "/openapi.json":
            continue
        op = SPEC["paths"][route.path][route.method.lower()]
        declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
        assert set(route.params) == declared, name  # the client can send every parameter there is


@pytest.mark.parametrize("name", [n for n, r in calls.ROUTES.items() if r.result is not None])
def test_the_clients_result_types_have_the_specs_fields(name):
    route = calls.ROUTES[name]
    op = SPEC["paths"][route.path][route.method.lower()]
    client = route.result.model_json_schema(by_alias=True)
    assert S.shape(client, client) == S.shape(S.success_schema(op), SPEC), name


@pytest.mark.parametrize("name", [n for n, r in calls.ROUTES.items() if r.body is not None])
def test_the_clients_request_types_have_the_specs_fields(name):
    route = calls.ROUTES[name]
    op = SPEC["paths"][route.path][route.method.lower()]
    schema = op["requestBody"]["content"]["application/json"]["schema"]
    one = S.variants(schema, SPEC)[0]  # /ingest: one event (or an array of them)
    client = route.body.model_json_schema(by_alias=True)
    assert S.shape(client, client) == S.shape(one, SPEC), name


def test_the_shape_comparison_sees_a_missing_field_a_type_and_requiredness():
    """The comparison above must be able to fail: a result type without one field, with a field of
    another type, or with a required field made optional differs from the spec's."""
    from pydantic import create_model

    from rapport_client import models

    op = SPEC["paths"]["/contacts/{contact_id}/triggers"]["get"]
    spec_shape = S.shape(S.success_schema(op), SPEC)
    fields = {n: (f.annotation, f) for n, f in models.TriggerList.model_fields.items()}
    for name, change in [("no tenant", lambda f: f.pop("tenant_id")),
                         ("tenant an int", lambda f: f.update(tenant_id=(int, ...))),
                         ("tenant optional", lambda f: f.update(tenant_id=(str, None)))]:
        changed = dict(fields)
        change(changed)
        variant = create_model("TriggerList", __base__=models.Result, **changed)
        schema = variant.model_json_schema(by_alias=True)
        assert S.shape(schema, schema) != spec_shape, name


def test_the_answers_are_described_not_filtered():
    """Response models document the answers; the handlers return their JSON themselves, so a field
    the models do not know still reaches the client (CONTRACT.md: answers may gain fields)."""
    from projections import responses

    assert all(m.model_config.get("extra") == "allow" for m in vars(responses).values()
               if isinstance(m, type) and issubclass(m, responses.Answer))
    context = SPEC["paths"]["/context/{contact_id}"]["get"]
    assert S.success_schema(context) == {"$ref": "#/components/schemas/Context"}
    for path, ops in SPEC["paths"].items():
        for method, op in ops.items():
            assert path == "/healthz" or op.get("security") == [{"HTTPBearer": []}], (method, path)


def test_holding_an_answer_to_the_spec_sees_an_undeclared_field_a_missing_one_and_a_wrong_type():
    """What tests/test_client_e2e.py asks of every real answer must be able to fail."""
    schema = {"$ref": "#/components/schemas/TriggerList"}
    trigger = {"id": "t1", "kind": "crisis", "dueAt": "2026-04-03T21:10:00+05:30", "reason": "r", "status": "pending",
               "severity": "high", "humanReview": True, "sourceEventIds": ["e1"], "createdAt": None,
               "category": "self_harm"}
    good = {"contactId": "c", "tenantId": "t", "triggers": [trigger]}
    assert S.problems(schema, SPEC, good) == []
    assert S.problems(schema, SPEC, {**good, "triggers": [{**trigger, "surprise": 1}]}) == [
        "$.triggers[0].surprise: not in the spec"]
    assert S.problems(schema, SPEC, {"contactId": "c", "triggers": []}) == ["$.tenantId: required, missing"]
    assert S.problems(schema, SPEC, {**good, "triggers": [{**trigger, "humanReview": "yes"}]}) == [
        "$.triggers[0].humanReview: str, not boolean"]
    # a ledger row carries its payload's fields: open by design
    row = {"eventId": "e1", "eventType": "InteractionRecorded", "occurredAt": None, "recordedAt": None, "role": "user"}
    assert S.problems({"$ref": "#/components/schemas/ExportedMessage"}, SPEC, row) == []
