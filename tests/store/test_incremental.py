"""Only-changes writes really write only the change, and the search index stays in step."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from app.core.checkpoint import Checkpoint, StateChanges, new_checkpoint_id
from app.core.state import AgentState, Message, RemoveMessage, apply_update
from app.store import Store
from tests.core.checkpoint_contract import Saver, _random_update
from tests.store.helpers import append_messages, scalar


def _rows(path: Path) -> int:
    return int(scalar(path, "SELECT count(*) FROM messages"))


async def test_appending_to_a_long_thread_adds_one_row(store: Store) -> None:
    cp = store.checkpointer
    state = AgentState(context=[Message.text_message(f"m{i}") for i in range(1000)])
    first = new_checkpoint_id()
    await cp.aput(Checkpoint("t", first, None, 0, state), None)
    assert _rows(store.path) == 1000
    state, last = await append_messages(cp, "t", ["one more"], state=state, parent=first)
    assert _rows(store.path) == 1001
    assert scalar(store.path, "SELECT count(*) FROM messages WHERE valid_to IS NOT NULL") == 0
    edited = state.context[500].model_copy(update={"metadata": {"starred": True}})
    state = apply_update(state, edited)
    await cp.aput(
        Checkpoint("t", new_checkpoint_id(), last, 2, state),
        StateChanges(upserted=(edited.message_id,)),
    )
    assert _rows(store.path) == 1002
    assert scalar(store.path, "SELECT count(*) FROM messages WHERE valid_to IS NOT NULL") == 1
    assert scalar(store.path, "SELECT count(DISTINCT segment) FROM messages") == 1
    got = await cp.aget("t", AgentState)
    assert got is not None and got.state == state


async def test_resume_from_an_older_checkpoint_starts_a_snapshot(store: Store) -> None:
    cp = store.checkpointer
    await append_messages(cp, "t", ["a", "b", "c"])
    older = (await cp.alist("t"))[1]
    resumed = await cp.aget("t", AgentState, older.checkpoint_id)
    assert resumed is not None
    new_state = apply_update(resumed.state, Message.text_message("b'"))
    await cp.aput(
        Checkpoint("t", new_checkpoint_id(), older.checkpoint_id, 3, new_state, "resume"),
        None,  # resuming an older checkpoint writes the whole state, as the engine does
    )
    assert scalar(store.path, "SELECT count(DISTINCT segment) FROM messages") == 2
    got = await cp.aget("t", AgentState)
    assert got is not None and [m.text() for m in got.state.context] == ["a", "b", "b'"]
    assert [h.snippet for h in await store.search("c")] == []


async def test_search_index_matches_the_messages_after_random_steps(store: Store) -> None:
    rng = random.Random(7)
    saver = Saver(store.checkpointer, "t", AgentState())
    counter = [0]
    for _ in range(60):
        await saver.apply(_random_update(rng, saver.state, counter))
    hits = await store.search("lorem", limit=1000)  # brings the index up to date first
    conn = sqlite3.connect(store.path)
    try:
        conn.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)")
        indexed = conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0]
    finally:
        conn.close()
    assert indexed == sum(1 for m in saver.state.context if m.text())
    expected = {m.message_id for m in saver.state.context if "lorem" in m.text()}
    assert {h.message_id for h in hits} == expected


async def test_search_index_is_updated_in_batches(store: Store) -> None:
    from app.store._search_index import BATCH

    cp = store.checkpointer
    state, parent = await append_messages(cp, "t", ["start"])
    reply = Message.text_message("draft 0", role="assistant")
    for i in range(BATCH + 50):  # a reply replaced step after step, as when streaming
        reply = reply.model_copy(update={"content": Message.text_message(f"draft {i}").content})
        state = apply_update(state, reply)
        cid = new_checkpoint_id()
        await cp.aput(
            Checkpoint("t", cid, parent, i + 1, state), StateChanges(upserted=(reply.message_id,))
        )
        parent = cid
    assert scalar(store.path, "SELECT count(*) FROM fts_queue") < BATCH
    hits = await store.search("draft")
    assert [h.snippet for h in hits] == [f"[draft] {BATCH + 49}"]
    assert scalar(store.path, "SELECT count(*) FROM fts_queue") == 0
    assert scalar(store.path, "SELECT count(*) FROM messages_fts") == 2


async def test_a_moved_message_is_written_as_a_change(store: Store) -> None:
    cp = store.checkpointer
    state = AgentState(context=[Message.text_message(x, message_id=x) for x in "abc"])
    first = new_checkpoint_id()
    await cp.aput(Checkpoint("t", first, None, 0, state), None)
    state = apply_update(state, [RemoveMessage(id="a"), Message.text_message("a'", message_id="a")])
    moved = StateChanges(upserted=("a",), removed=("a",))  # removed, then added again
    second = new_checkpoint_id()
    await cp.aput(Checkpoint("t", second, first, 1, state), moved)
    got = await cp.aget("t", AgentState)
    assert got is not None and [m.text() for m in got.state.context] == ["b", "c", "a'"]
    assert scalar(store.path, "SELECT count(DISTINCT segment) FROM messages") == 1
    # reported as the graph's tracker reports it (upserted only), the move is still right
    state = apply_update(state, [RemoveMessage(id="b"), Message.text_message("b'", message_id="b")])
    await cp.aput(
        Checkpoint("t", new_checkpoint_id(), second, 2, state), StateChanges(upserted=("b",))
    )
    got = await cp.aget("t", AgentState)
    assert got is not None and [m.text() for m in got.state.context] == ["c", "a'", "b'"]
