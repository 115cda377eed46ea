""" "Export all threads" and "Delete all my data" on real files."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.services.data.export_delete import delete_all_data, export_all_threads, keyring_entries
from app.services.data.recovery import export_readable
from app.services.locations import Locations
from app.services.logs import setup_logging, stop_logging
from app.store import Store
from app.store.backups import backup_database, backups_folder
from app.store.knowledge import KnowledgeIndex
from tests.services.memory_keyring import MemoryKeyring
from tests.store.damage import damage_first_thread, make_database


async def test_export_writes_one_json_and_one_markdown_per_thread(tmp_path: Path) -> None:
    db = tmp_path / "parley.db"
    ids = await make_database(db, threads=3)
    async with Store.open(db) as store:
        await store.update_thread(ids[2], archived=True)
        await store.rename_thread(ids[0], "Trip: Paris / Lyon?")
        report = await export_all_threads(store, tmp_path / "out")
        again = await export_all_threads(store, tmp_path / "out")
    assert report.failed == []
    assert report.thread_count == 3
    names = sorted(p.name for p in report.written)
    assert len(names) == 6
    assert any(n.endswith(f"-trip-paris-lyon-{ids[0][:8]}.json") for n in names)
    for n, thread_id in enumerate(ids):
        (md,) = [p for p in report.written if p.name.endswith(f"{thread_id[:8]}.md")]
        assert f"word-{n}" in md.read_text()
        (js,) = [p for p in report.written if p.name.endswith(f"{thread_id[:8]}.json")]
        doc = json.loads(js.read_bytes())
        assert doc["format"] == "parley.thread"
        assert doc["thread"]["archived"] is (n == 2)
    # a second export never overwrites the first
    assert {p.name for p in again.written}.isdisjoint(names)
    assert len(list((tmp_path / "out").iterdir())) == 12
    assert report.summary() == f"Exported 3 threads to {tmp_path / 'out'}."


async def test_an_export_imports_back(tmp_path: Path) -> None:
    ids = await make_database(tmp_path / "parley.db", threads=1)
    async with Store.open(tmp_path / "parley.db") as store:
        report = await export_all_threads(store, tmp_path / "out")
    (js,) = [p for p in report.written if p.suffix == ".json"]
    async with Store.open(tmp_path / "other.db") as other:
        thread = await other.import_json(js.read_bytes())
        assert "word-0" in await other.export_markdown(thread.id)
    assert thread.id != ids[0]


async def test_export_into_a_file_is_one_clear_sentence(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("mine")
    async with Store.open(tmp_path / "parley.db") as store:
        with pytest.raises(UserError, match=r"cannot export into .*taken: it is a file"):
            await export_all_threads(store, tmp_path / "taken")
    assert (tmp_path / "taken").read_text() == "mine"


async def test_a_damaged_database_exports_what_can_be_read_from_a_copy(tmp_path: Path) -> None:
    db = tmp_path / "parley.db"
    ids = await make_database(db, threads=4)
    damage_first_thread(db)
    original = db.read_bytes()
    result = await export_readable(db, tmp_path / "saved")
    assert db.read_bytes() == original
    assert result.copy.parent == tmp_path / "rescued"
    assert result.copy.read_bytes() == original
    assert result.export is not None
    assert result.export.failed == [(ids[0], "its data in the database is damaged")]
    assert result.export.thread_count == 3
    markdown = " ".join(p.read_text() for p in result.export.written if p.suffix == ".md")
    assert all(f"word-{n}" in markdown for n in (1, 2, 3))
    assert "word-0" not in markdown
    assert result.summary().startswith(f"A copy of the damaged database is in {result.copy}")


async def test_a_file_that_is_not_a_database_is_copied_and_explained(tmp_path: Path) -> None:
    db = tmp_path / "parley.db"
    db.write_bytes(b"\x00garbage" * 1000)
    result = await export_readable(db, tmp_path / "saved")
    assert result.export is None
    assert result.copy.read_bytes() == db.read_bytes()
    assert result.error is not None and "not a Parley database" in result.error


async def test_delete_all_data_removes_parleys_files_and_lists_keys(tmp_path: Path) -> None:
    where = Locations.resolve(tmp_path / "profile", env={})
    await make_database(where.database, threads=2)
    backup_database(where.database, backups_folder(where.database) / "b.db")
    damage_first_thread(where.database)
    await export_readable(where.database, tmp_path / "saved")
    setup_logging(where.logs, environ={})
    logging.getLogger("app.store").info("something to log")
    (where.config / "settings.json").parent.mkdir(parents=True)
    (where.config / "settings.json").write_text("{}")
    (where.cache / "thumbs").mkdir(parents=True)
    mine = where.data / "my-notes.txt"
    mine.write_text("not Parley's")
    knowledge = KnowledgeIndex.open_data_dir(where.data)
    knowledge.add_folder(str(tmp_path / "private-documents"))
    knowledge.close()
    keyring = MemoryKeyring()
    resolver = KeyringSecretResolver(backend=keyring)
    resolver.set("anthropic/api-key", "sk-ant-0123456789")

    report = delete_all_data(where, resolver=resolver)

    assert sorted(p.name for p in where.data.iterdir()) == ["my-notes.txt"]
    assert mine.read_text() == "not Parley's"
    assert not where.logs.exists() and not where.cache.exists() and not where.config.exists()
    assert (tmp_path / "saved").is_dir(), "exports the person made elsewhere stay"
    assert report.failed == []
    assert report.keyring_entries == ["anthropic/api-key"]
    assert keyring.items == {("parley", "anthropic/api-key"): "sk-ant-0123456789"}
    assert "Your system keyring still holds anthropic/api-key" in report.summary()
    logging.getLogger("app.store").info("after deletion")
    assert not where.logs.exists(), "logging stopped with the deletion"
    stop_logging()


def test_delete_all_data_removes_the_default_data_folder_when_empty(tmp_path: Path) -> None:
    where = Locations.resolve(tmp_path / "profile", env={})
    where.data.mkdir()
    where.database.write_bytes(b"")
    report = delete_all_data(where, resolver=KeyringSecretResolver(backend=MemoryKeyring()))
    assert not where.data.exists()
    assert report.removed == [where.database, where.data]
    assert report.keyring_entries == []


def test_keyring_entries_lists_only_what_is_set() -> None:
    resolver = KeyringSecretResolver(backend=MemoryKeyring())
    assert keyring_entries(resolver) == []
    resolver.set("openai/api-key", "sk-test-abcdef")
    assert keyring_entries(resolver) == ["openai/api-key"]
