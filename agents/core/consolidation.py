"""The deferred and periodic consolidation tiers (seed 000 §6, seed 002 §4.3-4.4), in event time.

The immediate tier is the fold itself (agents/core/contact.py). The other two run when the contact's
event time reaches their due time: on the contact's next event, or on a ContactTick that the scheduler
emits when the wall clock says an idle contact's event time has got there (agents/app_agents.py). So a
replay of the log runs them at the same points, and a historical import is consolidated in its own
time, not at today's date.

Deferred, DEFERRED_DELAY after the first turn that produced memories since the last run:
  - embeddings for memories stored without one (the shell embeds them; MemoryEmbedded),
  - merge of near-duplicates of the same type against every active memory, beyond the inline hot set:
    cosine >= the embedder's threshold and compatible (dedup.compatible, except that numbers may be
    added: "prefers short posts" / "prefers posts under 800 words"); the more specific content wins
    (more distinct content words, then numbers, then longer), importance = max of both + 0.05, the
    provenance is the union (MemoryMerged).
  Entity linking, importance adjustments (outcomes) and triggers already run inline.
Periodic, every PERIODIC_EVERY:
  1. expiry of memories past their expiresAt (MemoryExpired);
  2. decay (domain/decay.py): one MemoryDecayed with the importance of every memory that has
     gone 7+ days without use;
  3. compression: episodes that have settled (created COMPRESS_AFTER_DAYS ago) and share
     an entity, or failing that a theme (COMPRESS_MIN of them within the embedder's theme similarity of
     one another), become one pattern memory (EpisodesCompressed): importance 0.8, the episodes'
     provenance, their centroid as its vector, a digest of them as content. A theme that already has a
     pattern extends it. The episodes stay in the ledger and the memories table, status "compressed";
  4. pruning: under 0.1 and not used for 30 days (MemoryPruned);
  5. the per-contact cap of ACTIVE_CAP active memories (MemoryArchived, lowest importance first);
  6. churn risk recomputed from the engagement declines and the silence (ChurnRiskChanged).

The shell supplies `known`: for every active memory of the contact, {"embedding", "embeddingModel",
"content", "sourceEventIds"} (from PostgreSQL, or from this batch's own events), and `fresh`: vectors it
computed now for memories that had none.
"""
from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta
from typing import Any

import numpy as np

from agents.core import dedup, insights, remember
from domain.decay import days_between, importance_at, latest, prunable
from agents.core.memory import content_hash, new_memory, normalize_text
from schemas import events as ev
from schemas.envelope import Envelope, derived_id, parse_time

State = dict[str, Any]
Known = dict[str, dict[str, Any]]

DEFERRED_DELAY = timedelta(minutes=5)
PERIODIC_EVERY = timedelta(hours=6)
MERGE_BOOST = 0.05
COMPRESS_MIN = 5
COMPRESS_AFTER_DAYS = 3        # the last few days' episodes are served as they are
PATTERN_IMPORTANCE = 0.8
PATTERN_CHARS = 480            # a pattern's digest of its episodes
SNIPPETS_KEPT = 12             # the newest episodes' snippets a pattern keeps for its digest
ACTIVE_CAP = 150
# Cosine within which short chat episodes are "about the same thing". 0.55 for all-MiniLM-L6-v2 was chosen
# by looking at the year simulator's recurring topics (`rapport bench year`), not calibrated on labelled
# pairs as dedup's threshold is; the OpenAI value is an uncalibrated default.
THEME_SIMILARITY = {"all-MiniLM-L6-v2": 0.55, "text-embedding-3-small": 0.6}
DEFAULT_THEME_SIMILARITY = 0.6
# churn risk from silence (event time): a week, fading (14 days), dormant (45 days)
SILENCE_RISK = ((45, 0.6), (14, 0.4), (7, 0.2))


def known_entry(m: dict[str, Any]) -> dict[str, Any]:
    """What the tiers need of a memory (`known`), from the memory itself. The vector as an array once: the
    tiers compare it with every other memory (as a list it was converted again each time)."""
    emb = m.get("embedding")
    return {"embedding": None if emb is None else np.asarray(emb, dtype=np.float32),
            "embeddingModel": m.get("embeddingModel"), "content": m["content"],
            "sourceEventIds": list(m["sourceEventIds"]), "speaker": m.get("speaker")}


