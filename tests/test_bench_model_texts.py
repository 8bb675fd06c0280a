"""bench load's model-as-the-worker baseline (ops/bench.py `worker_model_texts`): the texts a worker embeds for
a run, as it embeds them: each user message alone, the rest of their candidates batched, no assistant turn."""
from __future__ import annotations

from ops.bench import print_load, worker_model_texts


def test_user_messages_alone_their_other_candidates_batched_assistant_turns_never():
    turns = [("user", "I have a dog named Bruno, he is 3 years old"), ("assistant", "What a lovely dog!"),
             ("user", "ok"), ("user", "I have a dog named Bruno, he is 3 years old"), ("user", "I live in Lisbon now")]
    alone, batched = worker_model_texts(turns)
    assert alone == ["I have a dog named Bruno, he is 3 years old", "ok", "I live in Lisbon now"]  # distinct, in order
    assert "What a lovely dog!" not in alone + batched
    assert batched and not set(batched) & set(alone)  # the episodes share their message's vector
    assert any("Bruno" in t for t in batched) and len(batched) == len(set(batched))


def test_the_line_is_printed_with_its_ratio(capsys):
    lat = {"n": 1, "p50_ms": 1, "p95_ms": 1, "p99_ms": 1, "mean_ms": 1}
    print_load({"events": 10, "contacts": 1, "ingest": {"accepted_events_per_s": 1, "post_latency": lat},
                "processing": {"end_to_end_events_per_s": 5, "seconds": 2}, "freshness": lat, "context": {},
                "model_only": {"events_per_s": 10, "distinct_texts": 3, "texts_per_s": 3, "ratio": 0.5,
                               "as_worker_texts": [6, 2], "as_worker_events_per_s": 8.0, "as_worker_ratio": 0.625}})
    out = capsys.readouterr().out
    assert "model, as the worker" in out and "6 user messages one a call, 2 other" in out and "= 0.62" in out
