"""A chat bot with rapport's memory, through any OpenAI-compatible endpoint.

Every turn: POST /payload (the contact's context, memories and recent turns packed into the model's
token budgets) -> a chat completion -> both turns ingested. The next turn's payload waits (`after=`)
until those two turns are reflected, so the model always knows what was just said.

    pip install ./clients/python openai          # no rapport server packages needed
    export OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=... OPENAI_MODEL=llama3.1
    export RAPPORT_API_KEY=$(rapport keys create --tenant default | tail -1)   # or ./.rapport/api-key
    python examples/chat_bot.py --contact arjun --name Arjun

It reads the user's messages from standard input, one per line, and prints each reply on one line.
"""
from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone
from typing import Any, Iterable, Optional, TextIO

from openai import OpenAI

from rapport_client import ConnectionFailed, Event, Rapport, Receipt

SYSTEM_PROMPT = ("You are a warm, concise companion. Use what you know about the person naturally, "
                 "and never claim to remember something that is not in your context.")


def now() -> datetime:
    return datetime.now(timezone.utc)


def turn(rapport: Rapport, llm: Any, model: str, message: str, *, contact_id: str, after: Optional[Receipt],
         **about: Any) -> tuple[str, Receipt]:
    """One exchange: the payload (after the previous turns are reflected), the model's reply, and both
    turns recorded. Returns the reply and the receipt the next turn waits for."""
    said_at = now()
    payload = rapport.payload(contact_id, message, system_prompt=SYSTEM_PROMPT, after=after,
                              persona_id=about.get("persona_id"))
    completion = llm.chat.completions.create(model=model, messages=payload.chat_messages())
    reply = (completion.choices[0].message.content or "").strip()
    receipt = rapport.ingest([
        Event(contact_id=contact_id, role="user", message=message, occurred_at=said_at, **about),
        Event(contact_id=contact_id, role="assistant", message=reply, occurred_at=now(), **about)])
    return reply, receipt


def chat(rapport: Rapport, llm: Any, model: str, lines: Iterable[str], out: TextIO, **who: Any) -> None:
    receipt = None
    for line in lines:
        message = line.strip()
        if message:
            reply, receipt = turn(rapport, llm, model, message, after=receipt, **who)
            print(reply.replace("\n", " "), file=out, flush=True)


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--contact", required=True, help="the person's contact_id")
    ap.add_argument("--name", help="their display name")
    ap.add_argument("--channel", default="cli")
    ap.add_argument("--persona", help="the bot's persona_id, if it has several")
    ap.add_argument("--url", help="rapport's API (default $RAPPORT_URL, else http://127.0.0.1:8080)")
    ap.add_argument("--model", default=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
                    help="the chat model (default $OPENAI_MODEL)")
    args = ap.parse_args(argv)
    # the OpenAI SDK reads OPENAI_BASE_URL and OPENAI_API_KEY; a local server may need no key
    llm = OpenAI(api_key=os.environ.get("OPENAI_API_KEY") or "none")
    who = {k: v for k, v in {"contact_id": args.contact, "display_name": args.name, "channel": args.channel,
                             "persona_id": args.persona}.items() if v}
    try:
        with Rapport(args.url) as rapport:
            chat(rapport, llm, args.model, sys.stdin, sys.stdout, **who)
    except ConnectionFailed as err:  # one line, not a traceback
        sys.exit(f"chat_bot: rapport does not answer ({err}); start it with `rapport up`, or pass --url / set RAPPORT_URL")


if __name__ == "__main__":
    main()
