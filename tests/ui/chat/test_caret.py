"""A streaming reply shows a blinking caret after its last word; the caret's one timer runs
only while a reply streams, and a finished reply shows none."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtGui import QColor, QPalette

from app.core.state import Message
from app.ui.app import close_window
from app.ui.chat.view import ChatView
from tests.ui.harness import Models, find, open_test_window, wait_until

REPLY = " ".join(["Tides rise and fall twice a day."] * 20)


def _text(message: Message | None) -> str:
    return message.text() if message is not None else ""


def _inked(view: ChatView) -> bool:
    """Whether the caret's place on screen holds a pixel of the text's colour."""
    caret = view.caret.drawn
    image = view.viewport().grab(caret).toImage()
    text = view.palette().color(QPalette.ColorRole.Text)
    return any(
        QColor(image.pixel(x, y)) == text
        for x in range(image.width())
        for y in range(image.height())
    )


async def test_a_streaming_reply_shows_a_blinking_caret_that_goes_when_it_ends(
    tmp_path: Path,
) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [REPLY]}, delay=0.05))
    try:
        view = find(window, ChatView, "chatView")
        assert not view.caret.ticking()  # nothing moves while nothing streams
        assert await window.chat_vm.send("Tell me about tides.")
        model = window.chat_vm.model
        await wait_until(
            lambda: model.rowCount() == 2 and len(_text(model.message_at(1))) > 20,
            what="the reply to start",
        )
        await wait_until(lambda: not view.caret.drawn.isNull(), what="the caret drawn")
        assert view.caret.ticking()
        reply = view.visualRect(model.index(1, 0))
        assert reply.contains(view.caret.drawn.center())
        phases = set()
        for _ in range(20):  # two seconds: the caret shows, hides and shows again
            view.viewport().repaint()
            phases.add((view.caret.shown, _inked(view)))
            await asyncio.sleep(0.1)
        assert phases == {(True, True), (False, False)}  # drawn when shown, gone when hidden
        await wait_until(lambda: window.chat_vm.status() != "running", what="the run to end")
        assert not view.caret.ticking() and view.caret.drawn.isNull()
    finally:
        await close_window(window)
