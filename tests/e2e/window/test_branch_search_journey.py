"""A search hit on a version the thread does not show now, in the real window: the sidebar's
row says which branch holds it, and opening the row shows that branch, with its message."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QListView, QPlainTextEdit, QWidget

from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    press,
    shortcut,
    type_text,
    wait_until,
)


def texts(window: QWidget) -> list[str]:
    return [m.text() for m in find(window, QListView, "chatView").vm.model.messages()]


def numbers(window: QWidget) -> list[str]:
    view = find(window, QListView, "chatView")
    return [s.findChild(QLabel, "branchNumber").text() for s in view.switchers()]


async def test_a_hit_on_an_earlier_answer_opens_its_branch(tmp_path: Path) -> None:
    answers = [{"text": t} for t in ("Take a raincoat.", "Bergen has fjords.", "Eat fish.")]
    window = await open_test_window(tmp_path, Models({"scripted:a": answers}))
    try:
        composer = find(window, QPlainTextEdit, "composer")
        type_text(composer, "Bergen in June?")
        press(composer, Qt.Key.Key_Return)
        vm = find(window, QListView, "chatView").vm
        await wait_until(lambda: texts(window)[-1:] == ["Take a raincoat."], what="an answer")
        for n in (2, 3):
            await wait_until(lambda: vm.status() != "running", what="the reply to finish")
            shortcut(window, "Ctrl+R")
            await wait_until(lambda n=n: numbers(window) == [f"{n}/{n}"], what=f"{n}/{n}")
        await wait_until(lambda: vm.status() != "running", what="the reply to finish")
        assert texts(window) == ["Bergen in June?", "Eat fish."]
        search = find(window, QLineEdit, "threadSearch")
        type_text(search, "raincoat")
        threads = find(window, QListView, "threadList").model()
        await wait_until(lambda: len(threads.rows) == 1 and threads.rows[0].snippet, what="a hit")
        assert threads.rows[0].line == "On branch 1: Take a \x02raincoat\x03."
        press(search, Qt.Key.Key_Return)
        await wait_until(
            lambda: texts(window) == ["Bergen in June?", "Take a raincoat."],
            what="the branch with the hit",
        )
        await wait_until(lambda: numbers(window) == ["1/3"], what="‹ 1/3 ›")
    finally:
        await close_test_window(window)
