"""rapport_client.langchain (the `rapport-client[langchain]` extra) against `rapport up`: LangChain's own
standard retriever suite (langchain-tests), the chat message history's contract (read your writes, no
duplicates on re-sending, erasure), the async paths, and a real LCEL chain with RunnableWithMessageHistory
and a fake chat model (no network, no LLM) in which a memory said in turn 1 reaches turn 3's prompt."""
from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import ConfigurableFieldSpec, RunnablePassthrough
from langchain_tests.integration_tests import RetrieversIntegrationTests
from langgraph.checkpoint.memory import InMemorySaver

from rapport_client import AsyncRapport, Event, Rapport
from rapport_client.langchain import (RapportChatMessageHistory, RapportMemory, RapportRetriever, event_id_for,
                                      message_events, unrecorded, window_messages, with_context)
from rapport_client.models import Turn
from tests.stack import running

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

FACTS = ["I have a golden retriever named Bruno, he's three.", "I moved to Berlin last month.",
         "My sister Priya is visiting next week.", "I work as a nurse at the Charite hospital.",
         "I love biryani, my favourite food."]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    with running(tmp_path_factory.mktemp("adapter") / "data") as s:
        yield s


@pytest.fixture(scope="module")
def rapport(stack):
    with Rapport(stack.url, api_key=stack.api_key) as client:
        yield client


@pytest.fixture(scope="module")
def arjun(rapport) -> str:
    """A contact who told rapport five facts, all reflected."""
    contact = f"arjun-{uuid.uuid4().hex[:6]}"
    rapport.wait_for(rapport.ingest([Event(contact_id=contact, role="user", message=f) for f in FACTS]))
    return contact


# ------------------------------------------------------------------------- pure mapping (no stack)
def test_messages_map_to_events_by_role_and_the_same_message_keeps_its_event_id():
    human, ai = HumanMessage("My dog Bruno ate my shoes"), AIMessage("Oh no! Which pair?", id="run-7")
    skipped = [SystemMessage("Be kind."), ToolMessage("42", tool_call_id="t1"),
               AIMessage("", tool_calls=[{"name": "lookup", "args": {}, "id": "t1"}])]
    events = message_events([skipped[0], human, *skipped[1:], ai], "arjun", {"session_id": "s1"})
    assert [(e.role, e.message, e.session_id) for e in events] == [
        ("user", "My dog Bruno ate my shoes", "s1"), ("assistant", "Oh no! Which pair?", "s1")]
    assert human.id  # given one, so the same object sent again maps to the same event
    again = message_events([human, ai], "arjun", {})
    assert [e.event_id for e in again] == [e.event_id for e in events]
    assert events[1].event_id == event_id_for("arjun", "run-7") != event_id_for("meera", "run-7")
    assert message_events([HumanMessage("same words")], "arjun", {})[0].event_id != \
        message_events([HumanMessage("same words")], "arjun", {})[0].event_id  # said twice: two turns
    # multimodal content: its text parts
    parts = HumanMessage(content=[{"type": "text", "text": "look at "}, {"type": "image_url", "image_url": {
        "url": "https://example.com/x.png"}}, {"type": "text", "text": "my dog"}])
    assert message_events([parts], "arjun", {})[0].message == "look at my dog"


def test_window_turns_map_back_to_messages():
    turns = [Turn(role="user", content="hi", occurred_at=None), Turn(role="assistant", content="hello", occurred_at=None)]
    assert window_messages(turns) == [HumanMessage("hi"), AIMessage("hello")]


def context_body(turns: list[tuple[str, str, str]]) -> dict:
    """A /context answer (the API's JSON) with this session window: (role, content, occurredAt)."""
    return {"contact": {"contactId": "omar", "displayName": None, "channel": None},
            "state": {"mood": "neutral", "moodConfidence": 0.5, "energy": "medium", "style": "casual",
                      "relationshipStage": "new", "activeStreak": 1, "sessionCount": 1, "churnRisk": 0.0},
            "memories": [], "entities": [], "context_text": "", "memory_budget": 0,
            "as_of": "2026-11-27T12:00:00+00:00",
            "history": [{"role": r, "content": c, "occurredAt": at} for r, c, at in turns]}


