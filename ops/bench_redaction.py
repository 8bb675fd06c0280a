"""Precision and recall of secrets redaction (agents/core/redaction.py) on a labelled set.

    rapport bench redaction [--data tests/data/redaction_labelled.jsonl] [--json] [--show]

The set (tests/data/redaction_labelled.jsonl, hand-written): secrets of each kind in many phrasings
(separators, numbers in words, split over two consecutive messages of one contact), each naming the
strings that must not survive, and harmless look-alikes (order and tracking numbers, dates, prices,
versions, "the password policy is strict"), each naming the kind it resembles. Split "dev" is what the
rules were developed on; split "held" was written after them and only measured. (A first held-out
part, ids `held-...`, was measured once, its misses fixed, and it is part of "dev" now; the current
held-out part is `held2-...`.)

Each case's messages run in order through `redact_message` as the fold runs them (the carry of one
message goes to the next, occurred a minute apart), with every kind on. A secret case is caught when
none of its strings survives in any message (compared without spaces, dots and dashes); a look-alike is
kept when every message comes out unchanged.
  recall (per kind)    = caught / secret cases
  precision (per kind) = secret cases changed / (secret cases changed + look-alikes of the kind changed)
  look-alikes kept     = look-alikes unchanged / look-alikes
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from agents.core import redaction as R  # noqa: E402

DEFAULT_DATA = REPO / "tests" / "data" / "redaction_labelled.jsonl"
_SEP = re.compile(r"[\s.\-,/]")


def load(path: Path = DEFAULT_DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_case(messages: list[str], kinds: frozenset[str] = frozenset(R.KINDS)) -> list[str]:
    carry, out = None, []
    for i, text in enumerate(messages):
        clean, carry = R.redact_message(text, carry, f"2026-04-03T10:{i:02d}:00+00:00", kinds)
        out.append(clean)
    return out


def leaked(case: dict[str, Any], out: list[str]) -> list[str]:
    flat = [_SEP.sub("", o).lower() for o in out]
    return [s for s in case["secrets"] if any(_SEP.sub("", s).lower() in f for f in flat)]


def score(cases: list[dict[str, Any]]) -> dict[str, Any]:
    per: dict[str, dict[str, int]] = {k: {"secrets": 0, "caught": 0, "changed": 0, "lookalikes": 0, "false": 0}
                                      for k in R.KINDS}
    misses, false = [], []
    for c in cases:
        out = run_case(c["messages"])
        changed = out != c["messages"]
        if c["kind"]:
            p = per[c["kind"]]
            p["secrets"] += 1
            p["changed"] += changed
            if leaked(c, out):
                misses.append({"id": c["id"], "messages": c["messages"], "out": out})
            else:
                p["caught"] += 1
        else:
            p = per[c["like"]]
            p["lookalikes"] += 1
            p["false"] += changed
            if changed:
                false.append({"id": c["id"], "messages": c["messages"], "out": out})
    rows = {}
    for k, p in per.items():
        if p["secrets"] or p["lookalikes"]:
            rows[k] = {**p, "recall": p["caught"] / p["secrets"] if p["secrets"] else None,
                       "precision": p["changed"] / (p["changed"] + p["false"]) if p["changed"] + p["false"] else None}
    tot = {f: sum(p[f] for p in per.values()) for f in ("secrets", "caught", "changed", "lookalikes", "false")}
    promised = [p for k, p in per.items() if k in R.ALWAYS]
    overall = {**tot, "recall": tot["caught"] / max(1, tot["secrets"]),
               "precision": tot["changed"] / max(1, tot["changed"] + tot["false"]),
               "lookalikes_kept": 1 - tot["false"] / max(1, tot["lookalikes"]),
               "recall_promised": sum(p["caught"] for p in promised) / max(1, sum(p["secrets"] for p in promised))}
    return {"kinds": rows, "overall": overall, "misses": misses, "false_positives": false}


def latency(cases: list[dict[str, Any]], rounds: int = 7) -> dict[str, float]:
    """Per message, the median of `rounds` runs of redact() (the machine is shared: a single run's
    time carries other processes' noise); p50 and p99 over the messages."""
    texts = [m for c in cases for m in c["messages"]]
    for t in texts:  # phonenumbers' metadata loads on first use
        R.redact(t)
    per = []
    for t in texts:
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            R.redact(t)
            times.append((time.perf_counter() - t0) * 1e6)
        per.append(sorted(times)[rounds // 2])
    per.sort()
    return {"p50_us": per[len(per) // 2], "p99_us": per[int(len(per) * 0.99)], "messages": len(texts)}


def _fmt(x: float | None) -> str:
    return "   -" if x is None else f"{x:.3f}"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="rapport bench redaction")
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--show", action="store_true", help="print every miss and false positive")
    a = ap.parse_args(argv)
    cases = load(Path(a.data))
    result = {split: score([c for c in cases if c["split"] == split]) for split in ("dev", "held")}
    result["latency"] = latency(cases)
    if a.json:
        print(json.dumps(result, indent=2))
        return
    for split in ("dev", "held"):
        r = result[split]
        o = r["overall"]
        print(f"\n{split}: {o['secrets']} secret cases, {o['lookalikes']} look-alikes")
        print(f"  {'kind':<13} {'secrets':>7} {'recall':>7} {'look-alikes':>11} {'changed':>7} {'precision':>9}")
        for k, p in r["kinds"].items():
            print(f"  {k:<13} {p['secrets']:>7} {_fmt(p['recall']):>7} {p['lookalikes']:>11} {p['false']:>7} "
                  f"{_fmt(p['precision']):>9}")
        print(f"  {'overall':<13} {o['secrets']:>7} {_fmt(o['recall']):>7} {o['lookalikes']:>11} {o['false']:>7} "
              f"{_fmt(o['precision']):>9}")
        print(f"  recall on the always-redacted kinds {o['recall_promised']:.3f}; look-alikes kept {o['lookalikes_kept']:.3f}")
        if a.show:
            for m in r["misses"]:
                print("  MISS", m["id"], m["messages"], "->", m["out"])
            for m in r["false_positives"]:
                print("  FALSE", m["id"], m["messages"], "->", m["out"])
    lat = result["latency"]
    print(f"\nlatency of redact() per message (median of 7 runs each): p50 {lat['p50_us']:.0f} us, "
          f"p99 {lat['p99_us']:.0f} us over {lat['messages']} messages")


if __name__ == "__main__":
    main()
