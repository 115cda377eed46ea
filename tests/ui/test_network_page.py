"""Settings > Network and the header's indicator in the real window: a connection to another
computer (127.0.0.2 stands in) shows in the indicator and the ledger, the filter narrows it,
and the offline switch refuses the next one, with the View menu and indicator agreeing."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QLabel, QLineEdit, QMenu, QTableWidget, QToolButton

from app.core.netgate import GATE, OfflineRefusal, purpose
from app.ui.actions import ActionId, MenuId
from app.ui.settings.page import PageId
from app.ui.window import MainWindow
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


def _rows(table: QTableWidget) -> list[list[str]]:
    return [
        [table.item(r, c).text() for c in range(table.columnCount())]
        for r in range(table.rowCount())
        if not table.isRowHidden(r)
    ]


def open_view_menu(window: MainWindow) -> tuple[QMenu, QAction]:
    """Click View in the menu bar; the menu shown and its Work offline entry."""
    bar = window.menuBar()
    view = find(window, QMenu, MenuId.VIEW.object_name)
    QTest.mouseClick(
        bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(view.menuAction()).center()
    )
    assert view.isVisible()
    return view, find(window, QAction, ActionId.VIEW_OFFLINE)


async def test_the_ledger_the_indicator_and_the_offline_switch(tmp_path: Path) -> None:
    remote = socket.create_server(("127.0.0.2", 0))
    port = remote.getsockname()[1]
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "Hi."}]}))
    try:
        indicator = find(window, QToolButton, "networkIndicator")
        assert indicator.text() == "Local only"

        def connect() -> None:
            with purpose("a check from the test"):
                socket.create_connection(("127.0.0.2", port), timeout=2).close()

        await asyncio.to_thread(connect)
        await wait_until(lambda: indicator.text() == "1 connection", what="the indicator")

        QTest.mouseClick(indicator, Qt.MouseButton.LeftButton)
        dialog = await wait_until(
            lambda: window._settings_dialog if window._settings_dialog else None,
            what="the settings",
        )
        page = dialog.page(PageId.NETWORK)
        table = find(page, QTableWidget, "networkLedger")
        want = ["another computer", f"127.0.0.2:{port}", "a check from the test", "connected"]
        await wait_until(lambda: any(r[1:5] == want for r in _rows(table)), what="the ledger")
        assert find(page, QLabel, "networkCount").text().startswith("This session: 1 connection")
        search = find(page, QLineEdit, "networkFilter")
        search.setText("nothing like this")
        assert _rows(table) == []
        search.setText("a check")
        assert [r[1:5] for r in _rows(table)] == [want]

        switch = find(page, QCheckBox, "offlineSwitch")
        switch.click()
        await wait_until(lambda: GATE.offline, what="offline mode")
        await wait_until(lambda: indicator.text() == "Offline", what="the indicator")
        assert window.workspace.settings.current.offline
        with pytest.raises(OfflineRefusal):
            await asyncio.to_thread(connect)
        await page.load()
        assert _rows(table)[0][4] == "refused (offline)"

        # the View menu, opened as a person does, ticks Work offline; a click there turns it off
        dialog.close()
        view, offline = open_view_menu(window)
        assert offline.text() == "Work &offline" and offline.isChecked()
        QTest.mouseClick(view, Qt.MouseButton.LeftButton, pos=view.actionGeometry(offline).center())
        await wait_until(lambda: not GATE.offline, what="online again")
        assert not window.workspace.settings.current.offline
        assert not view.isVisible()
        await wait_until(lambda: indicator.text() != "Offline", what="the indicator")
        view, offline = open_view_menu(window)
        assert not offline.isChecked()
        view.hide()
    finally:
        GATE.offline = False
        remote.close()
        await close_test_window(window)
