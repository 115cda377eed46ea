"""Scrolling a thread of 1,000 image messages, in a fresh process.

``python -m bench._images_child parley DATA_DIR THREAD_ID`` scrolls Parley's chat view
through the whole thread; ``... peer DATA_DIR THREAD_ID`` does the same with a plain
``QListWidget`` holding the same 1,000 thumbnails as icons (decoded up front, as a list
widget needs them). Each prints one JSON object of frame times (scroll step + repaint).
``... drop DATA_DIR FOLDER`` drops every file of FOLDER on the chat at once and reports the
longest event-loop stall while they are read.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

STEP = 120
"""Pixels per frame, about one wheel notch and a half."""


def _summary(frames: list[float], setup_s: float) -> dict[str, float]:
    frames = sorted(frames)
    return {
        "frames": len(frames),
        "p50_ms": statistics.median(frames) * 1000,
        "p95_ms": frames[int(len(frames) * 0.95) - 1] * 1000,
        "max_ms": frames[-1] * 1000,
        "setup_s": setup_s,
    }


async def _parley(data_dir: str, thread_id: str) -> dict[str, float]:
    from app.services.workspace import Workspace
    from app.ui.app import close_window
    from app.ui.window import MainWindow

    workspace = await Workspace.open(data_dir, resolve_model=lambda s: None)  # type: ignore[arg-type,return-value]
    window = MainWindow(workspace)
    window.resize(1200, 800)
    window.show()
    t0 = time.perf_counter()
    await window.open_thread(thread_id)
    window.chat.doItemsLayout()
    window.repaint()
    opened = time.perf_counter() - t0
    while window.chat_vm.can_load_older():  # every page in, as scrolling up would bring them
        await window.chat_vm.load_older()
    window.chat.doItemsLayout()
    setup = time.perf_counter() - t0
    bar = window.chat.verticalScrollBar()
    bar.setValue(0)
    frames: list[float] = []
    while bar.value() < bar.maximum():
        t = time.perf_counter()
        bar.setValue(bar.value() + STEP)
        window.chat.viewport().repaint()
        frames.append(time.perf_counter() - t)
        await asyncio.sleep(0)  # decoded thumbnails arrive between frames
    rows = window.chat.model().rowCount()
    decoded = window.attachments.thumbs.decoded
    await close_window(window)
    return {**_summary(frames, setup), "rows": rows, "decoded": decoded, "open_s": opened}


async def _drop(data_dir: str, folder: str) -> dict[str, float]:
    """Drop every file of ``folder`` on the chat at once; the longest event-loop stall while
    they are read, beside the same window idle."""
    from pathlib import Path

    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    from app.services.workspace import Workspace
    from app.ui.app import close_window, warm_up
    from app.ui.window import MainWindow

    workspace = await Workspace.open(data_dir, resolve_model=lambda s: None)  # type: ignore[arg-type,return-value]
    window = MainWindow(workspace)
    window.resize(1200, 800)
    window.show()
    await window.start(preload=False)
    # The app runs this warm-up a second after its window is up; a user's first drop comes
    # some seconds after start, when it is done (it takes about 1.5 s).
    await warm_up(window)

    async def longest_gap(until: object, since: float | None = None) -> tuple[float, float]:
        """The longest time the loop did not run between ``since`` (now) and ``until()``."""
        start = time.perf_counter() if since is None else since
        worst, last = 0.0, start
        while not until():  # type: ignore[operator]
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst = max(worst, now - last - 0.001)
            last = now
        return worst, time.perf_counter() - start

    idle_end = time.perf_counter() + 1.0
    idle, _ = await longest_gap(lambda: time.perf_counter() > idle_end)
    files = sorted(Path(folder).iterdir())
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in files])
    target = window.stack.currentWidget()
    point, copy = QPointF(target.rect().center()), Qt.DropAction.CopyAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    tray = window.attachments.tray
    runs = []
    for _ in range(2):  # the first drop after start, then a later one
        QApplication.sendEvent(target, QDragEnterEvent(point, copy, mime, buttons, mods))
        dropped = time.perf_counter()  # handling the drop itself blocks the loop too
        QApplication.sendEvent(target, QDropEvent(point, copy, mime, buttons, mods))
        runs.append(await longest_gap(lambda: not tray.busy and not tray._pending, dropped))
        attached = len(tray.blocks())
        tray.clear()
        await asyncio.sleep(0.2)
    await close_window(window)
    return {
        "idle_ms": idle * 1000,
        "cold_stall_ms": runs[0][0] * 1000,
        "stall_ms": runs[1][0] * 1000,
        "took_s": runs[1][1],
        "files": len(files),
        "attached": attached,
    }


def _peer(data_dir: str, thread_id: str) -> dict[str, float]:
    from PySide6.QtCore import QSize
    from PySide6.QtGui import QIcon, QImage, QPixmap
    from PySide6.QtWidgets import QApplication, QListWidget, QListWidgetItem

    from app.core.state import AgentState, ImageBlock
    from app.store import Store
    from app.store.paths import database_path

    app = QApplication.instance() or QApplication([])

    async def load() -> list[tuple[str, bytes]]:
        async with Store.open(database_path(data_dir)) as store:
            checkpoint = await store.checkpointer.aget(thread_id, AgentState)
            assert checkpoint is not None
            out = []
            for message in checkpoint.state.context:
                block = message.content[-1]
                assert isinstance(block, ImageBlock) and block.thumbnail is not None
                blob = await store.get_media(block.thumbnail.file_id or "")
                assert blob is not None
                out.append((message.text(), blob.data))
            return out

    items = asyncio.run(load())
    widget = QListWidget()
    widget.resize(1200, 800)
    widget.setIconSize(QSize(320, 240))
    widget.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
    widget.show()
    t0 = time.perf_counter()
    for text, data in items:
        image = QImage()
        image.loadFromData(data)
        QListWidgetItem(QIcon(QPixmap.fromImage(image)), text, widget)
    widget.doItemsLayout()
    widget.repaint()
    setup = time.perf_counter() - t0
    bar = widget.verticalScrollBar()
    frames: list[float] = []
    while bar.value() < bar.maximum():
        t = time.perf_counter()
        bar.setValue(bar.value() + STEP)
        widget.viewport().repaint()
        frames.append(time.perf_counter() - t)
        app.processEvents()
    return {
        **_summary(frames, setup),
        "rows": widget.count(),
        "decoded": len(items),
        "open_s": setup,
    }


def main(argv: list[str]) -> dict[str, float]:
    """Run the mode in ``argv`` and return its figures."""
    mode, data_dir, thread_id = argv
    # PySide6 6.12 on Python 3.11 runs None's reference count down; the peer needs the same
    # guard as the app or it aborts while scrolling (the guard costs nothing per frame).
    from app.ui import keep_none_alive

    keep_none_alive()
    if mode == "peer":
        return _peer(data_dir, thread_id)
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.ui.qt_env import prepare_qt_environment

    prepare_qt_environment()  # as the app starts Qt
    app = QApplication([])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    coro = _drop(data_dir, thread_id) if mode == "drop" else _parley(data_dir, thread_id)
    with loop:
        return loop.run_until_complete(coro)


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])), flush=True)
    # the figures are out: skip the interpreter's teardown, where PySide's objects are
    # collected in no set order (it has crashed the QListWidget side at exit)
    os._exit(0)
