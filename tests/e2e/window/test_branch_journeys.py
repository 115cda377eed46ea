"""Journeys through the versions of a message in the real window: an answer given again
twice is walked ‹ 1/3 › .. ‹ 3/3 › with the mouse and with Alt+Left/Right, an edited question
is switched back to its original and the conversation goes on there, and the version shown
last is the one shown after quitting and coming back; Thread > Branches… opens one of the
tree and names one."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QTreeWidget,
    QWidget,
)

from app.core.state import Message
from app.ui.actions import ActionId
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


def rows(window: QWidget) -> list[Message]:
    return find(window, QListView, "chatView").vm.model.messages()


def texts(window: QWidget) -> list[str]:
    return [m.text() for m in rows(window)]


def numbers(window: QWidget) -> list[str]:
    """What each switcher in sight says, top to bottom."""
    view = find(window, QListView, "chatView")
    return [s.findChild(QLabel, "branchNumber").text() for s in view.switchers()]


async def send(window: QWidget, text: str) -> None:
    composer = find(window, QPlainTextEdit, "composer")
    type_text(composer, text)
    press(composer, Qt.Key.Key_Return)


async def idle(window: QWidget) -> None:
    vm = find(window, QListView, "chatView").vm
    await wait_until(lambda: vm.status() != "running", what="the reply to finish")


def click(window: QWidget, name: str, at: int = 0) -> None:
    """Click the previous or next button of the ``at``-th switcher in sight."""
    switcher = find(window, QListView, "chatView").switchers()[at]
    QTest.mouseClick(switcher.findChild(QToolButton, name), Qt.MouseButton.LeftButton)


async def test_an_answer_given_again_twice_is_walked_one_to_three(tmp_path: Path) -> None:
    answers = [{"text": t} for t in ("Paris.", "It is Paris.", "Paris, on the Seine.")]
    window = await open_test_window(tmp_path, Models({"scripted:a": answers}))
    try:
        await send(window, "Capital of France?")
        await wait_until(lambda: texts(window)[-1:] == ["Paris."])
        await idle(window)
        assert numbers(window) == []  # one version: no switcher
        for n in (2, 3):
            shortcut(window, "Ctrl+R")
            await wait_until(lambda n=n: numbers(window) == [f"{n}/{n}"], what=f"{n}/{n}")
            await idle(window)
        assert texts(window) == ["Capital of France?", "Paris, on the Seine."]
        click(window, "previousBranch")
        await wait_until(lambda: numbers(window) == ["2/3"], what="2/3")
        assert texts(window) == ["Capital of France?", "It is Paris."]
        click(window, "previousBranch")
        await wait_until(lambda: numbers(window) == ["1/3"], what="1/3")
        assert texts(window) == ["Capital of France?", "Paris."]
        switcher = find(window, QListView, "chatView").switchers()[0]
        assert not switcher.findChild(QToolButton, "previousBranch").isEnabled()
        # the keyboard: the shown answer is focused, Alt+Right goes to the next version
        view = find(window, QListView, "chatView")
        view.setFocus()
        await wait_until(lambda: view.currentIndex().row() == 1, what="the answer focused")
        for n, answer in ((2, "It is Paris."), (3, "Paris, on the Seine.")):
            press(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
            await wait_until(lambda n=n: numbers(window) == [f"{n}/3"], what=f"{n}/3")
            assert texts(window)[-1] == answer
            await wait_until(lambda: view.currentIndex().row() == 1, what="the answer focused")
        press(view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
        await wait_until(lambda: numbers(window) == ["2/3"], what="back to 2/3")
        await screenshot(window, "answers")
    finally:
        await close_test_window(window)


async def screenshot(window: QWidget, name: str) -> None:
    """Keep a picture of the chat where ``PARLEY_SHOTS`` names a folder (for looking at)."""
    folder = os.environ.get("PARLEY_SHOTS")
    if folder:
        window.resize(900, 520)
        await wait_until(lambda: True)
        find(window, QListView, "chatView").grab().save(str(Path(folder) / f"{name}.png"))


async def test_an_edited_question_is_switched_back_and_goes_on(tmp_path: Path) -> None:
    answers = [{"text": t} for t in ("About cats.", "About dogs.", "Cats sleep a lot.")]
    window = await open_test_window(tmp_path, Models({"scripted:a": answers}))
    try:
        view = find(window, QListView, "chatView")
        await send(window, "Tell me about cats")
        await wait_until(lambda: texts(window) == ["Tell me about cats", "About cats."])
        await idle(window)
        thread_id = view.vm.thread_id
        composer = find(window, QPlainTextEdit, "composer")
        press(composer, Qt.Key.Key_Up)  # edit the last question
        composer.selectAll()
        type_text(composer, "Tell me about dogs")
        press(composer, Qt.Key.Key_Return)
        await wait_until(lambda: texts(window) == ["Tell me about dogs", "About dogs."])
        await idle(window)
        await wait_until(lambda: numbers(window) == ["2/2"], what="2/2 on the question")
        assert view.vm.thread_id == thread_id
        click(window, "previousBranch")
        await wait_until(lambda: texts(window) == ["Tell me about cats", "About cats."])
        await wait_until(lambda: numbers(window) == ["1/2"], what="1/2")
        await send(window, "Do they sleep?")
        await wait_until(lambda: texts(window)[-1:] == ["Cats sleep a lot."])
        await idle(window)
        assert numbers(window) == ["1/2"]
        await screenshot(window, "questions")
        edited = await window.workspace.threads.branch_path(thread_id, 2)
        assert [m.text() for m in edited] == ["Tell me about dogs", "About dogs."]
    finally:
        await close_test_window(window)


async def test_the_version_shown_last_is_shown_after_coming_back(tmp_path: Path) -> None:
    answers = [{"text": "First."}, {"text": "Second."}]
    window = await open_test_window(tmp_path, Models({"scripted:a": answers}))
    try:
        await send(window, "Question")
        await wait_until(lambda: texts(window)[-1:] == ["First."])
        await idle(window)
        shortcut(window, "Ctrl+R")
        await wait_until(lambda: numbers(window) == ["2/2"], what="2/2")
        await idle(window)
        click(window, "previousBranch")
        await wait_until(lambda: numbers(window) == ["1/2"], what="1/2")
    finally:
        await close_test_window(window)
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        await wait_until(lambda: texts(window) == ["Question", "First."], what="the thread")
        await wait_until(lambda: numbers(window) == ["1/2"], what="1/2 after coming back")
    finally:
        await close_test_window(window)


def shown_dialog(window: QWidget, title: str) -> QDialog | None:
    found = [d for d in window.findChildren(QDialog) if d.isVisible() and d.windowTitle() == title]
    return found[0] if found else None


async def test_the_tree_names_a_branch_and_opens_one(tmp_path: Path) -> None:
    answers = [{"text": t} for t in ("Paris.", "It is Paris.", "Paris, on the Seine.")]
    window = await open_test_window(tmp_path, Models({"scripted:a": answers}))
    try:
        await send(window, "Capital of France?")
        await wait_until(lambda: texts(window)[-1:] == ["Paris."])
        await idle(window)
        for n in (2, 3):
            shortcut(window, "Ctrl+R")
            await wait_until(lambda n=n: numbers(window) == [f"{n}/{n}"], what=f"{n}/{n}")
            await idle(window)
        find(window, QAction, ActionId.THREAD_BRANCHES).trigger()
        dialog = await wait_until(lambda: shown_dialog(window, "Branches"), what="the tree")
        assert dialog.objectName() == "branchTree"
        tree = dialog.findChild(QTreeWidget, "branchTreeView")
        items = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        assert [i.text(0) for i in items] == [
            "1. Paris.",
            "2. It is Paris.",
            "3. Paris, on the Seine.",
        ]
        assert [i.text(1) for i in items] == ["2", "2", "2"]
        assert tree.currentItem() is items[2] and items[2].font(0).bold()
        tree.setCurrentItem(items[1])
        dialog.findChild(QPushButton, "renameBranch").click()
        naming = await wait_until(lambda: shown_dialog(window, "Name the branch"), what="naming")
        naming.findChild(QLineEdit).setText("Short")
        naming.accept()
        await wait_until(lambda: tree.topLevelItem(1).text(0) == "2. Short: It is Paris.")
        # deleting one takes it out of the tree and the switcher; Undo puts it back
        tree.setCurrentItem(tree.topLevelItem(1))
        dialog.findChild(QPushButton, "deleteBranch").click()
        await wait_until(lambda: tree.topLevelItemCount() == 2, what="two branches")
        await wait_until(lambda: numbers(window) == ["2/2"], what="2/2")
        undo = dialog.findChild(QPushButton, "undoDeleteBranch")
        assert undo.isVisible()
        undo.click()
        await wait_until(lambda: tree.topLevelItemCount() == 3, what="three again")
        await wait_until(lambda: numbers(window) == ["3/3"], what="3/3 again")
        assert tree.topLevelItem(1).text(0) == "2. Short: It is Paris."
        # Export… writes the chosen branch as Markdown
        tree.setCurrentItem(tree.topLevelItem(0))
        dialog.findChild(QPushButton, "exportBranch").click()
        saving = await wait_until(
            lambda: (
                (f := window.findChild(QFileDialog, "exportBranchDialog")) and f.isVisible() and f
            ),
            what="the file dialog",
        )
        target = tmp_path / "Capital of France? (branch 1).md"  # the name offered
        saving.setDirectory(str(tmp_path))
        saving.accept()
        await wait_until(target.exists, what="the file")
        written = target.read_text()
        assert "Paris." in written and "Seine" not in written
        if folder := os.environ.get("PARLEY_SHOTS"):  # a picture of the tree, to look at
            dialog.grab().save(str(Path(folder) / "tree.png"))
        tree.setCurrentItem(tree.topLevelItem(0))
        dialog.findChild(QPushButton, "openBranch").click()
        await wait_until(lambda: shown_dialog(window, "Branches") is None, what="it to close")
        await wait_until(lambda: texts(window) == ["Capital of France?", "Paris."])
        await wait_until(lambda: numbers(window) == ["1/3"], what="1/3")
    finally:
        await close_test_window(window)


async def test_a_thread_without_branches_says_so_instead_of_a_tree(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "Yes."}]}))
    try:
        await send(window, "Hi?")
        await wait_until(lambda: texts(window) == ["Hi?", "Yes."])
        await idle(window)
        find(window, QAction, ActionId.THREAD_BRANCHES).trigger()
        notice = find(window, QWidget, "noticeBar")
        await wait_until(lambda: notice.isVisible(), what="the notice")
        assert "has no branches yet" in find(window, QWidget, "noticeText").text()
        assert shown_dialog(window, "Branches") is None
    finally:
        await close_test_window(window)
