"""Backups of the thread database: consistent copies, their list, rotation and restore.

A backup is written with SQLite's online backup API from a read connection, so it is a
consistent snapshot even while another connection or process is writing turns (never a file
copy of a live WAL database). It is written to a temporary name, checked with SQLite's
``quick_check``, made a single self-contained file (no write-ahead log) and only then given
its name, so a half-written backup never looks like a real one. Backups are private files
(0600) in ``backups/`` beside the database and hold exactly what the database holds: no
secret ever enters either.

Names say what a backup is: ``parley-v5-20261201-213000-daily.db`` (schema version, local
date and time, kind). Kinds: ``daily`` (taken while Parley runs, rotated), ``migration``
(taken before a schema migration), ``manual`` (``parley backup``) and ``replaced`` (the
database a restore put aside, named for when it was replaced); only daily backups are
rotated away.

A restore takes only a backup Parley itself could have written: sound by SQLite's integrity
check, of a schema version this Parley knows, and holding exactly the tables, indexes, views
and triggers Parley's own migrations make at that version (a trigger carried in a backup
would run on the restored database's next write). Anything else is refused before the
database in place is touched.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import os
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from app.store import _schema
from app.store._own_schema import describe_strangers, strangers
from app.store.errors import StoreError, StoreLockedError, disk_is_full
from app.store.health import connect_read_only, database_files

__all__ = [
    "BACKUP_FOLDER",
    "KEEP_DAILY",
    "KEEP_WEEKLY",
    "BackupEntry",
    "BackupError",
    "BackupKind",
    "backup_database",
    "backup_name",
    "backups_folder",
    "database_in_use",
    "inspect_backup",
    "list_backups",
    "restore_backup",
    "rotate_backups",
    "to_prune",
]

BACKUP_FOLDER = "backups"
"""The folder beside the database that holds its backups."""
KEEP_DAILY = 7
"""Rotation keeps the newest daily backup of each of the last this many days with one..."""
KEEP_WEEKLY = 4
"""...and the newest of each of the last this many ISO weeks with one."""

BackupKind = Literal["daily", "migration", "manual", "replaced"]
_NAME = re.compile(
    r"^(?P<stem>.+)-v(?P<version>\d+)-(?P<date>\d{8})-(?P<time>\d{6})(?:-\d+)?"
    r"-(?P<kind>daily|migration|manual|replaced)\.db$"
)
_OLD_REPLACED = re.compile(
    r"^(?P<stem>.+)-(?P<kind>replaced)-(?P<date>\d{8})-(?P<time>\d{6})(?:-\d+)?-manual\.db$"
)
"""How a restore named the database it put aside before the name carried its version."""


class BackupError(StoreError):
    """A backup could not be written, read or restored; the message says why and what to do."""


@dataclass(frozen=True)
class BackupEntry:
    """One backup file as listed in Settings > Data and by ``parley backups``."""

    path: Path
    kind: BackupKind
    taken: datetime.datetime
    """When it was taken (local time, from its name)."""
    schema_version: int | None
    size_bytes: int
    thread_count: int | None
    """Threads in it; ``None`` when it cannot be read."""
    damaged: str | None
    """What SQLite's integrity check found wrong, or ``None`` when it is sound."""
    refused: str | None = None
    """Why a sound file is not restored, as the end of a sentence beginning "The backup
    FILE" (made by a newer Parley, holds a trigger Parley does not make); ``None`` when it
    may be restored."""

    @property
    def healthy(self) -> bool:
        """Whether it passed SQLite's integrity check."""
        return self.damaged is None

    @property
    def restorable(self) -> bool:
        """Whether it may be restored: sound, and nothing in it Parley does not make."""
        return self.damaged is None and self.refused is None


def backups_folder(database: Path) -> Path:
    """The folder holding the backups of ``database``."""
    return Path(database).absolute().parent / BACKUP_FOLDER


def backup_name(
    database: Path,
    version: int,
    kind: BackupKind,
    now: datetime.datetime,
) -> str:
    """The file name of a backup of ``database`` at schema ``version`` taken at ``now``."""
    return f"{Path(database).stem}-v{version}-{now:%Y%m%d-%H%M%S}-{kind}.db"


def _private_folder(folder: Path) -> None:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(
            f"Parley cannot create the backup folder {folder} ({exc.strerror}). Make the data "
            f"folder writable, then try again.",
            folder,
        ) from None
    with contextlib.suppress(OSError):  # a folder made by someone else: keep it private
        if folder.stat().st_mode & 0o077:
            os.chmod(folder, 0o700)


def _write_failure(exc: BaseException, target: Path) -> BackupError:
    full = getattr(exc, "errno", None) == errno.ENOSPC or "full" in str(exc).lower()
    if full or disk_is_full(target.parent):
        return BackupError(
            f"The disk is full, so the backup {target.name} could not be written in "
            f"{target.parent}. Free some space, then try again.",
            target,
        )
    reason = getattr(exc, "strerror", None) or str(exc)
    return BackupError(
        f"The backup {target.name} could not be written in {target.parent} ({reason}). Make "
        f"the folder writable or free some space, then try again.",
        target,
    )


