"""Running graphs: steps, concurrency, merging, limits, errors and events."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest

from app.core.checkpoint import InMemoryCheckpointer
from app.core.errors import GraphRecursionError, UserError
from app.core.graph import (
    END,
    START,
    MessageDelta,
    NodeError,
    NodeFinished,
    NodeStarted,
    RunContext,
    RunFailed,
    RunFinished,
    StateGraph,
)
from app.core.state import AgentState, Message
from tests.core.recording import RecordingCheckpointer


class Counter(AgentState):
    n: int = 0
    log: Annotated[list[str], operator.add] = []


def test_sync_invoke_runs_a_linear_graph() -> None:
    g = (
        StateGraph(Counter)
        .add_node("inc", lambda s: {"n": s.n + 1})
        .add_node("double", lambda s: {"n": s.n * 2})
        .add_edge(START, "inc")
        .add_edge("inc", "double")
        .add_edge("double", END)
        .compile()
    )
    out = g.invoke({"n": 4})
    assert out.n == 10
    assert out.execution_meta.status == "completed"
    assert out.execution_meta.step == 2


async def test_same_step_nodes_run_concurrently_and_merge_in_node_order() -> None:
    a_started, b_started = asyncio.Event(), asyncio.Event()

    async def a(s: Counter) -> dict[str, Any]:
        a_started.set()
        await asyncio.wait_for(b_started.wait(), 5)
        return {"log": ["a"]}

    async def b(s: Counter) -> dict[str, Any]:
        b_started.set()
        await asyncio.wait_for(a_started.wait(), 5)
        return {"log": ["b"]}

    g = (
        StateGraph(Counter)
        .add_node("a", a)
        .add_node("b", b)
        .add_node("join", lambda s: {"log": ["join"]})
        .add_edge(START, "b")
        .add_edge(START, "a")
        .add_edge("a", "join")
        .add_edge("b", "join")
        .add_edge("join", END)
        .compile()
    )
    out = await g.ainvoke({})
    # both waited on each other, so they ran at once; the merge follows node order, and the
    # join node ran once although two edges lead to it
    assert out.log == ["a", "b", "join"]


async def test_dict_update_touches_only_its_keys() -> None:
    g = (
        StateGraph(Counter)
        .add_node("only_log", lambda s: {"log": ["x"]})
        .add_edge(START, "only_log")
        .compile()
    )
    out = await g.ainvoke({"n": 7, "messages": [Message.text_message("hi")]})
    assert out.n == 7 and out.log == ["x"] and out.context[0].text() == "hi"


async def test_conditional_loop_and_step_limit() -> None:
    g = (
        StateGraph(Counter)
        .add_node("inc", lambda s: {"n": s.n + 1})
        .add_edge(START, "inc")
        .add_conditional_edges("inc", lambda s: END if s.n >= 5 else "inc")
        .compile()
    )
    assert (await g.ainvoke({})).n == 5
    with pytest.raises(GraphRecursionError, match="step limit \\(3\\)"):
        await g.ainvoke({}, {"step_limit": 3})


async def test_router_may_fan_out_to_a_list() -> None:
    g = (
        StateGraph(Counter)
        .add_node("start", lambda s: None)
        .add_node("x", lambda s: {"log": ["x"]})
        .add_node("y", lambda s: {"log": ["y"]})
        .add_edge(START, "start")
        .add_conditional_edges("start", lambda s: ["y", "x"], ["x", "y"])
        .compile()
    )
    assert (await g.ainvoke({})).log == ["x", "y"]


async def test_router_returning_an_unknown_node_fails_clearly() -> None:
    g = (
        StateGraph(Counter)
        .add_node("a", lambda s: None)
        .add_node("b", lambda s: None)
        .add_edge(START, "a")
        .add_conditional_edges("a", lambda s: "c")
        .compile()
    )
    with pytest.raises(UserError, match="'c'"):
        await g.ainvoke({})


async def test_node_exception_names_the_node_and_keeps_the_last_checkpoint() -> None:
    def boom(s: Counter) -> None:
        raise ValueError("disk on fire")

    saver = InMemoryCheckpointer()
    g = (
        StateGraph(Counter)
        .add_node("inc", lambda s: {"n": s.n + 1})
        .add_node("boom", boom)
        .add_edge(START, "inc")
        .add_edge("inc", "boom")
        .compile(checkpointer=saver)
    )
    events = []
    with pytest.raises(NodeError, match="'boom'.*disk on fire"):
        async for ev in g.astream({}, {"thread_id": "t1"}):
            events.append(ev)
    assert isinstance(events[-1], RunFailed) and events[-1].node == "boom"
    snap = await g.aget_state({"thread_id": "t1"})
    assert snap is not None and snap.state.n == 1 and snap.next == ("boom",)


async def test_a_failing_node_cancels_its_siblings() -> None:
    cancelled = asyncio.Event()

    async def slow(s: Counter) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def bad(s: Counter) -> None:
        raise RuntimeError("nope")

    g = (
        StateGraph(Counter)
        .add_node("slow", slow)
        .add_node("bad", bad)
        .add_edge(START, "slow")
        .add_edge(START, "bad")
        .compile()
    )
    with pytest.raises(NodeError, match="'bad'"):
        await g.ainvoke({})
    assert cancelled.is_set()


async def test_astream_yields_typed_events_with_message_deltas() -> None:
    async def speak(s: AgentState, ctx: RunContext) -> Message:
        whole = Message(message_id="m1", role="assistant", content=[])
        for piece in ["Hel", "lo"]:
            chunk = Message(message_id="m1", role="assistant", content=piece, delta=True)
            ctx.stream_message(chunk)
            whole = whole + chunk
        return whole.model_copy(update={"delta": False})

    g = StateGraph(AgentState).add_node("speak", speak).add_edge(START, "speak").compile()
    events = [ev async for ev in g.astream({})]
    kinds = [ev.kind for ev in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    deltas = [ev for ev in events if isinstance(ev, MessageDelta)]
    assert "".join(d.chunk.text() for d in deltas) == "Hello"
    assert any(isinstance(ev, NodeStarted) and ev.node == "speak" for ev in events)
    done = [ev for ev in events if isinstance(ev, NodeFinished)]
    assert done[0].node == "speak"
    final = events[-1]
    assert isinstance(final, RunFinished) and final.state.context[0].text() == "Hello"


async def test_execution_meta_is_kept_current() -> None:
    seen: list[tuple[str, int, str]] = []

    def look(s: AgentState, ctx: RunContext) -> None:
        m = s.execution_meta
        seen.append((m.current_node, m.step, m.status))

    g = (
        StateGraph(AgentState)
        .add_node("one", look)
        .add_node("two", look)
        .add_edge(START, "one")
        .add_edge("one", "two")
        .compile()
    )
    out = await g.ainvoke({})
    assert seen == [("one", 0, "running"), ("two", 1, "running")]
    assert out.execution_meta.status == "completed" and out.execution_meta.current_node == "two"


async def test_sync_node_can_run_in_a_worker_thread() -> None:
    import threading

    main = threading.get_ident()
    where: list[int] = []

    def blocking(s: AgentState) -> None:
        where.append(threading.get_ident())

    g = (
        StateGraph(AgentState)
        .add_node("b", blocking, run_in_thread=True)
        .add_edge(START, "b")
        .compile()
    )
    await g.ainvoke({})
    assert where and where[0] != main


async def test_remaining_steps_are_visible_to_nodes() -> None:
    seen: list[int] = []

    def look(s: Counter, ctx: RunContext) -> dict[str, int]:
        seen.append(ctx.remaining_steps)
        return {"n": s.n + 1}

    g = (
        StateGraph(Counter)
        .add_node("look", look)
        .add_edge(START, "look")
        .add_conditional_edges("look", lambda s: END if s.n >= 3 else "look")
        .compile()
    )
    await g.ainvoke({}, {"step_limit": 10})
    assert seen == [10, 9, 8]


def test_invoke_refuses_to_nest_event_loops() -> None:
    g = StateGraph(AgentState).add_node("a", lambda s: None).add_edge(START, "a").compile()

    async def inner() -> None:
        with pytest.raises(UserError, match="ainvoke"):
            g.invoke({})

    asyncio.run(inner())


async def test_a_node_returning_a_tool_result_is_saved_as_a_small_change() -> None:
    from app.core.state import ToolResult

    saver = RecordingCheckpointer()
    g = (
        StateGraph(Counter)
        .add_node("pick", lambda s: ToolResult(message="picked", state={"n": 3}))
        .add_edge(START, "pick")
        .compile(checkpointer=saver)
    )
    out = await g.ainvoke({}, {"thread_id": "t"})
    step = saver.changes[1]
    assert step is not None
    assert step.upserted == (out.context[-1].message_id,)
    assert "n" in step.fields


async def test_a_failed_run_reports_what_was_raised_and_still_dumps() -> None:
    def boom(s: Counter) -> None:
        raise OSError("disk on fire")

    g = StateGraph(Counter).add_node("boom", boom).add_edge(START, "boom").compile()
    events = []
    with pytest.raises(NodeError):
        async for ev in g.astream({}):
            events.append(ev)
    failed = events[-1]
    assert isinstance(failed, RunFailed) and isinstance(failed.exception, NodeError)
    assert isinstance(failed.exception.error, OSError)
    assert failed.model_dump() == {
        "kind": "run_failed",
        "namespace": (),
        "thread_id": None,
        "node": "boom",
        "error": "node 'boom' failed: OSError: disk on fire",
    }
