"""Runs inside a private D-Bus session with a real gnome-keyring (see test_secret_service.py).

Usage: python -m tests.secrets._secret_service_child DATA_DIR unlocked|locked
Prints one JSON line with what it saw.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import keyring

from app.core import Runtime, tool
from app.core.models import ScriptedChatModel
from app.core.tools import ApprovalDecision
from app.core.tools.secrets import SecretError
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.store import Store
from tests.services.conversations import conversation

MARKER = "sk-REAL-KEYRING-MARKER-51c2"


@tool(secret_refs={"token": "crm/api-token"}, requires_approval=True)
def echo_token(note: str, token: str, runtime: Runtime) -> str:
    """Call the CRM, carelessly echoing the token."""
    return f"{note}: called with {token}"


class Approve:
    async def decide(self, requests: object) -> list[ApprovalDecision]:
        return [ApprovalDecision(call_id=r.call_id, decision="approve") for r in requests]  # type: ignore[attr-defined]


async def unlocked(data_dir: Path) -> dict[str, object]:
    resolver = KeyringSecretResolver()
    resolver.set("crm/api-token", MARKER)
    model = ScriptedChatModel(
        [{"tool_calls": [{"name": "echo_token", "args": {"note": "ping"}}]}, {"text": "Done."}]
    )
    async with Store.open(data_dir / "parley.db") as store:
        chat = conversation(
            store, model, tools=[echo_token], secret_resolver=resolver, approvals=Approve()
        )
        thread = await chat.new_thread("real keyring")
        state = (await chat.send(thread.id, "use the crm")).state
        assert state is not None
        exported = await store.export_json(thread.id)
        markdown = await store.export_markdown(thread.id)
    sent = json.dumps([[m.model_dump(mode="json") for m in call] for call in model.calls])
    files = {p.name: MARKER.encode() in p.read_bytes() for p in data_dir.iterdir()}
    return {
        "backend": type(keyring.get_keyring()).__module__,
        "result": str(state.context[-2].tool_results()[0].output),
        "in_files": files,
        "in_export": MARKER.encode() in exported or MARKER in markdown,
        "sent_to_model": MARKER in sent,
        "in_state": MARKER in state.model_dump_json(),
    }


def locked() -> dict[str, object]:
    try:
        KeyringSecretResolver().get("crm/api-token")
    except SecretError as exc:
        return {"error": str(exc)}
    return {"error": None}


if __name__ == "__main__":
    where, mode = Path(sys.argv[1]), sys.argv[2]
    out = asyncio.run(unlocked(where)) if mode == "unlocked" else locked()
    print(json.dumps(out))
