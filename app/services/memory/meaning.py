"""Memories found by meaning: with the embedding model the knowledge folders search by (when
one is chosen), a memory gets a vector when it is kept or edited, an older one when memories
are next searched, and a search or a question finds the memories close in meaning to it as
well as those holding its words (the two rankings fused, as the knowledge folders' are).

The embedding model runs on this computer (the bundled model or a GGUF file), so making a
local-only memory's vector sends it nowhere. A model that fails leaves search to words, and
says so in the log.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from app.knowledge import Embedder, fuse_rankings
from app.knowledge.ranking import MEANING_FLOORS
from app.store import MemoryRecord
from app.store.memories import MemoryStore

log = logging.getLogger(__name__)

__all__ = ["FILL_AT_ONCE", "FILL_PER_QUESTION", "MEMORY_FLOOR", "MeaningSource", "MemoryMeaning"]

MeaningSource = Callable[[], "tuple[Embedder, str] | None"]
"""``meaning()``: the embedding model in use and its setting, or ``None`` (words alone)."""

FILL_AT_ONCE = 16
"""Memories given the model at once when older ones get their vectors."""

FILL_PER_QUESTION = 16
"""The most older memories given vectors before one question's memories are chosen (the
rest before the next questions), so a turn never waits for all of them."""

MEMORY_FLOOR = MEANING_FLOORS[""]
"""The cosine a memory found by meaning alone needs, whatever the embedding model. The
knowledge folders' floors are set per model on long passages of documents (the bundled
stand-in's, 0.95, keeps almost every passage found by meaning out); a memory is one sentence,
and no set of memories has tuned a floor for them yet, so they keep the common models' half."""


class MemoryMeaning:
    """Vectors for the memories of one store and search by them; see the module docstring."""

    def __init__(self, memories: MemoryStore, meaning: MeaningSource) -> None:
        self._memories = memories
        self._meaning = meaning
        self._filling = asyncio.Lock()

    @property
    def on(self) -> bool:
        """Whether memories are searched by meaning now."""
        return self._meaning() is not None

    async def _embed(self, embedder: Embedder, texts: Sequence[str]) -> list[list[float]] | None:
        try:
            return await asyncio.to_thread(embedder.embed, list(texts))
        except Exception:  # a missing or broken model: words alone
            log.warning("making memories' vectors with %s failed", embedder.name, exc_info=True)
            return None

    async def _save(self, model: str, made: list[tuple[str, str, list[float]]]) -> int:
        try:
            return await self._memories.save_vectors(model, made)
        except Exception:  # a read-only or full disk: found by words until it can be saved
            log.warning("the memories' vectors could not be saved", exc_info=True)
            return 0

    async def give_vectors(self, memories: Sequence[MemoryRecord]) -> None:
        """Give ``memories`` (just kept or edited) their vectors, when meaning search is on."""
        chosen = self._meaning()
        if chosen is None or not memories:
            return
        embedder = chosen[0]
        for at in range(0, len(memories), FILL_AT_ONCE):
            batch = memories[at : at + FILL_AT_ONCE]
            vectors = await self._embed(embedder, [m.text for m in batch])
            if vectors is None:
                return
            made = [(m.id, m.text, v) for m, v in zip(batch, vectors, strict=True)]
            if not await self._save(embedder.name, made):
                return

    async def fill(self, most: int | None = None) -> int:
        """Give memories without a vector of the model in use one, the newest first, ``most``
        of them at most (``None``: all); how many were saved."""
        chosen = self._meaning()
        if chosen is None:
            return 0
        embedder, done = chosen[0], 0
        async with self._filling:
            while most is None or done < most:
                batch = FILL_AT_ONCE if most is None else min(FILL_AT_ONCE, most - done)
                todo = await self._memories.missing_vectors(embedder.name, batch)
                if not todo:
                    break
                vectors = await self._embed(embedder, [text for _, text in todo])
                if vectors is None:
                    break
                made = [(i, t, v) for (i, t), v in zip(todo, vectors, strict=True)]
                saved = await self._save(embedder.name, made)
                done += saved
                if not saved:  # each was edited or forgotten meanwhile: the next search
                    break
        return done

    async def closest(
        self,
        query: str,
        agent_id: str | None,
        *,
        every: bool,
        limit: int,
        pinned: bool = True,
    ) -> list[MemoryRecord] | None:
        """The memories close enough in meaning to ``query`` (over :data:`MEMORY_FLOOR`),
        closest first; ``None`` when meaning search is off or failed."""
        chosen = self._meaning()
        if chosen is None or not query.strip():
            return None
        embedder, _spec = chosen
        vectors = await self._embed(embedder, [query])
        if not vectors:
            return None
        near = await self._memories.nearest(
            embedder.name,
            vectors[0],
            agent_id,
            every=every,
            limit=limit,
            floor=MEMORY_FLOOR,
            pinned=pinned,
        )
        return [memory for memory, _ in near]


def fused(
    words: Sequence[MemoryRecord], meaning: Sequence[MemoryRecord] | None, limit: int
) -> list[MemoryRecord]:
    """The memories found by words and by meaning in one ranking, best first (those both
    found first); by words alone when meaning found nothing or was not asked."""
    if not meaning:
        return list(words[:limit])
    by_id = {m.id: m for m in [*meaning, *words]}
    ids = fuse_rankings([[m.id for m in words], [m.id for m in meaning]])
    return [by_id[i] for i in ids[:limit]]
