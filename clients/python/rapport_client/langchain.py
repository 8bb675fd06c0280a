"""rapport for LangChain (the extra `rapport-client[langchain]`): a middleware that gives a LangChain agent
(`create_agent`) a person's long-term memory, a retriever over a contact's memories, and a chat message
history that records the conversation in rapport.

    from rapport_client import Rapport
    from rapport_client.langchain import RapportChatMessageHistory, RapportMemory

    rapport = Rapport()
    agent = create_agent(model, tools, middleware=[RapportMemory(rapport)], checkpointer=InMemorySaver())
    agent.invoke({"messages": [{"role": "user", "content": "My dog Bruno ate my shoes"}]},
                 {"configurable": {"thread_id": "t1"}}, context={"contact_id": "arjun"})

    history = RapportChatMessageHistory("arjun", client=rapport)   # one contact (a person), one history
    history.add_messages([HumanMessage("My dog Bruno ate my shoes again"), AIMessage("Oh no! Which pair?")])
    retriever = history.as_retriever(k=5)      # waits for what the history recorded (read your writes)
    retriever.invoke("how is my dog?")         # [Document(page_content="...Bruno...", metadata={...})]

What maps to what (rapport ingests messages and derives ranked memories per contact; it is not a
key-value store, so nothing here writes a memory directly):

- `RapportMemory` (an `AgentMiddleware`): before every model call, `GET /context/{contact}?query=` with
  the latest human message; its `context_text` (profile, the memories that matter now, mood, session
  summaries) is appended to the system message of that call only (the thread's state is not changed).
  After the run, the thread's new human and AI messages are recorded (`POST /ingest`), and the next
  model call for that contact waits for them (`after=`). The contact comes from the run's context
  (`context={"contact_id": ...}`), so one agent serves every person, and every thread of a person
  shares the person's memory (LangGraph's checkpointer keeps the thread; rapport keeps the person).
  rapport's errors (`rapport_client.RapportError`) are raised, not hidden: a reply without the memory,
  or a turn not recorded, would go unnoticed.
- `RapportRetriever` (a `BaseRetriever`): a query -> `GET /context/{contact}?query=` -> the best `k`
  memories as `Document`s: `page_content` the memory, `metadata` its type, score, importance, the event
  ids it came from, its date, entities and where `context_text` states it; `Document.id` the memory id.
- `RapportChatMessageHistory` (a `BaseChatMessageHistory`): `add_messages` -> `POST /ingest` (human ->
  role "user", ai -> role "assistant"; system and tool messages, and AI messages without text, are not
  conversation turns and are not recorded); `messages` -> the contact's current session window from
  `/context` (up to 20 turns: the first and the latest; a new session after a gap, or a new
  `session_id`, starts it afresh; secrets redacted, as rapport keeps them); `clear` -> `DELETE
  /contacts/{id}`, which erases *everything* of the contact, memories included (right to erasure).

Event ids are derived from the message ids (a message without one is given one first, as LangGraph's
`add_messages` does), so adding the same messages again, e.g. a graph state's whole message list on
every turn, records nothing twice: rapport counts them as duplicates.

A LangGraph `BaseStore` is deliberately not offered: a store takes `put(namespace, key, value)` of any
JSON under the caller's keys and gives it back unchanged, while rapport derives its memories from the
messages (extraction, consolidation, decay) and owns their ids; a `put` could only be faked."""
from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any, Awaitable, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage, SystemMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor
from langgraph.runtime import Runtime
from pydantic import ConfigDict, Field
from typing_extensions import Annotated, NotRequired

from rapport_client.calls import AFTER_TIMEOUT_S
from rapport_client.client import AsyncRapport, Rapport
from rapport_client.models import Context, Erasure, Event, Receipt, Turn

__all__ = ["RapportMemory", "RapportRetriever", "RapportChatMessageHistory", "memory_documents", "message_events",
           "window_messages", "event_id_for", "with_context", "unrecorded"]

TOKENS_PER_HIT = 100  # /context packs memories into a token budget: about k memories' worth, as the MCP tool asks
MAX_K = 50
EVENT_ID_NAMESPACE = uuid.UUID("5b0f6a55-2d0c-4a39-9d6e-1c0de7a9a7e1")  # rapport's LangChain event ids


