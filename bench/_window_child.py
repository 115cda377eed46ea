"""One window measurement in a fresh process (so start-up time and memory are its own).

``python -m bench._window_child MODE DATA_DIR [THREAD_ID]`` prints one JSON object.
Modes: ``launch`` (app start to window painted), ``baseline`` (a bare Qt window, the floor),
``answer`` (the window and its child processes' memory after one answer on the bundled model),
``open`` (open a long thread to first paint, RSS after), ``stall`` (longest event-loop stall
while replies stream at about 200 tokens/s, in one and in two threads, and with none),
``unfold`` (longest stall while the thread's last tool card unfolds and folds, its height
moving, and at once as a style that animates nothing has it).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

START = time.perf_counter()
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _rss_mb(pid: int | str = "self") -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def baseline() -> dict[str, float]:
    from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

    app = QApplication([])
    window = QMainWindow()
    window.setCentralWidget(QLabel("hello"))
    window.resize(1200, 800)
    window.show()
    window.repaint()
    shown = time.perf_counter() - START
    app.quit()
    return {"shown_s": shown}


async def _launch(data_dir: str) -> dict[str, float]:
    from PySide6.QtWidgets import QListView, QPlainTextEdit

    from app.ui.app import close_window, open_window

    window = await open_window(data_dir, preload=False)
    composer = window.findChild(QPlainTextEdit, "composer")
    threads = window.findChild(QListView, "threadList")
    while not (window.focusWidget() is composer and threads.isVisible()):  # noqa: ASYNC110
        await asyncio.sleep(0)  # until it is usable: the thread list up, the composer focused
    window.repaint()
    shown = time.perf_counter() - START
    await close_window(window)
    return {"shown_s": shown}


def _pss_mb(pid: int) -> float:
    """Proportional set size of ``pid`` in MB (shared pages split among their users), or its
    RSS where smaps_rollup cannot be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return _rss_mb(pid)


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        return found
    for child in children:
        found += [child, *_descendants(child)]
    return found


def _kind(path: str) -> str:
    if path.endswith(".gguf"):
        return "model file (mapped)"
    if "/PySide6/" in path:
        return "Qt and PySide6 libraries"
    if "/llama_cpp/" in path:
        return "llama.cpp libraries"
    if path.startswith("/"):
        return "other files (Python, .so)"
    return "anonymous (heaps, KV cache)" if path in ("", "[heap]") else path


def _breakdown() -> list[tuple[str, float, float]]:
    """This process's memory by what is mapped (RSS and PSS, MB), largest first."""
    rss: dict[str, int] = {}
    pss: dict[str, int] = {}
    kind = ""
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split(None, 5)
            if "-" in head[0] and not head[0].endswith(":"):
                kind = _kind(head[5].strip() if len(head) > 5 else "")
            elif head[0] == "Rss:":
                rss[kind] = rss.get(kind, 0) + int(head[1])
            elif head[0] == "Pss:":
                pss[kind] = pss.get(kind, 0) + int(head[1])
    rows = [(k, v / 1024, pss.get(k, 0) / 1024) for k, v in rss.items()]
    return sorted((r for r in rows if r[1] >= 1), key=lambda r: -r[1])


def memory_in_all() -> dict[str, float]:
    """This process's and its child processes' memory (PSS, MB), each and summed."""
    own = _pss_mb(os.getpid())
    pids = _descendants(os.getpid())
    children = [_pss_mb(pid) for pid in pids]
    rss = [_rss_mb(pid) for pid in pids]
    return {"window_mb": own, "children_mb": sum(children), "children": len(children),
            "children_rss_mb": sum(rss), "total_mb": own + sum(children)}  # fmt: skip


async def _answer(data_dir: str) -> dict[str, float]:
    from PySide6.QtWidgets import QListView, QPlainTextEdit

    from app.ui.app import close_window, open_window, warm_up

    window = await open_window(data_dir, model="local")
    assert window is not None
    composer = window.findChild(QPlainTextEdit, "composer")
    threads = window.findChild(QListView, "threadList")
    assert threads is not None
    while not (window.focusWidget() is composer and threads.isVisible()):  # noqa: ASYNC110
        await asyncio.sleep(0)
    shown = _pss_mb(os.getpid())
    await warm_up(window)  # what the app does once the window is up
    warm = _pss_mb(os.getpid())
    thread_id = window.chat_vm.thread_id
    assert thread_id is not None
    await (await window.workspace.runs.send(thread_id, "What is the capital of France?"))
    window.chat.doItemsLayout()
    window.repaint()
    await asyncio.sleep(1.5)  # whatever the answer set going settles
    result = memory_in_all()
    result.update(rss_mb=_rss_mb(), shown_mb=shown, warm_mb=warm)
    if os.environ.get("PARLEY_BENCH_BREAKDOWN"):
        for where, rss, pss in _breakdown():
            print(f"{where:32} RSS {rss:6.1f} MB  PSS {pss:6.1f} MB", file=sys.stderr)
        import linecache

        held = sum(len("".join(linecache.getlines(name))) for name in list(linecache.cache))
        print(f"linecache: {len(linecache.cache)} files, {held / 2**20:.1f} MB", file=sys.stderr)
        loaded = sorted({name.split(".")[0] for name in sys.modules})
        print(f"top-level modules loaded: {' '.join(loaded)}", file=sys.stderr)
    await close_window(window)
    return result


