"""Comparing models in the real window: Ctrl+Shift+Enter opens the model picker, two scripted
models (and one that fails) answer side by side in ``compareView``, each column with its
figures or its sentence, and "Continue with this one" on the second keeps its answer, which
the thread then shows as ‹ 2/2 ›. Offline, a remote model is greyed out in the picker."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QListView, QPlainTextEdit, QPushButton, QWidget

from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.compare.picker import SPEC, CompareModelsDialog
from app.ui.window import MainWindow
from tests.ui.harness import Models, close_test_window, find, press, type_text, wait_until

USAGE = {"prompt_tokens": 8, "completion_tokens": 5}


async def open_window(tmp_path: Path, models: Models, endpoints: list[str]) -> MainWindow:
    """A real window whose model picker lists ``endpoints`` besides the thread's model."""
    workspace = await Workspace.open(tmp_path, resolve_model=models, secret_resolver=lambda _: "")
    workspace.settings.use(AppSettings(default_model="scripted:a", endpoints=endpoints))
    window = MainWindow(workspace)
    window.show()
    await window.start(preload=False)
    return window


def texts(window: QWidget) -> list[str]:
    return [m.text() for m in find(window, QListView, "chatView").vm.model.messages()]


def numbers(window: QWidget) -> list[str]:
    view = find(window, QListView, "chatView")
    return [s.findChild(QLabel, "branchNumber").text() for s in view.switchers()]


async def picker_for(window: MainWindow, text: str) -> CompareModelsDialog:
    """Write ``text`` and press Ctrl+Shift+Enter; the model picker once it is open."""
    composer = find(window, QPlainTextEdit, "composer")
    type_text(composer, text)
    mods = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    press(composer, Qt.Key.Key_Return, mods)
    picker = await wait_until(lambda: window.comparing.picker, what="the model picker")
    assert isinstance(picker, CompareModelsDialog)
    return picker


async def test_two_models_side_by_side_and_continue_with_the_second(tmp_path: Path) -> None:
    models = Models({
        "scripted:a": [{"text": "Take a warm coat.", "usage": USAGE}],
        "scripted:b": [{"text": "Bring an umbrella, it rains.", "usage": USAGE}],
        "scripted:c": [{"error": "the server went away"}],
    }, delay=0.01)  # fmt: skip
    window = await open_window(tmp_path, models, ["scripted:b", "scripted:c"])
    try:
        picker = await picker_for(window, "Oslo in May?")
        assert picker.chosen() == ["scripted:a"]  # the thread's model, ticked already
        start = find(picker, QPushButton, "compareStart")
        assert not start.isEnabled()  # one model is not a comparison
        picker.tick("scripted:b")
        picker.tick("scripted:c")
        assert start.isEnabled()
        QTest.mouseClick(start, Qt.MouseButton.LeftButton)
        view = await wait_until(
            lambda: (v := window.findChild(QWidget, "compareView")) and v.isVisible() and v,
            what="the compare view",
        )
        assert find(window, QPlainTextEdit, "composer").toPlainText() == ""
        hint = find(window, QWidget, "composerHint")
        assert hint.text() == "3 models are answering side by side…"
        columns = view.columns
        assert [c.model.text() for c in columns] == ["scripted:a", "scripted:b", "scripted:c"]
        await wait_until(lambda: columns[1].keep.isEnabled(), what="the answers to end")
        assert hint.text() == ""
        assert columns[0].text.toPlainText() == "Take a warm coat."
        assert columns[1].text.toPlainText() == "Bring an umbrella, it rains."
        for column in columns[:2]:
            assert "s to first token" in column.figures.text()
            assert "5 tokens" in column.figures.text()
        # a short answer, once ended, is drawn as Markdown
        await wait_until(lambda: columns[0].formatted, what="the first answer drawn")
        # the failing model says why in its own column, and nothing can be kept of it
        assert columns[2].error.isVisible()
        assert columns[2].error.text() == "the server went away"
        assert not columns[2].keep.isEnabled()
        QTest.mouseClick(columns[1].keep, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not view.isVisible(), what="the thread back")
        await wait_until(
            lambda: texts(window) == ["Oslo in May?", "Bring an umbrella, it rains."],
            what="the second answer shown",
        )
        await wait_until(lambda: numbers(window) == ["2/2"], what="‹ 2/2 › on the answer")
        assert window.header.title.text() == "Oslo in May?"
    finally:
        await close_test_window(window)


async def test_offline_a_remote_model_is_greyed_out_in_the_picker(tmp_path: Path) -> None:
    remote = "openai:gpt-4o-mini@http://192.0.2.1/v1"
    models = Models({"scripted:a": ["A."], "scripted:b": ["B."]})
    window = await open_window(tmp_path, models, ["scripted:b", remote])
    try:
        window.workspace.network.set_offline(True)
        picker = await picker_for(window, "Hello")
        rows = {item.data(SPEC): item for item in picker.items()}
        far = rows[remote]
        assert not far.flags() & Qt.ItemFlag.ItemIsEnabled
        assert "offline: it is on another computer" in far.text()
        picker.tick(remote)
        assert remote not in picker.chosen()
        picker.reject()
        await wait_until(lambda: window.comparing.picker is None, what="the picker closed")
        # cancelled: the message is still there to send
        assert find(window, QPlainTextEdit, "composer").toPlainText() == "Hello"
    finally:
        window.workspace.network.set_offline(False)
        await close_test_window(window)


async def test_back_to_the_thread_shows_the_first_answer(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "**One.**"}], "scripted:b": ["Two."]})
    window = await open_window(tmp_path, models, ["scripted:b"])
    try:
        picker = await picker_for(window, "Count?")
        picker.tick("scripted:b")
        picker.accept()
        view = window.comparing.view
        await wait_until(view.close_button.isEnabled, what="the answers to end")
        assert view.columns[0].text.toPlainText() == "One."  # its Markdown drawn
        QTest.mouseClick(view.close_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: texts(window) == ["Count?", "**One.**"], what="the thread")
        assert not view.isVisible()
        await wait_until(lambda: numbers(window) == ["1/2"], what="‹ 1/2 › on the answer")
    finally:
        await close_test_window(window)


async def test_esc_stops_the_answers_and_keeps_what_came(tmp_path: Path) -> None:
    long = " ".join(f"word{n}" for n in range(600))
    models = Models({"scripted:a": [{"text": long}], "scripted:b": [{"text": long}]}, delay=0.02)
    window = await open_window(tmp_path, models, ["scripted:b"])
    try:
        picker = await picker_for(window, "Count to six hundred")
        picker.tick("scripted:b")
        picker.accept()
        view = window.comparing.view
        await wait_until(
            lambda: len(view.columns) == 2 and len(view.columns[1].text.toPlainText()) > 30,
            what="both answering",
        )
        assert view.stop_button.isEnabled()
        press(view.columns[0].text, Qt.Key.Key_Escape)
        await wait_until(view.close_button.isEnabled, what="the answers to end")
        assert not view.stop_button.isEnabled()
        kept = [c.text.toPlainText() for c in view.columns]
        assert all(0 < len(t) < len(long) and long.startswith(t) for t in kept)
        QTest.mouseClick(view.close_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: len(texts(window)) == 2, what="the thread")
        _question, answer = texts(window)
        assert answer.strip() == kept[0]  # the first answer, as far as it came
        reply = find(window, QListView, "chatView").vm.model.messages()[-1]
        assert reply.end_reason == "stopped"
    finally:
        await close_test_window(window)
