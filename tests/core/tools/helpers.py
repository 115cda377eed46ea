"""Small builders for tool tests: a run context, an assistant message with calls, a runner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import JsonValue

from app.core.budget import Budget, BudgetLimits
from app.core.graph.context import GraphInterrupt, RunContext, RunControl, bind_context
from app.core.graph.events import GraphEvent, ToolProgress
from app.core.graph.run_config import RunConfig
from app.core.state import AgentState, Interrupt, Message, ToolCallBlock, ToolResultBlock
from app.core.tools import ToolNode


def call(name: str, call_id: str = "c1", **args: Any) -> ToolCallBlock:
    """A tool call as the model would send it."""
    return ToolCallBlock(id=call_id, name=name, args=args)


def asking(*calls: ToolCallBlock, state_cls: type[AgentState] = AgentState) -> AgentState:
    """A state whose last message is an assistant message with ``calls``."""
    msg = Message(role="assistant", content=list(calls), message_id="a1")
    return state_cls(context=[Message.text_message("hi", message_id="u1"), msg])


class Run:
    """A tiny stand-in for a graph run: one context, events collected, resume by id."""

    def __init__(
        self,
        permissions: tuple[str, ...] = (),
        thread_id: str | None = "t1",
        limits: BudgetLimits | None = None,
        **config: Any,
    ) -> None:
        self.events: list[GraphEvent] = []
        self.budget = Budget(limits)
        self.thread_id = thread_id
        self.config = {"tool_permissions": list(permissions), **config}
        self.resume: dict[str, JsonValue] = {}
        self.saved_before: frozenset[str] = frozenset()
        """Answers in ``resume`` that were not given for this execution (saved earlier)."""
        self.interrupts: list[Interrupt] = []

    def context(self) -> RunContext:
        """A fresh context for one execution of the node, as the engine builds it."""
        return RunContext(
            run_id="run1",
            thread_id=self.thread_id,
            config=RunConfig.of(self.config),
            budget=self.budget,
            control=RunControl(),
            node="tools",
            task_id="task1",
            sink=self.events.append,
            resume=dict(self.resume),
            fresh_answers=frozenset(self.resume) - self.saved_before,
        )

    async def once(self, node: ToolNode, state: AgentState) -> dict[str, Any]:
        """Execute the node once; raises ``GraphInterrupt`` when it pauses."""
        with bind_context(self.context()):
            return await node(state)

    async def until_done(
        self, node: ToolNode, state: AgentState, answer: Callable[[JsonValue], JsonValue]
    ) -> dict[str, Any]:
        """Execute the node, answering each interrupt with ``answer`` and resuming."""
        for _ in range(5):
            try:
                return await self.once(node, state)
            except GraphInterrupt as exc:
                self.interrupts.append(exc.interrupt)
                self.resume[exc.interrupt.id] = answer(exc.interrupt.value)
        raise AssertionError("the node kept interrupting")

    def progress(self) -> list[tuple[str, str]]:
        """``(call_id, status)`` of every tool progress event, in order."""
        return [(e.call_id, e.status) for e in self.events if isinstance(e, ToolProgress)]


def results(update: dict[str, Any]) -> list[ToolResultBlock]:
    """The result block of each tool message in a node's update, in order."""
    return [m.content[0] for m in update["context"] if m.role == "tool"]  # type: ignore[misc]


def result(update: dict[str, Any], index: int = 0) -> ToolResultBlock:
    """The result block of the ``index``-th tool message."""
    return results(update)[index]


def error_code(update: dict[str, Any], index: int = 0) -> str | None:
    """The ``tool_error`` code of the ``index``-th tool message (``None`` if it succeeded)."""
    tools = [m for m in update["context"] if m.role == "tool"]
    code: str | None = tools[index].metadata.get("tool_error")
    return code
