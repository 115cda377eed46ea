"""``BertEmbedder``: a sentence embedding model of the BERT family (all-MiniLM-L6-v2 and its
kin) run by numpy, for the retrieval bench to measure what a real sentence embedding model adds
to search by words, where the model's package is installed. It is a measuring instrument, not
part of Parley: the app's way to a real embedding model is a GGUF file run by llama.cpp (the
catalogue's bge-small).

The model is a folder as sentence-transformers saves one: ``config.json`` (the BERT's
sizes), ``model.safetensors`` (float32 weights), ``vocab.txt`` (its WordPiece words) and
``1_Pooling/config.json`` (mean or CLS pooling; mean when it is missing). A text is cut as
BERT's uncased tokenizer cuts it, read up to :data:`MAX_TOKENS` tokens, pooled and scaled to
length 1. Loaded on first use, in the calling (worker) thread; one thread at a time.
"""

from __future__ import annotations

import json
import struct
import threading
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.core.errors import UserError

__all__ = ["MAX_TOKENS", "BertEmbedder", "wordpieces"]

MAX_TOKENS = 256
"""Tokens of a text the model reads, its two marks included (what all-MiniLM-L6-v2 was
trained on; a longer passage is cut)."""

_NEEDED = ("config.json", "model.safetensors", "vocab.txt")


def _split_basic(text: str) -> list[str]:
    """BERT's basic cutting, uncased: lower case, accents off, control characters dropped,
    split at spaces and around each punctuation mark and CJK character."""
    text = unicodedata.normalize("NFD", text.lower())
    out: list[str] = []
    word: list[str] = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Mn":
            continue
        if ch.isspace() or (cat.startswith("C") and ch not in "\t\n\r"):
            if word:
                out.append("".join(word))
                word = []
        elif cat.startswith("P") or (ch.isascii() and not ch.isalnum()) or _cjk(ch):
            if word:
                out.append("".join(word))
                word = []
            out.append(ch)
        else:
            word.append(ch)
    if word:
        out.append("".join(word))
    return out


def _cjk(ch: str) -> bool:
    cp = ord(ch)
    return 0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF


def wordpieces(text: str, vocab: dict[str, int], limit: int) -> list[int]:
    """The ids of ``text``'s WordPiece tokens (greedy longest match; a word it cannot cut, or
    over 100 characters, is ``[UNK]``), at most ``limit`` of them."""
    unknown = vocab["[UNK]"]
    ids: list[int] = []
    for word in _split_basic(text):
        if len(ids) >= limit:
            break
        if len(word) > 100:
            ids.append(unknown)
            continue
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in vocab:
                    pieces.append(vocab[piece])
                    break
                end -= 1
            if end == start:
                pieces = [unknown]
                break
            start = end
        ids.extend(pieces)
    return ids[:limit]


def _safetensors(path: Path) -> dict[str, Any]:
    """The float32 tensors of a safetensors file, as numpy arrays over its bytes."""
    import numpy as np

    data = path.read_bytes()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + size])
    base = 8 + size
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info.get("dtype") != "F32":
            continue
        start, end = info["data_offsets"]
        flat = np.frombuffer(data, np.float32, (end - start) // 4, base + start)
        out[name] = flat.reshape(info["shape"]).copy()  # aligned: BLAS is slow on the bytes
    return out


class BertEmbedder:
    """Vectors from the sentence embedding model in ``folder``, named ``name`` (an
    :class:`~app.knowledge.Embedder`, as the knowledge service takes one)."""

    def __init__(self, folder: str | Path, name: str | None = None) -> None:
        self.folder = Path(folder)
        self._name = name or self.folder.name
        self._lock = threading.Lock()
        self._loaded: tuple[dict[str, Any], dict[str, int], dict[str, Any], bool] | None = None

    @property
    def name(self) -> str:
        """The model's name (its folder's, unless given another)."""
        return self._name

    def _load(self) -> tuple[dict[str, Any], dict[str, int], dict[str, Any], bool]:
        if self._loaded is None:
            missing = [n for n in _NEEDED if not (self.folder / n).is_file()]
            if missing:
                raise UserError(
                    f"the embedding model folder {self.folder} lacks {', '.join(missing)}"
                )
            config = json.loads((self.folder / "config.json").read_text(encoding="utf-8"))
            words = (self.folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
            pooling = self.folder / "1_Pooling" / "config.json"
            cls = pooling.is_file() and bool(
                json.loads(pooling.read_text(encoding="utf-8")).get("pooling_mode_cls_token")
            )
            weights = _safetensors(self.folder / "model.safetensors")
            self._loaded = (config, {w: i for i, w in enumerate(words)}, weights, cls)
        return self._loaded

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector per text (blocking)."""
        with self._lock:
            config, vocab, weights, cls = self._load()
            return [self._one(text, config, vocab, weights, cls) for text in texts]

    def _one(
        self,
        text: str,
        config: dict[str, Any],
        vocab: dict[str, int],
        w: dict[str, Any],
        cls: bool,
    ) -> list[float]:
        import numpy as np

        ids = [vocab["[CLS]"], *wordpieces(text, vocab, MAX_TOKENS - 2), vocab["[SEP]"]]
        eps = float(config.get("layer_norm_eps", 1e-12))
        heads = int(config["num_attention_heads"])

        def norm(x: Any, at: str) -> Any:
            mean = x.mean(-1, keepdims=True)
            var = ((x - mean) ** 2).mean(-1, keepdims=True)
            return (x - mean) / np.sqrt(var + eps) * w[at + ".weight"] + w[at + ".bias"]

        def dense(x: Any, at: str) -> Any:
            return x @ w[at + ".weight"].T + w[at + ".bias"]

        e = "embeddings."
        x = (
            w[e + "word_embeddings.weight"][ids]
            + w[e + "position_embeddings.weight"][: len(ids)]
            + w[e + "token_type_embeddings.weight"][0]
        )
        x = norm(x, e + "LayerNorm")
        n, size = x.shape
        for layer in range(int(config["num_hidden_layers"])):
            at = f"encoder.layer.{layer}."
            q, k, v = (
                np.ascontiguousarray(
                    dense(x, at + f"attention.self.{part}").reshape(n, heads, -1).swapaxes(0, 1)
                )
                for part in ("query", "key", "value")
            )
            scores = (q @ k.swapaxes(1, 2)) * np.float32((size / heads) ** -0.5)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            mixed = (scores / scores.sum(-1, keepdims=True)) @ v
            attended = mixed.swapaxes(0, 1).reshape(n, size)
            x = norm(
                x + dense(attended, at + "attention.output.dense"),
                at + "attention.output.LayerNorm",
            )
            h = dense(x, at + "intermediate.dense")
            h *= 0.5 * (1.0 + np.tanh(np.float32(0.7978845608) * (h + np.float32(0.044715) * h**3)))
            x = norm(x + dense(h, at + "output.dense"), at + "output.LayerNorm")
        pooled = x[0] if cls else x.mean(0)
        length = float(np.linalg.norm(pooled))
        return [float(v) / length for v in pooled] if length > 0 else [0.0] * size
