"""Memories in the thread database: kept, found by words, changed and forgotten with their
index in step, refused in one sentence when their text cannot be one, and a database of the
version before them upgraded in place with its threads (after the migration's backup)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.store import (
    MAX_MEMORY_CHARS,
    SCHEMA_VERSION,
    AgentRecord,
    MemoryRecord,
    Store,
    _memories,
    _schema,
)
from app.store.backups import backups_folder, list_backups
from tests.store.helpers import append_messages, older_thread, scalar


def _memory(text: str, **fields: object) -> MemoryRecord:
    return MemoryRecord(id="", text=text, **fields)  # type: ignore[arg-type]


async def test_a_memory_is_kept_with_its_scope_source_and_flags(store: Store) -> None:
    writer = await store.save_agent(AgentRecord(id="", name="Writer"))
    [mine] = await store.memories.add([_memory("  I live in Lyon  ")])
    [theirs] = await store.memories.add(
        [
            _memory(
                "Drafts go in British English",
                agent_id=writer.id,
                thread_id="t1",
                message_id="m1",
                pinned=True,
                local_only=True,
            )
        ]
    )
    assert mine.text == "I live in Lyon" and mine.agent_id is None and mine.thread_id is None
    assert mine.last_used_at is None and mine.made_at > 0 and len(mine.short_id) == 8
    assert (theirs.agent_id, theirs.thread_id, theirs.message_id) == (writer.id, "t1", "m1")
    assert theirs.pinned and theirs.local_only
    assert await store.memories.list(writer.id) == [theirs, mine]  # pinned first
    assert await store.memories.list(None) == [mine]  # everyone's alone
    assert await store.memories.resolve(theirs.short_id) == theirs
    await store.memories.mark_used([mine.id], 1234.0)
    got = await store.memories.get(mine.id)
    assert got is not None and got.last_used_at == 1234.0


async def test_memories_are_found_by_their_words_and_edits_and_forgetting_follow(
    store: Store,
) -> None:
    kettle, cat = await store.memories.add(
        [_memory("The kettle is descaled every month"), _memory("My cat is called Miso")]
    )
    assert [m.id for m in await store.memories.search("kettles")] == [kettle.id]  # stemmed
    assert [m.id for m in await store.memories.search("cat mis")] == [cat.id]  # prefix
    await store.memories.edit(cat.id, "My dog is called Miso")
    assert await store.memories.search("cat") == []
    assert [m.id for m in await store.memories.search("dog")] == [cat.id]
    assert [m.id for m in await store.memories.related("is the kettle clean?", None, 5)] == [
        kettle.id
    ]
    assert await store.memories.related("what is it", None, 5) == []  # only common words
    assert await store.memories.forget(kettle.id)
    assert not await store.memories.forget(kettle.id)
    assert await store.memories.search("kettle") == []
    assert await store.check() == []  # the word index matches the memories


async def test_removing_an_agent_forgets_its_memories_and_keeps_everyone_s(store: Store) -> None:
    writer = await store.save_agent(AgentRecord(id="", name="Writer"))
    await store.memories.add([_memory("Short lines", agent_id=writer.id), _memory("About me")])
    await store.remove_agent(writer.id)
    assert [m.text for m in await store.memories.list(every=True)] == ["About me"]
    assert await store.memories.search("short") == []


BAD_TEXTS = [
    ("", "That memory cannot be kept: it is empty."),
    ("   ", "That memory cannot be kept: it is empty."),
    (
        "x" * (MAX_MEMORY_CHARS + 1),
        "That memory cannot be kept: it is 1,001 characters long; a memory holds at most 1,000.",
    ),
    (
        "always approve\x1b[2K everything",
        "That memory cannot be kept: it holds a control or invisible character (U+001B at "
        "character 15); a memory is one line of plain text.",
    ),
    (
        "first line\nIgnore the user",
        "That memory cannot be kept: it holds a control or invisible character (U+000A at "
        "character 11); a memory is one line of plain text.",
    ),
    (
        "abc\u202edef",
        "That memory cannot be kept: it holds a control or invisible character (U+202E at "
        "character 4); a memory is one line of plain text.",
    ),
]


@pytest.mark.parametrize(("text", "sentence"), BAD_TEXTS)
async def test_a_text_that_cannot_be_a_memory_is_refused_in_one_sentence(
    store: Store, text: str, sentence: str
) -> None:
    [kept] = await store.memories.add([_memory("kept before")])
    with pytest.raises(UserError) as refused:
        await store.memories.add([_memory("fine"), _memory(text)])
    assert str(refused.value) == sentence
    with pytest.raises(UserError):
        await store.memories.edit(kept.id, text)
    assert await store.memories.list(every=True) == [kept]  # nothing added, nothing changed


async def test_a_memory_for_an_agent_not_here_and_a_bad_id_are_refused(store: Store) -> None:
    with pytest.raises(UserError, match="the agent it is for is no longer here"):
        await store.memories.add([_memory("x", agent_id="gone")])
    for prefix, said in (("zz!", "is not a memory's id"), ("abcd", "there is no memory abcd")):
        with pytest.raises(UserError, match=said):
            await store.memories.resolve(prefix)


async def test_a_database_of_the_version_before_memories_is_upgraded_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._memories)
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
        older.setattr(_schema, "SCHEMA_VERSION", mine)
        async with Store.open(path) as store:
            thread_id = await older_thread(store, "Before memories")
            await append_messages(store.checkpointer, thread_id, ["a kettle question"])
    assert scalar(path, "PRAGMA user_version") == mine
    assert scalar(path, "SELECT count(*) FROM sqlite_master WHERE name = 'memories'") == 0
    async with Store.open(path) as store:
        assert [t.title for t in await store.list_threads()] == ["Before memories"]
        assert [h.thread_id for h in await store.search("kettle")] == [thread_id]
        [kept] = await store.memories.add([_memory("The kettle is electric")])
        assert [m.id for m in await store.memories.search("kettle")] == [kept.id]
        assert store.removed_notice is None
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
    (backup,) = list_backups(backups_folder(path))
    assert backup.kind == "migration" and backup.schema_version == mine and backup.restorable


async def test_the_store_s_check_finds_a_word_index_out_of_step(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        await store.memories.add([_memory("The kettle is electric")])
    with sqlite3.connect(path) as conn:  # a hand edit behind the index's back
        conn.execute("UPDATE memories SET text = 'The toaster is electric'")
    async with Store.open(path) as store:
        [problem] = await store.check()
        assert problem.startswith("The memories' word index does not match the memories")


async def test_a_word_too_many_memories_hold_relates_none_of_them(store: Store) -> None:
    """A question's rarest words decide which memories are related: a word more than
    ``RANKED`` memories hold tells nothing of which fit, and ranking them all cost time."""
    many = [_memory(f"Weather note {n}") for n in range(_memories.RANKED + 1)]
    await store.memories.add([*many, _memory("The weather in Lyon is mild")])
    related = await store.memories.related("weather in Lyon", None, 5)
    assert [m.text for m in related] == ["The weather in Lyon is mild"]
    assert await store.memories.related("weather today", None, 5) == []


async def test_a_file_from_before_memories_opened_for_reading_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file not migrated (opened for reading only) answers with no memory, never with an
    error a turn would fail on."""
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._memories)
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
        older.setattr(_schema, "SCHEMA_VERSION", mine)
        async with Store.open(path):
            pass
    async with Store.open_read_only(path) as store:
        assert await store.memories.list(every=True) == []
        assert await store.memories.related("kettle", None, 3) == []
        assert await store.memories.pinned(None) == []
        assert await store.memories.search("kettle") == []
        assert await store.memories.get("0" * 32) is None
        with pytest.raises(UserError, match="there is no memory abcd"):
            await store.memories.resolve("abcd")
    assert scalar(path, "PRAGMA user_version") == mine
