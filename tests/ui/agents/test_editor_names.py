"""The agent editor as you type: a name that looks like another agent's, and two delegates
that would be asked through one tool, each show a sentence under the field and keep Save off."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QListWidget, QPushButton, QWidget

from app.services.agents import Agent
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


def tick(list_widget: QListWidget, name: str) -> None:
    for i in range(list_widget.count()):
        item = list_widget.item(i)
        if item.data(Qt.ItemDataRole.UserRole) == name:
            item.setCheckState(Qt.CheckState.Checked)
            return
    raise AssertionError(f"no {name!r} to tick")


async def editor_of(window: QWidget) -> QDialog:
    return await wait_until(
        lambda: (e := window.findChild(QDialog, "agentEditor")) and e.isVisible() and e,
        what="the agent editor",
    )


async def test_look_alike_names_and_clashing_delegates_show_as_you_type(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    agents = window.workspace.agents
    try:
        for name in ("Researcher", "C++", "C#"):
            await agents.add(Agent(name=name))
        task = asyncio.ensure_future(window.agent_part.new_agent())
        editor = await editor_of(window)
        save_button = find(editor, QPushButton, "saveAgentButton")
        name = find(editor, QLineEdit, "agentName")
        name.setText("R\u0435searcher")  # a Cyrillic е
        assert find(editor, QLabel, "agentNameProblem").text() == (
            "The name mixes Latin and Cyrillic letters in one word, so it can pass for another; "
            "type each word in one alphabet."
        )
        assert not save_button.isEnabled()
        name.setText("Par1ey")
        assert find(editor, QLabel, "agentNameProblem").text() == (
            "The name looks the same as Parley, another agent's name, written with other "
            "letters; choose a name that reads differently."
        )
        name.setText("Lead")
        assert not find(editor, QLabel, "agentNameProblem").isVisible()
        assert save_button.isEnabled()
        delegates = find(editor, QListWidget, "agentDelegates")
        tick(delegates, "C++")
        tick(delegates, "C#")
        problem = find(editor, QLabel, "agentDelegatesProblem")
        assert problem.isVisible() and problem.text() == (
            "C# and C++ would both be asked through ask_c; rename one of them."
        )
        assert not save_button.isEnabled()
        editor.reject()
        assert await task is None
    finally:
        await close_test_window(window)
