"""The crisis rules' derived word gates (agents/core/crisis_gates.py, issue 24): every match of a pattern contains one
of its required literals (a property over generated patterns and texts, and over every rule of the table), and the
gated engine answers exactly as the ungated one (generated messages; the crisis set's training rows, every message
of tests/test_crisis_round*.py and the everyday corpus round 7 measured false alarms on)."""
from __future__ import annotations

import ast
import json
import os
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from agents.core import crisis, crisis_gates as cg, crisis_model
from agents.core.rules import crisis_rules as cr

ROOT = Path(__file__).resolve().parent.parent
HELD_OUT = {"heldout5", "heldout6"}  # never read here (PREAMBLE: held-out parts nobody reads)


# ------------------------------------------------------------------------------------ the derivation
@pytest.mark.parametrize("pattern, expected", [
    (r"\bkill myself\b", {"kill myself"}),
    (r"\b(?:want|wanna) (?:to )?die\b", None),  # checked below by containment, not by the exact set
    (r"abc|xyz", {"abc", "xyz"}),
    (r"ab[cd]e", {"abce", "abde"}),
    (r"colou?r", {"color", "colour"}),
])
def test_required_literals_of_simple_patterns(pattern, expected):
    lits = cg.required_literals(pattern)
    assert lits is not None
    if expected is not None:
        assert lits == expected
    else:
        assert all(any(s in m for s in lits) for m in ("want to die", "wanna die", "want die", "wanna to die"))


@pytest.mark.parametrize("pattern", [r".*", r"\w+", r"[^ ]+", r"(?i)kill", r"(?i:kill)|x", r"a|.", r"(.)\1",
                                     r"(?:abc)?", r"x*", r"\b"])
def test_no_gate_where_none_can_be_derived(pattern):
    assert cg.required_literals(pattern) is None


def test_bad_input_is_a_clear_error():
    with pytest.raises(re.error):
        cg.required_literals("(unclosed")
    with pytest.raises(TypeError):
        cg.required_literals(None)  # type: ignore[arg-type]


_ALPHA = "ab c"
_atom = st.one_of(
    st.sampled_from(["a", "b", "c", " ", "ab", "ba", "abc", "a b", "cab"]).map(re.escape),
    st.sampled_from([r"[ab]", r"[a-c]", r"[^a]", r".", r"\w", r"\s", r"\b", r"(?=a)", r"(?!b)", r"(?<=a)",
                     r"^", r"$"]),
)


def _regex() -> st.SearchStrategy[str]:
    return st.recursive(
        _atom,
        lambda inner: st.one_of(
            st.lists(inner, min_size=1, max_size=4).map("".join),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")"),
            st.tuples(inner, st.sampled_from(["?", "*", "+", "{2}", "{1,3}", "{0,2}", "+?", "??"])).map(
                lambda t: "(?:" + t[0] + ")" + t[1]),
            inner.map(lambda x: "(" + x + ")"),
        ),
        max_leaves=10,
    )


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_regex(), st.lists(st.text(alphabet=_ALPHA, max_size=12), min_size=1, max_size=5))
def test_every_match_contains_a_required_literal(pattern, texts):
    """The soundness of the gate: wherever a pattern matches, the text contains one of its required literals."""
    lits = cg.required_literals(pattern)
    if lits is None:
        return
    assert lits and "" not in lits
    regex = re.compile(pattern)
    for text in texts:
        for m in regex.finditer(text):
            assert any(s in m.group(0) for s in lits), (pattern, text, m.group(0), sorted(lits))
        if regex.search(text):
            assert cg.passes(lits, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(_regex(), min_size=1, max_size=6), st.text(alphabet=_ALPHA, max_size=16))
def test_gates_open_every_pattern_that_matches(patterns, text):
    """Gates.open_in (one Aho-Corasick pass) opens every pattern that matches, and each opened one has a reason."""
    g = cg.Gates.build(patterns)
    opened = g.open_in(text)
    assert opened == sorted(set(opened))
    for k, p in enumerate(patterns):
        if re.search(p, text):
            assert k in opened, (p, text)
        assert (k in opened) == cg.passes(cg.required_literals(p), text)


