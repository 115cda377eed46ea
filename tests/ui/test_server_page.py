"""Settings > Server's refusals: a window that cannot run the server says so and offers no
switch; another address than this computer's is warned about, and refused until a key
exists, in one sentence, with the switch back off."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QCheckBox, QLabel, QLineEdit

from app.server.in_window import serve_in_window
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.settings.page import PageId
from app.ui.window import MainWindow
from tests.services.memory_keyring import MemoryKeyring, installed
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


@pytest.fixture
def keyring_here() -> Iterator[MemoryKeyring]:
    with installed(MemoryKeyring()) as backend:
        assert isinstance(backend, MemoryKeyring)
        yield backend


async def _page(window: MainWindow) -> object:
    dialog = window.open_settings(PageId.SERVER)
    page = dialog.page(PageId.SERVER)
    await wait_until(page.isVisible, what="the server page")
    await page.load()
    return page


async def test_a_window_that_cannot_serve_says_so(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        page = await _page(window)
        assert not find(page, QCheckBox, "serverSwitch").isEnabled()
        assert find(page, QLabel, "serverAddress").text() == (
            "The server cannot run in this window; use parley serve."
        )
    finally:
        await close_test_window(window)


async def test_another_address_needs_a_key_first(
    tmp_path: Path, keyring_here: MemoryKeyring
) -> None:
    workspace = await Workspace.open(
        tmp_path, resolve_model=Models({"scripted:a": []}), secret_resolver=lambda ref: ""
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    window = MainWindow(workspace, serve=serve_in_window)
    window.show()
    await window.start(preload=False)
    try:
        page = await _page(window)
        host = find(page, QLineEdit, "serverHost")
        host.setText("0.0.0.0")
        assert find(page, QLabel, "serverWarning").text() == (
            "Serving on 0.0.0.0 lets other computers that reach it use your models and agents "
            "with a key."
        )
        await page.set_serving(True)  # type: ignore[attr-defined]
        assert find(page, QLabel, "serverMessage").text() == (
            "Not started: serving on 0.0.0.0 lets other computers connect, so it needs a key "
            "first: add one below."
        )
        assert not find(page, QCheckBox, "serverSwitch").isChecked()
        assert window.server.address is None
    finally:
        await close_window(window)
