"""Math in the chat: a reply's formulas are drawn as images in its row, what cannot be typeset
shows as its source, copying and screen readers get the LaTeX source, export keeps it, and a
streamed reply typesets a formula once, when it closes."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QGuiApplication, QImage, QPixmap, QTextCursor, QTextDocument
from PySide6.QtWidgets import QListView

from app.core.state import Message
from app.ui.chat.delegate import MessageDelegate
from app.ui.chat.markdown_stream import MarkdownStream
from app.ui.chat.math.cache import MathImages
from app.ui.chat.math.source import source_text
from app.ui.chat.message_html import message_html
from app.ui.chat.message_layout import MessageLayout
from app.ui.theme import apply_theme
from tests.ui.harness import Models, app, close_test_window, find, open_test_window, wait_until

ANSWER = (
    "The roots of $ax^2 + bx + c = 0$ are\n\n"
    "$$\nx = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}\n$$\n\n"
    "Prices like $5 and $10 stay text, `echo $HOME$` is code, and $\\frac{1}{$ is broken."
)
_IMAGE = QTextDocument.ResourceType.ImageResource.value


def _formula_images(doc: QTextDocument) -> dict[str, QImage]:
    """The formulas drawn in ``doc``: image address → the image it draws."""
    found: dict[str, QImage] = {}
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat() and fmt.toImageFormat().name().startswith("math:"):
                name = fmt.toImageFormat().name()
                drawn = doc.resource(_IMAGE, QUrl(name))
                found[name] = drawn.toImage() if isinstance(drawn, QPixmap) else drawn
            it += 1
        block = block.next()
    return found


async def test_a_reply_with_math_draws_it_and_copies_its_source(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": ANSWER}]}))
    try:
        view = find(window, QListView, "chatView")
        view.delegate.math = MathImages()
        assert await window.chat_vm.send("Solve a quadratic")
        await wait_until(lambda: view.model().rowCount() == 2 and not view.vm.runs.any_running())
        index = view.model().index(1, 0)
        await wait_until(lambda: not view.delegate.behind, what="the whole reply drawn")
        await wait_until(lambda: not view.delegate.typesetting, what="the formulas typeset")
        doc = view.delegate.document(index)
        images = _formula_images(doc)
        assert len(images) == 2  # the inline and the displayed formula; the broken one is text
        assert view.delegate.math.stats.renders == 3  # each once, the broken one too
        for image in images.values():
            assert isinstance(image, QImage) and not image.isNull() and image.height() > 10
        shown = doc.toPlainText()
        assert "$5 and $10" in shown and "echo $HOME$" in shown
        assert "$\\frac{1}{$" in shown  # what cannot be typeset is its own source
        # reading it back: the formulas as written, never an object replacement character
        text = source_text(doc)
        assert "$ax^2 + bx + c = 0$" in text and "\\sqrt{b^2-4ac}" in text
        assert "\ufffc" not in text
        cursor = QTextCursor(doc)
        cursor.setPosition(doc.toPlainText().index(" are"))  # just after the formula
        cursor.setPosition(0, QTextCursor.MoveMode.KeepAnchor)
        assert source_text(doc, cursor) == "The roots of $ax^2 + bx + c = 0$"
        # copying the message and what a screen reader is told
        view._on_action("copy", 1)
        clipboard = QGuiApplication.clipboard()
        await wait_until(lambda: clipboard.text() == ANSWER, what="the copy")
        spoken = view.model().data(index, Qt.ItemDataRole.AccessibleTextRole)
        assert "$ax^2 + bx + c = 0$" in spoken and "\ufffc" not in spoken
        # the export keeps the source
        thread = window.chat_vm.thread_id
        assert thread is not None
        exported = (await window.workspace.threads.export(thread, "markdown")).decode()
        assert ANSWER in exported
    finally:
        await close_test_window(window)


async def test_dark_rows_draw_formulas_in_the_dark_palettes_text_colour(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "See $x$."}]}))
    try:
        view = find(window, QListView, "chatView")
        assert await window.chat_vm.send("x?")
        await wait_until(lambda: view.model().rowCount() == 2 and not view.vm.runs.any_running())
        colours = {}
        for theme in ("light", "dark"):
            apply_theme(app(), theme)
            index = view.model().index(1, 0)
            await wait_until(
                lambda index=index: _formula_images(view.delegate.document(index)),
                what="the formula typeset",
            )
            images = _formula_images(view.delegate.document(index))
            (image,) = images.values()
            image = image.convertToFormat(QImage.Format.Format_ARGB32)
            inked = [
                image.pixelColor(x, y)
                for y in range(image.height())
                for x in range(image.width())
                if image.pixelColor(x, y).alpha() > 0
            ]
            colours[theme] = max(inked, key=lambda c: c.alpha()).lightness()
        assert colours["light"] < 100 < 160 < colours["dark"]
    finally:
        apply_theme(app(), "system")
        await close_test_window(window)


def _layout(
    delegate: MessageDelegate,
    text: str,
    streams: dict[int, MarkdownStream],
    previous: MessageLayout | None,
) -> MessageLayout:
    message = Message.text_message(text, role="assistant", message_id="m")
    rendered = message_html(message, dark=False, streams=streams)
    return MessageLayout.build(
        rendered, len(text), lambda part: delegate._document(part, 600, False), streams, previous
    )


def test_a_streamed_formula_shows_as_text_until_it_closes_then_is_typeset_once(
    qapp: object,
) -> None:
    view = QListView()
    view.resize(700, 800)
    images = MathImages()
    delegate = MessageDelegate(view, images)
    delegate.wait_for_math = True  # typeset as the row is laid out, to count each step
    reply = "Here it is:\n\n$$\n\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}\n$$\n\n" + "".join(
        f"Paragraph {i} goes on for a while with words.\n\n" for i in range(30)
    )
    closed_at = reply.index("$$\n\n") + 2
    streams: dict[int, MarkdownStream] = {}
    laid = None
    for end in range(5, len(reply) + 1, 7):
        laid = _layout(delegate, reply[:end], streams, laid)
        drawn = [_formula_images(doc) for doc in laid.documents()]
        if end < closed_at:
            assert not any(drawn) and images.stats.renders == 0
            if end > reply.index("$$") + 2:
                assert "$$" in laid.doc.toPlainText()  # the half-written formula, as text
        else:
            assert sum(map(len, drawn)) == 1
            assert images.stats.renders == 1  # typeset when it closed, never again
    assert laid is not None and not laid.behind
    assert images.stats.renders == 1 and images.stats.failures == 0


async def test_a_streaming_reply_shows_a_formula_as_source_until_typeset_then_draws_it(
    tmp_path: Path,
) -> None:
    reply = "First $e^{i\\pi} + 1 = 0$, then\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$\n\nend."
    models = Models({"scripted:a": [{"text": reply}]}, delay=0.01)
    window = await open_test_window(tmp_path, models)
    try:
        view = find(window, QListView, "chatView")
        view.delegate.math = images = MathImages()
        assert await window.chat_vm.send("Two formulas")
        await wait_until(lambda: view.model().rowCount() == 2 and not view.vm.runs.any_running())
        await wait_until(lambda: not view.delegate.typesetting, what="the formulas typeset")
        index = view.model().index(1, 0)
        await wait_until(lambda: len(_formula_images(view.delegate.document(index))) == 2)
        assert images.stats.renders == 2 and images.stats.failures == 0
        assert "$$" not in view.delegate.document(index).toPlainText()
        height = view.visualRect(index).height()
        assert height > 3 * view.fontMetrics().height()  # laid out again with the images
        laid = view.delegate._laid(index, view.delegate.text_width())
        await wait_until(  # drawn as tall as the typeset text, not as the source was
            lambda: view.visualRect(index).height() == 64 + int(laid.height),
            what="the row's height to follow its typeset formulas",
        )
    finally:
        await close_test_window(window)


def test_a_row_shows_a_formula_as_source_until_it_is_typeset_then_is_laid_out_again(
    qapp: object,
) -> None:
    from app.ui.chat.message_model import MessageListModel

    view = QListView()
    view.resize(700, 800)
    model = MessageListModel()
    view.setModel(model)
    images = MathImages()
    delegate = MessageDelegate(view, images)
    model.reset([Message.text_message("So $\\sqrt{2}$ it is.", role="assistant")])
    index = model.index(0, 0)
    before = delegate.document(index)
    assert before.toPlainText().strip() == "So $\\sqrt{2}$ it is."  # the source, for now
    assert not _formula_images(before) and delegate.typesetting
    arrived: list[bool] = []
    delegate.mathTypeset.connect(lambda: arrived.append(True))
    assert images.wait(20)
    delegate._collect_math()  # what its timer does on the GUI thread
    assert arrived == [True] and not delegate.typesetting
    after = delegate.document(index)
    assert after is not before and len(_formula_images(after)) == 1
    assert source_text(after).strip() == "So $\\sqrt{2}$ it is."
