""" "Export all threads" and "Delete all my data": what the window's menu items call.

Both are Qt-free. Export writes one JSON file (for ``import``) and one Markdown file (for
reading) per thread into a folder and never overwrites a file. Deletion removes the database,
its media, rescued copies, logs, cache and settings, and only lists the keyring entries: a
person removes those on purpose, one by one (``parley key delete REF``).
"""

from __future__ import annotations

import asyncio
import datetime
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from app.core.errors import ParleyError, UserError
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.secrets.known import forget_all
from app.services.locations import Locations
from app.services.logs import stop_logging
from app.store import Store, StoreCorruptError, Thread, database_files
from app.store.backups import BACKUP_FOLDER
from app.store.knowledge import knowledge_path

__all__ = [
    "KNOWN_KEY_REFS",
    "RESCUE_FOLDER",
    "DeletionReport",
    "ExportReport",
    "delete_all_data",
    "export_all_threads",
    "keyring_entries",
]

KNOWN_KEY_REFS = ("openai/api-key", "anthropic/api-key")
"""Keyring entries Parley itself names; keys for custom servers are named by their host."""
RESCUE_FOLDER = "rescued"
"""Where copies of a damaged database go, inside the data folder."""
_PAGE = 200


@dataclass
class ExportReport:
    """What :func:`export_all_threads` wrote, and which threads it could not read."""

    folder: Path
    written: list[Path] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    """``(thread id or "thread list", the reason)``."""

    @property
    def thread_count(self) -> int:
        """How many threads were exported."""
        return len(self.written) // 2

    def summary(self) -> str:
        """One sentence for a person."""
        text = f"Exported {self.thread_count} threads to {self.folder}."
        if self.failed:
            text += f" {len(self.failed)} could not be read: " + "; ".join(
                f"{what}: {why}" for what, why in self.failed[:3]
            )
        return text


def _slug(title: str) -> str:
    words = re.sub(r"[^\w]+", "-", title.lower(), flags=re.UNICODE).strip("-_")
    return words[:40].rstrip("-_") or "untitled"


def _free_name(folder: Path, stem: str, suffix: str) -> Path:
    candidate = folder / f"{stem}{suffix}"
    n = 2
    while candidate.exists():
        candidate = folder / f"{stem}-{n}{suffix}"
        n += 1
    return candidate


def _prepare(folder: str | Path) -> Path:
    folder = Path(folder).expanduser().absolute()
    if folder.exists() and not folder.is_dir():
        raise UserError(f"cannot export into {folder}: it is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot export into {folder}: {exc.strerror}") from None
    return folder


def _write_new(folder: Path, stem: str, files: list[tuple[str, bytes]]) -> list[Path]:
    written = []
    for suffix, data in files:
        path = _free_name(folder, stem, suffix)
        with path.open("xb") as fh:
            fh.write(data)
        written.append(path)
    return written


async def _all_threads(store: Store) -> list[Thread]:
    threads: list[Thread] = []
    while True:
        page = await store.list_threads(limit=_PAGE, offset=len(threads), archived=None)
        threads.extend(page)
        if len(page) < _PAGE:
            return threads


async def export_all_threads(store: Store, folder: str | Path) -> ExportReport:
    """Write every thread (archived ones too) as ``DATE-TITLE-ID.json`` and ``.md`` in
    ``folder`` (created if needed). A thread that cannot be read is listed in the report and
    the others are still written; existing files are never overwritten."""
    report = ExportReport(await asyncio.to_thread(_prepare, folder))
    try:
        threads = await _all_threads(store)
    except ParleyError as exc:
        report.failed.append(("thread list", str(exc)))
        return report
    for thread in threads:
        day = datetime.datetime.fromtimestamp(thread.created_at).strftime("%Y-%m-%d")
        stem = f"{day}-{_slug(thread.title)}-{thread.id[:8]}"
        try:
            as_json = await store.export_json(thread.id)
            as_markdown = await store.export_markdown(thread.id)
        except StoreCorruptError:
            report.failed.append((thread.id, "its data in the database is damaged"))
            continue
        except ParleyError as exc:
            report.failed.append((thread.id, str(exc)))
            continue
        files = [(".json", as_json), (".md", as_markdown.encode())]
        report.written += await asyncio.to_thread(_write_new, report.folder, stem, files)
    return report


@dataclass
class DeletionReport:
    """What :func:`delete_all_data` removed, what it could not, and the keyring entries left."""

    removed: list[Path] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)
    keyring_entries: list[str] = field(default_factory=list)
    """Refs still in the keyring (Parley does not remove them on its own)."""

    def summary(self) -> str:
        """A few sentences for a person."""
        text = f"Deleted {len(self.removed)} files and folders of Parley's data."
        if self.failed:
            text += " Could not delete: " + "; ".join(f"{p} ({why})" for p, why in self.failed)
        if self.keyring_entries:
            text += (
                " Your system keyring still holds "
                + ", ".join(self.keyring_entries)
                + "; remove them with `parley key delete REF` if you want them gone too."
            )
        return text


def keyring_entries(
    resolver: KeyringSecretResolver | None = None, refs: Iterable[str] = KNOWN_KEY_REFS
) -> list[str]:
    """The refs among ``refs`` that hold a value in the keyring (an unusable keyring holds
    none)."""
    resolver = resolver or KeyringSecretResolver()
    return [ref for ref in refs if resolver.is_set(ref)]


def _remove(path: Path, report: DeletionReport) -> None:
    if not path.exists() and not path.is_symlink():
        return
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError as exc:
        report.failed.append((path, exc.strerror or type(exc).__name__))
    else:
        report.removed.append(path)


def delete_all_data(
    locations: Locations,
    *,
    resolver: KeyringSecretResolver | None = None,
    key_refs: Iterable[str] = KNOWN_KEY_REFS,
) -> DeletionReport:
    """Delete the thread database (threads, media, approvals), the knowledge index, the
    database's backups, rescued copies, logs, cache and settings. Close every :class:`Store`
    (and the knowledge index) on this data folder first; log files stop.

    In the data folder only Parley's own files go (it may be a folder of yours); the data
    folder itself goes when nothing else is left in it. Keyring entries are listed in the
    report, not deleted.
    """
    stop_logging()
    forget_all()
    report = DeletionReport()
    for path in (
        *database_files(locations.database),
        *database_files(knowledge_path(locations.data)),
        locations.data / RESCUE_FOLDER,
        locations.data / BACKUP_FOLDER,
    ):
        _remove(path, report)
    for folder in (locations.logs, locations.cache, locations.config):
        _remove(folder, report)
    try:
        locations.data.rmdir()
    except OSError:
        pass  # not empty (the user's own files), or already gone
    else:
        report.removed.append(locations.data)
    report.keyring_entries = keyring_entries(resolver, key_refs)
    return report
