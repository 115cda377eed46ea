"""Schema versions: a new file gets the current schema, later versions migrate in order."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from app.core.state import AgentState
from app.store import SCHEMA_VERSION, Store, StoreSchemaTooNewError, _schema
from tests.store.helpers import append_messages, scalar


def test_a_new_file_has_the_current_schema_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    with Store.open(path):
        assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
        assert scalar(path, "PRAGMA application_id") == _schema.APPLICATION_ID
        assert scalar(path, "PRAGMA journal_mode") == "wal"


async def test_a_later_migration_runs_once_and_keeps_the_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        await append_messages(store.checkpointer, "t", ["before the upgrade"])

    def v2(db: sqlite_utils.Database) -> None:
        db.conn.execute("CREATE TABLE bookmarks (thread_id TEXT, note TEXT)")

    monkeypatch.setattr(_schema, "MIGRATIONS", [*_schema.MIGRATIONS, v2])
    monkeypatch.setattr(_schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    for _ in range(2):  # the second open finds nothing to do
        async with Store.open(path) as store:
            got = await store.checkpointer.aget("t", AgentState)
            assert got is not None
            assert [m.text() for m in got.state.context] == ["before the upgrade"]
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION + 1
    assert scalar(path, "SELECT count(*) FROM sqlite_master WHERE name = 'bookmarks'") == 1
    monkeypatch.undo()
    with pytest.raises(StoreSchemaTooNewError):
        Store.open(path)
