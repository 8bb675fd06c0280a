"""`rapport bench safety`: crisis detection on the held-out part of the project's crisis set.

    .venv/bin/python -m ops.bench_safety [--split heldout|heldout2|...|heldout6|train] [--public N] [--json]

For three detectors -- the rules alone (agents/core/crisis.detect_crisis), rules + the lexical model (a
message that comes without a vector), rules + the full model (the message's MiniLM vector, as the worker
computes it) -- on the `heldout` part of agents/core/data/crisis_set.jsonl (never trained or tuned on):
  - (a message counts as flagged when it would make a crisis trigger, `crisis_model.raises_alarm`: concern for
    somebody else puts the helpline guidance into the context and makes no trigger; those hits are counted apart)
  - recall of explicit and implicit risk messages, and per category (C-SSRS levels, self-harm, warning signs);
  - the false-alarm rate over all hard negatives and per kind (idioms, objects that die, exasperation, a past
    that is over, volunteering/training, media, benign farewells and logistics, negation);
  - for flagged explicit/implicit messages, how often the level given is the labelled one (information);
  - conversations: the same last message after a negative history and after a calm one (context shift);
  - for information, `--public N` rows of the weakly labelled public set (noisy labels, long posts);
  - latency of `crisis_model.assess` per message (p50/p99, vector given).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from agents.core import crisis, crisis_model as CM, mood as M  # noqa: E402
from ops.train_crisis import DEFAULT_PUBLIC, RETIRED_HELDOUT, load_public, load_set  # noqa: E402

DETECTORS = ("rules", "rules+lexical", "rules+model")
# the parts of the crisis set: `train` and held-out parts written later, by other hands, never trained or tuned
# on (heldout4, heldout5, heldout6: each written independently of the detector's tuning for issue 21, measured only)
SPLITS = ("heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "train")
# the parts nobody reads: their report and --json carry counts and flags, never a message's text
UNREAD = tuple(s for s in SPLITS if s.startswith("heldout") and s not in RETIRED_HELDOUT)


def _embedder():
    from domain.embedder import MiniLMEmbedder
    return MiniLMEmbedder(batch_size=32)


def _verdicts(texts: list[str], vecs: np.ndarray) -> dict[str, list[dict | None]]:
    return {"rules": [crisis.detect_crisis(t) for t in texts],
            "rules+lexical": [CM.assess(t, None)[0] for t in texts],
            "rules+model": [CM.assess(t, v)[0] for t, v in zip(texts, vecs)]}


def _rate(xs: list[bool]) -> float:
    return round(sum(xs) / len(xs), 3) if xs else 0.0


def evaluate(rows: list[dict], vecs: np.ndarray) -> dict[str, Any]:
    texts = [r["text"] for r in rows]
    out: dict[str, Any] = {"n": len(rows)}
    for name, hits in _verdicts(texts, vecs).items():
        by_group: dict[str, list[bool]] = defaultdict(list)
        by_cat: dict[str, list[bool]] = defaultdict(list)
        level_ok: list[bool] = []
        for r, h in zip(rows, hits):
            flagged = CM.raises_alarm(h)  # a crisis trigger (concern for somebody else makes none)
            by_group[r["group"]].append(flagged)
            by_cat[r["category"]].append(flagged)
            if flagged and r["label"] == 1:
                level_ok.append(h.get("level") == r["category"])
        out[name] = {
            "explicit_recall": _rate(by_group["explicit"]), "implicit_recall": _rate(by_group["implicit"]),
            "false_alarms": _rate(by_group["negative"]),
            "per_category": {c: _rate(v) for c, v in sorted(by_cat.items())},
            "level_agreement": _rate(level_ok),
            "third_party_hits": sum(1 for h in hits if h is not None and not CM.raises_alarm(h)),
            "misses": [r["text"] for r, h in zip(rows, hits) if r["label"] == 1 and not CM.raises_alarm(h)],
            "false_alarm_texts": [r["text"] for r, h in zip(rows, hits) if r["label"] == 0 and CM.raises_alarm(h)]}
    return out


def conversations(rows: list[dict], emb) -> list[dict]:
    """Each conversation item: its history through the context, then the last message with and without it."""
    out = []
    for r in rows:
        ctx: dict | None = None
        for t in r["before"]:
            v = emb.embed([t])[0]
            _, own = CM.assess(t, v, ctx)
            ctx = CM.step_context(ctx, own or 0.0, M.classify(t, vector=v)["mood"] if _takes_vector() else
                                  M.classify(t)["mood"])
        v = emb.embed([r["text"]])[0]
        with_ctx, _ = CM.assess(r["text"], v, ctx)
        alone, _ = CM.assess(r["text"], v, None)
        out.append({"label": r["label"], "text": r["text"], "history": r["before"],
                    "flagged": CM.raises_alarm(with_ctx), "flagged_alone": CM.raises_alarm(alone), "context": (with_ctx or {}).get("context")})
    return out


def _takes_vector() -> bool:
    import inspect
    return "vector" in inspect.signature(M.classify).parameters


def run(split: str = "heldout", public: int = 0) -> dict[str, Any]:
    rows = load_set(split)
    plain = [r for r in rows if "before" not in r]
    emb = _embedder()
    vecs = emb.embed([r["text"] for r in plain])
    conv = conversations([r for r in rows if "before" in r], emb)
    if split in UNREAD:  # the pair is told by its number: reading its text would be reading the part
        conv = [{k: v for k, v in c.items() if k not in ("text", "history")} for c in conv]
    res: dict[str, Any] = {"split": split, "set": evaluate(plain, vecs), "conversations": conv}
    times = []
    for r, v in zip(plain, vecs):
        t0 = time.perf_counter()
        CM.assess(r["text"], v, {"recent": [{"p": 0.1, "neg": True}] * 3})
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    res["latency_ms"] = {"p50": round(times[len(times) // 2], 3), "p99": round(times[int(len(times) * 0.99)], 3)}
    if public and DEFAULT_PUBLIC.exists():
        pub = load_public(DEFAULT_PUBLIC, 100_000)[-public:]  # the far end of the shuffle: rows training did not sample
        pv = emb.embed([t for _, t in pub])
        hits = [CM.raises_alarm(CM.assess(t, v)[0]) for (_, t), v in zip(pub, pv)]
        pos = [h for (lab, _), h in zip(pub, hits) if lab == 1]
        neg = [h for (lab, _), h in zip(pub, hits) if lab == 0]
        res["public"] = {"n": len(pub), "recall": _rate(pos), "false_alarms": _rate(neg)}
    return res


def report(res: dict[str, Any]) -> str:
    s = res["set"]
    lines = [f"crisis set, {res['split']} part ({s['n']} messages)"]
    head = f"{'':28s}" + "".join(f"{d:>15s}" for d in DETECTORS)
    lines += [head]
    for key, label in (("explicit_recall", "explicit recall"), ("implicit_recall", "implicit recall"),
                       ("false_alarms", "false alarms (all negatives)"),
                       ("level_agreement", "level = label (flagged)")):
        lines.append(f"{label:28s}" + "".join(f"{s[d][key]:>15.3f}" for d in DETECTORS))
    lines.append(f"{'concern for someone else':28s}" + "".join(f"{s[d]['third_party_hits']:>15d}" for d in DETECTORS)
                 + "  (hits, all messages: guidance only, no trigger, not counted above)")
    lines.append("per category (risk: recall; negatives: false-alarm rate)")
    for c in s["rules+model"]["per_category"]:
        lines.append(f"  {c:26s}" + "".join(f"{s[d]['per_category'][c]:>15.3f}" for d in DETECTORS))
    conv = res["conversations"]
    if conv:
        lines.append("conversations (same last message, different history): flagged with context / alone")
        for i, c in enumerate(conv, 1):
            said = f"\"{c['text']}\" after \"{c['history'][-1]}\"" if "text" in c else f"(item {i}: an unread part)"
            lines.append(f"  label {c['label']}  {str(c['flagged']):5s} / {str(c['flagged_alone']):5s}  {said}")
    if "public" in res:
        p = res["public"]
        lines.append(f"weak public set, {p['n']} rows (information; noisy labels): recall {p['recall']}, "
                     f"false alarms {p['false_alarms']}")
    lines.append(f"assess latency per message (vector given): p50 {res['latency_ms']['p50']} ms, "
                 f"p99 {res['latency_ms']['p99']} ms")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="heldout", choices=SPLITS)
    ap.add_argument("--public", type=int, default=0, help="also N rows of the weak public set (information)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    res = run(a.split, a.public)
    print(json.dumps(res, indent=1) if a.json else report(res))


if __name__ == "__main__":
    main()
