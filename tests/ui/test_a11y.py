"""What a screen reader is told: a finished reply is announced, politely and from the chat,
with its text. The announcements are heard where a screen reader's bridge hears them, at Qt's
own accessibility update handler, with assistive technology switched on as a screen reader
switches it on."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import PySide6
import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QAccessibleEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QListView, QPlainTextEdit

from app.services.agents import Agent
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until

Heard = tuple[QObject, str, QAccessible.AnnouncementPoliteness]

_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_INSTALL = "_ZN11QAccessible20installUpdateHandlerEPFvP16QAccessibleEventE"
"""``QAccessible::installUpdateHandler``, which the Python binding does not offer."""


@contextmanager
def announcements() -> Iterator[list[Heard]]:
    """Switch assistive technology on and record every announcement Qt hands on (the widget
    it is made for, its text, its politeness), as a screen reader's bridge receives it."""
    gui = ctypes.CDLL(str(Path(PySide6.__file__).parent / "Qt" / "lib" / "libQt6Gui.so.6"))
    install = getattr(gui, _INSTALL)
    install.restype = ctypes.c_void_p
    install.argtypes = [ctypes.c_void_p]
    heard: list[Heard] = []

    def hear(address: int) -> None:
        event = shiboken6.wrapInstance(address, QAccessibleEvent)
        if event.type() == QAccessible.Event.Announcement:
            said = shiboken6.wrapInstance(address, QAccessibleAnnouncementEvent)
            heard.append((said.object(), said.message(), said.politeness()))

    handler = _HANDLER(hear)
    was_active = QAccessible.isActive()
    previous = install(ctypes.cast(handler, ctypes.c_void_p))
    QAccessible.setActive(True)
    try:
        yield heard
    finally:
        QAccessible.setActive(was_active)
        install(previous)


async def test_a_finished_reply_is_announced_with_its_text(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "Paris is the capital of France."}]})
    with announcements() as heard:
        window = await open_test_window(tmp_path, models)
        try:
            composer = find(window, QPlainTextEdit, "composer")
            composer.setFocus()
            QTest.keyClicks(composer, "What is the capital of France?")
            QTest.keyClick(composer, Qt.Key.Key_Return)
            await wait_until(lambda: heard, what="an announcement")
            chat = find(window, QListView, "chatView")
            assert heard == [
                (
                    chat,
                    "Parley replied: Paris is the capital of France.",
                    QAccessible.AnnouncementPoliteness.Polite,
                )
            ]
            assert window.focusWidget() is composer  # read out without taking the focus
        finally:
            await close_test_window(window)


async def test_an_agents_reply_is_announced_in_its_name(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "High tide is at noon."}]})
    with announcements() as heard:
        window = await open_test_window(tmp_path, models)
        try:
            scout = await window.workspace.agents.add(Agent(name="Scout"))
            await window.new_thread(scout.id)
            composer = find(window, QPlainTextEdit, "composer")
            await wait_until(lambda: "Scout" in composer.placeholderText(), what="Scout's box")
            QTest.keyClicks(composer, "When is high tide?")
            QTest.keyClick(composer, Qt.Key.Key_Return)
            await wait_until(lambda: heard, what="an announcement")
            assert [text for _widget, text, _politeness in heard] == [
                "Scout replied: High tide is at noon."
            ]
        finally:
            await close_test_window(window)
