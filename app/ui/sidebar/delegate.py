"""How a sidebar row is drawn: a date heading above the first thread of each group, the title,
a muted second line (matches highlighted in search) and small status marks with tooltips."""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QHelpEvent, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QWidget,
)

from app.ui.icons import draw_glyph
from app.ui.painting import draw_focus_ring
from app.ui.sidebar.model import HeadingRole, RowRole, SidebarRow
from app.ui.theme import Roles, roles

__all__ = ["HEADING_HEIGHT", "MARK_TIPS", "ROW_HEIGHT", "RowDelegate", "heading_height"]

ROW_HEIGHT = 56
HEADING_HEIGHT = 28
"""Room for a date heading above the first thread of a group."""

MARK_TIPS = {
    "running": "Answering",
    "waiting": "Waiting for you: a tool call needs your approval",
    "cut_off": "Cut off: the run stopped before it finished; open the thread to resume",
    "scheduled": "A scheduled run wrote into this thread",
}
"""What each mark means, shown as its tooltip (the row's accessible text says it too)."""

_GLYPHS = {
    "running": "loader-4-line",
    "waiting": "error-warning-fill",
    "cut_off": "pause-circle-line",
    "scheduled": "time-line",
    "branch": "git-branch-line",
}
"""The icon of each mark."""

_BRANCH_PREFIX = re.compile(r"^On branch \d+: ")
MARK = 14
"""The size of a small mark."""


@dataclass(frozen=True, slots=True)
class _Mark:
    kind: str
    rect: QRect
    tip: str


def heading_height(index: QModelIndex | QPersistentModelIndex) -> int:
    """The room above the row for its date heading (none when it does not start a group)."""
    return HEADING_HEIGHT if index.data(HeadingRole) else 0


