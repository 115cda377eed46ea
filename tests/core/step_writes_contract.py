"""Part of the checkpointer contract: results a step saves before its checkpoint.

A tool call that finished while another call of the same step still ran is saved at once, so a
run cut off mid-step (here: its task cancelled) does not run it again when it resumes; the
cut-off call runs again with the same idempotency key.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.core.checkpoint import Checkpointer
from app.core.graph import END, START, StateGraph
from app.core.state import AgentState, Message, ToolCallBlock
from app.core.tools import Runtime, ToolNode, tool
from tests.core.checkpoint_contract import Saver

__all__ = ["StepWritesContract"]

SECRET = "sk-live-0123456789"


def _graph(checkpointer: Checkpointer, log: list[str], hang: asyncio.Event | None) -> Any:
    @tool(secret_refs={"token": "vault/key"})
    async def quick(label: str, token: str, runtime: Runtime) -> str:
        """Log the label; answer with the secret, as a careless tool might."""
        log.append(f"quick {label} {runtime.idempotency_key}")
        return f"quick {label} with {token}"

    @tool(timeout=60)
    async def slow(label: str, runtime: Runtime) -> str:
        """Log the label, then wait while ``hang`` is unset."""
        log.append(f"start {label} {runtime.idempotency_key}")
        if hang is not None:
            await hang.wait()
        log.append(f"done {label} {runtime.idempotency_key}")
        return f"slow {label}"

    return (
        StateGraph(AgentState)
        .add_node("tools", ToolNode([quick, slow], secret_resolver=lambda ref: SECRET))
        .add_edge(START, "tools")
        .add_edge("tools", END)
        .compile(checkpointer=checkpointer)
    )


def _asking() -> dict[str, Any]:
    calls = [
        ToolCallBlock(id="c1", name="quick", args={"label": "one"}),
        ToolCallBlock(id="c2", name="slow", args={"label": "two"}),
    ]
    return {"context": [Message(role="assistant", content=calls, message_id="a1")]}


class StepWritesContract:
    """Tests of ``aput_write``/``aget_writes``. Needs a ``checkpointer`` fixture."""

    async def test_writes_belong_to_the_latest_checkpoint_until_the_next(
        self, checkpointer: Checkpointer
    ) -> None:
        saver = Saver(checkpointer, "t", AgentState())
        first = await saver.apply(Message.text_message("one"))
        await checkpointer.aput_write("t", first, "task:c1", '{"a": 1}')
        await checkpointer.aput_write("t", first, "task:c2", "two")
        await checkpointer.aput_write("t", first, "task:c1", "one")  # replaced
        await checkpointer.aput_write("t", "not-a-checkpoint", "task:c3", "lost")
        assert await checkpointer.aget_writes("t", first) == {"task:c1": "one", "task:c2": "two"}
        assert await checkpointer.aget_writes("t", "not-a-checkpoint") == {}
        assert await checkpointer.aget_writes("other", first) == {}
        second = await saver.apply(Message.text_message("two", role="assistant"))
        assert await checkpointer.aget_writes("t", first) == {}  # the checkpoint holds them
        assert await checkpointer.aget_writes("t", second) == {}
        await checkpointer.aput_write("t", first, "task:c1", "late")  # an older step's: dropped
        assert await checkpointer.aget_writes("t", first) == {}
        await checkpointer.aput_write("t", second, "task:c1", "kept")
        await checkpointer.adelete_thread("t")
        assert await checkpointer.aget_writes("t", second) == {}

    async def test_a_cut_off_step_keeps_its_finished_calls(
        self, checkpointer: Checkpointer
    ) -> None:
        log: list[str] = []
        config = {"thread_id": "t"}
        hang = asyncio.Event()
        run = asyncio.create_task(_graph(checkpointer, log, hang).ainvoke(_asking(), config))
        for _ in range(500):
            if len(log) == 2:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # the finished call's result is being saved
        run.cancel()  # the process dies: the step's checkpoint is never written
        await asyncio.gather(run, return_exceptions=True)
        assert sorted(line.split()[0] for line in log) == ["quick", "start"]
        latest = await checkpointer.aget("t", AgentState)
        assert latest is not None
        saved = await checkpointer.aget_writes("t", latest.checkpoint_id)
        assert len(saved) == 1
        body = next(iter(saved.values()))
        assert "quick one with [redacted secret vault/key]" in body  # saved redacted
        assert SECRET not in body

        state = await _graph(checkpointer, log, None).ainvoke(None, config)
        assert sorted(line.split()[0] for line in log) == ["done", "quick", "start", "start"]
        assert sum(line.startswith("quick") for line in log) == 1
        keys = {line.split()[-1] for line in log if not line.startswith("quick")}
        assert len(keys) == 1  # the cut-off call ran again with the same idempotency key
        outputs = [r.output for m in state.context for r in m.tool_results()]
        assert outputs == ["quick one with [redacted secret vault/key]", "slow two"]
        assert await checkpointer.aget_writes("t", latest.checkpoint_id) == {}