# ------------------------------------------------------------------------------------- pure mapping
def memory_documents(ctx: Context, k: int) -> List[Document]:
    """The best `k` memories of a /context answer as Documents (the answer lists them in rank order;
    entity-card memories, unranked, after them)."""
    return [Document(id=mem.id, page_content=mem.content, metadata={
        "memory_id": mem.id, "memory_type": mem.memory_type, "score": mem.score, "importance": mem.importance,
        "source_event_ids": list(mem.source_event_ids), "entity_refs": list(mem.entity_refs),
        "created_at": mem.created_at.isoformat() if mem.created_at else None, "section": mem.section,
        "tier": mem.tier, "contact_id": ctx.contact.contact_id}) for mem in ctx.memories[:k]]


def event_id_for(contact_id: str, message_id: str) -> str:
    """The event id of a LangChain message of this contact: the same message always gets the same id
    (so re-sending it is a duplicate), and two contacts' messages of the same id do not collide."""
    return "lc-" + str(uuid.uuid5(EVENT_ID_NAMESPACE, f"{contact_id}\x1f{message_id}"))


def _role(message: BaseMessage) -> Optional[str]:
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ChatMessage) and message.role in ("user", "assistant"):
        return message.role
    return None  # system, tool, function messages: not a turn of the conversation with the person


def message_events(messages: Iterable[BaseMessage], contact_id: str, fields: Dict[str, Any]) -> List[Event]:
    """The conversation turns among `messages` as rapport events, in order. A message without an id is
    given one (on the message itself), so adding the same message again is recognised."""
    events = []
    for message in messages:
        role, text = _role(message), message.text
        if role is None or not text.strip():
            continue
        if not message.id:
            message.id = str(uuid.uuid4())
        events.append(Event(contact_id=contact_id, role=role, message=text,
                            event_id=event_id_for(contact_id, message.id), **fields))
    return events


def window_messages(turns: Sequence[Turn]) -> List[BaseMessage]:
    """The session window's turns as LangChain messages."""
    return [HumanMessage(t.content) if t.role == "user" else AIMessage(t.content) for t in turns]


