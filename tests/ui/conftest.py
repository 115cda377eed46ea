"""UI tests run on a real qasync loop (QTimers fire) with offscreen Qt, and fail on any task
error the loop only logged."""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from app.ui.collector import MainThreadCollector
from tests.services.memory_keyring import memory_keyring, no_keyring

__all__ = ["memory_keyring", "no_keyring"]

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


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
