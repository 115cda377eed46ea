"""``AttachmentChip``: one attachment waiting to be sent, with its thumbnail, progress and ×.

A chip takes keyboard focus (Tab), and Delete or Backspace removes it, like the × button.
While its file is read the chip shows a progress bar and the button cancels instead.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFocusEvent,
    QImage,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPixmap,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.state import ContentBlock
from app.ui.attachments.describe import badge, chip_detail, kind_icon
from app.ui.icons import draw_glyph, icon
from app.ui.theme import ACCENT

__all__ = ["CHIP_SHEET", "AttachmentChip"]

THUMB = QSize(40, 40)
DETAIL_WIDTH = 150
"""The least width of a chip's text (its details, e.g. "12 pages · 1.2 MB", fit in it)."""
MAX_TEXT_WIDTH = 200

CHIP_SHEET = """
#attachmentChip { border: 1px solid palette(mid); border-radius: 8px; background: palette(base); }
#attachmentChip[focused="true"] { border: 2px solid %(accent)s; }
#attachmentThumb { background: palette(alternate-base); border-radius: 6px;
                   border: 1px solid palette(midlight);
                   color: palette(placeholder-text); font-weight: bold; font-size: 9px; }
#attachmentDetail { color: palette(placeholder-text); }
"""
"""How chips look; set once on their bar (one style sheet for all, not one per chip)."""


class Thumb(QLabel):
    """A chip's picture: the file's thumbnail, or without one the icon of its kind above its
    badge (``PDF``), which stays the label's text."""

    def __init__(self, name: str, parent: QWidget) -> None:
        super().__init__(badge(name), parent)
        self.glyph = kind_icon(name)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom)
        self.setContentsMargins(0, 0, 0, 2)

    def show_kind(self, name: str, kind: str) -> None:
        """Show the icon and badge of ``name`` read as ``kind``."""
        self.glyph = kind_icon(name, kind)
        self.setText(badge(name, kind))

    def paintEvent(self, event: QPaintEvent) -> None:
        pixmap = self.pixmap()
        if pixmap is not None and not pixmap.isNull():
            super().paintEvent(event)
            return
        super().paintEvent(event)  # the ground, the border and the badge
        painter = QPainter(self)
        colour = self.palette().color(QPalette.ColorRole.PlaceholderText)
        draw_glyph(painter, self.glyph, self.rect().adjusted(8, 3, -8, -15), colour)
        painter.end()


