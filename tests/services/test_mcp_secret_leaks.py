"""A real MCP server given a keyring secret spills it in every encoding: its environment on
stderr, a result, a progress report, an error, and last words as it crashes mid-call (over
stdio, the secret in its environment; over HTTP, in its Authorization header). None of it may
reach the database file, its WAL, the logs, either export, the events or the model."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.core.graph import RunConfig
from app.core.models import ScriptedChatModel
from app.core.state import ToolResultBlock
from app.services.logs import setup_logging, stop_logging
from app.store import Store
from app.tools.mcp import McpManager, ServerConfig
from tests.core.tools.test_encoded_secrets import SECRETS
from tests.services.conversations import conversation
from tests.services.secret_scan import files_holding, keyring_holding, leaked_forms, turn_leaks
from tests.tools.mcp.helpers import free_port
from tests.tools.mcp.test_http import HttpDemo

LEAKY = Path(__file__).parents[1] / "tools" / "mcp" / "leaky_server.py"
REF = "mcp/leaky/token"
REDACTED = f"[redacted secret {REF}]"
ASCII_SECRETS = [s for s in SECRETS if s.isascii()]  # a header holds no other


@dataclass
class Turn:
    """What one turn of calls to the leaky server left: results, and every place to scan."""

    outputs: list[ToolResultBlock]
    leaks: list[str]
    files_while_open: list[str]
    files_after: list[str]


async def _turn(
    tmp_path: Path, server: ServerConfig, secret: str, log: pytest.LogCaptureFixture
) -> Turn:
    """Run the calls in a chat turn, Parley logging at DEBUG into the data folder."""
    log.set_level(logging.DEBUG)
    calls = ["leaky__environment", "leaky__refuse", "leaky__crash"]
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"id": f"c{n}", "name": name, "args": {}}]} for n, name in enumerate(calls)
    ]
    model = ScriptedChatModel([*turns, {"text": "Done."}])
    data = tmp_path / "data"
    forms = leaked_forms(secret)
    events: list[str] = []
    resolver = keyring_holding(REF, secret)
    setup_logging(data / "logs", level=logging.DEBUG)
    try:
        async with (
            McpManager([server], log_dir=data / "logs" / "mcp", secret_resolver=resolver) as mcp,
            Store.open_data_dir(data) as store,
        ):
            assert await mcp.start() == {}
            chat = conversation(
                store,
                model,
                tools=mcp.tools(),
                run_config=RunConfig(
                    budget_pause=True, tool_permissions=frozenset(mcp.permissions())
                ),
                on_event=lambda e: events.append(repr(e)),
            )
            thread = await chat.new_thread("leak test")
            state = (await chat.send(thread.id, "show me the environment")).state
            assert state is not None
            exports = (
                await store.export_json(thread.id),
                (await store.export_markdown(thread.id)).encode(),
            )
            assert (data / "parley.db-wal").exists()
            while_open = files_holding(data, forms)
            reason = mcp.connection("leaky").reason or ""
    finally:
        stop_logging()
    ours = "\n".join(r.getMessage() for r in log.records if r.name.startswith("app"))
    return Turn(
        outputs=[r for m in state.context for r in m.tool_results()],
        leaks=turn_leaks(forms, model, exports, events, ours, server_state=reason),
        files_while_open=while_open,
        files_after=files_holding(data, forms),
    )


def _nothing_leaked(turn: Turn) -> None:
    assert [r.status for r in turn.outputs] == ["completed", "error", "error"]
    assert str(turn.outputs[0].output).count(REDACTED) >= 20
    assert str(turn.outputs[1].output).startswith(
        "Tool 'leaky__refuse' failed: McpToolError: Error executing tool refuse: bad token:"
    )
    assert turn.files_while_open == []
    assert turn.files_after == []
    assert turn.leaks == []


@pytest.mark.parametrize("secret", SECRETS)
async def test_no_encoding_of_a_stdio_servers_secret_is_kept_or_sent(
    tmp_path: Path, secret: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = ServerConfig(
        name="leaky",
        command=sys.executable,
        args=[str(LEAKY)],
        env={"EVIL_TOKEN": f"{{keyring:{REF}}}"},
        policy="allowed",
    )
    turn = await _turn(tmp_path, server, secret, caplog)
    _nothing_leaked(turn)
    crashed = str(turn.outputs[2].output)
    assert crashed.startswith(
        f"Tool 'leaky__crash' failed: McpServerError: server 'leaky' stopped unexpectedly "
        f"(last words: EVIL_TOKEN={REDACTED} "
    )
    assert crashed.count("\n") == 0  # one line of the server's stderr, no more
    log = (tmp_path / "data" / "logs" / "mcp" / "leaky.log").read_text()
    assert f"EVIL_TOKEN={REDACTED}" in log  # the log still says what the server said
    assert f"(on stdout, not a message) EVIL_TOKEN={REDACTED}\n" in log


@pytest.fixture
def leaky_http() -> Iterator[HttpDemo]:
    server = HttpDemo(free_port(), LEAKY)
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize("secret", ASCII_SECRETS)
async def test_no_encoding_of_an_http_servers_secret_is_kept_or_sent(
    tmp_path: Path, secret: str, caplog: pytest.LogCaptureFixture, leaky_http: HttpDemo
) -> None:
    server = ServerConfig(
        name="leaky",
        url=leaky_http.url,
        headers={"Authorization": f"Bearer {{keyring:{REF}}}"},
        policy="allowed",
    )
    turn = await _turn(tmp_path, server, secret, caplog)
    _nothing_leaked(turn)
    assert str(turn.outputs[2].output).startswith(
        f"Tool 'leaky__crash' failed: McpServerError: server 'leaky' at {leaky_http.url} dropped "
        "the connection"
    )
