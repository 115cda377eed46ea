"""Bringing one folder's index up to date: incremental, resumable, never stalled by a file.

Run in a worker thread; each file's text is read and cut by a :class:`PassageReader`'s child
process (the walk, the reading of bytes through the folder's descriptors and the writes stay
here). A file whose size and time are unchanged is not opened; a changed
one is read again (unless its content hash is the same) once it has settled: with
``settle_s``, one changed less than that long ago (a log being written) is left for a later
sync and counted in :attr:`SyncResult.unsettled`; a renamed one (same size, time and
content as a file that is gone) keeps its passages under the new name; a deleted one is
forgotten. Each file is saved in its own transaction (its passages with its "done" row), so a
sync that is killed starts again where it stopped. A file that cannot be read is saved with
its reason and not tried again until it changes. While one file's passages are written, the
reader's process already cuts the next file (:class:`_Saver`): the two took turns before, and
each waited for the other about half the time.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from app.fs.openat import LinkOnTheWay
from app.knowledge import Passage
from app.media.errors import Cancelled, IngestError
from app.services.knowledge.reader import PassageReader
from app.services.knowledge.walk import Found, open_relative, read_opened, walk_folder
from app.store.knowledge import FileRow, FolderRecord, KnowledgeIndex

__all__ = ["SyncProgress", "SyncResult", "sync_folder"]


@dataclass(frozen=True, slots=True)
class SyncProgress:
    """Files and bytes read so far of those this sync reads, and the one being read."""

    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    current: str


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What a sync did: files read, renamed, removed, skipped, whether it was cancelled, and
    the folders it walked (inside the folder, ``.`` first: what is watched)."""

    read: int = 0
    renamed: int = 0
    removed: int = 0
    skipped: int = 0
    cancelled: bool = False
    folders: tuple[str, ...] = ()
    unsettled: int = 0
    """Changed files left for a later sync because they changed too recently."""


MAX_TEXT_CHARS = 20_000_000
"""A file's text is read up to this many characters."""


def _read(root: Path, rel: str) -> bytes:
    try:
        fd = open_relative(root, rel)
    except LinkOnTheWay:
        raise IngestError(rel, "a link now stands on its way, so it was not read") from None
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise IngestError(rel, f"it cannot be opened ({exc.strerror or exc})") from None
    try:
        return read_opened(fd)
    except ValueError as exc:
        raise IngestError(rel, str(exc)) from None
    finally:
        os.close(fd)


def _reason(error: IngestError) -> str:
    """The ingest's reason, said of an indexed file rather than an attachment."""
    return error.reason.replace("attach it again", "Parley reads it again").replace(
        " for attachments", ""
    )


class _Saver:
    """Writes one file's passages on a thread of its own while the next file is read; a file
    counts as saved (``after_file`` is told) once its write has finished, and a write's error
    is raised at the next file's save or at the end."""

    def __init__(self, index: KnowledgeIndex, after_file: Callable[[str | None], None] | None):
        self._index = index
        self._after_file = after_file
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-sync-save")
        self._pending: tuple[Future[None], str] | None = None

    def save(self, folder_id: int, found: Found, sha: str, passages: list[Passage]) -> None:
        """Start writing ``found``'s passages, once the previous file's are written."""
        self.settle()
        write = self._thread.submit(
            self._index.save_file, folder_id, found.rel, found.size, found.mtime_ns, sha, passages
        )
        self._pending = (write, found.rel)

    def settle(self) -> None:
        """Wait for the write under way, if any, and say its file is saved."""
        if self._pending is None:
            return
        write, rel = self._pending
        self._pending = None
        write.result()
        if self._after_file is not None:
            self._after_file(rel)

    def close(self) -> None:
        """Wait for the last write (its error, if any, is not raised here) and stop."""
        try:
            if self._pending is not None:
                self._pending[0].exception()
        finally:
            self._thread.shutdown(wait=True)


def _same_file(known: FileRow, found: Found) -> bool:
    return known.size == found.size and known.mtime_ns == found.mtime_ns


