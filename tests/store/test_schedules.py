"""Schedules and their runs in the thread database: kept through a migration (with its
backup), and a due time claimed once, never two runs of one schedule at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.core.budget import BudgetLimits
from app.core.errors import UserError
from app.store import BUILTIN_AGENT_ID, SCHEMA_VERSION, ScheduleRecord, Store, _schema
from tests.store.helpers import older_thread, scalar


def _daily(**kw: object) -> ScheduleRecord:
    base: dict[str, object] = {
        "id": "",
        "agent_id": BUILTIN_AGENT_ID,
        "prompt": "Summarise the news",
        "kind": "every",
        "rule": "day 08:00",
        "zone": "Europe/Berlin",
        "limits": BudgetLimits(max_tool_calls=3, max_cost=0.5),
        "next_due": 1000.0,
    }
    return ScheduleRecord(**{**base, **kw})  # type: ignore[arg-type]


async def test_a_database_from_before_schedules_is_migrated_with_a_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._schedules)
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
        older.setattr(_schema, "SCHEMA_VERSION", mine)
        async with Store.open(path) as store:
            thread_id = await older_thread(store, "kept")
    async with Store.open(path) as store:
        kept = await store.schedules.add(_daily())
        assert (await store.get_thread(thread_id)) is not None
        assert await store.schedules.list() == [kept]
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
    backups = list((tmp_path / "backups").glob(f"parley-v{mine}-*-migration.db"))
    assert len(backups) == 1


async def test_a_schedule_is_kept_whole_and_found_by_its_short_id(store: Store) -> None:
    kept = await store.schedules.add(_daily())
    assert kept.limits == BudgetLimits(max_tool_calls=3, max_cost=0.5)
    assert (await store.schedules.resolve(kept.short_id)) == kept
    with pytest.raises(UserError, match="there is no schedule abcd"):
        await store.schedules.resolve("abcd")
    with pytest.raises(UserError, match="is not a schedule's id"):
        await store.schedules.resolve("x!")
    with pytest.raises(UserError, match="its agent is no longer here"):
        await store.schedules.add(_daily(agent_id="gone"))
    assert await store.schedules.set_paused(kept.id, True, None)
    paused = await store.schedules.get(kept.id)
    assert paused is not None and paused.paused and paused.next_due is None
    assert await store.schedules.remove(kept.id)
    assert await store.schedules.list() == []


async def test_a_due_time_is_claimed_once_and_one_run_at_a_time(store: Store) -> None:
    schedule = await store.schedules.add(_daily())
    claims = await asyncio.gather(
        *(
            store.schedules.claim(
                schedule.id, 1000.0, missed=2, note="missed 2 runs", next_due=2000.0,
                started_at=1500.0,
            )
            for _ in range(4)
        )
    )  # fmt: skip
    won = [c for c in claims if c is not None]
    assert len(won) == 1 and won[0].status == "running" and won[0].missed == 2
    # the next due time, while the first still runs: refused
    assert (
        await store.schedules.claim(
            schedule.id, 2000.0, missed=0, note="", next_due=3000.0, started_at=2000.0
        )
        is None
    )
    again = await store.schedules.get(schedule.id)
    assert again is not None and again.next_due == 2000.0
    done = await store.schedules.finish(
        won[0].id, "done", thread_id="t1", tokens=120, cost=0.01, finished_at=1600.0
    )
    assert (done.status, done.thread_id, done.tokens) == ("done", "t1", 120)
    second = await store.schedules.claim(
        schedule.id, 2000.0, missed=0, note="", next_due=3000.0, started_at=2000.0
    )
    assert second is not None
    assert [r.id for r in await store.schedules.runs(schedule.id)] == [second.id, done.id]
    assert [r.id for r in await store.schedules.unfinished()] == [second.id]