def test_a_window_read_before_the_write_reached_it_is_asked_again():
    """The API's after= can answer before the window it serves (Redis) holds the write: the history
    reads again until the window has the turn it stamped (or no longer holds what it erased)."""
    answers = []

    def api(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/ingest":
            sent = json.loads(request.content)
            answers.append(sent)
            return httpx.Response(202, json={"accepted": len(sent), "eventIds": [e["event_id"] for e in sent],
                                             "duplicates": 0})
        if request.url.path == "/contacts/omar":
            return httpx.Response(202, json={"accepted": True, "erasureEventId": "erase-1"})
        windows.append(request.url.params.get("after"))
        return httpx.Response(200, json=context_body(next(replies)))

    windows: list = []
    with Rapport("http://rapport.test", api_key="k", transport=httpx.MockTransport(api)) as client:
        history = RapportChatMessageHistory("omar", client=client)
        history.add_messages([HumanMessage("hello"), AIMessage("hi there")])
        (user, ai), old = answers[0], ("user", "earlier", "2026-01-01T00:00:00+00:00")
        assert user["occurred_at"] < ai["occurred_at"]  # stamped in order
        fresh = [old, ("user", "hello", user["occurred_at"]), ("assistant", "hi there", ai["occurred_at"])]
        replies = iter([[old], [old], fresh])
        assert history.messages == [HumanMessage("earlier"), HumanMessage("hello"), AIMessage("hi there")]
        assert windows == [ai["event_id"]] * 3  # asked until the window had the write, after= each time

        history.clear()
        replies, windows[:] = iter([fresh, []]), []
        assert history.messages == [] and windows == ["erase-1", "erase-1"]

        history.STALE_WAIT_S = 0.05  # a window that never catches up: what there is, after the wait
        history.add_messages([HumanMessage("again")])
        replies = iter([[old]] * 100)
        assert history.messages == [HumanMessage("earlier")]


def test_k_is_bounded():
    with pytest.raises(ValueError):
        RapportRetriever(contact_id="arjun", k=0)
    with pytest.raises(ValueError, match="k: between 1 and 50"):
        RapportRetriever(contact_id="arjun", client=Rapport("http://127.0.0.1:9", api_key="x")).invoke("q", k=51)


# ------------------------------------------------------------------------ LangChain's standard suite
class TestRetrieverStandard(RetrieversIntegrationTests):
    """langchain-tests' RetrieversIntegrationTests: k in the constructor and in invoke, sync and async."""

    @pytest.fixture(autouse=True)
    async def _clients(self, rapport, arjun, stack):
        self.contact, self.client = arjun, rapport
        async with AsyncRapport(stack.url, api_key=stack.api_key) as aclient:
            self.aclient = aclient
            yield

    @property
    def retriever_constructor(self) -> type[RapportRetriever]:
        return RapportRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"contact_id": self.contact, "client": self.client, "async_client": self.aclient}

    @property
    def retriever_query_example(self) -> str:
        return "tell me about my dog"


# --------------------------------------------------------------------------------- the retriever
def test_the_retriever_returns_the_memory_asked_about_with_its_source(rapport):
    contact = f"lena-{uuid.uuid4().hex[:6]}"
    receipt = rapport.ingest([Event(contact_id=contact, role="user", message=f, event_id=f"{contact}-{i}")
                              for i, f in enumerate(FACTS)])
    retriever = RapportRetriever(contact_id=contact, client=rapport, k=2)
    docs = retriever.invoke("Where do I live?", after=receipt)  # read your own write
    assert len(docs) == 2 and all(isinstance(d, Document) for d in docs)
    assert "Berlin" in docs[0].page_content, [d.page_content for d in docs]
    meta = docs[0].metadata
    assert meta["source_event_ids"] == [f"{contact}-1"] and docs[0].id == meta["memory_id"]
    assert meta["contact_id"] == contact and meta["memory_type"] and meta["score"] > 0
    assert meta["created_at"].startswith(time.strftime("%Y-"))
    assert retriever.invoke("what food do I love?", k=1)[0].page_content.count("biryani") == 1


