"""Scrolling a thread of 1,000 image messages, in a fresh process.

``python -m tests.bench._images_child parley DATA_DIR THREAD_ID`` scrolls Parley's chat view
through the whole thread; ``... peer DATA_DIR THREAD_ID`` does the same with a plain
``QListWidget`` holding the same 1,000 thumbnails as icons (decoded up front, as a list
widget needs them). Each prints one JSON object of frame times (scroll step + repaint).
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
    if mode == "peer":
        return _peer(data_dir, thread_id)
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        return loop.run_until_complete(_parley(data_dir, thread_id))


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
