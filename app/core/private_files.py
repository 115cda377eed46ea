"""Folders and files only their owner may read: Parley's database, logs and server logs.

A folder is made ``0700`` and a file ``0600`` when they are created; :func:`tighten` narrows
an existing one that others could read (one left by an older version, say). On a system
without POSIX modes the calls still create and open; the modes are then the system's.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
from pathlib import Path

__all__ = ["FILE_MODE", "FOLDER_MODE", "open_private", "private_folder", "tighten"]

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def tighten(path: Path) -> None:
    """Take every permission of group and others off ``path`` if it has any (best effort:
    a file the user does not own keeps its mode)."""
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(path.stat(follow_symlinks=False).st_mode)
        if mode & 0o077 and not path.is_symlink():
            path.chmod(mode & 0o700)


def private_folder(path: Path, *, tighten_existing: bool = True) -> Path:
    """Create ``path`` if needed as ``0700``, and so every missing folder above it.

    An existing folder is narrowed to its owner too unless ``tighten_existing`` is false (a
    folder the user chose for their data may be meant to be shared). Raises ``OSError``.
    """
    path = Path(path)
    chain = [path]
    for parent in path.parents:
        if parent.exists():
            break
        chain.append(parent)
    for folder in reversed(chain):
        try:
            folder.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            if folder != path:
                continue
            if not path.is_dir():
                raise
            if tighten_existing:
                tighten(path)
            return path
    return path


def open_private(path: Path, *, encoding: str = "utf-8") -> io.TextIOWrapper:
    """Open ``path`` for appending text, creating it as ``0600`` or narrowing an existing
    file to its owner first. Raises ``OSError``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
    try:
        mode = stat.S_IMODE(os.fstat(fd).st_mode)
        if mode & 0o077 and hasattr(os, "fchmod"):
            with contextlib.suppress(OSError):
                os.fchmod(fd, mode & 0o700)
        return os.fdopen(fd, "a", encoding=encoding)
    except BaseException:
        os.close(fd)
        raise
