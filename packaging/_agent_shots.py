"""Render the agents in the sidebar, a thread of an agent, and the agent editor offscreen.

Run by ``packaging/screenshots.py``: ``python packaging/_agent_shots.py OUT_DIR [--all]``
(``--all`` also writes the dark theme and the editor showing a problem, for looking them over).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = [
    {
        "text": "Three places to start:\n\n1. **The Python 3.13 release notes** — the "
        "free-threaded build and the new REPL.\n2. **PEP 703** — why the GIL can be "
        "turned off.\n3. **PEP 744** — the experimental JIT.",
        "usage": {"prompt_tokens": 180, "completion_tokens": 64},
    }
]


async def _seed(data: Path, script: Path) -> str:
    from app.core.budget import BudgetLimits
    from app.core.tools import ArgumentRule
    from app.services.agents import Agent
    from app.services.workspace import Workspace

    spec = f"scripted:{script}"
    ws = await Workspace.open(data)
    await ws.settings.save(ws.settings.current.model_copy(update={"default_model": spec}))
    researcher = await ws.agents.add(
        Agent(
            name="Researcher",
            description="Finds sources and quotes them",
            instructions="Find sources for what you are asked and quote them exactly. "
            "Name each source; say when you found nothing.",
            tools=("fetch_url", "read_file", "search_files"),
            limits=BudgetLimits(max_tool_calls=20, max_cost=0.5),
            starters=(
                "What changed in Python 3.13?",
                "Find three sources on sleep and memory",
                "Summarise the notes in ~/notes",
            ),
        )
    )
    await ws.agents.add(
        Agent(
            name="Writer",
            description="Drafts in plain words, asks the Researcher for facts",
            instructions="Write plainly, in short sentences. Ask the Researcher for facts.",
            delegates=("Researcher",),
            tools=("write_file",),
            starters=("Draft a memo about the move", "Rewrite this more plainly"),
        )
    )
    await ws.agents.add(Agent(name="Reviewer", description="Reads a diff and says what to fix"))
    writer = next(a for a in await ws.agents.list() if a.name == "Writer")
    papers, notes = data.parent / "papers", data.parent / "notes"
    papers.mkdir(exist_ok=True)
    notes.mkdir(exist_ok=True)
    (papers / "memo.md").write_text("# The move\n\nWe move to the new office in May.\n")
    await ws.knowledge.add_folder(papers)
    await ws.knowledge.add_folder(notes)
    await ws.knowledge.wait_idle()
    await ws.agents.set_knowledge(writer, [str(papers.resolve())])
    await ws.agents.add_rule(writer, ArgumentRule.folder("write_file", "path", str(notes)))
    await ws.agents.add_rule(writer, ArgumentRule.host("fetch_url", "url", "docs.python.org"))
    for title in ("Trip to Oslo: packing list", "Fix the CSV import"):
        await ws.threads.create(title=title, model=spec)
    await ws.threads.create(title="Memo: moving to the new office", agent_id=researcher.id)
    thread = await ws.threads.create(model=spec, agent_id=researcher.id)
    await (await ws.runs.send(thread.id, "What changed in Python 3.13?"))
    await ws.aclose()
    return thread.id


async def _shoot(out: Path, data: Path, thread_id: str, every: bool) -> None:
    from _shots import each_theme
    from PySide6.QtWidgets import QListWidget

    async for window, suffix in each_theme(data, thread_id, every):
        window.grab().save(str(out / f"agents{suffix}.png"))
        await window.new_thread()
        await window.agent_part.refresh()
        writer = next(a for a in window.workspace.agents.cached if a.name == "Writer")
        await window.new_thread(writer.id)
        await asyncio.sleep(0.3)
        window.grab().save(str(out / f"agent-starters{suffix}.png"))
        task = asyncio.ensure_future(window.agent_part.edit_agent(writer.id))
        await asyncio.sleep(0.4)
        editor = window.agent_part.editor
        assert editor is not None
        editor.resize(620, editor.sizeHint().height())
        await asyncio.sleep(0.2)
        editor.grab().save(str(out / f"agent-editor{suffix}.png"))
        if every:
            editor.name.setText("Researcher")
            tools = editor.findChild(QListWidget, "agentTools")
            assert tools is not None
            editor.limit_edits["max_tool_calls"].setText("0")
            await asyncio.sleep(0.2)
            editor.grab().save(str(out / f"agent-editor-problems{suffix}.png"))
        editor.reject()
        await task


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from _shots import run_shots

    every = "--all" in sys.argv
    raise SystemExit(run_shots(SCRIPT, _seed, _shoot, Path(sys.argv[1]), every, home=True))
