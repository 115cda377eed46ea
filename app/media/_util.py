"""Small helpers shared by the extractors: sizes in words, excerpts, cancel checks."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from app.media.errors import Cancelled
from app.text.sizes import human_size

__all__ = ["Job", "ProgressFn", "excerpt_of", "human_size"]

ProgressFn = Callable[[float, str], None]
"""Reports a fraction done (0..1) of one file and what is being done."""


def excerpt_of(text: str, limit: int = 300) -> str:
    """The start of ``text`` with its whitespace collapsed, cut at a word near ``limit``."""
    head = text[: limit * 8]  # enough for the excerpt unless it is mostly whitespace
    flat = " ".join(head.split())
    if len(flat) <= limit and len(head) < len(text):
        flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut) + "…"


@dataclass
class Job:
    """One file being worked on in a worker thread: its cancel flag and progress reporter."""

    cancel_event: threading.Event = field(default_factory=threading.Event)
    report: ProgressFn | None = None

    def check(self) -> None:
        """Stop here (raise :class:`Cancelled`) when the ingest was cancelled."""
        if self.cancel_event.is_set():
            raise Cancelled

    def progress(self, fraction: float, stage: str) -> None:
        """Check for cancellation, then report ``fraction`` of the file done."""
        self.check()
        if self.report is not None:
            self.report(min(1.0, max(0.0, fraction)), stage)
