"""The unread held-out parts of issue 21's crisis set (agents/core/data/crisis_set.jsonl): `heldout5` and
`heldout6`, each by a writer who read neither the detector nor the other parts' texts. They are measured on
(`rapport bench safety --split heldoutN`), never trained, tuned or calibrated on. One suite for every part.

Structural checks only: nothing here runs the detector on their rows, and every assertion compares counts or
booleans held in local names, so a failure prints no row's text."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from agents.core import crisis
from ops import bench_safety, train_crisis
from ops.cli import main as cli

REPO = Path(__file__).resolve().parents[1]
ROWS = [json.loads(line) for line in (REPO / "agents" / "core" / "data" / "crisis_set.jsonl")
        .read_text(encoding="utf-8").splitlines() if line.strip()]
# the kinds of hard negative the issue names, each at least 12 times in a part
NEGATIVE_KINDS = ("idiom", "object_dies", "exasperation", "past_over", "negation", "third_person", "quote", "media",
                  "volunteering", "benign_farewell", "benign_logistics")
# part -> the least it holds: plain rows, explicit, implicit, negatives (each part as its writer delivered it)
PARTS = {"heldout5": (330, 96, 84, 150), "heldout6": (340, 100, 84, 150)}
FIELDS = {"text", "label", "group", "category", "split"}


def _norm(t: str) -> str:
    return " ".join(t.lower().split())


def _part(split: str) -> list[dict]:
    return [r for r in ROWS if r["split"] == split]


@pytest.mark.parametrize("split", PARTS)
def test_the_part_has_every_category_and_kind_at_least_12_times(split):
    plain = [r for r in _part(split) if "before" not in r]
    least_rows, least_explicit, least_implicit, least_negative = PARTS[split]
    n, groups = len(plain), Counter(r["group"] for r in plain)
    assert n >= least_rows
    assert groups["explicit"] >= least_explicit and groups["implicit"] >= least_implicit, dict(groups)
    assert groups["negative"] >= least_negative, dict(groups)
    cats = Counter(r["category"] for r in plain)
    for c in (*crisis.CSSRS_LEVELS, "self_harm", *crisis.WARNING_SIGNS, *NEGATIVE_KINDS):
        assert cats[c] >= 12, (c, cats[c])
    assert {r["category"] for r in plain if r["group"] == "explicit"} == set(crisis.CSSRS_LEVELS) | {"self_harm"}
    assert {r["category"] for r in plain if r["group"] == "implicit"} == set(crisis.WARNING_SIGNS)
    assert {r["category"] for r in plain if r["group"] == "negative"} == set(NEGATIVE_KINDS)


@pytest.mark.parametrize("split", PARTS)
def test_the_parts_rows_have_the_fields_and_labels_match_groups(split):
    bad = [i for i, r in enumerate(_part(split))
           if not set(r) <= FIELDS | {"before"} or not FIELDS <= set(r)
           or not isinstance(r["text"], str) or not r["text"].strip()
           or r["label"] != (0 if r["group"] == "negative" else 1)
           or r["group"] not in {"explicit", "implicit", "negative"}]
    assert not bad, f"{len(bad)} malformed {split} rows (indices {bad[:10]})"


@pytest.mark.parametrize("split", PARTS)
def test_the_parts_conversations_hold_both_labels_for_the_same_last_message(split):
    conv = [r for r in _part(split) if "before" in r]
    n_conv = len(conv)
    assert n_conv == 6
    by_text: dict[str, list[int]] = {}
    for r in conv:
        history_ok = isinstance(r["before"], list) and 2 <= len(r["before"]) <= 4 and all(
            isinstance(t, str) and t.strip() for t in r["before"])
        labelled_ok = r["category"] == ("in_context" if r["label"] == 1 else "benign_in_context") and (
            r["group"] == ("implicit" if r["label"] == 1 else "negative"))
        assert history_ok and labelled_ok  # booleans only: a failure prints no row
        by_text.setdefault(_norm(r["text"]), []).append(r["label"])
    n_texts = len(by_text)
    both = sorted(sorted(labels) == [0, 1] for labels in by_text.values())
    assert n_texts == 3 and both == [True] * 3
    # the two histories of one last message differ: only they tell the two rows apart
    distinct = [len({tuple(r["before"]) for r in conv if _norm(r["text"]) == text}) for text in by_text]
    assert distinct == [2, 2, 2]
    # the last message alone is none of the plain rows, of this part or any other
    shared = len(set(by_text) & {_norm(r["text"]) for r in ROWS if "before" not in r})
    assert shared == 0


@pytest.mark.parametrize("split", PARTS)
def test_the_part_repeats_no_text_and_shares_none_with_another_part(split):
    own = [_norm(r["text"]) for r in _part(split) if "before" not in r]
    repeated = len(own) - len(set(own))
    assert repeated == 0
    other = {_norm(r["text"]) for r in ROWS if r["split"] != split}
    shared = len({_norm(r["text"]) for r in _part(split)} & other)
    assert shared == 0


@pytest.mark.parametrize("split", PARTS)
def test_bench_safety_and_the_cli_take_the_part(split):
    assert bench_safety.SPLITS[-1] == "train" and split in bench_safety.SPLITS
    [opt] = [p for p in cli.commands["bench"].commands["safety"].params if p.name == "split"]
    assert tuple(opt.type.choices) == bench_safety.SPLITS
    loaded, stored = len(train_crisis.load_set(split)), len(_part(split))
    assert loaded == stored
    bad = CliRunner().invoke(cli, ["bench", "safety", "--split", "heldout99"])
    assert bad.exit_code == 2 and split in bad.output


@pytest.mark.parametrize("split", PARTS)
def test_crisis_training_never_reads_the_part(split):
    rows = train_crisis.load_set("train")
    n, splits = len(rows), {r["split"] for r in rows}
    assert n > 0 and split not in splits and split not in train_crisis.RETIRED_HELDOUT
    leaked = len({_norm(r["text"]) for r in rows} & {_norm(r["text"]) for r in _part(split)})
    assert leaked == 0


def test_bench_safety_tells_an_unread_parts_conversations_by_number_never_by_text(monkeypatch):
    """`rapport bench safety --split heldout6` printed each conversation pair's messages: reading the report
    was reading the part. An unread part's report and --json now carry the flags only."""
    import numpy as np

    assert bench_safety.UNREAD == tuple(PARTS)
    fake_rows = [{"text": "SECRET last", "label": lab, "group": "implicit" if lab else "negative",
                  "category": "in_context" if lab else "benign_in_context", "split": "x",
                  "before": [f"SECRET history {lab}", "SECRET before"]} for lab in (1, 0)]
    fake_rows.append({"text": "a plain row", "label": 0, "group": "negative", "category": "idiom", "split": "x"})

    class Emb:
        def embed(self, texts):  # noqa: ANN001, ANN202
            return np.zeros((len(texts), 384), np.float32)

    monkeypatch.setattr(bench_safety, "load_set", lambda split: fake_rows)
    monkeypatch.setattr(bench_safety, "_embedder", lambda: Emb())
    monkeypatch.setattr(bench_safety, "evaluate", lambda rows, vecs: {})
    monkeypatch.setattr(bench_safety, "report", lambda res: json.dumps(res["conversations"]))
    for split in bench_safety.SPLITS:
        res = bench_safety.run(split)
        printed = json.dumps(res)
        assert ("SECRET" in printed) == (split not in bench_safety.UNREAD), split
        assert [c["label"] for c in res["conversations"]] == [1, 0]
