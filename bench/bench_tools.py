"""Cost of the pre-call pipeline per tool call, the tool's own time taken out.

Each figure runs a ``ToolNode`` on an assistant message inside a run context (permissions,
budget and progress events on) and subtracts the time of calling the tool function directly.
The peer is LangGraph's prebuilt ``ToolNode`` on the same tool, likewise.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from app.core.budget import Budget
from app.core.graph.context import RunContext, RunControl, bind_context
from app.core.graph.run_config import RunConfig
from app.core.state import AgentState, Message, ToolCallBlock
from app.core.tools import InMemoryApprovalPolicy, Runtime, ToolNode, tool
from bench.table import Row

RUNS = 1500
ROUNDS = 3
TARGET_MS = 0.2
FULL_TARGET_MS = 0.1
"""Every check on costs less than half of what LangGraph's ToolNode costs with none."""


@tool
async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def add_sync(a: int, b: int) -> int:
    """Add two numbers in a worker thread."""
    return a + b


@tool(
    permissions=("math",),
    secret_refs={"token": "math/token"},
    requires_approval=True,
    timeout=5,
)
async def add_guarded(a: int, b: int, token: str, runtime: Runtime) -> int:
    """Add two numbers, with every check switched on."""
    return a + b


def _state(name: str, calls: int) -> AgentState:
    blocks = [ToolCallBlock(id=f"c{i}", name=name, args={"a": i, "b": 2}) for i in range(calls)]
    return AgentState(context=[Message(role="assistant", content=blocks, message_id="a1")])


def _context(events: list[Any]) -> RunContext:
    return RunContext(
        run_id="bench",
        thread_id="t1",
        config=RunConfig(tool_permissions=frozenset({"math"})),
        budget=Budget(),
        control=RunControl(),
        node="tools",
        task_id="task",
        sink=events.append,
    )


async def _best(work: Callable[[], Awaitable[Any]], runs: int) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(runs):
            await work()
        best = min(best, time.perf_counter() - start)
    return best / runs


async def _direct(calls: int) -> float:
    async def work() -> None:
        for i in range(calls):
            await add.fn(a=i, b=2)

    return await _best(work, RUNS) / calls


async def _parley(node: ToolNode, name: str, calls: int, runs: int = RUNS) -> float:
    state = _state(name, calls)
    events: list[Any] = []

    async def work() -> None:
        events.clear()
        with bind_context(_context(events)):
            update = await node(state)
        assert update["context"][0].content[0].status == "completed", update

    return await _best(work, runs) / calls


async def _langgraph(calls: int) -> float | None:
    try:
        from langchain_core.messages import AIMessage
        from langchain_core.tools import tool as lc_tool
        from langgraph.prebuilt import ToolNode as LGToolNode
        from langgraph.runtime import Runtime as LGRuntime
    except ImportError:
        return None

    @lc_tool
    async def lc_add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    node = LGToolNode([lc_add])
    tool_calls = [{"name": "lc_add", "args": {"a": i, "b": 2}, "id": f"c{i}"} for i in range(calls)]
    inputs = {"messages": [AIMessage(content="", tool_calls=tool_calls)]}
    config: Any = {"configurable": {"__pregel_runtime": LGRuntime()}}

    async def work() -> None:
        await node.ainvoke(inputs, config)

    return await _best(work, RUNS // 3) / calls


async def _measure() -> list[Row]:
    direct_one, direct_batch = await _direct(1), await _direct(8)
    plain = ToolNode([add])
    policy = InMemoryApprovalPolicy()
    policy.allow("add_guarded", None)
    guarded = ToolNode(
        [add_guarded],
        secret_resolver=lambda ref: "s3cret-value",
        tool_authorize=lambda call, runtime: True,
        approval_policy=policy,
    )
    one = await _parley(plain, "add", 1) - direct_one
    batch = await _parley(plain, "add", 8) - direct_batch
    full = await _parley(guarded, "add_guarded", 1) - direct_one
    threaded = await _parley(ToolNode([add_sync]), "add_sync", 1, RUNS // 3) - direct_one
    peer_one, peer_batch = await _langgraph(1), await _langgraph(8)

    def row(name: str, seconds: float, peer: float | None, target: float | None = TARGET_MS) -> Row:
        ms = seconds * 1000
        return Row(
            group="tools",
            name=name,
            value=ms,
            unit="ms/call",
            peer=None if peer is None else (peer - direct_one) * 1000,
            peer_name="LangGraph ToolNode" if peer is not None else "",
            target=f"< {target} ms" if target is not None else "",
            ok=(ms < target) if target is not None else None,
        )

    return [
        row("pre-call pipeline, 1 call", one, peer_one),
        row("pre-call pipeline, 8 parallel calls", batch, peer_batch),
        row(
            "all checks on (perm, authorize, rule, secret, timeout), beside LangGraph with none",
            full,
            peer_one,
            FULL_TARGET_MS,
        ),
        row("sync tool (adds the worker-thread hop)", threaded, None, target=None),
    ]


def run() -> list[Row]:
    """Measure and return the rows for the benchmark table."""
    return asyncio.run(_measure())


if __name__ == "__main__":
    from bench.table import render

    print(render(run()))
