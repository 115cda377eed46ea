"""Math in the chat, measured in a fresh process.

``python -m bench._math_child typeset`` typesets a display formula first thing (the
typesetter and its font loading too), then a new one with the typesetter loaded, then the
same one again from the cache, beside laying out the formula's source as plain text.
``... scroll DATA_DIR THREAD_ID`` opens the thread (watching the longest event-loop stall
until its first page's formulas are typeset), brings every page in, lays it all out
(typesetting its formulas) and scrolls through it, frame by frame. Each prints one JSON
object.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FIRST = r"x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}"
SECOND = r"\sum_{k=1}^{n} k^2 = \frac{n(n+1)(2n+1)}{6}"
STEP = 120
"""Pixels per frame, about one wheel notch and a half."""


def _typeset() -> dict[str, float]:
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import QApplication

    _app = QApplication(["bench"])
    from app.ui.chat.math.cache import MathImages
    from app.ui.chat.math.render import MathStyle
    from app.ui.chat.math.syntax import MathSource

    style = MathStyle(13.0, "#1f2328", 4.5, 1.0)
    images = MathImages()
    t = time.perf_counter()
    images.get(MathSource(FIRST, "$$"), style)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    images.get(MathSource(SECOND, "$$"), style)
    first = time.perf_counter() - t
    hits = []
    for _ in range(200):
        t = time.perf_counter()
        images.get(MathSource(SECOND, "$$"), style)
        hits.append(time.perf_counter() - t)
    texts = []
    for _ in range(20):
        t = time.perf_counter()
        doc = QTextDocument()
        doc.setPlainText(f"$${SECOND}$$")
        doc.setTextWidth(600)
        doc.size()
        texts.append(time.perf_counter() - t)
    return {
        "cold_ms": cold * 1000,
        "first_ms": first * 1000,
        "cached_ms": statistics.median(hits) * 1000,
        "text_ms": statistics.median(texts) * 1000,
    }


async def _until_typeset(window: Any) -> None:
    """Wait until the chat's formulas in the background are typeset (at most a minute)."""
    for _ in range(6000):
        if not window.chat.delegate.typesetting:
            return
        await asyncio.sleep(0.01)


async def _scroll(data_dir: str, thread_id: str) -> dict[str, float]:
    from app.services.workspace import Workspace
    from app.ui.app import close_window
    from app.ui.chat.math.cache import math_images
    from app.ui.window import MainWindow

    workspace = await Workspace.open(data_dir, resolve_model=lambda s: None)  # type: ignore[arg-type,return-value]
    window = MainWindow(workspace)
    window.resize(1200, 800)
    window.show()
    gaps: list[float] = []
    after: list[float] = []
    """The loop's gaps while the thread opens and is typeset; those after it opened."""
    watching, opening = True, True

    async def watch() -> None:
        # the longest time the loop did not run while the thread opens and is typeset
        last = time.perf_counter()
        while watching:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last - 0.001)
            if not opening:
                after.append(now - last - 0.001)
            last = now

    watcher = asyncio.ensure_future(watch())
    t0 = time.perf_counter()
    await window.open_thread(thread_id)
    window.chat.doItemsLayout()
    window.repaint()
    opened = time.perf_counter() - t0
    await asyncio.sleep(0)  # the opening's own stall is behind
    opening = False
    await _until_typeset(window)  # the first page's formulas, in the background
    first_page = time.perf_counter() - t0
    watching = False
    await watcher
    while window.chat_vm.can_load_older():  # every page in, as scrolling up would bring them
        await window.chat_vm.load_older()
    window.chat.doItemsLayout()
    await _until_typeset(window)
    window.chat.doItemsLayout()
    setup = time.perf_counter() - t0
    bar = window.chat.verticalScrollBar()
    bar.setValue(0)
    frames: list[float] = []
    for _ in range(2):  # down and up again (more rows than the layouts kept: laid out again)
        while bar.value() < bar.maximum():
            t = time.perf_counter()
            bar.setValue(bar.value() + STEP)
            window.chat.viewport().repaint()
            frames.append(time.perf_counter() - t)
            await asyncio.sleep(0)
        while bar.value() > 0:
            t = time.perf_counter()
            bar.setValue(bar.value() - STEP)
            window.chat.viewport().repaint()
            frames.append(time.perf_counter() - t)
            await asyncio.sleep(0)
    rows = window.chat.model().rowCount()
    stats = math_images().stats
    await close_window(window)
    frames.sort()
    return {
        "frames": len(frames),
        "p50_ms": statistics.median(frames) * 1000,
        "p95_ms": frames[int(len(frames) * 0.95) - 1] * 1000,
        "max_ms": frames[-1] * 1000,
        "open_s": opened,
        "first_page_s": first_page,
        "stall_ms": max(gaps, default=0.0) * 1000,
        "typeset_stall_ms": max(after, default=0.0) * 1000,
        "setup_s": setup,
        "rows": rows,
        "typeset": stats.renders,
    }


def main(argv: list[str]) -> dict[str, float]:
    """Run the measurement ``argv`` names and return its figures."""
    # PySide6 6.12 on Python 3.11 runs None's reference count down: the app's guard
    from app.ui import keep_none_alive

    keep_none_alive()
    if argv[0] == "typeset":
        return _typeset()
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.ui.qt_env import prepare_qt_environment

    prepare_qt_environment()  # as the app starts Qt
    app = QApplication([])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        return loop.run_until_complete(_scroll(argv[1], argv[2]))


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])), flush=True)
    os._exit(0)  # the figures are out: skip the teardown, where PySide's objects go in no order
