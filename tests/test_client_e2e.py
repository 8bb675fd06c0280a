"""The Python client against `rapport up`: every route through rapport_client with the answers held
to the served /openapi.json, the async client, a fresh virtualenv holding only the client package,
and the example bot (examples/chat_bot.py) talking to the local model stub. One stack for all."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from rapport_client import AsyncRapport, AuthError, Event, NotFound, NotReflected, Rapport, ValidationError
from tests import spec as S
from tests.llm_stub import Stub
from tests.conftest import BACKENDS, stack_per_backend

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", params=BACKENDS)
def stack(tmp_path_factory, request):
    yield from stack_per_backend(tmp_path_factory, request, "client-e2e")


class Recording(httpx.HTTPTransport):
    """The real transport, keeping every answer's JSON (to hold it to the spec)."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[tuple[str, str, int, object]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        response.read()
        if response.headers.get("content-type", "").startswith("application/json"):
            self.answers.append((request.method, request.url.path, response.status_code, response.json()))
        return response


def chat(contact: str, run: str) -> list[Event]:
    lines = [("user", "Hi! I'm Arjun, a software engineer at Infosys."), ("assistant", "Nice to meet you, Arjun!"),
             ("user", "I have a golden retriever named Bruno, he's three."),
             ("user", "My dog Bruno ate my shoes again this morning"),
             ("user", "I can't take this anymore. I want to die.")]  # crisis language: a trigger
    return [Event(contact_id=contact, role=r, message=text, event_id=f"{run}-{i}", display_name="Arjun",
                  channel="whatsapp", occurred_at=f"2026-04-03T21:{10 + i:02d}:00+05:30")
            for i, (r, text) in enumerate(lines)]