def stamped(events: List[Event], now: datetime) -> List[Event]:
    """The events with their times: `now` to the millisecond, then a millisecond apart, in order."""
    start = now.replace(microsecond=now.microsecond // 1000 * 1000)
    return [e.model_copy(update={"occurred_at": start + timedelta(milliseconds=i)}) for i, e in enumerate(events)]


class Expect(NamedTuple):
    """What a window must show to reflect a history's latest write: "has" a turn at or after `at` (the
    write's last message), or "none-until": no turn at or before `at` (an erasure of what it wrote)."""
    kind: str
    at: datetime


def reflects(turns: Sequence[Turn], expect: Optional[Expect]) -> bool:
    if expect is None:
        return True
    times = [t.occurred_at for t in turns if t.occurred_at is not None]
    if expect.kind == "has":
        return any(t >= expect.at for t in times)
    return all(t > expect.at for t in times)


def with_context(system: Optional[SystemMessage], context_text: str) -> SystemMessage:
    """The system message with rapport's context after it (a new message; content blocks stay blocks)."""
    if system is None:
        return SystemMessage(context_text)
    if isinstance(system.content, str):
        return SystemMessage(f"{system.content}\n\n{context_text}" if system.content else context_text)
    return SystemMessage([*system.content, {"type": "text", "text": context_text}])


def unrecorded(messages: Sequence[BaseMessage], last_recorded: Optional[str]) -> Sequence[BaseMessage]:
    """The thread's messages after the last one recorded (all of them when it is gone from the thread,
    trimmed or summarised away: re-sent ones are duplicates, so nothing is recorded twice)."""
    for i in range(len(messages) - 1, -1, -1):
        if last_recorded is not None and messages[i].id == last_recorded:
            return messages[i + 1:]
    return messages


def latest_human_text(messages: Sequence[BaseMessage]) -> Optional[str]:
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and message.text.strip():
            return message.text
    return None


def contact_from_context(runtime: Runtime[Any]) -> str:
    """The run's contact: `context={"contact_id": ...}`, or a context object's `contact_id`."""
    ctx = runtime.context
    contact = ctx.get("contact_id") if isinstance(ctx, Mapping) else getattr(ctx, "contact_id", None)
    if not contact:
        raise ValueError("RapportMemory: name the person in the run's context, "
                         "e.g. agent.invoke(..., context={'contact_id': 'arjun'})")
    return str(contact)


# ----------------------------------------------------------------------------------- agent middleware
class RapportState(AgentState):
    """The agent's state plus the id of the last message RapportMemory recorded (kept by the
    checkpointer with the thread, never an input or output of the agent)."""
    rapport_recorded: NotRequired[Annotated[Optional[str], PrivateStateAttr]]


class RapportMemory(AgentMiddleware):
    """Long-term memory per person for a LangChain agent (`create_agent(..., middleware=[...])`).

    `client` (a `Rapport`; default: one from the environment) serves `invoke`, `async_client` (an
    `AsyncRapport`) serves `ainvoke` (else the blocking calls run in an executor). `contact_id`: a
    function of the run's `Runtime` giving the person (default: `context["contact_id"]`). `budget`:
    memory tokens per call (default: rapport's, by the relationship's stage). `tenant_id`,
    `persona_id`, `session_id`, `channel` go with every call and message."""
    state_schema = RapportState
    MAX_TRACKED = 10_000  # contacts whose latest write is remembered (for read-your-writes), least recent dropped

    def __init__(self, client: Optional[Rapport] = None, *, async_client: Optional[AsyncRapport] = None,
                 contact_id: Callable[[Runtime[Any]], str] = contact_from_context, tenant_id: Optional[str] = None,
                 persona_id: Optional[str] = None, session_id: Optional[str] = None, channel: Optional[str] = None,
                 budget: Optional[int] = None, after_timeout: float = AFTER_TIMEOUT_S):
        super().__init__()
        self._client, self.async_client, self.contact_of = client, async_client, contact_id
        self.tenant_id, self.persona_id, self.budget, self.after_timeout = tenant_id, persona_id, budget, after_timeout
        self._fields = {k: v for k, v in dict(tenant_id=tenant_id, persona_id=persona_id, session_id=session_id,
                                              channel=channel).items() if v is not None}
        self._latest: "OrderedDict[str, str]" = OrderedDict()  # contact -> its newest event recorded here
        self._lock = threading.Lock()  # runs of one agent may go on in several threads

    @property
    def client(self) -> Rapport:
        if self._client is None:
            self._client = Rapport()
        return self._client

    def _context_args(self, request: ModelRequest) -> Tuple[str, Dict[str, Any]]:
        contact = self.contact_of(request.runtime)
        with self._lock:
            after = self._latest.get(contact)
        return contact, dict(query=latest_human_text(request.messages), tenant_id=self.tenant_id,
                             persona_id=self.persona_id, budget=self.budget, after=after,
                             after_timeout=self.after_timeout)

    def _to_record(self, state: Dict[str, Any], runtime: Runtime[Any]) -> Tuple[str, List[Event], Optional[str]]:
        messages = state.get("messages") or []
        contact = self.contact_of(runtime)
        events = message_events(unrecorded(messages, state.get("rapport_recorded")), contact, self._fields)
        return contact, events, (messages[-1].id if messages else None)

    def _recorded(self, contact: str, events: List[Event], last_id: Optional[str]) -> Optional[Dict[str, Any]]:
        if events:
            with self._lock:
                self._latest[contact] = events[-1].event_id or ""
                self._latest.move_to_end(contact)
                while len(self._latest) > self.MAX_TRACKED:
                    self._latest.popitem(last=False)
        return {"rapport_recorded": last_id} if last_id else None

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> ModelResponse:
        contact, kw = self._context_args(request)
        ctx = self.client.context(contact, **kw)
        return handler(request.override(system_message=with_context(request.system_message, ctx.context_text)))

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[ModelResponse]]) -> ModelResponse:
        contact, kw = self._context_args(request)
        if self.async_client is None:
            ctx = await run_in_executor(None, lambda: self.client.context(contact, **kw))
        else:
            ctx = await self.async_client.context(contact, **kw)
        return await handler(request.override(system_message=with_context(request.system_message, ctx.context_text)))

    def after_agent(self, state: Dict[str, Any], runtime: Runtime[Any]) -> Optional[Dict[str, Any]]:
        contact, events, last_id = self._to_record(state, runtime)
        if events:
            self.client.ingest_many(events)
        return self._recorded(contact, events, last_id)

    async def aafter_agent(self, state: Dict[str, Any], runtime: Runtime[Any]) -> Optional[Dict[str, Any]]:
        contact, events, last_id = self._to_record(state, runtime)
        if events:
            if self.async_client is None:
                await run_in_executor(None, self.client.ingest_many, events)
            else:
                await self.async_client.ingest_many(events)
        return self._recorded(contact, events, last_id)


