"""Opening the database file safely, and running writes in one transaction."""

from __future__ import annotations

import contextlib
import datetime
import functools
import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import sqlite_utils

from app.core.private_files import FILE_MODE, private_folder, tighten
from app.store import _search_index
from app.store._own_schema import Stranger, describe_strangers, remove_strangers, strangers
from app.store._schema import check_version, migrate, own_schema
from app.store.backups import backup_database, backup_name, backups_folder
from app.store.errors import (
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreNotWritableError,
    translate_sqlite_error,
)
from app.store.health import connect_read_only

__all__ = [
    "close_database",
    "flush_index",
    "open_database",
    "open_read_only_database",
    "read_only_reason",
    "removed_strangers",
    "translated",
    "write_tx",
]

log = logging.getLogger(__name__)

_HEADER = b"SQLite format 3\x00"
_TEXT = functools.partial(str, encoding="utf-8", errors="replace")
_KEPT = frozenset({"table", "index"})
"""Kinds of Parley's own object that hold rows: one whose SQL differs is damage, not to be
dropped and made again (a trigger or a view of Parley's own is put back instead)."""


@contextlib.contextmanager
def translated(path: Path) -> Iterator[None]:
    """Turn an environment failure of SQLite (corrupt file, full disk, ...) into the
    matching :class:`StoreError` that names ``path``."""
    try:
        yield
    except StoreError as exc:
        if exc.path is None:
            exc.path = path
        raise
    except sqlite3.Error as exc:
        err = translate_sqlite_error(exc, path)
        if err is None:
            raise
        raise err from exc
    except UnicodeDecodeError as exc:  # SQLite's message quoted damaged bytes of the schema
        raise StoreCorruptError(
            f"The thread database {path} is damaged or is not a Parley database (its "
            f"schema holds bytes that are not text). Nothing was changed in it. Move the file "
            f"away (Parley will start a new one) or choose another data directory with "
            f"--data-dir or PARLEY_DATA_DIR.",
            path,
        ) from exc


@contextlib.contextmanager
def write_tx(db: sqlite_utils.Database) -> Iterator[sqlite3.Connection]:
    """Run the block in one ``BEGIN IMMEDIATE`` transaction: all of it is saved, or none."""
    reason = read_only_reason(db)
    if reason is not None:
        raise type(reason)(str(reason), reason.path)
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _check_location(path: Path) -> None:
    folder = path.parent
    try:
        private_folder(folder, tighten_existing=False)
    except OSError as exc:
        raise StoreNotWritableError(
            f"Parley cannot create its data directory {folder} ({exc.strerror}). Choose a "
            f"writable data directory with --data-dir or PARLEY_DATA_DIR.",
            path,
        ) from exc
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreNotWritableError(
            f"The data directory {folder} is read-only, so Parley cannot save threads in "
            f"{path}. Make the folder writable or choose another one with --data-dir or "
            f"PARLEY_DATA_DIR.",
            path,
        )
    if path.is_dir():
        raise StoreCorruptError(
            f"{path} is a directory, not a thread database. Move it away or choose another "
            f"data directory with --data-dir or PARLEY_DATA_DIR.",
            path,
        )
    if path.exists():
        if not os.access(path, os.R_OK | os.W_OK):
            raise StoreNotWritableError(
                f"Parley cannot read and write the thread database {path}. Fix its "
                f"permissions or choose another data directory with --data-dir or "
                f"PARLEY_DATA_DIR.",
                path,
            )
        with path.open("rb") as fh:
            head = fh.read(len(_HEADER))
        if head and head != _HEADER:
            raise StoreCorruptError(
                f"{path} is not an SQLite database (it may be damaged or another kind of "
                f"file). Nothing was changed in it. Move it away (Parley will start a new "
                f"one) or choose another data directory with --data-dir or PARLEY_DATA_DIR.",
                path,
            )


