"""The window's commands as data: each :class:`Action` says once what it is called, where it
sits in the menus, its keys and what it does. :func:`build_menus` makes the menu bar and the
shortcuts from a table of them and :func:`shortcut_rows` the F1 list, so the three cannot
disagree. Keys that a widget handles itself (Enter in the message box) are rows without a
menu, listed in F1 only."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QWidget

__all__ = ["MENUS", "Action", "build_menus", "shortcut_rows"]

MENUS = ("&File", "&Edit", "&Thread", "&View", "&Help")
"""The menu bar's menus, in order."""

Keys = QKeySequence.StandardKey | str | None


@dataclass(frozen=True)
class Action:
    """One command: ``id`` (also the QAction's object name), the menu ``text`` (with its
    ``&`` mnemonic), the ``menu`` it sits in (``None``: keys a widget handles, only listed),
    its ``keys``, what ``handler`` runs, and what the F1 list says of it (``help``; empty:
    not listed) with the keys written as ``keys_text`` (default: ``keys`` itself)."""

    id: str
    text: str
    menu: str | None
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
) -> tuple[dict[str, QAction], dict[str, QMenu]]:
    """Fill ``bar`` with a menu per :data:`MENUS` entry holding its ``actions`` in table order
    and make each action's keys a shortcut of ``window``; return the QActions by id and the
    menus by title."""
    menus = {title: bar.addMenu(title) for title in MENUS}
    made: dict[str, QAction] = {}
    for spec in actions:
        if spec.menu is None:
            continue
        menu = menus[spec.menu]
        if spec.separator_before:
            menu.addSeparator()
        action = QAction(spec.text, window)
        action.setObjectName(spec.id)
        action.setCheckable(spec.checkable)
        if spec.keys is not None:
            action.setShortcut(QKeySequence(spec.keys))
        if spec.handler is not None:
            handler = spec.handler
            action.triggered.connect(lambda _checked=False, run=handler: run())
        menu.addAction(action)
        window.addAction(action)
        made[spec.id] = action
    for title, menu in menus.items():
        menu.setObjectName(title.replace("&", "").lower() + "Menu")
    return made, menus


def shortcut_rows(actions: Iterable[Action]) -> list[tuple[str, str]]:
    """The F1 list: (keys, what they do) for every action that has ``help``."""
    return [(a.listed_keys(), a.help) for a in actions if a.help]
