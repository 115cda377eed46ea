"""Awaited dialogs: opened with ``open()``, their result awaited through a future, never
``exec()`` inside a coroutine. Also the small dialogs the window needs."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = [
    "ask",
    "confirmation_box",
    "shortcuts_dialog",
    "system_prompt_dialog",
    "text_dialog",
]


async def ask(dialog: QDialog) -> int:
    """Open ``dialog`` window-modally and wait for its result without nesting a loop."""
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def done(result: int) -> None:
        if not future.done():
            future.set_result(result)

    dialog.finished.connect(done)
    dialog.open()
    return await future


def confirmation_box(
    parent: QWidget,
    name: str,
    title: str,
    question: str,
    details: str,
    action: tuple[str, str, QMessageBox.ButtonRole],
) -> tuple[QMessageBox, QPushButton]:
    """A warning that asks before something that cannot be taken back: ``action`` is the
    button's text, object name and role; Cancel is the default and what Esc presses."""
    box = QMessageBox(parent)
    box.setObjectName(name)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(question)
    box.setInformativeText(details)
    text, button_name, role = action
    button = box.addButton(text, role)
    button.setObjectName(button_name)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)
    return box, button


def shortcuts_dialog(parent: QWidget, rows: Sequence[tuple[str, str]]) -> QDialog:
    """Help > Keyboard shortcuts: a table of ``rows``, each the keys and what they do."""
    dialog = QDialog(parent)
    dialog.setObjectName("shortcutsDialog")
    dialog.setWindowTitle("Keyboard shortcuts")
    table = QTableWidget(len(rows), 2, dialog)
    table.setHorizontalHeaderLabels(["Keys", "Does"])
    table.verticalHeader().hide()
    for row, (keys, what) in enumerate(rows):
        table.setItem(row, 0, QTableWidgetItem(keys))
        table.setItem(row, 1, QTableWidgetItem(what))
    table.resizeColumnsToContents()
    table.horizontalHeader().setStretchLastSection(True)
    table.setAccessibleName("Keyboard shortcuts")
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(table)
    layout.addWidget(buttons)
    dialog.resize(520, 560)
    return dialog


def system_prompt_dialog(parent: QWidget, current: str) -> tuple[QDialog, QPlainTextEdit]:
    """Edit the thread's system prompt (blank means the default)."""
    dialog = QDialog(parent)
    dialog.setObjectName("systemPromptDialog")
    dialog.setWindowTitle("System prompt for this thread")
    label = QLabel("Instructions the model follows in this thread. Leave blank for the default.")
    label.setWordWrap(True)
    edit = QPlainTextEdit(current, dialog)
    edit.setObjectName("systemPromptEdit")
    edit.setAccessibleName("System prompt")
    _question_frame(dialog, label, edit, QDialogButtonBox.StandardButton.Save, (520, 300))
    return dialog, edit


def text_dialog(
    parent: QWidget, title: str, prompt: str, *, secret: bool = False
) -> tuple[QDialog, QLineEdit]:
    """A one-line question (an API key is typed masked)."""
    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    label = QLabel(prompt)
    label.setWordWrap(True)
    edit = QLineEdit(dialog)
    edit.setAccessibleName(title)
    if secret:
        edit.setEchoMode(QLineEdit.EchoMode.Password)
    _question_frame(dialog, label, edit, QDialogButtonBox.StandardButton.Ok, (440, 140))
    return dialog, edit


def _question_frame(
    dialog: QDialog,
    label: QLabel,
    edit: QWidget,
    accept: QDialogButtonBox.StandardButton,
    size: tuple[int, int],
) -> None:
    """Lay out a question: its label, its answer field, and accept/Cancel buttons."""
    buttons = QDialogButtonBox(accept | QDialogButtonBox.StandardButton.Cancel, dialog)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(label)
    layout.addWidget(edit)
    layout.addWidget(buttons)
    dialog.resize(*size)
