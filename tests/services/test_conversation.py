"""Chat turns through the service: real SQLite file, real keyring backend, scripted model."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from app.core import Runtime, tool
from app.core.models import ScriptedChatModel
from app.core.tools import ApprovalDecision, ApprovalRequest
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.services.conversation import Conversation
from app.store import Store
from tests.services.conversations import conversation
from tests.services.memory_keyring import MemoryKeyring

MARKER = "sk-MARKER-7f3a9c-do-not-leak"


@tool(secret_refs={"token": "crm/api-token"}, requires_approval=True)
def echo_token(note: str, token: str, runtime: Runtime) -> str:
    """Call the CRM (and carelessly echo the token back)."""
    return f"{note}: called with {token}"


class Approver:
    """Approves every call, remembering what it was asked."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def decide(self, requests: Any) -> list[ApprovalDecision]:
        self.asked += list(requests)
        return [ApprovalDecision(call_id=r.call_id, decision="approve") for r in requests]


def _service(store: Store, model: ScriptedChatModel, resolver: Any, approvals: Any) -> Conversation:
    return conversation(
        store, model, tools=[echo_token], secret_resolver=resolver, approvals=approvals
    )


def _script() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            {"tool_calls": [{"name": "echo_token", "args": {"note": "ping"}}]},
            {"text": "Done."},
        ]
    )


async def test_pending_approval_survives_a_restart(tmp_path: Path) -> None:
    model = _script()
    keyring = MemoryKeyring()
    resolver = KeyringSecretResolver(backend=keyring)
    keyring.set_password("parley", "crm/api-token", MARKER)

    store = Store.open(tmp_path / "parley.db")
    chat = _service(store, model, resolver, None)
    thread = await chat.new_thread("use the crm")
    paused = (await chat.send(thread.id, "use the crm")).state
    assert paused.is_interrupted()
    await store.aclose()  # quit with the approval pending

    store = Store.open(tmp_path / "parley.db")
    approver = Approver()
    chat = _service(store, model, resolver, approver)
    assert await store.checkpointer.apending_interrupts(thread.id)
    done = (await chat.resume(thread.id)).state
    assert [r.tool for r in approver.asked] == ["echo_token"]
    assert done.context[-1].text() == "Done."
    log = await store.list_approvals(thread_id=thread.id)
    assert {r.decision for r in log} >= {"approve"}
    await store.aclose()


async def test_a_secret_never_leaves_the_call(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    model = _script()
    keyring = MemoryKeyring()
    keyring.set_password("parley", "crm/api-token", MARKER)
    store = Store.open(tmp_path / "parley.db")
    chat = _service(store, model, KeyringSecretResolver(backend=keyring), Approver())
    thread = await chat.new_thread("leak test")
    done = (await chat.send(thread.id, "use the crm")).state
    result = done.context[-2].tool_results()[0]
    assert result.status == "completed"
    assert "ping: called with" in str(result.output)
    assert MARKER not in str(result.output)

    sent = json.dumps([[m.model_dump(mode="json") for m in call] for call in model.calls])
    assert MARKER not in sent
    exported = await store.export_json(thread.id)
    markdown = await store.export_markdown(thread.id)
    audit = await store.list_approvals()
    await store.aclose()
    assert MARKER not in str(exported) and MARKER not in markdown and MARKER not in str(audit)
    for path in tmp_path.iterdir():  # the database, its WAL and anything else written
        assert MARKER.encode() not in path.read_bytes(), path.name
    assert MARKER not in caplog.text


async def test_always_allow_persists_and_can_be_revoked(tmp_path: Path) -> None:
    keyring = MemoryKeyring()
    keyring.set_password("parley", "crm/api-token", "t0ken-value")
    resolver = KeyringSecretResolver(backend=keyring)

    class Always(Approver):
        async def decide(self, requests: Any) -> list[ApprovalDecision]:
            self.asked += list(requests)
            return [
                ApprovalDecision(call_id=r.call_id, decision="always", scope="tool")
                for r in requests
            ]

    store = Store.open(tmp_path / "parley.db")
    first = Always()
    chat = _service(store, _script(), resolver, first)
    await chat.send((await chat.new_thread("a")).id, "go")
    assert len(first.asked) == 1
    await store.aclose()

    store = Store.open(tmp_path / "parley.db")  # after a restart, in another thread
    second = Approver()
    chat = _service(store, _script(), resolver, second)
    done = (await chat.send((await chat.new_thread("b")).id, "go again")).state
    assert second.asked == []  # the rule let it run unasked
    assert done.context[-1].text() == "Done."
    assert await store.revoke_allow_rule("echo_token") is True
    chat = _service(store, _script(), resolver, second)
    await chat.send((await chat.new_thread("c")).id, "and again")
    assert len(second.asked) == 1  # asked again once revoked
    await store.aclose()


async def test_writing_instead_of_answering_an_approval_is_audited(tmp_path: Path) -> None:
    keyring = MemoryKeyring()
    keyring.set_password("parley", "crm/api-token", "t0ken-value")
    resolver = KeyringSecretResolver(backend=keyring)
    async with Store.open(tmp_path / "parley.db") as store:
        model = ScriptedChatModel(
            [
                {"tool_calls": [{"name": "echo_token", "args": {"note": "ping"}}]},
                {"text": "Fine, I will not call it."},
            ]
        )
        chat = _service(store, model, resolver, None)
        thread = await chat.new_thread("x")
        await chat.send(thread.id, "use the crm")  # pauses: nobody to ask
        done = (await chat.send(thread.id, "never mind")).state
        assert done.context[-1].text() == "Fine, I will not call it."
        log = await store.list_approvals(thread_id=thread.id)
        abandoned = [r for r in log if r.decision == "deny"]
        assert len(abandoned) == 1
        assert "new message" in (abandoned[0].reason or "")
        # the model was told the call did not run
        sent = model.calls[-1]
        results = [r for m in sent if m.role == "tool" for r in m.tool_results()]
        assert results and results[0].status == "error"
