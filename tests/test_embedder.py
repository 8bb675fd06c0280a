"""The local embedder: the ONNX graph matches the numpy reference (which matched sentence-transformers
to 3e-7 when it was written), vectors are unit length, similar sentences are closer."""
import numpy as np

from agents.embedder import MiniLMEmbedder

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
