"""How a turn ends, as the run reports it: stopped, waiting or idle. Real SQLite file,
scripted models."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.core import tool
from app.core.models import ScriptedChatModel
from app.services.events import MessageStreamed, RunStatusChanged, WorkspaceEvent
from app.store import Store
from tests.services.conversations import conversation


@tool(requires_approval=True)
def shout(text: str) -> str:
    """Say ``text`` loudly."""
    return text.upper()


def statuses(seen: list[WorkspaceEvent]) -> list[str]:
    return [e.status for e in seen if isinstance(e, RunStatusChanged)]


async def test_a_stopped_reply_ends_stopped_and_a_paused_one_waiting(tmp_path: Path) -> None:
    seen: list[WorkspaceEvent] = []
    model = ScriptedChatModel(
        ["A long answer " * 50, {"tool_calls": [{"name": "shout", "args": {"text": "hi"}}]}],
        chunk_size=2,
        delay=0.01,
    )
    store = Store.open(tmp_path / "parley.db")
    chat = conversation(store, model, tools=[shout])
    chat.workspace.events.subscribe(seen.append)
    runs = chat.workspace.runs
    try:
        thread = await chat.new_thread("status")
        streaming = asyncio.Event()
        unsubscribe = chat.workspace.events.subscribe(
            lambda e: streaming.set() if isinstance(e, MessageStreamed) else None
        )
        task = await runs.send(thread.id, "talk")
        await streaming.wait()
        unsubscribe()
        assert runs.stop(thread.id)
        await task
        assert statuses(seen) == ["running", "stopped"]
        await (await runs.send(thread.id, "shout"))
        assert statuses(seen)[2:] == ["running", "waiting"]
    finally:
        await chat.workspace.aclose()
        await store.aclose()


async def test_a_turn_stopped_during_a_tool_call_ends_stopped(tmp_path: Path) -> None:
    started, release = asyncio.Event(), asyncio.Event()

    @tool
    async def wait_a_while(query: str) -> str:
        """Take a while."""
        started.set()
        await release.wait()
        return "waited"

    call = {"name": "wait_a_while", "args": {"query": "x"}, "id": "s1"}
    model = ScriptedChatModel([{"tool_calls": [call]}, "never"])
    seen: list[WorkspaceEvent] = []
    store = Store.open(tmp_path / "parley.db")
    chat = conversation(store, model, tools=[wait_a_while])
    chat.workspace.events.subscribe(seen.append)
    runs = chat.workspace.runs
    try:
        thread = await chat.new_thread("status")
        task = await runs.send(thread.id, "wait")
        await started.wait()
        assert runs.stop(thread.id)
        release.set()
        await task
        assert statuses(seen) == ["running", "stopped"]
        assert model.remaining == 1  # the model was not asked again
    finally:
        await chat.workspace.aclose()
        await store.aclose()
