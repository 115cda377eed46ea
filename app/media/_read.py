"""Reading an attached file safely: only regular files, never blocking, never over the limit."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from app.media._util import Job, human_size
from app.media.errors import IngestError

_CHUNK = 4 * 1024 * 1024
_SPARSE_MIN = 16 * 1024 * 1024
"""Files this big that have almost no blocks on disk are refused as sparse."""


def check_size(name: str, size: int, max_bytes: int) -> None:
    """Refuse an empty file or one over ``max_bytes``."""
    if size == 0:
        raise IngestError(name, "the file is empty (0 bytes)")
    if size > max_bytes:
        raise IngestError(
            name,
            f"the file is {human_size(size)}, over the {human_size(max_bytes)} limit for "
            "attachments",
        )


def _kind_of(mode: int) -> str | None:
    """Why a non-regular file cannot be attached, or ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "it is a folder, not a file; attach the files inside it instead"
    if stat.S_ISFIFO(mode):
        return "it is a named pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "it is a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "it is a device, not a regular file"
    return "it is not a regular file"


def read_file(path: Path, max_bytes: int, job: Job) -> bytes:
    """Read the whole of ``path`` in chunks, reporting progress and honouring cancellation.

    Raises :class:`IngestError` for anything but a readable, non-empty regular file within
    ``max_bytes``. A FIFO is refused from its ``stat`` and, should one appear in its place, the
    file is opened non-blocking, so reading never hangs.
    """
    name = path.name or str(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            target = os.readlink(path)
            raise IngestError(name, f"it is a link to {target}, which does not exist") from None
        raise IngestError(name, "there is no such file") from None
    except PermissionError:
        raise IngestError(name, "it cannot be read: permission denied") from None
    except OSError as exc:
        raise IngestError(name, f"it cannot be read ({exc.strerror or exc})") from None
    why = _kind_of(st.st_mode)
    if why:
        raise IngestError(name, why)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except PermissionError:
        raise IngestError(name, "it cannot be read: permission denied") from None
    except OSError as exc:
        raise IngestError(name, f"it cannot be read ({exc.strerror or exc})") from None
    try:
        return read_descriptor(fd, name, max_bytes, job)
    finally:
        os.close(fd)


def read_descriptor(fd: int, name: str, max_bytes: int, job: Job) -> bytes:
    """Read the whole of the opened file ``fd`` from its start (its offset is left alone), as
    :func:`read_file` does, checking the opened file itself: a regular, non-empty, non-sparse
    file within ``max_bytes``. ``name`` is what messages call it."""
    st = os.fstat(fd)
    why = _kind_of(st.st_mode)
    if why:
        raise IngestError(name, why)
    check_size(name, st.st_size, max_bytes)
    on_disk = getattr(st, "st_blocks", None)
    if on_disk is not None and st.st_size >= _SPARSE_MIN and on_disk * 512 < st.st_size // 16:
        raise IngestError(
            name,
            f"it is a sparse file: it claims {human_size(st.st_size)} but holds only "
            f"{human_size(on_disk * 512)} on disk",
        )
    return _read_all(fd, name, st.st_size, max_bytes, job)


def _read_all(fd: int, name: str, expected: int, max_bytes: int, job: Job) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        job.progress(0.3 * total / max(expected, 1), "reading")
        try:
            chunk = os.pread(fd, _CHUNK, total)
        except BlockingIOError:
            raise IngestError(name, "it is not a regular file") from None
        except OSError as exc:
            if exc.errno == errno.EISDIR:
                raise IngestError(name, "it is a folder, not a file") from None
            raise IngestError(name, f"it could not be read ({exc.strerror or exc})") from None
        if not chunk:
            break
        total += len(chunk)
        if total > max_bytes:  # it grew while being read
            check_size(name, total, max_bytes)
        parts.append(chunk)
    data = b"".join(parts)
    check_size(name, len(data), max_bytes)
    return data
