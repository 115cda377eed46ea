"""A tool that cannot work now is not offered to the model, and says why: the file tools while
no folder is shared, the web tools offline, an MCP tool whose server is off or failed. Each
runs on a real workspace (SQLite in ``tmp_path``) and, for MCP, real stdio servers."""

from __future__ import annotations

import sys
from pathlib import Path

from app.core.models import ScriptedChatModel
from app.services.agents import Agent
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.services.workspace_tools import ToolFix, Unavailable
from tests.tools.mcp.helpers import DEMO


async def _open(tmp_path: Path) -> tuple[Workspace, ScriptedChatModel]:
    model = ScriptedChatModel(lambda _messages: {"text": "Done."})
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=lambda _spec: model, secret_resolver=lambda r: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    return ws, model


async def _offered(ws: Workspace, model: ScriptedChatModel, thread_id: str) -> list[str]:
    """The tool names the model is offered on a turn in the thread, sorted."""
    await (await ws.runs.send(thread_id, "Go"))
    return sorted(t.name for t in model.tools_seen[-1])


async def test_the_file_tools_are_offered_only_once_a_folder_is_shared(tmp_path: Path) -> None:
    ws, model = await _open(tmp_path)
    try:
        librarian = await ws.agents.add(
            Agent(name="Librarian", instructions="Use the notes.", tools=("read_file",))
        )
        agent_thread = await ws.threads.create(agent_id=librarian.id)
        plain = await ws.threads.create()
        await ws.tools.set_enabled(plain.id, ["write_file", "calculator", "list_directory"])

        assert ws.tools.unavailable("read_file") == Unavailable(
            "no folder is shared with Parley", ToolFix.SHARE_FOLDER
        )
        assert ws.agents.tool_unavailable("search_files") == ws.tools.unavailable("read_file")
        assert await _offered(ws, model, agent_thread.id) == []
        assert await _offered(ws, model, plain.id) == ["calculator"]
        assert "read_file" in ws.agents.known_tools()  # an agent may still name it
        # a call asked before the folder went away still shows its tool in the approval dialog
        assert getattr(ws.models.offered_tool("read_file"), "name", None) == "read_file"
        marked = {e.name: e.unavailable for e in ws.tools.catalogue()}
        assert marked["list_directory"] is not None and marked["calculator"] is None

        notes = tmp_path / "notes"
        notes.mkdir()
        await ws.tools.grant_folder(notes)
        assert ws.tools.unavailable("read_file") is None
        assert await _offered(ws, model, agent_thread.id) == ["read_file"]
        assert await _offered(ws, model, plain.id) == ["calculator", "list_directory", "write_file"]
    finally:
        await ws.aclose()


async def test_offline_mode_takes_the_web_tools_away_until_parley_is_online(
    tmp_path: Path,
) -> None:
    ws, model = await _open(tmp_path)
    try:
        thread = await ws.threads.create()
        await ws.tools.set_enabled(thread.id, ["fetch_url", "http_request", "current_time"])
        assert await _offered(ws, model, thread.id) == ["current_time", "fetch_url", "http_request"]

        await ws.preferences.set_offline(True)
        assert ws.network.offline
        reason = ws.tools.unavailable("http_request")
        assert reason is not None and reason.fix is ToolFix.GO_ONLINE
        assert "offline" in reason.reason
        assert await _offered(ws, model, thread.id) == ["current_time"]
        assert {t.name for t in ws.tools.available()}.isdisjoint({"fetch_url", "http_request"})

        await ws.preferences.set_offline(False)
        assert ws.tools.unavailable("fetch_url") is None
        assert await _offered(ws, model, thread.id) == ["current_time", "fetch_url", "http_request"]
    finally:
        await ws.aclose()


async def test_an_mcp_tool_whose_server_is_off_or_failed_is_marked_and_not_offered(
    tmp_path: Path,
) -> None:
    ws, model = await _open(tmp_path)
    try:
        await ws.mcp.save_server("demo", sys.executable, [str(DEMO)])
        await ws.mcp.wait_started()
        assert ws.tools.unavailable("demo__echo") is None
        echoer = await ws.agents.add(Agent(name="Echoer", tools=("demo__echo",)))
        thread = await ws.threads.create(agent_id=echoer.id)
        assert await _offered(ws, model, thread.id) == ["demo__echo"]

        await ws.mcp.set_server_enabled("demo", False)
        await ws.mcp.wait_started()
        assert ws.tools.unavailable("demo__echo") == Unavailable(
            "the MCP server demo is turned off", ToolFix.START_SERVER
        )
        assert await _offered(ws, model, thread.id) == []
        # the agent keeps its tool and can still be changed while the server is off
        assert "tools" not in ws.agents.problems(echoer.model_copy(update={"description": "x"}))

        await ws.mcp.save_server(
            "broken", sys.executable, [str(DEMO), "--exit-at-start", "no licence"]
        )
        await ws.mcp.wait_started()
        failed = ws.tools.unavailable("broken__echo")
        assert failed is not None and failed.fix is ToolFix.START_SERVER
        assert failed.reason.startswith("the MCP server broken is not running: ")
        assert "no licence" in failed.reason

        await ws.mcp.set_server_enabled("demo", True)
        await ws.mcp.wait_started()
        assert ws.tools.unavailable("demo__echo") is None
        assert await _offered(ws, model, thread.id) == ["demo__echo"]
    finally:
        await ws.aclose()
