"""What the window's File and Help menus do with the user's data: copy diagnostics, find the
data and log folders, export every thread, delete everything; and, at start, check that the
thread database is healthy and open a read-only copy of a damaged one.

Reached through ``workspace.data`` (a :class:`DataActions`); the start-up check runs before a
workspace exists, so it is a plain function (:func:`check_store`), and so is exporting what a
database that may be damaged holds (:func:`export_database`, ``parley doctor --export``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from app.services.data.export_delete import (
    DeletionReport,
    ExportReport,
    delete_all_data,
    export_all_threads,
)
from app.services.data.recovery import RescueResult, export_readable, rescue_copy
from app.services.diagnostics import QtInfo, diagnostics_report
from app.services.locations import Locations
from app.services.mcp.config import CONFIG_NAME, mcp_log_dir
from app.services.models.catalogue import MODELS_DIR
from app.services.settings import FILE_NAME as SETTINGS_NAME
from app.services.tool_choice import FILE_NAME as TOOL_CHOICES_NAME
from app.store import DatabaseHealth, Store, check_database
from app.store.paths import resolve_data_dir

__all__ = [
    "WINDOW_STATE_NAME",
    "DataActions",
    "DatabaseHealth",
    "RescuedStore",
    "check_store",
    "export_damaged",
    "export_database",
    "locations_of",
    "open_rescued_copy",
]

WINDOW_STATE_NAME = "window.ini"
"""The window's size and splitter, kept in the data folder."""

RescuedStore = Store
"""A read-only copy of a damaged database, to open a workspace on (``Workspace.open(store=)``)."""

_OWN_FILES = (SETTINGS_NAME, CONFIG_NAME, TOOL_CHOICES_NAME, WINDOW_STATE_NAME)
"""Parley's own small files in the data folder, besides the database."""


def locations_of(data_dir: str | os.PathLike[str] | None) -> Locations:
    """The folders for a workspace on ``data_dir``: the platform's own folders when it is the
    default data folder, folders inside it when the user chose it."""
    if data_dir is not None and Path(data_dir) == resolve_data_dir(None):
        return Locations.resolve(None)
    return Locations.resolve(data_dir)


def check_store(data_dir: str | os.PathLike[str] | None) -> DatabaseHealth:
    """SQLite's quick check of the thread database in ``data_dir`` (blocking; a few ms)."""
    return check_database(Locations.resolve(data_dir).database)


async def export_damaged(health: DatabaseHealth, folder: Path) -> RescueResult:
    """Copy the damaged database aside and export every thread still readable into ``folder``;
    the original is never changed."""
    return await export_readable(health.path, folder)


async def export_database(health: DatabaseHealth, folder: Path) -> ExportReport | RescueResult:
    """Export every thread of the database ``health`` checked into ``folder`` (one JSON and
    one Markdown file each): from the database itself when it is healthy, else from a copy
    set aside, as :func:`export_damaged` does; the original is never changed."""
    if not health.healthy:
        return await export_damaged(health, folder)
    async with Store.open(health.path) as store:
        return await export_all_threads(store, folder)


async def open_rescued_copy(health: DatabaseHealth) -> Store:
    """Copy the damaged database aside and open the copy read-only (the original is left
    exactly as it was)."""
    copy = await asyncio.to_thread(rescue_copy, health.path)
    return await asyncio.to_thread(Store.open_read_only, copy)


class DataActions:
    """The data actions of one open workspace; see the module docstring."""

    def __init__(self, store: Store, data_dir: Path, close: Callable[[], Awaitable[None]]) -> None:
        self._store = store
        self.data_dir = Path(data_dir)
        self._close = close
        self.locations = locations_of(self.data_dir)

    @property
    def read_only(self) -> str | None:
        """Why this workspace cannot save (a rescued copy), or ``None`` when it can."""
        reason = self._store.read_only
        return str(reason) if reason is not None else None

    @property
    def removed_notice(self) -> str | None:
        """What was removed from the thread database when it was opened (triggers and views
        Parley does not make, which never ran), for the person; ``None`` when nothing was."""
        return self._store.removed_notice

    @property
    def log_folder(self) -> Path:
        """Where the log files are written."""
        return self.locations.logs

    async def diagnostics(self, model_specs: Iterable[str] = (), qt: QtInfo | None = None) -> str:
        """The diagnostics report: versions, platform, Qt, keyring, models, folders and the
        database's health; no message text, no secrets."""
        specs = list(model_specs)
        return await asyncio.to_thread(diagnostics_report, self.locations, model_specs=specs, qt=qt)

    async def export_all(self, folder: str | Path) -> ExportReport:
        """Write every thread as JSON and Markdown into ``folder``."""
        return await export_all_threads(self._store, folder)

    async def delete_everything(self) -> DeletionReport:
        """Close the workspace and delete all of Parley's data: threads, media, settings, MCP
        servers, downloaded models, logs and cache (keyring entries are only listed). The
        workspace cannot be used afterwards."""
        await self._close()
        report = await asyncio.to_thread(delete_all_data, self.locations)
        await asyncio.to_thread(self._delete_own_files, report)
        return report

    def _delete_own_files(self, report: DeletionReport) -> None:
        for name in _OWN_FILES:
            path = self.data_dir / name
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            except OSError as exc:
                report.failed.append((path, exc.strerror or type(exc).__name__))
            else:
                report.removed.append(path)
        for folder in (mcp_log_dir(self.data_dir), self.data_dir / MODELS_DIR):
            if folder.is_dir():
                shutil.rmtree(folder, ignore_errors=True)
                report.removed.append(folder)
        self.forget_folder()

    def forget_folder(self) -> None:
        """Remove what the window writes on closing and the data folder when it is empty."""
        with contextlib.suppress(OSError):
            (self.data_dir / WINDOW_STATE_NAME).unlink(missing_ok=True)
        for folder in (self.data_dir / "logs", self.data_dir):
            with contextlib.suppress(OSError):
                folder.rmdir()
