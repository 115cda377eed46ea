"""File > Import agent… with a file whose agent's name is taken here: the window says so in
the notice bar without asking anything, and the agent already here stays as it was."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QLabel, QLineEdit, QListWidget

from app.services.agents import Agent
from app.ui.actions import ActionId
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


def _file_dialog() -> QFileDialog | None:
    shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, QFileDialog)]
    return next((w for w in shown if w.isVisible()), None)


async def test_an_agent_whose_name_is_taken_is_refused_in_the_notice_bar(
    tmp_path: Path,
) -> None:
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        agents = window.workspace.agents
        mine = await agents.add(Agent(name="Writer", instructions="Be brief."))
        listing = find(window, QListWidget, "agentList")
        await wait_until(lambda: listing.count() == 2, what="Writer in the list")
        incoming = tmp_path / "friend.agent.json"
        body = {"format": "parley.agent", "version": 1, "name": "writer", "instructions": "Shout."}
        incoming.write_text(json.dumps(body), encoding="utf-8")

        find(window, QAction, ActionId.FILE_IMPORT_AGENT).trigger()  # File > Import agent…
        picker = await wait_until(_file_dialog, what="the file dialog")
        assert picker.windowTitle() == "Import agent"
        name = find(picker, QLineEdit, "fileNameEdit")
        name.setText(str(incoming))
        QTest.keyClick(name, Qt.Key.Key_Return)

        notice = find(window, QLabel, "noticeText")
        said = (
            "Could not import friend.agent.json: Another agent is already called Writer. "
            "Nothing was imported."
        )
        await wait_until(lambda: notice.isVisible() and notice.text() == said, what="the notice")
        assert window.findChild(QDialog, "agentImportDialog") is None  # nothing was asked
        assert [listing.item(i).text() for i in range(listing.count())] == ["Parley", "Writer"]
        assert [a.model_dump() for a in await agents.list()][1] == mine.model_dump()
    finally:
        await close_test_window(window)