def _make_private(path: Path) -> None:
    """Create the database file as ``0600`` if it is missing (SQLite gives its WAL and
    shared-memory files the same mode) and narrow existing ones to their owner."""
    if not path.exists():
        with contextlib.suppress(OSError):  # SQLite then says what is wrong
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", f"{path.name}-journal"):
        tighten(path.with_name(name))


def read_only_reason(db: sqlite_utils.Database) -> StoreError | None:
    """Why ``db`` was opened for reading only, or ``None`` when it can be written."""
    reason = getattr(db, "_parley_read_only", None)
    return reason if isinstance(reason, StoreError) else None


def open_database(
    path: Path, *, max_size_bytes: int | None = None, reading_is_enough: bool = False
) -> sqlite_utils.Database:
    """Open (creating if needed) and migrate the database at ``path``.

    The connection belongs to the calling thread. WAL journal, ``synchronous=NORMAL`` (a
    power cut may lose the last commits but never corrupts), foreign keys on. With
    ``max_size_bytes`` the file never grows beyond that size (writes fail with
    :class:`app.store.errors.StoreFullError`). With ``reading_is_enough`` a file that cannot
    be written (read-only folder or disk, full disk) is opened for reading; every write then
    raises the error that made it so.
    """
    path = Path(path).absolute()
    try:
        return _open_writable(path, max_size_bytes)
    except (StoreNotWritableError, StoreFullError) as why:
        if not reading_is_enough or not path.is_file():
            raise
        db = _open_readable(path, why)
        db._parley_read_only = why  # type: ignore[attr-defined]
        return db


def _open_readable(path: Path, why: StoreError) -> sqlite_utils.Database:
    """Open an existing database without writing anything, not even the WAL index."""
    conn: sqlite3.Connection | None = None
    wal = path.with_name(path.name + "-wal")
    # Without a WAL holding frames nobody can be writing (they could not add any either),
    # so the file can be read as it is; with one, SQLite must read through it.
    pending = wal.exists() and wal.stat().st_size > 0
    modes = ["mode=ro"] if pending else ["mode=ro", "immutable=1"]
    for mode in modes:
        try:
            with translated(path):
                conn = sqlite3.connect(
                    f"{path.as_uri()}?{mode}", uri=True, timeout=10.0, isolation_level=None
                )
                conn.text_factory = _TEXT
                db = sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)
                check_version(db, path)
                conn.execute("PRAGMA query_only=ON")
                return db
        except (StoreNotWritableError, StoreFullError):
            if conn is not None:
                conn.close()
                conn = None
            if mode == modes[-1]:
                raise why from None
    raise why