def _unique(target: Path) -> Path:
    if not target.exists():
        return target
    n = 2
    stem = target.name.rsplit("-", 1)
    while True:
        candidate = target.with_name(f"{stem[0]}-{n}-{stem[1]}")
        if not candidate.exists():
            return candidate
        n += 1


def _schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def backup_database(
    source: Path | sqlite3.Connection,
    target: Path,
) -> Path:
    """Write a consistent copy of the database ``source`` (a file, or an open connection) to
    ``target`` and return the path written (``target``, or a numbered name beside it when
    that exists). The copy is checked and private (0600); on any failure nothing is left at
    ``target`` and :class:`BackupError` says why in one sentence."""
    target = _unique(Path(target).absolute())
    _private_folder(target.parent)
    partial = target.with_name(f".{target.name}.partial")
    own = not isinstance(source, sqlite3.Connection)
    src: sqlite3.Connection | None = source if isinstance(source, sqlite3.Connection) else None
    dst: sqlite3.Connection | None = None
    try:
        try:
            if src is None:
                src = connect_read_only(Path(source))  # type: ignore[arg-type]
            for stale in database_files(partial):
                stale.unlink(missing_ok=True)
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.close(fd)
            dst = sqlite3.connect(partial, isolation_level=None)
            # One step (pages=-1): one read transaction, so the copy is one snapshot even
            # while other connections keep writing.
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # a single self-contained file
            problem = _quick_check(dst)
            dst.close()
            dst = None
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc).lower() or "busy" in str(exc).lower():
                raise StoreLockedError(
                    "The thread database stayed locked by another program, so no backup was "
                    "taken. Try again in a moment.",
                    target,
                ) from None
            raise _write_failure(exc, target) from None
        except (OSError, sqlite3.Error) as exc:
            raise _write_failure(exc, target) from None
        if problem is not None:
            raise BackupError(
                f"The backup {target.name} failed SQLite's check ({problem}), so it was not "
                f"kept. Run `parley doctor` to check the thread database.",
                target,
            )
        try:
            with open(partial, "rb+") as fh:
                os.fsync(fh.fileno())
            os.replace(partial, target)
        except OSError as exc:
            raise _write_failure(exc, target) from None
        return target
    finally:
        if dst is not None:
            dst.close()
        if own and src is not None:
            src.close()
        for leftover in database_files(partial):
            with contextlib.suppress(OSError):
                leftover.unlink()


def _quick_check(conn: sqlite3.Connection) -> str | None:
    rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
    return None if rows == ["ok"] else _first_problem(rows)


def _first_problem(rows: list[str]) -> str:
    """SQLite's first complaint, on one line, and how many more there are."""
    lines = [
        line for row in rows for line in row.splitlines() if line and not line.startswith("***")
    ]
    if not lines:
        return "unknown damage"
    more = f" and {len(lines) - 1} more problems" if len(lines) > 1 else ""
    return f"{lines[0]}{more}"


def _check(path: Path) -> tuple[int | None, int | None, str | None, str | None]:
    """Schema version, thread count, damage and why it is not restored (see
    :attr:`BackupEntry.refused`) of the SQLite file ``path``, read-only: nothing in it runs."""
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as exc:
        return None, None, f"cannot open: {exc}", None
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check(5)")]
        if rows != ["ok"]:
            return None, None, _first_problem(rows), None
        version = _schema_version(conn)
        refused = _refusal(conn, version)
        if refused is not None:
            return version, None, None, refused
        return version, int(conn.execute("SELECT count(*) FROM threads").fetchone()[0]), None, None
    except sqlite3.Error as exc:
        return None, None, str(exc), None
    finally:
        conn.close()


def _refusal(conn: sqlite3.Connection, version: int) -> str | None:
    """Why the sound database ``conn`` is not to be restored, or ``None``."""
    known = _schema.SCHEMA_VERSION
    if int(conn.execute("PRAGMA application_id").fetchone()[0]) not in (0, _schema.APPLICATION_ID):
        return "is the database of another program, not a Parley backup"
    if version > known:
        return (
            f"was made by a newer Parley (schema {version}, this one knows up to {known}); "
            f"update Parley to restore it"
        )
    found = strangers(conn, _schema.own_schema(version))
    if not found:
        return None
    if version == 0:
        return "is not a Parley backup (it holds no Parley schema)"
    return f"holds {describe_strangers(found)} that Parley does not make"


