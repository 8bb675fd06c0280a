"""Tenant-scoped identity (issue 20), on the pure fold: tenants and contacts whose producers reuse the
same event ids ("msg-1": chat engines number messages per tenant) each get the projection they get
alone, whatever the interleaving. The model projection below keeps rows in ONE key space by id alone,
with insert-if-absent and update-by-id (what the tables did before migration 0008): so the property
holds only if no derived id of one tenant or contact can equal another's."""
from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.core.contact import apply_interaction, new_state, plan_memories
from schemas import events as ev
from streams import tracking_key
from tests.helpers import interaction

TENANTS = ["acme", "globex", "initech"]
CONTACTS = ["c1", "c2"]
MESSAGES = ["I live in Paris.", "I work at Airbus as an engineer.", "I moved to Berlin last month.",
            "As I said, I am an engineer.", "I want to kill myself, I can't go on",
            "My dog Bruno ate my shoes again", "My sister Priya is visiting next week", "I love sushi",
            "I started learning the guitar", "I work at Infosys"]


def model_project(events) -> tuple[dict, dict]:
    """Fold every event into its contact's state and apply the derived events to one global table of
    rows keyed by id alone: memories and triggers by their id, derived events by event id."""
    states: dict[tuple[str, str], dict] = {}
    rows: dict[str, dict] = {}
    for e in events:
        k = (e.tenant_id, e.contact_id)
        s = states.get(k) or new_state(*k)
        s, derived = apply_interaction(s, e, plan_memories(e))
        states[k] = s
        for d in derived:
            rows.setdefault("event:" + d.event_id, {"owner": k, "type": d.event_type, "payload": d.payload})
            p = d.payload
            if d.event_type == ev.MEMORY_EXTRACTED:
                rows.setdefault("memory:" + p["memory"]["id"], {"owner": k, "content": p["memory"]["content"],
                                                               "status": "active", "sources": [e.event_id]})
            elif d.event_type == ev.TRIGGER_CREATED:
                rows.setdefault("trigger:" + p["trigger"]["id"], {"owner": k, "kind": p["trigger"]["kind"]})
            elif d.event_type == ev.MEMORY_SUPERSEDED and "memory:" + p["memoryId"] in rows:
                rows["memory:" + p["memoryId"]]["status"] = "superseded"
            elif d.event_type == ev.MEMORY_REINFORCED and "memory:" + p["memoryId"] in rows:
                rows["memory:" + p["memoryId"]]["sources"].append(p["sourceEventId"])
    return states, rows


def view(states: dict, rows: dict, tenant: str) -> tuple[dict, dict]:
    return ({k: s for k, s in states.items() if k[0] == tenant},
            {i: r for i, r in rows.items() if r["owner"][0] == tenant})


@st.composite
def streams(draw):
    """Per tenant: events over its contacts with event ids from a small shared pool (unique within the
    tenant: idempotency is per tenant), then one random interleaving that keeps each contact's order."""
    per_tenant = {}
    for t in draw(st.lists(st.sampled_from(TENANTS), min_size=2, max_size=3, unique=True)):
        n = draw(st.integers(2, 6))
        ids = draw(st.permutations([f"msg-{i}" for i in range(1, 7)]))[:n]
        per_tenant[t] = [interaction(eid, draw(st.sampled_from(MESSAGES)), tenant=t,
                                     contact=draw(st.sampled_from(CONTACTS)), minutes=i * 3)
                         for i, eid in enumerate(ids)]
    queues = {t: list(es) for t, es in per_tenant.items()}
    mixed = []
    while any(queues.values()):
        t = draw(st.sampled_from(sorted(t for t, q in queues.items() if q)))
        mixed.append(queues[t].pop(0))
    return per_tenant, mixed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_each_tenants_projection_equals_the_one_it_gets_alone(data):
    per_tenant, mixed = data
    states, rows = model_project(mixed)
    for t, alone in per_tenant.items():
        assert view(states, rows, t) == model_project(alone), t
    # and no row of the shared key space is claimed by two owners' derived events
    owners: dict[str, set] = {}
    for e in mixed:
        k = (e.tenant_id, e.contact_id)
        s, derived = apply_interaction(new_state(*k), e, plan_memories(e))
        for d in derived:
            owners.setdefault(d.event_id, set()).add(k)
    assert all(len(o) == 1 for o in owners.values())


