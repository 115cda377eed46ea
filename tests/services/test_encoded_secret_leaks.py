"""The whole path with encoded secrets: a tool that echoes its secret URL-encoded, JSON-escaped,
as a repr and in base64 (alone and in a basic-auth header), in its result, its progress and its
error. None of it may reach the database file, its WAL, either export, the log or the model."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from app.core import Runtime, tool
from app.core.models import ScriptedChatModel
from app.store import Store
from tests.core.tools.test_encoded_secrets import ENCODINGS, SECRETS
from tests.services.conversations import conversation
from tests.services.secret_scan import files_holding, keyring_holding, leaked_forms, turn_leaks


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


@pytest.mark.parametrize("secret", SECRETS)
async def test_no_encoding_of_the_secret_is_kept_or_sent(
    tmp_path: Path, secret: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
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
            secret_resolver=keyring_holding("svc/api-key", secret),
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
    assert while_open == []
    assert files_holding(data, forms) == []
    assert turn_leaks(forms, model, (exported, markdown), events, caplog.text) == []
