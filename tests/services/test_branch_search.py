"""Search finds a message on a version the thread does not show now (an earlier answer, an
edited question's original), names its branch, and opening that branch shows the message;
through the workspace on a real database file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.core.models import ScriptedChatModel
from app.services.settings import AppSettings
from app.services.threads import saved_threads, search_saved
from app.services.workspace import Workspace

ANSWERS = ["Take a raincoat to Bergen.", "Bergen has fjords.", "Visit the fish market."]


@pytest.fixture
async def ws(tmp_path: Path) -> AsyncIterator[Workspace]:
    model = ScriptedChatModel([{"text": a} for a in [*ANSWERS, "Cats purr.", "Dogs bark."]])
    opened = await Workspace.open(
        tmp_path, resolve_model=lambda _s: model, secret_resolver=lambda _r: ""
    )
    opened.settings.use(AppSettings(default_model="scripted:a"))
    try:
        yield opened
    finally:
        await opened.aclose()


async def texts(ws: Workspace, thread_id: str) -> list[str]:
    return [m.text() for m in (await ws.threads.read_messages(thread_id)).messages]


async def test_a_hit_on_an_earlier_answer_names_its_branch_which_opens_it(
    ws: Workspace,
) -> None:
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "Bergen in June?"))
    await (await ws.runs.regenerate(thread.id))
    await (await ws.runs.regenerate(thread.id))
    assert await texts(ws, thread.id) == ["Bergen in June?", "Visit the fish market."]
    shown = await ws.threads.search("fish market")
    assert [(h.snippet, h.branch) for h in shown] == [
        ("Visit the \x02fish\x03 \x02market\x03.", None)
    ]
    hits = await ws.threads.search("raincoat")
    assert [(h.thread_id, h.role, h.snippet, h.branch) for h in hits] == [
        (thread.id, "assistant", "Take a \x02raincoat\x03 to Bergen.", 1)
    ]
    # words on the path shown and on versions left: the shown one first, each message once
    both = await ws.threads.search("Bergen")
    assert [(h.snippet, h.branch) for h in both] == [
        ("\x02Bergen\x03 in June?", None),
        ("Take a raincoat to \x02Bergen\x03.", 1),
        ("\x02Bergen\x03 has fjords.", 2),
    ]
    hit = hits[0]
    assert hit.branch is not None
    assert await ws.threads.open_branch(thread.id, hit.branch)
    assert await texts(ws, thread.id) == ["Bergen in June?", "Take a raincoat to Bergen."]
    # now that answer is shown, and the one left is found on its branch
    again = await ws.threads.search("fish")
    assert [(h.snippet, h.branch) for h in again] == [("Visit the \x02fish\x03 market.", 3)]


async def test_an_edited_questions_original_is_found_on_its_branch(ws: Workspace) -> None:
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "Tell me about trolls"))
    first = (await ws.threads.read_messages(thread.id)).messages[0]
    await (await ws.runs.send(thread.id, "Tell me about elves", edit=str(first.message_id)))
    hits = await ws.threads.search("trolls")
    assert [(h.role, h.branch) for h in hits] == [("user", 1)]
    # the terminal's search, which opens no workspace, finds it too
    saved = await search_saved(ws.data_dir, "trolls")
    assert [(h.thread_id, h.branch) for h in saved] == [(thread.id, 1)]
    assert [t.id for t in await saved_threads(ws.data_dir)] == [thread.id]
