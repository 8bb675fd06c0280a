"""The independent held-out data of issue 21: the `heldout4` part of agents/core/data/crisis_set.jsonl and
agents/core/data/mood_dialogue_heldout.jsonl, written apart from the detector's and the mood model's tuning.
They are measured on (`rapport bench safety --split heldout4`, `rapport bench mood`) and never trained, tuned
or calibrated on: checked here on the rows the training code reads and on the calls it makes."""
from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from agents.core import crisis
from ops import bench_mood, bench_safety, train_crisis, train_mood
from ops.cli import main as cli

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "agents" / "core" / "data"
ROWS = [json.loads(line) for line in (DATA / "crisis_set.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]
H4 = [r for r in ROWS if r["split"] == "heldout4"]
MOOD_HELD = bench_mood.load_heldout_dialogue()


def _norm(t: str) -> str:
    return " ".join(t.lower().split())


def test_heldout4_exists_with_every_category_and_kind():
    plain = [r for r in H4 if "before" not in r]
    assert len(plain) >= 300
    groups = Counter(r["group"] for r in plain)
    assert groups["explicit"] >= 75 and groups["implicit"] >= 75 and groups["negative"] >= 140
    assert {r["label"] for r in H4} == {0, 1}
    assert all(r["label"] == (0 if r["group"] == "negative" else 1) for r in H4)
    cats = Counter(r["category"] for r in plain)
    # every C-SSRS level, self-harm and warning sign the detector names; every kind of hard negative the
    # train part has; at least 8 messages each
    train_neg = {r["category"] for r in ROWS if r["split"] == "train" and r["label"] == 0 and "before" not in r}
    for c in (*crisis.CSSRS_LEVELS, "self_harm", *crisis.WARNING_SIGNS, *train_neg):
        assert cats[c] >= 8, (c, cats[c])
    explicit = {r["category"] for r in plain if r["group"] == "explicit"}
    assert explicit == set(crisis.CSSRS_LEVELS) | {"self_harm"}
    assert {r["category"] for r in plain if r["group"] == "implicit"} == set(crisis.WARNING_SIGNS)


def test_heldout4_conversations_hold_both_labels_for_the_same_last_message():
    conv = [r for r in H4 if "before" in r]
    assert len(conv) >= 4
    by_text: dict[str, set] = {}
    for r in conv:
        assert r["before"] and all(isinstance(t, str) and t for t in r["before"])
        assert r["category"] == ("in_context" if r["label"] == 1 else "benign_in_context")
        by_text.setdefault(r["text"], set()).add(r["label"])
    assert all(labels == {0, 1} for labels in by_text.values())


def test_heldout4_shares_no_text_with_train_or_another_part_and_repeats_none():
    own = [_norm(r["text"]) for r in H4 if "before" not in r]
    assert len(own) == len(set(own))
    other = {_norm(r["text"]) for r in ROWS if r["split"] != "heldout4"}
    train = {_norm(r["text"]) for r in ROWS if r["split"] == "train"}
    assert not set(own) & train
    assert not set(own) & other


def test_bench_safety_and_the_cli_take_heldout4():
    assert "heldout4" in bench_safety.SPLITS
    [opt] = [p for p in cli.commands["bench"].commands["safety"].params if p.name == "split"]
    assert tuple(opt.type.choices) == bench_safety.SPLITS
    assert len(train_crisis.load_set("heldout4")) == len(H4)
    bad = CliRunner().invoke(cli, ["bench", "safety", "--split", "heldout9"])
    assert bad.exit_code == 2 and "heldout4" in bad.output


def _calls(path: Path, name: str) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and (getattr(n.func, "id", None) == name or getattr(n.func, "attr", None) == name)]


def _reads(path: Path, fragment: str, name: str) -> list[int]:
    """Lines of `path`'s code (docstrings aside) with a string holding `fragment` or a reference to `name`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.lineno for n in ast.walk(tree)
            if (isinstance(n, ast.Constant) and isinstance(n.value, str) and fragment in n.value and id(n) not in docs)
            or (isinstance(n, ast.Name) and n.id == name) or (isinstance(n, ast.Attribute) and n.attr == name)]


def test_crisis_training_reads_the_train_part_only():
    # every module of ops/ but the benchmark: a load_set call names the `train` part, in so many letters
    for path in sorted((REPO / "ops").glob("*.py")):
        if path.name == "bench_safety.py":
            continue
        for call in _calls(path, "load_set"):
            arg = call.args[0] if call.args else None
            assert isinstance(arg, ast.Constant) and arg.value == "train", (path.name, call.lineno)
        if path.name != "train_crisis.py":  # where load_set is defined: the only reader of the file
            assert not _reads(path, "crisis_set", "SET_PATH"), path.name
    rows = train_crisis.load_set("train")
    assert {r["split"] for r in rows} == {"train"}
    held = {_norm(r["text"]) for r in ROWS if r["split"] != "train"}
    assert not {_norm(r["text"]) for r in rows} & held


def test_the_mood_dialogue_held_out_set_is_balanced_over_the_five_moods():
    assert len(MOOD_HELD) >= 300
    n = Counter(r["mood"] for r in MOOD_HELD)
    assert set(n) == set(train_mood.DIALOGUE_MOODS)
    assert max(n.values()) - min(n.values()) <= len(MOOD_HELD) * 0.05
    assert sum(1 for r in MOOD_HELD if r.get("previous")) >= 40
    texts = [_norm(r["text"]) for r in MOOD_HELD]
    assert len(texts) == len(set(texts))


def test_mood_training_and_calibration_never_read_the_dialogue_held_out_set(tmp_path, monkeypatch):
    held = {_norm(r["text"]) for r in MOOD_HELD} | {_norm(r["previous"]) for r in MOOD_HELD if r.get("previous")}
    # a GoEmotions folder of one row, so the training set is the hand-written rows the trainer reads
    (tmp_path / "original_labels.txt").write_text("joy\nneutral\n", encoding="utf-8")
    (tmp_path / "original_train.tsv").write_text("a fine day\t0\tid1\n", encoding="utf-8")
    texts, moods, is_hand = train_mood.training_set(tmp_path)
    assert len(texts) > 300 and is_hand.sum() == len(texts) - 1
    assert not {_norm(t) for t in texts} & held
    calib = train_mood.load_dialogue(split="dev") + train_mood.load_dialogue(split="train")
    assert calib and not {_norm(r["text"]) for r in calib} & held
    assert not {_norm(r["text"]) for r in train_mood.load_hand()} & held
    # no module of ops/ but the benchmark names the file
    for path in sorted((REPO / "ops").glob("*.py")):
        if path.name != "bench_mood.py":
            assert not _reads(path, "mood_dialogue_heldout", "HELDOUT_DIALOGUE_PATH"), path.name


def test_a_previous_line_is_classified_first_and_its_mood_is_the_context():
    seen = []

    def fn(text, vector=None, previous=None):  # noqa: ANN001, ANN202
        seen.append((text, vector, previous))
        return {"mood": {"p1": "sad", "p2": "angry"}.get(text, "neutral")}

    rows = [{"text": "a", "previous": "p1"}, {"text": "b"}, {"text": "c", "previous": "p2"}]
    out = bench_mood.classify_with_previous(fn, rows, ["va", "vb", "vc"], {0: "vp1", 2: "vp2"})
    assert out == ["neutral", "neutral", "neutral"]
    assert seen == [("p1", "vp1", None), ("a", "va", "sad"), ("b", "vb", None), ("p2", "vp2", None),
                    ("c", "vc", "angry")]
    seen.clear()
    bench_mood.classify_with_previous(fn, rows, ["va", "vb", "vc"], {0: "vp1", 2: "vp2"}, use_context=False)
    assert seen == [("a", "va", None), ("b", "vb", None), ("c", "vc", None)]


def test_the_mood_held_out_rows_carry_the_fields_the_bench_reads():
    for row in MOOD_HELD:
        assert set(row) <= {"text", "mood", "previous", "split"} and row["split"] == "heldout", row
        assert row["text"].strip() and (row.get("previous") is None or row["previous"].strip()), row
