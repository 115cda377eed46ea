"""The window's keys pressed as a person presses them, where the keyboard's focus is, each
doing what its menu entry says: focus moves to the message box or the thread search, the
sidebar folds and comes back, the model list opens, the thread changes, the last answer is
copied, a thread is exported and imported through the file dialog, and the window closes."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QWidget,
)

from app.ui.window import MainWindow
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


async def shown_and_active(window: MainWindow) -> None:
    """Bring the window to the front, as the desktop does when a person clicks it."""
    window.raise_()
    window.activateWindow()
    await wait_until(lambda: QApplication.activeWindow() is window, what="the window active")


def keys(window: MainWindow, sequence: str) -> QWidget:
    """Press ``sequence`` where the keyboard's focus is (the window itself when no widget in
    it has focus); returns the widget that got the keys."""
    target = QApplication.focusWidget() or window
    combo = QKeySequence(sequence)[0]
    QTest.keyClick(target, combo.key(), combo.keyboardModifiers())
    return target


def focused() -> QWidget | None:
    return QApplication.focusWidget()


def on_screen(widget: QWidget) -> bool:
    """Whether any of ``widget`` can be seen (a folded sidebar is moved out of sight)."""
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


async def test_keys_move_the_focus_fold_the_sidebar_and_open_the_model_list(
    tmp_path: Path,
) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [], "scripted:b": []}))
    try:
        await shown_and_active(window)
        composer = find(window, QPlainTextEdit, "composer")
        search = find(window, QLineEdit, "threadSearch")
        sidebar = find(window, QWidget, "sidebar")
        assert focused() is composer

        search.setText("an old search")
        assert keys(window, "Ctrl+F") is composer
        await wait_until(lambda: focused() is search, what="the search focused")
        assert search.selectedText() == "an old search"  # typing replaces it

        assert keys(window, "Ctrl+L") is search
        await wait_until(lambda: focused() is composer, what="the message box focused")

        keys(window, "Ctrl+B")
        await wait_until(lambda: not on_screen(sidebar), what="the sidebar folded")
        keys(window, "Ctrl+B")
        await wait_until(lambda: on_screen(sidebar), what="the sidebar back")
        keys(window, "Ctrl+B")
        await wait_until(lambda: not on_screen(sidebar), what="the sidebar folded again")
        keys(window, "Ctrl+F")  # the search brings a folded sidebar back
        await wait_until(lambda: focused() is search and on_screen(sidebar), what="search")

        picker = find(window, QComboBox, "modelPicker")
        await wait_until(lambda: picker.count() > 1, what="the models listed")
        keys(window, "Ctrl+M")
        await wait_until(lambda: picker.view().isVisible(), what="the model list open")
        assert focused() in (picker, picker.view())
        QTest.keyClick(picker.view(), Qt.Key.Key_Escape)
        await wait_until(lambda: not picker.view().isVisible(), what="the model list closed")
    finally:
        await close_test_window(window)


async def _seed(window: MainWindow, questions: list[str]) -> list[str]:
    """Threads with one finished turn each, made through the workspace; returns their ids."""
    ids = []
    for question in questions:
        thread = await window.workspace.threads.create()
        await (await window.workspace.runs.send(thread.id, question))
        ids.append(thread.id)
    await window.threads_vm.refresh()
    return ids


def _listed(window: MainWindow) -> list[str]:
    """The thread ids in the order the sidebar lists them."""
    return [row.thread_id for row in find(window, QListView, "threadList").model().rows]


async def test_keys_step_through_threads_and_copy_the_last_answer(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "About tides."}, {"text": "About owls."}]})
    window = await open_test_window(tmp_path, models)
    try:
        tides, owls = await _seed(window, ["Tell me about tides", "Tell me about owls"])
        await window.open_thread(tides)
        await shown_and_active(window)
        title = find(window, QWidget, "threadTitle")
        chat = find(window, QListView, "chatView")
        listed = _listed(window)
        assert len(listed) == 3  # the empty one the window started with, and these two
        below = listed[(listed.index(tides) + 1) % 3]
        above = listed[(listed.index(tides) - 1) % 3]

        keys(window, "Ctrl+PgDown")
        await wait_until(lambda: chat.vm.thread_id == below, what="the thread below")
        keys(window, "Ctrl+PgUp")
        await wait_until(lambda: chat.vm.thread_id == tides, what="back to the tides")
        await wait_until(lambda: title.text() == "Tell me about tides", what="its title")
        keys(window, "Ctrl+PgUp")
        await wait_until(lambda: chat.vm.thread_id == above, what="the thread above")
        await window.open_thread(owls)
        await wait_until(lambda: title.text() == "Tell me about owls", what="the owls' title")

        QGuiApplication.clipboard().setText("what the person copied before")
        keys(window, "Ctrl+Shift+C")
        clipboard = QGuiApplication.clipboard()
        await wait_until(lambda: clipboard.text() == "About owls.", what="the answer copied")
        assert find(window, QWidget, "noticeText").text() == "Copied the last answer."
    finally:
        await close_test_window(window)


def _file_dialog() -> QFileDialog | None:
    return next(
        (w for w in QApplication.topLevelWidgets() if isinstance(w, QFileDialog) and w.isVisible()),
        None,
    )


async def _choose(path: Path) -> str:
    """Type ``path`` into the file dialog that is open, as a person does, and accept it;
    returns the dialog's title."""
    dialog = await wait_until(_file_dialog, what="the file dialog")
    title = str(dialog.windowTitle())
    name = find(dialog, QLineEdit, "fileNameEdit")
    name.setText(str(path))
    QTest.keyClick(name, Qt.Key.Key_Return)
    await wait_until(lambda: _file_dialog() is None, what="the file dialog to close")
    return title


