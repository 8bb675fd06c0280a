"""`rapport bench locomo`: LoCoMo retrieval quality, and cross-validation of the ranking's parameters across
the conversations of a LoCoMo file (issue 23: a gain must not be a fit to the conversations it was tuned on).

The conversations are replayed through the public contract of a running rapport (an embedded stack unless
--url) exactly as the maintainers' harness replays them (one event per turn, contact "locomo-<sample_id>",
tenant "bench", occurred_at = session start + 30 s x turn index, the image caption appended, questions asked
at the last session's start + 1 day). Then every question is asked in-process, through the API's own
`build_context` over the same PostgreSQL, once per variant of the ranking's parameters (a variant sets
module constants of projections/retrieval.py, context.py and edge_routes.py for the duration of its pass),
and scored as that harness scores: recall@1200 (the returned memories packed greedily within 1,200 tokens
of ceil(len/4)), R@10 and MRR over the full ranking (budget 100,000), on categories 1-4 (5, adversarial,
apart).

Cross-validation (--cv): for each conversation, the variant with the best mean of the three numbers on the
*other* conversation(s) is read on it; the pooled "tuned on the other" numbers are then set beside the
shipped defaults' numbers on the whole file. A parameter whose choice differs between the conversations
is reported, since its gain is a fit to the conversation it was chosen on.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator

import httpx

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
DATE_FMT = "%I:%M %p on %d %B, %Y"
BUDGET = 1200
FULL_BUDGET = 100_000
TENANT = "bench"

# name -> the values a variant may give it (the first is not necessarily the default: that is read from
# the code). Each variant changes one parameter; see `variants`.
GRID: dict[str, list[Any]] = {
    "SPEAKER_SHARE": [0.0, 0.3, 0.5, 0.7],
    "NEIGHBOUR_SHARE": [0.3, 0.5, 0.6, 0.7, 0.8],
    "NEIGHBOUR_WIDTH": [1, 2, 3],
    "LEXICAL_WEIGHT": [0.35, 0.5, 0.65],
    "REPEAT_SHARE": [1.0, 0.5, 0.0],
    "VARIANT_SHARE": [0.0, 0.25, 0.5, 1.0],
}
# where each parameter lives: every module among these holding the name gets the variant's value (lexical:
# the other forms' share, read by edge_routes.keyword_search at each question)
MODULES = ("projections.retrieval", "projections.context", "projections.edge_routes", "projections.lexical")


def rfc3339(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def norm_evidence(raw: list, valid: set[str]) -> list[str]:
    good = set()
    for e in raw or []:
        for part in re.split(r"[;,\s]+", str(e)):
            part = part.strip().strip(".()")
            m = re.fullmatch(r"D:?(\d+):0*(\d+)", part)
            cand = f"D{m.group(1)}:{m.group(2)}" if m else part
            if cand in valid:
                good.add(cand)
    return sorted(good)


def load(path: str) -> list[dict[str, Any]]:
    """The conversations of a LoCoMo file as events and questions (the replay the maintainers' harness
    does)."""
    with open(path, encoding="utf-8") as f:
        samples = json.load(f)
    convs = []
    for s in samples:
        sid, c = s["sample_id"], s["conversation"]
        nums = sorted(int(k.split("_")[1]) for k in c if re.fullmatch(r"session_\d+", k) and c[k])
        events, valid, last = [], set(), None
        for n in nums:
            start = datetime.strptime(c[f"session_{n}_date_time"], DATE_FMT).replace(tzinfo=timezone.utc)
            last = start if last is None or start > last else last
            for i, t in enumerate(c[f"session_{n}"]):
                msg = t.get("text") or ""
                if t.get("blip_caption"):
                    msg = (msg + f' [image: {t["blip_caption"]}]').strip()
                events.append({"tenant_id": TENANT, "contact_id": f"locomo-{sid}", "event_id": f'{sid}:{t["dia_id"]}',
                               "role": "user", "display_name": t["speaker"], "session_id": f"session_{n}",
                               "occurred_at": rfc3339(start + timedelta(seconds=30 * i)), "message": msg})
                valid.add(t["dia_id"])
        qs = [{"qid": f"{sid}#{i}", "question": q["question"], "category": q["category"],
               "gold": norm_evidence(q.get("evidence", []), valid)} for i, q in enumerate(s["qa"])]
        convs.append({"sample_id": sid, "contact_id": f"locomo-{sid}", "events": events,
                      "qa": [q for q in qs if q["gold"]], "as_of": last + timedelta(days=1)})
    return convs


def ingest(base: str, headers: dict[str, str], conv: dict[str, Any], timeout_s: float = 900) -> None:
    """POST the conversation's events, then wait until the last is reflected (GET /context?after=)."""
    with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
        for i in range(0, len(conv["events"]), 200):
            for attempt in range(6):
                r = http.post("/ingest", json=conv["events"][i:i + 200])
                if r.status_code in (200, 202):
                    break
                time.sleep(min(0.5 * 2 ** attempt, 8))
            else:
                raise RuntimeError(f"ingest failed: {r.status_code} {r.text[:200]}")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            r = http.get(f"/context/{conv['contact_id']}", params={"tenant_id": TENANT,
                                                                  "after": conv["events"][-1]["event_id"]})
            if r.status_code == 200:
                return
            time.sleep(0.5 if r.status_code == 504 else 1.0)
        raise RuntimeError(f"{conv['sample_id']}: not processed within {timeout_s} s")


