"""Knowledge search over notes that share their words: the file whose title and heading
answer the question comes first, one long note does not fill the list, and a question the
notes do not answer gets no passage and no citation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.state import TextBlock
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from tests.knowledge.project_notes import make_project_notes


async def _open(tmp_path: Path, model: ScriptedChatModel) -> Workspace:
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=lambda spec: model, secret_resolver=lambda ref: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    return ws


async def test_the_file_whose_title_and_heading_answer_comes_first(tmp_path: Path) -> None:
    ws = await _open(tmp_path, ScriptedChatModel([]))
    try:
        await ws.knowledge.add_folder(make_project_notes(tmp_path / "notes"))
        await ws.knowledge.wait_idle()
        hits = await ws.knowledge.search("Project Heron launch code", 5)
        best = hits[0]
        assert (best.rel, best.heading) == ("projects/heron.md", "Project Heron › Launch")
        assert "HX-4471" in best.text
        # the long meeting notes repeat every word of the question twelve times over: they
        # are in the list, but not five times over the one that answers
        files = [hit.rel for hit in hits]
        assert files.count("meetings.md") <= 2
        # the other project's launch is found by its own name
        osprey = (await ws.knowledge.search("When does Osprey launch?", 5))[0]
        assert (osprey.rel, osprey.heading) == ("projects/osprey.md", "Project Osprey › Launch")
    finally:
        await ws.aclose()


async def test_a_question_the_notes_do_not_answer_gets_no_passage(tmp_path: Path) -> None:
    seen: list[str] = []

    def answer(messages: Any) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "I cannot see the weather from here."}

    ws = await _open(tmp_path, ScriptedChatModel(answer))
    try:
        await ws.knowledge.add_folder(make_project_notes(tmp_path / "notes"))
        await ws.knowledge.wait_idle()
        question = "Will the weather be good for the launch party on Friday?"
        # its one shared word (launch) finds passages, none close enough to the question
        assert await ws.knowledge.search(question, 5, floors=False) != []
        assert await ws.knowledge.search(question, 5) == []
        assert await ws.knowledge.sources(question) == []

        thread = await ws.threads.create()
        state = await (await ws.runs.send(thread.id, question))
        assert state is not None
        assert seen == [question]  # the model was given the question alone
        reply = state.context[-1]
        assert reply.text() == "I cannot see the weather from here."
        assert [a for b in reply.content if isinstance(b, TextBlock) for a in b.annotations] == []

        # a question the notes answer still gets its passage, and the reply its citation
        await (await ws.runs.send(thread.id, "What is the Heron launch code?"))
        assert seen[1].startswith("Passages from the user's documents:\n\n[1] projects/heron.md")
    finally:
        await ws.aclose()


async def test_a_second_file_that_answers_part_of_the_question_is_a_source_too(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "kettle"
    folder.mkdir()
    (folder / "kettle-manual.md").write_text(
        "# Warranty\n\nYour kettle is covered for two years from the date of purchase.\n\n"
        "# Cleaning\n\nWipe the outside with a damp cloth. Never put the base in water.\n"
    )
    (folder / "terms.md").write_text(
        "# What the warranty does not cover\n\nDamage from limescale, from a fall, or from "
        "boiling anything but water is not covered.\n"
    )
    ws = await _open(tmp_path, ScriptedChatModel([]))
    try:
        await ws.knowledge.add_folder(folder)
        await ws.knowledge.wait_idle()
        question = "How long is the warranty on the kettle, and what does it not cover?"
        titles = [s["title"] for s in await ws.knowledge.sources(question)]
        # each file answers half of it; the cleaning section, which holds little of it, is not given
        assert titles == [
            "terms.md, What the warranty does not cover",
            "kettle-manual.md, Warranty",
        ]
    finally:
        await ws.aclose()
