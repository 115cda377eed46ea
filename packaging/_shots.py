"""What the screenshot scripts share: the window drawn to a PNG by ``parley --screenshot`` in
its own process, and a script's seeding and shooting run on one qasync loop offscreen."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.ui.window import MainWindow

ROOT = Path(__file__).resolve().parent.parent


def screenshot(data: Path, target: Path, theme: str, thread_id: str | None = None) -> Path:
    """Draw the window of ``data`` (at ``thread_id``) in ``theme`` to ``target``."""
    thread = ["--thread", thread_id] if thread_id else []
    subprocess.run(
        [sys.executable, "-m", "app", "--data-dir", str(data), *thread, "--theme", theme,
         "--screenshot", str(target)],
        check=True,
        cwd=ROOT,
    )  # fmt: skip
    return target


def run_shots(
    script: object,
    seed: Callable[[Path, Path], Awaitable[str]],
    shoot: Callable[[Path, Path, str, bool], Awaitable[None]],
    out: Path,
    every: bool,
    *,
    home: bool = False,
) -> int:
    """Write the model ``script`` (JSON), ``seed`` a data folder with it (giving a thread's
    id), then ``shoot`` into ``out`` — in a temporary folder (also ``HOME`` when ``home``, so
    folders read as ``~/…``), on one qasync loop, offscreen."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(["parley-screenshots"])
    app.setQuitOnLastWindowClosed(False)
    with tempfile.TemporaryDirectory() as tmp:
        if home:
            os.environ["HOME"] = tmp
        data, written = Path(tmp) / "data", Path(tmp) / "script.json"
        written.write_text(json.dumps(script))
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            thread_id = loop.run_until_complete(seed(data, written))
            loop.run_until_complete(shoot(out, data, thread_id, every))
    return 0


async def each_theme(
    data: Path, thread_id: str, every: bool
) -> AsyncIterator[tuple[MainWindow, str]]:
    """Open the window of ``data`` at ``thread_id`` and give it in the light theme, then (when
    ``every``) the dark one, with the file-name suffix of each (``""``, ``"-dark"``); the
    window is closed after."""
    from PySide6.QtWidgets import QApplication

    from app.ui.app import close_window, open_window
    from app.ui.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    window = await open_window(str(data), thread_id=thread_id, preload=False)
    window.resize(1180, 760)
    try:
        for theme in ("light", "dark") if every else ("light",):
            apply_theme(app, theme)
            await window.workspace.preferences.set_theme(theme)
            await window.open_thread(thread_id)
            await asyncio.sleep(0.4)
            yield window, "" if theme == "light" else "-dark"
    finally:
        await close_window(window)
