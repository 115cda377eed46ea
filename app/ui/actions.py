"""The window's commands as data: each :class:`Action` says once what it is called, where it
sits in the menus, its keys and what it does. :func:`build_menus` makes the menu bar and the
shortcuts from a table of them and :func:`shortcut_rows` the F1 list, so the three cannot
disagree. Keys that a widget handles itself (Enter in the message box) are rows without a
menu, listed in F1 only."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QWidget

__all__ = ["Action", "ActionId", "MenuId", "build_menus", "shortcut_rows"]


class MenuId(Enum):
    """The menu bar's menus, in order; each value is the menu's title (with its ``&``
    mnemonic)."""

    FILE = "&File"
    EDIT = "&Edit"
    THREAD = "&Thread"
    VIEW = "&View"
    HELP = "&Help"

    @property
    def object_name(self) -> str:
        """The menu's object name (``fileMenu``...), what tests and styles find it by."""
        return self.value.replace("&", "").lower() + "Menu"


class ActionId(StrEnum):
    """Every command of the window; the value is also the QAction's object name."""

    FILE_NEW_THREAD = "file.newThread"
    FILE_IMPORT = "file.import"
    FILE_ATTACH = "file.attach"
    FILE_ATTACH_MCP = "file.attachMcp"
    FILE_EXPORT = "file.export"
    FILE_NEW_AGENT = "file.newAgent"
    FILE_IMPORT_AGENT = "file.importAgent"
    FILE_EXPORT_AGENT = "file.exportAgent"
    FILE_SETTINGS = "file.settings"
    FILE_EXPORT_ALL = "file.exportAll"
    FILE_DELETE_ALL = "file.deleteAll"
    FILE_CLOSE = "file.close"
    FILE_QUIT = "file.quit"
    EDIT_COPY_ANSWER = "edit.copyAnswer"
    EDIT_REGENERATE = "edit.regenerate"
    EDIT_FOCUS_MESSAGE = "edit.focusMessage"
    EDIT_SEARCH = "edit.search"
    EDIT_DICTATE = "edit.dictate"
    EDIT_READ_ALOUD = "edit.readAloud"
    KEYS_SEND = "keys.send"
    KEYS_NEW_LINE = "keys.newLine"
    KEYS_COMPARE = "keys.compare"
    KEYS_ESCAPE = "keys.escape"
    KEYS_EDIT_LAST = "keys.editLast"
    KEYS_DELETE_THREAD = "keys.deleteThread"
    KEYS_MESSAGE_MENU = "keys.messageMenu"
    THREAD_RENAME = "thread.rename"
    THREAD_SYSTEM_PROMPT = "thread.systemPrompt"
    THREAD_MODEL = "thread.model"
    THREAD_INCOGNITO = "incognitoAction"
    THREAD_BRANCHES = "thread.branches"
    THREAD_DELETE = "thread.delete"
    THREAD_PREVIOUS = "thread.previous"
    THREAD_NEXT = "thread.next"
    VIEW_SIDEBAR = "view.sidebar"
    VIEW_OFFLINE = "view.offline"
    VIEW_NETWORK = "view.network"
    VIEW_SCHEDULES = "view.schedules"
    VIEW_WAITING = "view.waiting"
    HELP_SHORTCUTS = "help.shortcuts"
    HELP_DIAGNOSTICS = "help.diagnostics"
    HELP_DATA_FOLDER = "help.dataFolder"
    HELP_LOG_FOLDER = "help.logFolder"


Keys = QKeySequence.StandardKey | str | None


@dataclass(frozen=True)
class Action:
    """One command: ``id`` (also the QAction's object name), the menu ``text`` (with its
    ``&`` mnemonic), the ``menu`` it sits in (``None``: keys a widget handles, only listed),
    its ``keys``, what ``handler`` runs, and what the F1 list says of it (``help``; empty:
    not listed) with the keys written as ``keys_text`` (default: ``keys`` itself)."""

    id: ActionId
    text: str
    menu: MenuId | None
    keys: Keys = None
    handler: Callable[[], object] | None = None
    help: str = ""
    keys_text: str = ""
    separator_before: bool = False
    checkable: bool = False

    def listed_keys(self) -> str:
        """How the F1 list writes this action's keys."""
        if self.keys_text:
            return self.keys_text
        return self.keys if isinstance(self.keys, str) else ""


def build_menus(
    window: QWidget, bar: QMenuBar, actions: Sequence[Action]
) -> tuple[dict[ActionId, QAction], dict[MenuId, QMenu]]:
    """Fill ``bar`` with a menu per :class:`MenuId` holding its ``actions`` in table order
    and make each action's keys a shortcut of ``window``; return the QActions and the menus
    by id."""
    menus = {menu: bar.addMenu(menu.value) for menu in MenuId}
    made: dict[ActionId, QAction] = {}
    for spec in actions:
        if spec.menu is None:
            continue
        menu = menus[spec.menu]
        if spec.separator_before:
            menu.addSeparator()
        action = QAction(spec.text, window)
        action.setObjectName(spec.id)
        action.setCheckable(spec.checkable)
        if isinstance(spec.keys, QKeySequence.StandardKey):
            # every key the platform binds (Ctrl+F4 and Ctrl+W); where it binds none (Quit on
            # some desktops), the keys the F1 list promises
            bound = QKeySequence.keyBindings(spec.keys)
            if not bound and spec.keys_text:
                bound = [QKeySequence(spec.keys_text)]
            action.setShortcuts(bound)
        elif spec.keys is not None:
            action.setShortcut(QKeySequence(spec.keys))
        if spec.handler is not None:
            handler = spec.handler
            action.triggered.connect(lambda _checked=False, run=handler: run())
        menu.addAction(action)
        window.addAction(action)
        made[spec.id] = action
    for menu_id, menu in menus.items():
        menu.setObjectName(menu_id.object_name)
    return made, menus


def shortcut_rows(actions: Iterable[Action]) -> list[tuple[str, str]]:
    """The F1 list: (keys, what they do) for every action that has ``help``."""
    return [(a.listed_keys(), a.help) for a in actions if a.help]
