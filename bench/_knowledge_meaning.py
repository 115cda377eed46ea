"""Knowledge search by meaning: how many passages a second the bundled model (the stand-in
embedding model) gives vectors, and the time of a fused query (BM25 and the nearest of
100,000 vectors) beside BM25 alone on the same index."""

from __future__ import annotations

import random
import statistics
import time

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


def fused_query_ms(index: KnowledgeIndex, queries: list[str]) -> list[tuple[str, float]]:
    """Median ms of a fused query, once every passage of ``index`` has a random vector: the
    nearest found by sqlite-vec where it loads into the index's connection (as on a Python
    whose SQLite loads extensions), and by the numpy scan Parley falls back to; each named."""
    import numpy as np

    rng = np.random.default_rng(3)
    index.use_embedding_model("bench")
    ids = index.call(lambda c: [r[0] for r in c.execute("SELECT id FROM passages")])
    for start in range(0, len(ids), 5000):
        chunk = ids[start : start + 5000]
        vectors = rng.standard_normal((len(chunk), DIMS)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        index.save_vectors("bench", list(zip(chunk, vectors.tolist(), strict=True)))
    shuffle = random.Random(7)
    asks = []
    for query in queries:
        vector = rng.standard_normal(DIMS).astype(np.float32)
        asks.append((query, (vector / np.linalg.norm(vector)).tolist()))
    ways = [("by sqlite-vec", index.vectors, 1)] if index.vectors.sqlite_vec else []
    ways.append(("by the numpy scan", _vectors.VectorSearch(sqlite_vec=False), 3))
    out = []
    for name, how, rounds in ways:  # sqlite-vec reads every vector per query: one round
        index.call(_vectors.fused_search, how, *asks[0], 8, None)  # the scan's matrix, once
        times = []
        for _ in range(rounds):
            shuffle.shuffle(asks)
            for query, vector in asks:
                began = time.perf_counter()
                index.call(_vectors.fused_search, how, query, vector, 8, None)
                times.append((time.perf_counter() - began) * 1000)
        out.append((name, statistics.median(times)))
    return out
