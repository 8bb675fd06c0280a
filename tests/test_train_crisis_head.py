"""The fine-tuning experiment (ops/train_crisis_head.py): its torch copy of MiniLM is the product's model (a
head fine-tuned from a wrong start would measure something else), and its two-threshold search finds the
best pair a brute force finds. Skipped without torch (the `finetune` extra; never a runtime dependency)."""
from __future__ import annotations

import numpy as np
import pytest

from ops import train_crisis as T
from ops import train_crisis_head as H


def test_the_torch_layers_from_frozen_states_reproduce_the_embedders_vector():
    torch = pytest.importorskip("torch")
    from domain.embedder import MiniLMEmbedder

    texts = ["I have the pills here", "we're moving house on saturday, boxes everywhere"]
    w, cfg, tok = H.load_minilm()
    states = H.frozen_states(torch, w, cfg, tok, texts)
    assert [len(s) for s in states] == [len(tok.encode(t).ids) for t in texts]
    head = H.make_head(torch, w, cfg, n_levels=3, dropout=0.0).eval()   # layers 4-5 as MiniLM ships them
    with torch.no_grad():
        pooled = []
        for s in states:
            x = torch.from_numpy(s)[None]
            for layer in head.layers:
                x = layer(x, torch.zeros(1, 1, 1, x.shape[1]))
            pooled.append(x[0].mean(0).numpy())
    pooled = np.array(pooled) / np.linalg.norm(pooled, axis=1, keepdims=True)
    expected = MiniLMEmbedder().embed(texts)
    assert np.abs(pooled - expected).max() < 1e-5


def test_two_thresholds_finds_the_brute_force_best_pair():
    rng = np.random.RandomState(3)
    n = 300
    y = (rng.rand(n) < 0.5).astype(int)
    pa = np.where(y == 1, rng.rand(n) * 0.6 + 0.3, rng.rand(n) * 0.7)
    pb = np.where(y == 1, rng.rand(n) * 0.6 + 0.3, rng.rand(n) * 0.7)
    rule = rng.rand(n) < np.where(y == 1, 0.1, 0.01)
    neg = y == 0
    allowed = int(T.TARGET_FALSE_ALARMS * neg.sum())   # rule hits on negatives count against it
    assert 0 < (rule & neg).sum() < allowed
    best = 0.0
    for ta in np.append(np.unique(pa), 2.0):
        for tb in np.append(np.unique(pb), 2.0):
            flag = rule | (pa >= ta) | (pb >= tb)
            if (flag & neg).sum() <= allowed:
                best = max(best, flag[~neg].mean())
    got = H.two_thresholds(pa, pb, y, rule)
    assert got["recall"] == round(best, 3)
    assert (got["flag"] & neg).sum() <= allowed
    assert best > rule[~neg].mean()   # the case is not decided by the rules alone