def _open_writable(path: Path, max_size_bytes: int | None) -> sqlite_utils.Database:
    _check_location(path)
    _make_private(path)
    conn: sqlite3.Connection | None = None
    try:
        with translated(path):
            conn = sqlite3.connect(path, timeout=10.0, isolation_level=None)
            # Bytes that are not UTF-8 (disk damage, a hand edit) read as U+FFFD instead of
            # failing the whole query; the rows holding them are found and shown as damaged.
            conn.text_factory = _TEXT
            db = sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)
            # Validate before the first write so a foreign or newer file is left untouched.
            version = check_version(db, path)
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreNotWritableError(
                    f"Parley could not switch the thread database {path} to WAL mode (got "
                    f"{mode!r}); the folder may be read-only or on a network drive. Choose "
                    f"a local, writable data directory with --data-dir or PARLEY_DATA_DIR.",
                    path,
                )
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA cache_size=-65536")  # 64 MiB: a 10,000-message thread fits
            conn.execute("PRAGMA mmap_size=268435456")
            if max_size_bytes is not None:
                page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
                pages = max(1, max_size_bytes // page_size)
                conn.execute(f"PRAGMA max_page_count = {pages}")
            _remove_strangers(db, path, version)
            _migrate_with_backup(db, path)
            flush_index(db)
            return db
    except BaseException:
        if conn is not None:
            conn.close()
        raise


def _remove_strangers(db: sqlite_utils.Database, path: Path, version: int) -> None:
    """Drop the triggers and views Parley does not make (put there by a hand edit, another
    program or a file handed over) before anything is written, so none of them ever runs;
    :func:`removed_strangers` says what went. A table or index of Parley's own whose SQL
    differs (damaged bytes in the schema) makes the file refused as damaged before then."""
    expected = own_schema(version)
    changed = [s for s in strangers(db.conn, expected) if s.changed and s.type in _KEPT]
    if changed:
        raise StoreCorruptError(
            f"The thread database {path} is damaged: {describe_strangers(changed)} is not as "
            f"Parley makes it. Nothing was changed in it. Move the file away (Parley will "
            f"start a new one), restore a backup with parley restore, or choose another data "
            f"directory with --data-dir or PARLEY_DATA_DIR.",
            path,
        )
    removed = remove_strangers(db.conn, expected)
    if removed:
        log.warning(
            "removed from the thread database %s what Parley does not make: %s",
            path,
            describe_strangers(removed, limit=10),
        )
    db._parley_removed = removed  # type: ignore[attr-defined]


def removed_strangers(db: sqlite_utils.Database) -> list[Stranger]:
    """The triggers and views that were removed from ``db`` when it was opened."""
    removed = getattr(db, "_parley_removed", None)
    return list(removed) if isinstance(removed, list) else []


def _migrate_with_backup(db: sqlite_utils.Database, path: Path) -> None:
    """Migrate ``db``, first writing a backup of an existing older file into ``backups/``.

    No backup, no migration: a file that cannot be copied is left as it is. A migration that
    fails changes nothing (it is one transaction) and the error names the copy.
    """
    copy: list[Path] = []

    def backup_first(version: int) -> None:
        target = backups_folder(path) / backup_name(
            path, version, "migration", datetime.datetime.now()
        )
        try:
            copy.append(backup_database(db.conn, target))
        except StoreError as exc:
            raise type(exc)(
                f"Parley needs to update the thread database {path} to a new format and "
                f"first keeps a copy of it, but could not: {exc} Nothing was changed.",
                path,
            ) from None

    try:
        migrate(db, path, before=backup_first)
    except StoreError:
        raise
    except Exception as exc:
        where = f"; a copy taken just before is {copy[0]}" if copy else ""
        raise StoreError(
            f"Parley could not update the thread database {path} to the new format ({exc}). "
            f"Nothing in it was changed{where}.",
            path,
        ) from exc


def open_read_only_database(path: Path) -> sqlite_utils.Database:
    """Open the database at ``path`` for reading only: no migration, no pragma that writes.

    For looking into a copy of a damaged file; every write through it fails.
    """
    path = Path(path).absolute()
    if not path.is_file():
        raise StoreCorruptError(f"There is no thread database at {path} to open.", path)
    conn: sqlite3.Connection | None = None
    try:
        with translated(path):
            conn = connect_read_only(path)
            db = sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)
            check_version(db, path)
            db._parley_read_only = StoreNotWritableError(  # type: ignore[attr-defined]
                f"{path} is open for reading only; nothing can be saved to it.", path
            )
            return db
    except BaseException:
        if conn is not None:
            conn.close()
        raise


def flush_index(db: sqlite_utils.Database) -> bool:
    """Bring the search index up to date if steps are queued, and say whether it is; best
    effort: when the disk is full or the file read-only the queue stays for later and
    reading goes on."""
    if not _search_index.pending(db.conn):
        return True
    if read_only_reason(db) is not None:
        return False
    try:
        with write_tx(db) as conn:
            _search_index.flush(conn)
    except sqlite3.OperationalError:
        return False
    return True


def close_database(db: sqlite_utils.Database) -> None:
    """Bring the search index up to date and close the connection."""
    with contextlib.suppress(sqlite3.Error):
        flush_index(db)
        db.conn.execute("PRAGMA optimize")
    db.conn.close()
