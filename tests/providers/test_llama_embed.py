"""The llama.cpp embedder on the bundled model (a stand-in for a real embedding model): one
unit-length vector per passage, all of one length, and close meanings close."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.providers.llama_embed import LlamaEmbedder, declared_pooling

pytestmark = pytest.mark.slow

PASSAGES = [
    "The cat sat on the warm windowsill and purred all afternoon.",
    "Quarterly revenue rose by twelve percent thanks to strong sales in Europe.",
    "To reset the router, hold the button on its back for ten seconds.",
]


def test_one_unit_vector_per_passage(bundled_path: Path) -> None:
    embedder = LlamaEmbedder(bundled_path, "stand-in")
    try:
        vectors = embedder.embed([*PASSAGES, "", "\x00\x1b[31m" + "word " * 2000])
        assert len(vectors) == 5
        assert {len(v) for v in vectors} == {576}  # SmolLM2-135M's width, pooled: not per token
        assert all(math.isclose(math.fsum(x * x for x in v), 1.0, rel_tol=1e-4) for v in vectors)
        assert embedder.embed([]) == []
        # close meanings are closer: the one pair this weak stand-in gets clearly right
        cat, money, router = vectors[:3]
        (kitten,) = embedder.embed(["kitten resting by a sunny window"])
        near = [sum(a * b for a, b in zip(kitten, v, strict=True)) for v in (cat, money, router)]
        assert near[0] == max(near)
    finally:
        embedder.close()


def test_a_missing_file_is_said_in_one_sentence(tmp_path: Path) -> None:
    embedder = LlamaEmbedder(tmp_path / "gone.gguf")
    with pytest.raises(UserError, match=r"the embedding model .*gone\.gguf is missing"):
        embedder.embed(["x"])


def test_the_pooling_a_model_declares_is_used_else_mean() -> None:
    assert declared_pooling({"general.architecture": "llama"}) is None  # the bundled model
    assert declared_pooling({"bert.pooling_type": "2"}) == 2  # BGE: CLS
    assert declared_pooling({"nomic-bert.pooling_type": "1"}) == 1
    assert declared_pooling({"bert.pooling_type": "0"}) is None  # none: one per token
    assert declared_pooling({"bert.pooling_type": "lots"}) is None
