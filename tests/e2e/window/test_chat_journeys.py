"""Journeys through the real window: first start, sending and streaming, stopping, two
threads at once, regenerating, editing, errors, quitting and coming back."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QListView, QPlainTextEdit, QPushButton, QWidget

from app.core.state import Message
from tests.ui.chat.links_harness import href_spot
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

LONG = "word " * 400


def rows(window: QWidget) -> list[Message]:
    return find(window, QListView, "chatView").vm.model.messages()


async def send(window: QWidget, text: str) -> None:
    composer = find(window, QPlainTextEdit, "composer")
    type_text(composer, text)
    press(composer, Qt.Key.Key_Return)


async def idle(window: QWidget) -> None:
    vm = find(window, QListView, "chatView").vm
    await wait_until(lambda: vm.status() != "running", what="the reply to finish")


async def test_first_start_shows_an_empty_thread_ready_to_type(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        threads = find(window, QListView, "threadList")
        assert threads.model().rowCount() == 1
        assert find(window, QWidget, "emptyState").isVisible()
        examples = [b.text() for b in window.findChildren(QPushButton, "examplePrompt")]
        assert "What is the capital of France?" in examples
        assert window.focusWidget() is find(window, QPlainTextEdit, "composer")
        assert find(window, QPushButton, "sendButton").isVisible()
        assert not find(window, QPushButton, "stopButton").isVisible()
    finally:
        await close_test_window(window)


async def test_send_streams_the_reply_into_one_row(tmp_path: Path) -> None:
    answer = "Paris is the capital of France. " * 6  # long enough to arrive over many frames
    models = Models({"scripted:a": [{"text": answer}]}, delay=0.01)
    window = await open_test_window(tmp_path, models)
    try:
        view = find(window, QListView, "chatView")
        changes: list[str] = []
        view.vm.model.dataChanged.connect(
            lambda top, _bottom, _roles=None: (
                top.row() == 1 and changes.append(view.vm.model.message_at(1).text())
            )
        )
        await send(window, "What is the capital of France?")
        await wait_until(lambda: find(window, QPushButton, "stopButton").isVisible(), what="Stop")
        await idle(window)
        messages = rows(window)
        assert [m.role for m in messages] == ["user", "assistant"]
        assert messages[0].text() == "What is the capital of France?"
        assert messages[1].text() == answer
        # the reply grew in place: several partial texts, each a prefix of the answer
        partial = [c for c in changes if c and c != messages[1].text()]
        assert partial and all(messages[1].text().startswith(c) for c in partial)
        assert find(window, QPlainTextEdit, "composer").toPlainText() == ""
        assert find(window, QPushButton, "sendButton").isVisible()
        title = find(window, QWidget, "threadTitle").text()
        assert title == "What is the capital of France?"
    finally:
        await close_test_window(window)


async def test_a_long_reply_streamed_faster_than_it_is_drawn_is_shown_in_full(
    tmp_path: Path,
) -> None:
    answer = "".join(
        f"## Step {i}\n\nDo **this** with `tool_{i}` and read [the notes](https://example.org/{i})."
        f"\n\n```\nrun {i}\n```\n\n"
        for i in range(150)
    )
    models = Models({"scripted:a": [{"text": answer}]})
    window = await open_test_window(tmp_path, models)
    try:
        view = find(window, QListView, "chatView")
        await send(window, "How do I do it?")
        await wait_until(
            lambda: len(rows(window)) == 2 and rows(window)[1].text() == answer,
            what="the reply to arrive",
        )
        reply = view.vm.model.index(1, 0)

        def shown() -> str:
            return str(view.delegate.document(reply).toPlainText())

        await wait_until(lambda: "run 149" in shown(), what="the whole reply drawn")
        assert shown().count("Do this with tool_") == 150
        assert shown().rstrip().endswith("run 149")
    finally:
        await close_test_window(window)


async def test_stop_mid_stream_keeps_what_arrived(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": LONG}]}, delay=0.01)
    window = await open_test_window(tmp_path, models)
    try:
        await send(window, "Talk for a while")
        await wait_until(lambda: len(rows(window)) == 2 and len(rows(window)[1].text()) > 20)
        QTest.mouseClick(find(window, QPushButton, "stopButton"), Qt.MouseButton.LeftButton)
        await idle(window)
        reply = rows(window)[1]
        assert 0 < len(reply.text()) < len(LONG.strip())
        assert LONG.startswith(reply.text())
        # what the window shows is what was saved
        thread_id = find(window, QListView, "chatView").vm.thread_id
        page = await window.workspace.threads.read_messages(thread_id)
        assert page.messages[-1].text() == reply.text()
        assert page.messages[-1].end_reason == "stopped"
    finally:
        await close_test_window(window)


async def test_esc_in_the_composer_stops_the_reply(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": LONG}]}, delay=0.01)
    window = await open_test_window(tmp_path, models)
    try:
        await send(window, "Talk for a while")
        await wait_until(lambda: len(rows(window)) == 2 and rows(window)[1].text())
        press(find(window, QPlainTextEdit, "composer"), Qt.Key.Key_Escape)
        await idle(window)
        assert len(rows(window)[1].text()) < len(LONG.strip())
    finally:
        await close_test_window(window)


async def test_two_threads_stream_at_once_and_switching_loses_nothing(tmp_path: Path) -> None:
    models = Models(
        {"scripted:a": [{"text": "alpha " * 60}], "scripted:b": [{"text": "beta " * 60}]},
        delay=0.01,
    )
    window = await open_test_window(tmp_path, models)
    try:
        view = find(window, QListView, "chatView")
        await send(window, "First thread")
        first = view.vm.thread_id
        await wait_until(lambda: len(rows(window)) == 2)
        shortcut(window, "Ctrl+N")  # a new thread while the first one streams
        await wait_until(lambda: view.vm.thread_id != first, what="the new thread")
        second = view.vm.thread_id
        await window.workspace.threads.set_model(second, "scripted:b")
        await send(window, "Second thread")
        await wait_until(
            lambda: (
                window.workspace.runs.is_running(first) and window.workspace.runs.is_running(second)
            ),
            what="both running",
        )
        # the sidebar marks both as streaming
        threads = find(window, QListView, "threadList").model()
        await wait_until(lambda: sum(r.status == "running" for r in threads.rows) == 2)
        await window.workspace.runs.wait_idle()
        await wait_until(lambda: rows(window)[-1].text() == "beta " * 60)
        await window.open_thread(first)
        await wait_until(lambda: rows(window)[-1].text() == "alpha " * 60)
    finally:
        await close_test_window(window)


async def test_regenerate_replaces_the_last_reply(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "First answer."}, {"text": "Second answer."}]})
    window = await open_test_window(tmp_path, models)
    try:
        await send(window, "Question")
        await wait_until(
            lambda: len(rows(window)) == 2 and rows(window)[1].text() == "First answer."
        )
        await idle(window)
        shortcut(window, "Ctrl+R")
        await wait_until(lambda: rows(window)[-1].text() == "Second answer.")
        await idle(window)
        assert [m.text() for m in rows(window)] == ["Question", "Second answer."]
    finally:
        await close_test_window(window)


async def test_edit_and_resend_branches_the_thread(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "About cats."}, {"text": "About dogs."}]})
    window = await open_test_window(tmp_path, models)
    try:
        view = find(window, QListView, "chatView")
        await send(window, "Tell me about cats")
        await wait_until(lambda: len(rows(window)) == 2)
        await idle(window)
        original = view.vm.thread_id
        composer = find(window, QPlainTextEdit, "composer")
        press(composer, Qt.Key.Key_Up)  # edit the last message
        assert composer.toPlainText() == "Tell me about cats"
        assert find(window, QWidget, "editBanner").isVisible()
        composer.selectAll()
        type_text(composer, "Tell me about dogs")
        press(composer, Qt.Key.Key_Return)
        await wait_until(
            lambda: [m.text() for m in rows(window)] == ["Tell me about dogs", "About dogs."]
        )
        await idle(window)
        assert view.vm.thread_id == original  # the same thread, another branch
        kept = await window.workspace.threads.branch_path(original, 1)
        assert [m.text() for m in kept] == ["Tell me about cats", "About cats."]
    finally:
        await close_test_window(window)


async def test_a_provider_error_is_shown_in_the_thread_with_retry(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"error": "the server went away"}, {"text": "Back again."}]})
    window = await open_test_window(tmp_path, models)
    try:
        await send(window, "Hello?")
        await wait_until(lambda: len(rows(window)) == 2)
        await idle(window)
        view = find(window, QListView, "chatView")
        reply = rows(window)[1]
        html = view.delegate._laid(view.model().index(1, 0), 600).doc.toHtml()
        assert "the server went away" in html and "remedy:retry" in html
        # a click on Retry in the error's row asks again
        spot = href_spot(view, 1, "remedy:retry:")
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        await wait_until(lambda: rows(window)[-1].text() == "Back again.", what="the new reply")
        await idle(window)
        assert [m.text() for m in rows(window)] == ["Hello?", "Back again."]
        assert reply.message_id != rows(window)[-1].message_id
    finally:
        await close_test_window(window)


async def test_a_refused_send_keeps_the_typed_text(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}), "scripted:missing")
    try:
        await send(window, "Please keep this text")
        notice = find(window, QWidget, "noticeBar")
        await wait_until(lambda: notice.isVisible(), what="the notice")
        assert "unknown model" in find(window, QWidget, "noticeText").text()
        assert find(window, QPlainTextEdit, "composer").toPlainText() == "Please keep this text"
        assert rows(window) == []
    finally:
        await close_test_window(window)


def _resized(window: QWidget, width: int, height: int) -> bool:
    window.resize(width, height)
    return (window.width(), window.height()) == (width, height)


async def test_quit_and_reopen_finds_everything(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "Saved answer."}]})
    window = await open_test_window(tmp_path, models)
    await send(window, "Remember this")
    await wait_until(lambda: len(rows(window)) == 2)
    await idle(window)
    # as a person drags the corner until it stays: just after a reply the window's layout may
    # still hold the least size it had while the reply came in, and Qt keeps the window to it
    await wait_until(lambda: _resized(window, 760, 560), what="the window to take its new size")
    await close_test_window(window)

    again = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        assert [m.text() for m in rows(again)] == ["Remember this", "Saved answer."]
        assert find(again, QWidget, "threadTitle").text() == "Remember this"
        assert (again.width(), again.height()) == (760, 560)
    finally:
        await close_test_window(again)
