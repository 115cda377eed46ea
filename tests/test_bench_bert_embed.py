"""The retrieval bench's BERT sentence embedding model run by numpy: a tiny model written
here (random weights, the layout sentence-transformers saves) gives one unit vector per text,
the same for the same text; a folder that lacks a file is named; the WordPiece cutting is
BERT's; and where the all-MiniLM-L6-v2 package is installed, its vectors put a question nearer
its answer than an unrelated text."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from app.core.errors import UserError
from bench._bert_embed import BertEmbedder, wordpieces
from bench.bench_retrieval import minilm_folder

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "host", "##name", "name", ",", "!", "cafe"]


def write_model(folder: Path, size: int = 8, layers: int = 2, heads: int = 2) -> Path:
    """A tiny BERT with random weights, saved as sentence-transformers saves one."""
    rng = np.random.default_rng(7)
    shapes = {
        "embeddings.word_embeddings.weight": [len(VOCAB), size],
        "embeddings.position_embeddings.weight": [16, size],
        "embeddings.token_type_embeddings.weight": [2, size],
        "embeddings.LayerNorm.weight": [size],
        "embeddings.LayerNorm.bias": [size],
    }
    for n in range(layers):
        at = f"encoder.layer.{n}."
        for part in ("query", "key", "value"):
            shapes[f"{at}attention.self.{part}.weight"] = [size, size]
            shapes[f"{at}attention.self.{part}.bias"] = [size]
        shapes[f"{at}attention.output.dense.weight"] = [size, size]
        shapes[f"{at}attention.output.dense.bias"] = [size]
        shapes[f"{at}intermediate.dense.weight"] = [4 * size, size]
        shapes[f"{at}intermediate.dense.bias"] = [4 * size]
        shapes[f"{at}output.dense.weight"] = [size, 4 * size]
        shapes[f"{at}output.dense.bias"] = [size]
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[f"{at}{norm}.weight"] = [size]
            shapes[f"{at}{norm}.bias"] = [size]
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs = []
    offset = 0
    for name, shape in shapes.items():
        blob = rng.standard_normal(shape).astype("<f4").tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": shape,
            "data_offsets": [offset, offset + len(blob)],
        }
        blobs.append(blob)
        offset += len(blob)
    head = json.dumps(header).encode()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.safetensors").write_bytes(
        struct.pack("<Q", len(head)) + head + b"".join(blobs)
    )
    config = {"num_hidden_layers": layers, "num_attention_heads": heads, "layer_norm_eps": 1e-12}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return folder


def test_a_tiny_model_gives_one_unit_vector_per_text(tmp_path: Path) -> None:
    embedder = BertEmbedder(write_model(tmp_path / "tiny"))
    assert embedder.name == "tiny" and BertEmbedder(tmp_path, "other").name == "other"
    first, second, again = embedder.embed(["the hostname", "Café, the name!", "the hostname"])
    assert len(first) == len(second) == 8
    assert math.isclose(sum(x * x for x in first), 1.0, rel_tol=1e-5)
    assert math.isclose(sum(x * x for x in second), 1.0, rel_tol=1e-5)
    assert first == again and first != second


def test_a_folder_lacking_a_file_is_named(tmp_path: Path) -> None:
    folder = write_model(tmp_path / "tiny")
    (folder / "vocab.txt").unlink()
    with pytest.raises(UserError, match=r"lacks vocab\.txt"):
        BertEmbedder(folder).embed(["the hostname"])


def test_words_are_cut_as_bert_cuts_them() -> None:
    vocab = {word: n for n, word in enumerate(VOCAB)}
    # lower case, accents off, punctuation apart, a word in pieces, an unknown one whole
    assert wordpieces("The HOSTNAME, café! zebra", vocab, 10) == [4, 5, 6, 8, 10, 9, 1]
    assert wordpieces("the the the", vocab, 2) == [4, 4]


MINILM = minilm_folder()


@pytest.mark.skipif(MINILM is None, reason="all-MiniLM-L6-v2's package is not installed")
def test_minilm_puts_a_question_nearer_its_answer() -> None:
    assert MINILM is not None
    embedder = BertEmbedder(MINILM)
    question, answer, other = np.array(
        embedder.embed(
            [
                "change the name of my computer",
                "The hostname. The kernel maintains the system hostname, set at boot from "
                "/etc/hostname.",
                "Whisk the eggs with the sugar, then fold in the flour.",
            ]
        )
    )
    assert float(question @ answer) > float(question @ other) + 0.1
