"""Readers the reader's child runs in the tests: the real one, except for files named to
crash the child, keep it busy forever, ask for more memory than it may have, or look a name
up."""

from __future__ import annotations

import os
import socket
import time

from app.knowledge import Passage
from app.media.errors import IngestError
from app.services.knowledge.reader import read_passages


def troublesome(data: bytes, name: str, max_text_chars: int) -> list[Passage]:
    """Crash on ``crash.md`` (as a reader's native code would), hang on ``hang.md``, ask for
    2 GiB on ``greedy.md``, look ``example.com`` up on ``lookup.md`` (its outcome is the
    reason the file is refused), read the rest for real."""
    if name == "greedy.md":
        hoard = bytearray(2 << 30)
        return [Passage(str(len(hoard)), 0, 1)]
    if name == "lookup.md":
        try:
            socket.getaddrinfo("example.com", 443)
        except OSError as exc:
            raise IngestError(name, f"{type(exc).__name__}: {exc}") from None
        raise IngestError(name, "the lookup got through")
    if name == "crash.md":
        os.abort()
    if name == "hang.md":
        time.sleep(3600)
    return read_passages(data, name, max_text_chars)
