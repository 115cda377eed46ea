"""Backups of the thread database for the window and the terminal: take one, list them,
restore one, and one a day while the window runs.

The files and their rules (names, rotation, checks, restore) are the store's
(:mod:`app.store.backups`); this service runs them off the event loop and keeps the daily
schedule. A backup is never taken of a read-only rescued copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from app.core.errors import ParleyError
from app.store import SCHEMA_VERSION
from app.store.backups import (
    KEEP_DAILY,
    KEEP_WEEKLY,
    BackupEntry,
    backup_database,
    backup_name,
    backups_folder,
    inspect_backup,
    list_backups,
    restore_backup,
    rotate_backups,
)
from app.store.health import check_database
from app.text.sizes import human_size

__all__ = [
    "KEEP_DAILY",
    "KEEP_WEEKLY",
    "KINDS",
    "BackupEntry",
    "BackupService",
    "RestoreResult",
    "describe",
]

log = logging.getLogger(__name__)

DAILY_CHECK_SECONDS = 3600.0
"""How often the running window looks whether today's backup is due."""


KINDS = {
    "daily": "daily",
    "migration": "before an update",
    "manual": "by hand",
    "replaced": "replaced by a restore",
}
"""How each kind of backup is named to a person."""


def describe(entry: BackupEntry) -> str:
    """One line for a person: when, what kind (a database a restore replaced is marked
    "replaced on DATE"), how big, how many threads, or why it cannot be restored."""
    when = f"{entry.taken:%Y-%m-%d %H:%M}"
    kind = KINDS.get(entry.kind, entry.kind)
    if entry.kind == "replaced":
        when, kind = "", f"replaced on {when}"
    head = f"{when}  {kind}" if when else kind
    if entry.damaged is not None:
        return f"{head}, {human_size(entry.size_bytes)}: damaged ({entry.damaged})"
    if entry.refused is not None:
        return f"{head}, {human_size(entry.size_bytes)}: not restorable (it {entry.refused})"
    threads = entry.thread_count or 0
    noun = "thread" if threads == 1 else "threads"
    return f"{head}, {human_size(entry.size_bytes)}, {threads} {noun}"


@dataclass(frozen=True)
class RestoreResult:
    """What a restore did."""

    restored: Path
    """The backup that is now the thread database."""
    replaced: Path | None
    """Where the database that was in place was moved (kept, never deleted)."""

    def summary(self) -> str:
        """One or two sentences for a person."""
        head = f"Restored the backup {self.restored.name}."
        if self.replaced is None:
            return head
        return f"{head} The database it replaced was kept as {self.replaced}."


class BackupService:
    """The backups of one thread database (``database``)."""

    def __init__(
        self,
        database: Path,
        *,
        enabled: bool = True,
        clock: Callable[[], datetime.datetime] = datetime.datetime.now,
    ) -> None:
        self.database = Path(database).absolute()
        self.folder = backups_folder(self.database)
        self._enabled = enabled
        self._clock = clock
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    # Taking, listing, restoring (blocking: call them off the loop) -----------------

    def take(
        self, target: Path | None = None, *, kind: Literal["daily", "manual"] = "manual"
    ) -> Path:
        """Write a backup now (to ``target``, or into the backup folder) and return its path."""
        if not self.database.is_file():
            raise ParleyError(
                f"There is no thread database at {self.database} yet, so there is nothing to "
                f"back up."
            )
        version = check_database(self.database).schema_version or SCHEMA_VERSION
        if target is None:
            target = self.folder / backup_name(self.database, version, kind, self._clock())
        elif target.is_dir():
            target = target / backup_name(self.database, version, "manual", self._clock())
        return backup_database(self.database, target)

    def list(self) -> list[BackupEntry]:
        """Every backup, newest first, each checked; the databases restores replaced are
        among them (kind ``replaced``)."""
        return list_backups(self.folder)

    def inspect(self, backup: Path) -> BackupEntry | None:
        """What the file ``backup`` is (when, what kind, how big, how many threads, or why it
        cannot be restored), checked as :meth:`restore` checks it; ``None`` when its name is
        not a backup's."""
        return inspect_backup(backup)

    def space(self, entries: Sequence[BackupEntry] | None = None) -> int:
        """The bytes the backups take."""
        return sum(e.size_bytes for e in (self.list() if entries is None else entries))

    def restore(self, backup: Path) -> RestoreResult:
        """Put ``backup`` in place of the database (which is moved aside, never deleted)."""
        replaced = restore_backup(self.database, backup, now=self._clock())
        return RestoreResult(Path(backup).absolute(), replaced)

    def daily_due(self) -> bool:
        """Whether no daily backup has been taken today."""
        today = self._clock().date()
        return not any(e.kind == "daily" and e.taken.date() == today for e in self.list())

    def take_daily(self) -> Path | None:
        """Take today's backup if it is due, then rotate; the new backup, or ``None``."""
        if not self._enabled or not self.database.is_file() or not self.daily_due():
            return None
        path = self.take(kind="daily")
        rotate_backups(self.folder)
        log.info("daily backup written to %s", path)
        return path

    # The daily schedule ------------------------------------------------------------

    async def daily_now(self) -> Path | None:
        """Take today's backup in a worker thread if it is due; a failure is logged, never
        raised (the next check tries again)."""
        async with self._lock:
            try:
                return await asyncio.to_thread(self.take_daily)
            except (ParleyError, OSError) as exc:
                log.warning("the daily backup could not be written: %s", exc)
                return None

    def start_daily(self, *, first_after: float = 60.0, every: float = DAILY_CHECK_SECONDS) -> None:
        """Check ``first_after`` seconds from now, then every ``every`` seconds, while the
        loop runs; :meth:`aclose` stops it."""
        if self._task is None and self._enabled:
            self._task = asyncio.get_running_loop().create_task(
                self._daily(first_after, every), name="daily backup"
            )

    async def _daily(self, first_after: float, every: float) -> None:
        await asyncio.sleep(first_after)
        while True:
            await self.daily_now()
            await asyncio.sleep(every)

    async def aclose(self) -> None:
        """Stop the daily schedule (a backup being written finishes first)."""
        task, self._task = self._task, None
        if task is None:
            return
        async with self._lock:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
