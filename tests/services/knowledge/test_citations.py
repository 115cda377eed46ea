"""A chat turn with the scripted model over a knowledge folder: through the tool or the
automatic mode, the answer carries its sources as citations with file and page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.state import Message, TextBlock
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from tests.knowledge.corpus import make_corpus


async def _open(tmp_path: Path, model: ScriptedChatModel) -> Workspace:
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=lambda spec: model, secret_resolver=lambda ref: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    return ws


def _citations(message: Message) -> list[tuple[str | None, str | None]]:
    return [
        (a.url, a.title) for b in message.content if isinstance(b, TextBlock) for a in b.annotations
    ]


async def test_the_tool_s_passages_become_the_answer_s_citations(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    model = ScriptedChatModel(
        [
            {"tool_calls": [{"name": "search_knowledge", "args": {"query": "glacier walk"}}]},
            {"text": "It starts at the blue hut [1]."},
        ]
    )
    ws = await _open(tmp_path, model)
    try:
        await ws.knowledge.add_folder(root)
        await ws.knowledge.wait_idle()
        assert "search_knowledge" in [entry.name for entry in ws.tools.catalogue()]
        thread = await ws.threads.create()
        await ws.tools.set_enabled(thread.id, ["search_knowledge"])
        state = await (await ws.runs.send(thread.id, "Where does the glacier walk start?"))
        assert state is not None
        answer = state.context[-1]
        assert answer.text() == "It starts at the blue hut [1]."
        url = (root / "guide.pdf").resolve().as_uri() + "#page=3"
        assert _citations(answer)[0] == (url, "guide.pdf, page 3")
        # the tool's passages were sent to the model, and the saved thread keeps the citation
        result = state.context[-2].content[0]
        assert "blue hut" in str(getattr(result, "output", ""))
        page = await ws.threads.read_messages(thread.id)
        assert _citations(page.messages[-1])[0][0] == url
    finally:
        await ws.aclose()


async def test_the_automatic_mode_puts_passages_before_the_question(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    seen: list[Any] = []

    def answer(messages: Any) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "In the evening."}

    ws = await _open(tmp_path, ScriptedChatModel(answer))
    try:
        await ws.knowledge.add_folder(root)
        await ws.knowledge.wait_idle()
        thread = await ws.threads.create()
        question = "When should I water the courgettes?"
        state = await (await ws.runs.send(thread.id, question))
        assert state is not None
        assert seen[0].startswith(
            "Passages from the user's documents:\n\n[1] garden.md, Garden notes › Watering"
        )
        assert seen[0].endswith(f"Question: {question}")
        assert state.context[0].text() == question  # what is saved is what the user wrote
        assert _citations(state.context[-1])[0][1] == "garden.md, Garden notes › Watering"
    finally:
        await ws.aclose()


async def test_without_a_match_nothing_is_added_or_cited(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    seen: list[str] = []

    def answer(messages: Any) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "Hello!"}

    ws = await _open(tmp_path, ScriptedChatModel(answer))
    try:
        await ws.knowledge.add_folder(root)
        await ws.knowledge.wait_idle()
        thread = await ws.threads.create()
        state = await (await ws.runs.send(thread.id, "Hi"))
        assert state is not None and seen == ["Hi"]
        assert _citations(state.context[-1]) == []
    finally:
        await ws.aclose()
