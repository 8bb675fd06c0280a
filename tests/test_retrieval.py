"""projections/retrieval.py: multi-signal scoring, token estimates, budget packing, keyword queries."""
from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from projections import retrieval as r
from projections.context import rank

NOW = datetime(2026, 4, 3, 12, 0, tzinfo=timezone.utc)


def days_ago(d: float) -> datetime:
    return NOW - timedelta(days=d)


# ------------------------------------------------------------------------------------ weights
def test_weights_are_the_seed_values_and_sum_to_one():
    assert (r.CONTACT_WEIGHTS.similarity, r.CONTACT_WEIGHTS.recency, r.CONTACT_WEIGHTS.importance,
            r.CONTACT_WEIGHTS.access_frequency, r.CONTACT_WEIGHTS.entity_match) == (0.35, 0.25, 0.20, 0.10, 0.10)
    assert (r.TENANT_WEIGHTS.similarity, r.TENANT_WEIGHTS.recency, r.TENANT_WEIGHTS.importance,
            r.TENANT_WEIGHTS.access_frequency, r.TENANT_WEIGHTS.entity_match) == (0.40, 0.25, 0.20, 0.10, 0.05)
    for w in (r.CONTACT_WEIGHTS, r.TENANT_WEIGHTS):
        assert math.isclose(w.similarity + w.recency + w.importance + w.access_frequency + w.entity_match, 1.0)
    assert r.WEIGHTS == {"contact": r.CONTACT_WEIGHTS, "tenant": r.TENANT_WEIGHTS}


# ------------------------------------------------------------------------------------ the score
def test_contact_score_hand_computed():
    # similarity 0.8, 73 days since access (recency 1 - 73/365 = 0.8), importance 0.5,
    # 10 accesses (10/20 = 0.5), entity match 1.0
    s = r.score(similarity=0.8, accessed_at=days_ago(73), importance=0.5, access_count=10, entity_match=1.0,
                as_of=NOW, weights=r.CONTACT_WEIGHTS)
    # 0.35*0.8 + 0.25*0.8 + 0.20*0.5 + 0.10*0.5 + 0.10*1.0 = 0.28 + 0.20 + 0.10 + 0.05 + 0.10
    assert s == pytest.approx(0.73)


def test_tenant_score_hand_computed():
    s = r.score(similarity=0.8, accessed_at=days_ago(73), importance=0.5, access_count=10, entity_match=1.0,
                as_of=NOW, weights=r.TENANT_WEIGHTS)
    # 0.40*0.8 + 0.25*0.8 + 0.20*0.5 + 0.10*0.5 + 0.05*1.0 = 0.32 + 0.20 + 0.10 + 0.05 + 0.05
    assert s == pytest.approx(0.72)


def test_default_weights_are_the_contact_weights():
    kw = dict(similarity=0.3, accessed_at=days_ago(10), importance=0.9, access_count=3, entity_match=0.0, as_of=NOW)
    assert r.score(**kw) == r.score(**kw, weights=r.CONTACT_WEIGHTS)
    assert r.score(**kw) != r.score(**kw, weights=r.TENANT_WEIGHTS)


@pytest.mark.parametrize("signal,weight", [("similarity", 0.35), ("importance", 0.20), ("entity_match", 0.10)])
def test_each_linear_signal_has_its_contact_weight(signal: str, weight: float):
    base = dict(similarity=0.0, accessed_at=None, importance=0.0, access_count=0, entity_match=0.0, as_of=NOW)
    assert r.score(**base) == 0.0
    assert r.score(**{**base, signal: 1.0}) == pytest.approx(weight)


def test_recency_and_access_signals_alone():
    base = dict(similarity=0.0, importance=0.0, entity_match=0.0, as_of=NOW)
    assert r.score(**base, accessed_at=NOW, access_count=0) == pytest.approx(0.25)
    assert r.score(**base, accessed_at=None, access_count=20) == pytest.approx(0.10)
    assert r.score(**base, accessed_at=NOW, access_count=20, weights=r.TENANT_WEIGHTS) == pytest.approx(0.35)


def test_all_signals_maxed_score_one():
    for w in (r.CONTACT_WEIGHTS, r.TENANT_WEIGHTS):
        assert r.score(similarity=1.0, accessed_at=NOW, importance=1.0, access_count=999, entity_match=1.0,
                       as_of=NOW, weights=w) == pytest.approx(1.0)


