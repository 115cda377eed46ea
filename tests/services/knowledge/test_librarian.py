"""The first agent a new user makes: "Librarian", told to use the notes, with ``read_file``
(which cannot work while no folder is shared) and a knowledge folder of four documents. Its
question about pretty-printing is answered from the ``pprint`` document, cited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.agent._trim import estimate_tokens
from app.core.models import ScriptedChatModel
from app.core.models.protocol import ModelInfo
from app.core.state import Message, TextBlock
from app.services.agents import Agent
from app.services.settings import AppSettings
from app.services.workspace import Workspace

QUESTION = "How do I pretty print a nested dictionary?"

NOTES = {
    "pprint.md": "# pprint\n\npprint.pprint(obj, indent=..., width=..., depth=...) pretty-prints "
    "a nested dictionary or list, one key per line, indented by its depth.\n",
    "kettle.md": "# Kettle\n\nDescale the kettle once a month with white vinegar and water.\n",
    "garden.md": "# Garden\n\nWater the courgettes in the evening, at the roots, not the leaves.\n",
    "trains.md": "# Trains\n\nThe night train to Vienna leaves at 21:40 from platform 4.\n",
}


def notes(root: Path) -> Path:
    """A knowledge folder of four small documents, one of them about ``pprint``."""
    root.mkdir(parents=True)
    for name, text in NOTES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _citations(message: Message) -> list[str | None]:
    return [a.title for b in message.content if isinstance(b, TextBlock) for a in b.annotations]


@pytest.mark.parametrize("for_agent", [False, True], ids=["every-thread", "the-agent's"])
async def test_the_librarian_answers_from_the_pprint_note_and_cites_it(
    tmp_path: Path, for_agent: bool
) -> None:
    sent: list[list[Message]] = []

    def answer(messages: Any) -> dict[str, Any]:
        sent.append(list(messages))
        return {"text": "Use pprint.pprint(d) [1]."}

    model = ScriptedChatModel(answer)
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=lambda spec: model, secret_resolver=lambda ref: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    try:
        librarian = await ws.agents.add(
            Agent(
                name="Librarian",
                instructions="Answer briefly. Use the notes.",
                tools=("read_file",),
            )
        )
        folder = str(notes(tmp_path / "notes").resolve())
        await ws.knowledge.add_folder(folder)
        if for_agent:
            await ws.agents.set_knowledge(librarian, [folder])
        await ws.knowledge.wait_idle()
        thread = await ws.threads.create(agent_id=librarian.id)
        state = await (await ws.runs.send(thread.id, QUESTION))
        assert state is not None

        # one model call, offered no tool: read_file cannot work, and the notes came along
        assert len(sent) == 1
        assert model.tools_seen == [[]]
        asked = sent[0][-1].text()
        assert asked.startswith("Passages from the user's documents:\n\n[1] pprint.md")
        assert "pretty-prints a nested dictionary" in asked
        assert asked.endswith(f"Question: {QUESTION}")
        assert "Descale" not in asked and "Vienna" not in asked
        reply = state.context[-1]
        assert reply.text() == "Use pprint.pprint(d) [1]."
        assert _citations(reply) == ["pprint.md, pprint"]
        page = await ws.threads.read_messages(thread.id)
        assert _citations(page.messages[-1]) == ["pprint.md, pprint"]
        assert page.messages[0].text() == QUESTION
    finally:
        await ws.aclose()


async def test_a_long_thread_leaves_room_for_the_passages_and_the_summary(tmp_path: Path) -> None:
    """After many long turns the question still gets its passages, and what is sent (the kept
    messages, the summary of the dropped ones and the passages) fits the model's window with
    room for the reply, as a local model's 4,096 tokens demand."""
    window = 4096
    sent: list[list[Message]] = []

    def answer(messages: Any) -> dict[str, Any]:
        sent.append(list(messages))
        return {"text": "Once upon a time " + "there was a lighthouse. " * 60}

    info = ModelInfo(spec="scripted:a", name="a", provider="scripted", context_window=window)
    model = ScriptedChatModel(answer, info=info)
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=lambda spec: model, secret_resolver=lambda ref: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    try:
        librarian = await ws.agents.add(
            Agent(name="Librarian", instructions="Answer briefly. Use the notes.")
        )
        await ws.knowledge.add_folder(notes(tmp_path / "notes"))
        await ws.knowledge.wait_idle()
        thread = await ws.threads.create(agent_id=librarian.id)
        for n in range(12):
            await (await ws.runs.send(thread.id, f"Tell me a story, the {n}th. " + "Go on. " * 80))
        state = await (await ws.runs.send(thread.id, QUESTION))
        assert state is not None

        assert "Summary of the earlier conversation" in sent[-1][0].text()
        assert "pretty-prints a nested dictionary" in sent[-1][-1].text()
        assert _citations(state.context[-1]) == ["pprint.md, pprint"]
        for messages in sent:  # each call fits, with the reply's 1,024 tokens to spare
            assert sum(map(estimate_tokens, messages)) + 1024 <= window
    finally:
        await ws.aclose()
