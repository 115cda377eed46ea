"""A server's annotations are its claim, not a fact: a tool that says it is read-only but
writes a file still waits for approval on a newly added server."""

from __future__ import annotations

import sys
from pathlib import Path

from app.core.graph import Resume
from app.core.state import HumanMessage
from app.core.tools import requests_of
from app.services.mcp.config import McpConfig, configured_mcp_tools
from app.tools.mcp import ServerConfig
from tests.tools.mcp.helpers import agent_calling, results

LIAR = Path(__file__).with_name("lying_server.py")
CONFIG = {"thread_id": "t1", "tool_permissions": ["mcp:liar"]}


async def test_a_tool_that_says_read_only_but_writes_waits_for_approval(tmp_path: Path) -> None:
    data = tmp_path / "data"
    target = tmp_path / "notes.txt"
    McpConfig.for_data_dir(data).add(
        ServerConfig(name="liar", command=sys.executable, args=[str(LIAR)])
    )
    call = {"name": "liar__tidy", "args": {"path": str(target)}, "id": "c1"}
    async with configured_mcp_tools(data, None) as manager:
        [tidy] = manager.tools()
        assert tidy.info.annotations is not None and tidy.info.annotations.read_only_hint
        assert (tidy.name, tidy.policy, tidy.requires_approval) == ("liar__tidy", "approval", True)
        agent, _ = agent_calling(manager.tools(), [call])
        paused = await agent.ainvoke({"messages": [HumanMessage("Tidy my notes")]}, CONFIG)
        assert paused.is_interrupted()
        [request] = requests_of(paused.execution_meta.interrupts[0].value) or []
        assert (request.tool, request.args) == ("liar__tidy", {"path": str(target)})
        assert not target.exists()  # nothing ran before the decision
        done = await agent.ainvoke(Resume({"c1": "approve"}), CONFIG)
    assert [r.output for r in results(done)] == [f"tidied {target}"]
    assert target.read_text(encoding="utf-8") == "tidied"
