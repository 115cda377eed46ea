"""Interrupts, resume, stop, and child graphs."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest

from app.core.budget import Budget, BudgetLimits
from app.core.checkpoint import InMemoryCheckpointer
from app.core.errors import UserError
from app.core.graph import (
    END,
    START,
    Interrupted,
    RunContext,
    RunControl,
    RunStopped,
    StateGraph,
    interrupt,
)
from app.core.graph.compiled import Resume
from app.core.state import AgentState, Message, RemoveMessage


class Log(AgentState):
    log: Annotated[list[str], operator.add] = []


def ask(question: str) -> Any:
    def node(s: Log) -> dict[str, Any]:
        answer = interrupt({"question": question})
        return {"log": [f"{question}={answer}"]}

    return node


async def test_interrupt_pauses_and_resume_continues_from_there() -> None:
    ran: list[str] = []

    def before(s: Log) -> dict[str, Any]:
        ran.append("before")
        return {"log": ["before"]}

    saver = InMemoryCheckpointer()
    build = (
        StateGraph(Log)
        .add_node("before", before)
        .add_node("ask", ask("color"))
        .add_edge(START, "before")
        .add_edge("before", "ask")
        .add_edge("ask", END)
    )
    g = build.compile(checkpointer=saver)
    cfg = {"thread_id": "t"}
    paused = await g.ainvoke({}, cfg)
    assert paused.is_interrupted()
    [pending] = paused.execution_meta.interrupts
    assert pending.node == "ask" and pending.value == {"question": "color"}
    assert await saver.apending_interrupts("t") == [pending]

    # a different graph object over the same saved data, as after a restart
    again = build.compile(checkpointer=saver)
    done = await again.ainvoke(Resume("blue"), cfg)
    assert done.log == ["before", "color=blue"]
    assert ran == ["before"]  # the node before the pause did not run again
    assert done.execution_meta.status == "completed" and not done.execution_meta.interrupts


async def test_several_interrupts_in_one_step_are_resumed_by_id() -> None:
    saver = InMemoryCheckpointer()
    g = (
        StateGraph(Log)
        .add_node("a", ask("a"))
        .add_node("b", ask("b"))
        .add_edge(START, "a")
        .add_edge(START, "b")
        .compile(checkpointer=saver)
    )
    cfg = {"thread_id": "t"}
    events = [ev async for ev in g.astream({}, cfg)]
    paused = [ev for ev in events if isinstance(ev, Interrupted)]
    assert len(paused) == 1 and len(paused[0].interrupts) == 2
    ia, ib = paused[0].interrupts
    assert ia.id != ib.id
    with pytest.raises(UserError, match="2 interrupts are pending"):
        await g.ainvoke(Resume("x"), cfg)
    # answer only one: the other stays pending
    half = await g.ainvoke(Resume(answers={ib.id: 2}), cfg)
    assert half.is_interrupted() and [i.id for i in half.execution_meta.interrupts] == [ia.id]
    assert half.log == ["b=2"]
    done = await g.ainvoke(Resume(answers={ia.id: 1}), cfg)
    assert done.log == ["b=2", "a=1"]


async def test_two_interrupts_in_one_node_keep_earlier_answers() -> None:
    def two(s: Log) -> dict[str, Any]:
        first = interrupt("first?")
        second = interrupt("second?")
        return {"log": [f"{first},{second}"]}

    g = (
        StateGraph(Log)
        .add_node("two", two)
        .add_edge(START, "two")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    cfg = {"thread_id": "t"}
    s1 = await g.ainvoke({}, cfg)
    assert s1.execution_meta.interrupts[0].value == "first?"
    s2 = await g.ainvoke(Resume(1), cfg)
    assert s2.execution_meta.interrupts[0].value == "second?"
    s3 = await g.ainvoke(Resume(2), cfg)
    assert s3.log == ["1,2"]


async def test_resume_without_pending_interrupt_is_a_clear_error() -> None:
    g = (
        StateGraph(Log)
        .add_node("a", lambda s: None)
        .add_edge(START, "a")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    await g.ainvoke({}, {"thread_id": "t"})
    with pytest.raises(UserError, match="not waiting"):
        await g.ainvoke(Resume(1), {"thread_id": "t"})
    with pytest.raises(UserError, match="checkpointer and a thread_id"):
        await (
            StateGraph(Log)
            .add_node("a", lambda s: None)
            .add_edge(START, "a")
            .compile()
            .ainvoke(Resume(1))
        )


async def test_stop_from_another_task_ends_after_the_current_node() -> None:
    entered = asyncio.Event()
    release = asyncio.Event()

    async def slow(s: Log) -> dict[str, Any]:
        entered.set()
        await release.wait()
        return {"log": ["slow"]}

    g = (
        StateGraph(Log)
        .add_node("slow", slow)
        .add_node("after", lambda s: {"log": ["after"]})
        .add_edge(START, "slow")
        .add_edge("slow", "after")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    cfg = {"thread_id": "t"}
    events: list[Any] = []

    async def consume() -> None:
        async for ev in g.astream({}, cfg):
            events.append(ev)

    task = asyncio.create_task(consume())
    await asyncio.wait_for(entered.wait(), 5)
    assert g.request_stop("t") is True
    release.set()
    await asyncio.wait_for(task, 5)
    assert isinstance(events[-1], RunStopped)
    stopped = events[-1].state
    assert stopped.log == ["slow"] and stopped.is_stopped_requested()
    assert stopped.execution_meta.status == "stopped"
    # the stopped run continues where it was with input None
    done = await g.ainvoke(None, cfg)
    assert done.log == ["slow", "after"] and done.execution_meta.status == "completed"
    assert g.request_stop("t") is False


async def test_a_thread_runs_once_at_a_time() -> None:
    release = asyncio.Event()

    async def wait(s: Log) -> None:
        await release.wait()

    g = (
        StateGraph(Log)
        .add_node("w", wait)
        .add_edge(START, "w")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    first = asyncio.create_task(g.ainvoke({}, {"thread_id": "t"}))
    await asyncio.sleep(0)
    with pytest.raises(UserError, match="already running"):
        await g.ainvoke({}, {"thread_id": "t"})
    release.set()
    await first


async def test_time_travel_resumes_from_an_older_checkpoint() -> None:
    saver = InMemoryCheckpointer()
    g = (
        StateGraph(Log)
        .add_node("a", lambda s: {"log": ["a"]})
        .add_edge(START, "a")
        .compile(checkpointer=saver)
    )
    cfg = {"thread_id": "t"}
    await g.ainvoke({"log": ["one"]}, cfg)
    await g.ainvoke({"log": ["two"]}, cfg)
    history = await g.aget_history(cfg)
    assert [h.step for h in history] == [2, 1, 1, 0]
    assert [h.source for h in history] == ["loop", "input", "loop", "input"]
    first_done = next(h for h in history if h.next_nodes == () and h.step == 1)
    old = await g.aget_state({"thread_id": "t", "checkpoint_id": first_done.checkpoint_id})
    assert old is not None and old.state.log == ["one", "a"]
    branched = await g.ainvoke(
        {"log": ["three"]}, {"thread_id": "t", "checkpoint_id": first_done.checkpoint_id}
    )
    assert branched.log == ["one", "a", "three", "a"]
    latest = await g.aget_state(cfg)
    assert latest is not None and latest.state.log == ["one", "a", "three", "a"]


async def test_child_graph_shares_fields_budget_and_stop() -> None:
    child = (
        StateGraph(AgentState)
        .add_node("reply", lambda s: Message.text_message("from child", role="assistant"))
        .add_edge(START, "reply")
        .compile(name="child")
    )
    seen: list[Budget] = []

    def parent_look(s: AgentState, ctx: RunContext) -> None:
        seen.append(ctx.budget)

    parent = (
        StateGraph(AgentState)
        .add_node("look", parent_look)
        .add_node("child", child)
        .add_edge(START, "look")
        .add_edge("look", "child")
        .add_edge("child", END)
        .compile()
    )
    budget = Budget(BudgetLimits(max_model_calls=3))
    out = await parent.ainvoke({"messages": [Message.text_message("hi")]}, {"budget": budget})
    assert [m.text() for m in out.context] == ["hi", "from child"]
    assert seen == [budget]


async def test_child_graph_updates_reach_the_parent_through_its_reducers() -> None:
    def child_step(s: Log) -> dict[str, Any]:
        return {"log": ["child"], "context": [RemoveMessage(id="old")]}

    child = StateGraph(Log).add_node("c", child_step).add_edge(START, "c").compile(name="child")
    parent = (
        StateGraph(Log)
        .add_node("p", lambda s: {"log": ["parent"]})
        .add_node("child", child)
        .add_edge(START, "p")
        .add_edge("p", "child")
        .compile()
    )
    out = await parent.ainvoke(
        {"messages": [Message.text_message("old", message_id="old"), Message.text_message("hi")]}
    )
    assert out.log == ["parent", "child"]  # the child's entry is added once, nothing repeated
    assert [m.text() for m in out.context] == ["hi"]  # the child's removal is kept


async def test_a_grandchild_graph_updates_the_top_graph_once() -> None:
    grandchild = (
        StateGraph(Log).add_node("g", lambda s: {"log": ["grand"]}).add_edge(START, "g").compile()
    )
    child = (
        StateGraph(Log)
        .add_node("c", lambda s: {"log": ["child"]})
        .add_node("grandchild", grandchild)
        .add_edge(START, "c")
        .add_edge("c", "grandchild")
        .compile()
    )
    parent = StateGraph(Log).add_node("child", child).add_edge(START, "child").compile()
    out = await parent.ainvoke({"log": ["input"]})
    assert out.log == ["input", "child", "grand"]


async def test_child_graph_interrupt_pauses_the_parent_and_resumes() -> None:
    child = StateGraph(Log).add_node("ask", ask("name")).add_edge(START, "ask").compile()
    parent = (
        StateGraph(Log)
        .add_node("child", child)
        .add_edge(START, "child")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    cfg = {"thread_id": "t"}
    events = [ev async for ev in parent.astream({}, cfg)]
    # one pause, reported once, by the graph the caller runs
    assert [ev.namespace for ev in events if isinstance(ev, Interrupted)] == [()]
    paused = await parent.aget_state(cfg)
    assert paused is not None
    assert paused.state.is_interrupted()
    done = await parent.ainvoke(Resume("Ada"), cfg)
    assert done.log == ["name=Ada"]


async def test_shared_run_control_can_be_passed_in() -> None:
    control = RunControl()
    control.request_stop()
    g = (
        StateGraph(Log)
        .add_node("a", lambda s: {"log": ["a"]})
        .add_edge(START, "a")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    out = await g.ainvoke({}, {"thread_id": "t", "control": control})
    assert out.log == [] and out.execution_meta.status == "stopped"


async def test_a_child_graph_stopped_midway_continues_where_it_stopped() -> None:
    entered = asyncio.Event()
    release = asyncio.Event()
    runs: list[str] = []

    async def first(s: Log) -> dict[str, Any]:
        runs.append("first")
        entered.set()
        await release.wait()
        return {"log": ["first"]}

    def second(s: Log) -> dict[str, Any]:
        runs.append("second")
        return {"log": ["second"]}

    child = (
        StateGraph(Log)
        .add_node("first", first)
        .add_node("second", second)
        .add_edge(START, "first")
        .add_edge("first", "second")
        .compile(name="child")
    )
    parent = (
        StateGraph(Log)
        .add_node("child", child)
        .add_node("after", lambda s: {"log": ["after"]})
        .add_edge(START, "child")
        .add_edge("child", "after")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    cfg = {"thread_id": "t"}
    run = asyncio.create_task(parent.ainvoke({}, cfg))
    await asyncio.wait_for(entered.wait(), 5)
    parent.request_stop("t")
    release.set()
    stopped = await asyncio.wait_for(run, 5)
    assert stopped.execution_meta.status == "stopped"
    assert stopped.log == ["first"]  # the child's progress is kept
    assert [t.node for t in stopped.execution_meta.next_tasks] == ["child"]
    done = await parent.ainvoke(None, cfg)
    assert done.log == ["first", "second", "after"]
    assert runs == ["first", "second"]  # nothing ran twice


async def test_sibling_child_nodes_with_prefix_names_keep_their_own_answers() -> None:
    def two_questions(s: Log) -> dict[str, Any]:
        first = interrupt("ab first?")
        second = interrupt("ab second?")
        return {"log": [f"ab={first},{second}"]}

    child = (
        StateGraph(Log)
        .add_node("a", ask("a"))
        .add_node("ab", two_questions)
        .add_edge(START, "a")
        .add_edge(START, "ab")
        .compile()
    )
    parent = (
        StateGraph(Log)
        .add_node("child", child)
        .add_edge(START, "child")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    cfg = {"thread_id": "t"}
    paused = await parent.ainvoke({}, cfg)
    ids = {i.node: i.id for i in paused.execution_meta.interrupts}
    # "a" finishes; its answers are cleared, but not those of "ab", whose id starts the same
    half = await parent.ainvoke(Resume(answers={ids["a"]: 1, ids["ab"]: 2}), cfg)
    [pending] = half.execution_meta.interrupts
    assert pending.value == "ab second?"
    done = await parent.ainvoke(Resume(3), cfg)
    assert sorted(done.log) == ["a=1", "ab=2,3"]
