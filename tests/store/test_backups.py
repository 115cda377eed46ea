"""Backups of the thread database: consistent under a writing process, taken before every
migration, rotated as documented, restored only when sound, private, and one sentence on
every failure."""

from __future__ import annotations

import asyncio
import datetime
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlite_utils

from app.core.state import AgentState
from app.store import SCHEMA_VERSION, Store, StoreError, StoreLockedError, _schema
from app.store.backups import (
    BackupEntry,
    BackupError,
    backup_database,
    backup_name,
    backups_folder,
    inspect_backup,
    list_backups,
    restore_backup,
    rotate_backups,
    to_prune,
)
from tests.store.helpers import append_messages, fill_disk, mount, scalar

ROOT = Path(__file__).resolve().parents[2]


def _reported(report: Path) -> list[tuple[str, int]]:
    if not report.exists():
        return []
    lines = report.read_text().splitlines()
    return [(cid, int(n)) for cid, n in (line.split() for line in lines if line.count(" ") == 1)]


def _backups_while_writing(db: Path, report: Path, folder: Path) -> list[tuple[int, Path]]:
    """Start a process writing turns, take five backups while it writes, stop it; each
    backup with the number of turns that had finished before it began."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.store._durability_child", str(db), str(report)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    backups: list[tuple[int, Path]] = []
    try:
        deadline = time.monotonic() + 60
        while len(_reported(report)) < 20:
            assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
            assert time.monotonic() < deadline, "the writer made no progress"
            time.sleep(0.01)
        for n in range(5):
            finished = len(_reported(report))
            backups.append((finished, backup_database(db, folder / f"b{n}.db")))
            time.sleep(0.05)
        assert child.poll() is None, "the writer stopped while backups were taken"
    finally:
        child.kill()
        child.wait()
        if child.stderr:
            child.stderr.close()
    return backups


async def test_a_backup_taken_while_another_process_writes_turns_is_consistent(
    tmp_path: Path,
) -> None:
    db, report = tmp_path / "parley.db", tmp_path / "committed.txt"
    backups = await asyncio.to_thread(_backups_while_writing, db, report, tmp_path / "copies")
    committed = _reported(report)
    for finished, copy in backups:
        assert scalar(copy, "PRAGMA integrity_check") == "ok"
        assert not copy.with_name(copy.name + "-wal").exists()  # one self-contained file
        async with Store.open_read_only(copy) as store:
            got = await store.checkpointer.aget("t", AgentState)
        assert got is not None
        ids = [cid for cid, _ in committed]
        # the copy is exactly one committed turn, no earlier than what had finished
        assert got.checkpoint_id in ids
        assert ids.index(got.checkpoint_id) + 1 >= finished
        assert len(got.state.context) == dict(committed)[got.checkpoint_id]
        assert got.state.context[-1].text().startswith(f"step {got.step} ")


async def test_a_migration_first_leaves_a_backup_named_for_the_old_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    with monkeypatch.context() as older:  # a database written by the version before
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:-1])
        older.setattr(_schema, "SCHEMA_VERSION", SCHEMA_VERSION - 1)
        async with Store.open(path) as store:
            await append_messages(store.checkpointer, "t", ["kept across the upgrade"])
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION - 1

    async with Store.open(path) as store:
        got = await store.checkpointer.aget("t", AgentState)
    assert got is not None and got.state.context[-1].text() == "kept across the upgrade"
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
    entries = list_backups(backups_folder(path))
    assert [e.kind for e in entries] == ["migration"]
    (entry,) = entries
    today = f"{datetime.date.today():%Y%m%d}"
    assert re.fullmatch(
        rf"parley-v{SCHEMA_VERSION - 1}-{today}-\d{{6}}-migration\.db", entry.path.name
    )
    assert entry.schema_version == SCHEMA_VERSION - 1
    assert entry.healthy and entry.thread_count == 1
    async with Store.open_read_only(entry.path) as old:
        got = await old.checkpointer.aget("t", AgentState)
    assert got is not None and got.state.context[-1].text() == "kept across the upgrade"
    # opening again migrates nothing, so no second backup
    async with Store.open(path):
        pass
    assert len(list_backups(backups_folder(path))) == 1
    # a new database has nothing to back up
    async with Store.open(tmp_path / "new" / "parley.db"):
        pass
    assert not backups_folder(tmp_path / "new" / "parley.db").exists()


async def test_a_failing_migration_leaves_the_original_intact_and_names_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        await append_messages(store.checkpointer, "t", ["before the upgrade"])

    def v_next(db: sqlite_utils.Database) -> None:
        db.conn.execute("CREATE TABLE bookmarks (note TEXT)")

    def v_broken(db: sqlite_utils.Database) -> None:
        db.conn.execute("ALTER TABLE no_such_table ADD COLUMN x")

    monkeypatch.setattr(_schema, "MIGRATIONS", [*_schema.MIGRATIONS, v_next, v_broken])
    monkeypatch.setattr(_schema, "SCHEMA_VERSION", SCHEMA_VERSION + 2)
    with pytest.raises(StoreError) as failed:
        Store.open(path)
    monkeypatch.undo()
    (entry,) = list_backups(backups_folder(path))
    message = str(failed.value)
    assert "could not update the thread database" in message
    assert "Nothing in it was changed" in message
    assert str(entry.path) in message
    # every migration or none: the first one's table is not there either
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
    assert scalar(path, "SELECT count(*) FROM sqlite_master WHERE name = 'bookmarks'") == 0
    assert scalar(path, "PRAGMA integrity_check") == "ok"
    async with Store.open(path) as store:
        got = await store.checkpointer.aget("t", AgentState)
    assert got is not None and got.state.context[-1].text() == "before the upgrade"


async def test_restore_brings_back_a_thread_deleted_after_the_backup(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        kept = await store.create_thread(title="Holiday plans")
        await append_messages(store.checkpointer, kept.id, ["pack the tent"])
    backup = backup_database(path, backups_folder(path) / "parley-v5-20261201-100000-manual.db")
    async with Store.open(path) as store:
        await store.delete_thread(kept.id)
        later = await store.create_thread(title="Written after the backup")
        assert [t.id for t in await store.list_threads()] == [later.id]

    replaced = restore_backup(path, backup)

    async with Store.open(path) as store:
        threads = await store.list_threads()
        got = await store.checkpointer.aget(kept.id, AgentState)
    assert [t.title for t in threads] == ["Holiday plans"]
    assert got is not None and got.state.context[-1].text() == "pack the tent"
    # the database it replaced is kept aside, whole
    assert replaced is not None and replaced.parent == backups_folder(path)
    async with Store.open_read_only(replaced) as aside:
        assert [t.title for t in await aside.list_threads()] == ["Written after the backup"]
    assert backup.is_file()  # the backup itself stays


def test_a_damaged_backup_is_listed_as_damaged_and_never_restored(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    with Store.open(path):
        pass
    folder = backups_folder(path)
    backup = backup_database(path, folder / "parley-v5-20261201-100000-daily.db")
    data = bytearray(backup.read_bytes())
    page = 4096
    for n in range(1, 8):  # break the b-tree page headers of pages 2 to 8
        data[n * page : n * page + 12] = b"\xff" * 12
    backup.write_bytes(bytes(data))
    before = path.read_bytes()

    (entry,) = list_backups(folder)
    assert not entry.healthy and entry.damaged
    with pytest.raises(BackupError, match=r"is damaged .*so it was not restored"):
        restore_backup(path, backup)
    assert path.read_bytes() == before


def test_restore_refuses_while_the_database_is_open(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    with Store.open(path):
        backup = backup_database(path, backups_folder(path) / "b.db")
        with pytest.raises(StoreLockedError, match="is open in Parley or another program"):
            restore_backup(path, backup)


def _daily(folder: Path, when: datetime.datetime) -> BackupEntry:
    path = folder / backup_name(Path("parley.db"), 5, "daily", when)
    return BackupEntry(path, "daily", when, 5, 1, 0, None)


def test_rotation_keeps_the_last_seven_days_and_four_weeks() -> None:
    folder = Path("/backups")
    start = datetime.datetime(2026, 9, 1, 9, 0)  # a Tuesday
    # two backups a day for 60 days, one migration and one manual backup long ago
    entries = [
        _daily(folder, start + datetime.timedelta(days=d, hours=h))
        for d in range(60)
        for h in (0, 5)
    ]
    old = datetime.datetime(2026, 1, 1)
    entries += [
        BackupEntry(folder / "m.db", "migration", old, 4, 1, 0, None),
        BackupEntry(folder / "h.db", "manual", old, 5, 1, 0, None),
    ]
    pruned = {e.path for e in to_prune(entries)}
    kept = sorted((e for e in entries if e.path not in pruned), key=lambda e: e.taken)
    last = start + datetime.timedelta(days=59, hours=5)
    newest_days = [last - datetime.timedelta(days=d) for d in range(7)]
    assert [e.kind for e in kept[:2]] == ["migration", "manual"]  # never rotated
    daily = [e.taken for e in kept if e.kind == "daily"]
    # the newest of each of the last 7 days, plus the newest of each of the 4 last weeks
    weeks = sorted({(t.isocalendar()[0], t.isocalendar()[1]) for t in newest_days})
    assert set(newest_days) <= set(daily)
    week_ends = {}
    for e in entries:
        if e.kind == "daily":
            key = e.taken.isocalendar()[:2]
            week_ends[key] = max(week_ends.get(key, e.taken), e.taken)
    last_weeks = sorted(week_ends)[-4:]
    assert set(daily) == set(newest_days) | {week_ends[w] for w in last_weeks}
    assert len(weeks) <= 2 and len(daily) <= 7 + 4


def test_rotation_deletes_the_files_it_no_longer_keeps(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    with Store.open(path):
        pass
    folder = backups_folder(path)
    first = datetime.datetime(2026, 11, 1, 12, 0)
    made = [
        backup_database(
            path, folder / backup_name(path, 5, "daily", first + datetime.timedelta(days=d))
        )
        for d in range(10)
    ]
    removed = rotate_backups(folder)
    remaining = sorted(p.name for p in folder.iterdir())
    assert sorted(p.name for p in removed + [folder / n for n in remaining]) == sorted(
        p.name for p in made
    )
    # 7 newest days; the ISO weeks they span add nothing older than week 45's Sunday
    assert [p.name for p in made[3:]] == remaining[-7:]
    assert all(not p.exists() for p in removed)


def test_backups_are_private_files(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    with Store.open(path):
        pass
    backup = backup_database(path, backups_folder(path) / "b.db")
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert stat.S_IMODE(backup.parent.stat().st_mode) == 0o700
    assert inspect_backup(backup) is None  # not a backup's name: listed only when named so


def test_a_full_disk_gives_one_sentence_and_leaves_nothing(tmp_path: Path, disk: Path) -> None:
    path = tmp_path / "parley.db"
    with Store.open(path) as store:
        del store
    (disk / "backups").mkdir()
    fill_disk(disk)
    with pytest.raises(BackupError) as failed:
        backup_database(path, disk / "backups" / "b.db")
    message = str(failed.value)
    assert message.startswith("The disk is full, so the backup b.db could not be written")
    assert message.count(". ") == 1 and "Traceback" not in message
    assert list((disk / "backups").iterdir()) == []


def test_a_read_only_folder_gives_one_sentence(tmp_path: Path, disk: Path) -> None:
    path = tmp_path / "parley.db"
    with Store.open(path) as store:
        del store
    (disk / "backups").mkdir()
    mount("-o", "remount,ro", str(disk))
    with pytest.raises(BackupError) as failed:
        backup_database(path, disk / "backups" / "b.db")
    assert str(failed.value) == (
        f"The backup b.db could not be written in {disk / 'backups'} (Read-only file system). "
        f"Make the folder writable or free some space, then try again."
    )