def new_consolidation(at: str) -> dict[str, Any]:
    return {"pending": [], "deferredDue": None, "periodicDue": (parse_time(at) + PERIODIC_EVERY).isoformat(),
            "themes": {}}


def due_at(s: State) -> str | None:
    """The earliest consolidation work due (event time), for the scheduler."""
    c = s.get("consolidation")
    if not c:
        return None
    dues = [d for d in (c.get("deferredDue"), c.get("periodicDue")) if d]
    return min(dues, key=parse_time) if dues else None


def is_due(s: State, at: str) -> bool:
    d = due_at(s)
    return d is not None and parse_time(d) <= parse_time(at)


def needs_known(s: State, times: list[str]) -> bool:
    """Whether a batch with events of this contact at `times` may run a tier, so the shell must load
    `known`: one is due by the last of them, or they span enough time for one to come due in between."""
    if not times:
        return False
    first, last = min(times, key=parse_time), max(times, key=parse_time)
    return is_due(s, last) or parse_time(last) - parse_time(first) >= DEFERRED_DELAY


def note_created(s: State, memory_events: list[Envelope]) -> None:
    """New memories wait for the deferred tier; its clock starts at the first of them."""
    c = s.setdefault("consolidation", new_consolidation(memory_events[0].occurred_at if memory_events else
                                                        s.get("firstSeen") or s.get("lastSeen")))
    for e in memory_events:
        if e.event_type == ev.MEMORY_EXTRACTED:
            c["pending"].append(e.payload["memory"]["id"])
            if c.get("deferredDue") is None:
                c["deferredDue"] = (e.occurred + DEFERRED_DELAY).isoformat()


def run_due(s: State, env: Envelope, known: Known, fresh: Known | None = None) -> list[Envelope]:
    """Run whatever tier is due at the event's time; `s` is the fold's working copy (mutated)."""
    c = s.get("consolidation")
    if not c or not is_due(s, env.occurred_at):
        return []
    known = known if known is not None else {}
    if any("content" not in known.get(mid, {}) for mid in s["memoryIndex"]["items"]):
        # the shell loads `known` whenever a tier can come due in a batch (needs_known); without it the
        # work stays due rather than run on partial data
        return []
    at = env.occurred_at
    out: list[Envelope] = []
    if c.get("deferredDue") and parse_time(c["deferredDue"]) <= env.occurred:
        out += deferred(s, env, known, fresh or {})
    if c.get("periodicDue") and parse_time(c["periodicDue"]) <= env.occurred:
        out += periodic(s, env, known)
        c["periodicDue"] = (env.occurred + PERIODIC_EVERY).isoformat()
    if out:
        s["memoryVersion"] = s.get("memoryVersion", 0) + 1
    c["lastRunAt"] = at
    return out


# ----------------------------------------------------------------------------------------- deferred
def deferred(s: State, env: Envelope, known: Known, fresh: Known) -> list[Envelope]:
    c = s["consolidation"]
    idx = s["memoryIndex"]
    out: list[Envelope] = []
    for mid, f in sorted(fresh.items()):
        item = idx["items"].get(mid)
        if item is None or item.get("embedded"):
            continue
        idx["items"][mid] = {**item, "embedded": True}
        known.setdefault(mid, {}).update(embedding=f["embedding"], embeddingModel=f["embeddingModel"])
        out.append(ev.derived(env, ev.MEMORY_EMBEDDED, f"embed:{mid}", {
            "memoryId": mid, "embedding": [float(x) for x in f["embedding"]], "model": f["embeddingModel"]}))
    for mid in c["pending"]:
        if mid in idx["items"]:
            out += _merge_one(s, env, mid, known)
    c["pending"], c["deferredDue"] = [], None
    return out


def _specificity(content: str) -> tuple[int, int, int]:
    words = normalize_text(content).split()
    return (len({w for w in words if w not in insights.GLUE}), len(re.findall(r"\d+", content)), len(content))


