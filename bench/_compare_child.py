"""Three models compared side by side in the window, in a fresh process: the longest
event-loop stall of each comparison.

``python -m bench._compare_child DATA_DIR CHARS ROUNDS`` opens the window, then ``ROUNDS`` times
compares three scripted models through Compare… (the picker ticked as a person would), each
streaming a Markdown answer of about ``CHARS`` characters as fast as it is given, in a new
thread each time. It prints one JSON object: the stall of each round in milliseconds, the first
round (a warm-up) first, and an idle window's stall.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SPECS = ("scripted:a", "scripted:b", "scripted:c")


async def _run(data_dir: str, chars: int, rounds: int) -> object:
    from PySide6.QtWidgets import QApplication

    from app.core.models import ScriptedChatModel
    from app.services.settings import AppSettings
    from app.ui.app import close_window, open_window, warm_up
    from app.ui.collector import MainThreadCollector
    from bench._stream_child import _longest_gap, markdown_reply

    def model(spec: str) -> ScriptedChatModel:
        text = markdown_reply(chars, seed=len(spec) + ord(spec[-1]))
        return ScriptedChatModel(lambda _messages: {"text": text}, delay=0.0, chunk_size=6)

    MainThreadCollector(QApplication.instance())  # as the app collects garbage
    window = await open_window(
        data_dir, preload=False, check_store=False, resolve_model=model,
        secret_resolver=lambda _ref: "",
    )  # fmt: skip
    assert window is not None
    window.workspace.settings.use(AppSettings(default_model=SPECS[0], endpoints=list(SPECS[1:])))
    window.resize(1200, 800)
    await warm_up(window)  # as the app does a second after start
    await asyncio.sleep(1.5)
    idle = await _longest_gap(None, 1.0)
    stalls = []
    comparing = window.comparing
    for n in range(rounds):
        await window.new_thread()
        task = asyncio.ensure_future(comparing.start(f"Question {n}"))
        while comparing.picker is None:  # noqa: ASYNC110 (the picker opens on the loop)
            await asyncio.sleep(0.01)
        for spec in SPECS:
            comparing.picker.tick(spec)
        comparing.picker.accept()
        stalls.append(await _longest_gap(task, 600) * 1000)
        assert comparing.comparison is not None
        assert [c.state for c in comparing.comparison.columns] == ["done"] * 3
        comparing.leave()
    await close_window(window)
    return {"stalls_ms": stalls, "idle_ms": idle * 1000}


def main(argv: list[str]) -> int:
    """Run the measurement named by ``argv`` and print its JSON."""
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.ui.qt_env import prepare_qt_environment

    data_dir, chars, rounds = argv[0], int(argv[1]), int(argv[2])
    prepare_qt_environment()  # as the app starts Qt
    app = QApplication([])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        result = loop.run_until_complete(_run(data_dir, chars, rounds))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
