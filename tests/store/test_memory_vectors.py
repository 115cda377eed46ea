"""Memories' vectors in the thread database: a database of the version before them upgraded
in place with its memories (after the migration's backup), vectors kept per model, dropped by
an edit and by forgetting, never saved for a text the memory no longer holds, and a file not
migrated (opened for reading only) answering with none."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from app.store import SCHEMA_VERSION, MemoryRecord, Store, _schema
from app.store.backups import backups_folder, list_backups
from tests.store.helpers import scalar

UNIT = [1.0, 0.0, 0.0]
OTHER = [0.0, 1.0, 0.0]


def _memory(text: str, **fields: object) -> MemoryRecord:
    return MemoryRecord(id="", text=text, **fields)  # type: ignore[arg-type]


async def test_a_database_of_the_version_before_vectors_is_upgraded_with_its_memories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._memory_vectors)
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
        older.setattr(_schema, "SCHEMA_VERSION", mine)
        async with Store.open(path) as store:
            [kept] = await store.memories.add([_memory("The kettle is electric")])
    assert scalar(path, "SELECT count(*) FROM sqlite_master WHERE name = 'memory_vectors'") == 0
    async with Store.open(path) as store:
        assert await store.memories.missing_vectors("m1", 10) == [(kept.id, kept.text)]
        assert await store.memories.save_vectors("m1", [(kept.id, kept.text, UNIT)]) == 1
        assert await store.memories.missing_vectors("m1", 10) == []
        [(found, cosine)] = await store.memories.nearest("m1", UNIT, every=True)
        assert found.id == kept.id and math.isclose(cosine, 1.0)
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
    (backup,) = list_backups(backups_folder(path))
    assert backup.kind == "migration" and backup.schema_version == mine


async def test_a_vector_follows_its_memory_s_text_model_and_life(store: Store) -> None:
    [cat, sea] = await store.memories.add([_memory("a cat"), _memory("the sea")])
    made = [(cat.id, "a cat", UNIT), (sea.id, "the sea", OTHER)]
    assert await store.memories.save_vectors("m1", made) == 2
    near = await store.memories.nearest("m1", UNIT, every=True, floor=0.5)
    assert [m.id for m, _ in near] == [cat.id]  # the sea is under the floor
    # the vectors read are kept between searches, and read again once a pin changes
    await store.memories.set_flags(cat.id, pinned=True)
    assert await store.memories.nearest("m1", UNIT, every=True, floor=0.5, pinned=False) == []
    await store.memories.set_flags(cat.id, pinned=False)
    # another model's vectors count as missing, and are not searched
    assert {i for i, _ in await store.memories.missing_vectors("m2", 10)} == {cat.id, sea.id}
    assert await store.memories.nearest("m2", UNIT, every=True) == []
    # an edit drops the vector made of the old text; one made of it meanwhile is not saved
    await store.memories.edit(cat.id, "a harbour")
    assert await store.memories.missing_vectors("m1", 10) == [(cat.id, "a harbour")]
    assert await store.memories.save_vectors("m1", [(cat.id, "a cat", UNIT)]) == 0
    assert [m.id for m, _ in await store.memories.nearest("m1", UNIT, every=True)] == [sea.id]
    # forgetting a memory takes its vector
    await store.memories.forget(sea.id)
    assert await store.memories.vector_count("m1") == 0


async def test_a_file_from_before_vectors_opened_for_reading_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._memory_vectors)
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
        older.setattr(_schema, "SCHEMA_VERSION", mine)
        async with Store.open(path) as store:
            await store.memories.add([_memory("The kettle is electric")])
    async with Store.open_read_only(path) as store:
        assert await store.memories.missing_vectors("m1", 10) == []
        assert await store.memories.nearest("m1", UNIT, every=True) == []
        assert await store.memories.vector_count("m1") == 0
    assert scalar(path, "PRAGMA user_version") == mine
