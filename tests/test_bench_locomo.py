"""rapport bench locomo's scoring and cross-validation (pure parts), against hand-computed numbers."""
import pytest

from ops.bench_locomo import AGAIN, applied, cross_validate, scores, variants


def row(cat, rec, r10, mrr):
    return {"category": cat, "recall@1200": rec, "R@10": r10, "MRR": mrr}


def test_scores_as_the_maintainers_harness_counts_them():
    mems = [{"content": "x" * 400, "sourceEventIds": ["c:D1:1"]},   # 100 tokens
            {"content": "y" * 4000, "sourceEventIds": ["c:D1:2"]},  # 1,000 tokens: over 1,200 with the first
            {"content": "z" * 40, "sourceEventIds": ["c:D1:3", "other:D1:3"]}]
    s = scores(mems, mems, {"D1:2", "D1:3"}, "c:")
    # greedy prefix: the first two fit (1,100), the third (10) too; only the gold turns count
    assert s == {"recall@1200": 1.0, "R@10": 1.0, "MRR": 0.5}
    s = scores(mems, mems, {"D1:3"}, "c:", budget=1000)  # the second stops the prefix: D1:3 not reached
    assert s["recall@1200"] == 0.0 and s["MRR"] == pytest.approx(1 / 3)


def test_each_conversation_is_read_with_the_variant_the_other_chose():
    results = {
        "defaults": {"a": [row(1, 0.8, 0.6, 0.5)], "b": [row(1, 0.9, 0.7, 0.6)]},
        "X=1": {"a": [row(1, 0.9, 0.9, 0.9)], "b": [row(1, 0.6, 0.6, 0.6)]},  # a fit to a
        AGAIN: {"a": [row(1, 0.0, 0.0, 0.0)], "b": [row(1, 0.0, 0.0, 0.0)]},  # never a candidate
    }
    cv = cross_validate(results, ["a", "b"])
    assert cv["per_conversation"]["a"]["tuned_on_other"] == "defaults"  # b prefers the defaults
    assert cv["per_conversation"]["b"]["tuned_on_other"] == "X=1"       # a prefers X=1 ...
    assert cv["per_conversation"]["b"]["would_choose_itself"] == "defaults"
    # pooled: a's defaults row and b's X=1 row; the defaults on both beside it
    assert cv["cross_validated"] == {"recall@1200": 0.7, "R@10": 0.6, "MRR": 0.55, "n": 2}
    assert cv["defaults_full"] == {"recall@1200": 0.85, "R@10": 0.65, "MRR": 0.55, "n": 2}
    assert cv["gap"] == {"recall@1200": 0.15, "R@10": 0.05, "MRR": 0.0}


def test_a_variant_sets_the_parameter_where_the_ranking_reads_it_and_restores_it():
    from projections import context, retrieval

    before = retrieval.NEIGHBOUR_SHARE, context.REPEAT_SHARE
    with applied({"NEIGHBOUR_SHARE": 0.123, "REPEAT_SHARE": 1.0}):
        assert retrieval.spread_to_neighbours({"a": 1.0}, [{"id": "n", "anchor": "a"}], own=lambda n: 0.0)["n"] == 0.123
        assert context.novelty_first([(1.0, {"source_event_ids": ["e"], "memory_type": "episode"})] * 2)[1][0] == 1.0
    assert (retrieval.NEIGHBOUR_SHARE, context.REPEAT_SHARE) == before
    assert variants()[0] == {} and all(len(v) == 1 for v in variants()[1:])
