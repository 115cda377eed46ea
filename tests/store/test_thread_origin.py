"""A thread keeps where it was started from when not in the window (``api``: through the
local server); a database from before that is upgraded, its threads started in the window."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.store import SCHEMA_VERSION, Store, _schema
from tests.store.helpers import older_thread, scalar


async def test_a_thread_keeps_its_origin_and_older_threads_have_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._thread_origin)
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
        older.setattr(_schema, "SCHEMA_VERSION", mine)
        async with Store.open(path) as store:
            before = await older_thread(store, "Asked in the window")
    async with Store.open(path) as store:
        old = await store.get_thread(before)
        assert old is not None and (old.title, old.origin) == ("Asked in the window", "")
        made = await store.create_thread("Asked by a script", origin="api")
        listed = {t.title: t.origin for t in await store.list_threads()}
        assert listed == {"Asked in the window": "", "Asked by a script": "api"}
        assert (await store.get_thread(made.id)) == made
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
