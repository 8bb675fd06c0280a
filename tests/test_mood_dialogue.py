"""The mood on everyday dialogue: the held-out part of agents/core/data/mood_dialogue.jsonl (written and
labelled for this project, never trained or calibrated on), with and without the message's sentence
embedding; the calibrated `neutral`; the previous message's mood as context, in `classify` and through
the fold; and MELD dev, out of domain, when ../shared is beside the clone (skipped otherwise)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from agents.core import contact as core
from agents.core import mood as M
from ops.bench_mood import classify_dialogues, load_meld, meld_path
from ops.train_mood import DIALOGUE_MOODS, macro_f1
from tests.helpers import interaction

DIALOGUE = Path(M.__file__).with_name("data") / "mood_dialogue.jsonl"
ROWS = [json.loads(line) for line in DIALOGUE.read_text(encoding="utf-8").splitlines() if line.strip()]
EVAL = [r for r in ROWS if r["split"] == "eval"]
# measured on this build's weights (agents/core/data/mood_model.npz), a margin below: a retrained model
# that falls under them has lost what this one gained (words alone: 0.71 macro-F1, the old model 0.6x)
RECALL_WITH_VECTOR = {"angry": 0.6, "anxious": 0.55, "happy": 0.65, "neutral": 0.85, "sad": 0.65}
F1_WITH_VECTOR, F1_WORDS_ONLY = 0.72, 0.65
# held-out lines the words alone call neutral and the sentence embedding gets right
VECTOR_CASES = [("He keyed my car. He actually keyed my car!", "angry"), ("We had a blast at the beach.", "happy")]
# the words alone learnt these with issue 21's dialogue lines; the vector must keep them right
VECTOR_KEEPS = [("I didn't sleep at all, my mind kept racing.", "anxious")]


@pytest.fixture(scope="module")
def eval_vectors(embedder):
    return {r["text"]: v for r, v in zip(EVAL, embedder.embed([r["text"] for r in EVAL]))}


def test_the_dialogue_set_is_split_and_balanced():
    counts = Counter((r["mood"], r["split"]) for r in ROWS)
    for m in DIALOGUE_MOODS:
        assert counts[(m, "train")] >= 50 and counts[(m, "dev")] >= 15 and counts[(m, "eval")] >= 15
    texts = [r["text"] for r in ROWS]
    assert len(texts) == len(set(texts))  # no row in two splits


@pytest.mark.parametrize("label", DIALOGUE_MOODS)
def test_each_mood_on_held_out_dialogue_with_the_vector(label, eval_vectors):
    rows = [r for r in EVAL if r["mood"] == label]
    got = [M.classify(r["text"], vector=eval_vectors[r["text"]])["mood"] for r in rows]
    assert sum(g == label for g in got) / len(rows) >= RECALL_WITH_VECTOR[label], list(zip(got, rows))


def test_held_out_dialogue_macro_f1(eval_vectors):
    gold = [r["mood"] for r in EVAL]
    with_vec = [M.classify(r["text"], vector=eval_vectors[r["text"]])["mood"] for r in EVAL]
    words = [M.classify(r["text"])["mood"] for r in EVAL]
    f_vec, f_words = macro_f1(gold, with_vec, DIALOGUE_MOODS)[0], macro_f1(gold, words, DIALOGUE_MOODS)[0]
    assert f_vec >= F1_WITH_VECTOR and f_words >= F1_WORDS_ONLY
    assert f_vec > f_words  # the vector is worth its place


def test_neutral_is_calibrated_both_ways(eval_vectors):
    """Emotional lines mostly get an emotion (the old model said `neutral` to most), and plain lines
    mostly stay neutral."""
    emotional = [r for r in EVAL if r["mood"] != "neutral"]
    plain = [r for r in EVAL if r["mood"] == "neutral"]
    said_neutral = sum(M.classify(r["text"], vector=eval_vectors[r["text"]])["mood"] == "neutral" for r in emotional)
    kept_neutral = sum(M.classify(r["text"], vector=eval_vectors[r["text"]])["mood"] == "neutral" for r in plain)
    assert said_neutral / len(emotional) <= 0.25
    assert kept_neutral / len(plain) >= 0.85


def test_a_vector_of_another_shape_or_not_finite_is_no_vector():
    text = "I can't believe you'd do this to me after everything."
    words = M.classify(text)
    assert M.classify(text, vector=np.ones(8, np.float32)) == words
    assert M.classify(text, vector=np.full(M.VECTOR_DIM, np.nan, np.float32)) == words
    assert M.classify(text, vector=[0.1] * 5) == words


def test_the_vector_decides_what_the_words_alone_miss(embedder):
    for text, expected in VECTOR_CASES:
        v = embedder.embed([text])[0]
        assert M.classify(text)["mood"] != expected, text  # the words alone miss it ...
        assert M.classify(text, vector=v)["mood"] == expected, text  # ... the sentence embedding does not
    for text, expected in VECTOR_KEEPS:
        assert M.classify(text, vector=embedder.embed([text])[0])["mood"] == expected, text


def test_a_warning_to_keep_away_is_angry_with_the_vector(embedder):
    # was a strict xfail (neutral with the vector): a command or warning at the listener now moves angry up
    text = "Stay away from my sister."
    assert M.classify(text, vector=embedder.embed([text])[0])["mood"] == "angry"


@pytest.mark.parametrize("text", ["Get out of my house.", "Keep your hands off my bike.", "Back off, I mean it.",
                                  "Don't you dare read my messages again."])
def test_commands_and_warnings_at_the_listener_are_angry(text, embedder):
    # written for this test (not in any training set): a confrontation, with and without the vector
    assert M.Cues(text).hostile_phrase
    assert M.classify(text, vector=embedder.embed([text])[0])["mood"] == "angry", text
    assert M.classify(text)["mood"] == "angry", text


@pytest.mark.parametrize("text", ["please don't leave me alone tonight", "shut up lol that's amazing",
                                  "she told me to stay away from the stove while it's hot 😂"])
def test_a_pleaded_negated_or_joking_command_is_no_confrontation(text):
    assert not M.Cues(text).hostile_phrase, text


# --- the previous message's mood as context ----------------------------------------------------------

def test_context_tips_an_unsure_line_and_never_a_clear_one():
    unsure = "I'm going to bed."
    alone = M.classify(unsure)["mood"]
    z = M.pooled_logits(unsure)
    # the premise, checked: sad trails the line's own mood by less than the context weight (an unsure line)
    assert alone != "sad" and z[alone] - z["sad"] < M._load().context, z
    assert M.classify(unsure, previous="sad")["mood"] == "sad"
    assert M.classify(unsure, previous="neutral")["mood"] == alone  # neutral is no context
    assert M.classify("We won! We actually won!", previous="sad")["mood"] == "happy"
    assert M.classify("I'm so sad today", previous="happy")["mood"] == "sad"
    assert M.classify(unsure, previous="no such mood")["mood"] == alone


def test_the_fold_gives_the_previous_mood_of_the_same_session_only(monkeypatch):
    seen = []
    real = M.classify

    def spy(text, vector=None, previous=None):
        seen.append(previous)
        return real(text, vector=vector, previous=previous)

    monkeypatch.setattr(M, "classify", spy)
    s = core.new_state("default", "arjun")
    msgs = [("m1", "user", "my dog died this morning", 0), ("a1", "assistant", "I'm so sorry.", 1),
            ("m2", "user", "I'm going to bed.", 2),
            ("m3", "user", "I'm going to bed.", 60 * 24)]  # a day later: a new session
    for eid, role, text, minutes in msgs:
        e = interaction(eid, text, role=role, minutes=minutes)
        s, _ = core.apply_interaction(s, e, core.plan_memories(e))
        if eid == "m2":
            assert s["mood"]["mood"] == "sad"
    assert seen == [None, "sad", None]
    assert s["mood"]["mood"] == real("I'm going to bed.")["mood"] != "sad"  # the line alone, without context


# --- MELD dev (out of domain; measured, never trained on) --------------------------------------------

def test_meld_rows_are_read_in_dialogue_order_with_the_shared_moods(tmp_path):
    f = tmp_path / "dev.csv"
    f.write_text("Sr No.,Utterance,Speaker,Emotion,Sentiment,Dialogue_ID,Utterance_ID,Season,Episode,StartTime,"
                 "EndTime\n"
                 '3,"I’m fine, really.",Ross,sadness,negative,1,1,1,1,a,b\n'
                 "1,What?,Monica,surprise,negative,0,0,1,1,a,b\n"
                 "2,You're a genius!,Chandler,joy,positive,1,0,1,1,a,b\n"
                 "4,Ew.,Ross,disgust,negative,1,2,1,1,a,b\n", encoding="utf-8")
    rows = load_meld(f)
    assert [(r["dialogue"], r["text"], r["mood"]) for r in rows] == [
        (0, "What?", None), (1, "You're a genius!", "happy"), (1, "I’m fine, really.", "sad"), (1, "Ew.", None)]
    seen = []
    real = M.classify
    try:
        M.classify = lambda t, vector=None, previous=None: (seen.append(previous), real(t))[1]  # type: ignore
        classify_dialogues(rows, None)
    finally:
        M.classify = real  # type: ignore[assignment]
    # Ross's second line has his first as context; Chandler's line is no context for Ross
    assert seen[0] is None and seen[1] is None and seen[2] is None and seen[3] is not None


def test_bench_mood_skips_meld_with_one_line_when_absent(tmp_path, monkeypatch):
    from ops import bench_mood

    monkeypatch.delenv("RAPPORT_MELD_DEV", raising=False)
    missing = tmp_path / "nope.csv"
    assert meld_path(str(missing)) == missing
    monkeypatch.setenv("RAPPORT_MELD_DEV", str(missing))
    assert meld_path() == missing
    r = {"meld_path": str(missing), "goemotions_dev_n": 0, "hand_eval_n": 0, "dialogue_eval_n": 0,
         "macro_f1_gain": 0.0, "artifact_bytes": 1, "artifact_load_ms": 1.0, "embedding_s": 0.0}
    zero = {"accuracy": 0.0, "macro_f1": 0.0, "macro_f1_five": 0.0,
            "per_class_f1": {m: 0.0 for m in bench_mood.GOEMOTIONS_MOODS}}
    for n in ("classifier", "words_only", "keyword_baseline"):
        r[n] = {"goemotions_dev": zero, "dialogue_eval": {"macro_f1": 0.0},
                "hand_eval": {"mood_accuracy": 0.0, "mood_macro_f1": 0.0, "energy_accuracy": 0.0},
                "latency": {"p50_ms": 0.0, "p99_ms": 0.0}}
    lines = [line for line in bench_mood.format_table(r).splitlines() if line.startswith("MELD")]
    assert lines == [f"MELD dev: skipped, no file at {missing} (give --meld FILE or RAPPORT_MELD_DEV)"]


MELD = meld_path()


NO_MELD = pytest.mark.skipif(not MELD.is_file(), reason=f"MELD dev is not beside this clone ({MELD}); CI has ../shared")


@pytest.fixture(scope="module")
def meld_f1(embedder):
    rows = load_meld(MELD)
    preds = classify_dialogues(rows, embedder.embed([r["text"] for r in rows]))
    scored = [(r["mood"], p["mood"]) for r, p in zip(rows, preds) if r["mood"] is not None]
    assert len(scored) == 937
    return macro_f1([g for g, _ in scored], [p for _, p in scored], DIALOGUE_MOODS)


@NO_MELD
def test_meld_dev_macro_f1_out_of_domain(meld_f1):
    f1, per = meld_f1
    assert f1 >= 0.36, per  # this build: 0.407 (before issue 21's dialogue lines 0.378; words only before: 0.252)
    assert min(per.values()) > 0.1, per  # every mood is found at all, anxious (fear, 40 lines) included


@NO_MELD
def test_meld_dev_reaches_the_goal(meld_f1):
    # issue 21's goal; was a strict xfail at 0.378, this build: 0.407 (GoEmotions dev 0.636, goal >= 0.63)
    assert meld_f1[0] >= 0.40


GOEMOTIONS = Path(__file__).resolve().parents[2] / "shared" / "data" / "emotion" / "goemotions"


@pytest.mark.skipif(not (GOEMOTIONS / "original_dev.tsv").exists(), reason="GoEmotions dev is not beside the clone")
def test_goemotions_dev_stays_at_the_goal_while_meld_rises(embedder):
    """Issue 21: the dialogue lines that lift MELD must not cost the Reddit comments: GoEmotions dev (mapped, 8
    moods) macro-F1 >= 0.63 with the vector (this build 0.636; before issue 21's dialogue lines 0.634)."""
    from ops.train_mood import GOEMOTIONS_MOODS, load_goemotions

    texts, gold = load_goemotions(GOEMOTIONS, "dev")
    vecs = embedder.embed(texts)
    f1, per = macro_f1(gold, [M.classify(t, vector=v)["mood"] for t, v in zip(texts, vecs)], GOEMOTIONS_MOODS)
    assert f1 >= 0.63, per
