"""The latest messages kept in memory: a long thread's next turn reads them without parsing,
and they are never stale: another store's write, an older checkpoint and a failed write all
read the file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.core.checkpoint import Checkpoint, StateChanges, new_checkpoint_id
from app.core.errors import UserError
from app.core.state import AgentState, Message, apply_update
from app.store import Store
from app.store._head_cache import HeadCache
from tests.store.helpers import append_messages


@pytest.fixture
async def remembering(tmp_path: Path) -> AsyncIterator[Store]:
    """A store that keeps the latest messages of three threads, as the app opens it."""
    async with Store.open(tmp_path / "parley.db", remember_latest=3) as opened:
        yield opened


def _cache(store: Store) -> HeadCache:
    cache = store.checkpointer.head_cache
    assert cache is not None
    return cache


def _texts(state: AgentState) -> list[str]:
    return [m.text() for m in state.context]


async def _read_fresh(path: Path, thread_id: str) -> AgentState:
    """The thread's latest state as a store that remembers nothing reads it from the file."""
    async with Store.open(path) as fresh:
        assert fresh.checkpointer.head_cache is None
        got = await fresh.checkpointer.aget(thread_id, AgentState)
    assert got is not None
    return got.state


async def test_the_next_turn_reads_what_was_written_without_parsing(remembering: Store) -> None:
    cp = remembering.checkpointer
    state, _ = await append_messages(cp, "t", [f"message {i}" for i in range(50)])
    cache = _cache(remembering)
    hits = cache.hits
    got = await cp.aget("t", AgentState)
    assert got is not None and cache.hits == hits + 1
    assert got.state == state == await _read_fresh(remembering.path, "t")
    got.state.context.pop()  # a reader changing its list changes nothing kept
    again = await cp.aget("t", AgentState)
    assert again is not None and len(again.state.context) == 50


async def test_another_stores_write_is_read_from_the_file(remembering: Store) -> None:
    cp = remembering.checkpointer
    state, last = await append_messages(cp, "t", ["a", "b"])
    async with Store.open(remembering.path) as other:  # as another process would write
        reply = Message.text_message("from elsewhere", role="assistant")
        await other.checkpointer.aput(
            Checkpoint("t", new_checkpoint_id(), last, 2, apply_update(state, reply)),
            StateChanges(upserted=(reply.message_id,)),
        )
    got = await cp.aget("t", AgentState)
    assert got is not None and _texts(got.state) == ["a", "b", "from elsewhere"]


async def test_an_older_checkpoint_is_read_from_the_file(remembering: Store) -> None:
    cp = remembering.checkpointer
    await append_messages(cp, "t", ["a", "b", "c"])
    older = (await cp.alist("t"))[1]
    got = await cp.aget("t", AgentState, older.checkpoint_id)
    assert got is not None and _texts(got.state) == ["a", "b"]
    latest = await cp.aget("t", AgentState)
    assert latest is not None and _texts(latest.state) == ["a", "b", "c"]


async def test_a_refused_write_leaves_nothing_stale(remembering: Store) -> None:
    cp = remembering.checkpointer
    state, last = await append_messages(cp, "t", ["a", "b"])
    extra = Message.text_message("never saved")
    with pytest.raises(UserError, match="already exists"):
        await cp.aput(Checkpoint("t", last, last, 3, apply_update(state, extra)), None)
    got = await cp.aget("t", AgentState)
    assert got is not None and _texts(got.state) == ["a", "b"]
    assert got.state == await _read_fresh(remembering.path, "t")


async def test_only_the_threads_used_last_are_kept(remembering: Store) -> None:
    cp = remembering.checkpointer
    for name in ("t1", "t2", "t3", "t4"):
        await append_messages(cp, name, [f"{name} says hi"])
    cache = _cache(remembering)
    misses = cache.misses
    first = await cp.aget("t1", AgentState)  # the oldest of four, no longer kept
    assert first is not None and _texts(first.state) == ["t1 says hi"]
    assert cache.misses == misses + 1
    fourth = await cp.aget("t4", AgentState)
    assert fourth is not None and cache.misses == misses + 1
