"""Argument-scoped rules in a real database: kept once, listed, revoked, and the audit log
names the rule; an older database gains the table and column on upgrade."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.core.tools import ArgumentRule
from app.store import SCHEMA_VERSION, Store, _schema, fingerprint_args
from tests.store.helpers import scalar


async def test_rules_are_kept_once_listed_and_revoked(store: Store, tmp_path: Path) -> None:
    folder = ArgumentRule.folder("write_file", "path", str(tmp_path))
    host = ArgumentRule.host("fetch_url", "url", "docs.example.com", thread_id="t1")
    first = await store.add_argument_rule(folder)
    assert await store.add_argument_rule(folder) == first
    await store.add_argument_rule(host)
    assert [r.rule for r in await store.list_argument_rules()] == [host, folder]
    assert [r.rule for r in await store.list_argument_rules(tool="write_file")] == [folder]
    assert await store.revoke_argument_rule(first.id)
    assert not await store.revoke_argument_rule(first.id)
    assert [r.rule for r in await store.list_argument_rules()] == [host]


async def test_the_audit_log_keeps_the_rule_that_allowed_a_call(store: Store) -> None:
    await store.record_approval(
        thread_id="t1",
        tool="write_file",
        args_fingerprint=fingerprint_args({"path": "/x"}),
        decision="allowed_by_rule",
        rule="write_file inside ~/notes",
    )
    [entry] = await store.list_approvals()
    assert (entry.decision, entry.rule) == ("allowed_by_rule", "write_file inside ~/notes")


async def test_a_row_this_version_cannot_read_allows_nothing(store: Store) -> None:
    path = store.path
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO argument_rules (tool, kind, argument, value, thread_id, created_at) "
        "VALUES ('write_file', 'folder', 'path', ?, NULL, 0)",
        ("/tmp\x1b[2J",),
    )
    conn.commit()
    conn.close()
    assert await store.list_argument_rules() == []


async def test_an_older_database_gains_the_rules_and_keeps_its_audit_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._argument_rules)
    monkeypatch.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
    monkeypatch.setattr(_schema, "SCHEMA_VERSION", mine)
    with Store.open(path):
        pass
    conn = sqlite3.connect(path)  # the audit log as the older version wrote it
    conn.execute(
        "INSERT INTO approval_log (time, thread_id, tool, args_fingerprint, decision, scope) "
        "VALUES (1, 't1', 'shell', ?, 'deny', 'once')",
        (fingerprint_args({}),),
    )
    conn.commit()
    conn.close()
    monkeypatch.undo()
    async with Store.open(path) as store:
        [entry] = await store.list_approvals()
        assert (entry.tool, entry.decision, entry.rule) == ("shell", "deny", None)
        kept = await store.add_argument_rule(ArgumentRule.host("fetch_url", "url", "a.example"))
        assert [r.rule for r in await store.list_argument_rules()] == [kept.rule]
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION


async def test_an_older_databases_thread_rules_stay_the_threads_own_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread's "always" kept before rules named their agent covers the thread's own agent
    only; an everywhere rule still covers every agent, and an old one-argument value rule
    still loads (it matches a call only as the module says: see ArgumentRule.matches)."""
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._thread_rule_agents)
    monkeypatch.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
    monkeypatch.setattr(_schema, "SCHEMA_VERSION", mine)
    with Store.open(path):
        pass
    conn = sqlite3.connect(path)  # rules as the older version wrote them
    conn.executemany(
        "INSERT INTO always_allow (tool, thread_id, created_at) VALUES (?, ?, 1)",
        [("write_note", "t1"), ("fetch_url", None)],
    )
    conn.execute(
        "INSERT INTO argument_rules (tool, kind, argument, value, created_at) "
        "VALUES ('query', 'value', 'table', '\"orders\"', 1)"
    )
    conn.commit()
    conn.close()
    monkeypatch.undo()
    async with Store.open(path) as store:
        assert await store.is_allowed("write_note", thread_id="t1")
        assert not await store.is_allowed("write_note", thread_id="t1", agent="Researcher")
        assert await store.is_allowed("fetch_url", thread_id="t1", agent="Researcher")
        [old] = await store.list_argument_rules()
        assert old.rule.matches("query", {"table": "orders"})
        assert not old.rule.matches("query", {"table": "orders", "sql": "DROP TABLE users"})
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
