"""ToolNode: concurrency, order, stable ids, what tools may return, state updates, progress."""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from app.core.errors import UserError
from app.core.state import (
    AgentState,
    ImageBlock,
    MediaRef,
    Message,
    TextBlock,
    ToolResult,
    apply_update,
)
from app.core.tools import Runtime, ToolNode, tool, tool_message_id
from tests.core.tools.helpers import Run, asking, call, error_code, result, results


async def test_calls_run_concurrently_and_results_keep_call_order() -> None:
    ping_seen, pong_seen = asyncio.Event(), asyncio.Event()

    @tool
    async def ping() -> str:
        """Needs pong to have started."""
        ping_seen.set()
        await pong_seen.wait()
        return "ping"

    @tool
    async def pong() -> str:
        """Needs ping to have started."""
        pong_seen.set()
        await ping_seen.wait()
        return "pong"

    node = ToolNode([ping, pong])
    state = asking(call("pong", "c1"), call("ping", "c2"), call("pong", "c3"))
    update = await asyncio.wait_for(Run().once(node, state), 10)
    assert [r.output for r in results(update)] == ["pong", "ping", "pong"]
    assert [r.call_id for r in results(update)] == ["c1", "c2", "c3"]


async def test_sync_tools_run_concurrently_in_threads() -> None:
    first, second = threading.Event(), threading.Event()

    @tool
    def left() -> str:
        """Needs right to have started."""
        first.set()
        return "left" if second.wait(10) else "alone"

    @tool
    def right() -> str:
        """Needs left to have started."""
        second.set()
        return "right" if first.wait(10) else "alone"

    update = await Run().once(
        ToolNode([left, right]), asking(call("left", "c1"), call("right", "c2"))
    )
    assert [r.output for r in results(update)] == ["left", "right"]


async def test_one_tool_message_per_call_with_stable_ids() -> None:
    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    node = ToolNode([echo])
    state = asking(call("echo", "c1", text="a"), call("echo", "c2", text="b"))
    first = await Run().once(node, state)
    again = await Run().once(node, state)
    ids = [m.message_id for m in first["context"]]
    assert ids == [tool_message_id("a1", "c1"), tool_message_id("a1", "c2")]
    assert [m.message_id for m in again["context"]] == ids
    assert all(m.role == "tool" for m in first["context"])
    merged = apply_update(apply_update(state, first), again)
    assert [m.message_id for m in merged.context] == ["u1", "a1", *ids]


async def test_nothing_to_do_without_tool_calls() -> None:
    node = ToolNode([])
    assert await node(AgentState()) == {}
    assert await node(AgentState(context=[Message.text_message("hi", role="assistant")])) == {}


async def test_the_last_assistant_message_is_used() -> None:
    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    older = asking(call("echo", "old", text="old"))
    newer = Message(role="assistant", content=[call("echo", "new", text="new")], message_id="a2")
    state = older.with_update(newer)
    update = await Run().once(ToolNode([echo]), state)
    assert [r.call_id for r in results(update)] == ["new"]


async def test_plain_functions_are_wrapped_and_duplicate_names_refused() -> None:
    def double(x: int) -> int:
        """Double it."""
        return 2 * x

    node = ToolNode([double])
    assert node.specs[0].name == "double"
    update = await node(asking(call("double", x=4)))
    assert result(update).output == 8
    with pytest.raises(UserError, match="two tools are named 'double'"):
        ToolNode([double, double])


class Weather(BaseModel):
    """A forecast."""

    city: str
    celsius: float


