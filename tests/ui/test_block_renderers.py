"""Each media block in the real chat view says what it is (the row's own text), its pictures
arrive decoded off the UI thread, and its actions work: the image viewer and Save as…
(the players: ``test_inline_player.py``)"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QGuiApplication, QHelpEvent, QImage, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QToolTip,
)

from app.core.state import ContentBlock, ImageBlock
from app.ui.attachments.describe import human_size
from app.ui.chat.blocks.document import MediaDocument
from app.ui.chat.blocks.viewer import ImageViewer
from app.ui.window import MainWindow
from tests.media import corpus
from tests.ui.attach_helpers import make_files
from tests.ui.harness import Models, close_test_window, find, open_test_window, press, wait_until


async def _thread_with_every_kind(tmp_path: Path) -> tuple[MainWindow, dict[str, Path]]:
    files = make_files(tmp_path / "files")
    files["mp4"] = tmp_path / "files" / "clip.mp4"
    files["mp4"].write_bytes(corpus.video("mp4", "libx264"))
    files["zip"] = tmp_path / "files" / "bundle.zip"
    files["zip"].write_bytes(corpus.zipped({"notes.txt": b"hello"}))
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": ["All five."]}))
    blocks: list[ContentBlock] = []
    for key in ("png", "pdf", "wav", "mp4", "zip"):
        result = await window.workspace.attachments.ingest(files[key])
        assert result.block is not None, result.message
        blocks.append(result.block)
    await window.chat_vm.send("Here they are.", blocks)
    await wait_until(lambda: window.chat_vm.model.rowCount() >= 2, what="the reply")
    return window, files


def _doc(window: MainWindow, row: int = 0) -> QTextDocument:
    return window.chat.delegate.document(window.chat_vm.model.index(row, 0))


async def test_every_media_block_says_what_it_is(tmp_path: Path) -> None:
    window, files = await _thread_with_every_kind(tmp_path)
    try:
        size = {k: human_size(p.stat().st_size) for k, p in files.items()}
        icons = {ord(c): None for c in _doc(window).toPlainText() if 0xE000 <= ord(c) <= 0xF8FF}
        lines = [  # words only: pictures and icons say nothing here
            line.replace("\ufffc", "").translate(icons).strip()
            for line in _doc(window).toPlainText().split("\n")
        ]
        lines = [line for line in lines if line]
        assert lines == [
            "Here they are.",
            f"screenshot.png · 320 × 200 · {size['png']}",
            "View  ·  Save as…",
            "report.pdf",
            f"PDF · 2 pages · {size['pdf']}",
            "Quarterly revenue rose 12 percent in Oslo. Costs were flat.",
            "Open  ·  Show text  ·  Save as…",
            "memo.wav",
            f"0:02 · {size['wav']}",
            "▶ Play  ·  Save as…",
            "clip.mp4",
            f"0:02 · {size['mp4']}",
            "▶ Play  ·  Save as…",
            "bundle.zip",
            f"application/zip · {size['zip']}",
            "Save as…",
        ]
        spoken = window.chat_vm.model.index(0, 0).data(Qt.ItemDataRole.AccessibleTextRole)
        assert spoken == (
            f"You: Here they are. Image screenshot.png, 320 × 200 · {size['png']} "
            f"Document report.pdf, 2 pages · {size['pdf']} "
            f"Sound clip memo.wav, 0:02 · {size['wav']} "
            f"Video clip.mp4, 0:02 · {size['mp4']} "
            f"File bundle.zip, application/zip · {size['zip']}"
        )
    finally:
        await close_test_window(window)


async def test_pictures_are_decoded_once_off_the_ui_thread_and_swapped_in(
    tmp_path: Path,
) -> None:
    window, _files = await _thread_with_every_kind(tmp_path)
    try:
        thumbs = window.attachments.thumbs
        window.chat.scrollToTop()
        window.chat.grab()  # paint: the visible pictures are asked for
        doc = _doc(window)
        assert isinstance(doc, MediaDocument)
        await wait_until(lambda: not doc.waiting and thumbs.decoded >= 3, what="the pictures")
        block = window.chat_vm.model.messages()[0].content[1]
        key = block.thumbnail.file_id  # type: ignore[union-attr]
        image = doc.resource(QTextDocument.ResourceType.ImageResource.value, QUrl(f"thumb:{key}"))
        assert isinstance(image, QImage) and (image.width(), image.height()) == (256, 160)
        decoded = thumbs.decoded
        window.chat.delegate.forget()  # laid out again, e.g. after a resize
        window.chat.grab()
        assert thumbs.decoded == decoded  # nothing decoded twice
        assert window.chat.grab().toImage().pixelColor(0, 0).isValid()
    finally:
        await close_test_window(window)


async def test_the_image_viewer_zooms_and_closes_with_escape(tmp_path: Path) -> None:
    window, _files = await _thread_with_every_kind(tmp_path)
    try:
        window.chat.delegate.linkActivated.emit("media:view:1", 0)
        actions = window.attachments.actions
        viewer = await wait_until(lambda: actions.windows and actions.windows[0], what="viewer")
        assert isinstance(viewer, ImageViewer) and viewer.isVisible()
        status = find(viewer, QLabel, "imageViewerStatus")
        assert status.text() == "320 × 200 px · 100 %"
        press(viewer, Qt.Key.Key_Plus)
        assert status.text() == "320 × 200 px · 125 %"
        press(viewer, Qt.Key.Key_Minus)
        press(viewer, Qt.Key.Key_Minus)
        assert status.text() == "320 × 200 px · 80 %"
        press(viewer, Qt.Key.Key_Escape)
        await wait_until(lambda: not viewer.isVisible(), what="the viewer to close")
        assert actions.windows == []
    finally:
        await close_test_window(window)


async def test_save_as_writes_the_stored_bytes(tmp_path: Path) -> None:
    window, files = await _thread_with_every_kind(tmp_path)
    try:
        window.chat.delegate.linkActivated.emit("media:save:5", 0)
        actions = window.attachments.actions
        dialog = await wait_until(lambda: actions.save_dialog, what="the save dialog")
        target = tmp_path / "saved.zip"
        find(dialog, QLineEdit, "fileNameEdit").setText(str(target))
        dialog.accept()
        await wait_until(target.exists, what="the file")
        await wait_until(lambda: "Saved saved.zip." in window.notice.label.text(), what="notice")
        assert target.read_bytes() == files["zip"].read_bytes()
    finally:
        await close_test_window(window)


async def test_a_messages_menu_offers_its_attachments_actions(tmp_path: Path) -> None:
    window, _files = await _thread_with_every_kind(tmp_path)
    try:
        menu = window.chat._menu_for(0)
        assert menu is not None
        labels = [a.text() for a in menu.actions()]
        assert labels == [
            "Copy", "Edit", "Delete",
            "View screenshot.png", "Copy screenshot.png", "Save screenshot.png as…",
            "Open report.pdf", "Show the text of report.pdf", "Copy the text of report.pdf",
            "Save report.pdf as…",
            "Play memo.wav", "Save memo.wav as…",
            "Play clip.mp4", "Save clip.mp4 as…",
            "Save bundle.zip as…",
            "Remember this…",
        ]  # fmt: skip
        next(a for a in menu.actions() if a.text() == "View screenshot.png").trigger()
        actions = window.attachments.actions
        viewer = await wait_until(lambda: actions.windows and actions.windows[0], what="viewer")
        assert isinstance(viewer, ImageViewer)
        viewer.close()
        next(a for a in menu.actions() if a.text() == "Copy the text of report.pdf").trigger()
        clipboard = QGuiApplication.clipboard()
        await wait_until(lambda: "Costs were flat." in clipboard.text(), what="the copy")
        assert clipboard.text() == "Quarterly revenue rose 12 percent in Oslo.\n\nCosts were flat."
        next(a for a in menu.actions() if a.text() == "Copy screenshot.png").trigger()
        await wait_until(lambda: not clipboard.image().isNull(), what="the picture")
        assert (clipboard.image().width(), clipboard.image().height()) == (320, 200)
    finally:
        await close_test_window(window)


async def test_an_images_alt_text_is_its_tooltip_and_its_box_is_outlined(tmp_path: Path) -> None:
    files = make_files(tmp_path / "files")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": ["Yes."]}))
    try:
        result = await window.workspace.attachments.ingest(files["png"])
        assert isinstance(result.block, ImageBlock)
        block = result.block.model_copy(
            update={"alt_text": "A red and a blue panel", "bbox": [0, 0, 160, 100]}
        )
        await window.chat_vm.send("Which is red?", [block])
        await wait_until(lambda: window.chat_vm.model.rowCount() >= 2, what="the reply")
        chat = window.chat
        chat.scrollToTop()
        chat.grab()
        index = chat.vm.model.index(0, 0)
        rect = chat.visualRect(index)
        spot = next(
            QPoint(x, y)
            for y in range(rect.top(), rect.bottom(), 8)
            for x in range(rect.left(), rect.right(), 8)
            if chat.delegate.href_at(index, QPointF(x, y)) == "media:view:1"
        )
        event = QHelpEvent(QEvent.Type.ToolTip, spot, chat.viewport().mapToGlobal(spot))
        QApplication.sendEvent(chat.viewport(), event)
        assert QToolTip.text() == "A red and a blue panel"
        doc = _doc(window)
        await wait_until(lambda: not doc.waiting, what="the picture")
        key = block.thumbnail.file_id  # type: ignore[union-attr]
        url = QUrl(f"thumb:{key}?box=0.0000,0.0000,0.5000,0.5000")
        image = doc.resource(QTextDocument.ResourceType.ImageResource.value, url)
        assert isinstance(image, QImage) and image.width() == 256
        assert image.pixelColor(1, 40).name() == "#ff9800"  # the outline's left edge
        outside = image.pixelColor(200, 120)  # the (JPEG) thumbnail's blue half, untouched
        assert (outside.red(), outside.green()) == (0, 0) and outside.blue() > 240
        QToolTip.hideText()
    finally:
        await close_test_window(window)


async def test_a_documents_text_opens_in_a_reader(tmp_path: Path) -> None:
    window, _files = await _thread_with_every_kind(tmp_path)
    try:
        window.chat.delegate.linkActivated.emit("media:text:2", 0)
        actions = window.attachments.actions
        viewer = await wait_until(lambda: actions.windows and actions.windows[0], what="reader")
        assert viewer.windowTitle() == "report.pdf — Parley"
        text = find(viewer, QPlainTextEdit, "documentText")
        assert text.isReadOnly()
        assert (
            text.toPlainText() == "Quarterly revenue rose 12 percent in Oslo.\n\nCosts were flat."
        )
        assert find(viewer, QLabel, "documentTextDetail").text().startswith("2 pages · ")
        press(viewer, Qt.Key.Key_Escape)
        await wait_until(lambda: actions.windows == [], what="the reader to close")
    finally:
        await close_test_window(window)
