"""The OpenAPI document declares the rules the edge enforces (issue 27): each declared pattern accepts
exactly what its check function accepts (or, where JSON Schema cannot say the rule, only what the check
accepts); every string a request carries is bounded in the document; a method a path does not declare
answers 405 naming the ones it does; the document's paths reach their handlers whatever the id holds.
No stack: the requests here are refused, or answered by a stand-in, before any storage is used."""
from __future__ import annotations

import calendar
import re

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from projections import api, edge_routes
from projections.webhook_routes import URL_PATTERN
from schemas import validate
from streams.webhooks import rules
from tests.test_edge_api import H, client  # noqa: F401  (the fixture)

SPEC = api.app.openapi()
# the characters the rules are about, beside arbitrary text
EDGY = st.text(alphabet=st.sampled_from(list("ab0_/ -\t\n\r\x00\x05\x1f\x7f\x85\x9d\xa0\u2028\u2029é\U0001F600")),
               max_size=140)
STRINGS = st.one_of(EDGY, st.text(max_size=140), st.text(min_size=120, max_size=300))


def valid(schema: dict, value: str) -> bool:
    """As JSON Schema reads a pattern (ECMA-262: `$` is the end of the string, never before a final
    newline, as Python's `re.search` would have it), with the validator schemathesis uses."""
    return jsonschema_rs.validator_for(schema).is_valid(value)


@settings(max_examples=400, deadline=None)
@given(STRINGS)
def test_declared_id_and_name_rules_are_the_checks(value):
    assert valid(validate.id_schema(), value) == (validate.check_id(value) is None), repr(value)
    assert valid(validate.contact_id_schema(), value) == (validate.check_contact_id(value) is None), repr(value)
    assert valid({"pattern": validate.NAME_PATTERN}, value) == (validate.check_name(value) is None), repr(value)
    assert valid({"pattern": validate.TEXT_PATTERN}, value) == (validate.check_text(value) is None), repr(value)


def test_the_parity_above_can_fail():
    """A pattern that forgets a character class (C1 controls) differs from its check on U+0085."""
    forgetful = {"pattern": r"^[^\x00-\x1f]*$"}
    assert valid(forgetful, "a\x85") and validate.check_name("a\x85") is not None
    assert not valid({"pattern": validate.NAME_PATTERN}, "a\x85")


@settings(max_examples=200, deadline=None)
@given(STRINGS)
def test_a_byte_limit_is_declared_at_least_as_strictly(value):
    schema = validate.utf8_schema(16)
    if valid(schema, value):
        assert len(value.encode("utf-8")) <= 16
    assert valid(schema, "é" * 4) and not valid(schema, "a" * 5)  # 4 characters whatever they are


def leap_day_of_a_common_year(value: str) -> bool:
    return value[4:10] == "-02-29" and not calendar.isleap(int(value[:4]))


@settings(max_examples=300, deadline=None)
@given(st.from_regex(validate.RFC3339_PATTERN, fullmatch=True))
def test_a_declared_time_is_one_the_parser_reads(value):
    """Whatever the document's pattern allows parses (the window around now aside: JSON Schema cannot
    move with the clock), except 29 February of a common year, which the pattern lets the calendar decide."""
    if leap_day_of_a_common_year(value):
        with pytest.raises(ValueError):
            validate.parse_rfc3339(value)
    else:
        validate.parse_rfc3339(value)


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=validate.EARLIEST.replace(tzinfo=None, year=1971),
                   max_value=validate.EARLIEST.replace(tzinfo=None, year=2999)),  # later: refused as future
       st.integers(-14 * 60, 14 * 60), st.sampled_from(["T", "t", " "]), st.booleans())
def test_a_time_the_server_takes_is_one_the_document_allows(at, offset_min, sep, fraction):
    sign = "+" if offset_min >= 0 else "-"
    text = (at.strftime(f"%Y-%m-%d{sep}%H:%M:%S") + (f".{at.microsecond:06d}" if fraction else "")
            + f"{sign}{abs(offset_min) // 60:02d}:{abs(offset_min) % 60:02d}")
    validate.parse_rfc3339(text)
    assert re.fullmatch(validate.RFC3339_PATTERN, text), text


@settings(max_examples=300, deadline=None)
@given(st.from_regex(URL_PATTERN, fullmatch=True).filter(lambda u: len(u) <= rules.MAX_URL_CHARS))
def test_a_declared_webhook_url_passes_the_text_rules(url):
    assert rules.url_problem(url) is None, url


