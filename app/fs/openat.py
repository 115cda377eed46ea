"""Opening a real path one component at a time, never following a link on the way.

A path checked by name can change before it is opened: another process may rename a folder
on the way and put a link to somewhere else in its place. Here every folder on the way is
opened with ``O_NOFOLLOW | O_DIRECTORY`` relative to the folder before it (``dir_fd``), and
the last component with ``O_NOFOLLOW``, so what is opened is what lies at that path, with no
link in it, whatever is renamed meanwhile. A link met on the way raises :class:`LinkOnTheWay`,
which callers turn into a refusal.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "DIR_FLAGS",
    "FILE_FLAGS",
    "LinkOnTheWay",
    "create_temp",
    "open_folder",
    "open_in",
    "opened_folder",
    "stat_in",
]

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
"""How each folder on the way is opened."""

FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
"""How a file is opened for reading: not through a link, and never waiting on a FIFO."""


class LinkOnTheWay(OSError):
    """A link stood where a folder or file was expected: the path changed after it was checked."""


def open_folder(real: Path) -> int:
    """Open the folder at the absolute, link-free path ``real`` and return its descriptor.

    Raises :class:`LinkOnTheWay` when a component is a link, else :class:`OSError` as
    ``os.open`` does (``ENOENT`` when a component is missing, ``ENOTDIR`` when it is a file).
    """
    fd = os.open("/", DIR_FLAGS)
    try:
        for part in real.parts[1:]:
            inner = open_in(fd, part, DIR_FLAGS)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_in(folder: int, name: str, flags: int, mode: int = 0o777) -> int:
    """``os.open(name, flags, dir_fd=folder)``, raising :class:`LinkOnTheWay` when ``name`` is
    a link (``flags`` must hold ``O_NOFOLLOW``)."""
    try:
        return os.open(name, flags, mode, dir_fd=folder)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) or (
            exc.errno == errno.ENOTDIR and _link_or_folder(folder, name)
        ):
            raise LinkOnTheWay(exc.errno, "a link stands in the way", name) from None
        raise


def _link_or_folder(folder: int, name: str) -> bool:
    """Whether ``name`` is now a link or a folder: after ``ENOTDIR`` from opening it as a
    folder without following links, it was a link then (and may have been swapped back)."""
    st = stat_in(folder, name)
    return st is not None and (stat.S_ISLNK(st.st_mode) or stat.S_ISDIR(st.st_mode))


@contextmanager
def opened_folder(real: Path) -> Iterator[int]:
    """:func:`open_folder` as a context manager that closes the descriptor."""
    fd = open_folder(real)
    try:
        yield fd
    finally:
        os.close(fd)


def stat_in(folder: int, name: str) -> os.stat_result | None:
    """The status of ``name`` in the opened ``folder`` itself (a link is not followed), or
    ``None`` when there is nothing by that name."""
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None


def create_temp(folder: int, name: str) -> tuple[int, str]:
    """Create a new, empty, private file beside ``name`` in the opened ``folder``; return its
    descriptor (open for writing) and its name there."""
    for _ in range(100):
        temp = f".{name}.{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            return open_in(folder, temp, flags, stat.S_IRUSR | stat.S_IWUSR), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file", name)
