"""A damaged thread database: copy it aside, open the copy read-only, export what it holds.

Nothing here deletes or changes the original file; the copy goes to ``rescued/`` in the data
folder with the time in its name.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import ParleyError, UserError
from app.services.data.export_delete import RESCUE_FOLDER, ExportReport, export_all_threads
from app.store import Store, database_files

__all__ = ["RescueResult", "export_readable", "rescue_copy"]

log = logging.getLogger(__name__)


def rescue_copy(database: Path, *, now: datetime.datetime | None = None) -> Path:
    """Copy ``database`` (with its write-ahead log) to ``rescued/parley-TIME.db`` beside it
    and return the copy; the original is left exactly as it was."""
    database = Path(database).absolute()
    if not database.is_file():
        raise UserError(f"there is no thread database at {database} to rescue")
    stamp = (now or datetime.datetime.now()).strftime("%Y%m%d-%H%M%S")
    folder = database.parent / RESCUE_FOLDER
    try:
        folder.mkdir(exist_ok=True)
        copy = folder / f"{database.stem}-{stamp}.db"
        n = 2
        while copy.exists():
            copy = folder / f"{database.stem}-{stamp}-{n}.db"
            n += 1
        main, wal, _shm = database_files(database)
        shutil.copy2(main, copy)
        if wal.is_file():
            shutil.copy2(wal, copy.with_name(copy.name + "-wal"))
    except OSError as exc:
        raise UserError(
            f"cannot copy the thread database {database} to {folder}: {exc.strerror}. Free some "
            f"space or make the folder writable, then try again."
        ) from None
    log.info("copied the damaged database aside to %s", copy)
    return copy


@dataclass
class RescueResult:
    """The copy that was made and what could be exported from it."""

    copy: Path
    export: ExportReport | None
    error: str | None
    """Why the copy could not be opened at all, if it could not."""

    def summary(self) -> str:
        """A few sentences for a person."""
        head = f"A copy of the damaged database is in {self.copy}; the original is untouched."
        if self.export is None:
            return f"{head} The copy cannot be read: {self.error}"
        return f"{head} {self.export.summary()}"


async def export_readable(database: Path, folder: Path) -> RescueResult:
    """Copy ``database`` aside, open the copy read-only and export every thread that can still
    be read into ``folder`` (one JSON and one Markdown file each)."""
    copy = await asyncio.to_thread(rescue_copy, database)
    try:
        store = await asyncio.to_thread(Store.open_read_only, copy)
    except ParleyError as exc:
        return RescueResult(copy, None, str(exc))
    async with store:
        report = await export_all_threads(store, folder)
    return RescueResult(copy, report, None)