# ------------------------------------------------------------------------------------------- scoring
def covered(mem: dict[str, Any], prefix: str) -> set[str]:
    return {e[len(prefix):] for e in mem.get("sourceEventIds") or [] if e.startswith(prefix)}


def scores(full: list[dict], packed: list[dict], gold: set[str], prefix: str, budget: int = BUDGET) -> dict[str, float]:
    """recall within `budget` tokens (greedy prefix of ceil(len/4)), R@10 and MRR of the full ranking."""
    used, cov = 0, set()
    for m in packed:
        t = math.ceil(len(m.get("content") or "") / 4)
        if used + t > budget:
            break
        used += t
        cov |= covered(m, prefix)
    covs = [covered(m, prefix) for m in full]
    top10 = set().union(*covs[:10]) if covs else set()
    first = next((r for r, c in enumerate(covs, 1) if c & gold), None)
    return {"recall@1200": len(gold & cov) / len(gold), "R@10": len(gold & top10) / len(gold),
            "MRR": 0.0 if first is None else 1 / first}


METRICS = ("recall@1200", "R@10", "MRR")


def aggregate(rows: list[dict[str, Any]], cats: tuple[int, ...] = (1, 2, 3, 4)) -> dict[str, float]:
    rows = [r for r in rows if r["category"] in cats]
    return {k: round(statistics.fmean(r[k] for r in rows), 4) if rows else 0.0 for k in METRICS} | {"n": len(rows)}


def objective(agg: dict[str, float]) -> float:
    """What a variant is chosen by: the mean of the three headline numbers."""
    return statistics.fmean(agg[k] for k in METRICS)


# ------------------------------------------------------------------------------------------- variants
def defaults() -> dict[str, Any]:
    import importlib

    out = {}
    for name in GRID:
        for mod in MODULES:
            m = importlib.import_module(mod)
            if hasattr(m, name):
                out[name] = getattr(m, name)
                break
    return out


def variants(grid: dict[str, list[Any]] | None = None) -> list[dict[str, Any]]:
    """The shipped defaults ({}), then each parameter moved alone to each of its other values."""
    base, out = defaults(), [{}]
    for name, values in (grid or GRID).items():
        out += [{name: v} for v in values if v != base.get(name)]
    return out


# the defaults' pass is run again last: the stack's scheduler keeps advancing the contacts' clocks (the
# consolidation tiers run in event time), so the same ranking can read a little differently minutes later
AGAIN = "defaults (again, last)"


@contextlib.contextmanager
def applied(variant: dict[str, Any]) -> Iterator[None]:
    import importlib

    saved = []
    try:
        for name, value in variant.items():
            for mod in MODULES:
                m = importlib.import_module(mod)
                if hasattr(m, name):
                    saved.append((m, name, getattr(m, name)))
                    setattr(m, name, value)
        yield
    finally:
        for m, name, value in reversed(saved):
            setattr(m, name, value)


def label(variant: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in variant.items()) or "defaults"


# ------------------------------------------------------------------------------------------- in-process
async def ask_all(database_url: str, convs: list[dict[str, Any]], grid: list[dict[str, Any]],
                  log: Any = print) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """variant label -> sample id -> one row per question, each variant's pass with its parameters set."""
    from psycopg_pool import AsyncConnectionPool

    from domain.embedder import query_embedder
    from projections import deps
    from streams import db
    from projections.edge_routes import build_context
    from projections.service import ApiSettings, Service
    from projections.store import Store

    pool = AsyncConnectionPool(database_url, min_size=1, max_size=4, open=False,
                               configure=db.configure_pool_conn, kwargs={"autocommit": True})
    await pool.open(wait=True)
    svc = Service(ApiSettings.from_env())
    svc.pool, svc.store, svc.embedder = pool, Store(pool), await asyncio.to_thread(query_embedder, svc.s)
    deps.CURRENT.set(svc)
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    try:
        for v in grid + ([{}] if len(grid) > 1 else []):
            t0 = time.perf_counter()
            name = AGAIN if (v == {} and label(v) in out) else label(v)
            with applied(v):
                per = {}
                for conv in convs:
                    prefix, rows = conv["sample_id"] + ":", []
                    for q in conv["qa"]:
                        ctx = {"query": q["question"], "persona_id": None, "at": conv["as_of"], "fresh": True}
                        full = (await build_context(TENANT, conv["contact_id"], budget=FULL_BUDGET, **ctx))["memories"]
                        packed = (await build_context(TENANT, conv["contact_id"], budget=BUDGET, **ctx))["memories"]
                        rows.append({"qid": q["qid"], "category": q["category"],
                                     **scores(full, packed, set(q["gold"]), prefix),
                                     "top10": [",".join(sorted(covered(m, prefix))) for m in full[:10]]})
                    per[conv["sample_id"]] = rows
            out[name] = per
            log(f"  {name}: " + "  ".join(f"{sid} {fmt(aggregate(rows))}" for sid, rows in per.items())
                + f"  ({time.perf_counter() - t0:.0f} s)")
    finally:
        await pool.close()
    return out


