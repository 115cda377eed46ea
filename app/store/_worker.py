"""One dedicated thread owns the SQLite connection; every job runs there, in order."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from app.store import _lease
from app.store._db import (
    close_database,
    open_database,
    open_read_only_database,
    read_only_reason,
    removed_strangers,
    translated,
)
from app.store._one_thread import OneThread
from app.store._own_schema import Stranger
from app.store.errors import StoreClosedError, StoreError

__all__ = ["Worker"]

T = TypeVar("T")


class Worker(OneThread):
    """Runs jobs ``fn(db, *args)`` on the thread that opened the database.

    The connection is created on that thread (sqlite3's ``check_same_thread`` stays on, so a
    job on any other thread would fail loudly). Async callers await the job without blocking
    their event loop; SQLite errors come back as :class:`app.store.errors.StoreError`.
    """

    def __init__(
        self,
        path: Path,
        *,
        max_size_bytes: int | None = None,
        read_only: bool = False,
        reading_is_enough: bool = False,
    ) -> None:
        self.path = path
        self.owner = _lease.new_owner()
        """This store's token on the threads it is answering (see :mod:`app.store._lease`)."""
        self._opened_read_only = read_only
        super().__init__()
        self._what = "the thread database"
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-store")
        self._db: sqlite_utils.Database | None = None
        self.read_only: StoreError | None = None
        self.removed: list[Stranger] = []
        """The triggers and views Parley does not make, removed when the file was opened."""
        try:
            self._db = self._open(max_size_bytes, reading_is_enough)
            self.read_only = read_only_reason(self._db)
            self.removed = removed_strangers(self._db)
        except BaseException:
            self._executor.shutdown(wait=True)
            self._closed = True
            _lease.release_owner(self.owner)
            raise

    def _open(self, max_size_bytes: int | None, reading_is_enough: bool) -> sqlite_utils.Database:
        """Open the connection on the store thread: read-only when asked, else for writing
        (or for reading alone, when that is enough and writing cannot be had)."""
        if self._opened_read_only:
            return self._executor.submit(open_read_only_database, self.path).result()
        return self._executor.submit(
            open_database,
            self.path,
            max_size_bytes=max_size_bytes,
            reading_is_enough=reading_is_enough,
        ).result()

    def _run(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        db = self._db
        if db is None:
            raise StoreClosedError(f"the thread database {self.path} is closed", self.path)
        with translated(self.path):
            return fn(db, *args)

    def _after_close(self) -> None:
        _lease.release_owner(self.owner)

    def _close_connection(self) -> None:
        db, self._db = self._db, None
        if db is not None and (self._opened_read_only or self.read_only):
            db.conn.close()
        elif db is not None:
            close_database(db)
