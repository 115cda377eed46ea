"""A checkpointer that remembers the changes each save was given, for tests."""

from __future__ import annotations

from typing import Any

from app.core.checkpoint import InMemoryCheckpointer


class RecordingCheckpointer(InMemoryCheckpointer):
    """An in-memory checkpointer that keeps every ``changes`` argument in ``changes``."""

    def __init__(self) -> None:
        super().__init__()
        self.changes: list[Any] = []

    async def aput(self, checkpoint: Any, changes: Any) -> None:
        self.changes.append(changes)
        await super().aput(checkpoint, changes)
