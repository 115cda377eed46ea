"""What the agents need of the knowledge folders: which folders there are and whom each
belongs to, adding one for an agent, and giving an agent its folders. The knowledge service
is one; naming only this keeps the agents free of the knowledge package, which reaches the
agents through the models."""

from __future__ import annotations

import os
from collections.abc import Collection
from typing import Protocol

from app.store.knowledge import FolderRecord

__all__ = ["KnowledgeFolders"]


class KnowledgeFolders(Protocol):
    """The knowledge folders as the agents use them."""

    @property
    def known(self) -> list[FolderRecord]:
        """The folders as last read."""

    async def folders(self) -> list[FolderRecord]:
        """Every folder, read afresh."""

    async def add_folder(self, folder: str | os.PathLike[str], agent: str | None = None) -> str:
        """Add ``folder`` for ``agent`` (its id); returns its resolved path."""

    async def set_owner(self, agent: str, folders: Collection[str]) -> None:
        """Make ``folders`` belong to the agent ``agent`` (its id) and no others."""
