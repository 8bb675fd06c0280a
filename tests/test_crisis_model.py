"""Crisis detection with the risk model and the conversation (agents/core/crisis_model.py), its clinical
levels, and the crisis trigger the fold emits (severity, category, level, cue, score, detector)."""
from __future__ import annotations

import json

import numpy as np
import orjson
import pytest

from agents.core import contact as core, crisis, crisis_model as CM
from agents.core.crisis import detect_crisis
from agents.projector import HANDLERS
from schemas import events as ev

# one message per clinical level; every one is caught by the rules alone (no vector, no model), and with
# the model its level stays the rule's
EXPLICIT = [
    ("some nights i pray i won't wake up", "wish_to_be_dead"),
    ("I keep thinking about killing myself", "ideation"),
    ("I keep thinking about jumping off the parking garage", "method"),
    ("I'm going to kill myself, I've made up my mind", "intent"),
    ("I'm going to take all my pills on friday night when everyone's asleep", "plan"),
    ("I've been stockpiling my sleeping pills in a drawer", "preparatory"),
    ("I swallowed a whole bottle of my pills earlier", "attempt"),
    ("I'm sitting on the ledge right now", "attempt"),
    ("I tried to kill myself on saturday", "attempt"),
    ("it's getting worse, I cut almost every day now", "self_harm"),
]
# public-health warning signs without a death word
IMPLICIT = [
    ("goodbye everyone, this is my last message", "farewell"),
    ("I gave my guitar to my sister, I won't be needing it anymore", "giving_away"),
    ("can you make sure someone takes my cat after I'm gone", "arrangements"),
    ("everyone would be better off without me", "burden"),
    ("there are enough pills in my drawer, I counted my pills and there's enough", "means"),
    ("I won't be here for my birthday", "timeline"),
    ("I've made my decision and I feel calm", "decided"),
]
# hard negatives, one or more per kind: no alarm from the rules, and none with the model
HARD_NEGATIVES = {
    "idiom": ["this commute is killing me", "I'm dying to know how the season ends"],
    "object_dies": ["my laptop battery is about to die", "all my basil plants died while I was away"],
    "exasperation": ["I can't go on like this, this laptop is so slow I'm going to throw it",
                     "i can't do this anymore, my neighbour's dog barks all night"],
    "past_over": ["I used to self harm when I was a teenager but I've been clean for six years",
                  "I tried to kill myself years ago and I'm so glad I'm still here"],
    "volunteering": ["I volunteer on a crisis line on saturdays",
                     "as a teacher I had training on spotting self harm in students"],
    "media": ["listening to the new album, the track about self harm is intense",
              "just watched 13 reasons why, that show is heavy"],
    "benign_farewell": ["this is my last message before my flight, see you in a month",
                        "thanks for everything today, talk tomorrow"],
    "benign_logistics": ["I'm giving away my old furniture before I move to Berlin",
                         "bought a rope for the hammock", "I took all my pills this morning"],
    "negation": ["the doctor asked if I want to hurt myself and I honestly said no",
                 "don't worry I'm not going to jump lol, the view from the bridge was just pretty"],
}


@pytest.mark.parametrize("text,level", EXPLICIT)
def test_each_clinical_level_is_caught_by_the_rules_alone(text, level):
    r = detect_crisis(text)
    assert r is not None and r["severity"] == "high", (text, r)
    assert r["level"] == level, (text, r)
    assert r["phrase"] in text


@pytest.mark.parametrize("text,level", IMPLICIT)
def test_each_warning_sign_is_caught_with_its_level(text, level):
    r, _ = CM.assess(text, None)
    assert r is not None, text
    assert r["level"] == level, (text, r)
    assert r["category"] in crisis.CATEGORIES and r["level"] in crisis.LEVELS
    assert r["severity"] == "high"  # every sign calls for a reader now (a model-only `burden` is medium)


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in HARD_NEGATIVES.items() for t in ts])
def test_hard_negatives_raise_no_alarm(kind, text):
    assert detect_crisis(text) is None, (kind, text, detect_crisis(text))
    assert CM.assess(text, None)[0] is None, (kind, text, CM.assess(text, None))


