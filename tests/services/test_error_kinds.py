"""An error's kind is declared by its class, and every kind is a problem with its remedies."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from app.core.errors import ErrorKind, ModelAuthError, ParleyError, UserError
from app.core.models import ScriptedChatModel
from app.services.problems import problem_of
from app.services.runs import ThreadBusy
from app.services.settings import AppSettings
from app.services.workspace import Workspace


def test_every_error_kind_is_reported_as_itself() -> None:
    for kind in get_args(ErrorKind):
        assert problem_of(kind, "it failed").kind == kind
    assert UserError.kind is None and ParleyError.kind is None
    assert problem_of(ModelAuthError.kind, "refused").remedies[0].action == "set_key"


async def test_a_second_send_on_a_running_thread_is_a_busy_problem(tmp_path: Path) -> None:
    model = ScriptedChatModel([{"text": "slow " * 50}], delay=0.01)
    ws = await Workspace.open(tmp_path, resolve_model=lambda _s: model, secret_resolver=str)
    ws.settings.use(AppSettings(default_model="scripted:a"))
    try:
        thread = await ws.threads.create()
        task = await ws.runs.send(thread.id, "first")
        with pytest.raises(ThreadBusy) as refused:
            await ws.runs.send(thread.id, "second")
        problem = problem_of(refused.value.kind or "invalid", str(refused.value))
        assert (problem.kind, problem.text) == (
            "busy",
            "this thread is still answering; wait for it or stop it first",
        )
        await task
    finally:
        await ws.aclose()
