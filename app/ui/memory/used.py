"""The memories a reply used, opened from its chip ("2 memories used"): each one's text and
source, those held back from a model on another computer with why, and a way to open the
thread a memory came from."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.core.state import Message
from app.services.memory import MemoryService
from app.services.threads import ThreadService
from app.text.hidden_chars import mark_hidden
from app.ui.dialogs import ask
from app.ui.memory.describe import source_text, when_text
from app.ui.tasks import spawn

__all__ = ["MemoriesUsed", "MemoriesUsedDialog", "UsedRow"]

UsedRow = tuple[str, str | None]
"""One line of the list: what it says, and the thread its memory came from (if any)."""


def _ids(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _held(value: Any) -> list[tuple[str, str]]:
    if not isinstance(value, list):
        return []
    return [
        (str(item.get("id", "")), str(item.get("why", "")))
        for item in value
        if isinstance(item, dict)
    ]


class MemoriesUsedDialog(QDialog):
    """The list (object name ``memoriesUsedDialog``, its list ``memoriesUsedList``) and Open
    source (``memorySourceButton``), which opens the selected memory's thread."""

    def __init__(
        self, parent: QWidget, rows: list[UsedRow], open_thread: Callable[[str], None]
    ) -> None:
        super().__init__(parent)
        self.setObjectName("memoriesUsedDialog")
        self.setWindowTitle("Memories used")
        self._open_thread = open_thread
        intro = QLabel(
            "What Parley put before the model for this reply, as remembered notes "
            "(Settings > Memory lists every memory).",
            self,
        )
        intro.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setObjectName("memoriesUsedList")
        self.list.setAccessibleName("Memories used")
        self.list.setWordWrap(True)
        for text, thread_id in rows:
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, thread_id)
            self.list.addItem(item)
        self.source = QPushButton("Open source", self)
        self.source.setObjectName("memorySourceButton")
        self.source.setEnabled(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.source, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.source.clicked.connect(self._open_selected)
        self.list.currentItemChanged.connect(self._chosen)
        self.list.itemActivated.connect(lambda _item: self._open_selected())
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.resize(520, 320)
        if self.list.count():
            self.list.setCurrentRow(0)

    def _thread_of_current(self) -> str | None:
        item = self.list.currentItem()
        found = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return found if isinstance(found, str) else None

    def _chosen(self, *_args: object) -> None:
        self.source.setEnabled(self._thread_of_current() is not None)

    def _open_selected(self) -> None:
        thread_id = self._thread_of_current()
        if thread_id is not None:
            self.accept()
            self._open_thread(thread_id)


class MemoriesUsed(QObject):
    """Opens the memories a reply used over ``window``: ``memory`` reads them, ``threads``
    names their sources, ``open_thread`` opens a source thread."""

    def __init__(
        self,
        memory: MemoryService,
        threads: ThreadService,
        open_thread: Callable[[str], Coroutine[Any, Any, None]],
        window: QWidget,
    ) -> None:
        super().__init__(window)
        self._memory = memory
        self._threads = threads
        self._open_thread = open_thread
        self.dialog: MemoriesUsedDialog | None = None

    def show(self, message: Message) -> None:
        """Open the list for ``message`` (the chip's reply)."""
        spawn(self.open(message))

    async def rows(self, message: Message) -> list[UsedRow]:
        """The list's lines for ``message``: each memory used, then each held back."""
        rows: list[UsedRow] = []
        for memory_id in _ids(message.metadata.get("memories_used")):
            rows.append(await self._row(memory_id, ""))
        for memory_id, why in _held(message.metadata.get("memories_held_back")):
            rows.append(await self._row(memory_id, f"Held back ({why}): "))
        return rows

    async def _row(self, memory_id: str, lead: str) -> UsedRow:
        try:
            memory = await self._memory.get(memory_id)
        except ParleyError:
            return f"{lead}A memory forgotten since.", None
        title: str | None = None
        if memory.thread_id is not None:
            try:
                title = (await self._threads.get(memory.thread_id)).title
            except ParleyError:
                title = None
        source = source_text(memory, title)
        made = when_text(memory.made_at)
        text = f"{lead}{mark_hidden(memory.text)}\n{source} · made {made}"
        return text, memory.thread_id if title is not None else None

    def _open_source(self, thread_id: str) -> None:
        spawn(self._open_thread(thread_id))

    async def open(self, message: Message) -> None:
        """Open the list for ``message`` and wait until it is closed."""
        parent = self.parent()
        assert isinstance(parent, QWidget)
        rows = await self.rows(message)
        dialog = MemoriesUsedDialog(parent, rows, self._open_source)
        self.dialog = dialog
        try:
            await ask(dialog)
        finally:
            self.dialog = None
            dialog.deleteLater()
