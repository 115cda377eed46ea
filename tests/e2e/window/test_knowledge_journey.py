"""A knowledge journey through the real window: add a folder in Settings > Knowledge with the
folder dialog, watch its progress, ask, see the numbered sources, hover one, open it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QHelpEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QListWidget, QPushButton, QToolTip

from app.services.events import KnowledgeProgress, WorkspaceEvent
from app.ui.settings.dialog import SettingsDialog
from tests.e2e.window.test_chat_journeys import idle, rows, send
from tests.knowledge.corpus import make_corpus
from tests.ui.harness import Models, close_test_window, find, open_test_window, shortcut, wait_until


class _Opened(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


async def test_add_a_folder_ask_and_open_a_cited_page(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs")
    opened = _Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")
    models = Models({"scripted:a": ["It starts at the blue hut after the bridge."]})
    window = await open_test_window(tmp_path / "data", models)
    progress: list[KnowledgeProgress] = []

    def record(event: WorkspaceEvent) -> None:
        if isinstance(event, KnowledgeProgress):
            progress.append(event)

    unsubscribe = window.workspace.events.subscribe(record)
    try:
        shortcut(window, "Ctrl+,")
        dialog = find(window, SettingsDialog, "settingsDialog")
        pages = find(dialog, QListWidget, "settingsPageList")
        pages.setCurrentRow([pages.item(i).text() for i in range(pages.count())].index("Knowledge"))
        add = find(dialog, QPushButton, "addKnowledgeFolderButton")
        QTest.mouseClick(add, Qt.MouseButton.LeftButton)
        chooser = await wait_until(
            lambda: next(iter(dialog.findChildren(QFileDialog, "knowledgeFolderDialog")), None),
            what="the folder dialog",
        )
        chooser.setDirectory(str(root))
        chooser.accept()
        await wait_until(lambda: progress and progress[-1].state == "done", what="indexing")
        assert any(e.current == "guide.pdf" for e in progress), progress
        folders = find(dialog, QListWidget, "knowledgeFolders")
        await wait_until(lambda: folders.count() == 1 and "5 files" in folders.item(0).text())
        dialog.close()

        await send(window, "Where does the glacier walk start?")
        await wait_until(lambda: len(rows(window)) == 2 and rows(window)[-1].text(), what="reply")
        await idle(window)
        answer = rows(window)[-1]
        assert answer.text() == "It starts at the blue hut after the bridge."
        chat = window.chat
        chat.scrollToBottom()
        chat.grab()
        index = chat.vm.model.index(len(rows(window)) - 1, 0)
        rect = chat.visualRect(index)
        spot = next(
            QPoint(x, y)
            for y in range(rect.top(), rect.bottom(), 4)
            for x in range(rect.left(), rect.right(), 4)
            if chat.delegate.href_at(index, QPointF(x, y)) == "source:1"
        )
        tip = QHelpEvent(QEvent.Type.ToolTip, spot, chat.viewport().mapToGlobal(spot))
        QApplication.sendEvent(chat.viewport(), tip)
        assert "guide.pdf, page 3" in QToolTip.text() and "blue hut" in QToolTip.text()
        QToolTip.hideText()
        QTest.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        page = (root / "guide.pdf").resolve().as_uri() + "#page=3"
        assert [u.toString() for u in opened.urls] == [page]
    finally:
        unsubscribe()
        QDesktopServices.unsetUrlHandler("file")
        await close_test_window(window)
