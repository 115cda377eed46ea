"""The chat shows what a run reports as it goes and reads its page from the store again only
when a run failed (it may have shown what it did not save). Real window, real store, scripted
models; the page reads counted around the real thread service."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.state import Message
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.window import MainWindow
from tests.ui.harness import Models, open_test_window, wait_until


def count_page_reads(window: MainWindow) -> list[str]:
    """Put a counter around the thread service's page reads; returns the threads read."""
    threads = window.workspace.threads
    real = threads.read_messages
    reads: list[str] = []

    async def read_messages(thread_id: str, *args: Any, **kwargs: Any) -> Any:
        reads.append(thread_id)
        return await real(thread_id, *args, **kwargs)

    threads.read_messages = read_messages  # type: ignore[method-assign]
    return reads


def texts(window: MainWindow) -> list[str]:
    return [m.text() for m in window.chat_vm.model.messages()]


async def _turn(window: MainWindow, text: str, reply: str) -> None:
    vm = window.chat_vm
    assert await vm.send(text)
    await wait_until(lambda: texts(window)[-1:] == [reply], what=f"the reply {reply!r}")
    await wait_until(lambda: not vm.runs.is_running(str(vm.thread_id)), what="the run to end")


async def test_a_finished_run_leaves_the_page_as_it_was_shown(tmp_path: Path) -> None:
    window = await open_test_window(
        tmp_path, Models({"scripted:a": ["First.", "Second.", "Third."]})
    )
    try:
        await _turn(window, "one", "First.")
        reads = count_page_reads(window)
        await _turn(window, "two", "Second.")
        await _turn(window, "three", "Third.")  # the second run's ending is long handled
        assert texts(window) == ["one", "First.", "two", "Second.", "three", "Third."]
        assert reads == []
    finally:
        await close_window(window)


class BreaksMidReply(ScriptedChatModel):
    """Streams the first piece of its reply, then fails the way a bug would."""

    async def astream(self, messages: Sequence[Message], **kwargs: Any) -> AsyncIterator[Message]:
        async for chunk in super().astream(messages, **kwargs):
            yield chunk
            raise RuntimeError("broken")


async def test_a_failed_run_reads_the_page_again_and_drops_what_it_did_not_save(
    tmp_path: Path,
) -> None:
    model = BreaksMidReply(["Half a reply that is never saved."])
    workspace = await Workspace.open(
        tmp_path, resolve_model=lambda _spec: model, secret_resolver=lambda ref: "unused"
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    window = MainWindow(workspace)
    window.show()
    await window.start()
    try:
        vm = window.chat_vm
        assert await vm.send("hello")
        await wait_until(lambda: vm.status() == "failed", what="the run to fail")
        await wait_until(lambda: texts(window) == ["hello"], what="the unsaved reply to go")
    finally:
        await close_window(window)
