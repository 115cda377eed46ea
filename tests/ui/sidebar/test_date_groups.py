"""The thread list groups threads by their last activity (Today, Yesterday, Previous 7 days,
Older) under small headings that the keyboard and the mouse step over; search hits are not
grouped; status marks keep their words for screen readers."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QListView, QWidget
from pytestqt.qtbot import QtBot

from app.ui.agents.list import initials
from app.ui.sidebar.delegate import HEADING_HEIGHT, MARK_TIPS
from app.ui.sidebar.model import HeadingRole, RowRole, SidebarRow
from app.ui.window import MainWindow
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    press,
    wait_until,
)

DAY = 86400.0
NO_KEYS = Qt.KeyboardModifier.NoModifier
HEADINGS = ["Today", "Yesterday", "Previous 7 days", "Older"]
AGES = {"Bergen today": 0.0, "Oslo yesterday": DAY, "Tromsø 3 days": 3 * DAY, "Lofoten": 30 * DAY}


async def _seed(window: MainWindow, data_dir: Path) -> dict[str, str]:
    """Threads titled after their ages, last active that long ago; title -> id."""
    ids = {}
    for title in AGES:
        thread = await window.workspace.threads.create()
        await window.workspace.threads.rename(thread.id, title)
        ids[title] = thread.id
    now = time.time()
    with sqlite3.connect(data_dir / "parley.db") as conn:
        for title, age in AGES.items():
            conn.execute("UPDATE threads SET updated_at = ? WHERE id = ?", (now - age, ids[title]))
    await window.threads_vm.refresh()
    return ids


def _groups(view: QListView) -> dict[str, str]:
    """Each thread's title -> the heading it is listed under."""
    out, heading = {}, ""
    for above, title in _listed(view):
        heading = above or heading
        out[title] = heading
    return out


def _listed(view: QListView) -> list[tuple[str | None, str]]:
    """(heading above, title) for each row, as the user sees them top to bottom."""
    model = view.model()
    out = []
    for r in range(model.rowCount()):
        index = model.index(r, 0)
        row: SidebarRow = index.data(RowRole)
        out.append((index.data(HeadingRole), row.title))
    return out


async def test_threads_are_listed_under_their_date_headings(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "Hi."}]}))
    try:
        await _seed(window, tmp_path)
        view = find(window, QListView, "threadList")
        groups = _groups(view)
        assert {t: groups[t] for t in AGES} == {
            "Bergen today": "Today",
            "Oslo yesterday": "Yesterday",
            "Tromsø 3 days": "Previous 7 days",
            "Lofoten": "Older",
        }
        assert [h for h, _t in _listed(view) if h] == HEADINGS
        last = view.model().index(view.model().rowCount() - 1, 0)
        assert last.data(Qt.ItemDataRole.AccessibleTextRole) == "Lofoten. "
        assert (
            last.data(Qt.ItemDataRole.AccessibleDescriptionRole)
            == "Last active more than a week ago"
        )
        first = view.model().index(0, 0)
        height = view.visualRect(first).height()
        second = view.model().index(1, 0)
        assert view.visualRect(first).height() == view.visualRect(second).height() + HEADING_HEIGHT
        assert height > HEADING_HEIGHT
    finally:
        await close_test_window(window)


async def test_up_and_down_step_over_headings_and_a_click_on_one_opens_nothing(
    tmp_path: Path, qtbot: QtBot
) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "Hi."}]}))
    try:
        ids = await _seed(window, tmp_path)
        view = find(window, QListView, "threadList")
        titles = [t for _h, t in _listed(view)]
        view.setFocus()
        view.setCurrentIndex(view.model().index(titles.index("Oslo yesterday"), 0))
        for expected in ("Tromsø 3 days", "Lofoten"):
            press(view, Qt.Key.Key_Down)
            assert view.currentIndex().data(RowRole).title == expected
        press(view, Qt.Key.Key_Up)
        assert view.currentIndex().data(RowRole).title == "Tromsø 3 days"

        oslo = view.model().index(titles.index("Oslo yesterday"), 0)
        on_heading = view.visualRect(oslo).topLeft() + QPoint(40, HEADING_HEIGHT // 2)
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, NO_KEYS, on_heading)
        assert view.currentIndex().data(RowRole).title == "Tromsø 3 days"
        on_row = view.visualRect(oslo).topLeft() + QPoint(40, HEADING_HEIGHT + 20)
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, NO_KEYS, on_row)
        chat = find(window, QWidget, "chatView")
        await wait_until(lambda: chat.vm.thread_id == ids["Oslo yesterday"], what="Oslo opened")
    finally:
        await close_test_window(window)


