"""Experiment: fine-tune the top of all-MiniLM-L6-v2 as a risk classifier, cross-validated on the crisis set's
train part, against the shipped linear model (agents/core/crisis_model.py) on the same folds.

    .venv/bin/pip install -e .[finetune]     # scikit-learn and torch: this experiment only, never the product
    .venv/bin/python -m ops.train_crisis_head --cache /tmp/crisis_cache [--epochs 2,3,4,6,8] [--lr 5e-5] [--aux 0.3]

It ships nothing: cross-validated, the head did not clearly beat the shipped linear model (README, "Crisis
language and safety"), so no weights are written. ~15-20 min on the shared 2-core machine for the default epochs.

What is trained: layers 0..3 of MiniLM stay frozen (their output for each message, computed once, alone);
layers 4 and 5 start from MiniLM's weights and are fine-tuned, then mean pooling over the message's tokens and
a linear head (risk vs not; `--aux W` adds the level, C-SSRS or warning sign, as an auxiliary loss). Data: the
`train` part of agents/core/data/crisis_set.jsonl (conversation items aside) and the `--everyday` everyday
negatives ops/train_crisis uses that are nearest to a train risk message (weight EVERYDAY_WEIGHT), the same
5 folds as ops/train_crisis (SEED). AdamW, lr 5e-5 for the layers and 20x for the head, constant after half
an epoch of warm-up, batches of 32, dropout 0.1, one seed (the out-of-fold scores after e epochs are those of
a run stopped there). The `heldout` part is never read.

Reported, for each epoch count: the 5-fold out-of-fold recall (explicit, implicit, per category) at false alarms
<= TARGET_FALSE_ALARMS on the train negatives (rule hits counted), for
  linear     the shipped model's recipe (rules + logistic regression + exemplar margin), re-fit per fold;
  head       rules + the fine-tuned head alone;
  either     rules + (linear or head), the two thresholds chosen together on the out-of-fold scores;
and the gate: the linear model's lowest out-of-fold probability that lets >= GATE_RECALL of train risk
messages through (or a rule hit), with the share of train hard negatives that pass it; and, since choosing
thresholds on the same out-of-fold scores flatters, each detector again with its thresholds chosen on four
folds' scores and applied to the fifth (`nested`).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ops import train_crisis as T  # noqa: E402

FROZEN = 4          # layers 0..3 frozen; 4 and 5 trained
GATE_RECALL = 0.99


def load_minilm():
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    from domain.embedder import MAX_TOKENS, locate_local_model
    d = locate_local_model()
    cfg = json.loads((d / "config.json").read_text())
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    tok.enable_truncation(MAX_TOKENS)
    tok.no_padding()
    return load_file(str(d / "model.safetensors")), cfg, tok


def build(torch, w: dict, cfg: dict):
    """The BERT layers as a torch module mirroring domain/embedder.py's forward (exact GELU, -1e9 padding bias)."""
    nn, F = torch.nn, torch.nn.functional
    dim, heads, eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg["layer_norm_eps"]

    class Layer(nn.Module):
        def __init__(self, i: int, dropout: float):
            super().__init__()
            p = f"encoder.layer.{i}."
            self.q, self.k, self.v = (nn.Linear(dim, dim) for _ in range(3))
            self.o = nn.Linear(dim, dim)
            self.ln1 = nn.LayerNorm(dim, eps=eps)
            self.fi = nn.Linear(dim, cfg["intermediate_size"])
            self.fo = nn.Linear(cfg["intermediate_size"], dim)
            self.ln2 = nn.LayerNorm(dim, eps=eps)
            self.drop = nn.Dropout(dropout)
            names = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
                     "o": "attention.output.dense", "ln1": "attention.output.LayerNorm",
                     "fi": "intermediate.dense", "fo": "output.dense", "ln2": "output.LayerNorm"}
            with torch.no_grad():
                for attr, name in names.items():
                    mod = getattr(self, attr)
                    mod.weight.copy_(torch.from_numpy(np.array(w[p + name + ".weight"], dtype=np.float32)))
                    mod.bias.copy_(torch.from_numpy(np.array(w[p + name + ".bias"], dtype=np.float32)))

        def forward(self, x, bias):
            b, n, _ = x.shape
            hd = dim // heads

            def split(t):
                return t.view(b, n, heads, hd).transpose(1, 2)
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + bias, dim=-1)
            ctx = (att @ v).transpose(1, 2).reshape(b, n, dim)
            x = self.ln1(self.drop(self.o(ctx)) + x)
            return self.ln2(self.drop(self.fo(F.gelu(self.fi(x)))) + x)

    class Embed(nn.Module):
        def __init__(self):
            super().__init__()
            self.word = torch.from_numpy(np.array(w["embeddings.word_embeddings.weight"], dtype=np.float32))
            self.pos = torch.from_numpy(np.array(w["embeddings.position_embeddings.weight"], dtype=np.float32))
            self.typ = torch.from_numpy(np.array(w["embeddings.token_type_embeddings.weight"][0], dtype=np.float32))
            self.ln = nn.LayerNorm(dim, eps=eps)
            with torch.no_grad():
                self.ln.weight.copy_(torch.from_numpy(np.array(w["embeddings.LayerNorm.weight"], dtype=np.float32)))
                self.ln.bias.copy_(torch.from_numpy(np.array(w["embeddings.LayerNorm.bias"], dtype=np.float32)))

        def forward(self, ids):
            return self.ln(self.word[ids] + self.pos[: ids.shape[1]][None] + self.typ[None, None])

    return Layer, Embed


