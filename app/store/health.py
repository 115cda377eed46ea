"""Is the thread database healthy? SQLite's ``PRAGMA quick_check`` on a read-only connection.

The check never writes to the file (not even a journal-mode switch), so it is safe to run on
a damaged database before anything else touches it.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from app.store._schema import APPLICATION_ID, SCHEMA_VERSION

__all__ = ["DatabaseHealth", "check_database", "connect_read_only", "database_files"]

log = logging.getLogger(__name__)

_MAX_PROBLEMS = 20


@dataclass(frozen=True)
class DatabaseHealth:
    """What :func:`check_database` found about one database file."""

    path: Path
    exists: bool
    healthy: bool
    problems: tuple[str, ...]
    """SQLite's own descriptions of what is wrong (at most 20); empty when healthy."""
    schema_version: int | None
    """``PRAGMA user_version``, or ``None`` when it could not be read."""
    size_bytes: int
    """The file plus its write-ahead log."""
    thread_count: int | None
    models: tuple[str, ...]
    """The model specs threads in the file use."""

    def summary(self) -> str:
        """One sentence for a person: healthy, missing, or what is wrong and what to do."""
        if not self.exists:
            return f"There is no thread database at {self.path} yet; Parley will create one."
        if self.healthy:
            return f"The thread database {self.path} is healthy (SQLite quick check: ok)."
        first = self.problems[0] if self.problems else "unknown damage"
        more = f" and {len(self.problems) - 1} more problems" if len(self.problems) > 1 else ""
        return (
            f"The thread database {self.path} is damaged (SQLite quick check: {first}{more}). "
            f"Nothing was changed in it. Run `parley doctor --export FOLDER` to save what can "
            f"still be read from a copy."
        )


def database_files(path: Path) -> list[Path]:
    """The database file and the SQLite files beside it (write-ahead log, shared memory)."""
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Open ``path`` read-only (SQLite never writes to it through this connection)."""
    uri = f"file:{quote(str(Path(path).absolute()))}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=10.0, isolation_level=None)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in database_files(path)[:2] if p.is_file())


def check_database(path: str | Path) -> DatabaseHealth:
    """Run SQLite's quick check on the database at ``path`` without changing it.

    A missing file is healthy (Parley creates it); a file that is not SQLite, or one SQLite
    cannot read, is reported as damaged with SQLite's reason, never raised.
    """
    path = Path(path).absolute()
    if not path.exists():
        return DatabaseHealth(path, False, True, (), None, 0, None, ())
    problems: list[str] = []
    version: int | None = None
    threads: int | None = None
    models: tuple[str, ...] = ()
    try:
        conn = connect_read_only(path)
    except sqlite3.Error as exc:
        problems.append(f"cannot open: {exc}")
    else:
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
            if app_id not in (0, APPLICATION_ID):
                problems.append("the file belongs to another program")
            for (row,) in conn.execute(f"PRAGMA quick_check({_MAX_PROBLEMS})"):
                problems.extend(
                    line
                    for line in str(row).splitlines()
                    if line not in ("ok", "*** in database main ***")
                )
        except sqlite3.Error as exc:
            problems.append(str(exc))
        if not problems and version and version <= SCHEMA_VERSION:
            try:
                threads = int(conn.execute("SELECT count(*) FROM threads").fetchone()[0])
                models = tuple(
                    str(r[0])
                    for r in conn.execute(
                        "SELECT DISTINCT model FROM threads WHERE model IS NOT NULL ORDER BY 1"
                    )
                )
            except sqlite3.Error as exc:
                problems.append(str(exc))
        conn.close()
    health = DatabaseHealth(
        path, True, not problems, tuple(problems), version, _size(path), threads, models
    )
    if health.healthy:
        log.info("database quick check: ok (schema %s)", version)
    else:
        log.warning("database quick check: %d problems", len(problems))
    return health
