"""The data folder and the thread database are the user's alone: 0700 and 0600 when Parley
creates them, the database narrowed when an older one was readable by others."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.store import Store
from tests.file_modes import mode, usual_umask


@pytest.fixture(autouse=True)
def _umask() -> Iterator[None]:
    with usual_umask():
        yield


async def test_a_new_data_folder_and_its_database_are_private(tmp_path: Path) -> None:
    data = tmp_path / "new" / "parley"
    async with Store.open_data_dir(data) as store:
        await store.create_thread("private")
        names = sorted(p.name for p in data.iterdir())
        modes = {p.name: mode(p) for p in data.iterdir()}
    assert names == ["parley.db", "parley.db-shm", "parley.db-wal"]
    assert modes == {"parley.db": "0o600", "parley.db-shm": "0o600", "parley.db-wal": "0o600"}
    assert mode(data) == "0o700"
    assert mode(tmp_path / "new") == "0o700"  # created for it too


async def test_an_older_database_readable_by_others_is_narrowed(tmp_path: Path) -> None:
    async with Store.open_data_dir(tmp_path) as store:
        await store.create_thread("from before")
    for path in tmp_path.glob("parley.db*"):
        path.chmod(0o644)
    tmp_path.chmod(0o755)
    async with Store.open_data_dir(tmp_path) as store:
        assert [t.title for t in await store.list_threads()] == ["from before"]
        modes = {p.name: mode(p) for p in tmp_path.glob("parley.db*")}
    assert set(modes.values()) == {"0o600"}
    assert mode(tmp_path) == "0o755"  # a folder the user chose is theirs to share