async def test_the_async_paths_read_their_own_writes(stack):
    contact = f"meera-{uuid.uuid4().hex[:6]}"
    async with AsyncRapport(stack.url, api_key=stack.api_key) as aclient:
        history = RapportChatMessageHistory(contact, client=None, async_client=aclient)
        await history.aadd_messages([HumanMessage("My cat Miso loves boxes"), AIMessage("Cats and boxes!")])
        assert await history.aget_messages() == [HumanMessage("My cat Miso loves boxes"), AIMessage("Cats and boxes!")]
        docs = await history.as_retriever(k=1).ainvoke("tell me about my cat")
        assert "Miso" in docs[0].page_content
        await history.aclear()
        assert await history.aget_messages() == []
    assert history._client is None  # everything went through the async client


# -------------------------------------------------------------------------------- the chat history
def test_the_history_records_reads_back_and_never_twice(rapport):
    contact = f"omar-{uuid.uuid4().hex[:6]}"
    history = RapportChatMessageHistory(contact, client=rapport, display_name="Omar", channel="web")
    assert history.messages == []  # a person rapport has not met yet
    turn = [HumanMessage("I start my new job at Siemens on Monday"), AIMessage("Congratulations, Omar!")]
    history.add_messages(turn)
    history.add_messages([SystemMessage("Be brief."), HumanMessage("Thanks!")])
    assert history.messages == [HumanMessage("I start my new job at Siemens on Monday"),
                                AIMessage("Congratulations, Omar!"), HumanMessage("Thanks!")]
    history.add_messages(turn)  # a graph's state re-sent: the same ids, duplicates
    assert len(history.messages) == 3
    exported = rapport.export(contact)
    recorded = [x for x in exported.messages if x.event_type == "InteractionRecorded"]
    assert [(x.role, x.message) for x in recorded] == [("user", "I start my new job at Siemens on Monday"),
                                                       ("assistant", "Congratulations, Omar!"), ("user", "Thanks!")]
    assert recorded[0].event_id == event_id_for(contact, turn[0].id)
    assert rapport.context(contact).contact.display_name == "Omar"

    # clear() is the right to erasure: the conversation and every memory of it
    history.clear()
    assert history.messages == []
    assert rapport.memories(contact).memories == []
    history.add_messages([HumanMessage("hello again")])  # a new message after the erasure is kept
    assert history.messages == [HumanMessage("hello again")]


# ------------------------------------------------------------------------------ a real LCEL chain
class Prompts(BaseCallbackHandler):
    """What the chat model was given, call by call (LangChain's callback for exactly that)."""

    def __init__(self) -> None:
        self.calls: list[list[Any]] = []

    def on_chat_model_start(self, serialized: Any, messages: list[list[Any]], **kwargs: Any) -> None:
        self.calls.append(messages[0])


