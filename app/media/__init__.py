"""Files to content blocks: images, PDFs, text, Word documents, audio, video and the rest.

Qt-free: the window and the terminal both attach files through :class:`Ingestor`.
"""

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


def page_texts(text: str | None) -> list[str]:
    """A PDF document block's text split back into its pages."""
    return text.split("\f") if text else []