def sync_folder(
    index: KnowledgeIndex,
    folder: FolderRecord,
    report: Callable[[SyncProgress], None],
    cancel: threading.Event,
    after_file: Callable[[str | None], None] | None = None,
    *,
    reader: PassageReader | None = None,
    settle_s: float = 0.0,
) -> SyncResult:
    """Bring ``folder``'s index up to date; see the module docstring. Raises ``OSError`` when
    the folder itself cannot be opened. ``after_file`` is called with a file's path inside the
    folder once its passages are saved, and with ``None`` at the end (vectors are made there).
    ``reader`` reads the files' text (one of this sync's own, stopped at its end, when none is
    given). A known file that changed less than ``settle_s`` seconds ago is not read again
    yet (see :attr:`SyncResult.unsettled`)."""
    if reader is None:
        own = PassageReader()
        try:
            return sync_folder(
                index, folder, report, cancel, after_file, reader=own, settle_s=settle_s
            )
        finally:
            own.close()
    root = Path(folder.path)
    walk = walk_folder(root, cancel.is_set)
    known = index.file_rows(folder.id)
    present = {f.rel: f for f in walk.found}
    gone = {rel: row for rel, row in known.items() if rel not in present}
    changed = [f for f in walk.found if f.rel not in known or not _same_file(known[f.rel], f)]
    now = time.time()
    todo = [f for f in changed if f.rel not in known or _settled(f, now, settle_s)]
    result = {"read": 0, "renamed": 0, "removed": 0, "skipped": 0}
    result["unsettled"] = len(changed) - len(todo)
    by_shape: dict[tuple[int, int], list[FileRow]] = {}
    for row in gone.values():
        by_shape.setdefault((row.size, row.mtime_ns), []).append(row)

    files_total = len(todo)
    bytes_total = sum(f.size for f in todo)
    files_done = bytes_done = 0
    saver = _Saver(index, after_file)
    try:
        for found in todo:
            if cancel.is_set():
                saver.settle()
                return _result(result, walk.folders, cancelled=True)
            report(SyncProgress(files_done, files_total, bytes_done, bytes_total, found.rel))
            outcome = _sync_one(
                index, folder.id, root, found, known.get(found.rel), by_shape, cancel, reader,
                saver,
            )  # fmt: skip
            if outcome == "cancelled":
                saver.settle()
                return _result(result, walk.folders, cancelled=True)
            if outcome == "renamed":
                gone = {rel: row for rel, row in gone.items() if rel in _still_gone(by_shape)}
            if outcome in result:
                result[outcome] += 1
            files_done += 1
            bytes_done += found.size
            time.sleep(0)  # let the event loop's thread have the interpreter between files
        saver.settle()
    finally:
        saver.close()
    report(SyncProgress(files_done, files_total, bytes_done, bytes_total, ""))
    for rel, reason in walk.refused.items():
        seen = known.get(rel)
        if seen is None or seen.status != "skipped" or seen.reason != reason:
            index.save_skipped(folder.id, rel, 0, 0, "", reason)
            result["skipped"] += 1
        gone.pop(rel, None)
    if cancel.is_set():
        return _result(result, walk.folders, cancelled=True)
    leftover = [row.id for rel, row in gone.items() if rel not in walk.refused]
    index.delete_files(leftover)
    result["removed"] += len(leftover)
    if after_file is not None:
        after_file(None)
    return _result(result, walk.folders)


def _result(counts: dict[str, int], folders: list[str], *, cancelled: bool = False) -> SyncResult:
    return SyncResult(
        counts["read"],
        counts["renamed"],
        counts["removed"],
        counts["skipped"],
        cancelled,
        tuple(folders),
        counts["unsettled"],
    )


def _settled(found: Found, now: float, settle_s: float) -> bool:
    """Whether ``found`` last changed at least ``settle_s`` seconds ago (a time that far in
    the future cannot be judged, so it counts as settled)."""
    age = now - found.mtime_ns / 1e9
    return age >= settle_s or age < -settle_s


def _still_gone(by_shape: dict[tuple[int, int], list[FileRow]]) -> set[str]:
    return {row.rel for rows in by_shape.values() for row in rows}


def _sync_one(
    index: KnowledgeIndex,
    folder_id: int,
    root: Path,
    found: Found,
    known: FileRow | None,
    by_shape: dict[tuple[int, int], list[FileRow]],
    cancel: threading.Event,
    reader: PassageReader,
    saver: _Saver,
) -> str:
    """Bring one file up to date; returns ``read``, ``renamed``, ``touched``, ``skipped``,
    ``gone`` or ``cancelled``."""
    try:
        data = _read(root, found.rel)
    except FileNotFoundError:
        return "gone"
    except IngestError as exc:
        index.save_skipped(folder_id, found.rel, found.size, found.mtime_ns, "", _reason(exc))
        return "skipped"
    sha = hashlib.sha256(data).hexdigest()
    if known is not None and known.sha256 == sha and known.status == "indexed":
        index.touch_file(known.id, found.mtime_ns)
        return "touched"
    if known is None:
        twins = by_shape.get((found.size, found.mtime_ns), [])
        twin = next((row for row in twins if row.sha256 == sha), None)
        if twin is not None:
            twins.remove(twin)
            index.move_file(twin.id, found.rel, found.mtime_ns)
            return "renamed"
    try:
        passages = reader.passages(data, Path(found.rel).name, MAX_TEXT_CHARS, cancel)
    except Cancelled:
        return "cancelled"
    except IngestError as exc:
        index.save_skipped(folder_id, found.rel, found.size, found.mtime_ns, sha, _reason(exc))
        return "skipped"
    del data
    if not passages:
        reason = "it holds no text (a scanned PDF has none to read)"
        index.save_skipped(folder_id, found.rel, found.size, found.mtime_ns, sha, reason)
        return "skipped"
    saver.save(folder_id, found, sha, passages)
    return "read"
