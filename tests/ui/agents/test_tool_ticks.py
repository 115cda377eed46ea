"""The agent editor's tool list as a person uses it with the mouse and the keyboard: a click on
a tool's name ticks it and a second unticks it, a click on its box ticks it once, and Space
still flips the current row."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QStyle, QStyleOptionViewItem

from tests.ui.agents.test_editor_names import editor_of
from tests.ui.harness import Models, close_test_window, find, open_test_window


def row_of(tools: QListWidget, name: str) -> QListWidgetItem:
    for i in range(tools.count()):
        if tools.item(i).data(Qt.ItemDataRole.UserRole) == name:
            return tools.item(i)
    raise AssertionError(f"no {name!r} in the tool list")


def where(tools: QListWidget, item: QListWidgetItem, part: QStyle.SubElement) -> QPoint:
    """The middle of ``part`` (the row's text or its box) of ``item``, on the viewport."""
    option = QStyleOptionViewItem()
    index = tools.indexFromItem(item)
    tools.itemDelegate().initStyleOption(option, index)  # type: ignore[attr-defined]
    option.rect = tools.visualItemRect(item)
    return tools.style().subElementRect(part, option, tools).center()


def click(tools: QListWidget, at: QPoint) -> None:
    QTest.mouseClick(tools.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0), at)


async def test_a_click_on_a_tools_name_ticks_it_and_space_still_does(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        task = asyncio.ensure_future(window.agent_part.new_agent())
        editor = await editor_of(window)
        tools = find(editor, QListWidget, "agentTools")
        calculator = row_of(tools, "calculator")
        name = where(tools, calculator, QStyle.SubElement.SE_ItemViewItemText)
        box = where(tools, calculator, QStyle.SubElement.SE_ItemViewItemCheckIndicator)
        assert name.x() > box.x() + 8  # the name, clear of the box
        assert calculator.checkState() == Qt.CheckState.Unchecked
        click(tools, name)
        assert calculator.checkState() == Qt.CheckState.Checked
        assert "calculator" in editor.draft().tools
        click(tools, name)
        assert calculator.checkState() == Qt.CheckState.Unchecked
        assert "calculator" not in editor.draft().tools
        click(tools, box)  # the box ticks it once, not twice
        assert calculator.checkState() == Qt.CheckState.Checked
        click(tools, box)
        assert calculator.checkState() == Qt.CheckState.Unchecked
        tools.setFocus()
        tools.setCurrentItem(calculator)
        QTest.keyClick(tools, Qt.Key.Key_Space)
        assert calculator.checkState() == Qt.CheckState.Checked
        QTest.keyClick(tools, Qt.Key.Key_Space)
        assert calculator.checkState() == Qt.CheckState.Unchecked
        editor.reject()
        assert await task is None
    finally:
        await close_test_window(window)
