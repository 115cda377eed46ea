"""The database health check: SQLite's quick check on real files, healthy and damaged."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.store import SCHEMA_VERSION, Store, StoreNotWritableError, check_database
from tests.store.damage import damage_first_thread, make_database


async def test_a_healthy_database(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        await store.create_thread("one", model="local")
        await store.create_thread("two", model="ollama:qwen3")
    health = check_database(path)
    assert health.healthy and health.exists
    assert health.problems == ()
    assert health.schema_version == SCHEMA_VERSION
    assert health.thread_count == 2
    assert health.models == ("local", "ollama:qwen3")
    assert health.size_bytes == path.stat().st_size
    assert health.summary() == f"The thread database {path} is healthy (SQLite quick check: ok)."


def test_no_database_yet_is_healthy_and_creates_nothing(tmp_path: Path) -> None:
    health = check_database(tmp_path / "parley.db")
    assert health.healthy and not health.exists
    assert health.summary().startswith("There is no thread database at")
    assert list(tmp_path.iterdir()) == []


async def test_a_damaged_database_is_reported_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    await make_database(path)
    damage_first_thread(path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    health = check_database(path)
    assert not health.healthy
    assert "invalid page number 8388607" in health.problems[0]
    assert health.summary().startswith(
        f"The thread database {path} is damaged (SQLite quick check:"
    )
    assert "parley doctor --export FOLDER" in health.summary()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    # SQLite may add its shared-memory and empty log files beside it; nothing else appears
    assert {p.name for p in tmp_path.iterdir()} <= {"parley.db", "parley.db-wal", "parley.db-shm"}


def test_a_file_that_is_not_sqlite_is_damaged_not_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    path.write_bytes(b"hello, not a database" * 300)
    health = check_database(path)
    assert not health.healthy
    assert health.problems == ("file is not a database",)
    assert path.read_bytes() == b"hello, not a database" * 300


async def test_the_store_opens_a_copy_read_only(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    ids = await make_database(path, threads=2)
    before = path.read_bytes()
    async with Store.open_read_only(path) as store:
        assert [t.id for t in await store.list_threads()] == ids[::-1]
        assert "word-1" in await store.export_markdown(ids[1])
        with pytest.raises(StoreNotWritableError, match="reading only"):
            await store.create_thread("not saved")
    assert path.read_bytes() == before
