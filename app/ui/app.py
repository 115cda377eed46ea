"""Starting the window: a QApplication on a qasync event loop, the workspace opened off the
loop, the main window shown at once (models load behind it), and a clean shutdown."""

from __future__ import annotations

import asyncio
import importlib
import linecache
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

import qasync
import shiboken6
from PySide6.QtWidgets import QApplication

from app.core.errors import ParleyError
from app.core.state.deferred import build_deferred
from app.services.local_server import ServeWorkspace
from app.services.locations import APP_ID
from app.services.workspace import Workspace
from app.ui.attachments.thumbs import warm_image_formats
from app.ui.chat.markdown import warm_up as warm_markdown
from app.ui.collector import MainThreadCollector
from app.ui.crash import install_crash_handler
from app.ui.notifier import Level
from app.ui.qt_env import prepare_qt_environment
from app.ui.startup_check import READ_ONLY_NOTICE, UNREADABLE_COPY_NOTICE, store_at_start
from app.ui.tasks import drain, spawn
from app.ui.theme import apply_theme
from app.ui.window import MainWindow

__all__ = ["has_display", "run_window"]


def has_display(env: dict[str, str] | None = None) -> bool:
    """Whether a window can be shown (a display server, or a Qt platform chosen by hand)."""
    environ = os.environ if env is None else env
    if sys.platform != "linux":
        return True
    return bool(
        environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY") or environ.get("QT_QPA_PLATFORM")
    )


def _application(theme: str) -> QApplication:
    prepare_qt_environment()
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(["parley"])
    app.setApplicationName("Parley")
    app.setOrganizationName("Parley")
    app.setDesktopFileName(APP_ID)  # matches the .desktop entry, so the shell finds the icon
    app.setQuitOnLastWindowClosed(False)
    apply_theme(app, theme)
    if app.findChild(MainThreadCollector) is None:
        # Qt objects are only ever destroyed on this thread; nothing is collected until the
        # window is up (open_window settles the collector)
        MainThreadCollector(app, starting=True)
    return app


async def open_window(
    data_dir: str | None,
    *,
    model: str | None = None,
    thread_id: str | None = None,
    preload: bool = True,
    check_store: bool = True,
    serve: ServeWorkspace | None = None,
    **workspace_options: object,
) -> MainWindow | None:
    """Open the workspace and show a started main window; ``None`` when the database is
    damaged and the user chose to quit."""
    rescued = await store_at_start(data_dir) if check_store else None
    if rescued is False:
        return None
    if rescued is not None:
        workspace_options["store"] = rescued
    workspace = await Workspace.open(data_dir, **workspace_options)  # type: ignore[arg-type]
    if model:
        workspace.settings.use(
            workspace.settings.current.model_copy(update={"default_model": model})
        )
    window = MainWindow(workspace, serve=serve)
    window.show()
    workspace.knowledge.start()  # resync the knowledge folders, then watch them
    await window.start(thread_id, preload=preload)
    await window.schedules_part.begin()  # the window runs the schedules while it is open
    app = QApplication.instance()
    collector = app.findChild(MainThreadCollector) if app is not None else None
    if collector is not None:
        collector.settle(busy=workspace.runs.any_running)
    if workspace.data.read_only:
        window.show_read_only()
    if workspace.data.read_only and window.start_problem:
        window.notifier.show(UNREADABLE_COPY_NOTICE, level="error")
    elif workspace.data.read_only:
        window.notifier.show(READ_ONLY_NOTICE, level="warning")
    elif window.start_problem:
        window.notifier.show(window.start_problem, level="error")
    elif workspace.data.removed_notice:
        window.notifier.show(workspace.data.removed_notice, level="warning")
    return window


async def close_window(window: MainWindow) -> None:
    """Finish what the window left (a pending delete), stop runs and close the store."""
    if window.isVisible():
        window.close()
    await window.threads_vm.commit_delete()
    await window.server.turn_off()  # Settings > Server's: it serves this workspace
    await window.schedules_part.end()
    await drain()
    await window.workspace.aclose()
    window.deleteLater()  # Qt destroys it and its parts between events, dropping their slots


async def reopen_restored(
    window: MainWindow,
    backup: Path,
    open_again: Callable[[], Awaitable[MainWindow | None]] | None = None,
) -> MainWindow | None:
    """Close ``window`` and its database, put ``backup`` in place of the database (the one
    there is kept aside) and open a new window on it (``open_again``, by default as at
    start), which says what happened; a restore that fails leaves the database as it was and
    the new window says why."""
    data_dir = window.workspace.data_dir
    service = window.workspace.backups
    serve = window.serve
    await close_window(window)
    level: Level = "info"
    try:
        result = await asyncio.to_thread(service.restore, backup)
        message = result.summary()
    except ParleyError as exc:
        message, level = f"The backup was not restored: {exc}", "error"
    reopened = await (open_again() if open_again else open_window(str(data_dir), serve=serve))
    if reopened is not None:
        reopened.notifier.show(message, level=level)
    return reopened


