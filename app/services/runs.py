"""``RunService``: turns on threads — send, regenerate, answer approvals and budget pauses,
resume or discard a cut-off run, stop, and wait until every turn is done.

Runs are saved pauses, not blocked calls: a turn that needs an approval ends paused
(``ApprovalNeeded``) and :meth:`RunService.answer` continues it, in this process or after a
restart. What a turn does arrives as events on the bus, in order. A pause is reported from the
graph's own event as the run ends (typed, without reading it back from the store); the store
is read only for a pause this process did not see happen (:meth:`RunService.pending`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, JsonValue

from app.core.budget import BudgetLimits
from app.core.errors import CheckpointConflict, ParleyError, UserError
from app.core.graph import (
    BudgetChanged,
    CompiledGraph,
    GraphEvent,
    Interrupted,
    MessageDelta,
    NodeFinished,
    Resume,
    RunConfig,
    ToolProgress,
)
from app.core.models.retries import RetryNotice, listening_for_retries
from app.core.state import (
    AgentState,
    ChunkMerge,
    ContentBlock,
    ErrorBlock,
    Message,
    RemoveMessage,
    TextBlock,
)
from app.core.state.agent_state import normalise_update
from app.services.approval_policy import StoreApprovalPolicy
from app.services.bus import EventBus
from app.services.events import (
    ApprovalNeeded,
    BudgetPaused,
    BudgetUpdated,
    MessageAdded,
    MessageRemoved,
    MessageStreamed,
    RunStatus,
    RunStatusChanged,
    ThreadsChanged,
    ToolActivity,
    WorkspaceEvent,
)
from app.services.models.service import ModelService
from app.services.pauses import Pause, pauses_of
from app.services.problems import problem_of
from app.services.settings.file import AppSettings
from app.services.settings.store import SettingsStore
from app.services.threads import require_thread, title_of
from app.services.turn import TurnDeps
from app.services.workspace_tools import WorkspaceTools
from app.store import Store, Thread

__all__ = ["RunService", "ThreadBusy"]

log = logging.getLogger(__name__)


class ThreadBusy(ParleyError, RuntimeError):
    """The thread is already running a turn; wait for it or stop it first."""

    kind = "busy"


@dataclass
class _Run:
    agent: CompiledGraph[AgentState]
    task: asyncio.Task[AgentState | None]


class RunService:
    """The turns of one workspace; see the module docstring."""

    def __init__(
        self,
        store: Store,
        *,
        events: EventBus,
        settings: SettingsStore,
        models: ModelService,
        tools: WorkspaceTools,
        policy: StoreApprovalPolicy,
        run_config: RunConfig | None = None,
        memory: bool = True,
    ) -> None:
        self._store = store
        self._memory = memory
        self._events = events
        self._settings = settings
        self._models = models
        self.tools = tools
        self._policy = policy
        self._run_config = run_config or RunConfig(budget_pause=True)
        self._runs: dict[str, _Run] = {}
        self._waiting: dict[str, frozenset[str]] = {}
        """The interrupt ids each thread waits on, as last reported or read here."""

    def _emit(self, event: WorkspaceEvent) -> None:
        self._events.emit(event)

    async def get_thread(self, thread_id: str) -> Thread:
        """The thread; :class:`UserError` when there is none."""
        return await require_thread(self._store, thread_id)

    async def _agent_for(self, thread: Thread) -> CompiledGraph[AgentState]:
        return await self._models.agent_for(thread)

    @property
    def settings(self) -> AppSettings:
        """The settings a turn starts with (its default limits)."""
        return self._settings.current

    def is_running(self, thread_id: str) -> bool:
        """Whether a turn is running on the thread now."""
        return thread_id in self._runs

    def any_running(self) -> bool:
        """Whether a turn is running on any thread now."""
        return bool(self._runs)

    async def send(
        self,
        thread_id: str,
        text: str,
        blocks: Sequence[ContentBlock] = (),
        *,
        edit: str | None = None,
        notes: Sequence[str] = (),
        history: Sequence[Message] = (),
        limits: BudgetLimits | None = None,
        token_cap: int | None = None,
    ) -> asyncio.Task[AgentState | None]:
        """Add the user's message and start a turn; returns the running turn. With ``edit``
        the message goes in place of message ``edit`` and everything after it, which the
        thread keeps as another version of that message (a branch). ``notes`` are shown on
        the message (e.g. what of its attachments the model will not see); ``history`` (the
        earlier turns of a conversation held elsewhere, as a client of the server sends them)
        goes before it; ``limits`` (a schedule's) go over every other limit of this turn;
        ``token_cap`` (what a server key has left today) lowers its token limit to at most that.

        Raises at once, sending nothing, when the thread is busy or missing, the message is
        empty or the model cannot be built; problems during the turn arrive as events."""
        if not text.strip() and not blocks:
            raise UserError("there is nothing to send: the message is empty")
        thread = await self.get_thread(thread_id)
        self._refuse_if_running(thread_id)
        agent = await self._agent_for(thread)
        self._refuse_if_running(thread_id)
        content: list[ContentBlock] = [TextBlock(text=text)] if text.strip() else []
        message = Message(role="user", content=[*content, *blocks])
        if notes:
            from app.services.attachments.compose import NOTES_KEY

            message.metadata[NOTES_KEY] = list(notes)
        update: list[Message | RemoveMessage] = [*history, message]
        if edit is not None:
            removed = await self._replaced_from(agent, thread_id, edit)
            update[:0] = [RemoveMessage(id=m) for m in removed]
        await self._abandon_pending(thread_id)
        if not thread.title:
            await self._store.rename_thread(thread_id, title_of(text) or "Attachment")
        self._emit(MessageAdded(thread_id, message))
        return self._start(thread_id, agent, {"messages": update}, limits, token_cap)

    async def regenerate(self, thread_id: str) -> asyncio.Task[AgentState | None]:
        """Drop the replies after the last user message and ask the model again."""
        thread = await self.get_thread(thread_id)
        self._refuse_if_running(thread_id)
        agent = await self._agent_for(thread)
        snapshot = await agent.aget_state(RunConfig(thread_id=thread_id))
        context = snapshot.state.context if snapshot else []
        # the person's messages: a task handed to a delegate is not one
        users = [i for i, m in enumerate(context) if m.role == "user" and m.agent is None]
        if not users:
            raise UserError("there is no message to answer again")
        await self._abandon_pending(thread_id)
        replies = context[users[-1] + 1 :]
        removed = [m.message_id for m in replies]
        if any(not isinstance(b, ErrorBlock) for m in replies for b in m.content):
            # the answer given stays as another version of it (a failure alone is not one)
            await self._store.keep_branch(thread_id, removed[0])
        for message_id in removed:
            self._emit(MessageRemoved(thread_id, str(message_id)))
        update = [RemoveMessage(id=m) for m in removed]
        return self._start(thread_id, agent, {"messages": update})

    async def _replaced_from(
        self, agent: CompiledGraph[AgentState], thread_id: str, message_id: str
    ) -> list[str | int]:
        """Keep the path from ``message_id`` on as a branch and say it is gone from view;
        returns the ids of the messages an edit replaces (``message_id`` and all after)."""
        snapshot = await agent.aget_state(RunConfig(thread_id=thread_id))
        ids = [m.message_id for m in snapshot.state.context] if snapshot else []
        found = [i for i, mid in enumerate(ids) if str(mid) == str(message_id)]
        if not found:
            raise UserError("that message is no longer in the thread")
        removed = ids[found[0] :]
        await self._store.keep_branch(thread_id, removed[0])
        for mid in removed:
            self._emit(MessageRemoved(thread_id, str(mid)))
        return removed

    async def answer(
        self, thread_id: str, answers: Mapping[str, BaseModel | JsonValue]
    ) -> asyncio.Task[AgentState | None]:
        """Continue a paused thread with answers by interrupt id: typed ones (an
        :class:`~app.core.tools.ApprovalAnswer` from :func:`~app.core.tools.answer_requests`,
        a :class:`~app.core.graph.budget_pause.BudgetAnswer`) are turned into JSON only here,
        where they go into the checkpoint."""
        thread = await self.get_thread(thread_id)
        self._refuse_if_running(thread_id)
        agent = await self._agent_for(thread)
        saved = {
            key: value.model_dump(mode="json") if isinstance(value, BaseModel) else value
            for key, value in answers.items()
        }
        return self._start(thread_id, agent, Resume(answers=saved))

    async def pending(self, thread_id: str) -> list[Pause]:
        """What the thread waits on (approvals first, then budget pauses), read once from the
        store: for a pause this process did not see happen (a restart, another process)."""
        pauses = pauses_of(thread_id, await self._store.checkpointer.apending_interrupts(thread_id))
        if thread_id not in self._runs:
            self._waiting[thread_id] = frozenset(p.interrupt_id for p in pauses)
        return pauses

    async def pending_approvals(self, thread_id: str) -> list[ApprovalNeeded]:
        """The approvals the thread waits on (also after a restart), read from the store."""
        return [p for p in await self.pending(thread_id) if isinstance(p, ApprovalNeeded)]

    def is_waiting(self, thread_id: str, interrupt_id: str) -> bool:
        """Whether the thread still waits on ``interrupt_id`` as far as this process knows
        (a pause reported or read here, not answered since), without reading the store."""
        return thread_id not in self._runs and interrupt_id in self._waiting.get(
            thread_id, frozenset()
        )

    async def is_cut_off(self, thread_id: str) -> bool:
        """Whether the thread's run stopped unfinished (the app or machine died mid-run)."""
        from app.services.cut_off import is_cut_off

        return thread_id not in self._runs and await is_cut_off(self._store, thread_id)

    async def resume_cut_off(self, thread_id: str) -> asyncio.Task[AgentState | None]:
        """Continue a cut-off run from its last checkpoint (finished steps are not run again)."""
        thread = await self.get_thread(thread_id)
        self._refuse_if_running(thread_id)
        if not await self.is_cut_off(thread_id):
            raise UserError("this thread has no cut-off run to resume")
        return self._start(thread_id, await self._agent_for(thread), None)

    async def discard_cut_off(self, thread_id: str) -> None:
        """End a cut-off run where it stopped, running nothing more."""
        from app.services.cut_off import discard_cut_off

        self._refuse_if_running(thread_id)
        for message in await discard_cut_off(self._store, thread_id):
            self._emit(MessageAdded(thread_id, message))
        self._emit(RunStatusChanged(thread_id, "idle"))
        self._emit(ThreadsChanged(thread_id))

    async def pending_budget(self, thread_id: str) -> list[BudgetPaused]:
        """The budget pauses the thread waits on (also after a restart), read from the store."""
        return [p for p in await self.pending(thread_id) if isinstance(p, BudgetPaused)]

    async def answer_budget(
        self, thread_id: str, interrupt_id: str, raise_to: float | None
    ) -> asyncio.Task[AgentState | None]:
        """Go on past a budget pause with the limit raised to ``raise_to``, or stop there
        (``None``)."""
        from app.services.budget_control import budget_answer

        answer = budget_answer(await self.pending_budget(thread_id), interrupt_id, raise_to)
        return await self.answer(thread_id, {interrupt_id: answer})

    def stop(self, thread_id: str) -> bool:
        """Stop the thread's turn at the next chunk; what arrived is kept."""
        run = self._runs.get(thread_id)
        return run.agent.request_stop(thread_id) if run else False

    async def stop_and_wait(self, thread_id: str) -> None:
        """Stop the thread's turn, if one runs, and wait up to 5 seconds for it to end."""
        if thread_id in self._runs:
            self.stop(thread_id)
            await asyncio.wait([self._runs[thread_id].task], timeout=5)

    async def wait_idle(self) -> None:
        """Wait until no turn is running (for shutdown and tests)."""
        while self._runs:
            await asyncio.wait([r.task for r in self._runs.values()])

    async def aclose(self) -> None:
        """Stop every turn (each keeps what it saved) and wait a little for them to end."""
        for thread_id in list(self._runs):
            self.stop(thread_id)
        tasks = [r.task for r in self._runs.values()]
        if tasks:
            await asyncio.wait(tasks, timeout=5)

    def refuse_if_busy(self, thread_id: str) -> None:
        """Raise :class:`ThreadBusy` when a turn is running on the thread."""
        self._refuse_if_running(thread_id)

    def _refuse_if_running(self, thread_id: str) -> None:
        if thread_id in self._runs:
            raise ThreadBusy("this thread is still answering; wait for it or stop it first")

    async def _abandon_pending(self, thread_id: str) -> None:
        await self._policy.abandon_pending(thread_id)

    def _start(
        self,
        thread_id: str,
        agent: CompiledGraph[AgentState],
        graph_input: Any,
        limits: BudgetLimits | None = None,
        token_cap: int | None = None,
    ) -> asyncio.Task[AgentState | None]:
        task = asyncio.create_task(self._run(thread_id, agent, graph_input, limits, token_cap))
        self._runs[thread_id] = _Run(agent, task)
        self._waiting.pop(thread_id, None)  # whatever it waited on is answered or abandoned
        self._emit(RunStatusChanged(thread_id, "running"))
        self._emit(ThreadsChanged(thread_id))
        return task

    async def _run(
        self,
        thread_id: str,
        agent: CompiledGraph[AgentState],
        graph_input: Any,
        limits: BudgetLimits | None = None,
        token_cap: int | None = None,
    ) -> AgentState | None:
        base = self._run_config
        config = replace(
            base,
            thread_id=thread_id,
            limits=self.settings.default_limits.model_copy(
                update=base.limits.model_dump(exclude_none=True)
            ),
            tool_permissions=base.tool_permissions | frozenset(self.tools.permissions(thread_id)),
        )
        status: RunStatus = "failed"
        state: AgentState | None = None
        streams: dict[str, ChunkMerge] = {}
        paused: list[Interrupted] = []
        waits: list[Pause] = []

        def on_retry(notice: RetryNotice) -> None:
            from app.services.events import Retrying

            self._emit(
                Retrying(thread_id, notice.provider, notice.attempt, notice.delay, notice.reason)
            )

        try:
            config = await self._with_agent(config, thread_id)
            if limits is not None:
                update = limits.model_dump(exclude_none=True)
                config = replace(config, limits=config.limits.model_copy(update=update))
            if token_cap is not None:
                own = config.limits.max_tokens
                capped = token_cap if own is None else min(own, token_cap)
                config = replace(
                    config, limits=config.limits.model_copy(update={"max_tokens": capped})
                )
            with listening_for_retries(on_retry):
                async for event in agent.astream(graph_input, config):
                    self._forward(thread_id, event, streams, paused)
            if paused and isinstance(paused[-1].state, AgentState):
                state = paused[-1].state  # the state saved with the pause: no need to read it
            else:
                snapshot = await agent.aget_state(config)
                state = snapshot.state if snapshot else None
            status = "idle"
            if state is not None:
                if paused:
                    # reported once the run is over (below), so whoever answers finds it idle
                    waits = pauses_of(thread_id, paused[-1].interrupts)
                    self._waiting[thread_id] = frozenset(w.interrupt_id for w in waits)
                if waits:
                    status = "waiting"
                last = state.context[-1] if state.context else None
                # stopped mid-reply, or between steps (a tool call, a delegate's, was running)
                stopped = state.execution_meta.status == "stopped" or (
                    last is not None and last.end_reason == "stopped"
                )
                if status == "idle" and stopped:
                    status = "stopped"
        except CheckpointConflict:
            self._emit(
                problem_of(
                    "conflict",
                    "Another window or process changed this thread while it was answering; "
                    "the reply was not saved. Open the thread again to see its latest state.",
                    thread_id,
                )
            )
        except ParleyError as exc:
            self._emit(problem_of(exc.kind or "model", str(exc), thread_id))
        except Exception as exc:
            log.exception("a turn failed unexpectedly on thread %s", thread_id)
            self._emit(
                problem_of(
                    "internal",
                    f"Something went wrong inside Parley ({type(exc).__name__}). What was saved "
                    "is kept; try again.",
                    thread_id,
                )
            )
        finally:
            self._runs.pop(thread_id, None)
            for wait in waits:
                self._emit(wait)
            self._emit(RunStatusChanged(thread_id, status))
            self._emit(ThreadsChanged(thread_id))
        return state

    async def _with_agent(self, config: RunConfig, thread_id: str) -> RunConfig:
        """``config`` with the turn's :class:`TurnDeps` (its thread, the thread's agent, whether
        passages go before the question, whether memory is on: not while it is paused for
        everyone or for the thread's agent, nor in an incognito thread), the limits the
        thread's agent sets (over the settings' defaults, under the workspace's own) and the
        permissions of its tools."""
        thread = await self.get_thread(thread_id)
        memory = (
            self._memory
            and not self.settings.memory_paused
            and thread.agent_id not in self.settings.memory_paused_agents
            and not self.tools.incognito(thread_id)
        )
        deps = TurnDeps(thread_id, thread.agent_id, self.tools.auto_passages(thread_id), memory)
        config = replace(config, deps=deps)
        setup = await self._models.run_setup(thread)
        if setup is None:
            return config
        base = self._run_config
        limits = self.settings.default_limits.model_copy(
            update={
                **setup.limits.model_dump(exclude_none=True),
                **base.limits.model_dump(exclude_none=True),
            }
        )
        permissions = base.tool_permissions | frozenset(setup.permissions)
        return replace(config, limits=limits, tool_permissions=permissions)

    def _forward(
        self,
        thread_id: str,
        event: GraphEvent,
        streams: dict[str, ChunkMerge],
        paused: list[Interrupted],
    ) -> None:
        if event.namespace and not _by_delegate(event):
            return
        if isinstance(event, MessageDelta):
            chunk = event.chunk
            key = str(chunk.message_id)
            merge = event.merge  # the model call's own merge: a chunk is merged once
            if merge is None:  # a node that streams without merging
                merge = streams.get(key)
                if merge is None:
                    merge = streams[key] = ChunkMerge(chunk)
                else:
                    merge.add(chunk)
            self._emit(MessageStreamed(thread_id, merge))
        elif isinstance(event, NodeFinished):
            try:
                update = normalise_update(AgentState(), event.update)
            except ParleyError:
                return
            for item in update.get("context", update.get("messages", [])) or []:
                if isinstance(item, RemoveMessage):
                    self._emit(MessageRemoved(thread_id, str(item.id)))
                elif isinstance(item, Message):
                    streams.pop(str(item.message_id), None)
                    self._emit(MessageAdded(thread_id, item))
        elif isinstance(event, ToolProgress):
            self._emit(
                ToolActivity(thread_id, event.call_id, event.tool, event.status, event.message)
            )
        elif isinstance(event, BudgetChanged):
            self._emit(BudgetUpdated(thread_id, event.usage, event.limits, event.by_agent))
        elif isinstance(event, Interrupted):
            paused.append(event)  # saved already; reported as the run ends (see _run)


def _by_delegate(event: GraphEvent) -> bool:
    """Whether a child run's event carries a delegate agent's work (its messages are marked
    with its name, see :mod:`app.core.agent.delegation`), which the thread shows as it happens;
    a child graph's other events are its parent's to report."""
    if isinstance(event, MessageDelta):
        return event.chunk.agent is not None
    if isinstance(event, NodeFinished) and isinstance(event.update, dict):
        items = event.update.get("context") or event.update.get("messages") or []
        return bool(items) and all(isinstance(m, Message) and m.agent for m in items)
    return False
