"""Turns driven to their end on a :class:`~app.services.workspace.Workspace`, for callers
that wait for each answer (the terminal, the server, scripts): approvals are asked through a
handler as they come up, and everything the workspace reports about the thread reaches ``on_event``.

The window does not need this: it listens to the same workspace and answers approvals from its
dialog whenever the user decides.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.errors import UserError
from app.core.graph.budget_pause import BudgetPause
from app.core.state import AgentState, ContentBlock, Message
from app.core.tools import ApprovalHandler, answer_requests
from app.services.events import ApprovalNeeded, BudgetPaused, Problem, WorkspaceEvent
from app.services.pauses import Pause
from app.services.threads import Thread
from app.services.workspace import Workspace

__all__ = ["BudgetHandler", "Conversation", "TurnOutcome"]

BudgetHandler = Callable[[BudgetPause], Awaitable[float | None]]
"""Asked when a run pauses at a budget limit: the new limit, or ``None`` to stop there."""


@dataclass
class TurnOutcome:
    """How a driven turn ended: the thread's saved state (``None`` when nothing was saved) and
    the problems reported on the way."""

    state: AgentState | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def waiting(self) -> bool:
        """Whether the thread still waits for a decision (nobody was there to give it)."""
        return self.state is not None and self.state.is_interrupted()


class Conversation:
    """Sends messages on threads of ``workspace`` and waits for each turn to end, asking
    ``approvals`` whenever the run pauses for one and ``budget`` when it pauses at a budget
    limit; with no handler a paused turn stays paused and saved, for :meth:`resume` later."""

    def __init__(
        self,
        workspace: Workspace,
        approvals: ApprovalHandler | None = None,
        on_event: Callable[[WorkspaceEvent], None] | None = None,
        budget: BudgetHandler | None = None,
    ) -> None:
        self.workspace = workspace
        self.approvals = approvals
        self.budget = budget
        self._on_event = on_event

    async def new_thread(
        self, first_text: str = "", *, model: str | None = None, agent_id: str | None = None
    ) -> Thread:
        """A new thread on ``model`` (the default model when not given), titled after
        ``first_text``, run by the agent ``agent_id`` (Parley when not given)."""
        from app.services.threads import title_of

        if agent_id is None:
            return await self.workspace.threads.create(title=title_of(first_text), model=model)
        return await self.workspace.threads.create(
            title=title_of(first_text), model=model, agent_id=agent_id
        )

    async def send(
        self,
        thread_id: str,
        text: str,
        blocks: Sequence[ContentBlock] = (),
        *,
        notes: Sequence[str] = (),
        history: Sequence[Message] = (),
        token_cap: int | None = None,
    ) -> TurnOutcome:
        """Send the message (``notes`` shown on it, after ``history``) and drive the turn until
        it answers, stops, or pauses with nobody to ask (``token_cap``: the turn's token limit
        is at most that). Raises at once, sending nothing, when the thread does not exist."""
        return await self._drive(
            thread_id,
            lambda: self.workspace.runs.send(
                thread_id, text, blocks, notes=notes, history=history, token_cap=token_cap
            ),
        )

    async def regenerate(self, thread_id: str) -> TurnOutcome:
        """Answer the thread's last message again and drive the turn as :meth:`send` does;
        the earlier answer stays as a branch."""
        await self.workspace.threads.get(thread_id)
        return await self._drive(thread_id, lambda: self.workspace.runs.regenerate(thread_id))

    async def resume(self, thread_id: str) -> TurnOutcome:
        """Ask for the decisions the thread waits on (also after a restart) and continue."""
        await self.workspace.threads.get(thread_id)
        pending = await self.workspace.runs.pending(thread_id)  # the one read of the pause
        if not any(
            isinstance(p, ApprovalNeeded) or (isinstance(p, BudgetPaused) and self.budget)
            for p in pending
        ):
            raise UserError(
                f"thread {thread_id} is not waiting for an approval; there is nothing to resume"
            )
        return await self._drive(thread_id, None, pending)

    async def _drive(
        self,
        thread_id: str,
        start: Callable[[], Any] | None,
        pending: list[Pause] | None = None,
    ) -> TurnOutcome:
        outcome = TurnOutcome(None)
        waits: list[Pause] = list(pending or [])

        def listen(event: WorkspaceEvent) -> None:
            if getattr(event, "thread_id", None) != thread_id:
                return
            if isinstance(event, Problem):
                outcome.problems.append(event)
            if isinstance(event, ApprovalNeeded | BudgetPaused):
                waits.append(event)  # what the run paused on, as it reported it
            if self._on_event is not None:
                self._on_event(event)

        unsubscribe = self.workspace.events.subscribe(listen)
        try:
            if start is not None:
                outcome.state = await (await start())
            while (run := await self._answer_pause(thread_id, waits)) is not None:
                outcome.state = await run
            if outcome.state is None:
                outcome.state = await self.workspace.threads.saved_state(thread_id)
        finally:
            unsubscribe()
        return outcome

    async def _answer_pause(self, thread_id: str, waits: list[Pause]) -> Any:
        """Ask about what the thread waits on (``waits``, emptied) and return the continued
        run, or ``None`` when it waits on nothing (or nobody here can answer)."""
        pending, waits[:] = list(waits), []
        approvals = [p for p in pending if isinstance(p, ApprovalNeeded)]
        if self.approvals is not None and approvals:
            answers = {
                p.interrupt_id: await answer_requests(self.approvals, p.requests) for p in approvals
            }
            return await self.workspace.runs.answer(thread_id, answers)
        if self.budget is not None:
            for paused in pending:
                if isinstance(paused, BudgetPaused):
                    raise_to = await self.budget(paused.pause)
                    return await self.workspace.runs.answer_budget(
                        thread_id, paused.interrupt_id, raise_to
                    )
        return None
