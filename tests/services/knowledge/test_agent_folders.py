"""Knowledge folders of an agent: a turn on a thread searches only the folders of the
thread's agent and those of no agent, so one agent's documents never reach another's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.services.agents import Agent
from app.services.settings import AppSettings
from app.services.workspace import Workspace


def folder(root: Path, name: str, text: str) -> str:
    (root / name).mkdir(parents=True)
    (root / name / f"{name}.md").write_text(f"# {name}\n\nThe lighthouse {text}.\n")
    return str((root / name).resolve())


async def test_a_turn_searches_its_agents_folders_and_the_shared_ones(tmp_path: Path) -> None:
    seen: list[str] = []

    def answer(messages: Any) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "Noted."}

    model = ScriptedChatModel(answer)
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=lambda spec: model, secret_resolver=lambda ref: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    try:
        docs = tmp_path / "docs"
        shared = folder(docs, "shared", "keeper opens at nine")
        mine = folder(docs, "writers", "keeper writes poems")
        theirs = folder(docs, "readers", "keeper reads novels")
        for path in (shared, mine, theirs):
            await ws.knowledge.add_folder(path)
        await ws.knowledge.wait_idle()
        writer = await ws.agents.add(Agent(name="Writer"))
        reader = await ws.agents.add(Agent(name="Reader"))
        await ws.agents.set_knowledge(writer, [mine])
        await ws.agents.set_knowledge(reader, [theirs])
        assert ws.agents.knowledge_of(writer) == [mine]

        for agent in (writer, reader):
            thread = await ws.threads.create(agent_id=agent.id)
            await (await ws.runs.send(thread.id, "What about the lighthouse keeper?"))
        parley = await ws.threads.create()
        await (await ws.runs.send(parley.id, "What about the lighthouse keeper?"))
        assert "poems" in seen[0] and "nine" in seen[0] and "novels" not in seen[0]
        assert "novels" in seen[1] and "nine" in seen[1] and "poems" not in seen[1]
        assert "nine" in seen[2] and "poems" not in seen[2] and "novels" not in seen[2]

        await ws.agents.set_knowledge(writer, [])  # unchecked: it belongs to no agent again
        assert [f.agent for f in await ws.knowledge.folders() if f.path == mine] == [None]
    finally:
        await ws.aclose()
