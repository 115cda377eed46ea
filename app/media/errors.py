"""What goes wrong while attaching a file, said in one sentence that names the file."""

from __future__ import annotations

from app.core.errors import ParleyError

__all__ = ["IngestError"]


class IngestError(ParleyError):
    """A file could not be attached; ``reason`` says why in words a user understands.

    ``str(error)`` is ``"<name>: <reason>"``, the line the window and the terminal show.
    """

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"{name}: {reason}")


class Cancelled(Exception):
    """Raised inside a worker thread when the ingest it serves was cancelled."""
