"""Reading file modes in the tests, under the umask most systems give users (022), so that
a file left readable by others shows as such whatever umask the tests run under."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def mode(path: Path) -> str:
    """``path``'s permission bits as ``0o...``."""
    return oct(stat.S_IMODE(path.stat().st_mode))


@contextmanager
def usual_umask() -> Iterator[None]:
    """Run the test under umask 022 (files 0644, folders 0755 unless made private)."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)
