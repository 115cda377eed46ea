"""``saved_threads`` and ``search_saved``: the threads of a data folder read without a
workspace (``parley threads``), from a real SQLite file. A full or read-only disk is in
``tests/store/test_full_disk.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.services.threads import saved_threads, search_saved
from app.store import Store
from tests.store.helpers import append_messages


async def _two_threads(data_dir: Path) -> None:
    async with Store.open(data_dir / "parley.db") as store:
        await append_messages(store.checkpointer, "trip", ["plan a trip to Rome", "sure"])
        await append_messages(store.checkpointer, "food", ["pasta recipes please"])


async def test_the_threads_of_a_data_folder_are_listed_and_searched(tmp_path: Path) -> None:
    await _two_threads(tmp_path)
    listed = await saved_threads(tmp_path)
    assert sorted((t.id, t.title) for t in listed) == [
        ("food", "pasta recipes please"),
        ("trip", "plan a trip to Rome"),
    ]
    hits = await search_saved(tmp_path, "rome")
    assert [(h.thread_id, h.snippet) for h in hits] == [("trip", "plan a trip to [Rome]")]
    assert await search_saved(tmp_path, "nowhere") == []


async def test_no_folder_given_reads_the_one_parley_data_dir_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _two_threads(tmp_path)
    monkeypatch.setenv("PARLEY_DATA_DIR", str(tmp_path))
    assert sorted(t.id for t in await saved_threads(None)) == ["food", "trip"]
