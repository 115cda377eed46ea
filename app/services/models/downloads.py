"""The model picker's catalogue: models that can be downloaded (with their size, memory and
how well they call tools) and the downloaded ones, and a download the window can follow and
cancel. Nothing here opens a connection until :meth:`ModelDownloads.download` is called.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.core.errors import UserError
from app.services.models._download_checks import Progress, ProgressCallback
from app.services.models.catalogue import (
    CatalogueEntry,
    InstalledModel,
    ModelLibrary,
)
from app.services.models.choices import ModelChoice
from app.text.sizes import rough_size

__all__ = [
    "DOWNLOAD_GROUP",
    "DOWNLOAD_PREFIX",
    "ModelDownloads",
    "Progress",
    "ProgressCallback",
    "bundled_model_bytes",
]

DOWNLOAD_PREFIX = "download:"
"""The picker's spec for "download this catalogue model" (``download:NAME``)."""
DOWNLOAD_GROUP = "Download (opens a connection)"
INSTALLED_GROUP = "Downloaded and added"


def _detail(entry: CatalogueEntry, partial: int) -> str:
    parts = [
        rough_size(entry.size_bytes),
        f"needs {rough_size(entry.ram_bytes)} of memory",
        f"tool calls {entry.tool_calls}",
        entry.licence,
    ]
    if partial:
        parts.append(f"{rough_size(partial)} already downloaded")
    return ", ".join(parts)


class ModelDownloads:
    """The catalogue models of one data folder (``DATA/models``)."""

    def __init__(self, data_dir: Path, library: ModelLibrary | None = None) -> None:
        self.library = library or ModelLibrary(data_dir)

    async def choices(self) -> list[ModelChoice]:
        """Downloaded catalogue models first, then those that can be downloaded."""
        return await asyncio.to_thread(self._choices)

    def _choices(self) -> list[ModelChoice]:
        try:
            rows = self.library.listing()
        except UserError as exc:  # a damaged model list: the picker says so, once
            return [ModelChoice("download:", "Downloaded models", INSTALLED_GROUP, False, str(exc))]
        installed = []
        offered = []
        for row in rows:
            if row.entry is not None and row.entry.kind != "chat":
                continue  # an embedding model is chosen in Settings > Knowledge
            if row.installed is not None and Path(row.installed.path).is_file():
                title = row.entry.title if row.entry is not None else row.name
                installed.append(ModelChoice(row.installed.spec, title, INSTALLED_GROUP))
            elif row.entry is not None:
                e = row.entry
                offered.append(
                    ModelChoice(
                        f"{DOWNLOAD_PREFIX}{e.name}",
                        e.title,
                        DOWNLOAD_GROUP,
                        True,
                        _detail(e, row.partial_bytes),
                    )
                )
        return [*installed, *offered]

    def entry(self, spec_or_name: str) -> CatalogueEntry:
        """The catalogue entry a ``download:NAME`` spec (or a name) stands for."""
        return self.library.entry(spec_or_name.removeprefix(DOWNLOAD_PREFIX))

    async def download(
        self, spec_or_name: str, progress: ProgressCallback | None = None
    ) -> InstalledModel:
        """Download the model (resuming an unfinished one); cancelling the task keeps the
        bytes so far for the next try."""
        return await self.library.download(spec_or_name.removeprefix(DOWNLOAD_PREFIX), progress)

    async def partial_bytes(self, spec_or_name: str) -> int:
        """Bytes of an unfinished download of the model kept on disk."""
        name = spec_or_name.removeprefix(DOWNLOAD_PREFIX)
        rows = await asyncio.to_thread(self.library.listing)
        return next((r.partial_bytes for r in rows if r.name == name), 0)


def bundled_model_bytes() -> int | None:
    """The size of the bundled model's file; None when it is not installed."""
    from app.providers.bundled import bundled_model_path

    path = bundled_model_path()
    return path.stat().st_size if path is not None else None
