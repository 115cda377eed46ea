"""Files handed to the ingest already opened: read through their descriptor, never by name."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import BinaryIO

from app.media.errors import Cancelled

__all__ = ["Lease", "OpenedFile"]


@dataclass(frozen=True)
class OpenedFile:
    """A file the caller has opened (say, inside a folder it checked) and the name to show.

    The ingest reads it through its descriptor from the start, leaves its offset alone and
    never opens anything by ``name``. The caller keeps it open until the ingest returns, then
    closes it.
    """

    file: BinaryIO
    name: str


class Lease:
    """A copy of an opened file's descriptor for one worker thread, closed exactly once.

    The thread :meth:`take` s it and :meth:`close` s it when done; if the thread never starts
    (its task was cancelled while queued), :meth:`abandon` closes it. So the caller may close
    its own file whenever it likes, and no thread ever reads a descriptor number that has been
    closed and reused.
    """

    def __init__(self, opened: OpenedFile) -> None:
        self.name = opened.name
        self._fd: int | None = os.dup(opened.file.fileno())
        self._taken = False
        self._lock = threading.Lock()

    def take(self) -> int:
        """The descriptor, for the worker thread; :class:`Cancelled` once abandoned."""
        with self._lock:
            if self._fd is None:
                raise Cancelled
            self._taken = True
            return self._fd

    def close(self) -> None:
        """Close the descriptor (the worker thread, when it is done with it)."""
        with self._lock:
            fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def abandon(self) -> None:
        """Close the descriptor unless a worker thread has taken it (it closes it then)."""
        with self._lock:
            if self._taken:
                return
            fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
