"""Where the window's file dialogs open: in the home folder at first (not in the folder the
program was started from), then, for each dialog, in the folder that held what was chosen in
it last; a dialog not used yet still opens in the home folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog, QLineEdit, QListWidget, QPushButton, QWidget

from app.ui.settings.page import PageId
from app.ui.window import MainWindow
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert Path.cwd() != home  # so a dialog opening where the program started is told apart
    return home


def where(dialog: QFileDialog) -> Path:
    return Path(dialog.directory().absolutePath())


async def open_dialog(owner: QWidget, name: str, opened: set[int]) -> QFileDialog:
    """The dialog ``name`` that has just opened (not one seen before)."""

    def fresh() -> QFileDialog | None:
        for dialog in owner.findChildren(QFileDialog, name):
            if dialog.isVisible() and id(dialog) not in opened:
                opened.add(id(dialog))
                return dialog
        return None

    return await wait_until(fresh, what=f"the dialog {name}")


async def attach_dialog(window: MainWindow, opened: set[int]) -> QFileDialog:
    find(window, QPushButton, "attachButton").click()
    return await open_dialog(window, "attachDialog", opened)


async def test_attach_opens_at_home_then_where_the_last_file_was(
    tmp_path: Path, home: Path
) -> None:
    photos = home / "Pictures" / "trip"
    photos.mkdir(parents=True)
    note = photos / "note.txt"
    note.write_text("Pack a jacket.\n")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    opened: set[int] = set()
    try:
        dialog = await attach_dialog(window, opened)
        assert where(dialog) == home
        dialog.setDirectory(str(photos))  # the person walks into the folder
        dialog.findChild(QLineEdit, "fileNameEdit").setText("note.txt")
        dialog.accept()
        await wait_until(lambda: window.attachments.tray.blocks(), what="the file attached")
        again = await attach_dialog(window, opened)
        assert where(again) == photos
        again.reject()
    finally:
        await close_test_window(window)


async def test_add_folder_opens_at_home_then_beside_the_last_folder_added(
    tmp_path: Path, home: Path
) -> None:
    papers = home / "papers"
    (papers / "2024").mkdir(parents=True)
    (papers / "2024" / "notes.md").write_text("# Glaciers\n\nThey move.\n")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    opened: set[int] = set()
    try:
        settings = window.open_settings(PageId.KNOWLEDGE)
        add = find(settings, QPushButton, "addKnowledgeFolderButton")
        QTest.mouseClick(add, Qt.MouseButton.LeftButton)
        chooser = await open_dialog(settings, "knowledgeFolderDialog", opened)
        assert where(chooser) == home
        chooser.setDirectory(str(papers / "2024"))
        chooser.accept()
        folders = find(settings, QListWidget, "knowledgeFolders")
        await wait_until(lambda: folders.count() == 1, what="the folder listed")
        QTest.mouseClick(add, Qt.MouseButton.LeftButton)
        again = await open_dialog(settings, "knowledgeFolderDialog", opened)
        assert where(again) == papers  # beside the folder added, to add another
        again.reject()
        attach = await attach_dialog(window, opened)
        assert where(attach) == home  # each dialog keeps its own folder
        attach.reject()
    finally:
        await close_test_window(window)
