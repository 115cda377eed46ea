"""The tools menu's Knowledge entry: shown only while a knowledge folder exists, it switches the
passages put before the open thread's questions off and on, and the thread keeps its choice
when the window is opened again."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction

from app.core.state import Message
from tests.knowledge.corpus import make_corpus
from tests.ui.harness import Models, close_test_window, open_test_window, wait_until
from tests.ui.tools.test_tools_menu import ask, button

QUESTION = "When should I water the courgettes?"


def _toggle(window: Any) -> QAction | None:
    tools = button(window)
    tools.rebuild()
    return tools.menu_.findChild(QAction, "knowledgeAutoToggle")


async def test_the_menu_switches_the_automatic_passages_and_the_thread_keeps_it(
    tmp_path: Path,
) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    seen: list[str] = []

    def reply(messages: Sequence[Message]) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "In the evening."}

    window = await open_test_window(tmp_path / "data", Models({"scripted:a": reply}))
    try:
        assert _toggle(window) is None  # no knowledge folder yet
        await window.workspace.knowledge.add_folder(root)
        await window.workspace.knowledge.wait_idle()
        toggle = _toggle(window)
        assert toggle is not None and toggle.isCheckable() and toggle.isChecked()
        assert toggle.text() == "Passages before each question"
        await ask(window, QUESTION)
        assert seen[-1].startswith("Passages from the user's documents:")
        toggle.trigger()
        thread = window.chat_vm.thread_id
        tools = window.workspace.tools
        await wait_until(lambda: not tools.auto_passages(thread), what="the switch saved")
        answer = await ask(window, QUESTION)
        assert seen[-1] == QUESTION
        assert answer.text() == "In the evening."
        assert [a for b in answer.content for a in getattr(b, "annotations", [])] == []
    finally:
        await close_test_window(window)

    window = await open_test_window(tmp_path / "data", Models({"scripted:a": reply}))
    try:
        assert window.chat_vm.thread_id == thread
        toggle = _toggle(window)
        assert toggle is not None and not toggle.isChecked()
        toggle.trigger()
        await wait_until(lambda: window.workspace.tools.auto_passages(thread), what="back on")
        await window.workspace.knowledge.wait_idle()
        await ask(window, QUESTION)
        assert seen[-1].startswith("Passages from the user's documents:")
    finally:
        await close_test_window(window)