def test_a_memory_said_in_turn_1_reaches_the_prompt_of_turn_3(rapport):
    """RunnableWithMessageHistory keeps the conversation in rapport (its session_id is the contact); a
    retriever step puts the contact's memories in the system message. Turn 3's prompt holds the memory
    rapport derived from turn 1's message (its source event), besides the session window's turns."""
    contact = f"arjun-{uuid.uuid4().hex[:6]}"
    histories: dict[str, RapportChatMessageHistory] = {}

    def history(contact_id: str) -> RapportChatMessageHistory:
        return histories.setdefault(contact_id, RapportChatMessageHistory(contact_id, client=rapport))

    def memories(inputs: dict, config: dict) -> str:
        retriever = history(config["configurable"]["session_id"]).as_retriever(k=3)
        return "\n".join(f"- {d.page_content}" for d in retriever.invoke(inputs["input"]))

    prompt = ChatPromptTemplate.from_messages([("system", "You are a kind companion.\nWhat you know:\n{memories}"),
                                               MessagesPlaceholder("history"), ("human", "{input}")])
    model = GenericFakeChatModel(messages=iter(["What a lovely dog!", "Sounds fun.", "Bruno, your golden retriever."]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # deprecated since langchain-core 1.3.3, removal in 2.0
        from langchain_core.runnables.history import RunnableWithMessageHistory
        bot = RunnableWithMessageHistory(RunnablePassthrough.assign(memories=memories) | prompt | model, history,
                                         input_messages_key="input", history_messages_key="history")
    seen = Prompts()

    def say(text: str) -> str:
        return bot.invoke({"input": text}, config={"callbacks": [seen], "configurable": {"session_id": contact}}).content

    assert say("I have a golden retriever named Bruno, he's three.") == "What a lovely dog!"
    assert "Bruno" not in seen.calls[0][0].content  # nothing known before turn 1
    assert say("We are going hiking this weekend.") == "Sounds fun."
    assert say("What is my dog called?") == "Bruno, your golden retriever."

    system, *turns = seen.calls[2]
    # the history: rapport's session window, read after the previous turn's write
    assert [m.content for m in turns] == ["I have a golden retriever named Bruno, he's three.", "What a lovely dog!",
                                          "We are going hiking this weekend.", "Sounds fun.", "What is my dog called?"]
    assert [type(m) for m in turns] == [HumanMessage, AIMessage, HumanMessage, AIMessage, HumanMessage]
    # the memory in the system message is the one rapport derived from turn 1's message
    recorded = [x for x in rapport.export(contact).messages if x.event_type == "InteractionRecorded"]
    assert [x.message for x in recorded] == [m.content for m in turns] + ["Bruno, your golden retriever."]
    docs = history(contact).as_retriever(k=3).invoke("What is my dog called?")
    bruno = [d for d in docs if "Bruno" in d.page_content]
    assert bruno and bruno[0].metadata["source_event_ids"] == [recorded[0].event_id], [d.metadata for d in docs]
    assert isinstance(system, SystemMessage) and f"- {bruno[0].page_content}" in system.content, system.content


# ----------------------------------------------------------------- a LangChain agent (create_agent)
def test_with_context_and_unrecorded():
    assert with_context(None, "CTX") == SystemMessage("CTX")
    assert with_context(SystemMessage("Be kind."), "CTX") == SystemMessage("Be kind.\n\nCTX")
    blocks = SystemMessage([{"type": "text", "text": "Be kind."}])
    assert with_context(blocks, "CTX").content == [{"type": "text", "text": "Be kind."}, {"type": "text", "text": "CTX"}]
    thread = [HumanMessage("a", id="1"), AIMessage("b", id="2"), HumanMessage("c", id="3"), AIMessage("d", id="4")]
    assert unrecorded(thread, "2") == thread[2:] and unrecorded(thread, "4") == []
    assert unrecorded(thread, None) == thread and unrecorded(thread, "trimmed-away") == thread


class Sent:
    """Counts the events sent to POST /ingest (an httpx transport, sync or async)."""

    def __init__(self) -> None:
        self.events = 0

    def count(self, request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path == "/ingest":
            self.events += len(json.loads(request.content))

    def sync(self) -> httpx.HTTPTransport:
        count, base = self.count, httpx.HTTPTransport()

        class T(httpx.BaseTransport):
            def handle_request(self, request: httpx.Request) -> httpx.Response:
                count(request)
                return base.handle_request(request)
        return T()

    def asynchronous(self) -> httpx.AsyncBaseTransport:
        count, base = self.count, httpx.AsyncHTTPTransport()

        class T(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                count(request)
                return await base.handle_async_request(request)
        return T()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_an_agent_remembers_a_person_across_threads(stack, mode):
    """create_agent with RapportMemory and LangGraph's checkpointer: turns 1 and 2 in one thread, turn 3
    in a new thread (no messages of the first). What turn 3's model call is given about Bruno can only
    have come from rapport's memory of turn 1; every message is recorded once, though the first thread's
    state holds turn 1 again when turn 2 ends."""
    contact = f"arjun-{uuid.uuid4().hex[:6]}"
    seen = Prompts()
    replies = ["What a lovely dog!", "Sounds fun.", "Bruno, your golden retriever."]

    sent = Sent()
    rapport = Rapport(stack.url, api_key=stack.api_key, transport=sent.sync())

    async def run() -> list[str]:
        async with AsyncRapport(stack.url, api_key=stack.api_key, transport=sent.asynchronous()) as aclient:
            memory = RapportMemory(rapport, async_client=aclient if mode == "async" else None)
            agent = create_agent(GenericFakeChatModel(messages=iter(replies)), system_prompt="You are a kind companion.",
                                 middleware=[memory], checkpointer=InMemorySaver())
            out = []
            for text, thread in [("I have a golden retriever named Bruno, he's three.", "monday"),
                                 ("We are going hiking this weekend.", "monday"), ("What is my dog called?", "friday")]:
                args = ({"messages": [{"role": "user", "content": text}]},
                        {"configurable": {"thread_id": f"{contact}-{thread}"}, "callbacks": [seen]})
                state = (await agent.ainvoke(*args, context={"contact_id": contact}) if mode == "async"
                         else agent.invoke(*args, context={"contact_id": contact}))
                out.append(state["messages"][-1].content)
            return out

    with rapport:
        assert asyncio.run(run()) == replies
    assert sent.events == 6  # each message once: the thread's earlier ones are not sent again
    assert "Bruno" not in seen.calls[0][0].content  # nothing known before turn 1
    system, *turns = seen.calls[2]
    assert [m.content for m in turns] == ["What is my dog called?"]  # a new thread
    assert isinstance(system, SystemMessage) and system.content.startswith("You are a kind companion.\n\n")
    with Rapport(stack.url, api_key=stack.api_key) as rapport:
        recorded = [x for x in rapport.export(contact).messages if x.event_type == "InteractionRecorded"]
        bruno = [m for m in rapport.context(contact, query="What is my dog called?").memories if "Bruno" in m.content]
    assert [(x.role, x.message) for x in recorded] == [
        ("user", "I have a golden retriever named Bruno, he's three."), ("assistant", "What a lovely dog!"),
        ("user", "We are going hiking this weekend."), ("assistant", "Sounds fun."),
        ("user", "What is my dog called?"), ("assistant", "Bruno, your golden retriever.")]
    assert bruno and recorded[0].event_id in bruno[0].source_event_ids
    assert bruno[0].content in system.content, system.content


def test_the_agent_needs_to_know_whose_memory(rapport):
    agent = create_agent(GenericFakeChatModel(messages=iter(["hi"])), middleware=[RapportMemory(rapport)])
    with pytest.raises(ValueError, match="contact_id"):
        agent.invoke({"messages": [{"role": "user", "content": "hello"}]})


# --------------------------------------------------------------------------- the README, as written
def readme_snippets() -> list[str]:
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = text.split("### LangChain and LangGraph", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_snippets_run_as_written(stack, monkeypatch):
    import langchain_core.language_models as models

    prompts: list[list[Any]] = []

    class Recording(GenericFakeChatModel):  # the snippet's stand-in model, keeping what it was given
        def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
            prompts.append(messages)
            return super()._generate(messages, *args, **kwargs)

    monkeypatch.setattr(models, "GenericFakeChatModel", Recording)
    monkeypatch.setenv("RAPPORT_URL", stack.url)
    monkeypatch.setenv("RAPPORT_API_KEY", stack.api_key)
    agent_snippet, pieces_snippet = readme_snippets()
    scope: dict[str, Any] = {}
    exec(compile(agent_snippet, "README.md", "exec"), scope)
    assert len(prompts) == 2 and "Bruno" not in prompts[0][0].content
    assert [m.content for m in prompts[1][1:]] == ["What is my dog called?"]
    assert prompts[1][0].content.startswith("You are a kind companion.") and "Bruno" in prompts[1][0].content

    exec(compile(pieces_snippet, "README.md", "exec"), scope)
    assert scope["history"].messages == [HumanMessage("I moved to Berlin last month"), AIMessage("How exciting!")]
    said = next(x.event_id for x in scope["rapport"].export("meera").messages
                if getattr(x, "message", None) == "I moved to Berlin last month")
    assert "Berlin" in scope["docs"][0].page_content and scope["docs"][0].metadata["source_event_ids"] == [said]
    scope["rapport"].close()