def frozen_states(torch, w, cfg, tok, texts: list[str], batch: int = 64) -> list[np.ndarray]:
    """Layer FROZEN-1's output for each text (training: batched by length; the product computes each alone,
    which differs by float rounding only)."""
    Layer, Embed = build(torch, w, cfg)
    emb = Embed().eval()
    layers = [Layer(i, 0.0).eval() for i in range(FROZEN)]
    encs = [tok.encode(t or "").ids for t in texts]
    order = sorted(range(len(texts)), key=lambda i: len(encs[i]))
    out: list[np.ndarray] = [np.zeros(0)] * len(texts)
    with torch.no_grad():
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            n = max(len(encs[i]) for i in idx)
            ids = torch.zeros(len(idx), n, dtype=torch.long)
            mask = torch.zeros(len(idx), n)
            for r, i in enumerate(idx):
                ids[r, :len(encs[i])] = torch.tensor(encs[i])
                mask[r, :len(encs[i])] = 1.0
            x = emb(ids)
            bias = ((1.0 - mask) * -1e9)[:, None, None, :]
            for lay in layers:
                x = lay(x, bias)
            for r, i in enumerate(idx):
                out[i] = x[r, :len(encs[i])].numpy().copy()
    return out


def make_head(torch, w, cfg, n_levels: int, dropout: float = 0.1):
    nn = torch.nn
    Layer, _ = build(torch, w, cfg)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([Layer(i, dropout) for i in range(FROZEN, cfg["num_hidden_layers"])])
            self.drop = nn.Dropout(dropout)
            self.risk = nn.Linear(cfg["hidden_size"], 1)
            self.level = nn.Linear(cfg["hidden_size"], n_levels)

        def forward(self, x, mask):
            bias = ((1.0 - mask) * -1e9)[:, None, None, :]
            for lay in self.layers:
                x = lay(x, bias)
            pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1e-9)
            pooled = self.drop(pooled)
            return self.risk(pooled)[:, 0], self.level(pooled)

    return Head()


def pad(torch, states: list[np.ndarray], idx: list[int]):
    n = max(len(states[i]) for i in idx)
    x = np.zeros((len(idx), n, states[idx[0]].shape[1]), np.float32)
    m = np.zeros((len(idx), n), np.float32)
    for r, i in enumerate(idx):
        x[r, :len(states[i])] = states[i]
        m[r, :len(states[i])] = 1.0
    return torch.from_numpy(x), torch.from_numpy(m)


