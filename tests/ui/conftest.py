"""UI tests run on a real qasync loop (QTimers fire) with offscreen Qt, and fail on any task
error the loop only logged."""

from __future__ import annotations

import asyncio
import gc
import io
import os
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from app.ui.collector import MainThreadCollector
from tests.services.memory_keyring import memory_keyring, no_keyring

__all__ = ["memory_keyring", "no_keyring"]

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TASK_END_S = 20.0
"""How long the tasks a test left may take to end once cancelled."""


def pytest_asyncio_loop_factories(config: Any, item: Any) -> dict[str, Any]:
    """Hand every async test here a qasync loop on the one QApplication."""

    def make() -> asyncio.AbstractEventLoop:
        import qasync
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication(["parley-tests"])
        app.setQuitOnLastWindowClosed(False)  # closing a test window must not stop the loop
        return qasync.QEventLoop(app)

    return {"qasync": make}


@pytest.fixture(autouse=True)
async def _fail_on_loop_errors() -> AsyncIterator[None]:
    loop = asyncio.get_running_loop()
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    yield
    await asyncio.sleep(0)
    assert not errors, f"the event loop reported errors: {errors}"


@pytest.fixture(autouse=True)
async def _end_leftover_tasks() -> AsyncIterator[None]:
    """After the test (and its window) has closed, cancel the tasks it left and give them a
    bounded time to end on the running loop. A task that will not end is named on stderr
    with its stack and fails the test, where the loop's own close would wait for it for ever."""
    yield
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    for task in left:
        task.cancel()
    if not left:
        return
    _done, stuck = await asyncio.wait(left, timeout=TASK_END_S)
    if stuck:
        out = io.StringIO()
        for task in stuck:
            task.print_stack(file=out)
        print(f"tasks that would not end:\n{out.getvalue()}", file=sys.__stderr__, flush=True)
        pytest.fail(f"{len(stuck)} task(s) would not end after being cancelled: {stuck}")


@pytest.fixture(autouse=True)
def _file_dialogs_start_afresh() -> None:
    """Each test is a session of its own: its file dialogs open in its home folder first."""
    from app.ui.file_dialogs import forget_folders

    forget_folders()


@pytest.fixture(autouse=True)
def _collect_on_the_main_thread() -> Iterator[None]:
    """Collect garbage only on the GUI thread, as the app does (``app/ui/collector.py``): a
    collection that happens to run on a worker thread would destroy Qt objects there."""
    collector = MainThreadCollector()
    yield
    collector.stop()
    gc.collect()
