"""One real turn with the bundled model through the window, as a new user would do it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListView, QPlainTextEdit, QPushButton

from app.ui.app import close_window, open_window
from tests.ui.harness import find, press, type_text, wait_until

pytestmark = pytest.mark.slow


async def test_a_real_turn_on_the_bundled_model(tmp_path: Path) -> None:
    window = await open_window(str(tmp_path), model="local")
    try:
        status = find(window, QPushButton, "sendButton")
        composer = find(window, QPlainTextEdit, "composer")
        type_text(composer, "What is the capital of France?")
        press(composer, Qt.Key.Key_Return)
        view = find(window, QListView, "chatView")
        await wait_until(lambda: view.vm.model.rowCount() == 2, timeout=120, what="a reply")
        await wait_until(lambda: status.isVisible(), timeout=180, what="the reply to finish")
        reply = view.vm.model.message_at(1)
        assert reply is not None and reply.role == "assistant"
        assert reply.text().strip()
        assert not [b for b in reply.content if b.type == "error"]
        saved = await window.workspace.threads.read_messages(view.vm.thread_id)
        assert saved.messages[-1].text() == reply.text()
    finally:
        await close_window(window)
