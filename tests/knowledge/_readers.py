"""Readers the reader's child runs in the tests: the real one, except for files named to
crash the child or keep it busy forever."""

from __future__ import annotations

import os
import time

from app.knowledge import Passage
from app.services.knowledge.reader import read_passages


def troublesome(data: bytes, name: str, max_text_chars: int) -> list[Passage]:
    """Crash on ``crash.md`` (as a reader's native code would), hang on ``hang.md``, read the
    rest for real."""
    if name == "crash.md":
        os.abort()
    if name == "hang.md":
        time.sleep(3600)
    return read_passages(data, name, max_text_chars)
