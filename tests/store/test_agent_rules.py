"""Argument rules of an agent in a real database: kept by the agent's id and read back with
its name as it is now, apart from the same rule of another agent or of none, gone with the
agent; a database from before gains the column and keeps its rules for every agent."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.tools import ArgumentRule
from app.store import SCHEMA_VERSION, AgentRecord, Store, _schema
from tests.store.helpers import scalar


async def test_a_rule_of_an_agent_follows_its_name_and_goes_with_it(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "parley.db") as store:
        writer = await store.save_agent(AgentRecord(id="", name="Writer"))
        await store.save_agent(AgentRecord(id="", name="Reader"))
        anyone = ArgumentRule.folder("write_file", "path", str(tmp_path))
        mine = anyone.for_agent("Writer")
        kept = await store.add_argument_rule(mine)
        assert kept.agent_id == writer.id and kept.rule == mine
        assert await store.add_argument_rule(mine) == kept
        await store.add_argument_rule(anyone)
        await store.add_argument_rule(anyone.for_agent("reader"))  # any case finds the agent
        rules = await store.list_argument_rules()
        assert sorted(str(r.rule.agent) for r in rules) == ["None", "Reader", "Writer"]
        assert [r.rule for r in await store.list_argument_rules(agent_id=writer.id)] == [mine]

        await store.save_agent(replace(writer, name="Scribe"))
        [renamed] = await store.list_argument_rules(agent_id=writer.id)
        assert renamed.rule.agent == "Scribe"
        assert renamed.rule.describe() == f"write_file inside {tmp_path} for Scribe"

        await store.remove_agent(writer.id)
        assert sorted(str(r.rule.agent) for r in await store.list_argument_rules()) == [
            "None",
            "Reader",
        ]
        with pytest.raises(UserError, match="no agent called 'Nobody'"):
            await store.add_argument_rule(anyone.for_agent("Nobody"))


async def test_a_rule_whose_agent_row_is_gone_allows_nothing(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    async with Store.open(path) as store:
        with sqlite3.connect(path) as conn:
            conn.execute(
                "INSERT INTO argument_rules (tool, kind, argument, value, agent_id, created_at)"
                " VALUES ('fetch_url', 'host', 'url', 'a.example', 'gone', 0)"
            )
        assert await store.list_argument_rules() == []


async def test_an_older_database_keeps_its_rules_for_every_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._agent_rules)
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
        older.setattr(_schema, "SCHEMA_VERSION", mine)
        async with Store.open(path) as store:
            await store.save_agent(AgentRecord(id="", name="Writer"))
    with sqlite3.connect(path) as conn:  # the rule as the older version wrote it
        conn.execute(
            "INSERT INTO argument_rules (tool, kind, argument, value, thread_id, created_at)"
            " VALUES ('fetch_url', 'host', 'url', 'a.example', NULL, 0)"
        )
    assert scalar(path, "PRAGMA user_version") == mine
    async with Store.open(path) as store:
        [old] = await store.list_argument_rules()
        assert old.agent_id is None and old.rule.agent is None
        scoped = old.rule.for_agent("Writer")
        await store.add_argument_rule(scoped)  # the same rule for one agent is another rule
        assert len(await store.list_argument_rules()) == 2
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