def merge_compatible(a: dict[str, Any], b: dict[str, Any], b_item: dict[str, Any]) -> bool:
    """dedup.compatible, except that one side may add numbers the other leaves out."""
    if a["memoryType"] != b_item["memoryType"]:
        return False
    if a.get("memoryKey") and b_item.get("memoryKey") and a["memoryKey"] != b_item["memoryKey"]:
        return False
    sa, sb = dedup.signature(a["content"]), b_item["sig"]
    if sa["bag"] == sb["bag"] and sa["seq"] != sb["seq"]:
        return False
    na, nb = set(sa["nums"]), set(sb["nums"])
    return sa["neg"] == sb["neg"] and (na <= nb or nb <= na)


def _merge_one(s: State, env: Envelope, mid: str, known: Known) -> list[Envelope]:
    idx = s["memoryIndex"]
    item, k = idx["items"][mid], known.get(mid) or {}
    if k.get("embedding") is None or "content" not in k or item.get("corrected"):
        return []  # a corrected memory says what a person said it should: never merged away
    v = np.asarray(k["embedding"], dtype=np.float32)
    threshold = dedup.threshold_for(k.get("embeddingModel"))
    best, best_id = -1.0, None
    this = {**item, "content": k["content"]}
    for oid, other in idx["items"].items():
        ko = known.get(oid) or {}
        if oid == mid or ko.get("embedding") is None or "content" not in ko \
                or ko.get("embeddingModel") != k.get("embeddingModel") or other.get("pinned") or other.get("corrected") \
                or not merge_compatible(this, ko, other):
            continue
        sim = float(v @ np.asarray(ko["embedding"], dtype=np.float32))
        if sim > best or (sim == best and best_id is not None and oid < best_id):
            best, best_id = sim, oid
    if best_id is None or best < threshold:
        return []
    # more specific content wins; on a tie the older memory stays
    older, newer = sorted([mid, best_id], key=lambda x: (idx["items"][x]["createdAt"], x))
    winner, loser = (newer, older) if _specificity(known[newer]["content"]) > _specificity(known[older]["content"]) \
        else (older, newer)
    return [merge(s, env, winner, loser, known, round(best, 4))]


def merge(s: State, env: Envelope, winner: str, loser: str, known: Known, similarity: float | None) -> Envelope:
    """`loser` merges into `winner`: importance max(both, as of now) + 0.05, provenance and entities united."""
    idx = s["memoryIndex"]
    at = env.occurred_at
    w, lo = idx["items"][winner], idx["items"][loser]
    top = max(importance_at(w["importance"], w["accessedAt"], w["decayRate"], at, w["pinned"]),
              importance_at(lo["importance"], lo["accessedAt"], lo["decayRate"], at, lo["pinned"]))
    sources = list(dict.fromkeys(known[winner].get("sourceEventIds", []) + known[loser].get("sourceEventIds", [])))
    refs = sorted(set(w["refs"]) | set(lo["refs"]))
    item = {**w, "importance": round(min(1.0, top + MERGE_BOOST), 4), "accessedAt": latest(at, w["accessedAt"]),
            "accessCount": w["accessCount"] + lo["accessCount"], "refs": refs}
    remember.drop(idx, loser)
    idx["items"][winner] = item
    known[winner] = {**known[winner], "sourceEventIds": sources}
    return ev.derived(env, ev.MEMORY_MERGED, f"merge:{loser}:{winner}", {
        "memoryId": loser, "into": winner, "importance": item["importance"], "accessCount": item["accessCount"],
        "sourceEventIds": sources, "entityRefs": refs, "similarity": similarity, "at": at})


