"""The branches table on real database files: a database from before branches is upgraded in
place and then keeps them, a path replaced is kept as a version whose tip is the step it was
left at, and deleting a thread takes its branches with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.checkpoint.base import Checkpoint, new_checkpoint_id
from app.core.state import AgentState, Message
from app.store import SCHEMA_VERSION, Store, _schema
from tests.store.helpers import append_messages, older_thread, scalar


async def replace_from(store: Store, thread_id: str, index: int, text: str) -> None:
    """Keep the path from message ``index`` on, then end the thread there with ``text``
    instead (as a regenerate or an edit does)."""
    latest = await store.checkpointer.aget(thread_id, AgentState)
    assert latest is not None
    await store.keep_branch(thread_id, latest.state.context[index].message_id)
    role = latest.state.context[index].role
    context = [*latest.state.context[:index], Message.text_message(text, role=role)]
    state = latest.state.model_copy(update={"context": context})
    cid = new_checkpoint_id()
    await store.checkpointer.aput(
        Checkpoint(thread_id, cid, latest.checkpoint_id, latest.step + 1, state), None
    )


async def shown(store: Store, thread_id: str) -> list[str]:
    page = await store.read_messages(thread_id)
    return [m.text() for m in page.messages]


async def test_a_database_from_before_branches_is_upgraded_and_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._branches)
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
        older.setattr(_schema, "SCHEMA_VERSION", mine)
        async with Store.open(path) as store:
            thread_id = await older_thread(store, "Before branches")
            await append_messages(store.checkpointer, thread_id, ["Question", "First answer"])
    assert scalar(path, "SELECT count(*) FROM sqlite_master WHERE name = 'branches'") == 0
    async with Store.open(path) as store:
        assert await store.branches(thread_id) == []
        await replace_from(store, thread_id, 1, "Second answer")
        tree = await store.branches(thread_id)
        assert [(b.index, b.count, b.line, b.shown, b.at) for b in tree] == [
            (1, 2, "First answer", False, 2),
            (2, 2, "Second answer", True, 2),
        ]
        assert [m.text() for m in await store.branch_path(thread_id, 1)] == [
            "Question",
            "First answer",
        ]
        assert store.removed_notice is None
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION


async def test_each_version_keeps_the_step_it_was_left_at(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "parley.db") as store:
        thread = await store.create_thread()
        await append_messages(store.checkpointer, thread.id, ["Hi", "Hello"])
        await replace_from(store, thread.id, 0, "Hey")  # an edited first question
        tree = await store.branches(thread.id)
        assert [(b.parent_id, b.line) for b in tree] == [(None, "Hi"), (None, "Hey")]
        hey = (await store.read_messages(thread.id)).messages[0]
        assert await store.switch_branch(thread.id, hey.message_id, 1)
        assert await shown(store, thread.id) == ["Hi", "Hello"]
        # going on in "Hi", then to "Hey" and back: "Hi" comes back as it was left
        latest = await store.checkpointer.aget(thread.id, AgentState)
        assert latest is not None
        await append_messages(
            store.checkpointer, thread.id, ["More?"], latest.state, latest.checkpoint_id
        )
        left = await store.checkpointer.aget(thread.id, AgentState)
        hi = (await store.read_messages(thread.id)).messages[0]
        assert await store.switch_branch(thread.id, hi.message_id, 2)
        assert await shown(store, thread.id) == ["Hey"]
        assert await store.switch_branch(thread.id, hey.message_id, 1)
        assert await shown(store, thread.id) == ["Hi", "Hello", "More?"]
        back = await store.checkpointer.aget(thread.id, AgentState)
        assert left is not None and back is not None
        assert back.state == left.state  # the very state it was left in, as a new step
        assert back.parent_id != left.checkpoint_id and back.source == "update"
        assert [h.thread_id for h in await store.search("More")] == [thread.id]
        # search finds the path shown, and a version left on its branch
        assert [h.branch for h in await store.search("More")] == [None]
        assert [h.branch for h in await store.search("Hey")] == [2]
        assert await store.check() == []  # and the index agrees with it


async def test_deleting_a_thread_takes_its_branches(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        thread = await store.create_thread()
        await append_messages(store.checkpointer, thread.id, ["Hi", "Hello"])
        await replace_from(store, thread.id, 1, "Hello again")
        assert scalar(path, "SELECT count(*) FROM branches") == 1
        await store.delete_thread(thread.id)
    assert scalar(path, "SELECT count(*) FROM branches") == 0
