"""Reciprocal-rank fusion: one ranking made from several (words, meaning, ...)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

__all__ = ["fuse_rankings"]

K = TypeVar("K", bound=Hashable)


def fuse_rankings(rankings: Iterable[Sequence[K]], *, k: int = 60) -> list[K]:
    """Fuse best-first rankings: each item scores ``1 / (k + rank)`` in every ranking it is
    in; the result is best first, ties kept in the order first seen."""
    scores: dict[K, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: n for n, item in enumerate(scores)}
    return sorted(scores, key=lambda item: (-scores[item], order[item]))