def test_former_false_alarm_of_the_lexical_model_is_gone():
    # was a strict xfail ('mom' and 'miss' weighed as risk words) until the train part grew to 884 messages
    assert CM.assess("My mom lives in Lisbon and I miss her", None)[0] is None


def test_knn_margin_is_nearest_risk_minus_nearest_negative():
    # two risk exemplars and two negatives on the axes; expected values by hand (cosines of unit vectors)
    e = np.eye(384, dtype=np.float32)
    m = {"proto_risk": np.stack([e[0], e[1]]), "proto_neg": np.stack([e[2], e[3]])}
    v = 3.0 * e[0] + 4.0 * e[2]                     # unit: 0.6 e0 + 0.8 e2 (the norm is divided out)
    assert CM.knn_margin(m, v) == pytest.approx(0.6 - 0.8)
    assert CM.knn_margin(m, 2.0 * e[1]) == pytest.approx(1.0 - 0.0)
    assert CM.knn_margin(m, np.zeros(384, np.float32)) == 0.0
    assert CM.knn_margin({}, e[0]) == 0.0            # weights without exemplars: no margin


def test_the_margin_moves_the_full_score_by_its_weight(monkeypatch):
    m = CM._load()
    assert m is not None and "proto_risk" in m and float(m["knn_weight"]) > 0
    # a train risk exemplar back in the embedding's space (the projection's columns are orthonormal, so it
    # projects onto itself): nearest risk cosine 1
    v = m["proto_proj"] @ m["proto_risk"][0] if "proto_proj" in m else m["proto_risk"][0] * 1.0
    z_with, kind = CM.model_score("some words", v)
    assert kind == "full"
    base = float(CM._logits(m, "full_", CM.lexical("some words"), CM.rule_features(None), v)[0])
    assert z_with == pytest.approx(base + float(m["knn_weight"]) * CM.knn_margin(m, v), abs=1e-4)
    assert CM.knn_margin(m, v) > 0


def test_the_model_is_shipped_and_reads_both_ways():
    m = CM._load()
    assert m is not None, "agents/core/data/crisis_model.npz is missing (python -m ops.train_crisis)"
    assert m["full_emb"].shape == (384, 1) and m["lex_lex"].shape == (CM.LEX_DIM, 1)
    assert set(m["levels"]) <= set(crisis.LEVELS)
    assert 0.0 < float(m["full_threshold"]) < 1.0 and 0.0 < float(m["lex_threshold"]) < 1.0


@pytest.mark.parametrize("vector", [None, np.full(3, 0.1, np.float32), np.full(384, np.nan, np.float32), "x"])
def test_a_missing_or_unusable_vector_falls_back_to_rules_and_words(vector):
    assert CM.model_score("I want to die", vector)[1] == "lex"
    r, own = CM.assess("I swallowed a whole bottle of my pills earlier", vector)
    assert r["level"] == "attempt" and r["source"] in ("rules", "rules+model") and 0.0 <= own <= 1.0


def test_a_vector_selects_the_full_model_and_the_score_is_a_probability():
    v = np.zeros(384, np.float32)
    v[0] = 1.0
    z, kind = CM.model_score("thanks for everything", v)
    assert kind == "full"
    r, own = CM.assess("I want to die", v)
    assert r["source"] in ("rules", "rules+model") and 0.0 <= r["score"] <= 1.0 and 0.0 <= own <= 1.0