async def test_keys_export_and_import_a_thread_and_close_the_window(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "Here is **bold** advice."}]})
    window = await open_test_window(tmp_path / "data", models)
    closed = []
    window.closed.connect(lambda: closed.append(True))
    try:
        [advice] = await _seed(window, ["Give me advice"])
        await window.open_thread(advice)
        await shown_and_active(window)

        markdown = tmp_path / "advice.md"
        keys(window, "Ctrl+E")
        assert await _choose(markdown) == "Export thread"
        await wait_until(markdown.exists, what="the exported file")
        text = markdown.read_text(encoding="utf-8")
        assert text.startswith("# Give me advice\n")
        assert "## You\n\nGive me advice\n" in text
        assert "## Assistant\n\nHere is **bold** advice.\n" in text
        notice = find(window, QWidget, "noticeText")
        assert notice.text() == f"Exported to {markdown}."

        exported = tmp_path / "advice.json"
        exported.write_bytes(await window.workspace.threads.export(advice, "json"))
        chat = find(window, QListView, "chatView")
        await shown_and_active(window)
        keys(window, "Ctrl+I")
        assert await _choose(exported) == "Import thread"
        await wait_until(lambda: chat.vm.thread_id not in (None, advice), what="the import")
        assert [m.text() for m in chat.vm.model.messages()] == [
            "Give me advice",
            "Here is **bold** advice.",
        ]
        assert len(_listed(window)) == 3
        assert json.loads(exported.read_bytes())["format"] == "parley.thread"

        await shown_and_active(window)
        keys(window, "Ctrl+W")
        await wait_until(lambda: not window.isVisible(), what="the window to close")
        assert closed == [True]
    finally:
        await close_test_window(window)


async def test_ctrl_q_quits_where_the_desktop_binds_no_key_to_quit(tmp_path: Path) -> None:
    """The F1 list and the File menu promise Ctrl+Q; a platform without a Quit binding (this
    one) still gets it."""
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    closed = []
    window.closed.connect(lambda: closed.append(True))
    try:
        await shown_and_active(window)
        keys(window, "Ctrl+Q")
        await wait_until(lambda: not window.isVisible(), what="the window to close")
        assert closed == [True]
    finally:
        await close_test_window(window)