def test_negative_similarity_counts_as_zero():
    kw = dict(accessed_at=days_ago(30), importance=0.7, access_count=2, entity_match=0.0, as_of=NOW)
    assert r.score(similarity=-0.6, **kw) == r.score(similarity=0.0, **kw)


# ------------------------------------------------------------------------------------ recency, frequency
def test_recency_is_linear_over_a_year():
    assert r.recency(NOW, NOW) == 1.0
    assert r.recency(days_ago(36.5), NOW) == pytest.approx(0.9)
    assert r.recency(days_ago(182.5), NOW) == pytest.approx(0.5)
    assert r.recency(days_ago(365), NOW) == pytest.approx(0.0)


def test_recency_is_clamped_to_zero_and_one():
    assert r.recency(days_ago(400), NOW) == 0.0
    assert r.recency(days_ago(10_000), NOW) == 0.0
    assert r.recency(NOW + timedelta(days=30), NOW) == 1.0  # accessed "after" as_of (as_of in the past)
    assert r.recency(None, NOW) == 0.0


def test_recency_respects_utc_offsets():
    ist = timezone(timedelta(hours=5, minutes=30))
    same_instant = NOW.astimezone(ist)
    assert r.recency(same_instant, NOW) == 1.0


@pytest.mark.parametrize("count,expected", [(0, 0.0), (1, 0.05), (10, 0.5), (19, 0.95), (20, 1.0), (21, 1.0),
                                            (1000, 1.0), (-5, 0.0)])
def test_access_frequency_is_capped_at_20(count: int, expected: float):
    assert r.access_frequency(count) == pytest.approx(expected)


@settings(max_examples=200, deadline=None)
@given(sim=st.floats(-1, 1), age=st.floats(-1000, 5000), imp=st.floats(0, 1), acc=st.integers(-10, 10_000),
       ent=st.floats(0, 1))
def test_score_is_bounded_for_bounded_signals(sim, age, imp, acc, ent):
    for w in (r.CONTACT_WEIGHTS, r.TENANT_WEIGHTS):
        s = r.score(similarity=sim, accessed_at=days_ago(age), importance=imp, access_count=acc, entity_match=ent,
                    as_of=NOW, weights=w)
        assert -1e-9 <= s <= 1.0 + 1e-9


@settings(max_examples=100, deadline=None)
@given(a=st.floats(0, 1000), b=st.floats(0, 1000))
def test_older_access_never_scores_higher(a, b):
    kw = dict(similarity=0.5, importance=0.5, access_count=3, entity_match=0.0, as_of=NOW)
    newer, older = min(a, b), max(a, b)
    assert r.score(accessed_at=days_ago(newer), **kw) >= r.score(accessed_at=days_ago(older), **kw)


# ------------------------------------------------------------------------------------ tokens
def test_estimate_tokens_is_ceil_of_chars_over_4():
    assert r.estimate_tokens("") == 0
    assert r.estimate_tokens("a") == 1
    assert r.estimate_tokens("abcd") == 1
    assert r.estimate_tokens("abcde") == 2
    assert r.estimate_tokens("x" * 401) == 101


def test_estimate_tokens_takes_the_larger_of_tokenizer_and_rule():
    assert r.estimate_tokens("abcdefgh", count=lambda t: 7) == 7
    assert r.estimate_tokens("abcdefgh", count=lambda t: 1) == 2


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=2000), extra=st.integers(0, 50))
def test_estimate_tokens_never_below_the_rule(text: str, extra: int):
    rule = math.ceil(len(text) / 4)
    assert r.estimate_tokens(text) >= rule
    assert r.estimate_tokens(text, count=lambda t: 0) >= rule
    assert r.estimate_tokens(text, count=lambda t: rule + extra) == rule + extra


# ------------------------------------------------------------------------------------ packing
def cost_of(item: dict) -> int:
    return item["cost"]


def items(*costs: int) -> list[dict]:
    return [{"id": i, "cost": c} for i, c in enumerate(costs)]


def test_pack_takes_items_in_order_while_they_fit():
    out, used = r.pack(items(3, 4, 2), 9, cost_of)
    assert [i["id"] for i in out] == [0, 1, 2] and used == 9


def test_pack_skips_an_item_that_does_not_fit_and_continues():
    out, used = r.pack(items(5, 10, 3, 2, 1), 10, cost_of)
    assert [i["id"] for i in out] == [0, 2, 3]  # 10 is skipped, 1 no longer fits after 5+3+2
    assert used == 10