async def test_search_results_have_no_headings(tmp_path: Path) -> None:
    answers = [{"text": "Pack a raincoat."}]
    window = await open_test_window(tmp_path, Models({"scripted:a": answers}))
    try:
        await _seed(window, tmp_path)
        thread = await window.workspace.threads.create()
        await (await window.workspace.runs.send(thread.id, "Bergen in June, raincoat?"))
        await window.threads_vm.search("raincoat")
        view = find(window, QListView, "threadList")
        await wait_until(lambda: view.model().rowCount() == 1, what="the hit")
        assert _listed(view) == [(None, "Bergen in June, raincoat?")]
        await window.threads_vm.search("")
        await wait_until(lambda: view.model().rowCount() >= 5, what="every thread again")
        assert [h for h, _t in _listed(view) if h] == HEADINGS
    finally:
        await close_test_window(window)


def test_status_marks_say_their_words_to_screen_readers(qtbot: QtBot) -> None:
    from app.ui.sidebar.model import ThreadListModel

    model = ThreadListModel()
    now = time.time()
    model.set_rows(
        [
            SidebarRow("a", "Tides", "About tides", "running", active_at=now),
            SidebarRow("b", "Owls", "Which tool?", "waiting", active_at=now),
            SidebarRow("c", "Fjords", "Half an answer", "cut_off", active_at=now),
            SidebarRow("d", "Digest", "Morning news", scheduled=True, active_at=now),
        ]
    )
    spoken = [model.index(r, 0).data(Qt.ItemDataRole.AccessibleTextRole) for r in range(4)]
    assert spoken == [
        "Tides, streaming. About tides",
        "Owls, waiting for approval. Which tool?",
        "Fjords, run cut off. Half an answer",
        "Digest, scheduled. Morning news",
    ]
    assert set(MARK_TIPS) == {"running", "waiting", "cut_off", "scheduled"}


def test_agents_get_their_initials() -> None:
    assert [initials(n) for n in ("Trip planner", "Parley", "  ", "\u202e evil", "a b c")] == [
        "TP",
        "P",
        "?",
        "E",
        "AB",
    ]


def test_a_status_mark_says_what_it_means_on_hover(qtbot: QtBot) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    from app.ui.sidebar.delegate import RowDelegate
    from app.ui.sidebar.model import ThreadListModel

    model = ThreadListModel()
    model.set_rows([SidebarRow("b", "Owls", "Which tool?", "waiting", active_at=time.time())])
    view = QListView()
    view.setModel(model)
    view.setItemDelegate(RowDelegate(view))
    view.resize(260, 200)
    qtbot.addWidget(view)
    view.show()
    rect = view.visualRect(model.index(0, 0))
    mark = QPoint(
        rect.right() - 6 - 10 - 9,
        rect.top() + HEADING_HEIGHT + (rect.height() - HEADING_HEIGHT) // 2,
    )
    event = QHelpEvent(QEvent.Type.ToolTip, mark, view.viewport().mapToGlobal(mark))
    QApplication.sendEvent(view.viewport(), event)
    assert QToolTip.text() == MARK_TIPS["waiting"]
    title = rect.topLeft() + QPoint(30, HEADING_HEIGHT + 14)
    event = QHelpEvent(QEvent.Type.ToolTip, title, view.viewport().mapToGlobal(title))
    QApplication.sendEvent(view.viewport(), event)
    assert QToolTip.text() == "Owls (waiting for approval)"
