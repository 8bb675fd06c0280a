"""The third independent held-out part of issue 21: the `heldout6` part of agents/core/data/crisis_set.jsonl,
written by a writer who read neither the detector nor the other parts' texts. Measured on only (`rapport bench
safety --split heldout6`), never trained, tuned or calibrated on. Structural checks only: nothing here runs the
detector on its rows, and every assertion compares counts or booleans, so a failure prints no row's text."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from agents.core import crisis
from ops import bench_safety, train_crisis
from ops.cli import main as cli

REPO = Path(__file__).resolve().parents[1]
ROWS = [json.loads(line) for line in (REPO / "agents" / "core" / "data" / "crisis_set.jsonl")
        .read_text(encoding="utf-8").splitlines() if line.strip()]
H6 = [r for r in ROWS if r["split"] == "heldout6"]
PLAIN = [r for r in H6 if "before" not in r]
# the kinds of hard negative the issue names, each at least 12 times here
NEGATIVE_KINDS = ("idiom", "object_dies", "exasperation", "past_over", "negation", "third_person", "quote", "media",
                  "volunteering", "benign_farewell", "benign_logistics")


def _norm(t: str) -> str:
    return " ".join(t.lower().split())


def test_heldout6_has_every_category_and_kind_at_least_12_times():
    assert len(PLAIN) >= 340
    groups = Counter(r["group"] for r in PLAIN)
    assert groups["explicit"] >= 100 and groups["implicit"] >= 84 and groups["negative"] >= 150, dict(groups)
    cats = Counter(r["category"] for r in PLAIN)
    for c in (*crisis.CSSRS_LEVELS, "self_harm", *crisis.WARNING_SIGNS, *NEGATIVE_KINDS):
        assert cats[c] >= 12, (c, cats[c])
    assert {r["category"] for r in PLAIN if r["group"] == "explicit"} == set(crisis.CSSRS_LEVELS) | {"self_harm"}
    assert {r["category"] for r in PLAIN if r["group"] == "implicit"} == set(crisis.WARNING_SIGNS)
    assert {r["category"] for r in PLAIN if r["group"] == "negative"} == set(NEGATIVE_KINDS)


def test_heldout6_rows_have_the_fields_and_labels_match_groups():
    bad = [i for i, r in enumerate(H6)
           if not set(r) <= {"text", "label", "group", "category", "split", "before"}
           or not {"text", "label", "group", "category", "split"} <= set(r)
           or not isinstance(r["text"], str) or not r["text"].strip()
           or r["label"] != (0 if r["group"] == "negative" else 1)
           or r["group"] not in {"explicit", "implicit", "negative"}]
    assert not bad, f"{len(bad)} malformed heldout6 rows (indices {bad[:10]})"


def test_heldout6_conversations_hold_both_labels_for_the_same_last_message():
    conv = [r for r in H6 if "before" in r]
    assert len(conv) == 6
    by_text: dict[str, list[int]] = {}
    for r in conv:
        history_ok = isinstance(r["before"], list) and 2 <= len(r["before"]) <= 4 and all(
            isinstance(t, str) and t.strip() for t in r["before"])
        labelled_ok = r["category"] == ("in_context" if r["label"] == 1 else "benign_in_context") and (
            r["group"] == ("implicit" if r["label"] == 1 else "negative"))
        assert history_ok and labelled_ok  # booleans only: a failure prints no row
        by_text.setdefault(_norm(r["text"]), []).append(r["label"])
    both = sorted(sorted(labels) == [0, 1] for labels in by_text.values())
    assert len(by_text) == 3 and both == [True] * 3
    # the two histories of one last message differ: only they tell the two rows apart
    distinct = [len({tuple(r["before"]) for r in conv if _norm(r["text"]) == text}) for text in by_text]
    assert distinct == [2, 2, 2]
    # the last message alone is none of the plain rows, of this part or any other
    shared = len(set(by_text) & {_norm(r["text"]) for r in ROWS if "before" not in r})
    assert shared == 0


def test_heldout6_repeats_no_text_and_shares_none_with_another_part():
    own = [_norm(r["text"]) for r in PLAIN]
    repeated = len(own) - len(set(own))
    assert repeated == 0
    other = {_norm(r["text"]) for r in ROWS if r["split"] != "heldout6"}
    shared = len({_norm(r["text"]) for r in H6} & other)
    assert shared == 0


def test_bench_safety_and_the_cli_take_heldout6():
    assert bench_safety.SPLITS[-1] == "train" and {"heldout5", "heldout6"} <= set(bench_safety.SPLITS)
    [opt] = [p for p in cli.commands["bench"].commands["safety"].params if p.name == "split"]
    assert tuple(opt.type.choices) == bench_safety.SPLITS
    assert len(train_crisis.load_set("heldout6")) == len(H6)
    bad = CliRunner().invoke(cli, ["bench", "safety", "--split", "heldout7"])
    assert bad.exit_code == 2 and "heldout6" in bad.output


def test_crisis_training_never_reads_heldout6():
    rows = train_crisis.load_set("train")
    splits = {r["split"] for r in rows}
    assert len(rows) > 0
    assert "heldout6" not in splits and "heldout6" not in train_crisis.RETIRED_HELDOUT
    leaked = len({_norm(r["text"]) for r in rows} & {_norm(r["text"]) for r in H6})
    assert leaked == 0
