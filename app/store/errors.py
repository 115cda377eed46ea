"""Errors the store raises: each names the database file and says what to do.

They are environment errors (the file, the disk, the permissions), not bugs: the UI shows the
message as it is. Every one leaves the data that was already in the file untouched.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from app.core.errors import ParleyError

__all__ = [
    "StoreClosedError",
    "StoreCorruptError",
    "StoreError",
    "StoreFullError",
    "StoreLockedError",
    "StoreNotWritableError",
    "StoreSchemaTooNewError",
    "disk_is_full",
    "translate_sqlite_error",
]


class StoreError(ParleyError):
    """The thread database could not be used; the message names the file and the remedy."""

    def __init__(self, message: str, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.path = Path(path) if path is not None else None


class StoreCorruptError(StoreError):
    """The file is not a Parley database, or SQLite found it damaged."""


class StoreSchemaTooNewError(StoreError):
    """The file was written by a newer Parley whose schema this version does not know."""


class StoreNotWritableError(StoreError):
    """The data directory or the database file cannot be written (permissions, read-only)."""


class StoreFullError(StoreError):
    """The disk (or the database's size limit) is full; the last change was not saved."""


class StoreLockedError(StoreError):
    """Another program kept the database locked for too long."""


class StoreClosedError(StoreError):
    """The store was used after it was closed."""


_CORRUPT = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}
_NOT_WRITABLE = {"SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH"}
_LOCKED = {"SQLITE_BUSY", "SQLITE_LOCKED"}


def _code_name(exc: sqlite3.Error) -> str:
    name = getattr(exc, "sqlite_errorname", None) or ""
    # Extended codes such as SQLITE_READONLY_DBMOVED share their primary code's prefix.
    for prefix in (*_CORRUPT, *_NOT_WRITABLE, *_LOCKED, "SQLITE_FULL", "SQLITE_IOERR"):
        if name == prefix or name.startswith(prefix + "_"):
            return prefix
    text = str(exc).lower()
    if "not a database" in text or "malformed" in text:
        return "SQLITE_CORRUPT"
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return "SQLITE_READONLY"
    if "disk is full" in text or "database or disk is full" in text:
        return "SQLITE_FULL"
    if "locked" in text:
        return "SQLITE_BUSY"
    return name


_FULL_BELOW = 256 * 1024
"""Less free space than this (bytes) counts as a full disk: SQLite needs a few pages."""


def disk_is_full(path: Path) -> bool:
    """Whether the disk holding ``path`` has (almost) no space left for this user."""
    folder = path if path.is_dir() else path.parent
    try:
        return shutil.disk_usage(folder).free < _FULL_BELOW
    except OSError:
        return False


def translate_sqlite_error(exc: sqlite3.Error, path: Path) -> StoreError | None:
    """Return the :class:`StoreError` an environment failure of SQLite stands for, or ``None``
    when ``exc`` is a programming error that should surface as it is."""
    code = _code_name(exc)
    if code in _CORRUPT:
        return StoreCorruptError(
            f"The thread database {path} is damaged or is not a Parley database ({exc}). "
            f"Nothing was changed in it. Move the file away (Parley will start a new one) or "
            f"choose another data directory with --data-dir or PARLEY_DATA_DIR.",
            path,
        )
    if code in ("SQLITE_IOERR", "SQLITE_CANTOPEN") and disk_is_full(path):
        return StoreFullError(
            f"The disk holding the thread database {path} is full, so Parley cannot use it "
            f"({exc}); the data already in it is intact. Free some space and try again.",
            path,
        )
    if code in _NOT_WRITABLE:
        return StoreNotWritableError(
            f"Parley cannot write the thread database {path} ({exc}). Check that the folder "
            f"{path.parent} exists and is writable by you, or choose another data directory "
            f"with --data-dir or PARLEY_DATA_DIR.",
            path,
        )
    if code == "SQLITE_FULL":
        return StoreFullError(
            f"The disk holding the thread database {path} is full (or the database reached its "
            f"size limit); the last change was not saved, earlier data is intact. Free some "
            f"space and try again.",
            path,
        )
    if code in _LOCKED:
        return StoreLockedError(
            f"The thread database {path} is locked by another program ({exc}). Close other "
            f"Parley windows using the same data directory and try again.",
            path,
        )
    if code == "SQLITE_IOERR":
        return StoreNotWritableError(
            f"Reading or writing the thread database {path} failed ({exc}). Check the disk "
            f"and the folder {path.parent}, then try again.",
            path,
        )
    return None