# ----------------------------------------------------------------------------------------- retriever
class RapportRetriever(BaseRetriever):
    """A contact's memories most relevant to a query, best first, as Documents.

    `client` (a `Rapport`; default: one from the environment, $RAPPORT_URL and the key it finds) serves
    `invoke`; `async_client` (an `AsyncRapport`) serves `ainvoke`, else `ainvoke` runs the blocking call
    in an executor. `k`: how many (1-50; also a keyword of `invoke`). `after`: an event id or a
    `Receipt` to wait for (read your own writes; also a keyword of `invoke`); `history`: a
    `RapportChatMessageHistory` whose latest recorded message is waited for."""
    model_config = ConfigDict(arbitrary_types_allowed=True)

    contact_id: str
    client: Optional[Rapport] = Field(default=None, exclude=True)
    async_client: Optional[AsyncRapport] = Field(default=None, exclude=True)
    k: int = Field(default=4, ge=1, le=MAX_K)
    tenant_id: Optional[str] = None
    persona_id: Optional[str] = None
    budget: Optional[int] = Field(default=None, ge=0, description="memory tokens asked for; default k x 100")
    after: Optional[Union[str, Receipt]] = None
    after_timeout: float = AFTER_TIMEOUT_S
    history: Optional["RapportChatMessageHistory"] = Field(default=None, exclude=True)

    def _args(self, query: str, k: Optional[int], after: Union[str, Receipt, None]) -> Dict[str, Any]:
        k = self.k if k is None else k
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k: between 1 and {MAX_K}, not {k}")
        if after is None:
            after = self.after if self.after is not None else (self.history and self.history.last_event_id)
        budget = self.budget if self.budget is not None else k * TOKENS_PER_HIT
        return {"k": k, "kw": dict(query=query.strip() or None, tenant_id=self.tenant_id, persona_id=self.persona_id,
                                   budget=budget, after=after or None, after_timeout=self.after_timeout)}

    def _sync_client(self) -> Rapport:
        if self.client is None:
            self.client = Rapport()
        return self.client

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                k: Optional[int] = None, after: Union[str, Receipt, None] = None) -> List[Document]:
        a = self._args(query, k, after)
        return memory_documents(self._sync_client().context(self.contact_id, **a["kw"]), a["k"])

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       k: Optional[int] = None,
                                       after: Union[str, Receipt, None] = None) -> List[Document]:
        if self.async_client is None:
            return await run_in_executor(None, self._get_relevant_documents, query,
                                         run_manager=run_manager.get_sync(), k=k, after=after)
        a = self._args(query, k, after)
        return memory_documents(await self.async_client.context(self.contact_id, **a["kw"]), a["k"])


