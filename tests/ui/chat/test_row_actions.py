"""A message's row actions are small icon buttons, each named by its tooltip: hovering over
Regenerate says "Regenerate", and the footer shows icons in the muted text's colour, no blue
words."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QRect
from PySide6.QtGui import QColor, QHelpEvent, QImage, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QListView, QStyle, QStyleOptionViewItem, QToolTip

from app.core.state import Message, TextBlock
from app.ui.chat.delegate import MessageDelegate
from app.ui.chat.message_model import MessageListModel
from tests.ui.harness import wait_until

THREAD = [
    Message(role="user", content=[TextBlock(text="Weather in Oslo?")], message_id="u1"),
    Message(role="assistant", content=[TextBlock(text="4 °C, light rain.")], message_id="a1"),
]


def view_of(messages: list[Message]) -> tuple[QListView, MessageDelegate]:
    view = QListView()
    view.resize(900, 500)
    model = MessageListModel(view)
    view.setModel(model)
    delegate = MessageDelegate(view)
    view.setItemDelegate(delegate)
    model.reset(messages)
    view.show()
    return view, delegate


def row_option(view: QListView, row: int, *, hovered: bool) -> QStyleOptionViewItem:
    """The style option the view paints ``row`` with, under the mouse or not."""
    index = view.model().index(row, 0)
    option = QStyleOptionViewItem()
    option.initFrom(view.viewport())
    option.rect = QRect(0, 0, view.viewport().width(), view.visualRect(index).height())
    option.state &= ~(QStyle.StateFlag.State_MouseOver | QStyle.StateFlag.State_HasFocus)
    if hovered:
        option.state |= QStyle.StateFlag.State_MouseOver
    return option


def painted(view: QListView, delegate: MessageDelegate, row: int, hovered: bool) -> QImage:
    """``row`` as the delegate paints it, on the view's background."""
    option = row_option(view, row, hovered=hovered)
    image = QImage(option.rect.size(), QImage.Format.Format_ARGB32)
    image.fill(option.palette.color(QPalette.ColorRole.Base))
    painter = QPainter(image)
    delegate.paint(painter, option, view.model().index(row, 0))
    painter.end()
    return image


def over(colour: QColor, ground: QColor) -> QColor:
    """``colour`` as drawn on ``ground`` (a palette's muted text may be half transparent)."""
    a = colour.alphaF()
    mix = [
        a * c + (1 - a) * g for c, g in zip(colour.getRgbF()[:3], ground.getRgbF()[:3], strict=True)
    ]
    return QColor.fromRgbF(*mix)


def near(a: QColor, b: QColor, by: int) -> bool:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) <= by


async def test_hovering_over_an_action_icon_names_it(qapp: QApplication) -> None:
    view, delegate = view_of(THREAD)
    try:
        index = view.model().index(1, 0)
        rects = delegate.action_rects(view.visualRect(index), THREAD[1])
        assert set(rects) == {"copy", "regenerate", "delete"}
        assert len({r.width() for r in rects.values()}) == 1  # icons, not words of any length
        at = rects["regenerate"].center()
        tip = QHelpEvent(QEvent.Type.ToolTip, at, view.viewport().mapToGlobal(at))
        QApplication.sendEvent(view.viewport(), tip)
        await wait_until(QToolTip.isVisible, what="the tooltip")
        assert QToolTip.text() == "Regenerate"
    finally:
        QToolTip.hideText()
        view.close()


def test_the_actions_are_drawn_as_muted_icons_not_link_words(qapp: QApplication) -> None:
    view, delegate = view_of(THREAD)
    try:
        option = row_option(view, 1, hovered=True)
        image = painted(view, delegate, 1, hovered=True)
        copy = delegate.action_rects(option.rect, THREAD[1])["copy"]
        colours = [image.pixelColor(QPoint(x, y)) for x in range(copy.left(), copy.right())
                   for y in range(copy.top(), copy.bottom())]  # fmt: skip
        palette = QApplication.palette()
        ground = palette.color(QPalette.ColorRole.AlternateBase)
        muted = over(palette.color(QPalette.ColorRole.PlaceholderText), ground)
        link = palette.color(QPalette.ColorRole.Link)
        assert any(near(c, muted, 40) for c in colours)  # the icon's strokes
        assert not any(near(c, link, 30) for c in colours)
    finally:
        view.close()
