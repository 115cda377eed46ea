"""A closed window goes away: once it is closed (as quitting or a restore closes it), nothing
keeps it, its widgets or its parts alive, so a restore that opens a new window leaves no old
one behind listening to the workspace."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from PySide6.QtWidgets import QPushButton

from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


def collected(ref: weakref.ref[object]) -> bool:
    gc.collect()
    return ref() is None


async def used_then_closed(tmp_path: Path) -> list[weakref.ref[object]]:
    """Open a window, send a message and open the settings, close it; weak references to the
    window and some of its parts."""
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "Hello there."}]}))
    window.composer.edit.setPlainText("Hi")
    find(window, QPushButton, "sendButton").click()
    await wait_until(lambda: window.chat_vm.model.rowCount() == 2, what="the answer")
    window.open_settings()
    parts: list[object] = [window, window.attachments, window.tools_button, window.chat_vm]
    await close_test_window(window)
    return [weakref.ref(p) for p in parts]


async def test_a_closed_window_is_freed_with_its_parts(tmp_path: Path) -> None:
    for part in await used_then_closed(tmp_path):
        await wait_until(lambda part=part: collected(part), what="the closed window to go")