# ----------------------------------------------------------------------------------------- periodic
def periodic(s: State, env: Envelope, known: Known) -> list[Envelope]:
    idx = s["memoryIndex"]
    at = env.occurred_at
    out: list[Envelope] = []
    for mid, item in sorted(idx["items"].items()):  # 1. expiry
        if item.get("expiresAt") and parse_time(item["expiresAt"]) <= env.occurred and not item["pinned"]:
            remember.drop(idx, mid)
            out.append(ev.derived(env, ev.MEMORY_EXPIRED, f"expire:{mid}", {"memoryId": mid, "at": item["expiresAt"]}))
    decayed = []  # 2. decay
    for mid, item in sorted(idx["items"].items()):
        now = importance_at(item["importance"], item["accessedAt"], item["decayRate"], at, item["pinned"])
        if now < item["importance"]:
            decayed.append({"memoryId": mid, "importance": now})
    if decayed:
        out.append(ev.derived(env, ev.MEMORY_DECAYED, "decay", {"at": at, "memories": decayed}))
    out += compress(s, env, known)  # 3.
    for mid, item in sorted(idx["items"].items()):  # 4. pruning
        if prunable(item["importance"], item["accessedAt"], item["decayRate"], at, item["pinned"]):
            remember.drop(idx, mid)
            out.append(ev.derived(env, ev.MEMORY_PRUNED, f"prune:{mid}", {
                "memoryId": mid, "importance": importance_at(item["importance"], item["accessedAt"],
                                                             item["decayRate"], at), "at": at}))
    for mid in over_cap(idx, at):  # 5. the cap
        remember.drop(idx, mid)
        out.append(ev.derived(env, ev.MEMORY_ARCHIVED, f"archive:{mid}", {"memoryId": mid, "reason": "cap"}))
    out += recompute_churn(s, env)  # 6.
    return out


def over_cap(idx: dict[str, Any], at: str) -> list[str]:
    items = idx["items"]
    excess = len(items) - ACTIVE_CAP
    if excess <= 0:
        return []
    order = sorted((m for m, it in items.items() if not it["pinned"]),
                   key=lambda m: (importance_at(items[m]["importance"], items[m]["accessedAt"], items[m]["decayRate"],
                                                at), items[m]["createdAt"], m))
    return order[:excess]


def silence_risk(days_silent: float) -> float:
    for days, risk in SILENCE_RISK:
        if days_silent > days:
            return risk
    return 0.0


def recompute_churn(s: State, env: Envelope) -> list[Envelope]:
    """churnRisk = the engagement declines still in force (+0.2 each, emotion.step_session_closed; over
    once engagement recovers) + the silence so far, capped at 1."""
    engagement = s.get("engagement") or {}
    if not engagement.get("declined") and s.get("churnDecline"):
        s["churnDecline"] = 0.0
    silent = days_between(s["lastSeen"], env.occurred_at) if s.get("lastSeen") else 0.0
    risk = round(min(1.0, s.get("churnDecline", 0.0) + silence_risk(silent)), 4)
    if risk == s.get("churnRisk", 0.0):
        return []
    s["churnRisk"] = risk
    return [ev.derived(env, ev.CHURN_RISK_CHANGED, "periodic:churn", {
        "churnRisk": risk, "reason": f"recomputed: {silent:.0f} days silent, declines {s.get('churnDecline', 0.0)}"})]


# -------------------------------------------------------------------------------------- compression
def _settled_episodes(idx: dict[str, Any], at: str, known: Known) -> list[str]:
    return sorted(mid for mid, it in idx["items"].items()
                  if it["memoryType"] == "episode" and not it["pinned"] and mid in known and "content" in known[mid]
                  and days_between(it["createdAt"], at) >= COMPRESS_AFTER_DAYS)


def existing_theme(s: State, mid: str, known: Known) -> str | None:
    """The theme an episode belongs to among those that already have a pattern: one of its entities',
    else the cluster pattern nearest to it within the theme similarity. Such a theme takes in an
    episode on its own (the five-episode rule is for starting a pattern)."""
    items, themes_ = s["memoryIndex"]["items"], s["consolidation"].setdefault("themes", {})
    for ref in sorted(items[mid]["refs"]):
        if themes_.get(f"entity|{ref}") in items:
            return f"entity|{ref}"
    k = known[mid]
    if k.get("embedding") is None:
        return None
    found = _nearest_theme_pattern(s, np.asarray(k["embedding"], dtype=np.float32), k.get("embeddingModel"), known)
    return found[0] if found else None


def _nearest_theme_pattern(s: State, vec: np.ndarray, model: str | None, known: Known) -> tuple[str, str] | None:
    """(theme key, pattern id) of the active cluster pattern nearest to `vec`, within the theme similarity."""
    items, themes_ = s["memoryIndex"]["items"], s["consolidation"].setdefault("themes", {})
    threshold = THEME_SIMILARITY.get(model or "", DEFAULT_THEME_SIMILARITY)
    best, found = -1.0, None
    for key, pid in sorted(themes_.items()):
        kv = known.get(pid) or {}
        if key.startswith("theme|") and pid in items and kv.get("embedding") is not None \
                and kv.get("embeddingModel") == model:
            sim = float(vec @ np.asarray(kv["embedding"], dtype=np.float32))
            # halfway to how close its founding episodes are to it: a centroid is nearer to everything than
            # its members are to each other, so the bare threshold let one theme swallow a whole chat
            join_at = (items[pid].get("theme") or {}).get("joinAt")
            bar = threshold if join_at is None else max(threshold, (threshold + float(join_at)) / 2)
            if sim >= bar and sim > best:
                best, found = sim, (key, pid)
    return found


