"""Under the real graph engine (and the changes it reports), every checkpoint reads back as
exactly the state the engine saved: through edits, streaming, removals, pauses, resumes and
time travel."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

from app.core.checkpoint import (
    Checkpoint,
    Checkpointer,
    InMemoryCheckpointer,
    StateChanges,
    new_checkpoint_id,
)
from app.core.graph import END, START, StateGraph, interrupt
from app.core.graph.compiled import Resume
from app.core.state import AgentState, Message, RemoveMessage
from app.core.state.serde import dump_state
from app.store import Store
from tests.store.helpers import PassThrough


class Recording(PassThrough):
    """A checkpointer that keeps what the engine handed it, then passes it on."""

    def __init__(self, inner: Checkpointer) -> None:
        super().__init__(inner)
        self.saved: dict[str, bytes] = {}
        self.with_changes = 0

    async def aput(self, checkpoint: Checkpoint, changes: StateChanges | None) -> None:
        self.saved[checkpoint.checkpoint_id] = dump_state(checkpoint.state)
        self.with_changes += changes is not None
        await self.inner.aput(checkpoint, changes)


class Chat(AgentState):
    turns: Annotated[int, operator.add] = 0


def _graph(cp: Checkpointer) -> Any:
    def reply(s: Chat) -> dict[str, Any]:
        last = s.context[-1]
        n = s.turns
        updates: list[Any] = [
            Message(role="assistant", message_id=f"r{n}", content="Thinking", delta=True),
            Message(role="assistant", message_id=f"r{n}", content=f" about {last.text()}"),
        ]
        if n and n % 3 == 0:
            updates.append(RemoveMessage(id=s.context[0].message_id))
        if n == 4:
            updates.append(Message.text_message("edited first", message_id=s.context[1].message_id))
        return {"context": updates, "turns": 1}

    def approve(s: Chat) -> dict[str, Any]:
        answer = interrupt({"tool": "shell", "args": {"cmd": "ls"}})
        return {"context": [Message.text_message(f"approval: {answer}", role="tool")]}

    def route(s: Chat) -> str:
        return "approve" if s.turns % 2 == 0 else END

    return (
        StateGraph(Chat)
        .add_node("reply", reply)
        .add_node("approve", approve)
        .add_edge(START, "reply")
        .add_conditional_edges("reply", route)
        .add_edge("approve", END)
        .compile(checkpointer=cp)
    )


async def _script(cp: Recording) -> None:
    g = _graph(cp)
    cfg = {"thread_id": "t"}
    for i in range(8):
        question = Message.text_message(f"q{i}", message_id=f"q{i}")
        state = await g.ainvoke({"messages": [question]}, cfg)
        if state.is_interrupted():
            assert await cp.apending_interrupts("t")
            await g.ainvoke(Resume("yes" if i % 4 else "no"), cfg)
            assert await cp.apending_interrupts("t") == []
    history = await cp.alist("t")
    older = history[len(history) // 2].checkpoint_id
    await g.ainvoke(
        {"messages": [Message.text_message("branch", message_id="b")]},
        {"thread_id": "t", "checkpoint_id": older},
    )
    await g.ainvoke({"messages": [Message.text_message("after", message_id="a")]}, cfg)


async def _assert_exact(cp: Recording) -> None:
    assert len(cp.saved) > 20 and cp.with_changes > 10
    assert {i.checkpoint_id for i in await cp.alist("t")} == set(cp.saved)
    for cid, expected in cp.saved.items():
        got = await cp.aget("t", Chat, cid)
        assert got is not None and dump_state(got.state) == expected, cid


async def test_every_checkpoint_reads_back_as_saved(store: Store) -> None:
    for inner in (store.checkpointer, InMemoryCheckpointer()):
        recording = Recording(inner)
        await _script(recording)
        await _assert_exact(recording)


async def test_a_big_read_does_not_block_the_event_loop(store: Store) -> None:
    state = AgentState(context=[Message.text_message(f"m{i} " * 20) for i in range(5000)])
    await store.checkpointer.aput(Checkpoint("big", new_checkpoint_id(), None, 0, state), None)
    ticks = 0
    task = asyncio.ensure_future(store.checkpointer.aget("big", AgentState))
    while not task.done():
        ticks += 1
        await asyncio.sleep(0)
    got = await task
    assert got is not None and len(got.state.context) == 5000
    assert ticks > 1  # the loop kept running while the thread was read