async def _open(data_dir: str, thread_id: str) -> dict[str, float]:
    from app.services.workspace import Workspace
    from app.ui.app import close_window
    from app.ui.window import MainWindow

    workspace = await Workspace.open(data_dir)
    window = MainWindow(workspace)
    window.resize(1200, 800)
    window.show()
    await window.threads_vm.refresh()
    t0 = time.perf_counter()
    await window.open_thread(thread_id)
    window.chat.doItemsLayout()
    window.repaint()
    opened = time.perf_counter() - t0
    rss = _rss_mb()
    t0 = time.perf_counter()
    await workspace._store.checkpointer.aget(
        thread_id, __import__("app.core.state", fromlist=["AgentState"]).AgentState
    )
    full = time.perf_counter() - t0
    rows = window.chat.model().rowCount()
    await close_window(window)
    return {"open_s": opened, "rss_mb": rss, "full_load_s": full, "rows": rows}


async def _stall(data_dir: str) -> dict[str, float]:
    from app.core.models import ScriptedChatModel
    from app.services.settings import AppSettings
    from app.services.workspace import Workspace
    from app.ui.app import close_window
    from app.ui.window import MainWindow

    reply = "token " * 600  # 600 chunks of 4-6 characters at ~5 ms: about 200 tokens/s
    models = {
        "a": ScriptedChatModel([{"text": reply}], delay=0.005, chunk_size=6),
        "b": ScriptedChatModel([{"text": reply}], delay=0.005, chunk_size=6),
    }
    workspace = await Workspace.open(
        data_dir,
        resolve_model=lambda spec: models[spec.split(":", 1)[1]],
        secret_resolver=lambda ref: "",
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    window = MainWindow(workspace)
    window.resize(1200, 800)
    window.show()
    await window.start(preload=False)
    _settle()

    async def longest_gap(seconds: float) -> float:
        worst = 0.0
        end = time.perf_counter() + seconds
        last = time.perf_counter()
        while time.perf_counter() < end:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst = max(worst, now - last - 0.001)
            last = now
        return worst

    idle = await longest_gap(1.0)
    first = window.chat_vm.thread_id
    assert first is not None
    task = await workspace.runs.send(first, "go")
    one = await longest_gap(2.0)
    await task
    second = (await workspace.threads.create(model="scripted:b")).id
    models["a"] = ScriptedChatModel([{"text": reply}], delay=0.005, chunk_size=6)
    workspace.models.forget()
    t1 = await workspace.runs.send(first, "again")
    t2 = await workspace.runs.send(second, "go")
    two = await longest_gap(2.0)
    await asyncio.gather(t1, t2)
    await close_window(window)
    return {"idle_ms": idle * 1000, "one_ms": one * 1000, "two_ms": two * 1000}


def _settle() -> None:
    from PySide6.QtWidgets import QApplication

    from app.ui.collector import MainThreadCollector

    collector = QApplication.instance().findChild(MainThreadCollector)  # type: ignore[union-attr]
    if collector is not None:
        collector.settle()  # as open_window does once the window is up


async def _unfold(data_dir: str, thread_id: str) -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    from app.services.workspace import Workspace
    from app.ui.app import close_window
    from app.ui.chat.unfolding import StillStyle
    from app.ui.window import MainWindow

    workspace = await Workspace.open(data_dir)
    window = MainWindow(workspace)
    window.resize(1200, 800)
    window.show()
    await window.start(preload=False)
    await window.open_thread(thread_id)
    _settle()
    view = window.chat
    row = view.model().rowCount() - 2  # the call; its result is drawn on its card
    message = view.vm.model.message_at(row)
    assert message is not None
    toggle = f"toggle:{message.message_id}:0"
    view.scrollToBottom()
    await asyncio.sleep(0.5)

    async def longest_gap(seconds: float) -> float:
        worst, last = 0.0, time.perf_counter()
        end = last + seconds
        while time.perf_counter() < end:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst, last = max(worst, now - last - 0.001), now
        return worst

    async def toggled(times: int) -> float:
        view.delegate.forget(str(message.message_id))  # each series lays the card out anew
        worst = 0.0
        for _ in range(times):
            view._on_link(toggle, row)
            worst = max(worst, await longest_gap(0.4))
        return worst

    moving = await toggled(6)
    still = StillStyle()  # kept while the view uses it
    view.setStyle(still)
    instant = await toggled(6)
    view.setStyle(QApplication.style())  # the application's again
    await close_window(window)
    return {"moving_ms": moving * 1000, "instant_ms": instant * 1000}


def main(argv: list[str]) -> int:
    mode = argv[0]
    if mode == "baseline":
        print(json.dumps(baseline()))
        return 0
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.ui.collector import MainThreadCollector
    from app.ui.qt_env import prepare_qt_environment

    prepare_qt_environment()  # as the app starts Qt
    app = QApplication([])
    app.setQuitOnLastWindowClosed(False)
    MainThreadCollector(app, starting=True)  # garbage is collected as in the app
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    coro = {
        "launch": lambda: _launch(argv[1]),
        "open": lambda: _open(argv[1], argv[2]),
        "stall": lambda: _stall(argv[1]),
        "unfold": lambda: _unfold(argv[1], argv[2]),
        "answer": lambda: _answer(argv[1]),
    }[mode]()
    with loop:
        result = loop.run_until_complete(coro)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