async def test_what_a_tool_may_return() -> None:
    image = ImageBlock(media=MediaRef(kind="url", url="https://example.com/a.png"))

    @tool
    def text() -> str:
        """Text."""
        return "sunny"

    @tool
    def data() -> dict[str, Any]:
        """JSON."""
        return {"temps": [1, 2.5], "ok": True, "none": None}

    @tool
    def model() -> Weather:
        """A pydantic model."""
        return Weather(city="Oslo", celsius=3)

    @tool
    def picture() -> list[Any]:
        """Content blocks."""
        return [TextBlock(text="Here it is"), image]

    @tool
    def nothing() -> None:
        """Nothing."""

    @tool
    def opaque() -> object:
        """Not JSON."""
        return object()

    names = ["text", "data", "model", "picture", "nothing", "opaque"]
    node = ToolNode([text, data, model, picture, nothing, opaque])
    update = await Run().once(node, asking(*(call(n, n) for n in names)))
    outputs = [r.output for r in results(update)]
    assert outputs[:5] == [
        "sunny",
        {"temps": [1, 2.5], "ok": True, "none": None},
        {"city": "Oslo", "celsius": 3.0},
        "Here it is",
        None,
    ]
    assert update["context"][3].content[1] == image
    assert error_code(update, 5) == "bad_return"
    assert "returned a object, which cannot be sent to the model" in str(outputs[5])


def _append(left: list[str], right: list[str]) -> list[str]:
    return [*left, *right]


class TripState(AgentState):
    """A custom state some tools update."""

    city: str = ""
    visited: Annotated[list[str], _append] = []


async def test_tool_result_updates_state_through_reducers() -> None:
    @tool
    def select_city(city: str) -> ToolResult:
        """Select a city."""
        return ToolResult(message=f"City updated to '{city}'.", state={"city": city})

    @tool
    def visit(city: str) -> ToolResult:
        """Visit a city."""
        note = Message.text_message(f"visited {city}", role="user", message_id="note")
        return ToolResult(message="ok", state={"visited": [city], "context": [note]})

    state = asking(
        call("select_city", "c1", city="Oslo"),
        call("visit", "c2", city="Rome"),
        state_cls=TripState,
    )
    update = await Run().once(ToolNode([select_city, visit]), state)
    new = apply_update(state, update)
    assert new.city == "Oslo"
    assert new.visited == ["Rome"]
    assert [m.message_id for m in new.context][-3:] == ["a1:c1", "a1:c2", "note"]
    assert new.context[2].content[0].output == "City updated to 'Oslo'."  # type: ignore[union-attr]


async def test_progress_started_finished_and_reported_from_tools() -> None:
    @tool
    async def slow(runtime: Runtime) -> str:
        """Reports half way."""
        runtime.report_progress("half", 0.5)
        return "done"

    @tool
    def threaded(runtime: Runtime) -> str:
        """Reports from a worker thread."""
        runtime.report_progress("from a thread")
        return "done"

    @tool
    def broken() -> str:
        """Fails."""
        raise RuntimeError("no")

    run = Run()
    await run.once(
        ToolNode([slow, threaded, broken]),
        asking(call("slow", "c1"), call("threaded", "c2"), call("broken", "c3")),
    )
    await asyncio.sleep(0)  # let the thread's report reach the loop
    progress = run.progress()
    for call_id, last in (("c1", "finished"), ("c2", "finished"), ("c3", "error")):
        mine = [status for cid, status in progress if cid == call_id]
        assert mine[0] == "started" and mine[-1] == last
    assert ("c1", "progress") in progress and ("c2", "progress") in progress
    messages = {e.message for e in run.events if getattr(e, "status", "") == "progress"}  # type: ignore[union-attr]
    assert messages == {"half", "from a thread"}
    assert all(e.thread_id == "t1" for e in run.events)


async def test_runtime_fields_and_idempotency_key_stability() -> None:
    seen: list[Runtime] = []

    @tool
    def book(room: str, runtime: Runtime) -> str:
        """Book a room."""
        seen.append(runtime)
        return runtime.idempotency_key

    node = ToolNode([book])
    state = asking(call("book", "c1", room="A"), call("book", "c2", room="A"))
    run = Run(permissions=("x",), locale="nb")
    first = await run.once(node, state)
    retry = await run.once(node, state)
    other_thread = await Run(thread_id="t2").once(node, state)
    keys = [r.output for r in results(first)]
    assert keys == [r.output for r in results(retry)]
    assert keys[0] != keys[1]
    assert result(other_thread).output != keys[0]
    assert len(str(keys[0])) == 64
    rt = seen[0]
    assert (rt.thread_id, rt.call_id, rt.tool) == ("t1", "c1", "book")
    assert rt.budget is run.budget
    assert rt.config.values["locale"] == "nb"
