"""The embedder seam: what turns passages into vectors for search by meaning.

An :class:`Embedder` is blocking (it is run in worker threads, never on the event loop) and
returns one unit-length vector per text. ``name`` says which model made the vectors: the
index keeps vectors of one model only, and drops them when the name changes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["Embedder", "normalise"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors whose closeness follows their meaning."""

    @property
    def name(self) -> str:
        """The model, as the window names it (and as the index tells models apart)."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector per text, all of the same length (blocking)."""
        ...


def normalise(vector: Sequence[float]) -> list[float]:
    """``vector`` scaled to length 1 (a zero vector, or one holding NaN, stays all zeros)."""
    length = math.sqrt(math.fsum(x * x for x in vector))
    if not length or not math.isfinite(length):
        return [0.0] * len(vector)
    return [x / length for x in vector]