def themes(s: State, episodes: list[str], known: Known, entity_names: dict[str, str]
           ) -> list[tuple[str, str, list[str]]]:
    """(theme key, label, episode ids) groups: episodes of themes that have a pattern already, then new
    themes of COMPRESS_MIN+ episodes: entities first (the most mentioned first), then clusters of
    similar episodes among the rest (the episode with the most neighbours first)."""
    idx = s["memoryIndex"]
    groups: list[tuple[str, str, list[str]]] = []
    joined: dict[str, list[str]] = {}
    for m in episodes:
        key = existing_theme(s, m, known)
        if key is not None:
            joined.setdefault(key, []).append(m)
    groups += [(key, "", members) for key, members in sorted(joined.items())]
    left = [m for m in episodes if not any(m in g for g in joined.values())]
    by_ref = Counter(r for m in left for r in idx["items"][m]["refs"])
    for ref, n in sorted(by_ref.items(), key=lambda x: (-x[1], x[0])):
        members = [m for m in left if ref in idx["items"][m]["refs"]]
        if len(members) >= COMPRESS_MIN:
            groups.append((f"entity|{ref}", entity_names.get(ref, ref.split(":", 1)[-1]), members))
            left = [m for m in left if m not in members]
    with_vec = [m for m in left if known[m].get("embedding") is not None]
    if len(with_vec) < COMPRESS_MIN:
        return groups
    models = Counter(known[m].get("embeddingModel") for m in with_vec)
    model = models.most_common(1)[0][0]
    with_vec = [m for m in with_vec if known[m].get("embeddingModel") == model]
    threshold = THEME_SIMILARITY.get(model or "", DEFAULT_THEME_SIMILARITY)
    vecs = np.asarray([known[m]["embedding"] for m in with_vec], dtype=np.float32)
    sims = vecs @ vecs.T
    close = sims >= threshold
    free = np.ones(len(with_vec), dtype=bool)
    while True:
        counts = (close & free[None, :] & free[:, None]).sum(axis=1)
        best = int(np.argmax(counts))
        if counts[best] < COMPRESS_MIN:
            break
        members_i = _clique(sims, best, np.flatnonzero(close[best] & free), threshold)
        if len(members_i) < COMPRESS_MIN:
            free[best] = False  # no theme of its own: its neighbours may still found one
            continue
        members = [with_vec[i] for i in members_i]
        free[members_i] = False
        groups.append((f"theme|{members[0]}", "", members))
    return groups


def _clique(sims: np.ndarray, hub: int, near: np.ndarray, threshold: float) -> np.ndarray:
    """The hub's neighbours that are all within the threshold of one another, taken nearest to the hub
    first: a theme is episodes about one thing, not a chain of each like the next."""
    members = [hub]
    for i in sorted((int(i) for i in near if i != hub), key=lambda i: (-sims[hub, i], i)):
        if all(sims[i, j] >= threshold for j in members):
            members.append(i)
    return np.asarray(members)


def _find_theme_pattern(s: State, key: str, centroid: np.ndarray | None, model: str | None,
                        known: Known) -> tuple[str, str | None]:
    """(theme key, the active pattern this theme already has or None): the same theme key, or a cluster
    pattern whose vector is within the theme similarity of this cluster's centroid."""
    themes_ = s["consolidation"].setdefault("themes", {})
    items = s["memoryIndex"]["items"]
    if themes_.get(key) in items:
        return key, themes_[key]
    if key.startswith("entity|") or centroid is None:
        return key, None
    return _nearest_theme_pattern(s, centroid, model, known) or (key, None)


