"""A database holds only Parley's own schema: a restore refuses a backup carrying triggers,
views or tables Parley does not make (or a newer schema) before anything is replaced, and
opening a database drops foreign triggers and views before any of them can run."""

from __future__ import annotations

import datetime
import sqlite3
from pathlib import Path

import pytest

from app.core.tools import ArgumentRule
from app.services.approval_policy import StoreApprovalPolicy
from app.store import SCHEMA_VERSION, Store, _schema
from app.store._own_schema import strangers
from app.store.backups import (
    BackupError,
    backup_database,
    backups_folder,
    inspect_backup,
    list_backups,
    restore_backup,
)
from tests.store.foreign import add_triggers, object_names, set_user_version
from tests.store.helpers import append_messages, scalar


async def _database_with_a_rule(path: Path, notes: Path) -> None:
    async with Store.open(path) as store:
        thread = await store.create_thread(title="Notes")
        await append_messages(store.checkpointer, thread.id, ["keep my notes"])
        await store.add_argument_rule(ArgumentRule.folder("write_file", "path", str(notes)))


def _backup(path: Path, name: str = "parley-v9-20261201-100000-manual.db") -> Path:
    return backup_database(path, backups_folder(path) / name)


async def test_a_backup_carrying_triggers_is_refused_and_nothing_is_replaced(
    tmp_path: Path,
) -> None:
    path = tmp_path / "parley.db"
    await _database_with_a_rule(path, tmp_path / "notes")
    backup = _backup(path)
    add_triggers(backup)
    before = path.read_bytes()

    entry = inspect_backup(backup)
    assert entry is not None and entry.healthy and not entry.restorable
    with pytest.raises(BackupError) as refused:
        restore_backup(path, backup)
    message = str(refused.value)
    assert message == (
        f'The backup {backup} holds the trigger "forget_audit" and the trigger "widen_rules" '
        f"that Parley does not make, so it was not restored. Nothing was changed; choose "
        f"another backup."
    )
    assert path.read_bytes() == before
    assert [e.kind for e in list_backups(backups_folder(path))] == ["manual"]  # none put aside
    assert object_names(path, "trigger") == []


async def test_a_backup_with_a_changed_view_or_a_table_parley_does_not_make_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "parley.db"
    await _database_with_a_rule(path, tmp_path / "notes")
    changed = _backup(path, "parley-v9-20261201-100000-manual.db")
    add_triggers(
        changed,
        "DROP VIEW messages_indexed",
        "CREATE VIEW messages_indexed AS SELECT id, body AS text FROM messages",
    )
    extra = _backup(path, "parley-v9-20261201-110000-manual.db")
    add_triggers(extra, "CREATE TABLE stash (x)")
    before = path.read_bytes()

    with pytest.raises(BackupError, match='holds a changed view "messages_indexed" that'):
        restore_backup(path, changed)
    with pytest.raises(BackupError, match='holds the table "stash" that'):
        restore_backup(path, extra)
    assert path.read_bytes() == before


async def test_a_backup_from_a_newer_parley_is_refused_before_anything_is_replaced(
    tmp_path: Path,
) -> None:
    path = tmp_path / "parley.db"
    await _database_with_a_rule(path, tmp_path / "notes")
    backup = _backup(path)
    set_user_version(backup, SCHEMA_VERSION + 3)
    before = path.read_bytes()

    with pytest.raises(BackupError) as refused:
        restore_backup(path, backup)
    assert str(refused.value) == (
        f"The backup {backup} was made by a newer Parley (schema {SCHEMA_VERSION + 3}, this "
        f"one knows up to {SCHEMA_VERSION}); update Parley to restore it, so it was not "
        f"restored. Nothing was changed; choose another backup."
    )
    assert path.read_bytes() == before
    assert [e.kind for e in list_backups(backups_folder(path))] == ["manual"]
    async with Store.open(path) as store:
        assert [t.title for t in await store.list_threads()] == ["Notes"]