def predict(torch, head, states, idx: list[int], batch: int = 64) -> np.ndarray:
    head.eval()
    out = np.zeros(len(idx))
    with torch.no_grad():
        for s in range(0, len(idx), batch):
            part = idx[s:s + batch]
            x, m = pad(torch, states, part)
            out[s:s + len(part)] = head(x, m)[0].numpy()
    return out


def train(torch, w, cfg, states, y, levels, weights, idx: list[int], epochs: list[int], lr: float, aux: float,
          n_levels: int, eval_idx: list[int] | None = None, seed: int = T.SEED, batch: int = 32):
    """Fine-tune on rows `idx`; returns {epochs: logits on eval_idx} at each epoch count asked for, and the head."""
    torch.manual_seed(seed)
    head = make_head(torch, w, cfg, n_levels)
    body = [p for n, p in head.named_parameters() if n.startswith("layers.")]
    top = [p for n, p in head.named_parameters() if not n.startswith("layers.")]
    opt = torch.optim.AdamW([{"params": body, "lr": lr}, {"params": top, "lr": lr * 20}], weight_decay=0.01)
    rng = np.random.RandomState(seed)
    steps_per_epoch = math.ceil(len(idx) / batch)
    warm = steps_per_epoch // 2
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, warm)))
    yt = torch.from_numpy(y.astype(np.float32))
    lt = torch.from_numpy(levels.astype(np.int64))
    wt = torch.from_numpy(weights.astype(np.float32))
    out = {}
    t_start = time.perf_counter()
    for ep in range(1, max(epochs) + 1):
        head.train()
        order = list(rng.permutation(idx))
        for s in range(0, len(order), batch):
            part = order[s:s + batch]
            x, m = pad(torch, states, part)
            z, zl = head(x, m)
            pi = torch.tensor(part)
            loss = (torch.nn.functional.binary_cross_entropy_with_logits(z, yt[pi], reduction="none") * wt[pi]).sum()
            if aux > 0:
                has = lt[pi] >= 0
                if bool(has.any()):
                    loss = loss + aux * torch.nn.functional.cross_entropy(zl[has], lt[pi][has], reduction="sum")
            loss = loss / wt[pi].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"  epoch {ep}: {time.perf_counter() - t_start:.0f} s", file=sys.stderr)
        if ep in epochs and eval_idx is not None:
            out[ep] = predict(torch, head, states, eval_idx)
    return out, head


def two_thresholds(pa: np.ndarray, pb: np.ndarray, y: np.ndarray, rule_hit: np.ndarray) -> dict:
    """rules | pa >= ta | pb >= tb, (ta, tb) with the highest recall at false alarms <= TARGET (rule hits
    counted, as in ops.train_crisis.choose_threshold; the models add none when the rules alone exceed it)."""
    neg = y == 0
    allowed = max(0, int(T.TARGET_FALSE_ALARMS * neg.sum()) - int((rule_hit & neg).sum()))  # the models' share
    free = neg & ~rule_hit
    best = (-1.0, 1.0, 1.0)
    top = np.sort(pa[free])[::-1]
    # ta just above the (k+1)-th highest negative: k negatives and every positive above it flagged by pa
    cands_a = [float(top[k]) + 1e-9 if k < len(top) else -1.0 for k in range(allowed + 1)]
    for ta in cands_a:
        left = free & (pa < ta)
        used = int((free & (pa >= ta)).sum())
        if used > allowed:
            continue
        rest = np.sort(pb[left])[::-1]
        k = allowed - used
        tb = float(rest[k]) + 1e-9 if k < len(rest) else 0.0
        flag = rule_hit | (pa >= ta) | (pb >= tb)
        r = float(flag[~neg].mean())
        if r > best[0]:
            best = (r, float(ta), tb)
    r, ta, tb = best
    flag = rule_hit | (pa >= ta) | (pb >= tb)
    return {"ta": round(ta, 4), "tb": round(tb, 4), "recall": round(r, 3), "false_alarms": round(float(flag[neg].mean()), 3),
            "flag": flag}


