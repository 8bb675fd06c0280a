"""Reading JSON schemas (the API's /openapi.json, the client's models) for the tests that hold the
spec, the real answers and the client together."""
from __future__ import annotations

import re
from typing import Any

# schemas whose objects carry fields named by the data: a ledger row's payload fields
OPEN_SCHEMAS = {"ExportedMessage"}
JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list, "object": dict}


def resolve(schema: dict, doc: dict) -> dict:
    while "$ref" in schema:
        *_, where, name = schema["$ref"].split("/")
        schema = (doc.get("components", {}).get("schemas") if where == "schemas" else doc.get("$defs"))[name]
    return schema


def variants(schema: dict, doc: dict) -> list[dict]:
    """The non-null alternatives of an anyOf/oneOf (or the schema itself)."""
    schema = resolve(schema, doc)
    alts = schema.get("anyOf") or schema.get("oneOf")
    if alts is None:
        return [schema]
    return [s for a in alts for s in variants(a, doc) if s.get("type") != "null"]


def shape(schema: dict, doc: dict) -> Any:
    """What a schema says about the JSON, comparable across documents: objects as {name: (shape,
    required)}, arrays as [shape], maps as {"*": shape}, scalars as their JSON type; nullability,
    titles, descriptions, formats and bounds left out."""
    alts = [_shape(s, doc) for s in variants(schema, doc)]
    return alts[0] if len(alts) == 1 else ("anyOf", *sorted(map(repr, alts)))


def _shape(schema: dict, doc: dict) -> Any:
    if "properties" in schema:
        required = set(schema.get("required", []))
        return {k: (shape(v, doc), k in required) for k, v in schema["properties"].items()}
    kind = schema.get("type")
    if kind == "array":
        return [shape(schema.get("items", {}), doc)]
    if kind == "object":
        extra = schema.get("additionalProperties")
        return {"*": shape(extra, doc)} if isinstance(extra, dict) and extra else "object"
    return kind or "any"


def problems(schema: dict, doc: dict, data: Any, at: str = "$") -> list[str]:
    """Where `data` departs from the schema: fields it carries that the schema does not declare,
    required fields it lacks, JSON types that differ. [] when the schema describes it completely."""
    if data is None:
        return []
    found = [_problems(s, doc, data, at) for s in variants(schema, doc)]
    return min(found, key=len)


def _problems(schema: dict, doc: dict, data: Any, at: str) -> list[str]:
    kind = schema.get("type")
    wrong_type = kind in JSON_TYPES and (not isinstance(data, JSON_TYPES[kind])
                                         or (kind != "boolean" and isinstance(data, bool)))
    if wrong_type:
        return [f"{at}: {type(data).__name__}, not {kind}"]
    out = []
    if "properties" in schema and isinstance(data, dict):
        props = schema["properties"]
        out += [f"{at}.{k}: required, missing" for k in schema.get("required", []) if k not in data]
        if schema.get("title") not in OPEN_SCHEMAS:
            out += [f"{at}.{k}: not in the spec" for k in data if k not in props]
        for k, v in data.items():
            if k in props:
                out += problems(props[k], doc, v, f"{at}.{k}")
    elif isinstance(data, dict) and isinstance(schema.get("additionalProperties"), dict):
        for k, v in data.items():
            out += problems(schema["additionalProperties"], doc, v, f"{at}.{k}")
    elif isinstance(data, list) and "items" in schema:
        for i, v in enumerate(data):
            out += problems(schema["items"], doc, v, f"{at}[{i}]")
    return out


def operation(spec: dict, method: str, path: str) -> tuple[str, dict] | None:
    """The spec's (path template, operation) that a concrete request path matches."""
    for template, ops in spec["paths"].items():
        pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
        if re.match(pattern, path) and method.lower() in ops:
            return template, ops[method.lower()]
    return None


def success_schema(op: dict) -> dict | None:
    """The JSON schema of an operation's 2xx answer."""
    for code, answer in op["responses"].items():
        if code.startswith("2"):
            return answer.get("content", {}).get("application/json", {}).get("schema")
    return None