def fmt(agg: dict[str, float]) -> str:
    return " / ".join(f"{agg[k]:.3f}" for k in METRICS)


def cross_validate(results: dict[str, dict[str, list[dict[str, Any]]]], sids: list[str]) -> dict[str, Any]:
    """For each conversation, the variant the others choose (best objective on their pooled questions)
    and its numbers on it; pooled over the conversations, beside the defaults on the whole file."""
    results = {v: r for v, r in results.items() if v != AGAIN}
    chosen, rows = {}, []
    for sid in sids:
        others = [o for o in sids if o != sid]
        best = max(results, key=lambda v: (objective(aggregate([r for o in others for r in results[v][o]])),
                                           v == "defaults"))
        own = max(results, key=lambda v: (objective(aggregate(results[v][sid])), v == "defaults"))
        chosen[sid] = {"tuned_on_other": best, "would_choose_itself": own,
                       "numbers": aggregate(results[best][sid]), "defaults": aggregate(results["defaults"][sid])}
        rows += results[best][sid]
    full = aggregate([r for sid in sids for r in results["defaults"][sid]])
    cv = aggregate(rows)
    return {"per_conversation": chosen, "cross_validated": cv, "defaults_full": full,
            "gap": {k: round(full[k] - cv[k], 4) for k in METRICS},
            "adversarial_defaults": aggregate([r for sid in sids for r in results["defaults"][sid]], (5,))}


def report(results: dict[str, dict[str, list[dict[str, Any]]]], sids: list[str], cv: bool) -> dict[str, Any]:
    d = [r for sid in sids for r in results["defaults"][sid]]
    out: dict[str, Any] = {"defaults": aggregate(d), "by_category": {
        CATEGORIES[c]: aggregate(d, (c,)) for c in CATEGORIES}}
    print(f"\ndefaults, all conversations, categories 1-4 (recall@{BUDGET} / R@10 / MRR): {fmt(out['defaults'])}"
          f"  (n={out['defaults']['n']})")
    for name, agg in out["by_category"].items():
        print(f"  {name:12s} {fmt(agg)}  (n={agg['n']})")
    if cv and len(sids) > 1:
        out["cv"] = x = cross_validate(results, sids)
        print("\ncross-validation (choose the variant on the other conversation, read it on this one):")
        for sid, c in x["per_conversation"].items():
            print(f"  {sid}: tuned on the other -> {c['tuned_on_other']}: {fmt(c['numbers'])}; defaults "
                  f"{fmt(c['defaults'])}; it would choose {c['would_choose_itself']}")
        if AGAIN in results:
            again = aggregate([r for sid in sids for r in results[AGAIN][sid]])
            print(f"  drift: the defaults read again after the other variants: {fmt(again)}")
            x["defaults_again"] = again
        print(f"  pooled, tuned on the other: {fmt(x['cross_validated'])}; defaults on all: {fmt(x['defaults_full'])}; "
              f"gap " + " / ".join(f"{x['gap'][k]:+.3f}" for k in METRICS))
    return out


def main(data: str, url: str | None, cv: bool, out_path: str | None, only: list[str] | None = None) -> dict[str, Any]:
    from ops.bench import target

    convs = load(data)
    if only:
        convs = [c for c in convs if c["sample_id"] in only]
    grid = variants() if cv else [{}]
    with target(url, workers=1, with_db=True) as (base, database_url, headers):
        if not database_url:
            sys.exit("--url needs RAPPORT_DATABASE_URL (the in-process passes read its PostgreSQL)")
        for conv in convs:
            t0 = time.perf_counter()
            ingest(base, headers, conv)
            print(f"{conv['sample_id']}: {len(conv['events'])} events ingested and processed in "
                  f"{time.perf_counter() - t0:.0f} s; {len(conv['qa'])} questions")
        print(f"{len(grid)} variant(s) of {', '.join(GRID)} (defaults {defaults()})")
        results = asyncio.run(ask_all(database_url, convs, grid))
    out = report(results, [c["sample_id"] for c in convs], cv)
    if out_path:
        with open(out_path, "w", encoding="utf-8") as f:
            json.dump({"summary": out, "results": results}, f, indent=1)
    return out
