"""Driving the real window in tests: a qasync loop, a workspace on scripted models in a real
data directory, and small helpers that wait by polling (never nesting an event loop)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.core.models.protocol import ChatModel
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.window import MainWindow


async def wait_until(
    predicate: Callable[[], Any], timeout: float = 15.0, what: str = "condition"
) -> Any:
    """Poll ``predicate`` on the running loop until it is truthy; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


class Models:
    """Scripted models by spec, built on first use; unknown specs are refused like a real
    registry refuses a bad spec."""

    def __init__(self, scripts: dict[str, list[Any]], delay: float = 0.0) -> None:
        self.scripts = scripts
        self.delay = delay
        self.built: dict[str, ScriptedChatModel] = {}

    def __call__(self, spec: str) -> ChatModel:
        if spec not in self.scripts:
            raise UserError(f"unknown model {spec!r}")
        if spec not in self.built:
            self.built[spec] = ScriptedChatModel(self.scripts[spec], delay=self.delay)
        return self.built[spec]


async def open_test_window(
    data_dir: Path, models: Models, default_model: str = "scripted:a"
) -> MainWindow:
    """Open a real window on ``data_dir`` with scripted models."""
    workspace = await Workspace.open(
        data_dir, resolve_model=models, secret_resolver=lambda ref: "unused"
    )
    workspace.settings.use(AppSettings(default_model=default_model))
    window = MainWindow(workspace)
    window.show()
    await window.start()
    return window


async def close_test_window(window: MainWindow) -> None:
    """Close the window the way quitting does."""
    await close_window(window)


def find(window: QWidget, cls: type[Any], name: str) -> Any:
    """The child widget named ``name`` (fails clearly when missing)."""
    found = window.findChild(cls, name)
    assert found is not None, f"no {cls.__name__} named {name!r}"
    return found


def type_text(widget: QWidget, text: str) -> None:
    """Type ``text`` into ``widget`` key by key."""
    widget.setFocus()
    QTest.keyClicks(widget, text)


def press(
    widget: QWidget, key: Qt.Key, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
) -> None:
    """Press one key on ``widget``."""
    QTest.keyClick(widget, key, modifiers)


def shortcut(window: QWidget, sequence: str) -> None:
    """Trigger the window action bound to ``sequence`` as the keyboard would."""
    keys = QKeySequence(sequence)
    combo = keys[0]
    QTest.keyClick(window, combo.key(), combo.keyboardModifiers())


def app() -> QApplication:
    """The test QApplication."""
    instance = QApplication.instance()
    assert isinstance(instance, QApplication)
    return instance


async def settings_shown_at(window: QWidget, page: str) -> Any:
    """The settings dialog, once ``window`` shows it open at the page named ``page`` (the
    page's object name, e.g. ``"toolsSettingsPage"``)."""
    from PySide6.QtWidgets import QDialog

    from app.ui.settings.dialog import SettingsDialog

    settings = await wait_until(
        lambda: (d := window.findChild(QDialog, "settingsDialog")) and d.isVisible() and d,
        what="the settings dialog",
    )
    assert isinstance(settings, SettingsDialog)
    await wait_until(
        lambda: getattr(settings.stack.currentWidget(), "objectName", str)() == page,
        what=f"the settings page {page}",
    )
    return settings
