"""Agents in the database: the v7 upgrade of a v6 file with threads, names unique in any case,
renames followed by delegate lists, and removal moving threads to "Parley"."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.state import AgentState
from app.store import BUILTIN_AGENT_ID, SCHEMA_VERSION, AgentRecord, Store, _schema
from app.store.backups import backups_folder, list_backups
from tests.store.helpers import append_messages, scalar


async def test_a_v6_file_with_threads_upgrades_to_agents_and_keeps_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    with monkeypatch.context() as older:  # the database as version 6 wrote it
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:6])
        older.setattr(_schema, "SCHEMA_VERSION", 6)
        async with Store.open(path) as store:
            await append_messages(store.checkpointer, "a", ["first thread"])
            await append_messages(store.checkpointer, "b", ["second thread"])
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE threads SET model = 'local', system_prompt = 'Be terse.'")
    assert scalar(path, "PRAGMA user_version") == 6

    async with Store.open(path) as store:
        threads = {t.id: t for t in await store.list_threads()}
        agents = await store.list_agents()
        got = await store.checkpointer.aget("b", AgentState)
    assert SCHEMA_VERSION >= 7 and scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
    assert set(threads) == {"a", "b"}
    assert all(t.agent_id == BUILTIN_AGENT_ID for t in threads.values())
    assert threads["a"].model == "local" and threads["a"].system_prompt == "Be terse."
    assert got is not None and got.state.context[-1].text() == "second thread"
    assert [(a.name, a.builtin, a.tools) for a in agents] == [("Parley", True, ())]
    (backup,) = list_backups(backups_folder(path))
    assert backup.schema_version == 6 and backup.thread_count == 2


async def test_agent_names_are_unique_in_any_case_and_renames_follow_delegates(
    tmp_path: Path,
) -> None:
    async with Store.open(tmp_path / "parley.db") as store:
        researcher = await store.save_agent(
            AgentRecord(id="", name="Researcher", instructions="Find sources.", tools=("fetch",))
        )
        writer = await store.save_agent(
            AgentRecord(
                id="",
                name="Writer",
                delegates=("researcher",),
                limits=(("max_model_calls", 4),),
                starters=("Draft a note",),
            )
        )
        with pytest.raises(UserError, match="already exists"):
            await store.save_agent(AgentRecord(id="", name="RESEARCHER"))
        await store.save_agent(AgentRecord(id=researcher.id, name="Scout", tools=("fetch",)))
        again = await store.get_agent(writer.id)
        found = await store.find_agent("scout")
    assert again is not None and again.delegates == ("Scout",)
    assert again.limits == (("max_model_calls", 4),) and again.starters == ("Draft a note",)
    assert found is not None and found.id == researcher.id and found.tools == ("fetch",)


async def test_removing_an_agent_moves_its_threads_to_parley_and_parley_stays(
    tmp_path: Path,
) -> None:
    async with Store.open(tmp_path / "parley.db") as store:
        helper = await store.save_agent(AgentRecord(id="", name="Helper"))
        boss = await store.save_agent(AgentRecord(id="", name="Boss", delegates=("Helper",)))
        thread = await store.create_thread("with helper", agent_id=helper.id)
        assert thread.agent_id == helper.id
        with pytest.raises(UserError, match="Boss delegates to Helper"):
            await store.remove_agent(helper.id)
        await store.remove_agent(boss.id)
        assert await store.remove_agent(helper.id) == 1
        with pytest.raises(UserError, match="built in and cannot be removed"):
            await store.remove_agent(BUILTIN_AGENT_ID)
        with pytest.raises(UserError, match="there is no agent"):
            await store.create_thread("nobody", agent_id="gone")
        moved = await store.get_thread(thread.id)
    assert moved is not None and moved.agent_id == BUILTIN_AGENT_ID


async def test_a_fork_keeps_its_thread_s_agent(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "parley.db") as store:
        helper = await store.save_agent(AgentRecord(id="", name="Helper"))
        thread = await store.create_thread("with helper", agent_id=helper.id)
        await append_messages(store.checkpointer, thread.id, ["hello"])
        fork = await store.fork_thread(thread.id)
    assert fork.agent_id == helper.id
