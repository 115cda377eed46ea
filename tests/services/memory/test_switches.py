"""The person's memory switches, honoured by a real workspace on a real database: an
incognito thread uses no memory and keeps none, memory paused for everyone does the same,
``remember`` can be switched on in a thread like any tool, and an agent whose memories are
kept without asking keeps what it proposes with no question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.services.memory import NOTES_HEADING
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.store import BUILTIN_AGENT_ID

QUESTION = "Which market is open on Sunday in Lyon?"
NOTE = "The user lives in Lyon"


async def _open(data: Path, script: list[Any]) -> Workspace:
    model = ScriptedChatModel(script)
    ws = await Workspace.open(data, resolve_model=lambda spec: model, secret_resolver=lambda r: "")
    ws.settings.use(AppSettings(default_model="scripted:a"))
    return ws


def _remembering() -> list[Any]:
    call = {"name": "remember", "args": {"text": NOTE, "why": "to suggest places near you"}}
    return [{"tool_calls": [call]}, "Done."]


async def test_an_incognito_thread_uses_no_memory_while_another_thread_does(
    tmp_path: Path,
) -> None:
    seen: list[str] = []

    def answer(messages: Any) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "The one by the river."}

    ws = await _open(tmp_path, answer)  # type: ignore[arg-type]
    try:
        kept = await ws.memory.add("I live in Lyon, near the Croix-Rousse")
        hidden = await ws.threads.create()
        await ws.tools.set_incognito(hidden.id, True)
        state = await (await ws.runs.send(hidden.id, QUESTION))
        assert state is not None and seen == [QUESTION]
        assert "memories_used" not in state.context[-1].metadata
        assert (await ws.memory.get(kept.id)).last_used_at is None
        assert ws.tools.incognito(hidden.id)

        plain = await ws.threads.create()
        state = await (await ws.runs.send(plain.id, QUESTION))
        assert state is not None and seen[-1].startswith(NOTES_HEADING)
        assert state.context[-1].metadata["memories_used"] == [kept.id]
    finally:
        await ws.aclose()
    # the flag is kept with the thread's other choices, so it holds after a restart
    again = await _open(tmp_path, ["Hi."])
    try:
        assert again.tools.incognito(hidden.id) and not again.tools.incognito(plain.id)
    finally:
        await again.aclose()


async def test_memory_paused_for_everyone_uses_none_and_keeps_none(tmp_path: Path) -> None:
    ws = await _open(tmp_path, _remembering())
    try:
        await ws.settings.update(memory_paused=True, memory_keep_unasked=[BUILTIN_AGENT_ID])
        before = await ws.memory.add("I live in Lyon")
        thread = await ws.threads.create()
        await ws.tools.set_enabled(thread.id, ["remember"])
        state = await (await ws.runs.send(thread.id, QUESTION))
        assert state is not None and state.context[-1].text() == "Done."
        assert "memories_used" not in state.context[-1].metadata
        assert [m.text for m in await ws.memory.list(every=True)] == [before.text]
        # remember is not even offered while memory is paused: the call reaches no tool
        (result,) = [b for m in state.context if m.role == "tool" for b in m.content]
        assert "remember" in str(result) and "kept" not in str(result)
    finally:
        await ws.aclose()


async def test_remember_switched_on_in_a_thread_asks_before_it_keeps(tmp_path: Path) -> None:
    ws = await _open(tmp_path, _remembering())
    try:
        thread = await ws.threads.create()
        assert "remember" in [e.name for e in ws.tools.catalogue()]
        await ws.tools.set_enabled(thread.id, ["remember"])
        await (await ws.runs.send(thread.id, "I moved to Lyon"))
        (asked,) = await ws.runs.pending_approvals(thread.id)
        assert [r.tool for r in asked.requests] == ["remember"]
        assert await ws.memory.list(every=True) == []
    finally:
        await ws.aclose()


async def test_an_agent_kept_without_asking_keeps_what_it_proposes(tmp_path: Path) -> None:
    ws = await _open(tmp_path, _remembering())
    try:
        await ws.settings.update(memory_keep_unasked=[BUILTIN_AGENT_ID])
        thread = await ws.threads.create()
        await ws.tools.set_enabled(thread.id, ["remember"])
        state = await (await ws.runs.send(thread.id, "I moved to Lyon"))
        assert state is not None and state.context[-1].text() == "Done."
        assert await ws.runs.pending_approvals(thread.id) == []
        (kept,) = await ws.memory.list(every=True)
        assert kept.text == NOTE and kept.thread_id == thread.id and kept.agent_id is None
    finally:
        await ws.aclose()


async def test_memory_paused_for_one_agent_uses_none_and_keeps_none_in_its_threads(
    tmp_path: Path,
) -> None:
    seen: list[str] = []

    def answer(messages: Any) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "The one by the river."}

    ws = await _open(tmp_path, answer)  # type: ignore[arg-type]
    try:
        kept = await ws.memory.add("I live in Lyon, near the Croix-Rousse")
        await ws.agents.set_memory_paused_for(BUILTIN_AGENT_ID, True)
        assert ws.agents.memory_paused_for(BUILTIN_AGENT_ID)
        thread = await ws.threads.create()
        await ws.tools.set_enabled(thread.id, ["remember"])
        state = await (await ws.runs.send(thread.id, QUESTION))
        assert state is not None and seen == [QUESTION]  # no remembered notes before it
        assert "memories_used" not in state.context[-1].metadata
        assert (await ws.memory.get(kept.id)).last_used_at is None

        await ws.agents.set_memory_paused_for(BUILTIN_AGENT_ID, False)
        state = await (await ws.runs.send(thread.id, QUESTION))
        assert state is not None and seen[-1].startswith(NOTES_HEADING)
        assert state.context[-1].metadata["memories_used"] == [kept.id]
    finally:
        await ws.aclose()
