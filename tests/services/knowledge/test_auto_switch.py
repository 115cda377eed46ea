"""The per-thread switch for the automatic passages: off, a scripted-model turn gets no
passages and no citations; on again, it does; the switch is kept with the thread's tool
choices and survives reopening the data folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.state import Message, TextBlock
from app.services.settings import AppSettings
from app.services.tool_choice import FILE_NAME, ThreadToolChoices
from app.services.workspace import Workspace
from tests.knowledge.corpus import make_corpus

QUESTION = "When should I water the courgettes?"


async def _open(data: Path, seen: list[str]) -> Workspace:
    def answer(messages: Any) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "In the evening."}

    model = ScriptedChatModel(answer)
    ws = await Workspace.open(data, resolve_model=lambda spec: model, secret_resolver=lambda r: "")
    ws.settings.use(AppSettings(default_model="scripted:a"))
    return ws


def _citations(message: Message) -> list[str | None]:
    return [a.title for b in message.content if isinstance(b, TextBlock) for a in b.annotations]


async def test_switched_off_a_turn_gets_no_passages_and_on_again_it_does(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    seen: list[str] = []
    ws = await _open(tmp_path / "data", seen)
    try:
        await ws.knowledge.add_folder(root)
        await ws.knowledge.wait_idle()
        thread = await ws.threads.create()
        other = await ws.threads.create()
        assert ws.tools.has_knowledge and ws.tools.auto_passages(thread.id)
        await ws.tools.set_auto_passages(thread.id, False)
        off = await (await ws.runs.send(thread.id, QUESTION))
        assert off is not None
        assert seen == [QUESTION]  # the question went to the model as it was written
        assert _citations(off.context[-1]) == []
        assert off.context[-1].text() == "In the evening."
        elsewhere = await (await ws.runs.send(other.id, QUESTION))  # only that thread is off
        assert elsewhere is not None and seen[1].startswith("Passages from the user's documents")
        await ws.tools.set_auto_passages(thread.id, True)
        on = await (await ws.runs.send(thread.id, QUESTION))
        assert on is not None
        assert seen[2].startswith(
            "Passages from the user's documents:\n\n[1] garden.md, Garden notes › Watering"
        )
        assert _citations(on.context[-1])[0] == "garden.md, Garden notes › Watering"
    finally:
        await ws.aclose()


async def test_the_switch_survives_reopening_beside_the_tool_choices(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    data = tmp_path / "data"
    seen: list[str] = []
    ws = await _open(data, seen)
    try:
        await ws.knowledge.add_folder(root)
        await ws.knowledge.wait_idle()
        thread = await ws.threads.create()
        await ws.tools.set_enabled(thread.id, ["current_time"])
        await ws.tools.set_auto_passages(thread.id, False)
    finally:
        await ws.aclose()
    ws = await _open(data, seen)
    try:
        assert ws.tools.auto_passages(thread.id) is False
        assert ws.tools.enabled(thread.id) == ["current_time"]
        await ws.knowledge.wait_idle()
        state = await (await ws.runs.send(thread.id, QUESTION))
        assert state is not None and seen == [QUESTION]
        assert _citations(state.context[-1]) == []
    finally:
        await ws.aclose()


def test_a_deleted_thread_s_switch_is_forgotten(tmp_path: Path) -> None:
    choices = ThreadToolChoices(tmp_path)
    choices.set_auto_passages("t1", False)
    choices.set_auto_passages("t2", False)
    choices.forget("t1")
    raw = json.loads((tmp_path / FILE_NAME).read_text())
    assert raw == {"#no-auto-passages": ["t2"]}
    again = ThreadToolChoices(tmp_path)
    assert again.auto_passages("t1") and not again.auto_passages("t2")
    assert again.enabled("#no-auto-passages") == []  # not read as a thread's tools
