"""Where dictated words go in the message box: the words recognised so far are put at the
cursor and replaced, as recognition goes on, by the newer ones and at the end by the final
text; the box stays editable, and a partial the user has edited is left as it is."""

from __future__ import annotations

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

__all__ = ["DictatedText"]


def _units(text: str) -> int:
    """``text``'s length in the editor's positions (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


class DictatedText:
    """One dictation's words in ``edit``."""

    def __init__(self, edit: QPlainTextEdit) -> None:
        self._edit = edit
        self._anchor: int | None = None
        self._shown = ""

    @property
    def shown(self) -> str:
        """The dictated words in the box now, as placed (with the space before them)."""
        return self._shown

    def begin(self) -> None:
        """A new dictation: the next words go at the cursor."""
        self._anchor, self._shown = None, ""

    def _placed(self) -> QTextCursor | None:
        """A cursor selecting the words placed last, if they are still there unedited."""
        if self._anchor is None or not self._shown:
            return None
        cursor = QTextCursor(self._edit.document())
        end = self._anchor + _units(self._shown)
        if end > self._edit.document().characterCount() - 1:
            return None
        cursor.setPosition(self._anchor)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        return cursor if cursor.selectedText() == self._shown else None

    def show(self, words: str) -> None:
        """Put ``words`` in the box in place of the words placed before (or at the cursor)."""
        cursor = self._placed()
        if cursor is None:
            cursor = self._edit.textCursor()
            cursor.clearSelection()
            self._anchor = cursor.position()
            before = cursor.block().text()[: cursor.positionInBlock()]
            joiner = " " if before and not before[-1].isspace() else ""
        else:
            joiner = " " if self._shown.startswith(" ") else ""
        text = joiner + words if words else ""
        cursor.insertText(text)
        self._shown = text
        self._edit.setTextCursor(cursor)

    def drop(self) -> None:
        """Take the words placed so far out of the box (a cancelled dictation)."""
        cursor = self._placed()
        if cursor is not None:
            cursor.removeSelectedText()
        self.begin()
