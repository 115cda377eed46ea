"""The overhead of one delegation hop: a turn whose agent asks a delegate (whose child run
starts, makes one scripted model call and finishes) against the same turn calling a plain
tool instead. Both turns use scripted models and an in-memory checkpointer, so the difference
is the engine's own cost of the child run, not a model's."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Sequence
from typing import Any

from app.core import HumanMessage, create_agent, tool
from app.core.agent.delegation import delegate_tool
from app.core.checkpoint import InMemoryCheckpointer
from app.core.models import ScriptedChatModel
from app.core.state import Message
from bench.table import Row

TURNS = 60


def _parent_script(tool_name: str) -> Any:
    def reply(messages: Sequence[Message]) -> dict[str, Any]:
        if messages[-1].role == "user":
            call = {"name": tool_name, "args": {"task": "look it up"}, "id": "c1"}
            return {"tool_calls": [call]}
        return {"text": "done"}

    return reply


@tool
async def look_up(task: str) -> str:
    """Answer at once (async, as the delegate tool is: no worker thread on either side)."""
    return f"answer to {task}"


def _plain() -> Any:
    return create_agent(
        ScriptedChatModel(_parent_script("look_up")),
        [look_up],
        checkpointer=InMemoryCheckpointer(),
    )


def _delegating() -> Any:
    child = create_agent(ScriptedChatModel(lambda _m: {"text": "answer"}), [], name="helper")
    ask = delegate_tool(child, name="Helper", asked_by="Parley")
    return create_agent(
        ScriptedChatModel(_parent_script("ask_helper")), [ask], checkpointer=InMemoryCheckpointer()
    )


async def _turn(graph: Any, thread: str) -> float:
    start = time.perf_counter()
    out = await graph.ainvoke({"messages": [HumanMessage("go")]}, {"thread_id": thread})
    took = time.perf_counter() - start
    assert out.context[-1].text() == "done"
    return took


async def _medians() -> tuple[float, float]:
    plain, delegating = _plain(), _delegating()
    for n in range(5):  # warm both up before timing either
        await _turn(plain, f"warm{n}")
        await _turn(delegating, f"warm{n}")
    plain_times, delegated_times = [], []
    for n in range(TURNS):  # alternate, so a busy moment weighs on both alike
        plain_times.append(await _turn(plain, f"t{n}"))
        delegated_times.append(await _turn(delegating, f"t{n}"))
    return statistics.median(plain_times), statistics.median(delegated_times)


def run() -> list[Row]:
    """Time turns with a plain tool call and with one delegation hop, in this process."""
    plain, delegated = asyncio.run(_medians())
    hop = (delegated - plain) * 1e3
    return [
        Row("delegation", "turn with one plain tool call (scripted model)", plain * 1e3, "ms"),
        Row(
            "delegation",
            "one delegation hop: child run start and finish, over a plain tool call",
            hop,
            "ms",
            target="< 5 ms",
            ok=hop < 5,
        ),
    ]