def test_pack_with_zero_budget_takes_only_free_items():
    out, used = r.pack(items(1, 0, 2), 0, cost_of)
    assert [i["id"] for i in out] == [1] and used == 0


def test_pack_keeps_the_best_first_order():
    out, _ = r.pack(items(1, 1, 1, 1), 3, cost_of)
    assert [i["id"] for i in out] == [0, 1, 2]


@settings(max_examples=300, deadline=None)
@given(costs=st.lists(st.integers(0, 300), max_size=60), budget=st.integers(0, 2000))
def test_pack_property(costs: list[int], budget: int):
    its = items(*costs)
    out, used = r.pack(its, budget, cost_of)
    assert used <= budget  # never exceeds the budget
    assert used == sum(i["cost"] for i in out)
    ids = [i["id"] for i in out]
    assert ids == sorted(ids)  # a subsequence, in the given (best-first) order
    # greedy: every skipped item did not fit at the moment it was considered
    taken, running = set(ids), 0
    for it in its:
        if it["id"] in taken:
            running += it["cost"]
        else:
            assert running + it["cost"] > budget


# ------------------------------------------------------------------------------------ lexical (BM25)
from domain.text import words  # noqa: E402
from projections.lexical import BM25Index, query_terms  # noqa: E402

DOCS = [("m1", "Caroline: I went to a LGBTQ support group yesterday"),
        ("m2", "Melanie: I painted a sunset with my kids"),
        ("m3", "Caroline: I am researching adoption agencies"),
        ("m4", "Melanie: the kids loved the camping trip")]


def test_query_terms_drop_question_words_and_keep_unicode():
    assert query_terms("When did Caroline go to the support group?") == ["caroline", "go", "support", "group"]
    assert "müller" in query_terms("Where does Müller buy café crème?")
    assert query_terms("我搬到了柏林") != []


def test_bm25_ranks_rare_matching_terms_first():
    idx = BM25Index(DOCS)
    top = idx.top(query_terms("When did Caroline go to the support group?"), 10)
    assert list(top)[0] == "m1" and "m3" in top and "m2" not in top
    # a term in every document of the contact is worth less than a rare one
    assert idx.idf["caroline"] < idx.idf["support"]
    assert BM25Index([]).top(["x"], 5) == {}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=60), max_size=8), st.text(max_size=40))
def test_bm25_scores_are_non_negative_and_only_for_matching_docs(texts, query):
    idx = BM25Index([(f"d{i}", t) for i, t in enumerate(texts)])
    terms = query_terms(query)
    for doc_id, sc in idx.scores(terms).items():
        assert sc > 0
        assert set(terms) & set(words(texts[int(doc_id[1:])]))


def test_keyword_feedback_finds_messages_sharing_the_best_matches_telling_words():
    import projections.lexical as lx

    docs = [("hit", "Melanie: we went camping at the beach with the kids"),
            ("fire", "Melanie: the kids roasted marshmallows at the beach"),   # no word of the question
            ("lake", "Caroline: I painted the lake at sunset")] + \
        [(f"x{i}", f"Melanie: ordinary day number {i} at work") for i in range(20)]
    idx = BM25Index(docs)
    q = query_terms("Where has Melanie gone camping?")
    assert "fire" not in idx.top(q, 10)
    # the best match's rare words ("beach", "kids"; not "melanie", in most docs) make the second search
    assert set(idx.expansion(["hit"], q, 5)) >= {"beach", "kids"} and "melanie" not in idx.expansion(["hit"], q, 5)
    found = idx.search(q, 10)
    assert list(found)[0] == "hit" and "fire" in found and "lake" not in found
    # a feedback hit scores at most FEEDBACK_SHARE of the question's best match
    assert found["fire"] <= lx.FEEDBACK_SHARE * found["hit"] + 1e-9
    assert BM25Index([]).search(q, 5) == {}


def test_relevance_blends_normalised_cosine_and_keywords():
    rel = r.relevance([0.2, 0.4, 0.6], [0.0, 3.0, 1.5])
    assert rel == pytest.approx([0.0, 0.5 * 0.5 + 0.5 * 1.0, 0.5 * 1.0 + 0.5 * 0.5])
    assert r.relevance([0.3, 0.5], [0.0, 0.0]) == pytest.approx([0.0, 1.0])  # no keyword hit: cosine alone
    assert r.relevance([0.5], [0.0]) == [1.0]
    assert r.relevance([], []) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(-1, 1), st.floats(0, 50)), min_size=1, max_size=30))
