"""A person's message is a compact bubble at the reading column's right, as wide as its words
need (at most about four fifths of the column); a reply spans the column. The time and the
tokens a message cost show, muted, only on the row under the pointer or in focus, and showing
them moves nothing: the row keeps its height."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect
from PySide6.QtGui import QImage, QPalette
from PySide6.QtWidgets import QApplication

from app.core.state import Message, TextBlock, TokenUsages
from app.ui.chat.delegate import BUBBLE, PAD
from tests.ui.chat.test_row_actions import painted, view_of

LONG = "a question that goes on " * 20
THREAD = [
    Message(role="user", content=[TextBlock(text="Weather in Oslo?")], message_id="u1"),
    Message(
        role="assistant",
        content=[TextBlock(text="4 °C, light rain.")],
        message_id="a1",
        timestamp=1_700_000_000.0,
        usages=TokenUsages(prompt_tokens=20, completion_tokens=4, total_tokens=24),
    ),
    Message(role="user", content=[TextBlock(text=LONG)], message_id="u2"),
    Message(role="user", content=[TextBlock(text="See [the plan](https://example.com/p)")]),
]


def test_a_short_message_is_a_bubble_at_the_columns_right(qapp: QApplication) -> None:
    view, delegate = view_of(THREAD)
    try:
        rect = view.visualRect(view.model().index(0, 0))
        col = delegate.column(rect)
        bubble = delegate.bubble_at(view.model().index(0, 0), rect)
        assert bubble.right() == col.right()
        assert bubble.width() < col.width() // 3  # as wide as "Weather in Oslo?" needs
        assert delegate.text_left(view.model().index(0, 0), rect) == bubble.left() + PAD
        image = painted(view, delegate, 0, hovered=False)
        base = view.palette().color(QPalette.ColorRole.Base)
        middle = PAD + 4
        assert image.pixelColor(QPoint(col.left() + 4, middle)) == base  # no bubble there
        assert image.pixelColor(QPoint(bubble.left() + 4, middle)) != base
        reply = view.visualRect(view.model().index(1, 0))
        assert delegate.text_left(view.model().index(1, 0), reply) == col.left() + PAD
    finally:
        view.close()


def test_a_long_message_wraps_at_four_fifths_of_the_column(qapp: QApplication) -> None:
    view, delegate = view_of(THREAD)
    try:
        index = view.model().index(2, 0)
        col = delegate.column(view.visualRect(index))
        bubble = delegate.bubble_at(index, view.visualRect(index))
        assert col.width() // 2 < bubble.width() <= col.width() * BUBBLE + 1
        assert bubble.right() == col.right()
    finally:
        view.close()


def test_a_link_in_a_bubble_is_clicked_where_it_is_drawn(qapp: QApplication) -> None:
    view, delegate = view_of(THREAD)
    try:
        index = view.model().index(3, 0)
        rect = view.visualRect(index)
        left = delegate.text_left(index, rect)
        assert left > delegate.column(rect).left() + PAD
        doc = delegate.document(index)
        found = [
            QPointF(left + x, rect.y() + delegate.lead(index) + 6)
            for x in range(0, int(doc.idealWidth()), 2)
            if delegate.href_at(index, QPointF(left + x, rect.y() + delegate.lead(index) + 6))
        ]
        assert found
        assert delegate.href_at(index, found[0]) == "https://example.com/p"
        # where the text would start in a column-wide row, there is no link any more
        outside = QPointF(delegate.column(rect).left() + PAD + 2, found[0].y())
        assert delegate.href_at(index, outside) == ""
    finally:
        view.close()


def test_time_and_tokens_show_only_on_hover_and_keep_the_row_height(
    qapp: QApplication,
) -> None:
    view, delegate = view_of(THREAD)
    try:
        index = view.model().index(1, 0)
        before = view.visualRect(index).height()
        quiet = painted(view, delegate, 1, hovered=False)
        shown = painted(view, delegate, 1, hovered=True)
        col = delegate.column(view.visualRect(index))
        foot = QRect(col.left() + PAD, quiet.height() - 30, 120, 22)  # where "24 tokens" goes
        base = view.palette().color(QPalette.ColorRole.Base)

        def inked(image: QImage) -> bool:
            return any(
                image.pixelColor(QPoint(x, y)) != base
                for x in range(foot.left(), foot.right())
                for y in range(foot.top(), foot.bottom())
            )

        assert not inked(quiet)
        assert inked(shown)
        assert view.visualRect(index).height() == before
        said = view.model().index(1, 0).data()
        assert "4 °C, light rain." in said  # what a screen reader reads is the model's
    finally:
        view.close()
