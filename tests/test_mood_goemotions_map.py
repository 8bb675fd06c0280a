"""ops/train_mood's `--goemotions-map` and `--unmask` (issue 21, fourth mood round: tried, not shipped): the
shipped run reads GoEmotions exactly as before, the Ekman maps add the documented groups' labels, an example
is still kept only when all its labels land on one mood, and the masks become words."""
from ops import train_mood

LABELS = ("joy", "disappointment", "sadness", "approval", "surprise", "neutral", "annoyance", "disapproval",
          "gratitude")
ROWS = (  # text, label indices into LABELS
    ("what a day", "0"),          # joy -> happy under every map
    ("that let me down", "1"),    # disappointment: Ekman sadness
    ("so sad and let down", "2,1"),  # sadness + disappointment: one mood (sad) under the Ekman maps
    ("yes exactly", "3"),         # approval: Ekman joy, full map only
    ("wait what", "4"),           # surprise: no mood of ours under any map
    ("ok then", "5"),
    ("sad but approved", "2,3"),  # sad + happy under the full map: two moods, dropped
    ("nope not that", "7"),       # disapproval: Ekman anger, frustrated under the full map
)


def _folder(tmp_path):  # noqa: ANN001, ANN202
    (tmp_path / "original_labels.txt").write_text("\n".join(LABELS) + "\n", encoding="utf-8")
    (tmp_path / "original_train.tsv").write_text(
        "".join(f"{t}\t{labels}\tid{i}\n" for i, (t, labels) in enumerate(ROWS)), encoding="utf-8")
    return tmp_path


def test_the_strict_map_is_the_shipped_reading(tmp_path):
    d = _folder(tmp_path)
    assert train_mood.GOEMOTIONS_MAPS["strict"] is train_mood.GOEMOTIONS_TO_MOOD
    texts, moods = train_mood.load_goemotions(d, "train")
    assert list(zip(texts, moods)) == [("what a day", "happy"), ("ok then", "neutral")]
    assert train_mood.load_goemotions(d, "train", train_mood.GOEMOTIONS_MAPS["strict"]) == (texts, moods)


def test_the_ekman_sadness_map_adds_only_the_sadness_group(tmp_path):
    d = _folder(tmp_path)
    got = dict(zip(*train_mood.load_goemotions(d, "train", train_mood.GOEMOTIONS_MAPS["ekman-sad"])))
    assert got == {"what a day": "happy", "that let me down": "sad", "so sad and let down": "sad",
                   "ok then": "neutral"}


def test_the_full_ekman_map_adds_joy_and_anger_and_drops_mixed_rows(tmp_path):
    d = _folder(tmp_path)
    got = dict(zip(*train_mood.load_goemotions(d, "train", train_mood.GOEMOTIONS_MAPS["ekman"])))
    assert got == {"what a day": "happy", "that let me down": "sad", "so sad and let down": "sad",
                   "yes exactly": "happy", "ok then": "neutral", "nope not that": "frustrated"}


def test_training_set_passes_the_map_on(tmp_path):
    d = _folder(tmp_path)
    strict, _, hand = train_mood.training_set(d)
    ekman, _, hand_e = train_mood.training_set(d, goemotions_map="ekman-sad")
    assert strict[:int((~hand).sum())] == ["what a day", "ok then"]
    assert ekman[:int((~hand_e).sum())] == ["what a day", "that let me down", "so sad and let down", "ok then"]
    assert strict[int((~hand).sum()):] == ekman[int((~hand_e).sum()):]  # the hand-written rows alike


def test_unmask_turns_the_masks_into_words():
    names = train_mood.UNMASK_NAMES
    got = train_mood.unmask(["[NAME] and [NAME] left", "no mask", "ask [NAME] about [RELIGION]"])
    assert got == [f"{names[0]} and {names[0]} left", "no mask", f"ask {names[2]} about religion"]
    assert not any("[" in t for t in got)
