"""Knowledge and delegates: a delegate searches its own folders (and those of every thread),
not those of the agent that asked it; an agent with delegates gets passages and citations
from its folders as any agent does."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.state import Message, TextBlock
from app.services.agents import Agent
from app.services.settings import AppSettings
from app.services.workspace import Workspace


def folder(root: Path, name: str, text: str) -> Path:
    (root / name).mkdir(parents=True)
    (root / name / f"{name}.md").write_text(f"# {name}\n\nThe lighthouse keeper {text}.\n")
    return (root / name).resolve()


def citations(message: Message) -> list[str | None]:
    return [a.url for b in message.content if isinstance(b, TextBlock) for a in b.annotations]


class Scripts:
    """The keeper asks the reader; the reader searches its folders, then answers."""

    def __init__(self) -> None:
        self.keeper_saw: list[str] = []

    def __call__(self, messages: Sequence[Message]) -> dict[str, Any]:
        system = messages[0].text() if messages and messages[0].role == "system" else ""
        answered = any(m.role == "tool" for m in messages)
        if "reader" in system:
            if not answered:
                query = {"query": "lighthouse keeper"}
                return {"tool_calls": [{"name": "search_knowledge", "args": query}]}
            return {"text": "The keeper reads novels [1]."}
        self.keeper_saw.append(messages[-1].text())
        if not answered:
            task = {"task": "What does the keeper do?"}
            return {"tool_calls": [{"name": "ask_reader", "args": task}]}
        return {"text": "The keeper writes poems [1], and reads novels."}


async def test_a_delegate_searches_its_own_folders_and_the_asker_cites_its_own(
    tmp_path: Path,
) -> None:
    scripts = Scripts()
    model = ScriptedChatModel(scripts)
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=lambda spec: model, secret_resolver=lambda ref: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    try:
        docs = tmp_path / "docs"
        keepers = folder(docs, "keepers", "writes poems")
        readers = folder(docs, "readers", "reads novels")
        for path in (keepers, readers):
            await ws.knowledge.add_folder(str(path))
        await ws.knowledge.wait_idle()
        reader = await ws.agents.add(
            Agent(name="Reader", instructions="You are the reader.", tools=("search_knowledge",))
        )
        keeper = await ws.agents.add(
            Agent(name="Keeper", instructions="You are the keeper.", delegates=("Reader",))
        )
        await ws.agents.set_knowledge(keeper, [str(keepers)])
        await ws.agents.set_knowledge(reader, [str(readers)])

        thread = await ws.threads.create(agent_id=keeper.id)
        state = await (await ws.runs.send(thread.id, "What does the lighthouse keeper do?"))
        assert state is not None

        # the reader's search found its own folder's passage, not the keeper's
        (found,) = [
            str(r.output)
            for m in state.context
            if m.role == "tool" and m.agent == "Reader"
            for r in m.tool_results()
        ]
        assert "reads novels" in found
        assert "writes poems" not in found
        reader_answer = next(
            m for m in reversed(state.context) if m.role == "assistant" and m.agent == "Reader"
        )
        novels = (readers / "readers.md").as_uri()
        assert [u for u in citations(reader_answer) if u] and all(
            u is not None and u.startswith(novels) for u in citations(reader_answer)
        )

        # the keeper, who has delegates, was given its folder's passages and cites them
        assert "writes poems" in scripts.keeper_saw[0]
        assert "reads novels" not in scripts.keeper_saw[0]
        answer = state.context[-1]
        assert answer.text() == "The keeper writes poems [1], and reads novels."
        poems = (keepers / "keepers.md").as_uri()
        assert citations(answer) and all(
            u is not None and u.startswith(poems) for u in citations(answer)
        )
    finally:
        await ws.aclose()
