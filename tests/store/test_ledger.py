"""The network ledger keeps an address, a purpose and an outcome, never a password: one
written into an address is taken out before the row is written."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.core.netgate import Connection
from app.store import SCHEMA_VERSION, Store, _schema
from tests.store.helpers import scalar


async def test_a_purpose_naming_an_address_with_a_password_is_kept_without_it(
    store: Store,
) -> None:
    seen = Connection(
        time.time(),
        "10.0.0.5",
        8080,
        "the model openai:gpt@http://alice:hunter2secret@10.0.0.5:8080/v1",
        local=False,
        outcome="allowed",
        ref="1-1",
    )
    await store.record_connections([seen])
    (row,) = await store.list_connections()
    assert row.purpose == "the model openai:gpt@http://10.0.0.5:8080/v1"
    assert (
        scalar(store.path, "SELECT count(*) FROM network_ledger WHERE purpose LIKE '%hunter2%'")
        == 0
    )


async def test_a_ledger_from_before_served_requests_is_kept_and_takes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "parley.db"
    mine = _schema.MIGRATIONS.index(_schema._inbound_requests)
    opened = Connection(time.time() - 5, "10.0.0.5", 443, "the model openai:gpt", False, "allowed")
    with monkeypatch.context() as older:
        older.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:mine])
        older.setattr(_schema, "SCHEMA_VERSION", mine)
        async with Store.open(path) as store:
            await store.record_connections([opened])
    received = Connection(
        time.time(), "127.0.0.1", 50123, "API request /v1/models by key ci-bot: answered",
        True, "allowed", "request",
    )  # fmt: skip
    async with Store.open(path) as store:
        await store.record_connections([received])
        assert await store.list_connections() == [received, opened]
    assert scalar(path, "PRAGMA user_version") == SCHEMA_VERSION
