"""Memories in the real window: the agent proposes one and the thread asks on a small card
(Keep, Edit, Don't) rather than in the approval dialog; a new thread's reply shows the chip
"1 memory used", which opens the memory with its source, and the source opens the first
thread; Don't keeps nothing; an incognito thread uses none and is not even offered remember;
a local-only memory held back from a model on another computer (a real OpenAI-compatible
server on 127.0.0.2) is said so on the chip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
)

from app.core.models import ScriptedChatModel
from app.providers._retry import RetryPolicy
from app.providers.openai_compat import OpenAIChatModel
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.chat.message_html import memory_chip_text
from app.ui.window import MainWindow
from tests.e2e.window.test_agent_journeys import check, click_agent, editor_of, save
from tests.providers.replay_server import ReplayServer, Reply, sse_events
from tests.ui.approval_harness import Recorder, open_tool_window, send
from tests.ui.chat.links_harness import href_spot
from tests.ui.harness import find, type_text, wait_until

NOTE = "The user lives in Lyon"
QUESTION = "Which market is open on Sunday in Lyon?"


def _proposing(*after: str) -> Recorder:
    call = {"name": "remember", "args": {"text": NOTE, "why": "to suggest places near you"}}
    return Recorder([{"tool_calls": [{**call, "id": "m1"}]}, *({"text": t} for t in after)])


async def _window(tmp_path: Path, model: Recorder) -> MainWindow:
    window = await open_tool_window(tmp_path / "data", model, tools=[])
    thread_id = window.chat_vm.thread_id
    assert thread_id is not None
    await window.workspace.tools.set_enabled(thread_id, ["remember"])
    return window


async def _card(window: MainWindow) -> QFrame:
    card = find(window, QFrame, "memoryKeepCard")
    await wait_until(card.isVisible, what="the Keep card")
    return card


async def _idle(window: MainWindow) -> None:
    vm = window.chat_vm
    await wait_until(
        lambda: vm.thread_id and not vm.runs.is_running(vm.thread_id), what="the run to end"
    )


def _no_dialog(window: MainWindow) -> bool:
    return not any(d.isVisible() for d in window.findChildren(QDialog, "toolApprovalDialog"))


async def _answer(window: MainWindow, text: str) -> int:
    """The row of the reply whose text is ``text``, once it is shown."""
    model = window.chat_vm.model

    def row() -> int | None:
        for n in range(model.rowCount()):
            message = model.message_at(n)
            if message is not None and message.role == "assistant" and message.text() == text:
                return n
        return None

    found = await wait_until(lambda: row() is not None and row(), what=f"the reply {text!r}")
    return int(found)


def _sent(model: Recorder) -> str:
    return "\n".join(m.text() for m in model.inputs[-1])


async def test_keep_then_a_new_thread_uses_it_and_the_chip_opens_it(tmp_path: Path) -> None:
    model = _proposing("I will remember that.", "The one by the river.")
    window = await _window(tmp_path, model)
    try:
        first = window.chat_vm.thread_id
        await send(window, "I moved to Lyon")
        card = await _card(window)
        shown = find(card, QLabel, "memoryKeepText").text()
        assert shown == f"Parley will remember: {NOTE}"
        assert "to suggest places near you" in card.why.text()
        assert _no_dialog(window)  # asked in the thread, not in the approval dialog
        find(card, QPushButton, "memoryKeepButton").click()
        await wait_until(lambda: not card.isVisible(), what="the card to go")
        await _answer(window, "I will remember that.")
        await _idle(window)
        (kept,) = await window.workspace.memory.list(every=True)
        assert kept.text == NOTE and kept.thread_id == first

        await window.new_thread()
        assert window.chat_vm.thread_id != first
        await send(window, QUESTION)
        row = await _answer(window, "The one by the river.")
        assert NOTE in _sent(model)
        reply = window.chat_vm.model.message_at(row)
        assert reply is not None and memory_chip_text(reply) == "1 memory used"
        window.chat.scrollToBottom()
        window.chat.grab()
        spot = href_spot(window.chat, row, "memories:used")
        QTest.mouseClick(window.chat.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        dialog = await wait_until(
            lambda: (d := window.findChild(QDialog, "memoriesUsedDialog")) and d.isVisible() and d,
            what="the memories used",
        )
        listed = find(dialog, QListWidget, "memoriesUsedList")
        (line,) = [listed.item(n).text() for n in range(listed.count())]
        assert line.startswith(NOTE) and "from the thread" in line
        find(dialog, QPushButton, "memorySourceButton").click()
        await wait_until(lambda: window.chat_vm.thread_id == first, what="the source thread")
    finally:
        await close_window(window)


async def test_edit_keeps_the_changed_text(tmp_path: Path) -> None:
    model = _proposing("Noted.")
    window = await _window(tmp_path, model)
    try:
        await send(window, "I moved to Lyon")
        card = await _card(window)
        find(card, QPushButton, "memoryEditButton").click()
        field = find(card, QLineEdit, "memoryEditField")
        assert field.isVisible() and field.text() == NOTE
        field.clear()
        type_text(field, "The user lives in Lyon, near the Croix-Rousse")
        find(card, QPushButton, "memoryKeepButton").click()
        await _answer(window, "Noted.")
        await _idle(window)
        (kept,) = await window.workspace.memory.list(every=True)
        assert kept.text == "The user lives in Lyon, near the Croix-Rousse"
    finally:
        await close_window(window)


async def test_dont_keeps_nothing_and_the_agent_reads_so(tmp_path: Path) -> None:
    model = _proposing("Understood, I will not keep it.")
    window = await _window(tmp_path, model)
    try:
        await send(window, "I moved to Lyon")
        card = await _card(window)
        find(card, QPushButton, "memoryDontButton").click()
        await _answer(window, "Understood, I will not keep it.")
        await _idle(window)
        assert await window.workspace.memory.list(every=True) == []
        (result,) = model.last_tool_results()
        assert "not kept" in result
    finally:
        await close_window(window)


async def test_an_incognito_thread_uses_no_memory_and_offers_no_remember(
    tmp_path: Path,
) -> None:
    call = {"name": "remember", "args": {"text": "The user likes markets"}, "id": "m2"}
    model = Recorder([{"text": "The one by the river."}, {"tool_calls": [call]}, {"text": "Ok."}])
    window = await _window(tmp_path, model)
    try:
        kept = await window.workspace.memory.add(NOTE)
        action = find(window, QAction, "incognitoAction")
        assert action.isCheckable() and not action.isChecked()
        action.trigger()
        thread_id = window.chat_vm.thread_id
        assert thread_id is not None
        await wait_until(find(window, QLabel, "incognitoMark").isVisible, what="the mark")
        assert window.workspace.tools.incognito(thread_id)
        await send(window, QUESTION)
        row = await _answer(window, "The one by the river.")
        await _idle(window)
        assert NOTE not in _sent(model)
        reply = window.chat_vm.model.message_at(row)
        assert reply is not None and memory_chip_text(reply) == ""
        assert (await window.workspace.memory.get(kept.id)).last_used_at is None
        # the agent proposing a memory here reaches no remember: no card, nothing kept
        await send(window, "I like markets")
        await _answer(window, "Ok.")
        await _idle(window)
        assert not find(window, QFrame, "memoryKeepCard").isVisible()
        assert [m.id for m in await window.workspace.memory.list(every=True)] == [kept.id]
        # another thread is not incognito, and the switch shows each thread's own flag
        await window.new_thread()
        assert not action.isChecked()
        assert not find(window, QLabel, "incognitoMark").isVisible()
        await window.open_thread(thread_id)
        await wait_until(action.isChecked, what="the switch to show the flag")
        assert find(window, QLabel, "incognitoMark").isVisible()
    finally:
        await close_window(window)


async def test_a_local_only_memory_held_back_from_a_remote_model_is_said_on_the_chip(
    tmp_path: Path,
) -> None:
    far = ReplayServer(host="127.0.0.2").start()
    far.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    spec = f"openai:gpt-4o-mini@{far.url}/v1"

    local = Recorder([{"text": "Dr Roux is near the Croix-Rousse."}])

    def remote(asked: str) -> Any:
        if asked.startswith("scripted:"):  # a model on this computer
            return ScriptedChatModel(local)
        name, _, url = asked.removeprefix("openai:").partition("@")
        return OpenAIChatModel(
            name, base_url=url, api_key="sk", retry=RetryPolicy(max_retries=0), timeout=10
        )

    workspace = await Workspace.open(
        tmp_path / "data", resolve_model=remote, secret_resolver=lambda r: "sk"
    )
    workspace.settings.use(AppSettings(default_model=spec))
    window = MainWindow(workspace)
    window.show()
    await window.start(preload=False)
    try:
        await workspace.memory.add("I live in Lyon")
        await workspace.memory.add("My doctor in Lyon is Dr Roux", local_only=True)
        await send(window, QUESTION)
        row = await _answer(window, "Hello, world!")
        await _idle(window)
        reply = window.chat_vm.model.message_at(row)
        assert reply is not None
        assert memory_chip_text(reply) == "1 memory used · 1 memory held back"
        lines = [text for text, _thread in await window.memories_used.rows(reply)]
        assert lines[0].startswith("I live in Lyon\nadded by you")
        assert lines[1].startswith(
            "Held back (local only, and the model runs on another computer): "
            "My doctor in Lyon is Dr Roux"
        )
        (request,) = [r for r in far.requests if r["path"] == "/v1/chat/completions"]
        assert "Dr Roux" not in str(request["json"]["messages"])

        # a model on this computer is given the local-only memory
        here = await workspace.threads.create(model="scripted:here.json")
        await window.open_thread(here.id)
        await send(window, "Who is my doctor in Lyon?")
        row = await _answer(window, "Dr Roux is near the Croix-Rousse.")
        assert "My doctor in Lyon is Dr Roux" in _sent(local)
        reply = window.chat_vm.model.message_at(row)
        assert reply is not None and memory_chip_text(reply) == "2 memories used"
    finally:
        await close_window(window)
        far.stop()


async def test_the_card_waits_with_its_thread_and_comes_back_when_it_is_opened(
    tmp_path: Path,
) -> None:
    model = _proposing("Kept, thank you.")
    window = await _window(tmp_path, model)
    try:
        first = window.chat_vm.thread_id
        assert first is not None
        await send(window, "I moved to Lyon")
        card = await _card(window)
        await window.new_thread()
        await wait_until(lambda: not card.isVisible(), what="the card to wait with its thread")
        assert await window.workspace.memory.list(every=True) == []
        await window.open_thread(first)
        card = await _card(window)
        assert find(card, QLabel, "memoryKeepText").text() == f"Parley will remember: {NOTE}"
        find(card, QPushButton, "memoryKeepButton").click()
        await _answer(window, "Kept, thank you.")
        (kept,) = await window.workspace.memory.list(every=True)
        assert kept.text == NOTE
    finally:
        await close_window(window)


async def test_an_agent_set_to_keep_without_asking_keeps_with_no_card(tmp_path: Path) -> None:
    model = _proposing("Noted.")
    window = await open_tool_window(tmp_path / "data", model, tools=[])
    try:
        find(window, QPushButton, "newAgentButton").click()
        editor = await editor_of(window)
        find(editor, QLineEdit, "agentName").setText("Mover")
        check(find(editor, QListWidget, "agentTools"), "remember")
        keep = find(editor, QCheckBox, "agentKeepMemories")
        assert not keep.isChecked()
        keep.setChecked(True)
        await save(window, editor)
        (mover,) = [a for a in await window.workspace.agents.list() if a.name == "Mover"]
        assert window.workspace.settings.current.memory_keep_unasked == [mover.id]

        click_agent(window, "Mover")  # the empty thread now talks to Mover
        await wait_until(
            lambda: find(window, QLabel, "threadAgent").text() == "Mover", what="the agent"
        )
        await send(window, "I moved to Lyon")
        await _answer(window, "Noted.")
        await _idle(window)
        assert not find(window, QFrame, "memoryKeepCard").isVisible()
        (kept,) = await window.workspace.memory.list(every=True)
        assert kept.text == NOTE and kept.agent_id == mover.id

        click_agent(window, "Mover", double=True)
        editor = await editor_of(window)
        assert find(editor, QCheckBox, "agentKeepMemories").isChecked()
        editor.reject()
    finally:
        await close_window(window)
