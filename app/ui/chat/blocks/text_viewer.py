"""``TextViewer``: a document's extracted text in its own window, to read, search and copy."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QDialog, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

__all__ = ["TextViewer"]


class TextViewer(QDialog):
    """The text of a document (object name ``documentTextViewer``); Esc closes."""

    def __init__(self, name: str, text: str, detail: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("documentTextViewer")
        self.setWindowTitle(f"{name} — Parley")
        self.setAccessibleName(f"Text of {name}")
        self.detail = QLabel(detail, self)
        self.detail.setObjectName("documentTextDetail")
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("documentText")
        self.text.setReadOnly(True)
        self.text.setAccessibleName(f"Text of {name}")
        font = QFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont))
        self.text.setFont(font)
        self.text.setPlainText(text.replace("\f", "\n\n"))  # PDF pages are split by \f
        layout = QVBoxLayout(self)
        layout.addWidget(self.detail)
        layout.addWidget(self.text, 1)
        self.resize(720, 640)