def _digest(label: str, speakers: list[str], count: int, first_at: str, last_at: str, shown: list[str]) -> str:
    first, last = parse_time(first_at), parse_time(last_at)
    start = first.strftime("%b %-d" if first.year == last.year else "%b %-d, %Y")
    span = last.strftime("%b %-d, %Y") if first.date() == last.date() else f"{start} – {last.strftime('%b %-d, %Y')}"
    who = " and ".join(speakers) + " often " + ("talks" if len(speakers) == 1 else "talk") if speakers \
        else "Often talks"
    head = f"{who} about {label} ({count} times, {span})"
    body, used = [], len(head) + 7
    for snip in shown:
        if used + len(snip) + 2 > PATTERN_CHARS:
            break
        body.append(snip)
        used += len(snip) + 2
    return head + (", e.g. " + "; ".join(body) if body else "")


def _snippet(content: str, limit: int = 90) -> str:
    t = " ".join(content.split())
    return t if len(t) <= limit else t[: limit - 1].rsplit(" ", 1)[0] + "…"


def gist(theme: dict[str, Any]) -> str:
    """What a theme says about the person, for the profile: "Often talks about dinner: pizza, tacos"."""
    return f"Often talks about {theme['label']}"


def _background(s: State, known: Known, members: list[str], key: str) -> tuple[dict[str, int], int]:
    """Phrase counts of what else the contact talks about (the other themes and the episodes still
    active), against which a theme's own phrases are told apart."""
    idx, themes_ = s["memoryIndex"]["items"], s["consolidation"].get("themes", {})
    counts: Counter = Counter()
    size = 0
    for k, pid in themes_.items():
        theme = (idx.get(pid) or {}).get("theme") or {}
        if k != key and theme.get("phrases"):
            counts.update(theme["phrases"])
            size += theme.get("count", 0)
    others = [known[m]["content"] for m, it in sorted(idx.items())
              if it["memoryType"] == "episode" and m not in members and "content" in known.get(m, {})]
    counts.update(insights.count_phrases(others))
    return dict(counts), size + len(others)


