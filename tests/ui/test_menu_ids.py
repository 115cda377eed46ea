"""Every menu and menu command is found by its enum id: the menu by its object name, the
command's QAction by its id, and each command sits in the menu its record names."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from app.ui.actions import ActionId, MenuId
from app.ui.window_actions import window_actions
from tests.ui.harness import Models, close_test_window, open_test_window


async def test_each_menu_and_command_is_found_by_its_id(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        titles = [a.text() for a in window.menuBar().actions()]
        assert titles == [m.value for m in MenuId]
        records = window_actions(window)
        assert len({r.id for r in records}) == len(records) == len(ActionId)
        for record in records:
            if record.menu is None:
                continue
            menu = window.findChild(QMenu, record.menu.object_name)
            action = window.findChild(QAction, record.id)
            assert menu is not None and action is not None, record.id
            assert action in menu.actions() and action.text() == record.text
    finally:
        await close_test_window(window)