def test_every_route_through_the_client_and_the_answers_are_what_the_spec_says(stack):
    run = uuid.uuid4().hex[:6]
    contact = f"arjun-{run}"
    recording = Recording()
    with Rapport(stack.url, api_key=stack.api_key, transport=recording) as rapport:
        assert rapport.healthz().status == "ok"
        receipt = rapport.ingest(chat(contact, run))
        assert receipt.accepted == 5 and receipt.duplicates == 0
        assert rapport.ingest(chat(contact, run)).duplicates == 5  # the same event ids: nothing twice

        ctx = rapport.context(contact, query="how is my dog?", after=receipt, budget=1200)
        assert any("Bruno" in m.content for m in ctx.memories), ctx.memories
        assert "pet:bruno" in {e.ref for e in ctx.entities} and ctx.contact.display_name == "Arjun"
        assert ctx.history and ctx.history[-1].content.startswith("I can't take this")
        assert ctx.memories[0].tier in ("active", "archive") and ctx.as_of.tzinfo is not None

        listed = rapport.memories(contact)
        assert {m.id for m in ctx.memories} <= {m.id for m in listed.memories}
        assert all(m.status == "active" for m in rapport.memories(contact, status="active").memories)
        first = rapport.memories(contact, limit=2)
        rest = rapport.memories(contact, cursor=first.next_cursor, limit=200)
        assert [m.id for m in first.memories + rest.memories] == [m.id for m in listed.memories]
        assert listed.next_cursor is None and rest.next_cursor is None
        found = rapport.contacts(q=contact.upper(), limit=5)
        assert [c.contact_id for c in found.contacts] == [contact] and found.contacts[0].display_name == "Arjun"
        assert found.contacts[0].memory_count >= 1 and found.next_cursor is None
        tenants = rapport.tenants()  # the data dir's key is the operator's: admin of `default`
        assert tenants.admin and tenants.tenant_id == "default" and "default" in {t.tenant_id for t in tenants.tenants}
        timeline = rapport.timeline(contact)
        assert [p.source_event_id for p in timeline.moods][-1] == f"{run}-4"
        crisis = [t for t in rapport.triggers(contact).triggers if t.kind == "crisis"]
        assert len(crisis) == 1 and crisis[0].human_review and crisis[0].source_event_ids == [f"{run}-4"]

        payload = rapport.payload(contact, "what did Bruno do?", system_prompt="Be kind.", after=receipt)
        system = payload.chat_messages()[0]
        assert system["role"] == "system" and "Be kind." in system["content"] and "Bruno" in system["content"]
        assert payload.messages[-1].content == "what did Bruno do?" and payload.budget["total"].limit == 8000

        started = time.monotonic()
        with pytest.raises(NotReflected) as late:  # the API would hold it 5 s: the client gives up at 1 s
            rapport.payload(contact, "hello?", after=f"{run}-never-sent", after_timeout=1)
        assert late.value.event_id == f"{run}-never-sent" and time.monotonic() - started < 3
        started = time.monotonic()
        with pytest.raises(NotReflected) as late:  # given 7 s: one whole ask (504 after 5 s), one of the 2 s left
            rapport.payload(contact, "hello?", after=f"{run}-never-sent", after_timeout=7)
        assert late.value.event_id == f"{run}-never-sent" and 6.5 <= time.monotonic() - started < 9.5

        exported = rapport.export(contact)
        assert [x.event_id for x in exported.messages if x.event_type == "InteractionRecorded"] == receipt.event_ids
        assert "rapport_" in rapport.metrics()
        served = rapport.openapi()

        with pytest.raises(ValidationError) as bad:
            rapport.ingest([{"contact_id": contact, "role": "user", "message": "ok"},
                            {"contact_id": contact, "role": "bot", "message": "no"}])
        assert bad.value.fields == ["role"] and bad.value.errors[0].index == 1 and bad.value.status == 422
        with pytest.raises(ValidationError) as bad:
            rapport.context("a/b")
        assert bad.value.fields == ["contact_id"]

        # a webhook subscription (a public address literal: nothing resolved; removed before anything it
        # wants happens, so nothing is sent)
        hook = rapport.create_webhook("https://93.184.216.34/rapport", ["TriggerCreated:owner_insight"],
                                      description=f"e2e {run}")
        assert hook.secret.startswith("whsec_") and hook.tenant_id == "default"
        assert hook.id in {w.id for w in rapport.webhooks().webhooks}
        assert rapport.webhook(hook.id).description == f"e2e {run}"
        assert rapport.webhook_deliveries(hook.id).deliveries == []
        assert rapport.delete_webhook(hook.id).deleted
        with pytest.raises(NotFound):
            rapport.retry_delivery(hook.id, 1)
        assert hook.id not in {w.id for w in rapport.webhooks().webhooks}

        erased = rapport.delete_contact(contact)
        assert erased.accepted and erased.erasure_event_id
        deadline = time.monotonic() + 60
        while rapport.memories(contact).memories and time.monotonic() < deadline:
            time.sleep(0.5)
        assert rapport.memories(contact).memories == [] and rapport.triggers(contact).triggers == []

    with pytest.raises(AuthError), Rapport(stack.url, api_key="rk_nope_nope") as stranger:
        stranger.context(contact)

    # every answer, errors included, is described by the served spec, completely
    from projections.api import app
    assert served == json.loads(json.dumps(app.openapi()))  # the served document is the app's
    checked = set()
    for method, path, status, body in recording.answers:
        found = S.operation(served, method, path)
        if found is None:  # /openapi.json
            continue
        template, op = found
        answer = op["responses"].get(str(status))
        assert answer, f"{method} {template} answered {status}, which the spec does not list"
        schema = answer["content"]["application/json"]["schema"]
        assert S.problems(schema, served, body) == [], (method, template, status)
        checked.add((method, template, status))
    # all 16 JSON operations but the retry of a dead delivery (tests/test_webhooks_pg.py has one), with real data
    assert len({(m, t) for m, t, s in checked if s < 300}) == 16


def test_the_async_client_reads_its_own_writes(stack):
    contact = f"meera-{uuid.uuid4().hex[:6]}"

    async def run():
        async with AsyncRapport(stack.url, api_key=stack.api_key) as rapport:
            receipt = await rapport.ingest_many(
                [Event(contact_id=contact, role="user", message=m) for m in
                 ["I moved to Berlin last month", "I love biryani", "My sister Priya is visiting next week"]],
                batch_size=2)
            ctx = await rapport.context(contact, query="Where do I live?", after=receipt, budget=1200)
            await rapport.wait_for(receipt)
            return receipt, ctx

    receipt, ctx = asyncio.run(run())
    assert receipt.accepted == 3 and len(receipt.event_ids) == 3
    assert "Berlin" in ctx.memories[0].content, [m.content for m in ctx.memories]