async def test_a_backup_taken_before_an_update_still_restores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:6])
        older.setattr(_schema, "SCHEMA_VERSION", 6)
        async with Store.open(path):
            pass
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "INSERT INTO threads (id, title, created_at, updated_at) "
            "VALUES ('t', 'From version six', 0, 0)"
        )
    conn.close()
    async with Store.open(path):  # migrates, first writing a backup of version 6
        pass
    (entry,) = list_backups(backups_folder(path))
    assert entry.kind == "migration" and entry.schema_version == 6 and entry.restorable
    restore_backup(path, entry.path)
    async with Store.open(path) as store:
        assert [t.title for t in await store.list_threads()] == ["From version six"]
        assert store.removed_notice is None
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION


async def test_a_database_in_use_holds_exactly_parley_s_own_schema(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    await _database_with_a_rule(path, tmp_path / "notes")
    conn = sqlite3.connect(path)
    try:
        conn.execute("ANALYZE")  # SQLite's own statistics tables are not strangers
        assert strangers(conn, _schema.own_schema(SCHEMA_VERSION)) == []
    finally:
        conn.close()
    assert inspect_backup(_backup(path)).restorable  # type: ignore[union-attr]


async def test_opening_a_database_with_foreign_triggers_drops_them_before_they_run(
    tmp_path: Path,
) -> None:
    path = tmp_path / "parley.db"
    notes = tmp_path / "notes"
    async with Store.open(path):
        pass
    add_triggers(path)

    async with Store.open(path) as store:
        assert store.removed_notice == (
            'The thread database held the trigger "forget_audit" and the trigger '
            '"widen_rules" that Parley does not make; they were removed before anything ran. '
            "Check your rules in Settings > Rules."
        )
        policy = StoreApprovalPolicy(store)
        await policy.allow_rule(ArgumentRule.folder("write_file", "path", str(notes)))
        thread = await store.create_thread(title="Elsewhere")
        # the folder rule allows only inside the folder; elsewhere write_file is still asked
        assert not await policy.is_allowed("write_file", thread.id)
        outside = {"path": str(tmp_path / "elsewhere.txt"), "content": "x"}
        assert await policy.matching_rule("write_file", outside, thread.id) is None
        await store.record_approval(
            thread_id=thread.id,
            tool="write_file",
            args_fingerprint="0" * 64,
            decision="requested",
        )
        assert len(await store.list_approvals()) == 1  # the audit entry stays
    assert object_names(path, "trigger") == []
    async with Store.open(path) as again:
        assert again.removed_notice is None


async def test_a_changed_view_of_parley_s_own_is_put_back_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        thread = await store.create_thread(title="Search me")
        await append_messages(store.checkpointer, thread.id, ["a kettle manual"])
    own = scalar(path, "SELECT sql FROM sqlite_master WHERE name = 'messages_indexed'")
    add_triggers(
        path,
        "DROP VIEW messages_indexed",
        "CREATE VIEW messages_indexed AS SELECT id, 'planted' AS text FROM messages",
    )
    async with Store.open(path) as store:
        assert store.removed_notice is not None
        assert 'a changed view "messages_indexed"' in store.removed_notice
        assert [h.thread_id for h in await store.search("kettle")] == [thread.id]
    assert scalar(path, "SELECT sql FROM sqlite_master WHERE name = 'messages_indexed'") == own


async def test_the_database_a_restore_replaced_is_listed_beside_the_backups(
    tmp_path: Path,
) -> None:
    path = tmp_path / "parley.db"
    await _database_with_a_rule(path, tmp_path / "notes")
    backup = _backup(path)
    when = datetime.datetime(2026, 12, 2, 9, 30, 0)

    aside = restore_backup(path, backup, now=when)

    assert aside is not None
    assert aside.name == f"parley-v{SCHEMA_VERSION}-20261202-093000-replaced.db"
    entries = list_backups(backups_folder(path))
    assert [(e.kind, e.taken, e.thread_count) for e in entries] == [
        ("replaced", when, 1),
        ("manual", datetime.datetime(2026, 12, 1, 10, 0, 0), 1),
    ]
    assert entries[0].restorable
    # one kept by an earlier Parley, named without its version, is listed too
    older = aside.with_name("parley-replaced-20261130-080000-manual.db")
    older.write_bytes(aside.read_bytes())
    assert [e.kind for e in list_backups(backups_folder(path))] == [
        "replaced",
        "manual",
        "replaced",
    ]
