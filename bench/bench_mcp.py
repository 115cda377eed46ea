"""MCP: what Parley adds to a tool call on a real stdio server, and how long a server takes
to start.

- A call through the agent's ``ToolNode`` (checks, budget, progress, result conversion) on
  the SDK-built demo server, beside the same call made directly with the SDK's ``Client`` on
  its own connection to the same server.
- A whole agent turn (scripted model asks for the call, then answers), beside the same turn
  with an in-process tool plus one direct SDK call: the difference is what MCP costs inside
  the agent.
- Starting the published ``mcp-server-time`` until its tools are listed, through Parley's
  connection and through the SDK alone.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from mcp import Client, StdioServerParameters

from app.core.agent import create_agent
from app.core.budget import Budget
from app.core.graph.context import RunContext, RunControl, bind_context
from app.core.graph.run_config import RunConfig
from app.core.models.scripted import ScriptedChatModel
from app.core.state import AgentState, HumanMessage, Message, ToolCallBlock
from app.core.tools import ToolNode, tool
from app.tools.mcp import McpConnection, McpManager
from bench.table import Row
from tests.tools.mcp.helpers import demo_config, time_config

CALLS = 200
TURNS = 60
STARTS = 3
TARGET_MS = 5.0


@tool
async def local_add(a: int, b: int) -> int:
    """Add two numbers in process."""
    return a + b


async def _best_of_both(
    first: Callable[[], Awaitable[Any]],
    second: Callable[[], Awaitable[Any]],
    runs: int,
    rounds: int = 5,
) -> tuple[float, float]:
    """Best time per run of each, the two measured in turns so load changes hit both."""
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, work in enumerate((first, second)):
            start = time.perf_counter()
            for _ in range(runs):
                await work()
            best[i] = min(best[i], time.perf_counter() - start)
    return best[0] / runs, best[1] / runs


def _params(conn: McpConnection) -> StdioServerParameters:
    config = conn.config
    assert config.command is not None
    return StdioServerParameters(command=config.command, args=list(config.args))


async def _calls(manager: McpManager) -> tuple[float, float]:
    conn = manager.connection("demo")
    node = ToolNode(manager.tools())
    call = ToolCallBlock(id="c1", name="demo__add", args={"a": 2, "b": 3})
    state = AgentState(context=[Message(role="assistant", content=[call], message_id="a1")])
    ctx = RunContext(
        run_id="bench",
        thread_id="t1",
        config=RunConfig(tool_permissions=frozenset(manager.permissions())),
        budget=Budget(),
        control=RunControl(),
        node="tools",
        task_id="task",
        sink=lambda event: None,
    )

    async def through_parley() -> None:
        with bind_context(ctx):
            update = await node(state)
        assert update["context"][0].content[0].output == "5", update

    async with Client(_params(conn), cache=None) as direct:

        async def through_sdk() -> None:
            result = await direct.call_tool("add", {"a": 2, "b": 3})
            assert result.structured_content == {"result": 5}

        await through_sdk()
        await through_parley()
        parley, sdk = await _best_of_both(through_parley, through_sdk, CALLS)
    return parley, sdk


async def _turns(manager: McpManager, sdk_call: float) -> tuple[float, float]:
    def agent(name: str, tools: list[Any]) -> Any:
        def script(_: Any) -> dict[str, Any]:
            return {"text": "", "tool_calls": [{"name": name, "args": {"a": 2, "b": 3}}]}

        turns: list[dict[str, Any]] = []
        for _ in range(TURNS * 5 + 2):
            turns += [script(None), {"text": "5"}]
        return create_agent(ScriptedChatModel(turns, chunk_size=64), tools)

    config = {"tool_permissions": manager.permissions()}
    with_mcp = agent("demo__add", list(manager.tools()))
    with_local = agent("local_add", [local_add])

    def turn(graph: Any) -> Callable[[], Awaitable[Any]]:
        async def work() -> None:
            done = await graph.ainvoke({"messages": [HumanMessage("2+3?")]}, config)
            assert done.context[-1].text() == "5"

        return work

    await turn(with_mcp)()
    await turn(with_local)()
    mcp_turn, local_turn = await _best_of_both(turn(with_mcp), turn(with_local), TURNS)
    return mcp_turn, local_turn + sdk_call


async def _starts(log_dir: Path) -> tuple[float, float]:
    config = time_config()
    parley_best = sdk_best = float("inf")
    for _ in range(STARTS):
        conn = McpConnection(config, log_dir=log_dir)
        start = time.perf_counter()
        await conn.ensure_started()
        parley_best = min(parley_best, time.perf_counter() - start)
        assert len(conn.tools) == 2
        await conn.stop()
        start = time.perf_counter()
        async with Client(_params(conn), cache=None) as client:
            listed = await client.list_tools()
            sdk_best = min(sdk_best, time.perf_counter() - start)
        assert len(listed.tools) == 2
    return parley_best, sdk_best


async def _measure() -> list[Row]:
    with TemporaryDirectory() as tmp:
        # the user allowed the tools, so a call measures the call and not an approval pause
        allowed = demo_config(policy="allowed")
        async with McpManager([allowed], log_dir=tmp) as manager:
            await manager.start()
            parley_call, sdk_call = await _calls(manager)
            mcp_turn, local_turn_plus_sdk = await _turns(manager, sdk_call)
        parley_start, sdk_start = await _starts(Path(tmp))
    extra_call = (parley_call - sdk_call) * 1000
    extra_turn = (mcp_turn - local_turn_plus_sdk) * 1000
    return [
        Row(
            group="mcp",
            name=f"tool call through the agent's ToolNode ({extra_call:+.2f} ms)",
            value=parley_call * 1000,
            unit="ms/call",
            peer=sdk_call * 1000,
            peer_name="SDK Client.call_tool",
            target=f"< {TARGET_MS:g} ms extra",
            ok=extra_call < TARGET_MS,
        ),
        Row(
            group="mcp",
            name=f"agent turn with one MCP call ({extra_turn:+.2f} ms)",
            value=mcp_turn * 1000,
            unit="ms/turn",
            peer=local_turn_plus_sdk * 1000,
            peer_name="same turn, in-process tool + SDK call",
            target=f"< {TARGET_MS:g} ms extra",
            ok=extra_turn < TARGET_MS,
        ),
        Row(
            group="mcp",
            name="stdio server start (mcp-server-time, until tools listed)",
            value=parley_start * 1000,
            unit="ms",
            peer=sdk_start * 1000,
            peer_name="SDK Client alone",
        ),
    ]


def run() -> list[Row]:
    """Measure and return the rows for the benchmark table."""
    return asyncio.run(_measure())


if __name__ == "__main__":
    from bench.table import render

    print(render(run()))
