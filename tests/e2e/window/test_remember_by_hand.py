"""Remembering by hand in the real window: **Remember this…** on a reply opens a dialog with
its text to edit, Keep keeps the edited text with the reply as its source; ``/remember TEXT``
typed in the message box keeps it as added by you and sends nothing; an incognito thread
offers no Remember this."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QPlainTextEdit, QPushButton

from app.ui.app import close_window
from app.ui.memory.remember import RememberDialog
from tests.e2e.window.test_memory_journeys import _answer, _idle
from tests.ui.approval_harness import Recorder, open_tool_window, send
from tests.ui.harness import find, type_text, wait_until


async def _kept(window: Any) -> list[Any]:
    """The memories kept, once there is one."""
    for _ in range(500):
        kept = await window.workspace.memory.list(every=True)
        if kept:
            return list(kept)
        await asyncio.sleep(0.02)
    raise AssertionError("timed out waiting for the memory to be kept")


async def test_remember_this_on_a_reply_keeps_the_edited_text_with_its_source(
    tmp_path: Path,
) -> None:
    model = Recorder([{"text": "Your train leaves Lyon Part-Dieu at 07:42 on platform G."}])
    window = await open_tool_window(tmp_path / "data", model, tools=[])
    try:
        thread_id = window.chat_vm.thread_id
        await send(window, "When is my train?")
        row = await _answer(window, "Your train leaves Lyon Part-Dieu at 07:42 on platform G.")
        await _idle(window)
        menu = window.chat._menu_for(row)
        assert menu is not None
        (action,) = [a for a in menu.actions() if a.objectName() == "rememberThisAction"]
        assert action.text() == "Remember this…" and action.isEnabled()
        action.trigger()
        dialog = await wait_until(
            lambda: next((d for d in window.findChildren(RememberDialog) if d.isVisible()), None),
            what="the Remember this dialog",
        )
        text = find(dialog, QPlainTextEdit, "rememberText")
        assert text.toPlainText() == "Your train leaves Lyon Part-Dieu at 07:42 on platform G."
        text.selectAll()
        type_text(text, "The user takes the 07:42 train from Lyon Part-Dieu")
        find(dialog, QPushButton, "rememberKeepButton").click()
        kept = await _kept(window)
        (memory,) = kept
        assert memory.text == "The user takes the 07:42 train from Lyon Part-Dieu"
        assert memory.thread_id == thread_id
        reply = window.chat_vm.model.message_at(row)
        assert reply is not None and memory.message_id == str(reply.message_id)

        await window.incognito.set(str(thread_id), True)
        menu = window.chat._menu_for(row)
        assert menu is not None
        (action,) = [a for a in menu.actions() if a.objectName() == "rememberThisAction"]
        assert not action.isEnabled()  # nothing in an incognito thread is remembered
    finally:
        await close_window(window)


async def test_slash_remember_in_the_message_box_keeps_it_and_sends_nothing(
    tmp_path: Path,
) -> None:
    model = Recorder([{"text": "Not asked."}])
    window = await open_tool_window(tmp_path / "data", model, tools=[])
    try:
        await send(window, "/remember I am vegetarian")
        kept = await _kept(window)
        assert [(m.text, m.thread_id) for m in kept] == [("I am vegetarian", None)]
        composer = find(window, QPlainTextEdit, "composer")
        assert composer.toPlainText() == ""
        assert model.inputs == []  # nothing went to the model
        assert window.chat_vm.model.rowCount() == 0
    finally:
        await close_window(window)
