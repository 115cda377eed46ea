"""``parley backup``, ``parley backups`` and ``parley restore``, run as a user would: real
processes on a real data folder."""

from __future__ import annotations

import json
import re
import stat
import subprocess
from pathlib import Path

from app.store import SCHEMA_VERSION, Store
from tests.cli.test_chat import parley
from tests.store.foreign import add_triggers, set_user_version


def _chat(data_dir: Path, prompt: str, reply: str) -> None:
    script = data_dir / f"script-{abs(hash(prompt))}.json"
    script.write_text(json.dumps([{"text": reply}]))
    done = parley("chat", "--model", f"scripted:{script}", prompt, data_dir=data_dir)
    assert done.returncode == 0, done.stderr


def _titles(data_dir: Path) -> str:
    done = parley("threads", data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_backup_list_and_restore_bring_back_a_deleted_thread(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    _chat(data, "Plan a trip to Rome", "Start at the Forum.")

    made = parley("backup", "--data-dir", str(data), data_dir=tmp_path / "elsewhere")
    assert made.returncode == 0, made.stderr
    match = re.fullmatch(r"Backup written to (\S+) \((.+)\)\.\n", made.stdout)
    assert match, made.stdout
    backup = Path(match[1])
    assert backup.parent == data / "backups"
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600

    listed = parley("backups", data_dir=data)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d  by hand, .+, 1 thread", lines[0]), lines
    assert lines[1].strip() == str(backup)
    assert lines[-1].startswith(f"1 backup in {data / 'backups'}, ")

    # the thread is deleted after the backup (as the window's Delete does), another written
    async with Store.open(data / "parley.db") as store:
        (thread,) = await store.list_threads()
        await store.delete_thread(thread.id)
    _chat(data, "Something new", "Noted.")
    assert "Rome" not in _titles(data)

    refused = parley("restore", backup.name, data_dir=data, stdin="n\n")
    assert refused.returncode == 1
    assert refused.stdout.endswith("[y/N]: Nothing was changed.\n")
    assert "Rome" not in _titles(data)

    restored = parley("restore", backup.name, data_dir=data, stdin="y\n")
    assert restored.returncode == 0, restored.stderr
    assert f"Restored the backup {backup.name}." in restored.stdout
    assert "Plan a trip to Rome" in _titles(data)
    assert "Something new" not in _titles(data)
    aside = re.search(r"was kept as (\S+)\.\n", restored.stdout)
    assert aside and Path(aside[1]).is_file()


def test_restore_with_yes_and_a_damaged_backup_say_one_sentence(tmp_path: Path) -> None:
    _chat(tmp_path, "Hello", "Hi.")
    backup = tmp_path / "backups" / "parley-v5-20261201-090000-manual.db"
    backup.parent.mkdir()
    backup.write_bytes(b"SQLite format 3\x00" + b"\xff" * 8000)
    before = (tmp_path / "parley.db").read_bytes()
    done = parley("restore", str(backup), "--yes", data_dir=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"parley: The backup {backup} is damaged (")
    assert done.stderr.endswith("so it was not restored. Choose another backup.\n")
    assert done.stderr.count("\n") == 1
    assert (tmp_path / "parley.db").read_bytes() == before

    missing = parley("restore", "nothing-here.db", "--yes", data_dir=tmp_path)
    assert missing.returncode == 2
    assert "There is no backup at" in missing.stderr and "Traceback" not in missing.stderr


def test_backup_into_a_chosen_file_and_with_nothing_to_back_up(tmp_path: Path) -> None:
    empty = parley("backup", data_dir=tmp_path / "new")
    assert empty.returncode == 2
    assert empty.stderr == (
        f"parley: There is no thread database at {tmp_path / 'new' / 'parley.db'} yet, so "
        f"there is nothing to back up.\n"
    )
    _chat(tmp_path, "Hello", "Hi.")
    target = tmp_path / "mine.db"
    done = parley("backup", str(target), data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    check = subprocess.run(
        ["sqlite3", str(target), "PRAGMA integrity_check"], capture_output=True, text=True
    )
    if check.returncode == 0:
        assert check.stdout.strip() == "ok"
    assert target.read_bytes().startswith(b"SQLite format 3\x00")


def test_restore_refuses_a_backup_carrying_triggers_or_a_newer_schema(tmp_path: Path) -> None:
    _chat(tmp_path, "Hello", "Hi.")
    made = parley("backup", data_dir=tmp_path)
    assert made.returncode == 0, made.stderr
    hostile = Path(re.fullmatch(r"Backup written to (\S+) \(.+\)\.\n", made.stdout)[1])  # type: ignore[index]
    add_triggers(hostile)
    newer = hostile.with_name(hostile.name.replace("-manual", "-1-manual"))
    newer.write_bytes((tmp_path / "parley.db").read_bytes())
    set_user_version(newer, SCHEMA_VERSION + 1)
    database = tmp_path / "parley.db"
    before = database.read_bytes()

    for asking in ((), ("--yes",)):  # refused before any question
        done = parley("restore", hostile.name, *asking, data_dir=tmp_path, stdin="y\n")
        assert done.returncode == 2
        assert done.stdout == ""
        assert done.stderr == (
            f'parley: The backup {hostile} holds the trigger "forget_audit" and the trigger '
            f'"widen_rules" that Parley does not make, so it was not restored. Nothing was '
            f"changed; choose another backup.\n"
        )
    done = parley("restore", str(newer), "--yes", data_dir=tmp_path)
    assert done.returncode == 2
    assert (
        f"made by a newer Parley (schema {SCHEMA_VERSION + 1}, this one knows up to "
        f"{SCHEMA_VERSION})" in done.stderr
    )
    assert database.read_bytes() == before
    assert "Hello" in _titles(tmp_path)

    listed = parley("backups", data_dir=tmp_path)
    assert "not restorable (it holds the trigger" in listed.stdout
    assert "not restorable (it was made by a newer Parley" in listed.stdout


def test_backups_lists_the_database_a_restore_replaced(tmp_path: Path) -> None:
    _chat(tmp_path, "Hello", "Hi.")
    made = parley("backup", data_dir=tmp_path)
    backup = Path(re.fullmatch(r"Backup written to (\S+) \(.+\)\.\n", made.stdout)[1])  # type: ignore[index]
    restored = parley("restore", backup.name, "--yes", data_dir=tmp_path)
    assert restored.returncode == 0, restored.stderr
    aside = re.search(r"was kept as (\S+)\.\n", restored.stdout)
    assert aside is not None

    listed = parley("backups", data_dir=tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    at = lines.index(f"    {aside[1]}")
    assert re.fullmatch(r"replaced on \d{4}-\d\d-\d\d \d\d:\d\d, .+, 1 thread", lines[at - 1])
    assert lines[-1].startswith(f"2 backups in {tmp_path / 'backups'}, ")
