"""Replies streamed into the window, in a fresh process: the longest event-loop stall of each.

``python -m bench._stream_child DATA_DIR CHARS REPLIES AT_ONCE [THREAD_ID]`` opens the
window, then streams ``REPLIES`` times a Markdown reply of about ``CHARS`` characters (short
paragraphs with bold, code and links) as fast as the model gives it, ``AT_ONCE`` replies at a
time, each into a new thread shown in the window, or into ``THREAD_ID`` when given (a long
thread). It prints one JSON object: the stall of each round, in milliseconds, the first round
first, and an idle window's stall.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def markdown_reply(chars: int, seed: int = 0) -> str:
    """A reply of about ``chars`` characters: short paragraphs with bold, code and links, now
    and then a list or a code fence, as a chat model writes."""
    parts: list[str] = []
    size, i = 0, seed
    while size < chars:
        if i % 25 == 24:
            part = f"```python\ndef step_{i}(x):\n    return x * {i}\n```\n\n"
        elif i % 10 == 9:
            part = f"- item **{i}** with `value_{i}`\n- another [link](https://example.org/{i})\n\n"
        else:
            part = (
                f"Paragraph {i} has **bold words**, some `inline_code({i})` and a "
                f"[link](https://example.org/p/{i}).\n\n"
            )
        parts.append(part)
        size += len(part)
        i += 1
    return "".join(parts)


async def _longest_gap(until: asyncio.Future[object] | None, seconds: float) -> float:
    """The longest time the loop did not run a 1 ms sleep, until ``until`` is done (then a
    little longer, for the reply's last updates) or for ``seconds``."""
    worst = 0.0
    last = time.perf_counter()
    end = last + seconds
    while True:
        now = time.perf_counter()
        if until is not None and until.done():
            until, end = None, now + 0.3
        if until is None and now >= end:
            return worst
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        worst = max(worst, now - last - 0.001)
        last = now


async def _run(data_dir: str, chars: int, replies: int, at_once: int, thread: str) -> object:
    from PySide6.QtWidgets import QApplication

    from app.core.models import ScriptedChatModel
    from app.services.settings import AppSettings
    from app.ui.app import close_window, open_window, warm_up
    from app.ui.collector import MainThreadCollector

    def model(spec: str) -> ScriptedChatModel:
        text = markdown_reply(chars, seed=len(spec))
        return ScriptedChatModel(lambda _messages: {"text": text}, delay=0.0, chunk_size=6)

    MainThreadCollector(QApplication.instance())  # as the app collects garbage
    window = await open_window(
        data_dir,
        thread_id=thread or None,
        preload=False,
        check_store=False,
        resolve_model=model,
        secret_resolver=lambda _ref: "",
    )
    assert window is not None
    workspace = window.workspace
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    window.resize(1200, 800)
    await warm_up(window)  # as the app does a second after start
    await asyncio.sleep(1.5)  # the opened thread's layout and collection are done
    idle = await _longest_gap(None, 1.0)
    stalls = []
    for _ in range(replies):
        threads = []
        for k in range(at_once):
            if thread and k == 0:
                threads.append(thread)
            else:
                threads.append((await workspace.threads.create(model=f"scripted:{k}")).id)
        await window.open_thread(threads[0])
        tasks = [await workspace.runs.send(t, "go") for t in threads]
        done = asyncio.ensure_future(asyncio.gather(*tasks))
        stalls.append(await _longest_gap(done, 600) * 1000)
    rows = window.chat.model().rowCount()
    await close_window(window)
    return {"stalls_ms": stalls, "idle_ms": idle * 1000, "rows": rows}


def main(argv: list[str]) -> int:
    """Run the measurement named by ``argv`` and print its JSON."""
    import qasync
    from PySide6.QtWidgets import QApplication

    data_dir, chars, replies, at_once = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    thread = argv[4] if len(argv) > 4 else ""
    from app.ui.qt_env import prepare_qt_environment

    prepare_qt_environment()  # as the app starts Qt
    app = QApplication([])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        result = loop.run_until_complete(_run(data_dir, chars, replies, at_once, thread))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
