"""Settings > Memory: every memory, searchable, with its scope, source, when it was made and
last used, pinned and local only; edit, pin, delete one, delete all of an agent's; whether an
agent's proposed memories are kept without asking; and a switch pausing memory for everyone.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidgetItem,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.agents import Agent, AgentService
from app.services.memory import MAX_MEMORY_CHARS, Memory, MemoryService
from app.services.settings.store import SettingsStore
from app.services.threads import ThreadService
from app.text.hidden_chars import mark_hidden
from app.ui.dialogs import ask, confirmation_box
from app.ui.memory.describe import scope_text, source_text, when_text
from app.ui.settings._form import page_layout, result_label, rows_table
from app.ui.settings._labels import muted, section
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["COLUMNS", "MemoryPage"]

COLUMNS = ["Memory", "Scope", "Source", "Made", "Last used", "Pinned", "Local only"]


class MemoryPage(SettingsPage):
    """The memories in a table (``memoryList``) filtered by ``memorySearch``; the selected
    one's ``memoryChangeButton`` (Edit…), ``memoryPinButton``, ``memoryDeleteButton`` and
    ``memorySourceButton`` (Open source, also a double click on its row); the
    switch ``memoryPausedSwitch``; for the agent chosen in ``memoryAgentChoice``,
    ``memoryKeepUnaskedSwitch`` and ``memoryForgetAgentButton``."""

    TITLE = "Memory"
    OBJECT_NAME = "memoryPage"

    threadWanted = Signal(str)
    """Open source was chosen: open the thread (its id) the memory came from."""

    def __init__(
        self,
        memory: MemoryService,
        agents: AgentService,
        threads: ThreadService,
        settings: SettingsStore,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.memory, self.agents, self.threads, self.settings = memory, agents, threads, settings
        layout = page_layout(
            self,
            self.TITLE,
            "What agents remember across threads, each kept only after you said Keep (or "
            "typed it). A few related ones go before a question as notes; pinned ones always "
            "do; local-only ones never go to a model on another computer.",
        )
        self.paused = QCheckBox("Pause memory for everyone (none used, none kept)", self)
        self.paused.setObjectName("memoryPausedSwitch")
        self.search = QLineEdit(self)
        self.search.setObjectName("memorySearch")
        self.search.setPlaceholderText("Search memories by words")
        self.search.setAccessibleName("Search memories")
        self.search.setClearButtonEnabled(True)
        self.table = rows_table(self, "memoryList", "Memories", COLUMNS, stretch=0)
        self.table.setWordWrap(True)  # a memory's text wraps in its column
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(2, 130)  # a long thread title is cut; its tooltip is whole
        self.empty = muted(QLabel("No memories yet.", self))
        self.empty.setObjectName("memoryEmpty")
        self.change = self._button("Edit…", "memoryChangeButton")
        self.pin = self._button("Pin", "memoryPinButton")
        self.delete = self._button("Delete", "memoryDeleteButton")
        self.source = self._button("Open source", "memorySourceButton")
        row = QHBoxLayout()
        for button in (self.change, self.pin, self.delete, self.source):
            row.addWidget(button)
        row.addStretch(1)
        self.agent = QComboBox(self)
        self.agent.setObjectName("memoryAgentChoice")
        self.agent.setAccessibleName("Agent")
        self.keep_unasked = QCheckBox("Keep what this agent remembers without asking", self)
        self.keep_unasked.setObjectName("memoryKeepUnaskedSwitch")
        self.agent_paused = QCheckBox("Pause its memory", self)
        self.agent_paused.setObjectName("memoryAgentPausedSwitch")
        self.agent_paused.setToolTip("This agent's turns use no memory and keep none")
        self.forget_agent = self._button("Delete all its memories…", "memoryForgetAgentButton")
        per_agent = QHBoxLayout()
        per_agent.addWidget(QLabel("Agent:", self))
        per_agent.addWidget(self.agent)
        per_agent.addStretch(1)
        per_agent.addWidget(self.forget_agent)
        agent_switches = QHBoxLayout()
        agent_switches.addWidget(self.agent_paused)
        agent_switches.addWidget(self.keep_unasked)
        agent_switches.addStretch(1)
        self.message = result_label(self, "memoryMessage")
        layout.addWidget(self.paused)
        layout.addWidget(self.search)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addLayout(row)
        layout.addWidget(section("Per agent", self))
        layout.addLayout(per_agent)
        layout.addLayout(agent_switches)
        layout.addWidget(self.message)
        self.shown: list[Memory] = []
        self._agents: list[Agent] = []
        self.paused.toggled.connect(lambda on: spawn(self.set_paused(on)))
        self.search.textChanged.connect(lambda _t: spawn(self.load()))
        self.table.itemSelectionChanged.connect(self._selection)
        self.change.clicked.connect(lambda: spawn(self.edit_selected()))
        self.pin.clicked.connect(lambda: spawn(self.pin_selected()))
        self.delete.clicked.connect(lambda: spawn(self.delete_selected()))
        self.source.clicked.connect(self.open_source)
        self.table.cellDoubleClicked.connect(lambda _row, _col: self.open_source())
        self.agent.currentIndexChanged.connect(lambda _i: self._agent_chosen())
        self.keep_unasked.toggled.connect(lambda on: spawn(self.set_keep_unasked(on)))
        self.agent_paused.toggled.connect(lambda on: spawn(self.set_agent_paused(on)))
        self.forget_agent.clicked.connect(lambda: spawn(self.forget_chosen_agent()))

    def _button(self, text: str, name: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        return button

    # Filling -------------------------------------------------------------------------

    async def load(self) -> None:
        """List the memories (those matching the search, when one is typed) and the agents."""
        query = self.search.text().strip()
        meaning = self.memory.meaning.on
        self.search.setPlaceholderText(
            "Search memories by words and meaning" if meaning else "Search memories by words"
        )
        try:
            found = await (self.memory.search(query) if query else self.memory.list(every=True))
            self._agents = await self.agents.list()
        except ParleyError as exc:
            self.message.setText(f"The memories could not be read: {exc}")
            return
        titles: dict[str, str | None] = {}
        for memory in found:
            if memory.thread_id is not None and memory.thread_id not in titles:
                titles[memory.thread_id] = await self._title(memory.thread_id)
        if self.search.text().strip() != query:
            return  # typed on meanwhile: the newer search fills the list
        self.shown = found
        self.table.setRowCount(len(found))
        for row, memory in enumerate(found):
            title = titles.get(memory.thread_id) if memory.thread_id else None
            cells = (
                mark_hidden(memory.text),
                scope_text(memory, self.agents.named),
                source_text(memory, title, short=True),
                when_text(memory.made_at, day=True),
                when_text(memory.last_used_at, day=True),
                "yes" if memory.pinned else "",
                "yes" if memory.local_only else "",
            )
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, col, item)
        self.table.resizeRowsToContents()
        self.table.setVisible(bool(found))
        self.empty.setText(f"No memory holds “{query}”." if query else "No memories yet.")
        self.empty.setVisible(not found)
        self._fill_agents()
        self._sync_switches()
        self._selection()

    async def _title(self, thread_id: str) -> str | None:
        try:
            return (await self.threads.get(thread_id)).title
        except ParleyError:
            return None

    def _fill_agents(self) -> None:
        chosen = self.agent.currentData()
        self.agent.blockSignals(True)
        self.agent.clear()
        for agent in self._agents:
            self.agent.addItem(mark_hidden(agent.name), agent.id)
        at = self.agent.findData(chosen)
        self.agent.setCurrentIndex(max(at, 0))
        self.agent.blockSignals(False)

    def _sync_switches(self) -> None:
        current = self.settings.current
        for box, on in (
            (self.paused, current.memory_paused),
            (self.keep_unasked, self.agents.keeps_memories_unasked(self.agent.currentData())),
            (self.agent_paused, self.agents.memory_paused_for(self.agent.currentData())),
        ):
            box.blockSignals(True)
            box.setChecked(on)
            box.blockSignals(False)
        chosen = self._chosen_agent()
        self.forget_agent.setEnabled(chosen is not None and not chosen.builtin)

    def _agent_chosen(self) -> None:
        self._sync_switches()

    def _chosen_agent(self) -> Agent | None:
        agent_id = self.agent.currentData()
        return next((a for a in self._agents if a.id == agent_id), None)

    def selected(self) -> Memory | None:
        """The memory of the selected row."""
        rows = {i.row() for i in self.table.selectedIndexes()}
        return self.shown[min(rows)] if rows and min(rows) < len(self.shown) else None

    def _selection(self) -> None:
        memory = self.selected()
        for button in (self.change, self.pin, self.delete):
            button.setEnabled(memory is not None)
        self.pin.setText("Unpin" if memory is not None and memory.pinned else "Pin")

        self.source.setEnabled(memory is not None and memory.thread_id is not None)

    def open_source(self) -> None:
        """Open the thread the selected memory came from."""
        memory = self.selected()
        if memory is not None and memory.thread_id is not None:
            self.threadWanted.emit(memory.thread_id)

    # Changing ------------------------------------------------------------------------

    async def set_paused(self, on: bool) -> None:
        """Pause memory for everyone, or let it work again."""
        await self.settings.update(memory_paused=on)
        self.message.setText(
            "Memory is paused: no memory goes before a question and none is kept."
            if on
            else "Memory works again."
        )

    async def set_agent_paused(self, on: bool) -> None:
        """Pause memory for the chosen agent, or let it work again."""
        agent = self._chosen_agent()
        if agent is None:
            return
        await self.agents.set_memory_paused_for(agent.id, on)
        name = mark_hidden(agent.name)
        self.message.setText(
            f"Memory is paused for {name}: its turns use no memory and keep none."
            if on
            else f"Memory works again for {name}."
        )

    async def set_keep_unasked(self, on: bool) -> None:
        """Keep what the chosen agent proposes without asking, or ask again."""
        agent = self._chosen_agent()
        if agent is None:
            return
        await self.agents.set_keep_memories_unasked(agent.id, on)
        name = mark_hidden(agent.name)
        self.message.setText(
            f"What {name} proposes to remember is kept without asking."
            if on
            else f"{name} asks before it keeps a memory."
        )

    async def edit_selected(self) -> None:
        """Give the selected memory a new text."""
        memory = self.selected()
        if memory is None:
            return
        dialog = QInputDialog(self)
        dialog.setObjectName("memoryEditDialog")
        dialog.setWindowTitle("Edit a memory")
        dialog.setLabelText("Memory:")
        dialog.setTextValue(memory.text)
        dialog.findChild(QLineEdit).setMaxLength(MAX_MEMORY_CHARS)  # type: ignore[union-attr]
        if not await ask(dialog) or dialog.textValue().strip() == memory.text:
            return
        try:
            changed = await self.memory.edit(memory.id, dialog.textValue().strip())
        except ParleyError as exc:
            self.message.setText(f"Not changed: {exc}")
            return
        self.message.setText(f"Changed: {mark_hidden(changed.text)}")
        await self.load()

    async def pin_selected(self) -> None:
        """Pin the selected memory (it then goes before every question) or unpin it."""
        memory = self.selected()
        if memory is None:
            return
        changed = await self.memory.pin(memory.id, not memory.pinned)
        self.message.setText(
            "Pinned: it goes before every question." if changed.pinned else "Unpinned."
        )
        await self.load()

    async def delete_selected(self) -> None:
        """Forget the selected memory."""
        memory = self.selected()
        if memory is None:
            return
        await self.memory.forget(memory.id)
        self.message.setText(f"Forgotten: {mark_hidden(memory.text)}")
        await self.load()

    async def forget_chosen_agent(self) -> None:
        """Forget every memory of the chosen agent, after a question (Cancel is the default)."""
        agent = self._chosen_agent()
        if agent is None or agent.builtin:
            return
        name = mark_hidden(agent.name)
        box, confirm = confirmation_box(
            self,
            "forgetAgentMemoriesDialog",
            "Delete an agent's memories",
            f"Delete every memory of {name}?",
            "The memories about you that every agent shares stay.",
            ("Delete", "confirmForgetAgentButton", QMessageBox.ButtonRole.DestructiveRole),
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        await ask(box)
        chosen = box.clickedButton() is confirm
        box.deleteLater()
        if not chosen:
            return
        gone = await self.memory.forget_agent(agent.id)
        self.message.setText(f"Deleted {gone} memor{'y' if gone == 1 else 'ies'} of {name}.")
        await self.load()