class ProgressLine(QWidget):
    """A thin line filled to :meth:`value` percent. Unlike ``QProgressBar`` it runs no style
    animation, so nothing keeps ticking for a chip that is being removed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value = 0
        self._done = False
        self.setFixedHeight(4)

    def value(self) -> int:
        """How far, 0-100."""
        return self._value

    def setValue(self, value: int) -> None:
        """Show ``value`` percent."""
        self._value = max(0, min(100, value))
        self.setAccessibleDescription(f"{self._value} %")
        self.update()

    def finish(self) -> None:
        """Reading is over: draw nothing, but keep the line's place so the chip's layout, and
        the window's around it, need not be done again."""
        self._done = True
        self.setAccessibleDescription("")
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._done:
            return
        painter = QPainter(self)
        rect = self.rect()
        painter.fillRect(rect, self.palette().color(QPalette.ColorRole.Midlight))
        rect.setWidth(rect.width() * self._value // 100)
        painter.fillRect(rect, QColor(ACCENT))
        painter.end()


class AttachmentChip(QFrame):
    """A pending attachment (object name ``attachmentChip``); see the module docstring."""

    removeRequested = Signal()
    """The user wants this attachment gone (or its reading cancelled)."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentChip")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.name = name
        self.block: ContentBlock | None = None
        self.setAccessibleName(f"Attachment {name}")

        self.icon = Thumb(name, self)
        self.icon.setObjectName("attachmentThumb")
        self.icon.setFixedSize(THUMB)
        self.title = QLabel(_elide(name), self)
        self.title.setObjectName("attachmentName")
        self.detail = QLabel("Waiting…", self)
        self.detail.setObjectName("attachmentDetail")
        # A fixed size: the text changes with every progress step, and a label that may change
        # size makes Qt lay out the whole window again (25 ms a time with 20 chips).
        text_width = min(max(self.title.sizeHint().width(), DETAIL_WIDTH), MAX_TEXT_WIDTH)
        self.title.setFixedWidth(text_width)
        self.detail.setFixedSize(text_width, self.detail.sizeHint().height())
        self.progress = ProgressLine(self)
        self.progress.setObjectName("attachmentProgress")
        self.progress.setAccessibleName(f"Reading {name}")
        self.remove = QToolButton(self)
        self.remove.setObjectName("removeAttachmentButton")
        self.remove.setIcon(icon("close-line", "muted"))
        self.remove.setAutoRaise(True)
        self.remove.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.remove.clicked.connect(self.removeRequested)
        self._set_remove_text(busy=True)

        text = QVBoxLayout()
        text.setContentsMargins(0, 0, 0, 0)
        text.setSpacing(0)
        text.addWidget(self.title)
        text.addWidget(self.detail)
        text.addWidget(self.progress)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 4, 2, 4)
        row.setSpacing(8)
        row.addWidget(self.icon)
        row.addLayout(text)
        row.addWidget(self.remove, 0, Qt.AlignmentFlag.AlignTop)
        self.setMaximumWidth(THUMB.width() + MAX_TEXT_WIDTH + 48)  # room for the margins and ×

    @property
    def busy(self) -> bool:
        """Whether the file is still being read."""
        return self.block is None

    def set_progress(self, fraction: float, stage: str) -> None:
        """Show how far reading has got."""
        self.progress.setValue(int(fraction * 100))
        self.detail.setText(stage.capitalize() + "…" if stage not in ("done", "failed") else "")

    def set_block(self, block: ContentBlock, thumbnail: QImage | None) -> None:
        """The file attached as ``block``: show what it is."""
        self.block = block
        self.progress.finish()
        self._show_detail(chip_detail(block))
        self.icon.show_kind(self.name, block.type)
        if thumbnail is not None and not thumbnail.isNull():
            self.set_thumbnail(thumbnail)
        self._set_remove_text(busy=False)
        self.setAccessibleDescription(f"{self.name}, {self.detail.toolTip() or self.detail.text()}")

    def _show_detail(self, text: str) -> None:
        """Show what the file turned out to be, the chip widened once to fit it (up to
        :data:`MAX_TEXT_WIDTH`); what is still too long is elided, whole in the tooltip."""
        metrics = self.detail.fontMetrics()
        fixed = self.detail.minimumWidth()  # the fixed width it was given
        width = min(max(fixed, metrics.horizontalAdvance(text) + 2), MAX_TEXT_WIDTH)
        if width != fixed:
            self.title.setFixedWidth(width)
            self.detail.setFixedSize(width, self.detail.minimumHeight())
        shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
        self.detail.setText(shown)
        self.detail.setToolTip(text if shown != text else "")

    def set_thumbnail(self, image: QImage) -> None:
        """Show ``image`` in place of the kind's glyph."""
        pixmap = QPixmap.fromImage(image).scaled(
            THUMB,
            Qt.AspectRatioMode.KeepAspectRatioByExpanding,
            Qt.TransformationMode.SmoothTransformation,
        )
        self.icon.setContentsMargins(0, 0, 0, 0)
        self.icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.icon.setPixmap(pixmap.copy(0, 0, THUMB.width(), THUMB.height()))

    def _set_remove_text(self, *, busy: bool) -> None:
        what = f"Cancel reading {self.name}" if busy else f"Remove {self.name}"
        self.remove.setToolTip(what + " (Delete)")
        self.remove.setAccessibleName(what)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.removeRequested.emit()
            return
        super().keyPressEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        self.setProperty("focused", True)
        self.style().polish(self)
        super().focusInEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.setProperty("focused", False)
        self.style().polish(self)
        super().focusOutEvent(event)


def _elide(name: str, width: int = 28) -> str:
    return name if len(name) <= width else name[: width - 9] + "…" + name[-8:]
