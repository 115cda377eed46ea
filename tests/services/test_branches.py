"""Branches within one thread, through the workspace on a real database file: a regenerated
answer and an edited question stay as versions of their message, the thread shows one path
and can be switched to any other, remembers the one shown after reopening, and loses nothing
whichever way it is walked."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.core.state import AgentState
from app.services.settings import AppSettings
from app.services.workspace import Workspace


async def _open(tmp_path: Path, answers: list[str]) -> Workspace:
    model = ScriptedChatModel([{"text": a} for a in answers])
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda _s: model, secret_resolver=lambda _r: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    return ws


@pytest.fixture
async def ws(tmp_path: Path) -> AsyncIterator[Workspace]:
    opened = await _open(tmp_path, [f"Answer {i}." for i in range(1, 20)])
    try:
        yield opened
    finally:
        await opened.aclose()


async def texts(ws: Workspace, thread_id: str) -> list[str]:
    page = await ws.threads.read_messages(thread_id)
    return [m.text() for m in page.messages]


async def test_regenerating_twice_keeps_three_answers_to_walk(ws: Workspace) -> None:
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "Question"))
    await (await ws.runs.regenerate(thread.id))
    await (await ws.runs.regenerate(thread.id))
    assert await texts(ws, thread.id) == ["Question", "Answer 3."]
    tree = await ws.threads.branches(thread.id)
    assert [(b.index, b.count, b.line, b.shown) for b in tree] == [
        (1, 3, "Answer 1.", False),
        (2, 3, "Answer 2.", False),
        (3, 3, "Answer 3.", True),
    ]
    for branch in tree:  # each dated when its first message was made
        path = await ws.threads.branch_path(thread.id, branch.number)
        assert branch.created_at == path[-1].timestamp
    shown = (await ws.threads.read_messages(thread.id)).messages[-1]
    assert await ws.threads.switch_branch(thread.id, str(shown.message_id), 1)
    assert await texts(ws, thread.id) == ["Question", "Answer 1."]
    first = (await ws.threads.read_messages(thread.id)).messages[-1]
    assert await ws.threads.switch_branch(thread.id, str(first.message_id), 2)
    assert await texts(ws, thread.id) == ["Question", "Answer 2."]
    second = (await ws.threads.read_messages(thread.id)).messages[-1]
    assert await ws.threads.switch_branch(thread.id, str(second.message_id), 3)
    assert await texts(ws, thread.id) == ["Question", "Answer 3."]
    assert [b.line for b in await ws.threads.branches(thread.id)] == [
        "Answer 1.",
        "Answer 2.",
        "Answer 3.",
    ]
    assert not await ws.threads.switch_branch(thread.id, str(shown.message_id), 3)
    with pytest.raises(UserError, match="has 3 versions; there is no version 4"):
        await ws.threads.switch_branch(thread.id, str(shown.message_id), 4)


async def test_editing_a_question_branches_in_the_same_thread(ws: Workspace) -> None:
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "Tell me about cats"))
    await (await ws.runs.send(thread.id, "And their food?"))
    first = (await ws.threads.read_messages(thread.id)).messages[0]
    before = len(await ws.threads.list_all())
    await (await ws.runs.send(thread.id, "Tell me about dogs", edit=str(first.message_id)))
    assert len(await ws.threads.list_all()) == before  # no new thread
    assert await texts(ws, thread.id) == ["Tell me about dogs", "Answer 3."]
    tree = await ws.threads.branches(thread.id)
    assert [(b.index, b.count, b.line, b.shown, b.length) for b in tree] == [
        (1, 2, "Tell me about cats", False, 4),
        (2, 2, "Tell me about dogs", True, 2),
    ]
    dogs = (await ws.threads.read_messages(thread.id)).messages[0]
    await ws.threads.switch_branch(thread.id, str(dogs.message_id), 1)
    assert await texts(ws, thread.id) == [
        "Tell me about cats",
        "Answer 1.",
        "And their food?",
        "Answer 2.",
    ]
    # sending in the original goes on in it; the edited path stays as it was
    await (await ws.runs.send(thread.id, "Thanks"))
    path = await ws.threads.branch_path(thread.id, 2)
    assert [m.text() for m in path] == ["Tell me about dogs", "Answer 3."]
    assert [m.text() for m in await ws.threads.branch_path(thread.id, 1)][-2:] == [
        "Thanks",
        "Answer 4.",
    ]


async def test_a_regenerate_inside_an_edit_is_a_branch_of_that_branch(ws: Workspace) -> None:
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "One"))
    await (await ws.runs.send(thread.id, "Two"))
    await (await ws.runs.regenerate(thread.id))  # Two: Answer 2. / Answer 3.
    one = (await ws.threads.read_messages(thread.id)).messages[0]
    await (await ws.runs.send(thread.id, "Uno", edit=str(one.message_id)))  # Answer 4.
    tree = await ws.threads.branches(thread.id)
    assert [(b.depth, b.index, b.count, b.line, b.shown) for b in tree] == [
        (0, 1, 2, "One", False),
        (1, 1, 2, "Answer 2.", False),
        (1, 2, 2, "Answer 3.", False),
        (0, 2, 2, "Uno", True),
    ]
    assert [m.text() for m in await ws.threads.branch_path(thread.id, 2)] == [
        "One",
        "Answer 1.",
        "Two",
        "Answer 2.",
    ]
    uno = (await ws.threads.read_messages(thread.id)).messages[0]
    await ws.threads.switch_branch(thread.id, str(uno.message_id), 1)
    # back in "One", the answer shown last in it (Answer 3.) is shown again
    assert await texts(ws, thread.id) == ["One", "Answer 1.", "Two", "Answer 3."]
    assert [b.shown for b in await ws.threads.branches(thread.id)] == [True, False, True, False]


async def test_the_branch_shown_last_is_shown_after_reopening(tmp_path: Path) -> None:
    ws = await _open(tmp_path, ["First.", "Second."])
    try:
        thread = await ws.threads.create()
        await (await ws.runs.send(thread.id, "Question"))
        await (await ws.runs.regenerate(thread.id))
        second = (await ws.threads.read_messages(thread.id)).messages[-1]
        await ws.threads.switch_branch(thread.id, str(second.message_id), 1)
    finally:
        await ws.aclose()
    ws = await _open(tmp_path, [])
    try:
        assert await texts(ws, thread.id) == ["Question", "First."]
        assert [(b.line, b.shown) for b in await ws.threads.branches(thread.id)] == [
            ("First.", True),
            ("Second.", False),
        ]
        hits = await ws.threads.search("Second")
        assert [h.branch for h in hits] == [2]  # on the version not shown, which it names
    finally:
        await ws.aclose()


async def test_a_thread_without_branches_has_none_and_a_bad_number_is_named(
    ws: Workspace,
) -> None:
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "Question"))
    assert await ws.threads.branches(thread.id) == []
    with pytest.raises(UserError, match="has no branches; there is no branch 2"):
        await ws.threads.branch_path(thread.id, 2)
    only = (await ws.threads.read_messages(thread.id)).messages[-1]
    with pytest.raises(UserError, match="no other versions"):
        await ws.threads.switch_branch(thread.id, str(only.message_id), 1)


async def test_an_export_whose_branches_are_damaged_adds_nothing(ws: Workspace) -> None:
    import json

    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "Question"))
    await (await ws.runs.regenerate(thread.id))
    doc = json.loads(await ws.threads.export(thread.id, "json"))
    assert doc["version"] == 2 and len(doc["branches"]) == 1
    before = len(await ws.threads.list_all())
    for branches, why in (
        ([{**doc["branches"][0], "within": 0}], "branch 1's 'within' does not name an earlier"),
        ([doc["branches"][0]] * 2, "branch 2 has the same place as an earlier one"),
        ([{**doc["branches"][0], "n": 0}], "branch 1's 'n' is not a number from 1"),
        ("many", "the 'branches' field is not a list"),
    ):
        with pytest.raises(UserError, match=why):
            await ws.threads.import_json(json.dumps({**doc, "branches": branches}).encode())
    assert len(await ws.threads.list_all()) == before


async def test_a_failed_reply_answered_again_is_not_kept_as_a_version(tmp_path: Path) -> None:
    model = ScriptedChatModel([{"error": "the server went away"}, {"text": "Back again."}])
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda _s: model, secret_resolver=lambda _r: ""
    )
    try:
        ws.settings.use(AppSettings(default_model="scripted:a"))
        thread = await ws.threads.create()
        await (await ws.runs.send(thread.id, "Hello?"))
        assert "the server went away" in str((await ws.threads.read_messages(thread.id)).messages)
        await (await ws.runs.regenerate(thread.id))
        assert await texts(ws, thread.id) == ["Hello?", "Back again."]
        assert await ws.threads.branches(thread.id) == []
    finally:
        await ws.aclose()


async def test_any_branch_of_the_tree_opens_where_it_was_left_and_takes_a_name(
    ws: Workspace,
) -> None:
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "One"))
    await (await ws.runs.send(thread.id, "Two"))
    await (await ws.runs.regenerate(thread.id))  # Two: Answer 2. / Answer 3.
    one = (await ws.threads.read_messages(thread.id)).messages[0]
    await (await ws.runs.send(thread.id, "Uno", edit=str(one.message_id)))  # Answer 4.
    # branch 2 (Answer 2.) lies inside "One", which is not shown: opening it shows both
    assert await ws.threads.open_branch(thread.id, 2)
    assert await texts(ws, thread.id) == ["One", "Answer 1.", "Two", "Answer 2."]
    assert not await ws.threads.open_branch(thread.id, 2)
    assert [b.shown for b in await ws.threads.branches(thread.id)] == [True, True, False, False]
    await ws.threads.rename_branch(thread.id, 4, "  in  Spanish ")
    assert [b.name for b in await ws.threads.branches(thread.id)] == ["", "", "", "in Spanish"]
    with pytest.raises(UserError, match="has 4 branches; there is no branch 5"):
        await ws.threads.open_branch(thread.id, 5)
    assert await ws.threads.open_branch(thread.id, 4)
    assert await texts(ws, thread.id) == ["Uno", "Answer 4."]


async def test_deleting_a_branch_takes_the_branches_inside_it_and_undo_puts_them_back(
    ws: Workspace,
) -> None:
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "One"))
    await (await ws.runs.send(thread.id, "Two"))
    await (await ws.runs.regenerate(thread.id))  # Two: Answer 2. / Answer 3.
    one = (await ws.threads.read_messages(thread.id)).messages[0]
    await (await ws.runs.send(thread.id, "Uno", edit=str(one.message_id)))  # Answer 4.
    uno = (await ws.threads.read_messages(thread.id)).messages[0]
    await (await ws.runs.send(thread.id, "Dos", edit=str(uno.message_id)))  # Answer 5.
    before = [(b.depth, b.index, b.count, b.line) for b in await ws.threads.branches(thread.id)]
    assert before == [
        (0, 1, 3, "One"),
        (1, 1, 2, "Answer 2."),
        (1, 2, 2, "Answer 3."),
        (0, 2, 3, "Uno"),
        (0, 3, 3, "Dos"),
    ]
    with pytest.raises(UserError, match="branch 5 is shown now; open another version"):
        await ws.threads.delete_branch(thread.id, 5)
    undo = await ws.threads.delete_branch(thread.id, 1)  # "One", with its two answers
    after = [(b.depth, b.index, b.count, b.line) for b in await ws.threads.branches(thread.id)]
    assert after == [(0, 1, 2, "Uno"), (0, 2, 2, "Dos")]
    assert await texts(ws, thread.id) == ["Dos", "Answer 5."]
    await undo()
    back = [(b.depth, b.index, b.count, b.line) for b in await ws.threads.branches(thread.id)]
    assert back == before
    assert [m.text() for m in await ws.threads.branch_path(thread.id, 3)] == [
        "One",
        "Answer 1.",
        "Two",
        "Answer 3.",
    ]


async def test_walking_answers_on_a_long_thread_writes_only_what_differs(ws: Workspace) -> None:
    thread = await ws.threads.create()
    for n in range(1, 4):
        await (await ws.runs.send(thread.id, f"Question {n}"))
    await (await ws.runs.regenerate(thread.id))
    await (await ws.runs.regenerate(thread.id))
    store = ws._store
    steps = await store.checkpointer.alist(thread.id)
    before = {
        s.checkpoint_id: await store.checkpointer.aget(thread.id, AgentState, s.checkpoint_id)
        for s in steps
    }

    def rows() -> int:
        with sqlite3.connect(store.path) as conn:
            return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])

    start = ["Question 1", "Answer 1.", "Question 2", "Answer 2.", "Question 3"]
    for version, answer in [(1, "Answer 3."), (3, "Answer 5."), (2, "Answer 4."), (1, "Answer 3.")]:
        shown = (await ws.threads.read_messages(thread.id)).messages[-1]
        written = rows()
        assert await ws.threads.switch_branch(thread.id, str(shown.message_id), version)
        assert await texts(ws, thread.id) == [*start, answer]
        assert rows() - written == 1  # the answer shown again, not the thread copied
        now = (await ws.threads.read_messages(thread.id)).messages[-1]
        shown = [h.message_id for h in await store.search(answer) if h.branch is None]
        assert shown == [now.message_id]  # the full-text index holds the path shown
        for other in {"Answer 3.", "Answer 4.", "Answer 5."} - {answer}:
            hits = await store.search(other)  # a version hidden is found on its branch
            assert hits and all(h.branch is not None for h in hits)
    for cid, state in before.items():  # every earlier step keeps its exact state
        assert await store.checkpointer.aget(thread.id, AgentState, cid) == state
    await (await ws.runs.send(thread.id, "Question 4"))
    assert (await texts(ws, thread.id))[-3:] == ["Answer 3.", "Question 4", "Answer 6."]
    assert await store.check() == []  # the search index agrees with the messages
