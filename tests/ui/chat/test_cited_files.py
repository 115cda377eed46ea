"""A source chip opens a cited file with the system's app only when the file, with every link
followed, is a document inside a knowledge folder; a chip labelled as a manual's page that
points at a script in Downloads asks first, showing the script's real path, and No (the
default) opens nothing. A web citation opens in the browser as before."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from app.core.state import AnnotationRef, Message, TextBlock
from app.ui.chat.view import ChatView
from app.ui.window import MainWindow
from tests.ui.chat.links_harness import OpenedUrls, href_spot
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


def _question(window: MainWindow) -> QMessageBox | None:
    boxes = window.findChildren(QMessageBox, "openCitedFileBox")
    return next((box for box in boxes if box.isVisible()), None)


async def _click_chip(window: MainWindow, n: int) -> None:
    chat = window.chat
    chat.scrollToBottom()
    chat.grab()
    row = chat.vm.model.rowCount() - 1
    spot = href_spot(chat, row, f"source:{n}")
    QTest.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=spot)


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    docs, downloads = tmp_path / "docs", tmp_path / "Downloads"
    docs.mkdir()
    downloads.mkdir()
    guide = docs / "guide.md"
    guide.write_text("# Kettle\n\nDescale it every month.\n")
    script = downloads / "run.sh"
    script.write_text("#!/bin/sh\necho pwned\n")
    script.chmod(0o755)
    (docs / "manual.pdf").symlink_to(script)
    return docs, guide, script


async def test_a_chip_outside_the_knowledge_folders_asks_before_opening(tmp_path: Path) -> None:
    docs, guide, script = _files(tmp_path)
    opened = OpenedUrls()
    QDesktopServices.setUrlHandler("file", opened, "open")
    QDesktopServices.setUrlHandler("https", opened, "open")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": ["Hello."]}))
    try:
        await window.workspace.knowledge.add_folder(docs)
        await window.workspace.knowledge.wait_idle()
        assert await window.chat_vm.send("How do I descale the kettle?")
        await wait_until(lambda: window.chat_vm.model.rowCount() == 2, what="the reply")
        await wait_until(lambda: not window.workspace.runs.any_running(), what="the turn")
        refs = [
            AnnotationRef(url=script.as_uri() + "#page=3", title="kettle-manual.pdf, page 3"),
            AnnotationRef(url=(docs / "manual.pdf").as_uri(), title="manual.pdf"),
            AnnotationRef(url=guide.as_uri(), title="guide.md"),
            AnnotationRef(url="https://example.org/kettle", title="Kettle care"),
            AnnotationRef(url=None, title="kettle-manual.pdf, page 4"),  # as an import keeps it
        ]
        reply = Message(
            role="assistant", content=[TextBlock(text="Descale it monthly.", annotations=refs)]
        )
        window.chat_vm.model.upsert(reply)
        await wait_until(lambda: window.chat_vm.model.rowCount() == 3, what="the cited reply")
        view = find(window, ChatView, "chatView")
        real = str(script.resolve())

        await _click_chip(window, 1)  # "kettle-manual.pdf, page 3": the script
        box = await wait_until(lambda: _question(window), what="the question")
        assert box.text() == (
            f"Open {real}? It is not inside a knowledge folder. It is a program: opening it "
            "may run it."
        )
        assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
        QTest.keyClick(box, Qt.Key.Key_Escape)
        await wait_until(lambda: _question(window) is None, what="the question answered")
        assert opened.urls == []

        await _click_chip(window, 2)  # inside the folder, but a link to the script
        box = await wait_until(lambda: _question(window), what="the second question")
        assert box.text().startswith(f"Open {real}? It is not inside a knowledge folder.")
        box.button(QMessageBox.StandardButton.No).click()
        await wait_until(lambda: _question(window) is None, what="the question answered")
        assert opened.urls == []

        await _click_chip(window, 3)  # a document inside the folder opens at once
        assert opened.urls == [guide.resolve().as_uri()]
        assert _question(window) is None

        await _click_chip(window, 4)  # a web page opens in the browser
        assert opened.urls[1:] == ["https://example.org/kettle"]

        await _click_chip(window, 1)  # asked again, and opened only when the person says so
        box = await wait_until(lambda: _question(window), what="the third question")
        box.button(QMessageBox.StandardButton.Open).click()
        await wait_until(lambda: len(opened.urls) == 3, what="the script opened")
        assert opened.urls[2] == script.resolve().as_uri() + "#page=3"
        assert view.vm.model.rowCount() == 3

        told: list[str] = []
        view.vm.notice.connect(told.append)
        await _click_chip(window, 5)  # an address removed on import: it says so
        assert told == ["This source has no address to open."]
        assert len(opened.urls) == 3 and _question(window) is None
    finally:
        QDesktopServices.unsetUrlHandler("file")
        QDesktopServices.unsetUrlHandler("https")
        await close_test_window(window)