# ------------------------------------------------------------------------------------- chat history
class RapportChatMessageHistory(BaseChatMessageHistory):
    """One contact's conversation, recorded in rapport. `contact_id`: the person (rapport keeps memory
    per contact); `client`/`async_client` as for RapportRetriever; `tenant_id`: an admin key's choice of
    tenant (else the key's). `session_id`, `persona_id`, `display_name`, `channel` are sent with every
    message (a new `session_id` starts a new session window). Reads wait for this history's own latest
    write (`last_event_id`), so `messages` right after `add_messages` includes them.

    The API answers `after=` once the event is in PostgreSQL, while the window it returns is read from
    Redis, which the worker refreshes just after (measured: 1 read in 200 still saw the previous
    window). So the history stamps its messages' `occurred_at` itself, and a read whose window does not
    reflect its latest write yet (or still holds turns it erased) is asked again, for up to
    STALE_WAIT_S."""
    STALE_WAIT_S = 2.0

    def __init__(self, contact_id: str, client: Optional[Rapport] = None, *,
                 async_client: Optional[AsyncRapport] = None, tenant_id: Optional[str] = None,
                 session_id: Optional[str] = None, persona_id: Optional[str] = None,
                 display_name: Optional[str] = None, channel: Optional[str] = None,
                 after_timeout: float = AFTER_TIMEOUT_S):
        self.contact_id, self.tenant_id, self.persona_id = contact_id, tenant_id, persona_id
        self._client, self.async_client, self.after_timeout = client, async_client, after_timeout
        self._fields = {k: v for k, v in dict(tenant_id=tenant_id, session_id=session_id, persona_id=persona_id,
                                              display_name=display_name, channel=channel).items() if v is not None}
        self.last_event_id: Optional[str] = None  # the newest event this history wrote: what reads wait for
        self._expect: Optional[Expect] = None  # what a fresh window shows of that write
        self._written_at: Optional[datetime] = None  # the newest turn this history recorded

    @property
    def client(self) -> Rapport:
        if self._client is None:
            self._client = Rapport()
        return self._client

    def _context_args(self) -> Dict[str, Any]:
        # budget 0: the window alone (no memories packed, so no memory counts as accessed)
        return dict(tenant_id=self.tenant_id, persona_id=self.persona_id, budget=0, after=self.last_event_id,
                    after_timeout=self.after_timeout)

    @property
    def messages(self) -> List[BaseMessage]:  # type: ignore[override]
        """The contact's current session window, oldest first."""
        deadline, delay = time.monotonic() + self.STALE_WAIT_S, 0.01
        while True:
            turns = self.client.context(self.contact_id, **self._context_args()).history
            if reflects(turns, self._expect) or time.monotonic() >= deadline:
                return window_messages(turns)
            time.sleep(delay)
            delay = min(delay * 2, 0.2)

    async def aget_messages(self) -> List[BaseMessage]:
        if self.async_client is None:
            return await run_in_executor(None, lambda: self.messages)
        deadline, delay = time.monotonic() + self.STALE_WAIT_S, 0.01
        while True:
            turns = (await self.async_client.context(self.contact_id, **self._context_args())).history
            if reflects(turns, self._expect) or time.monotonic() >= deadline:
                return window_messages(turns)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.2)

    def _events(self, messages: Sequence[BaseMessage]) -> List[Event]:
        return stamped(message_events(messages, self.contact_id, self._fields), datetime.now(timezone.utc))

    def _wrote(self, events: List[Event], receipt: Receipt) -> None:
        self.last_event_id = events[-1].event_id
        # a message recorded before (a duplicate) keeps its first time: then only after= is waited for
        self._expect = Expect("has", events[-1].occurred_at) if receipt.duplicates == 0 else None
        self._written_at = max(filter(None, [self._written_at, events[-1].occurred_at]))

    def _erased(self, erasure: Erasure) -> None:
        self.last_event_id = erasure.erasure_event_id
        self._expect = Expect("none-until", self._written_at) if self._written_at else None

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        events = self._events(messages)
        if events:
            self._wrote(events, self.client.ingest_many(events))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        if self.async_client is None:
            return await run_in_executor(None, self.add_messages, messages)
        events = self._events(messages)
        if events:
            self._wrote(events, await self.async_client.ingest_many(events))

    def clear(self) -> None:
        """Erase the contact: every message, memory, entity and trigger rapport holds of them."""
        self._erased(self.client.delete_contact(self.contact_id, tenant_id=self.tenant_id))

    async def aclear(self) -> None:
        if self.async_client is None:
            return await run_in_executor(None, self.clear)
        self._erased(await self.async_client.delete_contact(self.contact_id, tenant_id=self.tenant_id))

    def as_retriever(self, **kwargs: Any) -> RapportRetriever:
        """A RapportRetriever of the same contact, tenant and clients that waits for this history's
        latest write (keywords: k, budget, persona_id, ...)."""
        return RapportRetriever(**{"contact_id": self.contact_id, "client": self._client,
                                   "async_client": self.async_client, "tenant_id": self.tenant_id,
                                   "persona_id": self.persona_id, "after_timeout": self.after_timeout,
                                   "history": self, **kwargs})


RapportRetriever.model_rebuild()
