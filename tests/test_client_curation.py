"""The Python client's curation calls: the request each sends (the API's field names), the typed answer,
`after=` a correction's receipt, a 404 as NotFound, and a PATCH never retried."""
from __future__ import annotations

import json

import httpx
import pytest

from rapport_client import models as m
from rapport_client.errors import NotFound, Unavailable
from tests.test_client import Api, client, sleeps  # noqa: F401  (a fixture)
from tests.test_mcp_curation import DETAIL, HISTORY


def test_correct_show_and_forget():
    api = Api(httpx.Response(202, json={"eventId": "x1", "memoryId": "m/1"}),
              httpx.Response(200, json={**DETAIL, "contactId": "maya", "tenantId": "default", "history": HISTORY}),
              httpx.Response(202, json={"eventId": "f1", "memoryId": "m/1"}),
              httpx.Response(404, json={"error": "no such memory", "memory_id": "m/1"}))
    rapport = client(api)
    receipt = rapport.correct_memory("maya", "m/1", content="Lives in Pune", memory_type="fact", importance=0.9)
    assert isinstance(receipt, m.CurationReceipt) and receipt.event_id == "x1"
    one = rapport.memory("maya", "m/1", after=receipt)
    assert one.content == "Lives in Pune" and [h.kind for h in one.history] == ["extracted", "corrected"]
    assert one.history[1].event_type == "MemoryCorrected" and one.history[0].content == "Lives in Mumbai"
    assert rapport.forget_memory("maya", "m/1").event_id == "f1"
    with pytest.raises(NotFound):
        rapport.memory("maya", "m/1")
    sent = [(r.method, r.url.raw_path.decode()) for r in api.requests]
    assert sent == [("PATCH", "/contacts/maya/memories/m%2F1"), ("GET", "/contacts/maya/memories/m%2F1?after=x1"),
                    ("DELETE", "/contacts/maya/memories/m%2F1"), ("GET", "/contacts/maya/memories/m%2F1")]
    assert json.loads(api.requests[0].content) == {"content": "Lives in Pune", "memoryType": "fact", "importance": 0.9}


def test_a_correction_is_sent_once_even_when_the_api_is_unavailable(sleeps):
    api = Api(httpx.Response(503, json={"error": "the database is unavailable; retry later", "reason": "x"}))
    with pytest.raises(Unavailable):
        client(api).correct_memory("maya", "m1", pinned=True)
    assert len(api.requests) == 1 and json.loads(api.requests[0].content) == {"pinned": True}
