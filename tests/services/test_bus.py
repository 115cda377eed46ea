"""One event bus carries every service's events, each a member of the one typed union."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import get_args

from app.core.models import ScriptedChatModel
from app.services.events import ToolsChanged, WorkspaceEvent
from app.services.workspace import Workspace


async def test_a_failing_mcp_server_is_told_on_the_bus_as_a_typed_event(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text(
        json.dumps({"mcpServers": {"broken": {"command": sys.executable, "args": ["-c", "1/0"]}}})
    )
    model = ScriptedChatModel([])
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda _s: model, secret_resolver=lambda _r: ""
    )
    seen: list[WorkspaceEvent] = []
    ws.events.subscribe(seen.append)
    try:
        await ws.mcp.start_servers()
    finally:
        await ws.aclose()
    changed = [e for e in seen if isinstance(e, ToolsChanged)]
    assert ToolsChanged in get_args(WorkspaceEvent)
    assert [sorted(e.problems) for e in changed] == [[], ["broken"]]  # starting, then failed
    log = tmp_path / "logs" / "mcp" / "broken.log"
    assert changed[-1].problems["broken"] == (
        "server 'broken' exited before it answered (last words: ZeroDivisionError: division by "
        f"zero); its log is {log}"
    )


async def test_a_listener_that_fails_does_not_keep_the_others_from_hearing(
    tmp_path: Path,
) -> None:
    model = ScriptedChatModel([{"text": "hi"}])
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda _s: model, secret_resolver=lambda _r: ""
    )
    heard: list[str] = []

    def broken(_event: WorkspaceEvent) -> None:
        raise RuntimeError("a broken view")

    ws.events.subscribe(broken)
    ws.events.subscribe(lambda e: heard.append(type(e).__name__))
    try:
        thread = await ws.threads.create(title="Hello", model="scripted:a")
    finally:
        await ws.aclose()
    assert heard == ["ThreadsChanged"]
    assert thread.title == "Hello"
