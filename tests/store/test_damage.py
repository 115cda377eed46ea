"""Damaged bytes in the database file: a damaged message reads as such, the store's check
finds it, and any failure is one clear StoreError, never a raw sqlite3 traceback."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from app.core.state import AgentState, ErrorBlock
from app.store import Store, StoreError
from app.store._damage import DAMAGED
from tests.store.helpers import append_messages


def _damage_body(path: Path, text: str) -> None:
    """Put bytes that are not UTF-8 into the stored body of the message saying ``text``."""
    with sqlite3.connect(path) as conn:
        changed = conn.execute(
            "UPDATE messages SET body = CAST(CAST(body AS BLOB) || X'C328FF' AS TEXT) "
            "WHERE text = ?",
            (text,),
        ).rowcount
    conn.close()
    assert changed == 1


async def test_a_message_with_bytes_that_are_not_utf8_reads_as_damaged(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        await append_messages(store.checkpointer, "t", ["first words", "broken words", "last"])
    _damage_body(path, "broken words")
    async with Store.open(path) as store:
        latest = await store.checkpointer.aget("t", AgentState)
        assert latest is not None
        context = latest.state.context
        assert [m.text() for m in context] == ["first words", "", "last"]
        assert context[1].role == "assistant"
        assert context[1].content == [ErrorBlock(error=DAMAGED, code="damaged_message")]
        assert DAMAGED in await store.export_markdown("t")
        assert [h.snippet for h in await store.search("last")] == ["[last]"]
        problems = await store.check()
        broken = context[1].message_id
        assert problems == [f"Message {broken!r} of thread t is damaged and cannot be read."]
        # the thread goes on: a new turn saves and reads back with the damaged one in place
        await append_messages(store.checkpointer, "t", ["more"], latest.state, latest.checkpoint_id)
        again = await store.checkpointer.aget("t", AgentState)
        assert again is not None
        assert [m.text() for m in again.state.context] == ["first words", "", "last", "more"]


async def test_a_sound_database_passes_the_check(store: Store) -> None:
    await append_messages(store.checkpointer, "t", ["one", "two"])
    assert await store.check() == []


async def _real_database(path: Path) -> None:
    async with Store.open(path) as store:
        for n in range(4):
            texts = [f"message {i} of thread {n}: lorem ipsum dolor " * 5 for i in range(30)]
            await append_messages(store.checkpointer, f"thread-{n}", texts)
        await store.fork_thread("thread-0", title="a branch")
        await store.store_media(b"\x89PNG" + bytes(range(256)) * 8, "image/png")


async def _read_everything(path: Path) -> None:
    async with Store.open(path) as store:
        for thread in await store.list_threads(archived=None):
            await store.checkpointer.aget(thread.id, AgentState)
            await store.checkpointer.alist(thread.id)
            await store.checkpointer.apending_interrupts(thread.id)
            await store.export_markdown(thread.id)
            await store.export_json(thread.id)
        await store.search("lorem")
        await store.check()


@pytest.mark.parametrize("seed", range(40))
async def test_randomly_damaged_copies_fail_only_with_clear_errors(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, seed: int
) -> None:
    original = tmp_path_factory.getbasetemp() / "real.db"
    if not original.exists():
        await _real_database(original)
    copy = tmp_path / "parley.db"
    shutil.copyfile(original, copy)
    data = bytearray(copy.read_bytes())
    rng = random.Random(seed)
    for _ in range(rng.randint(1, 24)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    copy.write_bytes(bytes(data))
    failure: StoreError | None = None
    try:
        await _read_everything(copy)
    except StoreError as exc:
        failure = exc
    if failure is not None:
        assert str(failure) and "\n" not in str(failure) and "Traceback" not in str(failure)
        assert failure.path == copy


async def test_a_table_whose_schema_bytes_are_damaged_is_refused_as_damaged(
    tmp_path: Path,
) -> None:
    """A changed byte in a table's SQL (a column named otherwise) is damage: the file is
    refused in one sentence before anything reads a column that is not there."""
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        await store.create_thread(title="Kept")
    data = bytearray(path.read_bytes())
    at = data.index(b"message_count INTEGER")
    data[at] = ord("X")
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError) as refused:
        Store.open(path)
    assert str(refused.value).startswith(
        f'The thread database {path} is damaged: a changed table "threads" is not as Parley '
        "makes it. Nothing was changed in it."
    )
    assert refused.value.path == path
    assert path.read_bytes() == data