def test_the_issue_scenario_on_the_fold():
    """Tenant A's facts and crisis under col-1/col-2; tenant B's own under the same ids: B's memories,
    trigger, supersession and reinforcement are its own (issue 20, reproduced on main)."""
    a = [interaction("col-1", "I live in Paris. I work at Airbus as an engineer.", tenant="A", contact="sam"),
         interaction("col-2", "I want to kill myself, I can't go on", tenant="A", contact="sam", minutes=1)]
    b = [interaction("col-1", "I live in Paris. I work at Airbus as an engineer.", tenant="B", contact="sam",
                     minutes=2),
         interaction("col-2", "I want to kill myself, I can't go on", tenant="B", contact="sam", minutes=3),
         interaction("col-3", "I moved to Berlin last month.", tenant="B", contact="sam", minutes=4),
         interaction("col-4", "As I said, I am an engineer.", tenant="B", contact="sam", minutes=5)]
    states, rows = model_project(a + b)
    _, rows_a = view(states, rows, "A")
    _, rows_b = view(states, rows, "B")
    assert view(states, rows, "B") == model_project(b)
    mem_a = {r["content"]: r for i, r in rows_a.items() if i.startswith("memory:")}
    mem_b = {r["content"]: r for i, r in rows_b.items() if i.startswith("memory:")}
    assert mem_a["Lives in Paris"]["status"] == "active"  # B's move supersedes only B's
    assert mem_b["Lives in Paris"]["status"] == "superseded"
    assert [r["kind"] for i, r in rows_b.items() if i.startswith("trigger:")].count("crisis") == 1
    assert [r["kind"] for i, r in rows_a.items() if i.startswith("trigger:")].count("crisis") == 1
    engineer_a = [r for c, r in mem_a.items() if "engineer" in c.lower()]
    assert engineer_a and all(r["sources"] == ["col-1"] for r in engineer_a)  # not reinforced by B's col-4
    assert any("col-4" in r["sources"] for c, r in mem_b.items() if "engineer" in c.lower())


# ------------------------------------------------------------------ the tracking key
def test_erased_tracking_id_is_a_keyed_hash(monkeypatch):
    monkeypatch.delenv(tracking_key.ENV_FILE, raising=False)
    monkeypatch.setenv(tracking_key.ENV_KEY, "k" * 32)
    tid = tracking_key.erased_tracking_id("acme", "+4915112345678")
    mac = hmac.new(b"k" * 32, "erased-contact\x1facme\x1f+4915112345678".encode(), hashlib.sha256).hexdigest()
    assert tid == "erased:" + mac[:32]
    assert tid[7:] not in hashlib.sha256(b"acme/+4915112345678").hexdigest()  # not the unsalted hash of old
    monkeypatch.setenv(tracking_key.ENV_KEY, "another-secret-of-the-data-dir")
    assert tracking_key.erased_tracking_id("acme", "+4915112345678") != tid
    assert tracking_key.event_tombstone("acme", "msg-1") != tracking_key.event_tombstone("globex", "msg-1")


def test_key_file_is_created_0600_and_refused_when_unsafe(tmp_path, monkeypatch):
    import os
    import stat

    f = tracking_key.ensure_file(tmp_path / "tracking-key")
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    first = f.read_text()
    assert tracking_key.ensure_file(f).read_text() == first  # kept on the next start
    monkeypatch.delenv(tracking_key.ENV_KEY, raising=False)
    monkeypatch.setenv(tracking_key.ENV_FILE, str(f))
    assert tracking_key.key() == first.strip().encode()
    link = tmp_path / "planted"
    link.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(tracking_key.TrackingKeyError):
        tracking_key.ensure_file(link)  # a planted symlink is neither followed nor accepted
    assert not (tmp_path / "elsewhere").exists()
    os.chmod(f, 0o644)
    monkeypatch.setenv(tracking_key.ENV_FILE, str(f) + "")  # same path: re-read is forced below
    tracking_key._cached = None
    with pytest.raises(tracking_key.TrackingKeyError):
        tracking_key.key()
    monkeypatch.setenv(tracking_key.ENV_KEY, "short")
    with pytest.raises(tracking_key.TrackingKeyError):
        tracking_key.key()
