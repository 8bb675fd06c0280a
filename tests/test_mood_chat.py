"""The mood of everyday chat lines. agents/core/data/mood_chat.jsonl holds 419 spoken-style lines written and
labelled for issue 21 (exclamations, complaints, worries, small talk, service talk; five moods; train/dev),
never read by the shipped artifact's training (`python -m ops.train_mood --chat train|calibrate` tried it:
README, Mood), so here the whole set measures the shipped model on everyday chat. Lines written for this
test only -- in no data set -- must get the mood a reader gives them: everyday exclamations of each mood,
and small talk that must stay neutral. Expectations are a reader's labels, not the model's output."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from agents.core import mood as M

DATA = Path(M.__file__).with_name("data")


def _texts(name: str) -> list[str]:
    return [json.loads(line)["text"] for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


CHAT = [json.loads(line) for line in (DATA / "mood_chat.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]

EXCLAMATIONS = [
    ("Oh my god, you got me tickets? I love you guys!", "happy"),
    ("haha no way, that's brilliant", "happy"),
    ("Finally home and the pizza's still warm, life is good.", "happy"),
    ("You scratched my car and just drove off?!", "angry"),
    ("Unbelievable, they lost my luggage again and nobody even apologised!", "angry"),
    ("Don't you ever lie to me like that again!", "angry"),
    ("I'm so scared, the results come back tomorrow.", "anxious"),
    ("What if I freeze up in the middle of my presentation?", "anxious"),
    ("My chest is tight and I can't calm down, what do I do?", "anxious"),
    ("I really miss how things used to be with us.", "sad"),
    ("He packed his things and left this morning. I can't stop crying.", "sad"),
    ("Nobody remembered my birthday this year.", "sad"),
]
SMALL_TALK = [
    "Do you want to get lunch around one?",
    "I'll bring the chairs over on Saturday.",
    "Which bus goes to the museum?",
    "She's picking up her sister from the airport.",
    "We're repainting the hallway this weekend.",
    "Can you send me the file when you get a chance?",
    "I think the meeting's in room four.",
    "What time does the pharmacy open tomorrow?",
]
# measured misses of this build (the label is the reader's): none today; a retrained model that misses one
# of these lines has lost what this one has
MISSES: set[str] = set()


def test_the_chat_set_is_split_balanced_and_apart_from_the_other_sets():
    counts = Counter((r["mood"], r["split"]) for r in CHAT)
    for m in ("angry", "anxious", "happy", "neutral", "sad"):
        assert counts[(m, "train")] >= 50 and counts[(m, "dev")] >= 10, counts
    assert {r["split"] for r in CHAT} == {"train", "dev"}
    texts = [r["text"].lower() for r in CHAT]
    assert len(texts) == len(set(texts))
    others = {t.lower() for t in _texts("mood_dialogue.jsonl") + _texts("mood_labelled.jsonl")}
    assert not others & set(texts)  # a line in two sets would leak between training and evaluation


@pytest.fixture(scope="module")
def chat_vectors(embedder):
    return embedder.embed([r["text"] for r in CHAT])


def test_the_shipped_model_on_the_whole_chat_set(chat_vectors):
    """Measured on this build (never trained on the set): macro-F1 0.914 over the five moods, 10 of 300
    emotional lines said neutral, 9 of 119 neutral lines given an emotion; the bounds leave a margin."""
    from ops.train_mood import DIALOGUE_MOODS, macro_f1

    gold = [r["mood"] for r in CHAT]
    pred = [M.classify(r["text"], vector=v)["mood"] for r, v in zip(CHAT, chat_vectors)]
    f1, per = macro_f1(gold, pred, DIALOGUE_MOODS)
    assert f1 >= 0.87, per
    emotional = [p for g, p in zip(gold, pred) if g != "neutral"]
    plain = [p for g, p in zip(gold, pred) if g == "neutral"]
    assert sum(p == "neutral" for p in emotional) / len(emotional) <= 0.06
    assert sum(p != "neutral" for p in plain) / len(plain) <= 0.12


def test_the_lines_written_for_these_tests_are_in_no_data_set():
    names = ("mood_chat.jsonl", "mood_dialogue.jsonl", "mood_labelled.jsonl")
    every = {t.lower() for name in names for t in _texts(name)}
    for text in [t for t, _ in EXCLAMATIONS] + SMALL_TALK:
        assert text.lower() not in every, text


def _cases(items: list) -> list:  # noqa: ANN001
    """pytest params, the known misses as strict xfails."""
    miss = pytest.mark.xfail(strict=True, reason="a known miss of this build")
    return [pytest.param(*(item if isinstance(item, tuple) else (item,)),
                         marks=[miss] if (item[0] if isinstance(item, tuple) else item) in MISSES else [])
            for item in items]


@pytest.mark.parametrize(("text", "expected"), _cases(EXCLAMATIONS))
def test_everyday_exclamations_get_their_mood_with_the_vector(text, expected, embedder):
    assert M.classify(text, vector=embedder.embed([text])[0])["mood"] == expected


@pytest.mark.parametrize("text", _cases(SMALL_TALK))
def test_small_talk_stays_neutral_with_the_vector(text, embedder):
    assert M.classify(text, vector=embedder.embed([text])[0])["mood"] == "neutral"


GOEMOTIONS = Path(__file__).resolve().parents[2] / "shared" / "data" / "emotion" / "goemotions"


@pytest.mark.skipif(not (GOEMOTIONS / "original_train.tsv").exists(), reason="GoEmotions is not beside the clone")
def test_training_reads_the_chat_set_only_when_asked():
    from ops.train_mood import training_set

    train = {r["text"] for r in CHAT if r["split"] == "train"}
    dev = {r["text"] for r in CHAT if r["split"] == "dev"}
    shipped, _, _ = training_set(GOEMOTIONS)
    assert not (train | dev) & set(shipped)  # the committed artifact's run
    tried, _, hand = training_set(GOEMOTIONS, chat=True)
    assert train <= {t for t, h in zip(tried, hand) if h} and not dev & set(tried)
