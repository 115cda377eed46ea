"""File > Export all threads… and Delete all data…, Help > Copy diagnostics and Open data
folder, through the real window's menus, checked on the clipboard and on disk."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.store import Store
from app.store.paths import database_path
from app.ui.window import MainWindow
from tests.services.memory_keyring import MemoryKeyring
from tests.ui.harness import Models, close_test_window, open_test_window, wait_until

SECRET = "sk-test-do-not-leak-4242"


def menu_action(window: MainWindow, text: str) -> QAction:
    for top in window.menuBar().actions():
        menu = top.menu()
        if menu is None:
            continue
        for action in menu.actions():
            if action.text().replace("&", "") == text:
                return action
    raise AssertionError(f"no menu item {text!r}")


def visible(window: MainWindow, cls: type, name: str) -> object | None:
    """The visible dialog ``name`` the window opened."""
    for widget in window.findChildren(cls, name):
        if widget.isVisible():
            return widget
    return None


async def opened(window: MainWindow, cls: type, name: str) -> object:
    """Wait for the window to show dialog ``name``."""
    return await wait_until(lambda: visible(window, cls, name), what=f"the {name}")


async def with_two_threads(tmp_path: Path) -> MainWindow:
    models = Models({"scripted:a": [{"text": "The zebra plan is ready."}] * 2})
    window = await open_test_window(tmp_path, models)
    ws = window.workspace
    for title in ("Zebra plan", "Garden"):
        thread = await ws.threads.create(title=title)
        await (await ws.runs.send(thread.id, f"Tell me about the {title.lower()}, privately"))
    return window


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    backend.set_password("parley", "openai/api-key", SECRET)
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


async def test_copy_diagnostics_puts_a_report_without_content_or_keys_on_the_clipboard(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    window = await with_two_threads(tmp_path)
    try:
        QGuiApplication.clipboard().clear()
        menu_action(window, "Copy diagnostics").trigger()
        text = await wait_until(
            lambda: QGuiApplication.clipboard().text(), what="the clipboard to fill"
        )
        assert text.startswith("Parley ")
        assert "platform plugin offscreen" in text
        assert "scripted:a" in text
        assert f"data: {tmp_path}" in text
        assert "quick check: ok" in text
        for private in ("zebra", "Zebra", "privately", "Garden", SECRET):
            assert private not in text
        assert "no messages" in window.notice.label.text()
    finally:
        await close_test_window(window)


async def test_export_all_writes_every_threads_bytes_into_the_chosen_folder(
    tmp_path: Path,
) -> None:
    window = await with_two_threads(tmp_path / "data")
    target = tmp_path / "backup"
    target.mkdir()
    try:
        menu_action(window, "Export all threads…").trigger()
        dialog = await opened(window, QFileDialog, "exportAllDialog")
        assert isinstance(dialog, QFileDialog)
        dialog.setDirectory(str(target))
        dialog.accept()
        await wait_until(lambda: "Exported" in window.notice.label.text(), what="the export")
        assert window.notice.label.text() == f"Exported 3 threads to {target}."
        for summary in await window.workspace.threads.list_all():
            thread_id = summary.thread.id
            [json_file] = target.glob(f"*-{thread_id[:8]}.json")
            written = json.loads(json_file.read_bytes())
            fresh = json.loads(await window.workspace.threads.export(thread_id, "json"))
            written.pop("exported_at"), fresh.pop("exported_at")
            assert written == fresh
            [md_file] = target.glob(f"*-{thread_id[:8]}.md")
            assert md_file.read_bytes() == await window.workspace.threads.export(
                thread_id, "markdown"
            )
        answered = [p for p in target.glob("*.md") if "The zebra plan is ready." in p.read_text()]
        assert len(answered) == 2
    finally:
        await close_test_window(window)


async def test_delete_all_asks_first_then_leaves_an_empty_store(tmp_path: Path) -> None:
    data = tmp_path / "data"
    window = await with_two_threads(data)
    await window.workspace.tools.grant_folder(tmp_path)
    (data / "models").mkdir()
    (data / "models" / "tiny.gguf").write_bytes(b"GGUF" + bytes(1000))
    try:
        action = menu_action(window, "Delete all data…")
        action.trigger()
        box = await opened(window, QMessageBox, "deleteAllDialog")
        assert isinstance(box, QMessageBox)
        assert "your 3 threads with their messages" in box.informativeText()
        assert box.defaultButton().text() == "Cancel"
        box.defaultButton().click()  # cancelled: nothing goes
        await wait_until(lambda: not box.isVisible(), what="the question to close")
        assert len(await window.workspace.threads.list_all()) == 3

        action.trigger()
        box = await opened(window, QMessageBox, "deleteAllDialog")
        assert isinstance(box, QMessageBox)
        next(b for b in box.buttons() if b.text() == "Delete everything").click()
        done = await opened(window, QMessageBox, "deletedAllDialog")
        assert isinstance(done, QMessageBox)
        assert done.text().startswith("Deleted ")
        done.accept()
        await wait_until(lambda: not window.isVisible(), what="the window to close")
    finally:
        await close_test_window(window)
    assert not (data / "settings.json").exists()
    assert not (data / "window.ini").exists()
    assert not (data / "models").exists()
    async with Store.open(database_path(data)) as store:
        assert await store.list_threads() == []


class _Opened(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


async def test_open_data_and_log_folders_hand_the_folders_to_the_file_manager(
    tmp_path: Path,
) -> None:
    opened = _Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        menu_action(window, "Open data folder").trigger()
        menu_action(window, "Open log folder").trigger()
        assert [u.toLocalFile() for u in opened.urls] == [
            str(tmp_path),
            str(window.workspace.data.log_folder),
        ]
        assert window.workspace.data.log_folder.is_dir()
    finally:
        QDesktopServices.unsetUrlHandler("file")
        await close_test_window(window)
