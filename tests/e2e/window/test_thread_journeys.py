"""Journeys through the sidebar: search and open a hit, rename in place, delete and undo,
export and import through the file dialog."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from app.ui.tasks import spawn
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    press,
    type_text,
    wait_until,
)


async def _seed(window: QWidget, texts: list[str]) -> list[str]:
    """Threads with one finished turn each, made through the workspace; returns their ids."""
    ids = []
    for text in texts:
        thread = await window.workspace.threads.create()
        task = await window.workspace.runs.send(thread.id, text)
        await task
        ids.append(thread.id)
    await window.threads_vm.refresh()
    return ids


def _titles(window: QWidget) -> list[str]:
    return [r.title for r in find(window, QListView, "threadList").model().rows]


async def test_search_highlights_the_match_and_opens_the_thread(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "Noted."}, {"text": "Noted too."}]})
    window = await open_test_window(tmp_path, models)
    try:
        zebra, _other = await _seed(window, ["The zebra crossed the road", "A quiet afternoon"])
        search = find(window, QLineEdit, "threadSearch")
        type_text(search, "zebra")
        threads = find(window, QListView, "threadList").model()
        await wait_until(lambda: len(threads.rows) == 1 and threads.rows[0].snippet, what="hits")
        assert "\x02zebra\x03" in threads.rows[0].line
        press(search, Qt.Key.Key_Return)
        view = find(window, QListView, "chatView")
        await wait_until(
            lambda: view.vm.thread_id == zebra and view.vm.model.rowCount() == 2,
            what="the hit to open",
        )
        assert view.vm.model.messages()[0].text() == "The zebra crossed the road"
        title = find(window, QWidget, "threadTitle")
        await wait_until(lambda: title.text() == "The zebra crossed the road", what="the title")
        search.clear()
        await wait_until(lambda: len(threads.rows) == 3, what="all threads back")
    finally:
        await close_test_window(window)


async def test_rename_in_place_with_f2(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "Ok."}]}))
    try:
        [thread_id] = await _seed(window, ["Plan the trip"])
        listing = find(window, QListView, "threadList")
        window.sidebar.select(thread_id)
        listing.setFocus()
        press(listing, Qt.Key.Key_F2)
        editor = await wait_until(lambda: listing.findChild(QLineEdit), what="the editor")
        editor.selectAll()
        QTest.keyClicks(editor, "Trip to Oslo")
        press(editor, Qt.Key.Key_Return)
        await wait_until(lambda: "Trip to Oslo" in _titles(window), what="the new title")
        await window.threads_vm.refresh()  # what the store holds, not only what the row shows
        assert "Trip to Oslo" in _titles(window)
        thread = await window.workspace.threads.get(thread_id)
        assert thread.title == "Trip to Oslo"
    finally:
        await close_test_window(window)


async def test_delete_then_undo_loses_nothing_and_delete_for_good(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "Kept."}]}))
    try:
        [thread_id] = await _seed(window, ["Do not lose me"])
        listing = find(window, QListView, "threadList")
        window.sidebar.select(thread_id)
        listing.setFocus()
        press(listing, Qt.Key.Key_Delete)
        undo_bar = find(window, QWidget, "undoBar")
        await wait_until(lambda: undo_bar.isVisible(), what="the Undo bar")
        assert "Do not lose me" not in _titles(window)
        QTest.mouseClick(find(window, QPushButton, "undoDeleteButton"), Qt.MouseButton.LeftButton)
        assert "Do not lose me" in _titles(window)
        assert not undo_bar.isVisible()
        page = await window.workspace.threads.read_messages(thread_id)
        assert [m.text() for m in page.messages] == ["Do not lose me", "Kept."]

        # without Undo, it goes for good when the bar's time is up
        window.threads_vm._undo_timer.setInterval(50)
        window.sidebar.select(thread_id)
        press(listing, Qt.Key.Key_Delete)
        await wait_until(lambda: undo_bar.isVisible(), what="the Undo bar again")
        await wait_until(lambda: not undo_bar.isVisible(), what="the deletion to settle")
        assert [s.thread.id for s in await window.workspace.threads.list_all()].count(
            thread_id
        ) == 0
    finally:
        await close_test_window(window)


async def _answer_file_dialog(path: Path) -> None:
    dialog = await wait_until(
        lambda: next(
            (
                w
                for w in QApplication.topLevelWidgets()
                if isinstance(w, QFileDialog) and w.isVisible()
            ),
            None,
        ),
        what="the file dialog",
    )
    dialog.selectFile(str(path))
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    if name is not None:  # what a person types into the file name box
        name.setText(str(path))
    dialog.accept()


async def test_export_and_import_a_thread(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "Here is **bold** advice."}]})
    window = await open_test_window(tmp_path / "data", models)
    try:
        [thread_id] = await _seed(window, ["Give me advice"])
        target = tmp_path / "advice.json"
        task = spawn(window.export_thread(thread_id, "json"))
        await _answer_file_dialog(target)
        assert await task == target
        document = json.loads(target.read_bytes())
        assert "Give me advice" in json.dumps(document)

        markdown = tmp_path / "advice.md"
        task = spawn(window.export_thread(thread_id, "markdown"))
        await _answer_file_dialog(markdown)
        await task
        assert "Here is **bold** advice." in markdown.read_text()

        task = spawn(window.import_thread())
        await _answer_file_dialog(target)
        new_id = await task
        assert new_id and new_id != thread_id
        view = find(window, QListView, "chatView")
        assert view.vm.thread_id == new_id
        assert [m.text() for m in view.vm.model.messages()] == [
            "Give me advice",
            "Here is **bold** advice.",
        ]
        assert len(find(window, QListView, "threadList").model().rows) == 3
    finally:
        await close_test_window(window)


async def test_a_damaged_import_says_so_and_changes_nothing(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        bad = tmp_path / "bad.json"
        bad.write_bytes(b"{not json")
        before = len(await window.workspace.threads.list_all())
        assert await window.import_thread(bad) is None
        text = find(window, QWidget, "noticeText").text()
        assert text.startswith("Could not import bad.json")
        assert len(await window.workspace.threads.list_all()) == before
        assert find(window, QPlainTextEdit, "composer") is not None
    finally:
        await close_test_window(window)