SCRIPT = """
import importlib.util, json, sys
from rapport_client import Event, Rapport
# nothing of the server is importable here: the client needs none of it
server = [m for m in ("agents", "streams", "projections", "domain", "schemas", "ops", "faust", "psycopg")
          if importlib.util.find_spec(m) is not None]
with Rapport() as rapport:   # $RAPPORT_URL and $RAPPORT_API_KEY
    receipt = rapport.ingest(Event(contact_id=sys.argv[1], role="user", message="My cat Miso loves boxes"))
    ctx = rapport.context(sys.argv[1], query="tell me about my cat", after=receipt, budget=1200)
print(json.dumps({"server": server, "memories": [m.content for m in ctx.memories]}))
"""


@pytest.mark.timeout(300)
def test_a_fresh_virtualenv_with_only_the_client_talks_to_rapport_up(stack, tmp_path):
    """pip installs clients/python (and its three dependencies, from the package index) into a new,
    empty virtualenv; a script there talks to the running stack."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "-q", str(ROOT / "clients" / "python")],
                         capture_output=True, text=True, timeout=240)
    assert pip.returncode == 0, pip.stderr[-3000:]
    installed = subprocess.run([str(python), "-m", "pip", "list", "--format=json"], capture_output=True,
                               text=True, check=True).stdout
    names = {p["name"].lower() for p in json.loads(installed)}
    assert "rapport-client" in names and not names & {"rapport", "faust-streaming", "psycopg", "fastapi"}
    contact = f"lena-{uuid.uuid4().hex[:6]}"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(RAPPORT_URL=stack.url, RAPPORT_API_KEY=stack.api_key)
    out = subprocess.run([str(python), "-c", SCRIPT, contact], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout)
    assert result["server"] == []
    assert any("Miso" in m for m in result["memories"]), result


def test_the_example_bot_remembers_the_last_turn(stack):
    """examples/chat_bot.py against the local OpenAI-compatible stub: the second completion is asked
    with the first exchange in its messages, so both turns were ingested and waited for."""
    stub = Stub(reply=lambda prompt: f"Oh no, poor you! ({len(prompt)})")
    contact = f"arjun-bot-{uuid.uuid4().hex[:6]}"
    try:
        env = {**os.environ, "RAPPORT_URL": stack.url, "RAPPORT_API_KEY": stack.api_key,
               "OPENAI_BASE_URL": stub.url, "OPENAI_API_KEY": "stub", "OPENAI_MODEL": "stub-chat"}
        out = subprocess.run([sys.executable, str(ROOT / "examples" / "chat_bot.py"), "--contact", contact,
                              "--name", "Arjun"],
                             input="My dog Bruno ate my shoes again this morning\nWhat did my dog do?\n",
                             capture_output=True, text=True, env=env, timeout=120)
    finally:
        stub.close()
    assert out.returncode == 0, out.stderr[-3000:]
    first_reply = "Oh no, poor you! (44)"
    assert out.stdout.splitlines() == [first_reply, "Oh no, poor you! (19)"]
    chats = [body for path, body in stub.calls if path.endswith("/chat/completions")]
    assert len(chats) == 2 and chats[1]["model"] == "stub-chat"
    second = chats[1]["messages"]
    assert second[0]["role"] == "system" and "Bruno" in second[0]["content"]  # a memory of turn one
    assert {"role": "assistant", "content": first_reply} in second[1:-1]  # the reply, in the history
    assert second[-1] == {"role": "user", "content": "What did my dog do?"}
    with Rapport(stack.url, api_key=stack.api_key) as rapport:
        said = [(x.role, x.message) for x in rapport.export(contact).messages if x.event_type == "InteractionRecorded"]
    assert said == [("user", "My dog Bruno ate my shoes again this morning"), ("assistant", first_reply),
                    ("user", "What did my dog do?"), ("assistant", "Oh no, poor you! (19)")]