def test_relevance_is_within_unit_interval(pairs):
    rel = r.relevance([c for c, _ in pairs], [k for _, k in pairs])
    assert all(-1e-9 <= x <= 1 + 1e-9 for x in rel)


# ------------------------------------------------------------------------------------ rank (context.py)
def row(i: str, similarity: float, importance: float, accessed: datetime | None, created: datetime,
        access_count: int = 0, refs: tuple[str, ...] = ()) -> dict:
    return {"id": i, "similarity": similarity, "importance": importance, "accessed_at": accessed,
            "created_at": created, "access_count": access_count, "decay_rate": 0.0, "pinned": False,
            "status": "active", "entity_refs": list(refs), "memory_type": "episode", "source_event_ids": [f"e-{i}"]}


def test_rank_without_query_uses_the_seed_weights_and_created_at_without_access():
    rows = [row("b", 0.9, 0.5, NOW, NOW), row("a", 0.9, 0.5, NOW, NOW), row("c", 0.1, 0.1, None, days_ago(400)),
            row("d", 0.0, 0.5, None, NOW)]
    ranked = rank(rows, NOW, has_query=False)
    assert [x[1]["id"] for x in ranked] == ["a", "b", "d", "c"]  # ties by id
    # d: never accessed, so recency comes from created_at (today): 0.25 + 0.2 * 0.5; c: 400 days old, 0.2 * 0.1
    assert dict((x[1]["id"], x[0]) for x in ranked)["d"] == pytest.approx(0.35)
    assert dict((x[1]["id"], x[0]) for x in ranked)["c"] == pytest.approx(0.02)


def test_rank_with_query_puts_relevance_first():
    """A memory that matches the question is not outranked by a fresher, more important one that does not
    (the seeds' weights did that): c's cosine 0.1 is min-max normalised over the candidates (0.0 .. 0.9)."""
    rows = [row("c", 0.1, 0.1, None, days_ago(400)), row("d", 0.0, 0.9, NOW, NOW, access_count=20)]
    ranked = dict((x[1]["id"], x[0]) for x in rank(rows + [row("a", 0.9, 0.5, NOW, NOW)], NOW))
    assert ranked["c"] == pytest.approx(0.85 * 0.1 / 0.9 + 0.07 * 0.1)
    assert ranked["d"] == pytest.approx(0.03 + 0.07 * 0.9)
    assert ranked["c"] > ranked["d"]


def test_rank_tenant_scope_uses_tenant_weights():
    rows = [row("a", 0.0, 0.0, None, days_ago(365), refs=("topic:pricing",))]
    assert rank(rows, NOW, scope="tenant", matched_refs={"topic:pricing"}, has_query=False)[0][0] == pytest.approx(0.05)
    assert rank(rows, NOW, scope="contact", matched_refs={"topic:pricing"}, has_query=False)[0][0] == pytest.approx(0.10)


# ------------------------------------------------------------------------------------ neighbours
def test_timeline_finds_the_episodes_said_just_before_and_after_within_the_window():
    t = lambda m: NOW + timedelta(minutes=m)  # noqa: E731
    docs = [{"id": "q", "created_at": t(0), "memory_type": "episode"},      # "what did you paint?"
            {"id": "a", "created_at": t(1), "memory_type": "episode"},      # "a sunset over the lake"
            {"id": "f", "created_at": t(1), "memory_type": "fact"},         # a fact read from a's message
            {"id": "z", "created_at": t(2), "memory_type": "episode"},
            {"id": "late", "created_at": t(200), "memory_type": "episode"}]  # another conversation
    tl = r.Timeline(docs)
    assert r.NEIGHBOUR_WIDTH == 1
    assert sorted(tl.around(["a"], 1800)) == [("q", "a"), ("z", "a")]
    assert tl.around(["late"], 1800) == []          # nothing within half an hour either side
    # the first message has no predecessor; one after it
    assert tl.around(["q"], 1800) == [("a", "q")]
    assert tl.around(["z"], 1800) == [("a", "z")]   # the one before; "late" is too far after
    assert ("a", "f") in tl.around(["f"], 1800)     # a fact's neighbour is its own message's episode
    assert tl.around(["unknown"], 1800) == []