def compress(s: State, env: Envelope, known: Known) -> list[Envelope]:
    idx = s["memoryIndex"]
    at = env.occurred_at
    graph = s.get("entities") or {}
    names = {ref: node.get("displayName") or ref for ref, node in graph.items()}
    out = []
    for key, label, members in themes(s, _settled_episodes(idx, at, known), known, names):
        model = known[members[0]].get("embeddingModel")
        vecs = [np.asarray(known[m]["embedding"], dtype=np.float32) for m in members
                if known[m].get("embedding") is not None and known[m].get("embeddingModel") == model]
        centroid = None
        if vecs:
            c = np.mean(vecs, axis=0)
            centroid = (c / (np.linalg.norm(c) or 1.0)).astype(np.float32)
        key, pid = _find_theme_pattern(s, key, centroid, model, known)
        theme = (idx["items"][pid].get("theme") if pid else None) or {"label": label, "count": 0, "snippets": [],
                                                                      "speakers": []}
        episodes = sorted(members, key=lambda m: (idx["items"][m]["createdAt"], m))
        first_at = theme.get("first") or idx["items"][episodes[0]]["createdAt"]
        last_at = idx["items"][episodes[-1]]["createdAt"]
        count = theme["count"] + len(episodes)
        texts = [_snippet(known[m]["content"]) for m in reversed(episodes)]
        snippets = list({normalize_text(t): t for t in reversed(texts + theme["snippets"])}.values())[::-1]
        snippets = snippets[:SNIPPETS_KEPT]  # the newest distinct ones
        phrases = insights.count_phrases([known[m]["content"] for m in episodes], theme.get("phrases"))
        speakers = sorted(set(theme["speakers"]) | {known[m]["speaker"] for m in episodes if known[m].get("speaker")})
        if not speakers and s.get("displayName"):
            speakers = [s["displayName"]]
        # relabelled as it grows, unless a model named it or it predates phrase counts (then it keeps its label)
        theme_label = theme["label"]
        if theme.get("labelSource") != "llm" and ("phrases" in theme or not pid):
            topic = names.get(key.split("|", 1)[1], key.split(":", 1)[-1]) if key.startswith("entity|") else None
            theme_label = insights.label(phrases, count, *_background(s, known, members, key), snippets,
                                         topic=topic, speakers=speakers + [s.get("displayName") or ""])
        content = _digest(theme_label, speakers, count, first_at, last_at, insights.examples(snippets, phrases))
        sources = list(dict.fromkeys((known.get(pid, {}).get("sourceEventIds", []) if pid else [])
                                     + [x for m in episodes for x in known[m].get("sourceEventIds", [])]))
        refs = sorted({r for m in episodes for r in idx["items"][m]["refs"]}
                      | (set(idx["items"][pid]["refs"]) if pid else set()))
        if key.startswith("entity|"):
            refs = [key.split("|", 1)[1]] + [r for r in refs if r != key.split("|", 1)[1]]
        if pid and centroid is not None and known[pid].get("embedding") is not None:
            # the pattern's vector follows all its episodes (weighted by how many each side holds)
            n_old = theme["count"]
            c = np.asarray(known[pid]["embedding"], dtype=np.float32) * n_old + centroid * len(episodes)
            centroid = (c / (np.linalg.norm(c) or 1.0)).astype(np.float32)
        created = pid is None
        if created:
            pid = derived_id(env, f"pattern:{key}")
            importance, access_count, created_at = PATTERN_IMPORTANCE, 0, at
        else:
            old = idx["items"][pid]
            importance = round(min(1.0, importance_at(old["importance"], old["accessedAt"], old["decayRate"], at)
                                   + MERGE_BOOST), 4)
            access_count, created_at = old["accessCount"], old["createdAt"]
        pattern = {**new_memory(
            memory_id=pid, tenant_id=s["tenantId"], contact_id=s["contactId"], memory_type="pattern", content=content,
            created_at=created_at, source_event_ids=sources, source="consolidation", importance=importance,
            confidence=0.8, entity_refs=refs, scope="tenant" if s.get("contactId") == ev.TENANT_CONTACT else "contact"),
            "accessCount": access_count, "accessedAt": at, "updatedAt": at}
        if centroid is not None:
            pattern["embedding"], pattern["embeddingModel"] = [float(x) for x in centroid], model
        for m in episodes:
            remember.drop(idx, m)
        if not created:
            remember.drop(idx, pid)
        join_at = theme.get("joinAt")
        if join_at is None and vecs and centroid is not None:  # founding: how close its episodes are to it
            join_at = round(min(float(v @ centroid) for v in vecs), 4)
        idx["items"][pid] = {**remember.index_item(pattern),
                             "theme": {"label": theme_label, "count": count, "first": first_at, "last": last_at,
                                       "snippets": snippets, "speakers": speakers, "phrases": phrases,
                                       **({"labelSource": "llm"} if theme.get("labelSource") == "llm" else {}),
                                       **({"joinAt": join_at} if join_at is not None else {})}}
        s["consolidation"]["themes"][key] = pid
        known[pid] = known_entry(pattern)
        out.append(ev.derived(env, ev.EPISODES_COMPRESSED, f"compress:{key}:{episodes[0]}", {
            "pattern": pattern, "episodeIds": episodes, "theme": key, "created": created, "at": at,
            "count": count}))
    return out


def relabel(s: State, env: Envelope, pattern_id: str, label: str, count: int) -> list[Envelope]:
    """A model's label for a theme (RAPPORT_SUMMARY_MODEL), for the theme as it stood at `count` episodes
    (a proposal for an earlier state is stale: the theme has grown or gone since). The pattern's text
    is rebuilt around it; later growth keeps it, and the model is asked again."""
    item = s["memoryIndex"]["items"].get(pattern_id)
    theme = (item or {}).get("theme")
    if not theme or theme.get("count") != count or not theme.get("last") or theme.get("label") == label:
        return []
    theme = {**theme, "label": label, "labelSource": "llm"}
    s["memoryIndex"]["items"][pattern_id] = {**item, "theme": theme}
    content = _digest(label, theme["speakers"], count, theme["first"], theme["last"],
                      insights.examples(theme["snippets"], theme.get("phrases") or {}))
    s["memoryVersion"] = s.get("memoryVersion", 0) + 1
    return [ev.derived(env, ev.PATTERN_RELABELLED, f"relabel:{pattern_id}", {
        "memoryId": pattern_id, "label": label, "content": content, "contentHash": content_hash(content),
        "count": count, "at": env.occurred_at})]
