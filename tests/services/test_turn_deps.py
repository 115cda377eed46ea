"""A turn's facts travel with its run: a tool (or hook) built once for every thread reads from
the run it is handed which thread it works for, that thread's agent and whether the thread
wants knowledge passages, also for two turns running at once. (A thread's own agent's folders
found through them: ``knowledge/test_agent_folders.py``.)"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.tools import Runtime, tool
from app.services.settings import AppSettings
from app.services.turn import TurnDeps
from app.services.workspace import Workspace


async def test_each_turn_s_tools_read_their_own_thread_agent_and_passages_switch(
    tmp_path: Path,
) -> None:
    seen: dict[str, TurnDeps | None] = {}
    both_in = asyncio.Event()

    @tool
    async def whoami(label: str, runtime: Runtime) -> str:
        """Say which turn this is."""
        seen[label] = runtime.context.deps_as(TurnDeps) if runtime.context else None
        if len(seen) == 2:
            both_in.set()
        await asyncio.wait_for(both_in.wait(), 10)  # both turns are running now
        return "noted"

    def answer(messages: Any) -> dict[str, Any]:
        if any(m.role == "tool" for m in messages):
            return {"text": "Done."}
        label = messages[-1].text()
        return {"tool_calls": [{"name": "whoami", "args": {"label": label}}]}

    model = ScriptedChatModel(answer)
    ws = await Workspace.open(
        tmp_path / "data",
        resolve_model=lambda spec: model,
        secret_resolver=lambda ref: "",
        tools=[whoami],
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    try:
        mine = await ws.threads.create()
        plain = await ws.threads.create()
        await ws.tools.set_auto_passages(plain.id, False)
        turns = [await ws.runs.send(mine.id, "mine"), await ws.runs.send(plain.id, "plain")]
        await asyncio.gather(*turns)
        assert seen["mine"] == TurnDeps(mine.id, mine.agent_id, passages=True)
        assert seen["plain"] == TurnDeps(plain.id, plain.agent_id, passages=False)
    finally:
        await ws.aclose()
