"""Knowledge search by meaning: how many passages a second the bundled model (the stand-in
embedding model) gives vectors, and the time of a fused query (BM25 and the nearest of
100,000 vectors) beside BM25 alone on the same index."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from app.store.knowledge import KnowledgeIndex, _vectors

DIMS = 384
"""bge-small-en-v1.5's width: the catalogue's embedding model."""


def embedding_rate(texts: list[str]) -> float:
    """Passages a second the bundled model embeds (loading it is not counted)."""
    from app.providers.bundled import bundled_model_path
    from app.providers.llama_embed import LlamaEmbedder

    path = bundled_model_path()
    if path is None:
        raise RuntimeError("the bundled model is not installed")
    embedder = LlamaEmbedder(path)
    try:
        embedder.embed(texts[:1])
        start = time.perf_counter()
        embedder.embed(texts)
        return len(texts) / (time.perf_counter() - start)
    finally:
        embedder.close()


@dataclass(frozen=True)
class FusedTimes:
    """Median ms of a fused query over 100,000 vectors, as Parley finds the nearest at that
    size (the quantized scan) and by sqlite-vec alone (``None`` where it cannot load), and
    the MB the scan holds."""

    ours: float
    sqlite_vec: float | None
    held_mb: float


def fused_query_ms(index: KnowledgeIndex, queries: list[str]) -> FusedTimes:
    """:class:`FusedTimes`, once every passage of ``index`` has a random vector."""
    import numpy as np

    rng = np.random.default_rng(3)
    index.use_embedding_model("bench")
    ids = index.call(lambda c: [r[0] for r in c.execute("SELECT id FROM passages")])
    for start in range(0, len(ids), 5000):
        chunk = ids[start : start + 5000]
        vectors = rng.standard_normal((len(chunk), DIMS)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        index.save_vectors("bench", list(zip(chunk, vectors.tolist(), strict=True)))
    asks = []
    for query in queries:
        vector = rng.standard_normal(DIMS).astype(np.float32)
        asks.append((query, (vector / np.linalg.norm(vector)).tolist()))
    ours = _median_ms(index, index.vectors, asks, rounds=3)
    held = index.vectors._cached
    held_mb = 0.0 if held is None else sum(a.nbytes for a in held) / 1e6
    alone = None
    if index.vectors.sqlite_vec:  # it reads every vector per query: one round
        alone = _median_ms(index, _vectors.VectorSearch(True, scan_from=10**9), asks, rounds=1)
    return FusedTimes(ours, alone, held_mb)


def _median_ms(
    index: KnowledgeIndex,
    how: _vectors.VectorSearch,
    asks: list[tuple[str, list[float]]],
    rounds: int,
) -> float:
    shuffle = random.Random(7)
    index.call(_vectors.fused_search, how, *asks[0], 8, None)  # the scan's copy, once
    times = []
    for _ in range(rounds):
        shuffle.shuffle(asks)
        for query, vector in asks:
            began = time.perf_counter()
            index.call(_vectors.fused_search, how, query, vector, 8, None)
            times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)
