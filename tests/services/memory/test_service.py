"""Memories through the workspace: every change told on the bus, an agent's list with
everyone's, the choice for a question on a real database, and memory files written privately
and read back."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.services.agents import Agent
from app.services.events import MemoriesChanged, WorkspaceEvent
from app.services.workspace import Workspace


async def _open(tmp_path: Path) -> Workspace:
    def resolve(spec: str) -> Any:
        return ScriptedChatModel([])

    return await Workspace.open(tmp_path, resolve_model=resolve, secret_resolver=lambda r: "")


async def test_memories_are_added_changed_and_forgotten_with_each_change_told(
    tmp_path: Path,
) -> None:
    ws = await _open(tmp_path)
    try:
        told: list[WorkspaceEvent] = []
        ws.events.subscribe(told.append)
        writer = await ws.agents.add(Agent(name="Writer"))
        mine = await ws.memory.add("I live in Lyon")
        theirs = await ws.memory.add(
            "Drafts in British English", agent_id=writer.id, source=("t1", "m1"), pinned=True
        )
        assert [m.text for m in await ws.memory.list(writer.id)] == [theirs.text, mine.text]
        assert [m.text for m in await ws.memory.list()] == [mine.text]
        edited = await ws.memory.edit(mine.short_id, "I live in Lyon, France")
        assert edited.id == mine.id and edited.text == "I live in Lyon, France"
        assert not (await ws.memory.pin(theirs.id, False)).pinned
        assert (await ws.memory.set_local_only(mine.id)).local_only
        assert [m.id for m in await ws.memory.search("lyon")] == [mine.id]
        await ws.memory.forget(mine.short_id)
        assert await ws.memory.forget_agent(writer.id) == 1
        assert await ws.memory.list(every=True) == []
        changes = [e for e in told if isinstance(e, MemoriesChanged)]
        assert [e.memory_id for e in changes] == [
            mine.id, theirs.id, mine.id, theirs.id, mine.id, mine.id, None,
        ]  # fmt: skip
        with pytest.raises(UserError, match="there is no memory"):
            await ws.memory.forget(mine.short_id)
        await ws.memory.add("Short lines", agent_id=writer.id)
        told.clear()
        await ws.agents.remove(writer.id)  # its memories go with it, and that is told
        assert await ws.memory.list(every=True) == []
        assert MemoriesChanged() in told
    finally:
        await ws.aclose()


async def test_a_question_gets_the_pinned_and_related_memories_of_its_agent(
    tmp_path: Path,
) -> None:
    ws = await _open(tmp_path)
    try:
        writer = await ws.agents.add(Agent(name="Writer"))
        other = await ws.agents.add(Agent(name="Other"))
        pinned = await ws.memory.add("Answer in French", pinned=True)
        kettle = await ws.memory.add("The kettle is descaled monthly", agent_id=writer.id)
        await ws.memory.add("The kettle belongs to the office", agent_id=other.id)
        private = await ws.memory.add("My kettle code is 4411", local_only=True)
        for n in range(20):
            await ws.memory.add(f"Unrelated note number {n}")
        choice = await ws.memory.choose("How do I clean the kettle?", writer.id)
        assert {m.id for m in choice.used} == {pinned.id, kettle.id, private.id}
        assert choice.used[0] == pinned
        remote = await ws.memory.choose("How do I clean the kettle?", writer.id, remote=True)
        assert private not in remote.used and remote.held_back == (private,)
        await ws.memory.mark_used(choice.used, 1000.0)
        assert (await ws.memory.get(kettle.id)).last_used_at == 1000.0
        nothing = await ws.memory.choose("what is it?", None)
        assert [m.id for m in nothing.used] == [pinned.id]  # no telling word: pinned alone
    finally:
        await ws.aclose()


async def test_an_export_is_private_and_imports_whole_into_another_folder(
    tmp_path: Path,
) -> None:
    home = await _open(tmp_path / "home")
    try:
        writer = await home.agents.add(Agent(name="Writer"))
        await home.memory.add("About me", pinned=True)
        await home.memory.add("Secret thing", agent_id=writer.id, local_only=True)
        target = tmp_path / "memories.json"
        assert await home.memory.export_to(target) == 2
    finally:
        await home.aclose()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    body = json.loads(target.read_bytes())
    assert body["format"] == "parley.memories" and body["version"] == 1
    assert {m["text"]: m["local_only"] for m in body["memories"]} == {
        "About me": False,
        "Secret thing": True,
    }
    other = await _open(tmp_path / "other")
    try:
        with pytest.raises(UserError, match="for the agent 'Writer', which is not here"):
            await other.memory.read_file(target.read_bytes())
        await other.agents.add(Agent(name="writer"))
        plan = await other.memory.read_file(target.read_bytes())
        assert [m.text for m in plan.memories] == ["About me", "Secret thing"]
        assert await other.memory.list(every=True) == []  # reading adds nothing
        await other.memory.import_memories(plan)
        again = await other.memory.read_file(target.read_bytes())
        assert again.memories == () and again.already_here == 2
        kept = {m.text: m for m in await other.memory.list(every=True)}
        assert kept["Secret thing"].local_only and kept["About me"].pinned
        assert kept["About me"].thread_id is None
    finally:
        await other.aclose()
