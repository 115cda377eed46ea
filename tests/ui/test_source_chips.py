"""An answer that cites knowledge passages shows numbered source chips under it: hovering
one shows the passage, clicking one opens the file at its page in the system's app."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QDesktopServices, QHelpEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolTip

from tests.knowledge.corpus import make_corpus
from tests.ui.chat.links_harness import OpenedUrls, href_spot
from tests.ui.harness import Models, close_test_window, open_test_window, wait_until


async def test_source_chips_show_the_passage_and_open_the_page(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    opened = OpenedUrls()
    QDesktopServices.setUrlHandler("file", opened, "open")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": ["At noon."]}))
    try:
        await window.workspace.knowledge.add_folder(root)
        await window.workspace.knowledge.wait_idle()
        await window.chat_vm.send("When is the highest tide in Tromso?", [])
        await wait_until(lambda: window.chat_vm.model.rowCount() >= 2, what="the reply")
        await wait_until(lambda: window.chat_vm.model.messages()[-1].text(), what="the text")
        answer = window.chat_vm.model.messages()[-1]
        chat = window.chat
        chat.scrollToBottom()
        chat.grab()
        spot = href_spot(window.chat, 1, "source:1")
        event = QHelpEvent(QEvent.Type.ToolTip, spot, chat.viewport().mapToGlobal(spot))
        QApplication.sendEvent(chat.viewport(), event)
        assert "guide.pdf, page 2" in QToolTip.text()
        assert "highest tide at noon in March" in QToolTip.text()
        QToolTip.hideText()
        QTest.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        url = (root / "guide.pdf").resolve().as_uri() + "#page=2"
        assert [u.toString() for u in opened.given] == [url]
        assert answer.text() == "At noon."
    finally:
        QDesktopServices.unsetUrlHandler("file")
        await close_test_window(window)
