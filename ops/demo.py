"""`rapport demo`: a short conversation in the style of seed 000 (written for this project), published
through POST /ingest, then read back through GET /context?after=."""
from __future__ import annotations

import json
import sys
import uuid
from datetime import datetime, timedelta, timezone

import httpx

CONVERSATION = [
    ("user", "Hey! I'm Arjun, I work at Infosys as a software engineer."),
    ("assistant", "Nice to meet you, Arjun! What keeps you busy outside work?"),
    ("user", "I have a golden retriever named Bruno, he's 3 years old and a total goofball."),
    ("assistant", "Bruno sounds wonderful. What did he get up to lately?"),
    ("user", "My dog Bruno ate my shoes again this morning, I can't believe it"),
    ("user", "lol"),
    ("assistant", "Oh no! Which pair was it this time?"),
    ("user", "My mom lives in Chennai, I'm visiting her for Diwali next month."),
    ("user", "I love biryani but I don't like spicy food."),
    ("user", "I don't really like talking about politics."),
    ("user", "On weekends I play Valorant with my college friends."),
]


def run_demo(url: str, contact: str, headers: dict[str, str] | None = None) -> None:
    start = datetime.now(timezone(timedelta(hours=5, minutes=30))) - timedelta(minutes=len(CONVERSATION))
    run = uuid.uuid4().hex[:8]
    events = [{"contact_id": contact, "role": role, "message": text, "event_id": f"demo-{run}-{i}",
               "display_name": "Arjun", "channel": "whatsapp", "session_id": f"demo-{run}",
               "occurred_at": (start + timedelta(minutes=i)).isoformat()}
              for i, (role, text) in enumerate(CONVERSATION)]
    with httpx.Client(base_url=url, timeout=30, headers=headers or {}) as c:
        try:
            r = c.post("/ingest", json=events)
        except httpx.TransportError as err:  # one line, not a traceback: the likely cause and the way out
            sys.exit(f"rapport demo: nothing answers at {url} ({type(err).__name__}); start it with "
                     f"`rapport up` (or `make run`), or pass --url / set RAPPORT_URL")
        if r.status_code != 202:
            sys.exit(f"ingest failed: {r.status_code} {r.text}")
        print(f"published {r.json()['accepted']} events for contact {contact!r}", file=sys.stderr)
        r = c.get(f"/context/{contact}", params={"query": "How is Bruno doing?", "after": events[-1]["event_id"],
                                                 "budget": 500})
        if r.status_code != 200:
            sys.exit(f"context failed: {r.status_code} {r.text}")
        body = r.json()
    print(body["context_text"])
    print()
    print(json.dumps({k: body[k] for k in ("contact", "state", "memories")}, indent=2, ensure_ascii=False))