def test_context_value_by_hand():
    neg = {"recent": [{"p": 0.1, "neg": True, "pos": False}] * 3 + [{"p": 0.1, "neg": False, "pos": False}] * 2}
    assert CM.context_value(neg) == (0.6, "3 of the last 5 messages negative")
    calm = {"recent": [{"p": 0.1, "neg": False, "pos": True}] * 3}
    assert CM.context_value(calm) == (-0.6, "3 of the last 3 messages positive")
    risky = {"recent": [{"p": 0.9, "neg": False, "pos": False}]}
    assert CM.context_value(risky) == (0.9, "an earlier message's risk 0.90")
    one_sad = {"recent": [{"p": 0.1, "neg": True, "pos": False}]}
    assert CM.context_value(one_sad) == (0.0, None)       # one negative message of five: nothing
    assert CM.context_value(None) == (0.0, None)


def test_step_context_keeps_the_last_five():
    c = None
    for i in range(7):
        c = CM.step_context(c, i / 10, "sad" if i % 2 else "happy")
    assert [r["p"] for r in c["recent"]] == [0.2, 0.3, 0.4, 0.5, 0.6]
    assert [r["neg"] for r in c["recent"]] == [False, True, False, True, False]


def test_a_warning_sign_after_a_calm_conversation_is_not_one_after_hopeless_days():
    text = "i won't be needing any of my stuff soon"
    calm = {"recent": [{"p": 0.05, "neg": False, "pos": True}] * 5}
    hopeless = {"recent": [{"p": 0.3, "neg": True, "pos": False}] * 5}
    after_hopeless, _ = CM.assess(text, None, hopeless)
    assert after_hopeless is not None and after_hopeless["level"] in crisis.WARNING_SIGNS
    assert after_hopeless["context"] == "5 of the last 5 messages negative" and after_hopeless["source"] == "model"
    assert CM.assess(text, None, calm)[0] is None
    # an explicit statement never depends on the conversation
    assert CM.assess("I want to kill myself", None, calm)[0]["severity"] == "high"


def test_reason_names_the_level_the_cue_the_score_and_the_context():
    hit = {"severity": "high", "phrase": "took like 40 tylenol", "category": "suicide_plan", "level": "attempt",
           "score": 0.934, "source": "rules+model", "context": "3 of the last 5 messages negative"}
    assert CM.reason(hit) == ('crisis language (suicide_plan, attempt): "took like 40 tylenol"; risk model 0.93; '
                              'by rules+model; after 3 of the last 5 messages negative')


def _message(eid: str, text: str, minute: int = 0):
    return ev.interaction(event_id=eid, tenant_id="t1", contact_id="c1",
                          occurred_at=f"2026-04-01T20:{minute:02d}:00+00:00", recorded_at="2026-04-01T20:00:00+00:00",
                          role="user", message=text)


def _crisis_triggers(events):
    return [e.payload["trigger"] for e in events
            if e.event_type == ev.TRIGGER_CREATED and e.payload["trigger"]["kind"] == "crisis"]


def test_the_fold_emits_a_crisis_trigger_with_severity_category_level_and_reason():
    s = core.new_state("t1", "c1")
    e = _message("m1", "I swallowed a whole bottle of my pills earlier")
    s, out = core.apply_interaction(s, e, core.plan_memories(e))
    [t] = _crisis_triggers(out)
    assert (t["severity"], t["category"], t["level"]) == ("high", "suicide_plan", "attempt")
    assert t["cue"] == "swallowed a whole bottle" and t["humanReview"] is True
    assert t["detector"] in ("rules", "rules+model") and 0.0 <= t["score"] <= 1.0
    assert t["reason"].startswith('crisis language (suicide_plan, attempt): "swallowed a whole bottle"')
    assert s["crisis"]["level"] == "attempt" and len(s["crisisContext"]["recent"]) == 1
    # the projection keeps what a reviewer needs
    row = HANDLERS[ev.TRIGGER_CREATED][0][1](next(x for x in out if x.event_type == ev.TRIGGER_CREATED))
    details = orjson.loads(row[-1])
    assert details == {"category": "suicide_plan", "level": "attempt", "cue": "swallowed a whole bottle",
                       "score": t["score"], "detector": t["detector"], "context": None}


