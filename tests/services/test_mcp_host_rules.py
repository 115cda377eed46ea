"""A host rule through a real MCP server that reads URLs the browsers' way (WHATWG, like the
servers written in JavaScript or TypeScript): "fetch for docs.python.org" lets a call to
docs.python.org run unasked, and asks about a URL the server would open on another host
(``https://evil.example\\@docs.python.org/`` opens evil.example there), which then never runs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from app.core.graph import RunConfig
from app.core.models import ScriptedChatModel
from app.core.state import ToolResultBlock
from app.core.tools import ApprovalDecision, ApprovalRequest, ArgumentRule, args_fingerprint
from app.services.mcp.config import McpConfig, configured_mcp_tools
from app.store import Store
from app.tools.mcp import ServerConfig
from tests.services.conversations import conversation

NODE = shutil.which("node")
SERVER = Path(__file__).parents[1] / "tools" / "mcp" / "whatwg_fetch_server.js"

pytestmark = pytest.mark.skipif(
    NODE is None, reason="Node.js (`node` on PATH) runs the browser-style MCP server"
)

PLAIN = "https://docs.python.org/3/"
TRICKS = [
    "https://evil.example\\@docs.python.org/",
    "https://evil.example\\@DOCS.python.org./page",
    "http://evil.example:8080\\@docs.python.org/",
]


class Refuser:
    """Denies every call, remembering what it was asked."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def decide(self, requests: Any) -> list[ApprovalDecision]:
        self.asked += list(requests)
        return [
            ApprovalDecision(call_id=r.call_id, decision="deny", reason="not that host")
            for r in requests
        ]


async def test_a_host_rule_runs_only_the_calls_the_server_opens_on_that_host(
    tmp_path: Path,
) -> None:
    opened = tmp_path / "opened.txt"
    assert NODE is not None
    McpConfig.for_data_dir(tmp_path).add(
        ServerConfig(name="web", command=NODE, args=[str(SERVER), str(opened)])
    )
    urls = [PLAIN, *TRICKS]
    calls = [
        {"name": "web__fetch", "args": {"url": url}, "id": f"c{i}"} for i, url in enumerate(urls)
    ]
    model = ScriptedChatModel([{"text": "", "tool_calls": calls}, {"text": "Fetched."}])
    refuser = Refuser()
    async with (
        configured_mcp_tools(tmp_path, None) as mcp,
        Store.open_data_dir(tmp_path) as store,
    ):
        assert mcp.problems() == {}
        await store.add_argument_rule(ArgumentRule.host("web__fetch", "url", "docs.python.org"))
        chat = conversation(
            store,
            model,
            tools=mcp.tools(),
            approvals=refuser,
            run_config=RunConfig(tool_permissions=frozenset(mcp.permissions())),
        )
        thread = await chat.new_thread("Read the docs")
        state = (await chat.send(thread.id, "Read the docs")).state
        audit = await store.list_approvals(thread_id=thread.id)
    assert state is not None

    # every tricky call was asked about (and denied), the plain one ran by the rule
    assert [r.args["url"] for r in refuser.asked] == TRICKS
    assert opened.read_text().splitlines() == ["docs.python.org"]
    results = {
        b.call_id: b for m in state.context for b in m.content if isinstance(b, ToolResultBlock)
    }
    assert results["c0"].output == "opened docs.python.org"
    assert all("evil" not in str(results[f"c{i}"].output) for i in range(1, len(urls)))
    by_rule = {(e.args_fingerprint, e.rule) for e in audit if e.decision == "allowed_by_rule"}
    assert by_rule == {(args_fingerprint({"url": PLAIN}), "web__fetch for docs.python.org")}
    denied = [e.args_fingerprint for e in audit if e.decision == "deny"]
    assert sorted(denied) == sorted(args_fingerprint({"url": url}) for url in TRICKS)