def inspect_backup(path: Path) -> BackupEntry | None:
    """What the backup at ``path`` is (``None`` when its name is not a backup's)."""
    path = Path(path).absolute()
    match = _NAME.match(path.name) or _OLD_REPLACED.match(path.name)
    if match is None:
        return None
    taken = datetime.datetime.strptime(match["date"] + match["time"], "%Y%m%d%H%M%S")
    version, threads, damaged, refused = _check(path)
    kind: BackupKind = match["kind"]  # type: ignore[assignment]
    return BackupEntry(path, kind, taken, version, _size(path), threads, damaged, refused)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def list_backups(folder: Path) -> list[BackupEntry]:
    """The backups in ``folder``, newest first (each checked with SQLite's integrity check)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    entries = [e for p in folder.iterdir() if p.is_file() and (e := inspect_backup(p))]
    return sorted(entries, key=lambda e: (e.taken, e.path.name), reverse=True)


def to_prune(
    entries: Iterable[BackupEntry], *, daily: int = KEEP_DAILY, weekly: int = KEEP_WEEKLY
) -> list[BackupEntry]:
    """The daily backups rotation removes: all but the newest of each of the last ``daily``
    days that have one and the newest of each of the last ``weekly`` ISO weeks that have one.
    Migration and manual backups are never rotated away."""
    rotating = sorted(
        (e for e in entries if e.kind == "daily"), key=lambda e: e.taken, reverse=True
    )
    keep: set[Path] = set()
    for by_week, count in ((False, daily), (True, weekly)):
        seen: list[object] = []
        for entry in rotating:
            period = entry.taken.isocalendar()[:2] if by_week else entry.taken.date()
            if period in seen:
                continue
            if len(seen) == count:
                break
            seen.append(period)
            keep.add(entry.path)
    return [e for e in rotating if e.path not in keep]


def rotate_backups(folder: Path) -> list[Path]:
    """Delete the daily backups that rotation no longer keeps; return what was deleted."""
    removed: list[Path] = []
    for entry in to_prune(list_backups(folder)):
        with contextlib.suppress(FileNotFoundError):
            entry.path.unlink()
            removed.append(entry.path)
    return removed


def database_in_use(database: Path) -> bool:
    """Whether any connection (this process's or another's) has ``database`` open."""
    database = Path(database)
    if not database.is_file():
        return False
    try:
        conn = sqlite3.connect(database, timeout=0.2, isolation_level=None)
    except sqlite3.Error:
        return True
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        conn.close()


def restore_backup(
    database: Path, backup: Path, *, now: datetime.datetime | None = None
) -> Path | None:
    """Put ``backup`` in place of ``database`` and return where the database that was there
    was moved (``backups/NAME-vN-DATE-TIME-replaced.db``; ``None`` when there was none). The
    backup must pass SQLite's integrity check, be of a schema version this Parley knows and
    hold only what Parley's own schema holds, and no connection may have the database open;
    the database is moved aside, never deleted, and on any failure it is put back as it
    was."""
    database = Path(database).absolute()
    entry = inspect_backup(Path(backup))
    if entry is None:
        entry = _entry_for_any(Path(backup))
    if entry.damaged is not None:
        raise BackupError(
            f"The backup {entry.path} is damaged ({entry.damaged}), so it was not restored. "
            f"Choose another backup.",
            entry.path,
        )
    if entry.refused is not None:
        raise BackupError(
            f"The backup {entry.path} {entry.refused}, so it was not restored. Nothing was "
            f"changed; choose another backup.",
            entry.path,
        )
    if database_in_use(database):
        raise StoreLockedError(
            f"The thread database {database} is open in Parley or another program. Close "
            f"Parley's windows and terminal chats, then restore again.",
            database,
        )
    folder = backups_folder(database)
    _private_folder(folder)
    stamp = f"{now or datetime.datetime.now():%Y%m%d-%H%M%S}"
    aside: Path | None = None
    moved: list[tuple[Path, Path]] = []
    if database.exists():
        version = _version_of(database)
        aside = _unique(folder / f"{database.stem}-v{version}-{stamp}-replaced.db")
        try:
            for current, target in zip(
                database_files(database), database_files(aside), strict=True
            ):
                if current.exists():
                    os.replace(current, target)
                    moved.append((current, target))
        except OSError as exc:
            _put_back(moved)
            raise _write_failure(exc, aside) from None
    try:
        backup_database(entry.path, database)
    except BaseException:
        _put_back(moved)
        raise
    return aside


def _version_of(database: Path) -> int:
    """The schema version of ``database`` (0 when it cannot be read)."""
    try:
        conn = connect_read_only(database)
    except sqlite3.Error:
        return 0
    try:
        return _schema_version(conn)
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def _put_back(moved: Sequence[tuple[Path, Path]]) -> None:
    for original, aside in reversed(moved):
        with contextlib.suppress(OSError):
            os.replace(aside, original)


def _entry_for_any(path: Path) -> BackupEntry:
    """A file chosen by the user whose name is not a backup's: check it all the same."""
    path = path.absolute()
    if not path.is_file():
        raise BackupError(f"There is no backup at {path}. Run `parley backups` to list them.", path)
    version, threads, damaged, refused = _check(path)
    taken = datetime.datetime.fromtimestamp(path.stat().st_mtime)
    return BackupEntry(path, "manual", taken, version, _size(path), threads, damaged, refused)
