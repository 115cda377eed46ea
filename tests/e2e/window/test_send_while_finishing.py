"""A message sent while the open thread's run is still finishing (here right after the
model's reply to a denied tool call has appeared) is never dropped: the box says it will go
when the run ends, and it does; when the run stops to wait for an approval instead, the box
says why it did not go and keeps the text."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QPlainTextEdit, QPushButton

from app.core.models import GenerationConfig, ScriptedChatModel, ToolSpec
from app.core.state import Message
from app.ui.app import close_window
from tests.ui.approval_harness import Recorder, approval_dialog, open_tool_window, send
from tests.ui.harness import find, press, type_text, wait_until


class SlowToFinish(ScriptedChatModel):
    """Replays the recorder's turns; once reply number ``hold`` has streamed, its run stays
    open until :attr:`release` is set, as on a busy machine finishing a run."""

    def __init__(self, recorder: Recorder, hold: int) -> None:
        super().__init__(recorder)
        self.hold = hold
        self.replies = 0
        self.release = asyncio.Event()

    async def astream(  # type: ignore[override]
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        self.replies += 1
        async for chunk in super().astream(messages, tools=tools, config=config):
            yield chunk
        if self.replies == self.hold:
            await self.release.wait()


def note_call(path: Path, call_id: str = "c1") -> dict[str, Any]:
    return {"name": "write_note", "args": {"path": str(path), "content": "x"}, "id": call_id}


async def deny_and_see_the_reply(window: Any, text: str) -> None:
    """Send, deny the call the model makes, and wait until the model's reply is shown."""
    await send(window, "Note: pack a jacket")
    dialog = await approval_dialog(window)
    type_text(find(dialog, QLineEdit, "denyReason"), "not now")
    find(dialog, QPushButton, "denyButton").click()
    model = window.chat_vm.model

    def shown() -> bool:
        last = model.message_at(model.rowCount() - 1)
        return last is not None and last.role == "assistant" and last.text() == text

    await wait_until(shown, what="the reply to the denied call")


async def test_enter_while_the_run_finishes_sends_when_it_ends(tmp_path: Path) -> None:
    recorder = Recorder(
        [{"tool_calls": [note_call(tmp_path / "n.txt")]}, {"text": "Understood."},
         {"text": "It will be sunny."}]
    )  # fmt: skip
    model = SlowToFinish(recorder, hold=2)
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await deny_and_see_the_reply(window, "Understood.")
        thread_id = window.chat_vm.thread_id
        assert window.workspace.runs.is_running(thread_id), "the run is still finishing"
        composer = find(window, QPlainTextEdit, "composer")
        type_text(composer, "And the weather?")
        press(composer, Qt.Key.Key_Return)
        await asyncio.sleep(0.2)
        hint = find(window, QLabel, "composerHint")
        assert hint.text() == "Your message goes out as soon as this answer has finished."
        assert composer.toPlainText() == "And the weather?"

        model.release.set()
        await wait_until(lambda: len(recorder.inputs) == 3, what="the queued message to go")
        assert recorder.inputs[2][-1].text() == "And the weather?"
        await wait_until(lambda: not window.workspace.runs.is_running(thread_id), what="the end")
        saved = await window.workspace.threads.read_messages(thread_id)
        assert [m.text() for m in saved.messages if m.role == "user"] == [
            "Note: pack a jacket",
            "And the weather?",
        ]
        assert saved.messages[-1].text() == "It will be sunny."
        assert composer.toPlainText() == ""
        assert hint.text() == ""
    finally:
        await close_window(window)


async def test_a_message_held_while_the_run_asks_for_approval_is_kept_and_says_why(
    tmp_path: Path,
) -> None:
    recorder = Recorder(
        [{"tool_calls": [note_call(tmp_path / "n.txt")]},
         {"text": "Understood.", "tool_calls": [note_call(tmp_path / "m.txt", "c2")]}]
    )  # fmt: skip
    model = SlowToFinish(recorder, hold=2)
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await deny_and_see_the_reply(window, "Understood.")
        composer = find(window, QPlainTextEdit, "composer")
        type_text(composer, "Never mind")
        press(composer, Qt.Key.Key_Return)
        model.release.set()
        await approval_dialog(window)
        hint = find(window, QLabel, "composerHint")
        assert hint.text() == (
            "Not sent: this thread is waiting for your decision; send it once you decide."
        )
        assert composer.toPlainText() == "Never mind"
        assert len(recorder.inputs) == 2
    finally:
        await close_window(window)
