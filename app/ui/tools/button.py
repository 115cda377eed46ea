"""The composer's tools button: a menu of every tool a thread may use, grouped built-in and by
MCP server, each switched on or off for the open thread (the thread remembers its choice).
While a knowledge folder exists, a Knowledge section switches the passages put before each
question (for models not offered ``search_knowledge``) on or off for the thread.

Keyboard: Tab reaches the button, Space opens the menu, arrows move, Enter switches the
focused tool. A server that fails is listed with its reason, and the window's
notice bar says so once, calmly. A tool that cannot work now is greyed with why, and an entry
under its group (``toolFix:share_folder``, ``toolFix:go_online``, ``toolFix:start_server``)
opens the settings page that fixes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import QPoint, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QPushButton, QWidget

from app.core.errors import ParleyError
from app.services.bus import Listener
from app.services.events import SettingsChanged, ToolsChanged, WorkspaceEvent
from app.services.mcp.config import CONFIG_NAME
from app.services.workspace_tools import BUILTIN_GROUP, ToolEntry, ToolFix, WorkspaceTools
from app.ui.icons import icon_button
from app.ui.tasks import spawn
from app.ui.tools.fixes import FIX_PAGES, fix_tooltip

__all__ = ["ToolsButton"]

_DESCRIPTION_CHARS = 56
_AUTO_TEXT = "Passages before each question"
_AUTO_TIP = (
    "Put the best passages of your knowledge folders before each question and cite them, "
    "when the model is not offered search_knowledge"
)
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]])\.\s+(?=[A-Z])")


def _short(text: str) -> str:
    """The first sentence of ``text``, cut to fit a menu line."""
    sentence = _SENTENCE_END.split(text, maxsplit=1)[0].rstrip(".")
    if len(sentence) <= _DESCRIPTION_CHARS:
        return sentence
    return sentence[: _DESCRIPTION_CHARS - 1].rstrip() + "…"


class ToolsButton(QPushButton):
    """The tools button (object name ``toolsButton``) and its menu (``toolsMenu``)."""

    problem = Signal(str)
    """A sentence for the notice bar (a server failed; a choice could not be saved)."""
    settingsWanted = Signal(object)
    """A tool's fix was asked for: open the settings at this :class:`PageId`."""

    def __init__(
        self,
        tools: WorkspaceTools,
        subscribe: Callable[[Listener], Callable[[], None]],
        thread_id: Callable[[], str | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.tools = tools
        self._thread_id = thread_id
        self._reported: dict[str, str] = {}
        self.setObjectName("toolsButton")
        icon_button(
            self,
            "tools-line",
            "Tools for this thread",
            "Choose the tools the model may use in this thread",
        )
        self.menu_ = QMenu(self)
        self.menu_.setObjectName("toolsMenu")
        self.menu_.setAccessibleName("Tools")
        self.menu_.setToolTipsVisible(True)
        self.clicked.connect(self.open_menu)
        self._unsubscribe = subscribe(self._on_event)
        self.refresh()

    # What it shows ------------------------------------------------------------------

    def refresh(self) -> None:
        """Show how many tools are on in the open thread."""
        on = self._on_now()
        self.setText(f"Tools: {len(on)} on" if on else "Tools")
        self.setAccessibleDescription(
            f"{len(on)} tools on: {', '.join(sorted(on))}" if on else "No tools on"
        )

    def _on_now(self) -> set[str]:
        thread = self._thread_id()
        if thread is None:
            return set()
        enabled = set(self.tools.enabled(thread))
        if not enabled:  # nothing on: the catalogue (every tool built) is not needed
            return set()
        working = {e.name for e in self.tools.catalogue() if e.unavailable is None}
        return enabled & working

    def open_menu(self) -> None:
        """Show the menu above the button, without blocking (never a nested event loop)."""
        self.rebuild()
        height = self.menu_.sizeHint().height()
        self.menu_.popup(self.mapToGlobal(QPoint(0, -height - 4)))
        first = next(
            (a for a in self.menu_.actions() if a.isEnabled() and not a.isSeparator()), None
        )
        if first is not None:
            self.menu_.setActiveAction(first)

    def rebuild(self) -> None:
        """Fill the menu from the tools service: a section per group, a checkable entry per tool."""
        menu = self.menu_
        menu.clear()
        thread = self._thread_id()
        on = set(self.tools.enabled(thread)) if thread else set()
        groups: dict[str, list[ToolEntry]] = {}
        for entry in self.tools.catalogue():
            groups.setdefault(entry.group, []).append(entry)
        for group in [BUILTIN_GROUP, *sorted(g for g in groups if g != BUILTIN_GROUP)]:
            entries = groups.get(group, [])
            menu.addSection(group if group == BUILTIN_GROUP else f"MCP: {group}")
            for entry in entries:
                menu.addAction(self._action(entry, entry.name in on, thread is not None))
            fixes = dict.fromkeys(e.unavailable.fix for e in entries if e.unavailable)
            for fix in fixes:
                self._add_fix(menu, fix)
        if self.tools.has_knowledge:
            self._add_auto_passages(menu, thread)
        for name, reason in sorted(self._reported.items()):
            menu.addSection(f"MCP: {name}")
            note = menu.addAction(f"Not running: {_short(reason)}")
            note.setToolTip(reason)
            note.setEnabled(False)
        if self._reported:
            self._add_fix(menu, ToolFix.START_SERVER)
        if on:
            menu.addSeparator()
            off = menu.addAction("Turn all tools off")
            off.setObjectName("toolsAllOff")
            off.triggered.connect(lambda: spawn(self._set(set())))

    def _action(self, entry: ToolEntry, on: bool, enabled: bool) -> QAction:
        """The tool's checkable entry; greyed with why while it cannot work."""
        why = entry.unavailable
        text = _short(why.reason) if why else _short(entry.description)
        action = QAction(f"{entry.label} — {text}", self.menu_)
        action.setObjectName(f"tool:{entry.name}")
        action.setCheckable(True)
        action.setChecked(on)
        tip = fix_tooltip(entry.label, why) if why else entry.description
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.setEnabled(enabled and why is None)
        action.toggled.connect(lambda checked, name=entry.name: spawn(self._toggle(name, checked)))
        return action

    def _add_fix(self, menu: QMenu, fix: ToolFix) -> None:
        action = menu.addAction(fix.value)
        action.setObjectName(f"toolFix:{fix.name.lower()}")
        action.triggered.connect(lambda: self.settingsWanted.emit(FIX_PAGES[fix]))

    def _add_auto_passages(self, menu: QMenu, thread: str | None) -> None:
        menu.addSection("Knowledge")
        action = QAction(_AUTO_TEXT, menu)
        action.setObjectName("knowledgeAutoToggle")
        action.setCheckable(True)
        action.setChecked(thread is not None and self.tools.auto_passages(thread))
        action.setToolTip(_AUTO_TIP)
        action.setStatusTip(_AUTO_TIP)
        action.setEnabled(thread is not None)
        action.toggled.connect(lambda checked: spawn(self._set_auto(checked)))
        menu.addAction(action)

    def actions_by_name(self) -> dict[str, QAction]:
        """The menu's tool entries by tool name (after :meth:`rebuild`)."""
        return {
            a.objectName().removeprefix("tool:"): a
            for a in self.menu_.actions()
            if a.objectName().startswith("tool:")
        }

    # Changing ------------------------------------------------------------------------

    async def _toggle(self, name: str, checked: bool) -> None:
        thread = self._thread_id()
        if thread is None:
            return
        on = set(self.tools.enabled(thread))
        await self._set(on | {name} if checked else on - {name})

    async def _set(self, names: set[str]) -> None:
        thread = self._thread_id()
        if thread is None:
            return
        order = [e.name for e in self.tools.catalogue()]
        kept = [n for n in self.tools.enabled(thread) if n not in order and n in names]
        try:
            await self.tools.set_enabled(thread, [n for n in order if n in names] + kept)
        except (OSError, ParleyError) as exc:
            self.problem.emit(f"The tool choice could not be saved: {exc}")
        self.refresh()

    async def _set_auto(self, on: bool) -> None:
        thread = self._thread_id()
        if thread is None:
            return
        try:
            await self.tools.set_auto_passages(thread, on)
        except (OSError, ParleyError) as exc:
            self.problem.emit(f"The knowledge passages choice could not be saved: {exc}")

    def _on_event(self, event: WorkspaceEvent) -> None:
        if isinstance(event, SettingsChanged):
            self.refresh()  # a folder shared or offline mode switched: what works changed
        if not isinstance(event, ToolsChanged):
            return
        for name, reason in event.problems.items():
            if self._reported.get(name) == reason:
                continue
            if name == CONFIG_NAME:
                self.problem.emit(f"No MCP server's tools are offered: {reason}")
            else:
                self.problem.emit(
                    f"The MCP server {name} is not running, so its tools are not offered: {reason}"
                )
        running = {e.group for e in self.tools.catalogue()}
        self._reported = {
            **{n: r for n, r in self._reported.items() if n not in running},
            **event.problems,
        }
        self.refresh()

    def close_subscription(self) -> None:
        """Stop listening to the event bus (the window is closing)."""
        self._unsubscribe()
