"""The local embedder: the ONNX graph matches the numpy reference (which matched sentence-transformers
to 3e-7 when it was written), vectors are unit length, similar sentences are closer."""
from contextlib import contextmanager

import numpy as np

from domain.embedder import MiniLMEmbedder

TEXTS = ["I have a golden retriever named Bruno", "lol", "My mom lives in Chennai and I visit her for Diwali",
         "What is the name of my dog?", "The stock market fell sharply today after the announcement."]


def test_onnx_graph_matches_numpy_reference(embedder):
    ref = MiniLMEmbedder(use_onnx=False)
    assert embedder._session is not None
    assert np.abs(embedder.embed(TEXTS) - ref.embed(TEXTS)).max() < 1e-5


def test_unit_vectors_and_semantic_order(embedder):
    v = embedder.embed(TEXTS)
    assert v.shape == (5, 384) and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    dog_q = v[3]
    assert dog_q @ v[0] > dog_q @ v[4] and dog_q @ v[0] > dog_q @ v[2]


def test_batching_and_order_do_not_change_vectors(embedder):
    one = np.stack([embedder.embed([t])[0] for t in TEXTS])
    assert np.abs(one - embedder.embed(TEXTS)).max() < 1e-5
    assert np.abs(embedder.embed(TEXTS[::-1])[::-1] - embedder.embed(TEXTS)).max() < 1e-5
    assert embedder.embed([]).shape == (0, 384)


# ------------------------------------------------------------------------------ the int8 graph (queries)
MEMORIES = ["user: I have a golden retriever named Bruno", "user: My sister Priya is getting married in March",
            "user: I started learning the violin last year", "user: We moved from Pune to Berlin for my job",
            "user: I'm allergic to peanuts", "assistant: Good luck with the marathon on Sunday!"]
QUESTIONS = ["What is the name of my dog?", "When is Priya's wedding?", "Which instrument am I learning?",
             "Where did we live before Berlin?", "What food should I avoid?", "What race am I running?"]


def test_int8_vectors_stay_close_to_the_float_ones(embedder):
    q8 = MiniLMEmbedder(int8=True, threads=1)
    texts = TEXTS + MEMORIES + QUESTIONS
    a, b = embedder.embed(texts), q8.embed(texts)
    assert np.allclose(np.linalg.norm(b, axis=1), 1, atol=1e-5)
    cos = (a * b).sum(1)
    assert cos.min() > 0.95 and cos.mean() > 0.99  # the lowest: "lol", three tokens


def test_int8_questions_find_what_float_questions_find(embedder):
    """Questions embedded by the int8 graph against memories embedded in float (as the API does)."""
    docs = embedder.embed(MEMORIES)
    for quantized in (False, True):
        model = MiniLMEmbedder(int8=quantized, threads=1)
        assert list((model.embed(QUESTIONS) @ docs.T).argmax(1)) == list(range(len(QUESTIONS))), quantized


def test_query_embedder_is_the_int8_graph_unless_switched_off(monkeypatch):
    from domain.embedder import query_embedder
    from streams.config import settings

    assert query_embedder(settings()).int8
    monkeypatch.setenv("RAPPORT_QUERY_INT8", "off")
    settings.cache_clear()
    try:
        assert not query_embedder(settings()).int8
    finally:
        settings.cache_clear()


# ------------------------------------------------------------------------------ batching concurrent callers
class GatedEmbedder:
    """Records each call's texts; the first call waits for `gate`, so later submissions queue up."""

    model_name, dim = "gated", 2

    def __init__(self, fail_on: str | None = None):
        import threading

        self.calls: list[list[str]] = []
        self.gate = threading.Event()
        self.fail_on = fail_on

    def embed(self, texts):
        self.calls.append(list(texts))
        if len(self.calls) == 1:
            self.gate.wait(5)
        if self.fail_on in texts:
            raise RuntimeError("model down")
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


@contextmanager
def first_call_held(model: GatedEmbedder, text: str, **options):
    """A BatchingEmbedder over `model` whose first call (of `text`, its future yielded beside it) is under way
    and held at the model's gate: what is submitted now waits for the next call. Closed after."""
    from domain.embedder import BatchingEmbedder

    b = BatchingEmbedder(model, **options)
    try:
        first = b.submit(text)
        while not model.calls:
            pass
        yield b, first
    finally:
        b.close()


def test_concurrent_queries_are_embedded_together_each_gets_its_own_vector():
    model = GatedEmbedder()
    with first_call_held(model, "a", max_batch=3) as (b, first):
        rest = [b.submit(t) for t in ["bb", "ccc", "bb", "dddd"]]
        model.gate.set()
        vecs = [f.result(5) for f in [first, *rest]]
    assert [v[0] for v in vecs] == [1, 2, 3, 2, 4]
    # up to max_batch waiting submissions per call; the repeated text embedded once
    assert model.calls == [["a"], ["bb", "ccc"], ["dddd"]]


def test_a_failed_call_fails_its_callers_only():
    import pytest

    model = GatedEmbedder(fail_on="bad")
    with first_call_held(model, "ok") as (b, first):
        bad, same_batch = b.submit("bad"), b.submit("fine")
        model.gate.set()
        assert first.result(5)[0] == 2
        with pytest.raises(RuntimeError, match="model down"):
            bad.result(5)
        with pytest.raises(RuntimeError):
            same_batch.result(5)
        assert b.submit("after").result(5)[0] == 5  # the thread serves on


def test_a_caller_that_gave_up_does_not_stop_the_batches():
    """A request cancelled while its query waited (its future cancelled): the others of its batch get
    their vectors and the thread serves on (set_result on the cancelled future raised and ended it,
    and every later question waited for ever)."""
    model = GatedEmbedder()
    with first_call_held(model, "a") as (b, first):
        gave_up, waits = b.submit("bb"), b.submit("ccc")
        assert gave_up.cancel()
        model.gate.set()
        assert first.result(5)[0] == 1 and waits.result(5)[0] == 3
        assert b.submit("dddd").result(5)[0] == 4
