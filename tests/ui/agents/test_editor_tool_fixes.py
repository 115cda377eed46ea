"""A tool that cannot work is greyed in the agent editor's tool list with why, and its fix
button opens the settings at the page that fixes it; once fixed the tool reads as usual."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QListWidget, QListWidgetItem, QPushButton

from tests.ui.agents.test_editor_names import editor_of
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    settings_shown_at,
    wait_until,
)


def row(tools: QListWidget, name: str) -> QListWidgetItem:
    for i in range(tools.count()):
        if tools.item(i).data(Qt.ItemDataRole.UserRole) == name:
            return tools.item(i)
    raise AssertionError(f"no {name!r} in the tool list")


async def test_read_file_says_no_folder_is_shared_and_its_button_opens_the_folders_page(
    tmp_path: Path,
) -> None:
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        task = asyncio.ensure_future(window.agent_part.new_agent())
        editor = await editor_of(window)
        tools = find(editor, QListWidget, "agentTools")
        read_file = row(tools, "read_file")
        assert read_file.text() == "read_file — cannot work: no folder is shared with Parley"
        assert read_file.toolTip() == (
            "read_file cannot work now: no folder is shared with Parley. The model is not "
            "offered it until it can; Share a folder to fix it."
        )
        grey = editor.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        assert read_file.foreground().color() == grey
        assert row(tools, "calculator").text() == "calculator"
        share = find(editor, QPushButton, "agentToolFix_share_folder")
        assert share.isVisible() and share.text() == "Share a folder…"
        assert not find(editor, QPushButton, "agentToolFix_go_online").isVisible()
        assert not find(editor, QPushButton, "agentToolFix_start_server").isVisible()

        QTest.mouseClick(share, Qt.MouseButton.LeftButton)
        settings = await settings_shown_at(window, "toolsSettingsPage")
        assert QApplication.activeModalWidget() is settings  # above the editor, usable

        notes = tmp_path / "notes"
        notes.mkdir()
        await window.workspace.tools.grant_folder(notes)
        await wait_until(lambda: read_file.text() == "read_file", what="read_file working")
        assert read_file.toolTip() == ""
        assert not share.isVisible()
        settings.reject()
        editor.reject()
        assert await task is None
    finally:
        await close_test_window(window)
