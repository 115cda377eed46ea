"""Crash safety in the real window: a widget slot that raises, and a background task that
fails, open ``crashDialog`` with a report that can be copied and holds neither the message
text nor secrets; the window keeps working and nothing is lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QListView, QPlainTextEdit, QPushButton

from app.secrets.known import remember_secret
from app.ui.crash import CrashDialog, install_crash_handler
from app.ui.tasks import spawn
from tests.ui.harness import (
    Models,
    app,
    close_test_window,
    find,
    open_test_window,
    press,
    type_text,
    wait_until,
)

SECRET = "sk-crash-marker-secret-0b1f"
WORDS = "my private words about the budget"


class Exploded(RuntimeError):
    """A failure nobody expected."""


@pytest.mark.qt_no_exception_capture
async def test_a_slot_that_raises_opens_the_report_and_the_window_keeps_working(
    tmp_path: Path,
) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "Still here."}]}))
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()
    handler = install_crash_handler(lambda: window, loop)
    remember_secret(SECRET)
    try:
        composer = find(window, QPlainTextEdit, "composer")
        type_text(composer, WORDS)

        def on_click() -> None:
            raise Exploded(f"{WORDS} {SECRET}")

        button = QPushButton("Boom", window)
        button.clicked.connect(on_click)
        button.show()
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(
            lambda: window.findChild(CrashDialog, "crashDialog"), what="the crash dialog"
        )
        assert dialog.isVisible()
        summary = find(dialog, QLabel, "crashSummary").text()
        assert summary == (
            "Parley hit an unexpected problem (Exploded in on_click). Your threads are saved "
            "and Parley keeps running. If it happens again, copy the details into a bug report."
        )
        details = find(dialog, QPlainTextEdit, "crashDetails").toPlainText()
        assert "Caught in: a window event" in details
        assert 'raise Exploded(f"{WORDS} {SECRET}")' in details  # the code line, not values
        assert "Exploded (its text is left out)" in details
        assert WORDS not in details and SECRET not in details
        click = find(dialog, QPushButton, "copyCrashDetails")
        QTest.mouseClick(click, Qt.MouseButton.LeftButton)
        assert app().clipboard().text() == details

        # a failing background task lands in the same dialog
        async def fails() -> None:
            raise ValueError(WORDS)

        spawn(fails())
        await wait_until(lambda: dialog.count == 2, what="the second report")
        assert "2 unexpected problems (the latest: ValueError in fails)" in (
            find(dialog, QLabel, "crashSummary").text()
        )
        assert WORDS not in find(dialog, QPlainTextEdit, "crashDetails").toPlainText()
        dialog.reject()

        # nothing was lost: the typed text is still there and sending works
        assert composer.toPlainText() == WORDS
        press(composer, Qt.Key.Key_Return)
        chat = find(window, QListView, "chatView")
        await wait_until(
            lambda: [m.text() for m in chat.vm.model.messages()] == [WORDS, "Still here."],
            what="the reply after the crash",
        )
    finally:
        handler.uninstall()
        loop.set_exception_handler(previous)
        await close_test_window(window)


async def test_a_loop_error_without_an_exception_is_only_logged(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()
    handler = install_crash_handler(lambda: window, loop)
    try:
        loop.call_exception_handler({"message": "a socket closed oddly"})
        await asyncio.sleep(0.05)
        assert window.findChild(CrashDialog, "crashDialog") is None
    finally:
        handler.uninstall()
        loop.set_exception_handler(previous)
        await close_test_window(window)
