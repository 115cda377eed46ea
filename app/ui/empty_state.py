"""The empty state: what the chat area shows before a thread has messages."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from app.text.hidden_chars import mark_hidden

__all__ = ["EXAMPLES", "EmptyState"]

EXAMPLES = (
    "What is the capital of France?",
    "Write a haiku about autumn rain.",
    "Explain what a CPU does in two sentences.",
)
"""Prompts the empty state offers; each gets a sensible answer from the bundled model."""

GREETING = "What can I help with?"
HINT = (
    "Parley runs a small model on this computer; nothing leaves it unless you pick "
    "an online model. Try one of these:"
)
MAX_PROMPTS = 3
"""Example prompts, or an agent's starters, shown at most."""


class EmptyState(QWidget):
    """What an empty thread shows (object name ``emptyState``): a greeting and example
    prompts, or the thread's agent and its starters; choosing one emits :attr:`chosen`."""

    chosen = Signal(str)
    """The example prompt to send."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        self.title = title = QLabel(GREETING, self)
        title.setObjectName("emptyTitle")
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint = hint = QLabel(HINT, self)
        hint.setTextFormat(Qt.TextFormat.PlainText)
        hint.setWordWrap(True)
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setObjectName("emptyHint")
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        layout.addWidget(title)
        layout.addSpacing(8)
        layout.addWidget(hint)
        layout.addSpacing(16)
        self.buttons: list[QPushButton] = []
        self._prompts: list[str] = list(EXAMPLES)
        for i in range(MAX_PROMPTS):
            button = QPushButton("", self)
            button.setObjectName("examplePrompt")
            button.clicked.connect(lambda _c=False, n=i: self.chosen.emit(self._prompts[n]))
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
            button.setMinimumWidth(380)
            self.buttons.append(button)
        layout.addStretch(3)
        self.show_agent(None)

    def show_agent(
        self, name: str | None, description: str = "", starters: Sequence[str] = ()
    ) -> None:
        """Greet for the agent ``name`` with its ``starters`` (``None``: Parley's greeting and
        example prompts)."""
        if name is None:
            self.title.setText(GREETING)
            self.hint.setText(HINT)
            prompts = list(EXAMPLES)
        else:
            self.title.setText(mark_hidden(name))
            self.hint.setText(
                mark_hidden(description) if description else f"A new thread with {name}."
            )
            prompts = list(starters)[:MAX_PROMPTS]
        self._prompts = prompts
        for i, button in enumerate(self.buttons):
            text = mark_hidden(prompts[i]) if i < len(prompts) else ""
            button.setText(text)
            button.setAccessibleName(f"Ask: {text}")
            button.setVisible(i < len(prompts))
