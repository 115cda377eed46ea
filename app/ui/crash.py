"""Crash safety: an unexpected exception in the window opens ``crashDialog`` instead of
killing the app or vanishing into a console.

:func:`install_crash_handler` routes ``sys.excepthook`` (exceptions in Qt slots and event
handlers) and the asyncio loop's exception handler (failed tasks and callbacks) to one
dialog. The dialog says what happened in a sentence, that the threads are saved, and offers the
details to copy (see :mod:`app.services.crash_report`: no locals, no exception text, no
secrets). Nothing is closed or thrown away, so the app keeps running where it can. While a
dialog is open, further crashes are added to it rather than opening more.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.services.crash_report import crash_report, where_it_happened

__all__ = ["CrashDialog", "CrashHandler", "install_crash_handler", "report_unexpected"]

log = logging.getLogger(__name__)

_installed: list[CrashHandler] = []


class CrashDialog(QDialog):
    """The report dialog (object name ``crashDialog``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("crashDialog")
        self.setWindowTitle("Something went wrong")
        self.summary = QLabel("", self)
        self.summary.setObjectName("crashSummary")
        self.summary.setWordWrap(True)
        self.details = QPlainTextEdit(self)
        self.details.setObjectName("crashDetails")
        self.details.setAccessibleName("Crash details")
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.copy_button = QPushButton("Copy details", self)
        self.copy_button.setObjectName("copyCrashDetails")
        self.copy_button.clicked.connect(self.copy)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(QLabel("Details (nothing you wrote and no keys are in them):", self))
        layout.addWidget(self.details, 1)
        layout.addWidget(buttons)
        self.resize(620, 400)
        self.count = 0

    def add(self, exc: BaseException, context: str) -> None:
        """Report ``exc`` (a second one while open is added below the first)."""
        self.count += 1
        what = where_it_happened(exc)
        if self.count == 1:
            self.summary.setText(
                f"Parley hit an unexpected problem ({what}). Your threads are saved and "
                "Parley keeps running. If it happens again, copy the details into a bug report."
            )
        else:
            self.summary.setText(
                f"Parley hit {self.count} unexpected problems (the latest: {what}). Your "
                "threads are saved and Parley keeps running."
            )
        report = crash_report(exc, context)
        previous = self.details.toPlainText()
        self.details.setPlainText(f"{previous}\n\n{'-' * 40}\n\n{report}" if previous else report)

    def copy(self) -> None:
        """Put the details on the clipboard."""
        QGuiApplication.clipboard().setText(self.details.toPlainText())
        self.copy_button.setText("Copied")


class CrashHandler:
    """Routes unexpected exceptions to a :class:`CrashDialog` over ``parent()``."""

    def __init__(self, parent: Callable[[], QWidget | None]) -> None:
        self.parent = parent
        self.dialog: CrashDialog | None = None
        self._previous_hook = sys.excepthook
        self._reporting = False

    def report(self, exc: BaseException, context: str) -> None:
        """Show ``exc`` in the dialog (opening it if needed); never raises."""
        log.error("unexpected error in %s", context, exc_info=exc)
        if self._reporting:
            return
        self._reporting = True
        try:
            if self.dialog is None or not self.dialog.isVisible():
                self.dialog = CrashDialog(self.parent())
                self.dialog.add(exc, context)
                self.dialog.open()
            else:
                self.dialog.add(exc, context)
        except Exception:  # the report itself failed: the log has it, keep running
            log.exception("the crash dialog could not be shown")
        finally:
            self._reporting = False

    def excepthook(
        self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        """``sys.excepthook``: Ctrl+C still ends the app; anything else is reported."""
        if issubclass(kind, KeyboardInterrupt | SystemExit):
            self._previous_hook(kind, exc, tb)
            return
        if exc.__traceback__ is None and tb is not None:
            exc = exc.with_traceback(tb)
        self.report(exc, "a window event")

    def loop_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler."""
        exc = context.get("exception")
        if isinstance(exc, BaseException) and not isinstance(exc, asyncio.CancelledError):
            self.report(exc, "a background task")
        else:
            log.error("event loop: %s", context.get("message", "unknown problem"))

    def uninstall(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Put the previous hooks back."""
        if sys.excepthook == self.excepthook:
            sys.excepthook = self._previous_hook
        if loop is not None:
            loop.set_exception_handler(None)
        if self in _installed:
            _installed.remove(self)


def install_crash_handler(
    parent: Callable[[], QWidget | None], loop: asyncio.AbstractEventLoop | None = None
) -> CrashHandler:
    """Route unexpected exceptions (Qt slots, tasks) to the crash dialog."""
    handler = CrashHandler(parent)
    sys.excepthook = handler.excepthook
    (loop or asyncio.get_event_loop()).set_exception_handler(handler.loop_handler)
    _installed[:] = [handler]
    return handler


def report_unexpected(exc: BaseException, context: str) -> bool:
    """Show ``exc`` in the crash dialog; False when no handler is installed."""
    if not _installed:
        return False
    _installed[0].report(exc, context)
    return True