def nested(kind: str, lin: np.ndarray, head: np.ndarray, y: np.ndarray, rule_hit: np.ndarray,
           folds: np.ndarray) -> np.ndarray:
    """Flags with the thresholds of `kind` (linear, head, either) chosen on the other four folds' scores."""
    flag = np.zeros(len(y), bool)
    for f in range(5):
        tr, te = folds != f, folds == f
        if kind == "either":
            b = two_thresholds(lin[tr], head[tr], y[tr], rule_hit[tr])
            flag[te] = rule_hit[te] | (lin[te] >= b["ta"]) | (head[te] >= b["tb"])
        else:
            p = lin if kind == "linear" else head
            t, _ = T.choose_threshold(p[tr], y[tr], rule_hit[tr])
            flag[te] = rule_hit[te] | (p[te] >= t)
    return flag


def summary(name: str, flag: np.ndarray, own: list[dict], rule_hit: np.ndarray, extra: str = "") -> str:
    groups = np.array([r["group"] for r in own])
    y = np.array([r["label"] for r in own])
    s = (f"{name}: recall {flag[y == 1].mean():.3f} (explicit {flag[groups == 'explicit'].mean():.3f}, implicit "
         f"{flag[groups == 'implicit'].mean():.3f}), false alarms {flag[y == 0].mean():.3f} {extra}\n    per category: ")
    return s + ", ".join(f"{c} {rate:.2f}" for c, _, rate in T.per_category(own, rule_hit, flag))