def test_timeline_two_each_side_reaches_the_second_turn(monkeypatch):
    t = lambda m: NOW + timedelta(minutes=m)  # noqa: E731
    tl = r.Timeline([{"id": i, "created_at": t(m), "memory_type": "episode"} for i, m in (("q", 0), ("a", 1), ("z", 2))])
    monkeypatch.setattr(r, "NEIGHBOUR_WIDTH", 2)
    assert tl.around(["q"], 1800) == [("a", "q"), ("z", "q")]
    assert tl.around(["z"], 1800) == [("a", "z"), ("q", "z")]  # nearest first


def test_neighbours_share_their_anchors_relevance_and_keep_their_own_when_higher():
    rel = {"a": 0.9, "b": 0.2}
    out = r.spread_to_neighbours(rel, [{"id": "q", "anchor": "a"}, {"id": "b", "anchor": "a"},
                                       {"id": "x", "anchor": "missing"}], own=lambda n: 0.1)
    assert out == pytest.approx({"a": 0.9, "b": 0.9 * 0.7, "q": 0.9 * 0.7})  # NEIGHBOUR_SHARE 0.7
    assert r.spread_to_neighbours({"a": 0.4, "b": 0.7}, [{"id": "b", "anchor": "a"}], own=lambda n: 0.0)["b"] == 0.7


# ------------------------------------------------------------------------------------ speakers named
def test_speakers_named_by_first_name_whole_words_only():
    speakers = ["Melanie Smith", "Caroline", "Tom"]
    assert r.speakers_named("What does Melanie do to destress?", speakers) == {"Melanie Smith"}
    assert r.speakers_named("What did caroline's mom and Melanie paint?", speakers) == {"Caroline", "Melanie Smith"}
    assert r.speakers_named("Is the tomato soup good?", speakers) == set()  # "tom" inside a word is no name
    assert r.speakers_named("what does Smith do?", speakers) == set()       # the first name names a speaker


def test_without_names_drops_the_named_speakers_and_their_possessive_only():
    assert r.without_names("What is Caroline's relationship status?", {"Caroline"}) == "What is relationship status?"
    assert r.without_names("Did Melanie meet Caroline?", {"Melanie Smith"}) == "Did meet Caroline?"
    assert r.without_names("Melanie?", {"Melanie"}) == "Melanie?"  # nothing else left: the question as asked
    assert r.without_names("Where does Tom live?", set()) == "Where does Tom live?"


def test_speaker_weighted_keeps_half_of_what_another_speaker_said():
    rows = [{"id": "m1", "speaker": "Melanie"}, {"id": "c1", "speaker": "Caroline"}, {"id": "p", "speaker": None}]
    rel = {"m1": 0.6, "c1": 0.9, "p": 0.5}
    out = r.speaker_weighted(rel, rows, {"Melanie"})
    assert out == {"m1": 0.6, "c1": pytest.approx(0.9 * (1 - r.SPEAKER_SHARE)), "p": 0.5}  # a pattern: neither
    assert r.SPEAKER_SHARE == 0.5 and out["m1"] > out["c1"]
    assert r.speaker_weighted(rel, rows, set()) == rel  # no speaker named
    # a contact who alone speaks: naming them changes nothing
    alone = [{"id": "m1", "speaker": "Melanie"}, {"id": "p", "speaker": None}]
    assert r.speaker_weighted({"m1": 0.6, "p": 0.5}, alone, {"Melanie"}) == {"m1": 0.6, "p": 0.5}


def test_rank_prefers_what_the_named_speaker_said_over_the_reply_that_names_them():
    """"What does Melanie do to destress?": Melanie's own message (cosine 0.6) above Caroline's "Wow,
    Melanie! ..." (0.9), which the question's name drew; min-max over (0.1 .. 0.9)."""
    rows = [{**row("m1", 0.6, 0.5, None, NOW), "speaker": "Melanie"},
            {**row("c1", 0.9, 0.5, None, NOW), "speaker": "Caroline"},
            {**row("x", 0.1, 0.5, None, NOW), "speaker": "Caroline"}]
    plain = dict((x[1]["id"], x[0]) for x in rank(rows, NOW))
    named = dict((x[1]["id"], x[0]) for x in rank(rows, NOW, speakers={"Melanie"}))
    assert plain["c1"] > plain["m1"]
    assert named["m1"] == pytest.approx(0.85 * 0.5 / 0.8 + 0.03 + 0.07 * 0.5)
    assert named["c1"] == pytest.approx(0.85 * 1.0 * 0.5 + 0.03 + 0.07 * 0.5)
    assert named["m1"] > named["c1"]
