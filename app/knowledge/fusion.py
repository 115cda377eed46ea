"""Reciprocal-rank fusion: one ranking made from several (words, meaning, ...)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

__all__ = ["fuse_rankings", "fused_scores"]

K = TypeVar("K", bound=Hashable)


def fused_scores(rankings: Iterable[Sequence[K]], *, k: int = 60) -> list[tuple[K, float]]:
    """Each item with its fused score, best first: it scores ``1 / (k + rank)`` in every
    ranking it is in; ties keep the order first seen."""
    scores: dict[K, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: n for n, item in enumerate(scores)}
    best = sorted(scores, key=lambda item: (-scores[item], order[item]))
    return [(item, scores[item]) for item in best]


def fuse_rankings(rankings: Iterable[Sequence[K]], *, k: int = 60) -> list[K]:
    """Fuse best-first rankings (see :func:`fused_scores`); the result is best first."""
    return [item for item, _ in fused_scores(rankings, k=k)]