def linear_oof(own, own_y, own_v, everyday, everyday_v, folds) -> np.ndarray:
    """The shipped model's recipe ('full': words + embedding + rules, exemplar margin), out of fold."""
    X_own, _ = T.features([r["text"] for r in own], own_v, T.LEX_SCALE_FULL)
    X_pub, _ = T.features(everyday, everyday_v, T.LEX_SCALE_FULL)
    oof = np.zeros(len(own))
    for f in range(5):
        tr = folds != f
        X = np.vstack([X_own[tr], X_pub])
        y = np.concatenate([own_y[tr], np.zeros(len(everyday))])
        wts = np.concatenate([np.ones(tr.sum()), np.full(len(everyday), T.EVERYDAY_WEIGHT)])
        z = T.fit(X, y, wts, T.C_RISK).decision_function(X_own[~tr])
        pr, pn = T.prototypes(own_v[tr], own_y[tr], everyday_v)
        z = z + T.KNN_WEIGHT * T.margins(own_v[~tr], pr, pn)
        oof[~tr] = 1 / (1 + np.exp(-z))
    return oof


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=None)
    ap.add_argument("--epochs", default="2,3,4,6,8")
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--aux", type=float, default=0.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--everyday", type=int, default=600, help="the everyday negatives nearest to risk kept")
    a = ap.parse_args(argv)
    import torch
    torch.set_num_threads(a.threads)
    torch.use_deterministic_algorithms(True)
    cache = Path(a.cache) if a.cache else None
    epochs = [int(e) for e in a.epochs.split(",")]

    own = [r for r in T.load_set("train") if "before" not in r]
    own_texts = [r["text"] for r in own]
    own_y = np.array([r["label"] for r in own])
    everyday = T.load_everyday()
    rng = np.random.RandomState(T.SEED)
    folds = np.array([i % 5 for i in range(len(own))])
    rng.shuffle(folds)
    rule_hit = np.array([T.crisis.detect_crisis(t) is not None for t in own_texts])

    own_v = T.embed(own_texts, cache, "own_train")
    everyday_v = T.embed(everyday, cache, "everyday")
    t0 = time.perf_counter()
    lin = linear_oof(own, own_y, own_v, everyday, everyday_v, folds)
    print(f"linear out-of-fold in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    th, cv = T.choose_threshold(lin, own_y, rule_hit)
    print(summary("linear (shipped recipe)", rule_hit | (lin >= th), own, rule_hit, f"threshold {th:.4f}"))
    risk_p = np.sort(lin[(own_y == 1) & ~rule_hit])
    need = int(math.floor((1 - GATE_RECALL) * (own_y == 1).sum()))  # risk messages allowed under the gate
    gate = float(risk_p[need]) - 1e-6 if need < len(risk_p) else 0.0
    passed = rule_hit | (lin >= gate)
    print(f"gate: linear p >= {gate:.5f} or a rule hit: passes {passed[own_y == 1].mean():.3f} of train risk, "
          f"{passed[own_y == 0].mean():.3f} of train hard negatives")

    w, cfg, tok = load_minilm()
    t0 = time.perf_counter()
    texts = own_texts + everyday
    cached = cache / "layer3_states.npz" if cache is not None else None
    if cached is not None and cached.exists():
        with np.load(cached) as z:
            flat, lens = z["flat"], z["lens"]
        states = np.split(flat, np.cumsum(lens)[:-1])
    else:
        states = frozen_states(torch, w, cfg, tok, texts)
        if cached is not None:
            np.savez(cached, flat=np.concatenate(states), lens=np.array([len(s) for s in states]))
    print(f"layer-{FROZEN - 1} states of {len(texts)} texts in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if a.everyday < len(everyday):  # the everyday negatives nearest to a train risk message (the others are easy)
        near = np.sort(np.argsort(-(T._unit(everyday_v) @ T._unit(own_v[own_y == 1]).T).max(axis=1),
                                  kind="stable")[:a.everyday])
        keep = list(range(len(own))) + [len(own) + int(i) for i in near]
        states = [states[i] for i in keep]
        everyday = [everyday[int(i)] for i in near]
        texts = own_texts + everyday
    level_names = sorted({r["category"] for r in own if r["label"] == 1})
    y = np.concatenate([own_y, np.zeros(len(everyday))])
    levels = np.array([level_names.index(r["category"]) if r["label"] == 1 else -1 for r in own] + [-1] * len(everyday))
    weights = np.concatenate([np.ones(len(own)), np.full(len(everyday), T.EVERYDAY_WEIGHT)])
    n_own = len(own)
    oof = {e: np.zeros(n_own) for e in epochs}
    t0 = time.perf_counter()
    for f in range(5):
        tr = [i for i in range(n_own) if folds[i] != f] + list(range(n_own, len(texts)))
        te = [i for i in range(n_own) if folds[i] == f]
        got, _ = train(torch, w, cfg, states, y, levels, weights, tr, epochs, a.lr, a.aux, len(level_names), te)
        for e in epochs:
            oof[e][te] = 1 / (1 + np.exp(-got[e]))
        print(f"fold {f} done, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    for e in epochs:
        p = oof[e]
        th_h, _ = T.choose_threshold(p, own_y, rule_hit)
        print(summary(f"head, {e} epochs, lr {a.lr}, aux {a.aux}", rule_hit | (p >= th_h), own, rule_hit,
                      f"threshold {th_h:.4f}"))
        both = two_thresholds(lin, p, own_y, rule_hit)
        print(summary(f"either (linear >= {both['ta']}, head >= {both['tb']})", both["flag"], own, rule_hit))
        for kind in ("linear", "head", "either"):
            print(summary(f"  nested thresholds, {kind}", nested(kind, lin, p, own_y, rule_hit, folds), own,
                          rule_hit).split("\n")[0])
        gated = np.where(passed, p, 0.0)
        both = two_thresholds(lin, gated, own_y, rule_hit)
        print(summary(f"either, head gated (linear >= {both['ta']}, head >= {both['tb']})", both["flag"], own,
                      rule_hit))
    if cache is not None:
        np.savez(cache / f"head_oof_lr{a.lr}_aux{a.aux}.npz", lin=lin, **{f"e{e}": oof[e] for e in epochs})


if __name__ == "__main__":
    main()
