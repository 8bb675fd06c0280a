"""`rapport memories list|search|show|correct|forget`: an operator's view of one contact's memories,
through the HTTP API of a running stack (the Python client), with the data dir's key like `rapport demo`.
Nothing answering, or an answer refusing, is one line on standard error and a non-zero exit."""
from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

from rapport_client import Rapport, RapportError
from rapport_client.errors import ConnectionFailed

TOKENS_PER_HIT = 100  # /context packs memories into a token budget: about `limit` memories' worth


@contextmanager
def client(url: Optional[str], data_dir: str, tenant: Optional[str]) -> Iterator[Rapport]:
    """A client of the API at `url` (else $RAPPORT_URL, else :8080) with $RAPPORT_API_KEY, else the data dir's
    key; no retries (an operator asks again). Failures exit with one line."""
    key_file = Path(data_dir) / "api-key"
    options: dict[str, Any] = {"retries": 0, "tenant_id": tenant}
    if not os.environ.get("RAPPORT_API_KEY") and key_file.exists():
        options["key_file"] = key_file
    rapport = Rapport(url, **options)
    try:
        yield rapport
    except ConnectionFailed:
        sys.exit(f"rapport memories: nothing answers at {rapport.base_url}; start it with `rapport up` "
                 f"(or `make run`), or pass --url / set RAPPORT_URL")
    except RapportError as e:
        sys.exit(f"rapport memories: {e.message}")
    finally:
        rapport.close()


def line(m: Any) -> str:
    text = " ".join(m.content.split())
    return (f"{m.id}  {getattr(m, 'status', None) or m.tier or '-':<10} {m.memory_type:<10} "
            f"{m.importance:.2f}  {text[:120] + ('…' if len(text) > 120 else '')}")


def emit(as_json: bool, data: Any, lines: list[str]) -> None:
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    else:
        print("\n".join(lines) if lines else "(none)")


def list_memories(r: Rapport, contact: str, status: Optional[str], as_json: bool) -> None:
    got = r.memories(contact, status=status)
    emit(as_json, got.model_dump(mode="json", by_alias=True), [line(m) for m in got.memories])


def search(r: Rapport, contact: str, query: str, limit: int, as_json: bool) -> None:
    ctx = r.context(contact, query=query, budget=limit * TOKENS_PER_HIT)
    hits = ctx.memories[:limit]
    emit(as_json, [m.model_dump(mode="json", by_alias=True) for m in hits],
         [f"{m.score if m.score is not None else 0:.3f}  {line(m)}" for m in hits])


def show(r: Rapport, contact: str, memory_id: str, as_json: bool) -> None:
    m = r.memory(contact, memory_id)
    lines = [line(m), f"  key: {m.memory_key or '-'}  pinned: {m.pinned}  created: {m.created_at}  "
             f"sources: {', '.join(m.source_event_ids)}", "  history:"]
    lines += [f"    {h.at}  {h.kind:<11} {h.event_id}" + (f"  {h.content!r}" if h.content is not None else "")
              for h in m.history]
    emit(as_json, m.model_dump(mode="json", by_alias=True), lines)


def correct(r: Rapport, contact: str, memory_id: str, content: Optional[str], memory_type: Optional[str],
            importance: Optional[float], pinned: Optional[bool], wait: bool) -> None:
    receipt = r.correct_memory(contact, memory_id, content=content, memory_type=memory_type, importance=importance,
                               pinned=pinned)
    if wait:
        r.memory(contact, memory_id, after=receipt)
    print(f"corrected {memory_id} (event {receipt.event_id}{', applied' if wait else ''})")


def forget(r: Rapport, contact: str, memory_id: str, wait: bool) -> None:
    receipt = r.forget_memory(contact, memory_id)
    if wait:
        r.context(contact, budget=0, after=receipt.event_id)
    print(f"forgot {memory_id} (event {receipt.event_id}{', applied' if wait else ''})")
