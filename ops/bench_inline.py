"""`rapport bench inline`: the whole per-event fold (extraction, entity linking, mood, patterns, dedup,
sessions) on a realistic message mix, per event, without I/O: the inline tier's budget. A user message
comes with a sentence embedding (`message_vector`, as the worker passes it; a random unit vector here:
the fold's cost does not depend on its values, and computing it is the worker's batch step)."""
from __future__ import annotations

import random
import time

import numpy as np
from datetime import datetime, timedelta, timezone

from agents.core import contact as core
from ops.bench import message, pct
from schemas import events as ev


def run(events: int = 5000, contacts: int = 50, seed: int = 11) -> dict:
    rng = random.Random(seed)
    states = {c: core.new_state("bench", f"c{c}") for c in range(contacts)}
    t0 = datetime(2026, 4, 1, 20, tzinfo=timezone.utc)
    lat = []
    vectors = np.random.default_rng(seed).standard_normal((64, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for i in range(events):
        c = rng.randrange(contacts)
        e = ev.interaction(event_id=f"b{i}", tenant_id="bench", contact_id=f"c{c}",
                           occurred_at=(t0 + timedelta(minutes=3 * i)).isoformat(), recorded_at=t0.isoformat(),
                           role="user" if rng.random() < 0.7 else "assistant", message=message(rng))
        s = time.perf_counter()
        plans = core.plan_memories(e)
        states[c], _ = core.apply_interaction(states[c], e, plans, message_vector=vectors[i % 64])
        lat.append((time.perf_counter() - s) * 1000)
    return {"events": events, "p50_ms": round(pct(lat, 50), 3), "p95_ms": round(pct(lat, 95), 3),
            "p99_ms": round(pct(lat, 99), 3), "max_ms": round(max(lat), 3)}


def main() -> None:
    r = run()
    print(f"inline fold per event ({r['events']} events, realistic mix, no I/O): p50 {r['p50_ms']} ms, "
          f"p95 {r['p95_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms")


if __name__ == "__main__":
    main()