def request_strings(spec: dict) -> list[tuple[str, str, dict]]:
    """(operation, name, schema) of every string a request carries: parameters and body fields."""
    def resolve(s: dict) -> dict:
        return spec["components"]["schemas"][s["$ref"].rsplit("/", 1)[1]] if "$ref" in s else s

    def strings(s: dict) -> list[dict]:
        s = resolve(s)
        variants = s.get("anyOf") or [s]
        return [v for v in map(resolve, variants) if v.get("type") == "string"]

    found = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            where = f"{method.upper()} {path}"
            for p in op.get("parameters", []):
                found += [(where, p["name"], s) for s in strings(p["schema"])]
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            for obj in [resolve(v) for v in (body or {}).get("anyOf", [body] if body else [])]:
                item = resolve(obj.get("items", obj))
                for name, prop in item.get("properties", {}).items():
                    for s in strings(prop):
                        found.append((where, name, s))
                    found += [(where, f"{name}[]", s) for s in strings(resolve(prop).get("items", {}))]
    return found


def test_every_string_a_request_carries_is_bounded_and_its_characters_declared():
    strings = request_strings(SPEC)
    assert len(strings) > 40  # every operation's parameters and the three bodies' fields
    for where, name, schema in strings:
        assert "enum" in schema or "maxLength" in schema, (where, name)
        # the one free text: /context's query (the user's message, as sent; bounded in bytes)
        if name != "query":
            assert "enum" in schema or "pattern" in schema, (where, name)


def test_the_bodies_declare_what_they_refuse():
    bodies = SPEC["paths"]
    payload = bodies["/payload"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    webhook = bodies["/webhooks"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert payload["additionalProperties"] is False and webhook["additionalProperties"] is False
    event = bodies["/ingest"]["post"]["requestBody"]["content"]["application/json"]["schema"]["anyOf"][0]
    assert event.get("additionalProperties", True) is not False  # /ingest ignores unknown fields: allowed
    assert event["properties"]["contact_id"]["pattern"] == validate.CONTACT_ID_PATTERN
    assert event["properties"]["message"]["x-maxUtf8Bytes"] == 16 * 1024


def test_a_method_a_path_does_not_declare_is_405_naming_those_it_does(client):  # noqa: F811
    for path, ops in SPEC["paths"].items():
        concrete = path.replace("{contact_id}", "c").replace("{webhook_id}", "wh_1").replace("{delivery_id}", "1")
        declared = {m.upper() for m in ops}
        for method in {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE"} - declared:
            r = client.request(method, concrete, headers=H)
            assert r.status_code == 405, (method, concrete, r.status_code)
            assert set(r.headers["allow"].split(", ")) == declared, (method, concrete)
            if method != "HEAD":
                assert isinstance(r.json()["error"], str)


def test_the_most_specific_template_owns_a_path():
    templates = api.templates_of(api.app.routes)
    assert api.allowed_methods(templates, "/contacts/c/memories") == {"GET"}
    assert api.allowed_methods(templates, "/contacts/a/b/export") == {"GET"}
    assert api.allowed_methods(templates, "/contacts/c") == {"DELETE"}
    assert api.allowed_methods(templates, "/webhooks") == {"GET", "POST"}
    assert api.allowed_methods(templates, "/nowhere") is None


def test_an_id_with_a_line_break_reaches_its_handler(client):  # noqa: F811
    for method, path in [("GET", "/context/%0A"), ("GET", "/context/a%0A"), ("GET", "/contacts/a%0A/memories"),
                         ("DELETE", "/contacts/a/memories%0A")]:  # the erasure of contact "a/memories\n"
        r = client.request(method, path, headers=H)
        assert r.status_code == 400 and r.json()["errors"][0]["field"] == "contact_id", (path, r.text)
    r = client.get("/nowhere", headers=H)
    assert r.status_code == 404 and r.json() == {"error": "Not Found"}


def test_a_persona_is_served_and_a_bad_one_is_named_in_text(client, monkeypatch):  # noqa: F811
    """/context?persona_id= answered 400 with `"problem": false` for every valid persona (issue 27)."""
    asked = {}

    async def build_context(tenant_id, contact_id, **kw):
        asked.update(kw, contact_id=contact_id)
        return {"memories": [], "as_of": "2026-04-03T21:00:00Z"}

    monkeypatch.setattr(edge_routes, "build_context", build_context)
    r = client.get("/context/c", params={"persona_id": "support-bot/eu"}, headers=H)
    assert r.status_code == 200 and asked["persona_id"] == "support-bot/eu", r.text
    for bad, problem in [("", "must be 1-256 characters"), ("x" * 257, "must be 1-256 characters"),
                         ("a\x05", "must not contain control characters (found U+0005)")]:
        r = client.get("/context/c", params={"persona_id": bad}, headers=H)
        assert r.status_code == 400 and r.json()["errors"] == [{"field": "persona_id", "problem": problem}]
    r = client.get("/context/c", params={"after": ""}, headers=H)
    assert r.status_code == 400 and r.json()["errors"][0]["problem"] == "must be 1-128 characters"