def test_the_fold_passes_the_message_vector_and_stays_deterministic():
    v = np.zeros(384, np.float32)
    v[5] = 1.0
    s0 = core.new_state("t1", "c1")
    e = _message("m1", "I'm standing on the bridge right now and I'm going to jump")
    a = core.apply_interaction(s0, e, core.plan_memories(e), message_vector=v)
    b = core.apply_interaction(s0, e, core.plan_memories(e), message_vector=v.copy())
    assert orjson.dumps(a[0], option=orjson.OPT_SORT_KEYS) == orjson.dumps(b[0], option=orjson.OPT_SORT_KEYS)
    assert [x.payload for x in a[1]] == [x.payload for x in b[1]]
    [t] = _crisis_triggers(a[1])
    assert t["level"] == "attempt" and t["severity"] == "high"


def test_no_trigger_for_everyday_messages_through_the_fold():
    s = core.new_state("t1", "c1")
    for i, text in enumerate(["my phone died lol", "this traffic is killing me", "thanks for everything today, bye!"]):
        e = _message(f"m{i}", text, i)
        s, out = core.apply_interaction(s, e, core.plan_memories(e))
        assert _crisis_triggers(out) == [], text


def test_an_old_trigger_without_the_new_fields_still_projects():
    """TriggerCreated v1 payloads written before level/cue/score existed: the details hold what they had."""
    e = ev.derived(_message("m1", "I want to die"), ev.TRIGGER_CREATED, "trigger:crisis", {"trigger": {
        "id": "t1", "kind": "crisis", "dueAt": "2026-04-01T20:00:00+00:00", "reason": "crisis language", "status":
        "pending", "sourceEventIds": ["m1"], "createdAt": "2026-04-01T20:00:00+00:00", "severity": "high",
        "category": "suicidal_ideation", "humanReview": True}})
    row = HANDLERS[ev.TRIGGER_CREATED][0][1](e)
    assert orjson.loads(row[-1]) == {"category": "suicidal_ideation"}


def test_the_crisis_set_is_labelled_split_and_not_copied_across_splits():
    rows = [json.loads(line) for line in open(CM.MODEL_PATH.parent / "crisis_set.jsonl")]
    assert len(rows) >= 400
    risk = [r for r in rows if r["label"] == 1]
    assert abs(len(risk) - len(rows) / 2) <= len(rows) * 0.1
    assert {r["split"] for r in rows} == {"train", "heldout", "heldout2", "heldout3", "heldout4", "heldout5",
                                            "heldout6"}
    cats = {r["category"] for r in risk if "before" not in r}
    assert set(crisis.CSSRS_LEVELS) | {"self_harm"} | set(crisis.WARNING_SIGNS) <= cats
    train = {r["text"] for r in rows if r["split"] == "train" and "before" not in r}
    held = [r["text"] for r in rows
            if r["split"] != "train" and "before" not in r]
    assert not (train & set(held))


@pytest.mark.parametrize("text,hit", [
    ("i'm standing on the bridge right now", True),
    ("im sitting on the roof now and nobody knows", True),
    ("I'm standing on the ledge again", True),
    ("i'm standing on the bridge right now waiting for you", False),   # an everyday reason
    ("im sitting on the roof now, the sunset is amazing", False),
    ("i'm up on the roof now fixing the gutters", False),
    ("my friend is standing on the bridge right now", False),          # not a self-statement
    ("i'm not standing on the bridge right now lol", False),           # negated
    ("I'm standing on the bridge", False),                             # no now / edge / goodbye: not by itself
])
def test_being_at_the_place_now_is_an_attempt_in_progress(text, hit):
    r = detect_crisis(text)
    assert (r is not None and r["level"] == "attempt" and r["severity"] == "high") == hit, (text, r)


@pytest.mark.parametrize("text", [
    "I was suicidal in my twenties, I'm in a much better place now",
    "I used to self harm when I was a teen, recovery took years but I'm in a good place",
    "i can't take this anymore, the neighbors are drilling again",
])
def test_a_recovered_past_and_renovation_noise_are_no_alarm(text):
    assert detect_crisis(text) is None, (text, detect_crisis(text))


