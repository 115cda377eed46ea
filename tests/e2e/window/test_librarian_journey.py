"""A new user's first agent on the bundled model, through the real window: "Librarian" made in
the editor with ``read_file`` (no folder is shared, so it cannot work), a knowledge folder of
four notes added in Settings > Knowledge, and a question about pretty-printing. The turn ends
by itself without a tool call, the answer cites the ``pprint`` note with a chip, and the window
keeps its width. The model's wording differs between machines and is not checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
)

from app.core.state import ErrorBlock, TextBlock
from app.ui.app import close_window, open_window
from app.ui.settings.dialog import SettingsDialog
from tests.e2e.window.test_agent_journeys import check, click_agent, editor_of, save
from tests.e2e.window.test_chat_journeys import rows, send
from tests.services.knowledge.test_librarian import QUESTION, notes
from tests.ui.harness import find, shortcut, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


async def test_the_librarian_answers_from_its_notes_on_the_bundled_model(tmp_path: Path) -> None:
    folder = notes(tmp_path / "notes")
    window = await open_window(str(tmp_path / "data"), model="local")
    assert window is not None
    try:
        window.resize(1200, 800)
        await wait_until(lambda: window.width() == 1200, what="the window's size")

        shortcut(window, "Ctrl+,")
        dialog = find(window, SettingsDialog, "settingsDialog")
        pages = find(dialog, QListWidget, "settingsPageList")
        pages.setCurrentRow([pages.item(i).text() for i in range(pages.count())].index("Knowledge"))
        QTest.mouseClick(
            find(dialog, QPushButton, "addKnowledgeFolderButton"), Qt.MouseButton.LeftButton
        )
        chooser = await wait_until(
            lambda: next(iter(dialog.findChildren(QFileDialog, "knowledgeFolderDialog")), None),
            what="the folder dialog",
        )
        chooser.setDirectory(str(folder))
        chooser.accept()
        shown = find(dialog, QListWidget, "knowledgeFolders")
        await wait_until(
            lambda: shown.count() == 1 and "4 files" in shown.item(0).text(),
            timeout=60,
            what="the four notes indexed",
        )
        dialog.close()

        QTest.mouseClick(find(window, QPushButton, "newAgentButton"), Qt.MouseButton.LeftButton)
        editor = await editor_of(window)
        find(editor, QLineEdit, "agentName").setText("Librarian")
        find(editor, QPlainTextEdit, "agentInstructions").setPlainText(
            "Answer briefly. Use the notes."
        )
        check(find(editor, QListWidget, "agentTools"), "read_file")
        await save(window, editor)

        await wait_until(
            lambda: find(window, QListWidget, "agentList").findItems(
                "Librarian", Qt.MatchFlag.MatchExactly
            ),
            what="Librarian in the list",
        )
        librarian = await window.workspace.agents.get("Librarian")
        assert librarian.tools == ("read_file",)
        assert window.workspace.tools.named(librarian.tools) == []  # what its turns are offered
        click_agent(window, "Librarian")
        await wait_until(lambda: find(window, QLabel, "threadAgent").text() == "Librarian")
        await send(window, QUESTION)

        view = find(window, QListView, "chatView")
        await wait_until(lambda: len(rows(window)) >= 2, timeout=300, what="a reply")
        await wait_until(
            lambda: view.vm.status() != "running", timeout=600, what="the turn to end by itself"
        )
        messages = rows(window)
        assert messages[0].text() == QUESTION  # saved as typed, without the passages
        # nothing to call: read_file was not offered, and the notes came with the question
        assert not [m for m in messages if m.role == "tool"]
        assert not [c for m in messages for c in m.tool_calls()]
        assert [m.role for m in messages] == ["user", "assistant"]
        reply = messages[-1]
        assert not [b for b in reply.content if isinstance(b, ErrorBlock)]
        assert reply.text().strip()
        cited = [a.title for b in reply.content if isinstance(b, TextBlock) for a in b.annotations]
        assert cited and cited[0] == "pprint.md, pprint", cited
        html = view.delegate._laid(view.model().index(1, 0), 600).doc.toHtml()
        assert "source:1" in html  # the chip under the answer
        assert window.width() == 1200
    finally:
        await close_window(window)