class RowDelegate(QStyledItemDelegate):
    """Draws the sidebar's rows; see the module docstring."""

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        return QSize(200, ROW_HEIGHT + heading_height(index))

    def updateEditorGeometry(
        self,
        editor: QWidget,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        """The rename field covers the row, not its date heading."""
        super().updateEditorGeometry(editor, option, index)
        top = heading_height(index)
        if top:
            editor.setGeometry(QRect(option.rect).adjusted(0, top, 0, 0))

    def _marks(self, box: QRect, row: SidebarRow) -> list[_Mark]:
        """Where the row's marks go: its status on the right, then (on the second line)
        the scheduled mark or the branch of a search hit."""
        marks = []
        if row.status in ("running", "waiting", "cut_off"):
            size = 18 if row.status == "waiting" else MARK
            rect = QRect(box.right() - 10 - size, box.center().y() - size // 2, size, size)
            marks.append(_Mark(row.status, rect, MARK_TIPS[row.status]))
        second = QRect(box.x() + 10, box.y() + box.height() // 2, MARK, box.height() // 2 - 6)
        second = QRect(second.x(), second.center().y() - MARK // 2 + 1, MARK, MARK)
        if row.snippet and row.branch is not None:
            marks.append(_Mark("branch", second, f"On branch {row.branch}, not the one shown"))
        elif row.scheduled and not row.snippet:
            marks.append(_Mark("scheduled", second, MARK_TIPS["scheduled"]))
        return marks

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        row: SidebarRow = index.data(RowRole)
        palette: QPalette = option.palette
        # the list's ground is transparent (its Base role too): the text tells light from dark
        colours = roles(palette.color(QPalette.ColorRole.Text).lightness() > 128)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRect(option.rect)
        heading = index.data(HeadingRole)
        if heading:
            self._draw_heading(painter, option, rect, heading, colours)
            rect = rect.adjusted(0, HEADING_HEIGHT, 0, 0)
        box = rect.adjusted(6, 2, -6, -2)
        self._draw_ground(painter, option, box, colours)
        marks = self._marks(box, row)
        text_rect = box.adjusted(10, 6, -30, -6)
        title_font = QFont(option.font)
        title_font.setWeight(QFont.Weight.DemiBold)
        painter.setFont(title_font)
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        metrics = painter.fontMetrics()
        top = QRect(text_rect.x(), text_rect.y(), text_rect.width(), text_rect.height() // 2)
        painter.drawText(
            top,
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            metrics.elidedText(row.title, Qt.TextElideMode.ElideRight, top.width()),
        )
        painter.setFont(option.font)
        bottom = QRect(
            text_rect.x(), top.bottom(), text_rect.width(), text_rect.height() - top.height()
        )
        for mark in marks:
            self._draw_mark(painter, mark, row, colours, option.font)
            if mark.kind in ("branch", "scheduled"):
                used = mark.rect.width() + 6
                if mark.kind == "branch":
                    used += painter.fontMetrics().horizontalAdvance(str(row.branch)) + 4
                bottom = bottom.adjusted(used, 0, 0, 0)
        self._draw_line(painter, bottom, row, palette)
        painter.restore()

    def _draw_heading(
        self, painter: QPainter, option: QStyleOptionViewItem, rect: QRect, text: str, c: Roles
    ) -> None:
        font = QFont(option.font)
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        font.setWeight(QFont.Weight.DemiBold)
        painter.setFont(font)
        painter.setPen(QColor(c.muted))
        place = QRect(rect.x() + 16, rect.y() + 8, rect.width() - 24, HEADING_HEIGHT - 10)
        painter.drawText(
            place, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom), text
        )

    def _draw_ground(
        self, painter: QPainter, option: QStyleOptionViewItem, box: QRect, c: Roles
    ) -> None:
        """The hover and selection ground; the open thread also gets a bar in the accent."""
        palette = option.palette
        state = option.state
        selected = bool(state & QStyle.StateFlag.State_Selected)
        if selected or state & QStyle.StateFlag.State_MouseOver:
            colour = palette.color(QPalette.ColorRole.Highlight)
            colour.setAlpha(60 if selected else 25)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawRoundedRect(box, 8, 8)
        if selected:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(c.accent))
            painter.drawRoundedRect(QRect(box.x() + 2, box.y() + 10, 3, box.height() - 20), 1, 1)
        if state & QStyle.StateFlag.State_HasFocus:
            draw_focus_ring(painter, palette, box, 8)

    def _draw_mark(
        self, painter: QPainter, mark: _Mark, row: SidebarRow, c: Roles, font: QFont
    ) -> None:
        r = mark.rect
        painter.save()
        colour = QColor(c.muted if mark.kind == "cut_off" else c.accent)
        if mark.kind == "waiting":
            colour = QColor(c.warning)
        pad = 2 if mark.kind == "waiting" else 3
        draw_glyph(painter, _GLYPHS[mark.kind], r.adjusted(-pad, -pad, pad, pad), colour)
        if mark.kind == "branch":  # then the branch's number
            painter.setPen(QPen(QColor(c.accent), 1.5))
            painter.setFont(font)
            painter.drawText(
                QRect(r.right() + 3, r.y() - 4, 40, r.height() + 8),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                str(row.branch),
            )
        painter.restore()

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        """A mark's tooltip says what it means; elsewhere the row's own tooltip."""
        if event.type() == QEvent.Type.ToolTip and index.isValid():
            row = index.data(RowRole)
            rect = QRect(option.rect).adjusted(0, heading_height(index), 0, 0)
            if isinstance(row, SidebarRow):
                for mark in self._marks(rect.adjusted(6, 2, -6, -2), row):
                    if mark.rect.adjusted(-4, -4, 4, 4).contains(event.pos()):
                        QToolTip.showText(event.globalPos(), mark.tip, view)
                        return True
        return super().helpEvent(event, view, option, index)

    def _draw_line(self, painter: QPainter, rect: QRect, row: SidebarRow, pal: QPalette) -> None:
        muted = pal.color(QPalette.ColorRole.PlaceholderText)
        metrics = painter.fontMetrics()
        if row.agent and not row.snippet:  # the thread's agent first, in the accent
            label = metrics.elidedText(row.agent, Qt.TextElideMode.ElideRight, rect.width() // 2)
            painter.setPen(pal.color(QPalette.ColorRole.Link))
            painter.drawText(
                rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), label
            )
            used = metrics.horizontalAdvance(label + "  ·  ")
            painter.setPen(muted)
            painter.drawText(
                rect.adjusted(metrics.horizontalAdvance(label), 0, 0, 0),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                "  ·  ",
            )
            rect = rect.adjusted(used, 0, 0, 0)
        if not row.snippet:
            painter.setPen(muted)
            painter.drawText(
                rect,
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                metrics.elidedText(
                    row.line or "No messages yet", Qt.TextElideMode.ElideRight, rect.width()
                ),
            )
            return
        # a search snippet: matches (between \x02 and \x03) drawn bold in the accent colour;
        # a hit's branch is its mark, not the words before the snippet
        line = _BRANCH_PREFIX.sub("", row.line) if row.branch is not None else row.line
        x = rect.x()
        bold = QFont(painter.font())
        bold.setBold(True)
        plain = QFont(painter.font())
        parts = line.replace("\x03", "\x02").split("\x02")
        for i, part in enumerate(parts):
            if not part:
                continue
            hit = i % 2 == 1
            painter.setFont(bold if hit else plain)
            painter.setPen(pal.color(QPalette.ColorRole.Link) if hit else muted)
            width = painter.fontMetrics().horizontalAdvance(part)
            room = rect.right() - x
            if room <= 8:
                break
            text = (
                part
                if width <= room
                else painter.fontMetrics().elidedText(part, Qt.TextElideMode.ElideRight, room)
            )
            painter.drawText(
                QRect(x, rect.y(), room, rect.height()),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                text,
            )
            x += min(width, room)