def test_a_past_with_recovery_words_but_risk_now_still_alarms():
    r = detect_crisis("years ago I tried to kill myself and recovery is hard, I want to die again tonight")
    assert r is not None and r["severity"] == "high"


@pytest.mark.parametrize("with_vector", [False, True])
def test_after_a_crisis_message_everyday_ones_raise_no_alarm(with_vector):
    """The conversation tips only what the model finds risky on its own: after "I want to kill myself",
    the next everyday messages make no trigger of their own (words only, and with the model's vector).
    Before the floor, each of them was flagged at 0.8-0.93 (giving away, decided, intent, means)."""
    embed = None
    if with_vector:
        from domain.embedder import MiniLMEmbedder

        model = MiniLMEmbedder()
        embed = lambda t: model.embed([t])[0].astype(np.float32)  # noqa: E731
    from tests.helpers import interaction

    msgs = ["I want to kill myself, I can't go on", "I moved to Berlin last month.",
            "As I said, I am an engineer.", "thanks for listening, I'm going to bed now",
            "my dog is sleeping next to me"]
    s = core.new_state("t", "c")
    flagged = []
    for i, m in enumerate(msgs):
        e = interaction(f"m{i}", m, tenant="t", contact="c", minutes=i)
        s, derived = core.apply_interaction(s, e, core.plan_memories(e),
                                            message_vector=embed(m) if embed else None)
        flagged += [m for d in derived if d.event_type == ev.TRIGGER_CREATED
                    and d.payload["trigger"]["kind"] == "crisis"]
    assert flagged == ["I want to kill myself, I can't go on"]


# --- somebody else's risk, and quoted words (hard negatives: no crisis trigger) -------------------------
# written for these tests (not rows of the crisis set); the expected value is the label: not this person's risk
SOMEONE_ELSE = {
    "third_person": ["my friend told me she's been cutting again, how do i help her",
                     "someone on discord said they're going to end it tonight, i messaged a mod",
                     "my brother said he wants to kill himself, what should i do",
                     "a girl in my year died by suicide last month, school is so quiet"],
    "quote": ["my mum texted 'i could kill you' when i forgot her birthday lol",
              "my boss said 'if this launch fails we're all dead'",
              "she captioned it 'me wanting to die during finals' with a skull emoji"],
}


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in SOMEONE_ELSE.items() for t in ts])
def test_someone_elses_risk_and_quoted_words_make_no_trigger(kind, text, embedder):
    assert not CM.raises_alarm(detect_crisis(text)), (kind, text, detect_crisis(text))
    for v in (None, embedder.embed([text])[0]):
        hit, _ = CM.assess(text, v)
        assert not CM.raises_alarm(hit), (kind, text, hit)


def test_a_self_statement_rule_with_a_pronoun_subject_is_concern_for_someone_else():
    r = detect_crisis("my friend told me she's been cutting again, how do i help her")
    assert r is not None and (r["severity"], r["category"]) == ("medium", "third_party_concern")
    # the speaker's own: no subject in chat, "I" nearer, or the phrase names the speaker
    for text in ("since my dad left, cutting again every night", "he left and i'm cutting again",
                 "mom would be better off without me"):
        r = detect_crisis(text)
        assert r is not None and r["severity"] == "high" and CM.raises_alarm(r), (text, r)


def test_concern_for_someone_else_puts_guidance_in_context_but_makes_no_review_trigger():
    s = core.new_state("t1", "c1")
    e = _message("m1", "my brother said he wants to kill himself, what should i do")
    s, out = core.apply_interaction(s, e, core.plan_memories(e))
    assert _crisis_triggers(out) == []
    assert s["crisis"]["category"] == "third_party_concern"   # the helpline guidance still reaches /context


