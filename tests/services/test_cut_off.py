"""Resume and Discard refuse, with one sentence, a thread whose run was not cut off."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.services.settings import AppSettings
from app.services.workspace import Workspace


async def test_only_a_cut_off_run_can_be_resumed_or_discarded(tmp_path: Path) -> None:
    model = ScriptedChatModel([{"text": "Hello."}])
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda spec: model, secret_resolver=lambda ref: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    try:
        thread = await ws.threads.create()
        with pytest.raises(UserError, match="^this thread has no cut-off run to resume$"):
            await ws.runs.resume_cut_off(thread.id)
        await (await ws.runs.send(thread.id, "Hi"))
        assert not await ws.runs.is_cut_off(thread.id)
        with pytest.raises(UserError, match="^this thread has no cut-off run to discard$"):
            await ws.runs.discard_cut_off(thread.id)
        assert [m.text() for m in (await ws.threads.read_messages(thread.id)).messages] == [
            "Hi",
            "Hello.",
        ]
    finally:
        await ws.aclose()
