"""The whole path with encoded secrets: a tool that echoes its secret URL-encoded, JSON-escaped,
as a repr and in base64 (alone and in a basic-auth header), in its result, its progress and its
error. None of it may reach the database file, its WAL, either export, the log or the model."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from app.core import Runtime, tool
from app.core.models import ScriptedChatModel
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.store import Store
from tests.core.tools.test_encoded_secrets import ENCODINGS, SECRETS
from tests.services.conversations import conversation
from tests.services.memory_keyring import MemoryKeyring


def leaked_forms(secret: str) -> dict[str, bytes]:
    """Every encoded form of ``secret``, and each as it looks inside stored JSON."""
    forms: dict[str, bytes] = {}
    for name, encode in ENCODINGS.items():
        text = encode(secret)
        forms[name] = text.encode()
        forms[f"{name}, in JSON"] = json.dumps(text)[1:-1].encode()
        forms[f"{name}, in ASCII JSON"] = json.dumps(text, ensure_ascii=False)[1:-1].encode()
    return forms


def everything(token: str) -> str:
    return "\n".join(f"{name}: {encode(token)}" for name, encode in ENCODINGS.items())


@tool(secret_refs={"token": "svc/api-key"})
def call_service(token: str, runtime: Runtime) -> str:
    """Call the service, echoing the token in every encoding."""
    runtime.report_progress(everything(token))
    return everything(token)


@tool(secret_refs={"token": "svc/api-key"})
def call_service_badly(token: str) -> str:
    """Fail, with the token in every encoding in the error."""
    raise ConnectionError(f"request failed:\n{everything(token)}")


def files_holding(folder: Path, forms: dict[str, bytes]) -> list[str]:
    found = []
    for path in folder.iterdir():
        data = path.read_bytes()
        found += [f"{path.name}: {name}" for name, form in forms.items() if form in data]
    return found


@pytest.mark.parametrize("secret", SECRETS)
async def test_no_encoding_of_the_secret_is_kept_or_sent(
    tmp_path: Path, secret: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    keyring = MemoryKeyring()
    keyring.set_password("parley", "svc/api-key", secret)
    model = ScriptedChatModel(
        [
            {
                "tool_calls": [
                    {"id": "c1", "name": "call_service", "args": {}},
                    {"id": "c2", "name": "call_service_badly", "args": {}},
                ]
            },
            {"text": "Done."},
        ]
    )
    forms = leaked_forms(secret)
    events: list[str] = []
    data = tmp_path / "data"
    data.mkdir()
    store = Store.open(data / "parley.db")
    try:
        chat = conversation(
            store, model,
            tools=[call_service, call_service_badly],
            secret_resolver=KeyringSecretResolver(backend=keyring),
            on_event=lambda e: events.append(repr(e)),
        )  # fmt: skip
        thread = await chat.new_thread("leak test")
        state = (await chat.send(thread.id, "call it")).state
        assert state is not None
        outputs = [r for m in state.context for r in m.tool_results()]
        assert [r.status for r in outputs] == ["completed", "error"]
        assert str(outputs[0].output).count("[redacted secret svc/api-key]") >= len(ENCODINGS)
        assert str(outputs[1].output).startswith(
            "Tool 'call_service_badly' failed: ConnectionError: request failed:"
        )
        exported = await store.export_json(thread.id)
        markdown = (await store.export_markdown(thread.id)).encode()
        assert (data / "parley.db-wal").exists()
        while_open = files_holding(data, forms)  # the WAL is still there
    finally:
        await store.aclose()
    sent = json.dumps([[m.model_dump(mode="json") for m in call] for call in model.calls])
    assert while_open == []
    assert files_holding(data, forms) == []
    assert [n for n, f in forms.items() if f in exported] == []
    assert [n for n, f in forms.items() if f in markdown] == []
    assert [n for n, f in forms.items() if f in sent.encode()] == []
    assert [n for n, f in forms.items() if f in "\n".join(events).encode()] == []
    assert [n for n, f in forms.items() if f in caplog.text.encode()] == []
