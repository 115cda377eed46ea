"""A real MCP server given a keyring secret spills it in every encoding: its environment on
stderr, a result, a progress report, an error, and last words as it crashes mid-call. None of
it may reach the database file, its WAL, the logs, either export, the events or the model."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from app.core.models import ScriptedChatModel
from app.store import Store
from app.tools.mcp import McpManager, ServerConfig
from tests.core.tools.test_encoded_secrets import SECRETS
from tests.services.conversations import conversation
from tests.services.secret_scan import files_holding, keyring_holding, leaked_forms, turn_leaks

LEAKY = Path(__file__).parents[1] / "tools" / "mcp" / "leaky_server.py"
REF = "mcp/leaky/token"
REDACTED = f"[redacted secret {REF}]"


def _model() -> ScriptedChatModel:
    calls = ["leaky__environment", "leaky__refuse", "leaky__crash"]
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"id": f"c{n}", "name": name, "args": {}}]} for n, name in enumerate(calls)
    ]
    return ScriptedChatModel([*turns, {"text": "Done."}])


@pytest.mark.parametrize("secret", SECRETS)
async def test_no_encoding_of_a_servers_secret_is_kept_or_sent(
    tmp_path: Path, secret: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server = ServerConfig(
        name="leaky",
        command=sys.executable,
        args=[str(LEAKY)],
        env={"EVIL_TOKEN": f"{{keyring:{REF}}}"},
        policy="allowed",
    )
    data = tmp_path / "data"
    model = _model()
    forms = leaked_forms(secret)
    events: list[str] = []
    resolver = keyring_holding(REF, secret)
    async with (
        McpManager([server], log_dir=data / "logs" / "mcp", secret_resolver=resolver) as mcp,
        Store.open_data_dir(data) as store,
    ):
        assert await mcp.start() == {}
        chat = conversation(
            store,
            model,
            tools=mcp.tools(),
            run_config={"tool_permissions": mcp.permissions()},
            on_event=lambda e: events.append(repr(e)),
        )
        thread = await chat.new_thread("leak test")
        state = (await chat.send(thread.id, "show me the environment")).state
        assert state is not None
        outputs = [r for m in state.context for r in m.tool_results()]
        exported = await store.export_json(thread.id)
        markdown = (await store.export_markdown(thread.id)).encode()
        assert (data / "parley.db-wal").exists()
        while_open = files_holding(data, forms)
        reason = mcp.connection("leaky").reason or ""
    assert [r.status for r in outputs] == ["completed", "error", "error"]
    assert str(outputs[0].output).count(REDACTED) >= len(forms) // 3
    assert str(outputs[1].output).startswith(
        "Tool 'leaky__refuse' failed: McpToolError: Error executing tool refuse: bad token:"
    )
    crashed = str(outputs[2].output)
    assert crashed.startswith(
        f"Tool 'leaky__crash' failed: McpServerError: server 'leaky' stopped unexpectedly "
        f"(last words: EVIL_TOKEN={REDACTED} "
    )
    assert crashed.count("\n") == 0  # one line of the server's stderr, no more
    log = (data / "logs" / "mcp" / "leaky.log").read_text()
    assert f"EVIL_TOKEN={REDACTED}" in log  # the log still says what the server said
    assert while_open == []
    assert files_holding(data, forms) == []
    assert (
        turn_leaks(forms, model, (exported, markdown), events, caplog.text, server_state=reason)
        == []
    )
