"""How the approval dialog looks: its style sheet and the card that names the call (its tool,
what the tool does, the permissions it uses and the thread it is for)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.text.hidden_chars import mark_hidden
from app.ui.icons import icon
from app.ui.theme import ACCENT

__all__ = ["SHEET", "CallCard"]

SHEET = (
    "QRadioButton::indicator { width: 14px; height: 14px; border-radius: 8px;"
    " border: 1px solid palette(placeholder-text); background: palette(base); }"
    f"QRadioButton::indicator:checked {{ width: 8px; height: 8px; border: 4px solid {ACCENT}; }}"
    f"QRadioButton:focus {{ color: {ACCENT}; }}"
    f"QRadioButton::indicator:focus {{ border-color: {ACCENT}; }}"
    "#approvalCallCard { background: palette(alternate-base); border: 1px solid palette(mid);"
    " border-radius: 8px; }"
    "#approvalTool { font-size: 14px; }"
    "#approvalIntro, #approvalThread, #approvalDescription, #argsCaption, #previewCaption,"
    " #denyReasonLabel, #alwaysAllowCaption { color: palette(placeholder-text); }"
    "#argsCaption, #previewCaption, #alwaysAllowCaption { font-weight: 600; }"
    "#approvalPermissions { border: 1px solid palette(mid); border-radius: 9px;"
    " padding: 1px 8px; background: palette(base); }"
    "#approvalButtons { border-top: 1px solid palette(mid); }"
    "#approveButton, #denyButton, #alwaysAllowButton, #applyDecisionsButton"
    " { padding: 6px 14px; }"
)
"""Radio buttons that read in light and dark alike (the dark palette's own are faint); the
call's card, the muted captions and the row of choices under a rule."""


class CallCard(QFrame):
    """The call's card (``approvalCallCard``): the tool's name (``approvalTool``) with its
    permissions as a chip (``approvalPermissions``), what it does (``approvalDescription``)
    and the thread (``approvalThread``), in muted text under the name."""

    def __init__(self, parent: QWidget, thread_title: str) -> None:
        super().__init__(parent)
        self.setObjectName("approvalCallCard")
        inner = QVBoxLayout(self)
        inner.setContentsMargins(12, 10, 12, 10)
        inner.setSpacing(4)
        top = QHBoxLayout()
        top.setSpacing(8)
        mark = QLabel(self)
        mark.setPixmap(icon("tools-line").pixmap(18, 18))
        self.name_label = QLabel(self)
        self.name_label.setObjectName("approvalTool")
        self.name_label.setWordWrap(True)
        self.name_label.setTextFormat(Qt.TextFormat.RichText)
        self.permissions_label = QLabel(self)
        self.permissions_label.setObjectName("approvalPermissions")
        top.addWidget(mark, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.name_label, 1)
        top.addWidget(self.permissions_label, 0, Qt.AlignmentFlag.AlignTop)
        inner.addLayout(top)
        self.description_label = QLabel(self)
        self.description_label.setObjectName("approvalDescription")
        self.description_label.setWordWrap(True)
        inner.addWidget(self.description_label)
        thread = QLabel(f"Thread: {mark_hidden(thread_title) or 'New thread'}", self)
        thread.setObjectName("approvalThread")
        inner.addWidget(thread)