async def _main(
    data_dir: str | None,
    model: str | None,
    thread_id: str | None,
    screenshot: Path | None,
    theme: str | None = None,
    serve: ServeWorkspace | None = None,
) -> int:
    window = await open_window(
        data_dir,
        model=model,
        thread_id=thread_id,
        preload=screenshot is None,
        check_store=screenshot is None,
        serve=serve,
    )
    if window is None:
        return 1
    saved = window.workspace.settings.current.theme
    app = QApplication.instance()
    if theme is None and saved != "system" and isinstance(app, QApplication):
        apply_theme(app, saved)  # the choice made in Settings > Appearance
    if screenshot is not None:
        window.resize(1280, 800)
        await window.refresh_models()
        await asyncio.sleep(0.3)  # let layouts settle and the first page paint
        for _ in range(200):  # and the formulas in sight be typeset (at most 10 s)
            if not window.chat.delegate.typesetting:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.1)
        ok = window.grab().save(str(screenshot))
        await close_window(window)
        return 0 if ok else 1
    current: MainWindow | None = window
    crashes = install_crash_handler(lambda: _alive(current), asyncio.get_running_loop())
    while current is not None:
        backup = await _run_until_closed(current)
        if backup is None:
            await close_window(current)
            break
        current = await reopen_restored(current, backup)
    crashes.uninstall(asyncio.get_running_loop())
    return 0


def _alive(window: MainWindow | None) -> MainWindow | None:
    """``window`` unless it was closed and Qt has deleted it (during a restore)."""
    return window if window is not None and shiboken6.isValid(window) else None


async def _run_until_closed(window: MainWindow) -> Path | None:
    """Wait until ``window`` is closed, or asks for a backup to be restored (returned)."""
    done: asyncio.Future[Path | None] = asyncio.get_running_loop().create_future()

    def settle(backup: Path | None) -> None:
        if not done.done():
            done.set_result(backup)

    window.closed.connect(lambda: settle(None))
    window.restore_requested.connect(settle)
    spawn(warm_up(window))
    window.workspace.backups.start_daily()
    return await done


async def warm_up(window: MainWindow) -> None:
    """Load the attachment stack (image, PDF, document and media readers, Qt's image format
    plugins) and the Markdown renderer with its code lexers in the background once the window
    is up, then build one attachment chip and lay out one message off-screen, so the first
    files dropped attach and the first reply streams without stalling the window; the
    validators of the engine's models are built first, one per turn of the loop, so that the
    first message does not wait for them. The math
    typesetter's process is not started here: it starts with the first formula, so a session
    without math never pays for it."""
    await asyncio.sleep(1.0)
    for _ in build_deferred():  # one validator at a time: each takes a millisecond or two
        await asyncio.sleep(0)
    await asyncio.to_thread(warm_markdown)
    if window.isVisible():
        window.chat.delegate.warm_up()
    ingest = await asyncio.to_thread(importlib.import_module, "app.media.ingest")
    await asyncio.to_thread(ingest.load_readers)
    await asyncio.to_thread(warm_image_formats)
    if window.isVisible():  # not closed meanwhile
        window.attachments.tray.warm_up()
    # what PySide6's import hook read into linecache before app.ui changed how it asks (the
    # modules imported between PySide6 and app.ui; see app.ui._feature_scan)
    linecache.clearcache()


def run_window(
    data_dir: str | None,
    *,
    model: str | None = None,
    thread_id: str | None = None,
    screenshot: str | None = None,
    theme: str | None = None,
    err: TextIO | None = None,
    serve: ServeWorkspace | None = None,
) -> int:
    """Run the window until it is closed; with ``screenshot``, render it to that PNG and exit
    (offscreen unless a platform was chosen). ``serve`` starts ``parley serve`` on the
    window's workspace (Settings > Server; ``None``: the page says it cannot)."""
    if screenshot is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = _application(theme or "system")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    shot = Path(screenshot) if screenshot else None
    try:
        with loop:
            task = loop.create_task(_main(data_dir, model, thread_id, shot, theme, serve))
            return int(loop.run_until_complete(task))
    except Exception as exc:  # the window could not start: say so plainly
        (err or sys.stderr).write(f"parley: the window could not start: {exc}\n")
        return 1
