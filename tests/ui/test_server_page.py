"""Settings > Server's refusals: a window that cannot run the server says so and offers no
switch; another address than this computer's is warned about, and refused until a key
exists, in one sentence, with the switch back off."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QCheckBox, QDialog, QLabel, QLineEdit, QSpinBox, QTableWidget

from app.server.in_window import serve_in_window
from app.services.server_keys import ServerKeys
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.settings.page import PageId
from app.ui.window import MainWindow
from tests.services.memory_keyring import MemoryKeyring, installed
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    type_text,
    wait_until,
)


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


async def test_a_key_made_on_the_page_keeps_its_daily_limit(
    tmp_path: Path, keyring_here: MemoryKeyring
) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        page = await _page(window)
        made = asyncio.ensure_future(page.add_key())  # type: ignore[attr-defined]
        asked = await wait_until(lambda: _open(page, "serverNewKeyDialog"), what="the dialog")
        type_text(find(asked, QLineEdit, "serverKeyName"), "ci-bot")
        find(asked, QSpinBox, "serverKeyLimit").setValue(50_000)
        asked.accept()
        shown = await wait_until(lambda: _open(page, "serverKeyDialog"), what="the key")
        key = find(shown, QLineEdit, "serverKeyValue").text()
        shown.accept()
        assert await made == key
        table = find(page, QTableWidget, "serverKeys")
        assert [table.item(0, c).text() for c in range(3)] == [
            "ci-bot",
            "50,000 tokens",
            "0 tokens",
        ]
        [kept] = ServerKeys(tmp_path).listed()
        assert (kept.name, kept.daily_tokens) == ("ci-bot", 50_000)
        assert ServerKeys(tmp_path).check(key) == "ci-bot"
        # a name already taken is refused in one sentence, and nothing is shown
        again = asyncio.ensure_future(page.add_key())  # type: ignore[attr-defined]
        asked = await wait_until(lambda: _open(page, "serverNewKeyDialog"), what="the dialog")
        type_text(find(asked, QLineEdit, "serverKeyName"), "ci-bot")
        asked.accept()
        assert await again is None
        assert (
            find(page, QLabel, "serverMessage")
            .text()
            .startswith("No key was made: a key called ci-bot exists already")
        )
    finally:
        await close_test_window(window)


async def test_a_key_made_on_the_page_can_keep_no_threads(
    tmp_path: Path, keyring_here: MemoryKeyring
) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        page = await _page(window)
        made = asyncio.ensure_future(page.add_key())  # type: ignore[attr-defined]
        asked = await wait_until(lambda: _open(page, "serverNewKeyDialog"), what="the dialog")
        type_text(find(asked, QLineEdit, "serverKeyName"), "quiet")
        find(asked, QCheckBox, "serverKeyNoThreads").setChecked(True)
        asked.accept()
        shown = await wait_until(lambda: _open(page, "serverKeyDialog"), what="the key")
        shown.accept()
        assert await made
        table = find(page, QTableWidget, "serverKeys")
        assert [table.item(0, c).text() for c in range(4)] == [
            "quiet",
            "none",
            "0 tokens",
            "not kept",
        ]
        [kept] = ServerKeys(tmp_path).listed()
        assert (kept.name, kept.keep_threads) == ("quiet", False)
    finally:
        await close_test_window(window)


def _open(page: Any, name: str) -> QDialog | None:
    """The dialog ``name`` open over ``page`` now (one shown before stays, hidden)."""
    return next((d for d in page.findChildren(QDialog, name) if d.isVisible()), None)
