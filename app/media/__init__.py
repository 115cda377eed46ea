"""Files to content blocks: images, PDFs, text, Word documents, audio, video and the rest.

Qt-free: the window and the terminal both attach files through :class:`Ingestor`. Each name
loads its module when first asked for, so importing one (an error, :class:`Job`) does not load
the readers: the window starts without them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.media._util import Job
    from app.media.clipboard import sources_from_clipboard
    from app.media.errors import IngestError
    from app.media.ingest import (
        BytesSource,
        IngestLimits,
        Ingestor,
        IngestProgress,
        IngestResult,
        OpenedFile,
        Source,
        StoreMedia,
        VideoFrames,
    )

__all__ = [
    "BytesSource",
    "IngestError",
    "IngestLimits",
    "IngestProgress",
    "IngestResult",
    "Ingestor",
    "Job",
    "OpenedFile",
    "Source",
    "StoreMedia",
    "VideoFrames",
    "page_texts",
    "sources_from_clipboard",
]


_HOMES = {
    "Job": "app.media._util",
    "sources_from_clipboard": "app.media.clipboard",
    "IngestError": "app.media.errors",
    **dict.fromkeys(
        (
            "BytesSource",
            "IngestLimits",
            "Ingestor",
            "IngestProgress",
            "IngestResult",
            "OpenedFile",
            "Source",
            "StoreMedia",
            "VideoFrames",
        ),
        "app.media.ingest",
    ),
}


def __getattr__(name: str) -> Any:
    """The package's name ``name``, loaded from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def page_texts(text: str | None) -> list[str]:
    """A PDF document block's text split back into its pages."""
    return text.split("\f") if text else []
