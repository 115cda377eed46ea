"""The servers configured in ``mcp.json`` give a chat turn their tools, through the service,
with the approval asked like for any other tool and the result kept in the thread."""

from __future__ import annotations

from pathlib import Path

from app.core.graph import RunConfig
from app.core.models import ScriptedChatModel
from app.core.state import ToolResultBlock
from app.services.mcp.config import McpConfig, configured_mcp_tools
from app.store import Store
from tests.services.conversations import conversation
from tests.services.test_conversation import Approver
from tests.tools.mcp.helpers import demo_config


async def test_a_chat_turn_uses_a_configured_servers_tool_after_approval(tmp_path: Path) -> None:
    McpConfig.for_data_dir(tmp_path).add(demo_config())
    McpConfig.for_data_dir(tmp_path).add(demo_config("off-server", disabled=True))
    call = {"name": "demo__write_note", "args": {"text": "water the plants"}, "id": "c1"}
    model = ScriptedChatModel([{"text": "", "tool_calls": [call]}, {"text": "Noted."}])
    approver = Approver()
    async with (
        configured_mcp_tools(tmp_path, None) as mcp,
        Store.open_data_dir(tmp_path) as store,
    ):
        assert mcp.problems() == {}
        assert list(mcp.connections) == ["demo"]  # the disabled server is not started
        chat = conversation(
            store,
            model,
            tools=mcp.tools(),
            approvals=approver,
            run_config=RunConfig(budget_pause=True, tool_permissions=frozenset(mcp.permissions())),
        )
        thread = await chat.new_thread("Remember to water the plants")
        state = (await chat.send(thread.id, "Remember to water the plants")).state
        assert state is not None
    assert [(r.tool, r.args) for r in approver.asked] == [
        ("demo__write_note", {"text": "water the plants"})
    ]
    results = [b for m in state.context for b in m.content if isinstance(b, ToolResultBlock)]
    assert [r.output for r in results] == ["noted: water the plants"]
    assert state.context[-1].text() == "Noted."
    assert (tmp_path / "logs" / "mcp" / "demo.log").exists()
