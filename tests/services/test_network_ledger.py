"""The ledger and offline mode through a workspace, against a real OpenAI-compatible server on
127.0.0.2 (a stand-in for another computer): a turn is recorded with the model it was for,
the ledger survives the process in the database, and offline the turn is refused before the
server sees anything, in one sentence."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.netgate import GATE, Connection
from app.core.state import ErrorBlock
from app.providers._retry import RetryPolicy
from app.providers.openai_compat import OpenAIChatModel
from app.services.network import byte_counts, describe_connection, outcome_of, saved_connections
from app.services.workspace import Workspace
from app.store import Store
from tests.providers.replay_server import ReplayServer, Reply, sse_events


@pytest.fixture
def remote() -> Iterator[ReplayServer]:
    server = ReplayServer(host="127.0.0.2")
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    server.start()
    try:
        yield server
    finally:
        server.stop()
        GATE.offline = False


def _open(tmp_path: Path, server: ReplayServer) -> Workspace:
    def resolve(spec: str) -> OpenAIChatModel:
        return OpenAIChatModel(
            "gpt-4o-mini",
            base_url=f"{server.url}/v1",
            api_key="sk-test",
            retry=RetryPolicy(max_retries=0),
            timeout=5,
        )

    return Workspace.open(tmp_path, resolve_model=resolve, secret_resolver=lambda ref: "x")


async def test_a_turn_on_a_remote_server_is_in_the_ledger(
    tmp_path: Path, remote: ReplayServer
) -> None:
    ws = await _open(tmp_path, remote)
    try:
        thread = await ws.threads.create(model="openai:gpt-4o-mini")
        state = await (await ws.runs.send(thread.id, "Hello?"))
        assert state is not None and state.context[-1].text() == "Hello, world!"
        port = int(remote.url.rsplit(":", 1)[1])
        (seen,) = [c for c in await ws.network.recent() if c.host == "127.0.0.2"]
        assert (seen.port, seen.local, seen.outcome) == (port, False, "allowed")
        assert seen.purpose == f"the model openai:gpt-4o-mini@{remote.url}/v1"
        assert ws.network.session_count >= 1
    finally:
        await ws.aclose()
    # kept in the database for the next process (and `parley network`)
    async with Store.open(tmp_path / "parley.db") as store:
        saved = await store.list_connections()
    assert [(c.host, c.purpose) for c in saved] == [(seen.host, seen.purpose)]
    # counted once the model's connection closed: the request out, the streamed reply in
    (row,) = saved
    request = remote.requests[0].get("raw", b"")
    assert row.sent is not None and row.received is not None
    assert row.sent > len(request) and row.received > len(b"".join(sse_events("openai_text.sse")))


async def test_offline_refuses_the_turn_before_the_server_sees_it(
    tmp_path: Path, remote: ReplayServer
) -> None:
    ws = await _open(tmp_path, remote)
    try:
        await ws.settings.save(ws.settings.current.model_copy(update={"offline": True}))
        assert ws.network.offline
        thread = await ws.threads.create(model="openai:gpt-4o-mini")
        state = await (await ws.runs.send(thread.id, "Hello?"))
        assert remote.requests == []
        assert state is not None
        said = " ".join(b.error for b in state.context[-1].content if isinstance(b, ErrorBlock))
        port = int(remote.url.rsplit(":", 1)[1])
        assert f"Parley is offline, so it did not connect to 127.0.0.2:{port}" in said, said
        refused = [c for c in await ws.network.recent() if c.outcome == "refused"]
        assert refused and refused[0].host == "127.0.0.2"
        await ws.settings.save(ws.settings.current.model_copy(update={"offline": False}))
        assert not GATE.offline
    finally:
        await ws.aclose()


async def test_the_saved_ledger_is_read_newest_first_without_a_workspace(tmp_path: Path) -> None:
    now = time.time()
    seen = [
        Connection(now + n, "127.0.0.1", 8000 + n, f"test {n}", True, "allowed") for n in range(3)
    ]
    async with Store.open(tmp_path / "parley.db") as store:
        await store.record_connections(seen)
    newest = await saved_connections(tmp_path, limit=2)
    assert [(c.port, c.purpose) for c in newest] == [(8002, "test 2"), (8001, "test 1")]
    assert [c.port for c in await saved_connections(tmp_path, limit=0)] == [8002]  # one at least


async def test_a_connection_nothing_answered_is_saved_as_no_answer(tmp_path: Path) -> None:
    opened = Connection(time.time(), "127.0.0.1", 11434, "Ollama's models", True, "allowed")
    opened = dataclasses.replace(opened, ref="1:2:3")
    closed = dataclasses.replace(opened, outcome="unanswered", sent=0, received=0)
    async with Store.open(tmp_path / "parley.db") as store:
        await store.record_connections([opened])
        await store.record_connections([closed])  # as its socket closed
    (saved,) = await saved_connections(tmp_path)
    assert saved.outcome == "unanswered"
    assert outcome_of(saved) == "no answer" and byte_counts(saved) == ""
    assert describe_connection(saved).endswith("Ollama's models  no answer")