# ------------------------------------------------------------------------------------ the table's rules
def test_every_rule_of_the_table_has_a_derived_gate():
    """So that a rule added later is gated too (a rule whose gate cannot be derived still runs: this only keeps the
    cheap path honest for the table as it is; loosen it if a new rule cannot be gated)."""
    missing = [r.name for r in cr.RULES if cg.required_literals(r.pattern) is None]
    assert len(missing) <= len(cr.RULES) // 10, missing


def _rule_vocabulary() -> list[str]:
    words: set[str] = set()
    for rule in cr.RULES:
        for s in cg.required_literals(rule.pattern) or ():
            words.update(w for w in s.split() if w)
    words.update("i am my me you he she not never do want to die kill myself | lol tbh anymore".split())
    return sorted(words)


_VOCAB = _rule_vocabulary()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=14))
def test_no_rule_matches_without_its_gate(words):
    """Texts made of the rules' own literal words (where matches are likely): every rule that matches is open."""
    norm = " ".join(words)
    opened = set(crisis._rule_gates().open_in(norm))
    for k, (rule, regex) in enumerate(crisis._compiled_rules()):
        if regex.search(norm):
            assert k in opened, (rule.name, norm)


def _same(text: str) -> None:
    assert crisis.detect_crisis(text) == crisis.detect_crisis(text, gates=False), text
    assert crisis.denied_by_speaker(text) == crisis.denied_by_speaker(text, gates=False), text
    for sign in (False, True):
        assert crisis.everyday_reading(text, sign) == crisis.everyday_reading(text, sign, gates=False), text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_VOCAB + [".", ",", "!", "?", '"', "wanna", "kms", "sucide", "k1ll", "dieeee"]),
                min_size=1, max_size=16))
def test_the_gated_engine_answers_as_the_ungated_one(words):
    _same(" ".join(words))


# ------------------------------------------------------------------------------------ corpora
def crisis_set_training_texts() -> list[str]:
    """The crisis set's rows that are training data (train and the old held-out parts; never heldout5/6)."""
    path = crisis_model.MODEL_PATH.parent / "crisis_set.jsonl"
    out = []
    with open(path) as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                if row["split"] not in HELD_OUT:
                    out.append(row["text"])
    return out


def round_test_messages() -> list[str]:
    """Every string constant of two words or more in tests/test_crisis_round*.py (their messages)."""
    out: list[str] = []
    for path in sorted((ROOT / "tests").glob("test_crisis_round*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value.strip() \
                    and len(node.value) < 2000:
                out.append(node.value)
    return list(dict.fromkeys(out))


GOEMOTIONS = ROOT.parent / "shared" / "data" / "emotion" / "goemotions" / "original_train.tsv"
MOOD_SET = ROOT / "agents" / "core" / "data" / "mood_labelled.jsonl"


def everyday_texts() -> list[str]:
    """Round 7's everyday corpus: GoEmotions train comments and the mood set's messages (without GoEmotions: the
    mood set alone)."""
    rows = [json.loads(line)["text"] for line in MOOD_SET.read_text().splitlines() if line.strip()]
    if GOEMOTIONS.exists():
        rows += [line.split("\t")[0] for line in GOEMOTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return list(dict.fromkeys(rows))


def test_same_hits_on_the_crisis_sets_training_rows_and_the_round_tests():
    texts = crisis_set_training_texts() + round_test_messages()
    assert len(texts) > 5000
    diffs = [t for t in texts if crisis.detect_crisis(t) != crisis.detect_crisis(t, gates=False)]
    assert diffs == []
    hits = sum(crisis.detect_crisis(t) is not None for t in texts)
    assert hits > 1000  # the corpus does exercise the rules


def test_same_answers_of_the_model_path_helpers_on_the_crisis_set():
    for text in crisis_set_training_texts()[::7]:
        _same(text)


def test_same_hits_on_the_everyday_corpus():
    """A fixed sample of 4,000 (RAPPORT_GATES_FULL=1: all of it, about 45,000 messages)."""
    texts = everyday_texts()
    if not os.environ.get("RAPPORT_GATES_FULL"):
        texts = random.Random(24).sample(texts, min(4000, len(texts)))
    diffs = [t for t in texts if crisis.detect_crisis(t) != crisis.detect_crisis(t, gates=False)]
    assert diffs == []
