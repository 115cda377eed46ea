"""A password written into a model's address never reaches anything Parley keeps or shows:
the spec is refused wherever one is given (pointing to the keyring), and an address that
still holds one (a model built before, a server's error quoting its URL) has it taken out of
the network ledger, the reply's saved error and the exports."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.state import ErrorBlock
from app.providers._retry import RetryPolicy
from app.providers.openai_compat import OpenAIChatModel
from app.services.agents.model import Agent
from app.services.connection_test import check_url
from app.services.workspace import Workspace
from app.store import Store

SECRET = "hunter2secret"


def _closed_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _files_holding(folder: Path, needle: bytes) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]


async def test_an_address_with_a_password_leaves_it_in_no_ledger_error_or_export(
    tmp_path: Path,
) -> None:
    url = f"http://alice:{SECRET}@127.0.0.2:{_closed_port('127.0.0.2')}/v1"
    clean = url.replace(f"alice:{SECRET}@", "")

    def resolve(spec: str) -> OpenAIChatModel:
        return OpenAIChatModel(
            "gpt-4o-mini",
            base_url=url,
            api_key="sk-test",
            retry=RetryPolicy(max_retries=0),
            timeout=5,
        )

    ws = await Workspace.open(tmp_path, resolve_model=resolve, secret_resolver=lambda ref: "x")
    try:
        thread = await ws.threads.create(model="openai:gpt-4o-mini")
        state = await (await ws.runs.send(thread.id, "Hello?"))
        assert state is not None
        (error,) = [b for b in state.context[-1].content if isinstance(b, ErrorBlock)]
        assert clean in error.error and SECRET not in error.error
        assert state.context[-1].metadata["error"] == error.error
        tried = [c for c in await ws.network.recent() if c.host == "127.0.0.2"]
        assert tried and all(SECRET not in c.purpose for c in tried)
        assert tried[0].purpose == f"the model openai:gpt-4o-mini@{clean}"
        for fmt in ("json", "markdown"):
            exported = await ws.threads.export(thread.id, fmt)  # type: ignore[arg-type]
            assert clean.encode() in exported and SECRET.encode() not in exported
    finally:
        await ws.aclose()
    async with Store.open(tmp_path / "parley.db") as store:
        saved = await store.list_connections()
    assert saved and all(SECRET not in c.purpose for c in saved)
    assert _files_holding(tmp_path, SECRET.encode()) == []


async def test_a_thread_or_agent_on_a_spec_with_a_password_is_refused(tmp_path: Path) -> None:
    spec = f"openai:gpt@http://alice:{SECRET}@10.0.0.5/v1"
    ws = await Workspace.open(tmp_path, secret_resolver=lambda ref: "x")
    try:
        with pytest.raises(UserError, match="parley key set openai/10.0.0.5/api-key"):
            await ws.threads.create(model=spec)
        thread = await ws.threads.create(model="openai:gpt")
        with pytest.raises(UserError, match="put the password in the keyring"):
            await ws.threads.set_model(thread.id, spec)
        assert (await ws.threads.get(thread.id)).model == "openai:gpt"
        with pytest.raises(UserError, match="put the password in the keyring"):
            await ws.agents.add(Agent(name="Remote", model=spec))
    finally:
        await ws.aclose()
    assert _files_holding(tmp_path, SECRET.encode()) == []


async def test_an_agent_kept_before_with_a_password_is_exported_without_it(
    tmp_path: Path,
) -> None:
    async with Store.open(tmp_path / "parley.db"):
        pass
    conn = sqlite3.connect(tmp_path / "parley.db")
    with conn:
        conn.execute(
            "INSERT INTO agents (id, name, name_key, model, created_at, updated_at) "
            "VALUES ('old', 'Old', 'old', ?, 0, 0)",
            (f"openai:gpt@http://alice:{SECRET}@10.0.0.5/v1",),
        )
    conn.close()
    ws = await Workspace.open(tmp_path, secret_resolver=lambda ref: "x")
    try:
        exported = (await ws.agents.export(await ws.agents.get("Old"))).data
    finally:
        await ws.aclose()
    assert b'"model": "openai:gpt@http://10.0.0.5/v1"' in exported
    assert SECRET.encode() not in exported


def test_a_server_address_with_a_password_is_refused_in_the_settings() -> None:
    with pytest.raises(UserError) as refused:
        check_url(f"https://alice:{SECRET}@llm.example/v1")
    assert str(refused.value) == (
        "the address holds a user name or password, which Parley never keeps in an address; "
        "put the key in the keyring (Settings > Keys, or parley key set) and use "
        "'https://llm.example/v1'"
    )
