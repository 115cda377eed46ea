"""Two runs on one thread at once (two windows, two processes): neither loses the other's
work silently."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.core.errors import CheckpointConflict
from app.core.graph import START, StateGraph
from app.core.state import AgentState, Message
from app.store import Store


async def test_the_later_of_two_concurrent_runs_is_refused(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "parley.db") as store:
        gate, entered = asyncio.Event(), asyncio.Event()

        async def slow_reply(s: AgentState) -> Message:
            entered.set()
            await gate.wait()
            return Message.text_message("reply A", role="assistant")

        def quick_reply(s: AgentState) -> Message:
            return Message.text_message("reply B", role="assistant")

        def graph(node: object) -> object:
            return (
                StateGraph(AgentState)
                .add_node("reply", node)  # type: ignore[arg-type]
                .add_edge(START, "reply")
                .compile(checkpointer=store.checkpointer)
            )

        a, b = graph(slow_reply), graph(quick_reply)
        cfg = {"thread_id": "t"}
        run_a = asyncio.create_task(
            a.ainvoke({"messages": [Message.text_message("from A")]}, cfg)  # type: ignore[attr-defined]
        )
        await asyncio.wait_for(entered.wait(), 10)  # A saved its input and waits in its node
        done_b = await b.ainvoke({"messages": [Message.text_message("from B")]}, cfg)  # type: ignore[attr-defined]
        gate.set()
        with pytest.raises(CheckpointConflict, match="another Parley window or process"):
            await run_a
        latest = await store.checkpointer.aget("t", AgentState)
        assert latest is not None
        assert [m.text() for m in latest.state.context] == [m.text() for m in done_b.context]
        assert latest.state.context[-1].text() == "reply B"
