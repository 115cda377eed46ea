"""The sidebar's agents: a heading with **New agent**, and the list (``agentList``) — choose one
to start a thread with it, double-click or use the context menu to edit, export or remove it."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.services.agents import Agent
from app.text.hidden_chars import mark_hidden
from app.ui.theme import is_dark, roles

__all__ = ["AgentIdRole", "AgentList", "initials"]

AgentIdRole = Qt.ItemDataRole.UserRole + 11
VISIBLE_ROWS = 5
"""How many agents show before the list scrolls (the threads keep the room below)."""
BADGE = 20
"""The size of an agent's round badge."""


def initials(name: str) -> str:
    """Up to two letters for ``name``'s badge: the first letter or digit of its first two
    words ("Trip planner" -> "TP", "Parley" -> "P"); "?" when it has none."""
    letters = []
    for word in name.split():
        first = next((ch for ch in word if ch.isalnum()), "")
        if first:
            letters.append(first.upper())
        if len(letters) == 2:
            break
    return "".join(letters) or "?"


def _badge(text: str, dark: bool, font: QFont, scale: float) -> QIcon:
    """A round badge in the accent with ``text`` on it, sharp at ``scale``."""
    colours = roles(dark)
    pixmap = QPixmap(int(BADGE * scale), int(BADGE * scale))
    pixmap.setDevicePixelRatio(scale)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colours.accent_fill))
    painter.drawEllipse(QRect(0, 0, BADGE, BADGE))
    small = QFont(font)
    small.setPixelSize(9 if len(text) > 1 else 11)
    small.setWeight(QFont.Weight.DemiBold)
    painter.setFont(small)
    painter.setPen(QColor(colours.on_accent))
    painter.drawText(QRect(0, 0, BADGE, BADGE), int(Qt.AlignmentFlag.AlignCenter), text)
    painter.end()
    return QIcon(pixmap)


class AgentList(QFrame):
    """The agents block of the sidebar (object name ``agentsPanel``)."""

    chosen = Signal(str)
    """Start a thread with the agent of this id."""
    newRequested = Signal()
    editRequested = Signal(str)
    exportRequested = Signal(str)
    removeRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("agentsPanel")
        self._agents: list[Agent] = []
        self._build()

    def _build(self) -> None:
        heading = QLabel("Agents", self)
        heading.setObjectName("agentsHeading")
        self.new_button = QPushButton("+ New agent", self)
        self.new_button.setObjectName("newAgentButton")
        self.new_button.setAccessibleName("New agent")
        self.new_button.setToolTip("Define an agent: its instructions, model, tools and limits")
        self.new_button.setFlat(True)
        self.new_button.clicked.connect(self.newRequested)
        self.list = QListWidget(self)
        self.list.setObjectName("agentList")
        self.list.setAccessibleName("Agents")
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)  # a long name: "…", its tooltip
        self.list.setIconSize(QSize(BADGE, BADGE))
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemClicked.connect(self._clicked)
        self.list.itemActivated.connect(self._clicked)
        self.list.itemDoubleClicked.connect(self._double_clicked)
        top = QHBoxLayout()
        top.setContentsMargins(4, 0, 0, 0)
        top.addWidget(heading, 1)
        top.addWidget(self.new_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.list)

    def show_agents(self, agents: Sequence[Agent]) -> None:
        """List ``agents`` (the built-in one first, as given), keeping the selection."""
        current = self.current_id()
        self._agents = list(agents)
        self.list.clear()
        dark = is_dark(self.palette())
        scale = max(1.0, self.devicePixelRatioF())
        for agent in agents:
            item = QListWidgetItem(mark_hidden(agent.name))
            item.setIcon(_badge(initials(agent.name), dark, self.font(), scale))
            item.setData(AgentIdRole, agent.id)
            about = agent.description or ("Plain chat" if agent.builtin else "")
            item.setToolTip(mark_hidden(f"{agent.name} — {about}" if about else agent.name))
            item.setData(
                Qt.ItemDataRole.AccessibleTextRole,
                mark_hidden(f"{agent.name}. {about}" if about else agent.name),
            )
            self.list.addItem(item)
            if agent.id == current:
                self.list.setCurrentItem(item)
        rows = max(1, min(VISIBLE_ROWS, len(agents)))
        height = self.list.sizeHintForRow(0) if agents else 24
        # the style sheet's padding (4 px above and below) around the badge is not in the hint
        self.list.setFixedHeight(rows * max(height, BADGE + 10) + 4)

    def agents(self) -> list[Agent]:
        """The agents shown, in order."""
        return list(self._agents)

    def current_id(self) -> str | None:
        """The id of the selected agent, if any."""
        item = self.list.currentItem()
        return str(item.data(AgentIdRole)) if item is not None else None

    def _agent(self, item: QListWidgetItem | None) -> Agent | None:
        if item is None:
            return None
        agent_id = item.data(AgentIdRole)
        return next((a for a in self._agents if a.id == agent_id), None)

    def _clicked(self, item: QListWidgetItem) -> None:
        agent = self._agent(item)
        if agent is not None:
            self.chosen.emit(agent.id)

    def _double_clicked(self, item: QListWidgetItem) -> None:
        agent = self._agent(item)
        if agent is not None and not agent.builtin:
            self.editRequested.emit(agent.id)

    def _menu(self, pos: QPoint) -> None:
        agent = self._agent(self.list.itemAt(pos))
        if agent is None:
            return
        menu = self.context_menu(agent)
        menu.popup(self.list.viewport().mapToGlobal(pos))

    def context_menu(self, agent: Agent) -> QMenu:
        """The menu for ``agent``: new thread, edit, export, remove (the built-in agent can
        only start threads)."""
        menu = QMenu(self)
        menu.setObjectName("agentMenu")
        menu.addAction("New thread with this agent", lambda: self.chosen.emit(agent.id))
        edit = menu.addAction("Edit agent…", lambda: self.editRequested.emit(agent.id))
        export = menu.addAction("Export agent…", lambda: self.exportRequested.emit(agent.id))
        menu.addSeparator()
        remove = menu.addAction("Remove agent", lambda: self.removeRequested.emit(agent.id))
        for action in (edit, export, remove):
            action.setEnabled(not agent.builtin)
        return menu
