"""The empty state: what the chat area shows before a thread has messages."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

__all__ = ["EXAMPLES", "EmptyState"]

EXAMPLES = (
    "What is the capital of France?",
    "Write a haiku about autumn rain.",
    "Explain what a CPU does in two sentences.",
)
"""Prompts the empty state offers; each gets a sensible answer from the bundled model."""


class EmptyState(QWidget):
    """What an empty thread shows (object name ``emptyState``): a greeting and example
    prompts; choosing one emits :attr:`chosen`."""

    chosen = Signal(str)
    """The example prompt to send."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        title = QLabel("What can I help with?", self)
        title.setObjectName("emptyTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel(
            "Parley runs a small model on this computer; nothing leaves it unless you pick "
            "an online model. Try one of these:",
            self,
        )
        hint.setWordWrap(True)
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setObjectName("emptyHint")
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        layout.addWidget(title)
        layout.addSpacing(8)
        layout.addWidget(hint)
        layout.addSpacing(16)
        self.buttons = []
        for text in EXAMPLES:
            button = QPushButton(text, self)
            button.setObjectName("examplePrompt")
            button.setAccessibleName(f"Ask: {text}")
            button.clicked.connect(lambda _c=False, t=text: self.chosen.emit(t))
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
            button.setMinimumWidth(380)
            self.buttons.append(button)
        layout.addStretch(3)
