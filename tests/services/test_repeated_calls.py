"""A turn that goes in circles, through the workspace: a thread of "Parley" ends with the
sentence naming it, the saved thread keeps it with a Retry remedy, and answering again starts
the turn afresh."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.state import ErrorBlock
from app.core.tools import ToolError, tool
from app.services.problems import remedies_for
from app.services.settings import AppSettings
from app.services.workspace import Workspace

RUNS: list[str] = []


@tool
def look_up(word: str) -> str:
    """Look a word up."""
    RUNS.append(word)
    raise ToolError("the dictionary is not installed")


LOOK: dict[str, Any] = {"tool_calls": [{"name": "look_up", "args": {"word": "circle"}}]}


async def test_a_parley_thread_ends_naming_parley_and_answering_again_starts_afresh(
    tmp_path: Path,
) -> None:
    RUNS.clear()
    model = ScriptedChatModel([LOOK, LOOK, LOOK, {"text": "A round shape."}])
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda _s: model, secret_resolver=lambda _r: "", tools=[look_up]
    )
    try:
        ws.settings.use(AppSettings(default_model="scripted:a"))
        thread = await ws.threads.create(title="Words")
        await (await ws.runs.send(thread.id, "What is a circle?"))
        state = await ws.threads.saved_state(thread.id)
        assert state is not None
        last = state.context[-1]
        [error] = [b for b in last.content if isinstance(b, ErrorBlock)]
        assert error.error == "Parley kept asking for the same failing call; stopped."
        assert [r.action for r in remedies_for(error.code)] == ["retry"]
        assert RUNS == ["circle"]
        assert len(model.calls) == 3

        await (await ws.runs.regenerate(thread.id))
        state = await ws.threads.saved_state(thread.id)
        assert state is not None
        assert [m.text() for m in state.context] == ["What is a circle?", "A round shape."]
    finally:
        await ws.aclose()
