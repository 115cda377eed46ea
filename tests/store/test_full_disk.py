"""A really full, or read-only, disk: opening says which, and listing and searching the
threads need neither room nor write access. Uses a small tmpfs, so it needs root."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.store import Store, StoreFullError, StoreNotWritableError
from tests.store.helpers import append_messages, fill_disk, mount

ROOT = Path(__file__).resolve().parents[2]


async def _two_threads(path: Path) -> None:
    async with Store.open(path) as store:
        await append_messages(store.checkpointer, "trip", ["plan a trip to Rome", "sure"])
        await append_messages(store.checkpointer, "food", ["pasta recipes please"])


def _cli_threads(disk: Path, *extra: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "app", "threads", "--data-dir", str(disk), *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    # a disk that cannot be written keeps no log files; saying so is the only thing on stderr
    notes = [line for line in done.stderr.splitlines() if "keeps no log files" not in line]
    assert done.returncode == 0 and not notes, done.stderr
    return done.stdout


async def test_opening_on_a_full_disk_says_the_disk_is_full(disk: Path) -> None:
    path = disk / "parley.db"
    await _two_threads(path)
    fill_disk(disk)
    with pytest.raises(StoreFullError, match=r"^The disk holding the thread database .* is full"):
        Store.open(path)


async def test_a_full_disk_still_lists_and_searches_threads(disk: Path) -> None:
    path = disk / "parley.db"
    await _two_threads(path)
    fill_disk(disk)
    async with Store.open(path, reading_is_enough=True) as store:
        assert isinstance(store.read_only, StoreFullError)
        assert sorted(t.id for t in await store.list_threads()) == ["food", "trip"]
        assert [h.snippet for h in await store.search("rome")] == ["plan a trip to [Rome]"]
        with pytest.raises(StoreFullError, match="is full"):
            await store.create_thread("one more")
    assert sorted(_cli_threads(disk).splitlines()) == [
        "food  pasta recipes please",
        "trip  plan a trip to Rome",
    ]
    assert _cli_threads(disk, "--search", "pasta") == "food  [pasta] recipes please\n"


async def test_a_read_only_disk_still_lists_threads(disk: Path) -> None:
    path = disk / "parley.db"
    await _two_threads(path)
    mount("-o", "remount,ro", str(disk))
    with pytest.raises(StoreNotWritableError):
        Store.open(path)
    async with Store.open(path, reading_is_enough=True) as store:
        assert isinstance(store.read_only, StoreNotWritableError)
        assert sorted(t.id for t in await store.list_threads()) == ["food", "trip"]
        assert await store.check() == []
    assert "trip  plan a trip to Rome\n" in _cli_threads(disk)


async def test_search_while_the_disk_fills_finds_what_the_index_has_not_taken_yet(
    disk: Path,
) -> None:
    async with Store.open(disk / "parley.db") as store:
        await append_messages(store.checkpointer, "trip", ["plan a trip to Rome", "sure"])
        fill_disk(disk)  # the two messages wait in the index's queue, which cannot be applied now
        hits = await store.search("rome")
        assert [(h.thread_id, h.snippet) for h in hits] == [("trip", "plan a trip to [Rome]")]
        assert await store.search("paris") == []
        os.remove(disk / "ballast")
