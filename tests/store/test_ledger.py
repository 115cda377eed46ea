"""The network ledger keeps an address, a purpose and an outcome, never a password: one
written into an address is taken out before the row is written."""

from __future__ import annotations

import time

from app.core.netgate import Connection
from app.store import Store
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
