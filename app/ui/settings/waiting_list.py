"""The **Waiting for you** list (``waitingList``): every scheduled run paused on an approval
or at a budget limit, saying which agent asks what, with Approve and Deny
(``waitingApproveButton``, ``waitingDenyButton``) and Open thread (``waitingOpenButton``)
for the selected one. It answers through the window's runner (:class:`WindowSchedules`),
so the run goes on; what waited before a restart is listed too."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.schedules.waiting import Waiting
from app.text.hidden_chars import mark_hidden
from app.ui.settings._labels import muted, section
from app.ui.tasks import spawn
from app.ui.window_schedules import WindowSchedules

__all__ = ["WaitingList", "waiting_line"]


def waiting_line(item: Waiting) -> str:
    """A waiting run's line: who asks what, and for which schedule."""
    prompt = item.schedule.prompt.strip().splitlines()[0] if item.schedule else ""
    which = f" — schedule “{prompt[:60]}”" if prompt else ""
    return mark_hidden(f"{item.asks.rstrip('.')}{which}")


class WaitingList(QWidget):
    """See the module docstring; :meth:`load` reads the list again."""

    threadWanted = Signal(str)
    """Open this waiting run's thread (its id)."""
    answered = Signal()
    """A waiting run was answered (the runs are read again)."""

    def __init__(self, scheduling: WindowSchedules, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("waitingForYou")
        self.scheduling = scheduling
        self.items: list[Waiting] = []
        self.list = QListWidget(self)
        self.list.setObjectName("waitingList")
        self.list.setAccessibleName("Waiting for you")
        self.list.setWordWrap(True)
        self.list.setMaximumHeight(120)
        self.empty = muted(QLabel("Nothing waits for you.", self))
        self.empty.setObjectName("waitingEmpty")
        self.approve = self._button("Approve", "waitingApproveButton")
        self.deny = self._button("Deny", "waitingDenyButton")
        self.open = self._button("Open thread", "waitingOpenButton")
        self.message = QLabel("", self)
        self.message.setObjectName("waitingMessage")
        self.message.setWordWrap(True)
        row = QHBoxLayout()
        for button in (self.approve, self.deny, self.open):
            row.addWidget(button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(section("Waiting for you", self))
        layout.addWidget(self.list)
        layout.addWidget(self.empty)
        layout.addLayout(row)
        layout.addWidget(self.message)
        self.approve.clicked.connect(lambda: spawn(self.answer_selected(True)))
        self.deny.clicked.connect(lambda: spawn(self.answer_selected(False)))
        self.open.clicked.connect(self._open)
        self.list.itemSelectionChanged.connect(self._selection)
        self.list.itemDoubleClicked.connect(lambda _item: self._open())
        scheduling.waitingChanged.connect(lambda: spawn(self.load()))
        self._selection()

    def _button(self, text: str, name: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        return button

    async def load(self) -> None:
        """List the runs waiting for you now."""
        try:
            items = await self.scheduling.waiting()
        except ParleyError as exc:
            self.message.setText(f"The waiting runs could not be read: {exc}")
            return
        chosen = self.selected()
        self.items = items
        self.list.clear()
        for n, item in enumerate(items):
            self.list.addItem(waiting_line(item))
            if chosen is not None and item.pause.interrupt_id == chosen.pause.interrupt_id:
                self.list.setCurrentRow(n)
        if items and self.list.currentRow() < 0:
            self.list.setCurrentRow(0)
        self.list.setVisible(bool(items))
        self.empty.setVisible(not items)
        self._selection()

    def selected(self) -> Waiting | None:
        """The waiting run of the selected line."""
        row = self.list.currentRow()
        return self.items[row] if 0 <= row < len(self.items) else None

    def _selection(self) -> None:
        for button in (self.approve, self.deny, self.open):
            button.setEnabled(self.selected() is not None)

    def _open(self) -> None:
        item = self.selected()
        if item is not None:
            self.threadWanted.emit(item.thread_id)

    async def answer_selected(self, approve: bool) -> None:
        """Approve or deny the selected run's question; the run goes on."""
        item = self.selected()
        if item is None:
            return
        try:
            await self.scheduling.answer(item, approve)
        except ParleyError as exc:
            self.message.setText(f"Not answered: {exc}")
            return
        self.message.setText(
            ("Approved" if approve else "Denied") + "; the run goes on in its thread."
        )
        self.answered.emit()
        await self.load()