def test_raises_alarm_by_category():
    assert not CM.raises_alarm(None)
    assert not CM.raises_alarm({"category": "third_party_concern", "severity": "medium"})
    for cat in ("suicidal_ideation", "suicide_plan", "self_harm", "hopelessness", "help_seeking", "warning_sign"):
        assert CM.raises_alarm({"category": cat, "severity": "medium"})


# --- every category with the full model (the message's vector, as the worker computes it) -------------
# written for these tests, paraphrases with few of the rules' words; expected: the label (a trigger)
PARAPHRASED_RISK = [
    ("honestly i'd be relieved if i just never woke up again", "wish_to_be_dead"),
    ("i keep thinking about taking my own life", "ideation"),
    ("how many of my sleeping tablets would it take to not wake up", "method"),
    ("i'm going to end my life this weekend, i've stopped pretending otherwise", "intent"),
    ("saturday night when my flatmate is away, the pills i've saved and a bottle of wine", "plan"),
    ("i wrote letters to my parents explaining why i'm doing it", "preparatory"),
    ("i took the whole box of my pills half an hour ago", "attempt"),
    ("i've been cutting my arms every night this week", "self_harm"),
    ("this is my last message to anyone. thank you for trying with me", "farewell"),
    ("gave my guitar and my records to my cousin, i won't be needing them", "giving_away"),
    ("i've written down who should take my cat after i'm gone", "arrangements"),
    ("everyone around me would be better off if i wasn't here anymore", "burden"),
    ("i've been hiding my pills in a sock for weeks instead of taking them", "means"),
    ("i'll be gone before the end of the month", "timeline"),
    ("i've made my decision and i'm at peace with it, don't try to change my mind", "decided"),
]


@pytest.mark.parametrize("text,category", PARAPHRASED_RISK)
def test_each_category_raises_a_trigger_with_the_vector(text, category, embedder):
    hit, _ = CM.assess(text, embedder.embed([text])[0])
    assert CM.raises_alarm(hit), (category, text, hit)
    assert hit["severity"] in ("high", "medium") and hit["category"] in crisis.CATEGORIES
    assert hit["level"] in crisis.LEVELS and hit["phrase"] and 0.0 <= hit["score"] <= 1.0
    assert CM.reason(hit).startswith("crisis language (")


# "I took all my pills this morning" (the daily dose) was a strict xfail (the model read an overdose taken, score
# 0.91) until issue 21's fourth round: the rules' whole-message reading now names it a daily dose
@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in HARD_NEGATIVES.items() for t in ts])
def test_hard_negatives_make_no_trigger_with_the_vector(kind, text, embedder):
    hit, _ = CM.assess(text, embedder.embed([text])[0])
    assert not CM.raises_alarm(hit), (kind, text, hit)


@pytest.mark.parametrize("text", ["i'm not going to kill myself, just tired of this job",
                                  "no, i don't want to die, i want a nap and a holiday"])
def test_a_denial_in_the_speakers_own_voice_stands_against_the_model(text, embedder):
    assert crisis.denied_by_speaker(text)
    assert not CM.raises_alarm(CM.assess(text, embedder.embed([text])[0])[0])


def test_a_denial_followed_by_but_is_no_denial():
    # "I'm not suicidal but ..." is a known way of saying it: what follows decides
    assert not crisis.denied_by_speaker("i'm not going to kill myself tonight but tomorrow i will")
    assert not crisis.denied_by_speaker("i'm not suicidal but i took all my pills")


@pytest.mark.parametrize("text,hit", [
    ("killing myself has been on my mind all week", True),       # C-SSRS: thoughts about killing yourself
    ("i've been thinking about how to end my life", True),
    ("i'm ending things tonight, for real this time", True),
    ("i'm ending things with him tonight, the relationship is over", False),   # a break-up
    ("i'm not thinking about how to kill myself", False),                      # negated
])
def test_ideation_named_as_a_steady_thought_and_ending_things(text, hit):
    r = detect_crisis(text)
    assert (r is not None and r["severity"] == "high" and r["category"] == "suicidal_ideation") == hit, (text, r)
