"""A long message is laid out in parts that are drawn exactly as one document of it would be,
and a streamed reply lays out again only its changed tail."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QImage, QPainter, QTextDocument
from PySide6.QtWidgets import QApplication, QListView

from app.core.state import Message
from app.ui.chat.delegate import MessageDelegate
from app.ui.chat.markdown_stream import MarkdownStream
from app.ui.chat.message_html import message_html
from app.ui.chat.message_layout import MessageLayout

WIDTH = 600
SECTION = (
    "## Section {i}\n\nA paragraph with **bold**, `code` and [a link](https://example.org/{i}).\n\n"
    "Another one that is long enough to wrap over more than one line at this width, "
    "so that wrapping is part of what is compared.\n\n- a list item\n- another\n\n"
    "```python\nprint({i})\n```\n\n| a | b |\n|---|---|\n| {i} | x |\n\nAfter the table.\n\n"
)


def _delegate() -> MessageDelegate:
    view = QListView()
    view.resize(WIDTH + 100, 800)
    return MessageDelegate(view)


def _layout(
    delegate: MessageDelegate,
    text: str,
    streams: dict[int, MarkdownStream],
    previous: MessageLayout | None = None,
) -> MessageLayout:
    message = Message.text_message(text, role="assistant", message_id="m")
    rendered = message_html(message, dark=False, streams=streams)
    return MessageLayout.build(
        rendered, len(text), lambda part: delegate._document(part, WIDTH, False), streams, previous
    )


def _image(height: float, draw: Callable[[QPainter], None]) -> QImage:
    image = QImage(WIDTH, int(height) + 1, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    draw(painter)
    painter.end()
    return image


def test_a_long_message_in_parts_looks_exactly_like_one_document(qapp: QApplication) -> None:
    delegate = _delegate()
    text = "".join(SECTION.format(i=i) for i in range(30))
    laid = _layout(delegate, text, {})
    assert len(laid.parts) > 5
    whole: QTextDocument = delegate._document(laid.html, WIDTH, False)
    assert laid.height == whole.size().height()
    assert laid.doc.toPlainText() == whole.toPlainText()

    def parts(painter: QPainter) -> None:
        laid.draw(painter, QAbstractTextDocumentLayout.PaintContext(), (0, laid.height))

    def one(painter: QPainter) -> None:
        whole.documentLayout().draw(painter, QAbstractTextDocumentLayout.PaintContext())

    assert _image(laid.height, parts) == _image(laid.height, one)


def test_a_streamed_reply_keeps_the_layout_of_its_finished_parts(qapp: QApplication) -> None:
    delegate = _delegate()
    streams: dict[int, MarkdownStream] = {}
    text = "".join(SECTION.format(i=i) for i in range(20))
    first = _layout(delegate, text + "The reply goes", streams)
    later = _layout(delegate, text + "The reply goes on and on", streams, first)
    kept = [a.doc is b.doc for a, b in zip(first.parts, later.parts, strict=True)]
    assert kept == [True] * (len(kept) - 1) + [False]
    assert first.changed_top == 0  # all of it was new
    assert later.changed_top == later.parts[-1].top > 0  # only the open tail is painted again
    assert later.doc.toPlainText().rstrip().endswith("The reply goes on and on")
    fresh = _layout(delegate, text + "The reply goes on and on", {})
    assert [p.html for p in fresh.parts] == [p.html for p in later.parts]
    assert fresh.height == later.height


def test_a_band_in_the_middle_of_a_long_message_is_drawn_as_the_whole_is(
    qapp: QApplication,
) -> None:
    delegate = _delegate()
    streams: dict[int, MarkdownStream] = {}
    text = "".join(SECTION.format(i=i) for i in range(30))
    first = _layout(delegate, text[: len(text) // 2], streams)
    laid = _layout(delegate, text, streams, first)  # grown: its finished parts are kept
    while laid.behind:  # it grew by more than one update takes in
        laid = _layout(delegate, text, streams, laid)
    assert len(laid.parts) > 5
    low, high = laid.height * 0.4, laid.height * 0.6
    context = QAbstractTextDocumentLayout.PaintContext

    def band(painter: QPainter) -> None:
        painter.setClipRect(0, int(low), WIDTH, int(high - low))
        laid.draw(painter, context(), (low, high))

    def everything(painter: QPainter) -> None:
        painter.setClipRect(0, int(low), WIDTH, int(high - low))
        laid.draw(painter, context(), (0, laid.height))

    assert _image(laid.height, band) == _image(laid.height, everything)
    fresh = _layout(delegate, text, {})
    assert [p.html for p in fresh.parts] == [p.html for p in laid.parts]
    assert [p.top for p in fresh.parts] == [p.top for p in laid.parts]
