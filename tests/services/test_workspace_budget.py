"""Budget pauses through the workspace: a pause is reported and saved, raised or stopped,
also after the workspace is closed and opened again on the same data directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.budget import BudgetLimits
from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.core.tools import tool
from app.services.events import BudgetPaused, RunStatusChanged, WorkspaceEvent
from app.services.settings import AppSettings
from app.services.workspace import Workspace


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


SCRIPT: list[Any] = [
    {"tool_calls": [{"name": "add", "args": {"a": 2, "b": 3}}]},
    {"tool_calls": [{"name": "add", "args": {"a": 5, "b": 5}}]},
    {"text": "2 + 3 + 5 = 10"},
]


async def _open(tmp_path: Path, model: ScriptedChatModel) -> Workspace:
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda _s: model, secret_resolver=lambda _r: "", tools=[add]
    )
    ws.settings.use(
        AppSettings(default_model="scripted:a", default_limits=BudgetLimits(max_model_calls=2))
    )
    return ws


async def test_a_pause_survives_reopening_and_raising_finishes_the_run(tmp_path: Path) -> None:
    model = ScriptedChatModel(SCRIPT)
    ws = await _open(tmp_path, model)
    events: list[WorkspaceEvent] = []
    ws.events.subscribe(events.append)
    thread = await ws.threads.create(title="Sums")
    await (await ws.runs.send(thread.id, "add things"))
    paused = [e for e in events if isinstance(e, BudgetPaused)]
    assert [(p.pause.limit, p.pause.value, p.pause.suggested_to) for p in paused] == [
        ("max_model_calls", 2, 3)
    ]
    assert [e.status for e in events if isinstance(e, RunStatusChanged)][-1] == "waiting"
    await ws.aclose()

    ws = await _open(tmp_path, model)
    try:
        [pause] = await ws.runs.pending_budget(thread.id)
        assert pause.pause.text == "The next step would go over the model-call budget (2)."
        assert [t.status for t in await ws.threads.list_all()] == ["waiting"]
        with pytest.raises(UserError, match="at least 3"):
            await ws.runs.answer_budget(thread.id, pause.interrupt_id, 2.5)
        state = await (await ws.runs.answer_budget(thread.id, pause.interrupt_id, 3))
        assert state is not None and state.context[-1].text() == "2 + 3 + 5 = 10"
        assert await ws.runs.pending_budget(thread.id) == []
    finally:
        await ws.aclose()


async def test_stopping_at_a_pause_ends_the_turn_saying_why(tmp_path: Path) -> None:
    model = ScriptedChatModel(SCRIPT)
    ws = await _open(tmp_path, model)
    try:
        thread = await ws.threads.create(title="Sums")
        await (await ws.runs.send(thread.id, "add things"))
        [pause] = await ws.runs.pending_budget(thread.id)
        state = await (await ws.runs.answer_budget(thread.id, pause.interrupt_id, None))
        assert state is not None
        assert state.context[-1].text() == (
            "I stopped before finishing: the model-call budget (2) is used up."
        )
        assert model.remaining == 1
    finally:
        await ws.aclose()
