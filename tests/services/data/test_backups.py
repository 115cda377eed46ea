"""The daily backup while Parley runs: one a day, in a worker thread, rotated to the last
seven days and four weeks; a workspace on a read-only rescued copy never backs it up; a
backup carrying triggers is refused and the database a restore replaced is listed."""

from __future__ import annotations

import asyncio
import datetime
import logging
from pathlib import Path

import pytest

from app.services.data.actions import check_store, open_rescued_copy
from app.services.data.backups import BackupService, describe
from app.services.workspace import Workspace
from app.store import Store
from app.store.backups import BackupError, backups_folder
from app.store.paths import database_path
from tests.store.damage import damage_first_thread, make_database
from tests.store.foreign import add_triggers
from tests.store.helpers import append_messages
from tests.ui.harness import wait_until


async def test_the_daily_backup_runs_once_a_day_and_keeps_the_documented_set(
    tmp_path: Path,
) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        await append_messages(store.checkpointer, "t", ["hello"])
    now = [datetime.datetime(2026, 11, 2, 9, 30)]  # a Monday
    service = BackupService(path, clock=lambda: now[0])

    def days() -> list[datetime.date]:
        return sorted(e.taken.date() for e in service.list() if e.kind == "daily")

    service.start_daily(first_after=0, every=0.01)
    try:
        await wait_until(lambda: days() == [now[0].date()], what="the first daily backup")
        await asyncio.sleep(0.1)  # more checks the same day take nothing new
        assert days() == [now[0].date()]
        for _ in range(30):  # thirty more days pass while Parley runs
            now[0] += datetime.timedelta(days=1)
            await wait_until(lambda: now[0].date() in days(), what="the next day's backup")
    finally:
        await service.aclose()
    last = now[0].date()
    newest_week = [last - datetime.timedelta(days=d) for d in range(7)]
    assert last == datetime.date(2026, 12, 2)  # a Wednesday
    # the newest of each of the four last ISO weeks: today, and the three Sundays before
    weeks = [last, datetime.date(2026, 11, 29), datetime.date(2026, 11, 22)]
    weeks.append(datetime.date(2026, 11, 15))
    assert days() == sorted({*newest_week, *weeks})
    assert len(days()) == 9
    entry = service.list()[0]
    assert describe(entry).startswith(f"{last:%Y-%m-%d} 09:30  daily, ")
    assert describe(entry).endswith(", 1 thread")


@pytest.mark.parametrize("damaged", [True, False], ids=["damaged", "intact"])
async def test_a_workspace_on_a_read_only_rescued_copy_never_backs_it_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damaged: bool
) -> None:
    caplog.set_level(logging.INFO, logger="app.services.data.backups")
    data = tmp_path / "data"
    data.mkdir()
    database = database_path(data)
    await make_database(database, threads=2)
    if damaged:  # as the window offers it; an intact copy's backup would pass its check
        damage_first_thread(database)
    health = check_store(data)
    assert health.healthy is not damaged
    # what the window does when the person chooses to open a read-only copy
    rescued = await open_rescued_copy(health)
    copy = rescued.path
    before = {path: path.read_bytes() for path in (database, copy)}
    workspace = await Workspace.open(
        data, store=rescued, resolve_model=lambda spec: None, secret_resolver=lambda ref: ""
    )
    try:
        assert workspace.data.read_only is not None
        # each of the running window's daily checks: today's backup is due, none is taken
        assert await workspace.backups.daily_now() is None
        assert workspace.backups.list() == []
    finally:
        await workspace.aclose()
    assert not backups_folder(copy).exists()
    assert not backups_folder(database).exists()
    assert {path: path.read_bytes() for path in (database, copy)} == before
    assert "backup" not in caplog.text  # nor did one fail


async def test_a_restore_refuses_a_backup_carrying_triggers_and_lists_what_it_replaced(
    tmp_path: Path,
) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        await append_messages(store.checkpointer, "t", ["hello"])
    service = BackupService(path, clock=lambda: datetime.datetime(2026, 12, 2, 9, 30))
    hostile = service.take()
    add_triggers(hostile)
    before = path.read_bytes()

    with pytest.raises(BackupError) as refused:
        service.restore(hostile)
    assert 'holds the trigger "forget_audit" and the trigger "widen_rules"' in str(refused.value)
    assert path.read_bytes() == before
    (listed,) = service.list()
    assert describe(listed).endswith(
        'not restorable (it holds the trigger "forget_audit" and the trigger "widen_rules" '
        "that Parley does not make)"
    )

    sound = service.take()
    result = service.restore(sound)
    assert result.replaced is not None
    replaced = next(e for e in service.list() if e.kind == "replaced")
    assert replaced.path == result.replaced
    assert describe(replaced).startswith("replaced on 2026-12-02 09:30, ")
    assert describe(replaced).endswith(", 1 thread")


async def test_inspect_says_what_a_file_is_before_a_restore_is_asked(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        await append_messages(store.checkpointer, "t", ["hello"])
    service = BackupService(path, clock=lambda: datetime.datetime(2026, 12, 2, 9, 30))
    sound = service.inspect(service.take())
    assert sound is not None and sound.restorable
    assert (sound.kind, sound.thread_count) == ("manual", 1)
    assert describe(sound).startswith("2026-12-02 09:30  by hand, ")
    assert describe(sound).endswith(", 1 thread")
    (tmp_path / "aside").mkdir()
    hostile = service.take(tmp_path / "aside")
    add_triggers(hostile)
    refused = service.inspect(hostile)
    assert refused is not None and not refused.restorable
    assert refused.refused is not None and "forget_audit" in refused.refused
    (tmp_path / "notes.db").write_bytes(path.read_bytes())
    assert service.inspect(tmp_path / "notes.db") is None  # not named as a backup is
