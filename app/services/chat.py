"""``ChatService``: runs chat turns on a thread — the one place the window and the terminal
both go through to talk to the engine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.core.agent import create_agent
from app.core.errors import ParleyError
from app.core.graph import GraphEvent, Resume
from app.core.models.protocol import ChatModel
from app.core.state import AgentState, Message
from app.core.tools import (
    ApprovalHandler,
    Tool,
    answer_approvals,
    requests_of,
)
from app.core.tools.secrets import SecretSource
from app.services.approval_policy import StoreApprovalPolicy
from app.store import Store, Thread

__all__ = ["ChatService", "ThreadUnavailable"]

EventSink = Callable[[GraphEvent], None]

DEFAULT_SYSTEM_PROMPT = "You are Parley, a helpful assistant. Answer clearly and briefly."


class ThreadUnavailable(ParleyError, LookupError):
    """The thread cannot take this turn: there is no such thread, or nothing to resume."""


def _title_of(text: str, width: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


class ChatService:
    """Runs turns of one model on threads kept in ``store``.

    Approvals go to ``approvals`` (a dialog or the terminal); when there is none, a turn that
    needs one stays paused and saved, and :meth:`resume` continues it later.
    """

    def __init__(
        self,
        store: Store,
        model: ChatModel,
        *,
        model_spec: str,
        tools: Sequence[Tool[..., Any]] = (),
        secret_resolver: SecretSource | None = None,
        approvals: ApprovalHandler | None = None,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        run_config: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.model = model
        self.model_spec = model_spec
        self.approvals = approvals
        self.run_config = dict(run_config or {})
        self.policy = StoreApprovalPolicy(store)
        self.agent = create_agent(
            model,
            tools,
            system_prompt=system_prompt,
            secret_resolver=secret_resolver,
            approval_policy=self.policy,
            checkpointer=store.checkpointer,
            trim_context=True,
        )

    async def new_thread(self, first_text: str = "") -> Thread:
        """Create a thread titled after its first message."""
        return await self.store.create_thread(_title_of(first_text), model=self.model_spec)

    async def send(
        self, thread_id: str, text: str, on_event: EventSink | None = None
    ) -> AgentState:
        """Add the user's message to the thread and run the agent until it answers (asking
        for approvals on the way), stops, or pauses with nobody to ask.

        Raises :class:`ThreadUnavailable` when there is no thread ``thread_id``: a mistyped
        id must not silently start a new conversation under that id."""
        await self._require_thread(thread_id)
        await self._abandon_pending(thread_id)
        return await self._drive(thread_id, {"messages": [Message.text_message(text)]}, on_event)

    async def _abandon_pending(self, thread_id: str) -> None:
        await self.policy.abandon_pending(thread_id)

    async def resume(self, thread_id: str, on_event: EventSink | None = None) -> AgentState:
        """Ask again for the approvals a thread is waiting on, then continue it.

        Raises :class:`ThreadUnavailable` when the thread does not exist or waits for
        nothing."""
        await self._require_thread(thread_id)
        pending = await self.store.checkpointer.apending_interrupts(thread_id)
        if not pending:
            raise ThreadUnavailable(
                f"thread {thread_id} is not waiting for an approval; there is nothing to resume"
            )
        return await self._drive(thread_id, None, on_event, pending_first=True)

    async def _require_thread(self, thread_id: str) -> None:
        if await self.store.get_thread(thread_id) is None:
            raise ThreadUnavailable(f"there is no thread {thread_id}")

    def stop(self, thread_id: str) -> bool:
        """Stop the thread's running turn after its current step."""
        return self.agent.request_stop(thread_id)

    async def _drive(
        self,
        thread_id: str,
        first_input: Any,
        on_event: EventSink | None,
        *,
        pending_first: bool = False,
    ) -> AgentState:
        config = {**self.run_config, "thread_id": thread_id}
        next_input = first_input
        while True:
            if not pending_first:
                async for event in self.agent.astream(next_input, config):
                    if on_event is not None:
                        on_event(event)
            pending_first = False
            snapshot = await self.agent.aget_state(config)
            if snapshot is None:
                raise ThreadUnavailable(f"thread {thread_id} has no saved state")
            state: AgentState = snapshot.state
            interrupts = state.execution_meta.interrupts
            if not interrupts or self.approvals is None:
                return state
            answers = {}
            for item in interrupts:
                if requests_of(item.value) is None:
                    return state
                answers[item.id] = await answer_approvals(self.approvals, item.value)
            next_input = Resume(answers=answers)
