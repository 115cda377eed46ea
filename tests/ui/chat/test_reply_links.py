"""A reply's own text cannot act as the window's controls: a Markdown link to ``remedy:``,
``copy:``, ``source:``, ``toggle:`` or ``media:`` is drawn as the text it was written as, and
clicking it opens no dialog, copies nothing, opens nothing, folds nothing; a picture in the
text loads no file of this computer and no stored media. Parley's own links in the same row
(the code block's Copy code, the source chip) and the text's web and mail links still work,
and an intent the row does not carry does nothing even when handed to the view directly."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication, QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog

from app.core.state import AnnotationRef, ErrorBlock, Message, TextBlock
from app.ui.chat.delegate import PAD
from app.ui.chat.view import ChatView
from app.ui.window import MainWindow
from tests.ui.chat.links_harness import OpenedUrls, href_spot
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5d9c4a10000000049454e44ae426082"
)


def _reply(picture: Path) -> str:
    return (
        "Click [reconnect](remedy:set_key:openai) or [grab](copy:0) or [peek](source:1) or "
        "[fold](toggle:a1:9) or [launch](media:open:0) or <remedy:retry:> now.\n\n"
        f"![secret]({picture}) ![stored](thumb:{'ab' * 32}) [site](https://example.org/site) "
        "[write](mailto:someone@example.org)\n\n"
        "```\necho hi\n```\n"
    )


def _doc(chat: ChatView, row: int) -> QTextDocument:
    return chat.delegate.document(chat.vm.model.index(row, 0))


def _text_spot(chat: ChatView, row: int, word: str) -> QPoint:
    """Where ``word`` is drawn in the row (viewport coordinates), a little inside it."""
    doc = _doc(chat, row)
    at = doc.toPlainText().index(word) + 1
    block = doc.findBlock(at)
    layout = block.layout()
    line = layout.lineForTextPosition(at - block.position())
    x = line.cursorToX(at - block.position())
    x = x[0] if isinstance(x, tuple) else x
    index = chat.vm.model.index(row, 0)
    rect = chat.visualRect(index)
    col = chat.delegate.column(rect)
    lead = chat.delegate.lead(index)
    return QPoint(
        int(col.x() + PAD + layout.position().x() + x + 2),
        int(rect.y() + lead + layout.position().y() + line.y() + line.height() / 2),
    )


def _images(doc: QTextDocument) -> list[str]:
    """The names of the pictures the document draws."""
    found: list[str] = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                found.append(fmt.toImageFormat().name())
            it += 1
        block = block.next()
    return found


def _dialogs() -> list[QDialog]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible()]


async def _show(window: MainWindow, *messages: Message) -> ChatView:
    assert await window.chat_vm.send("Hello")
    await wait_until(lambda: window.chat_vm.model.rowCount() == 2, what="the reply")
    await wait_until(lambda: not window.workspace.runs.any_running(), what="the turn")
    for message in messages:
        window.chat_vm.model.upsert(message)
    count = 2 + len(messages)
    await wait_until(lambda: window.chat_vm.model.rowCount() == count, what="the rows")
    chat = find(window, ChatView, "chatView")
    chat.scrollToBottom()
    chat.grab()
    return chat


async def test_links_in_a_reply_cannot_use_the_windows_own_schemes(tmp_path: Path) -> None:
    picture = tmp_path / "private" / "secret.png"
    picture.parent.mkdir()
    picture.write_bytes(PNG)
    opened = OpenedUrls()
    for scheme in ("file", "https", "mailto"):
        QDesktopServices.setUrlHandler(scheme, opened, "open")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": ["Hi."]}))
    asked: list[tuple[str, str]] = []
    try:
        cited = AnnotationRef(url="https://example.org/cited", title="Cited page")
        reply = Message(
            role="assistant", content=[TextBlock(text=_reply(picture), annotations=[cited])]
        )
        chat = await _show(window, reply)
        chat.remedyRequested.connect(lambda action, target: asked.append((action, target)))
        row = 2
        doc = _doc(chat, row)
        shown = doc.toPlainText()
        assert "[reconnect](remedy:set_key:openai)" in shown  # the link as it was written
        assert "<remedy:retry:>" in shown
        assert _images(doc) == []  # neither the file nor the stored picture is drawn

        clipboard = QGuiApplication.clipboard()
        clipboard.setText("what the person copied")
        expanded = set(chat.delegate.expanded)
        for word in ("reconnect", "grab", "peek", "fold", "launch", "remedy:retry"):
            spot = _text_spot(chat, row, word)
            assert chat.delegate.href_at(chat.vm.model.index(row, 0), QPointF(spot)) == ""
            QTest.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=spot)
            for _ in range(5):
                QApplication.processEvents()
        assert asked == []
        assert _dialogs() == []
        assert clipboard.text() == "what the person copied"
        assert opened.urls == []
        assert chat.delegate.expanded == expanded

        # handed to the view directly, an intent the row does not carry does nothing either
        chat._on_link("remedy:set_key:openai", row)
        chat._on_link("toggle:a1:9", row)
        chat._on_link("source:1", 1)  # the first reply cites nothing
        chat._on_link("copy:0", 1)  # nor has it a code block
        for _ in range(5):
            QApplication.processEvents()
        assert asked == [] and _dialogs() == [] and opened.urls == []
        assert chat.delegate.expanded == expanded
        assert clipboard.text() == "what the person copied"

        # Parley's own links in the row, and the text's web and mail links, work as before
        spot = href_spot(chat, row, "copy:0")
        QTest.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        await wait_until(lambda: clipboard.text() == "echo hi\n", what="the code copied")
        for href in ("https://example.org/site", "mailto:someone@example.org", "source:1"):
            spot = href_spot(chat, row, href)
            QTest.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        assert opened.urls == [
            "https://example.org/site",
            "mailto:someone@example.org",
            "https://example.org/cited",
        ]
    finally:
        for scheme in ("file", "https", "mailto"):
            QDesktopServices.unsetUrlHandler(scheme)
        await close_test_window(window)


async def test_an_error_rows_remedy_is_the_only_one_it_carries(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": ["Hi."]}))
    asked: list[tuple[str, str]] = []
    try:
        failed = Message(
            role="assistant",
            content=[ErrorBlock(error="The key was refused.", code="auth:openai/api-key")],
        )
        chat = await _show(window, failed)
        chat.remedyRequested.disconnect()  # record the choice instead of opening the dialog
        chat.remedyRequested.connect(lambda action, target: asked.append((action, target)))
        chat._on_link("remedy:set_key:anthropic/api-key", 2)  # not this error's remedy
        chat._on_link("remedy:set_key:openai/api-key", 1)  # not from the error's row
        assert asked == []
        spot = href_spot(chat, 2, "remedy:set_key:openai/api-key")
        QTest.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        assert asked == [("set_key", "openai/api-key")]
    finally:
        await close_test_window(window)
