"""The models' answers side by side (object name ``compareView``): one column per model
(``compareColumn``) with its name, its answer as it streams, its figures once it has ended (time
to first token, tokens per second, tokens, cost) or the sentence it failed with, and
**Continue with this one**, which keeps that answer as the one the thread shows.

Answers arrive piece by piece from several models at once; a column takes in what arrived at
most every :data:`REFRESH_MS`, adding only the new text, one column per turn of the event
loop, so the window stays responsive. An answer that has ended is drawn as Markdown when it
is short enough to draw at once (:data:`FORMAT_LIMIT`), one column per turn of the event
loop. The next column waits on a 1 ms timer, not a posted call: Qt delivers the calls posted
while it delivers others in the same pass, so the loop's own work would wait for them all."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.services.compare import Column
from app.text.hidden_chars import mark_hidden

__all__ = ["FORMAT_LIMIT", "REFRESH_MS", "CompareColumnView", "CompareView"]

REFRESH_MS = 30
"""How often a streaming column takes in what arrived."""

FORMAT_LIMIT = 3_000
"""The longest answer drawn as Markdown once it has ended: drawing takes about 3 ms a
thousand characters, all at once, so a longer answer stays plain text that streamed in."""


class CompareColumnView(QFrame):
    """One model's column (``compareColumn``)."""

    def __init__(self, spec: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareColumn")
        self.spec = spec
        self.model = QLabel(mark_hidden(spec), self)
        self.model.setObjectName("compareModel")
        self.model.setWordWrap(True)
        self.figures = QLabel("Waiting…", self)
        self.figures.setObjectName("compareFigures")
        self.figures.setWordWrap(True)
        self.error = QLabel("", self)
        self.error.setObjectName("compareError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.text = QTextEdit(self)
        self.text.setObjectName("compareText")
        self.text.setReadOnly(True)
        self.text.setAccessibleName(f"The answer of {spec}")
        self.keep = QPushButton("Continue with this one", self)
        self.keep.setObjectName("compareContinue")
        self.keep.setAccessibleName(f"Continue with the answer of {spec}")
        self.keep.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.model)
        layout.addWidget(self.figures)
        layout.addWidget(self.error)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.keep)
        self._shown = 0
        self.formatted = False
        """Whether the whole answer is drawn as Markdown (see :meth:`format_markdown`)."""

    def show_column(self, column: Column) -> None:
        """Take in what ``column`` holds now: new text, its state, figures or failure."""
        if len(column.text) > self._shown and not self.formatted:
            cursor = QTextCursor(self.text.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(column.text[self._shown :])
            self._shown = len(column.text)
        if column.state == "waiting":
            self.figures.setText("Waiting for its turn (models on this computer answer one "
                                 "at a time)…")  # fmt: skip
        elif column.state == "streaming":
            self.figures.setText("Answering…")
        elif column.state == "done":
            self.figures.setText(column.figures.line())
        else:
            self.figures.setText("Failed")
            self.error.setText(mark_hidden(column.error or "it gave no answer"))
            self.error.show()

    def format_markdown(self, text: str) -> None:
        """Draw the whole answer ``text`` as Markdown (no HTML of its own)."""
        self.formatted = True
        self.text.document().setMarkdown(text, QTextDocument.MarkdownFeature.MarkdownNoHTML)


class CompareView(QWidget):
    """The columns of one comparison; see the module docstring."""

    continueRequested = Signal(int)
    """Keep column ``index``'s answer as the one the thread shows."""
    closeRequested = Signal()
    """Back to the thread (the first answer shown)."""
    stopRequested = Signal()
    """End every answer where it is (Stop, or Esc while they stream)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareView")
        self.question = QLabel("", self)
        self.question.setObjectName("compareQuestion")
        self.question.setWordWrap(True)
        self.close_button = QPushButton("Back to the thread", self)
        self.close_button.setObjectName("compareClose")
        self.close_button.setEnabled(False)
        self.close_button.clicked.connect(self.closeRequested)
        self.stop_button = QPushButton("Stop", self)
        self.stop_button.setObjectName("compareStop")
        self.stop_button.setToolTip("End every answer where it is (Esc)")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stopRequested)
        top = QHBoxLayout()
        top.addWidget(self.question, 1)
        top.addWidget(self.stop_button)
        top.addWidget(self.close_button)
        self._row = QHBoxLayout()
        self._row.setSpacing(10)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 10, 16, 10)
        layout.addLayout(top)
        layout.addLayout(self._row, 1)
        self.columns: list[CompareColumnView] = []
        self._pending: dict[int, Column] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self._take_in)
        self._to_format: list[tuple[CompareColumnView, str]] = []

    def begin(self, question: str, specs: Sequence[str]) -> None:
        """Show empty columns for ``specs`` under ``question``."""
        for old in self.columns:
            self._row.removeWidget(old)
            old.deleteLater()
        self._pending.clear()
        self._to_format.clear()
        self.question.setText(mark_hidden(" ".join(question.split())[:300]))
        self.columns = [CompareColumnView(spec, self) for spec in specs]
        for index, view in enumerate(self.columns):
            view.keep.clicked.connect(lambda _=False, i=index: self.continueRequested.emit(i))
            self._row.addWidget(view, 1)
        self.close_button.setEnabled(False)
        self.stop_button.setEnabled(True)

    def update_column(self, index: int, column: Column) -> None:
        """Column ``index`` changed; it is shown at the next refresh."""
        self._pending[index] = column
        if not self._timer.isActive():
            self._timer.start()

    def finish(self, columns: Sequence[Column]) -> None:
        """Every model has ended and the answers are kept: show all, offer Continue."""
        self._timer.stop()
        self._pending.clear()
        for view, column in zip(self.columns, columns, strict=True):
            self._show(view, column)
            view.keep.setEnabled(column.state == "done")
        self.close_button.setEnabled(True)
        self.stop_button.setEnabled(False)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc stops the answers while they stream (from anywhere in the view)."""
        if event.key() == Qt.Key.Key_Escape and self.stop_button.isEnabled():
            self.stop_button.click()
            return
        super().keyPressEvent(event)

    def _take_in(self) -> None:
        """Show one changed column, the one that has waited longest, and the next on the
        loop's next turn: laying out three columns' new text in one turn held the window
        5-6 ms (2 a column) when the models streamed quickly."""
        if not self._pending:
            return
        index = next(iter(self._pending))
        column = self._pending.pop(index)
        if index < len(self.columns):
            self._show(self.columns[index], column)
        if self._pending:
            QTimer.singleShot(1, self._take_in)

    def _show(self, view: CompareColumnView, column: Column) -> None:
        view.show_column(column)
        short = column.state == "done" and len(column.text) <= FORMAT_LIMIT
        waiting = any(v is view for v, _ in self._to_format)
        if short and not view.formatted and not waiting:
            self._to_format.append((view, column.text))
            if len(self._to_format) == 1:
                QTimer.singleShot(1, self._format_next)

    def _format_next(self) -> None:
        """Draw one ended answer as Markdown, and the next on the loop's next turn."""
        if not self._to_format:
            return
        view, text = self._to_format.pop(0)
        if view in self.columns:
            view.format_markdown(text)
        if self._to_format:
            QTimer.singleShot(1, self._format_next)
