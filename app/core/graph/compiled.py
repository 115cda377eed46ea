"""``CompiledGraph``: a checked graph you can invoke, stream, pause, resume and stop."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import JsonValue

from app.core.budget import Budget
from app.core.checkpoint.base import Checkpointer, CheckpointInfo
from app.core.constants import START
from app.core.errors import UserError
from app.core.graph._changes import ChangeTracker
from app.core.graph._runner import (
    NodeError,
    Runner,
    RunOutcome,
    _discard,
    prepare_context,
    task_ids_for,
    with_meta,
)
from app.core.graph.context import (
    ChildStopped,
    GraphInterrupt,
    RunContext,
    current_context,
)
from app.core.graph.events import GraphEvent, RunFailed, RunFinished, RunStarted
from app.core.graph.nodes import Branch, GraphShape, NodeSpec
from app.core.graph.run_config import ConfigInput, RunConfig, RunControl
from app.core.state.agent_state import AgentState, UpdateSequence, apply_update
from app.core.state.interrupt import Interrupt
from app.core.state.serde import dump_state, load_state

__all__ = ["CompiledGraph", "Resume", "StateSnapshot"]

S = TypeVar("S", bound=AgentState)


@dataclass(frozen=True)
class Resume:
    """Input that resumes a paused run with answers to its interrupts.

    ``Resume(value)`` answers the only pending interrupt; ``Resume({id: value, ...})`` or
    ``Resume(answers={id: value})`` answers several by id.
    """

    value: JsonValue = None
    answers: dict[str, JsonValue] | None = None

    def resolve(self, pending: list[Interrupt]) -> dict[str, JsonValue]:
        """Map the answers to the pending interrupts' ids; raises when they do not fit."""
        ids = [i.id for i in pending]
        if self.answers is not None:
            answers = self.answers
        elif len(pending) == 1:
            answers = {pending[0].id: self.value}
        elif isinstance(self.value, dict) and set(self.value) <= set(ids):
            answers = dict(self.value)
        else:
            raise UserError(
                f"{len(pending)} interrupts are pending ({', '.join(ids)}); resume with "
                f"Resume(answers={{id: value}})"
            )
        unknown = set(answers) - set(ids)
        if unknown:
            raise UserError(f"no pending interrupt has id {sorted(unknown)[0]!r}; pending: {ids}")
        return answers


@dataclass(frozen=True)
class StateSnapshot(Generic[S]):
    """A thread's saved state with what the run would do next."""

    state: S
    checkpoint_id: str
    parent_id: str | None
    step: int
    next: tuple[str, ...]
    interrupts: tuple[Interrupt, ...]
    created_at: float


class CompiledGraph(Generic[S]):
    """A runnable graph. Build one with ``StateGraph(...).compile()``.

    Each run takes a :class:`RunConfig` (thread id, checkpoint id, step limit, stop control,
    budget and limits, budget pauses, tool permissions, the caller's own values), or a dict
    spelling one, which :meth:`RunConfig.of` reads; nodes see it as ``context.config``.
    """

    def __init__(
        self,
        builder: GraphShape[S],
        *,
        checkpointer: Checkpointer | None,
        name: str,
        step_limit: int,
    ) -> None:
        self.name = name
        self.state_cls: type[S] = builder.state_cls
        self.initial_state = builder.initial_state
        self.nodes: dict[str, NodeSpec] = dict(builder.nodes)
        self.order = {n: i for i, n in enumerate(self.nodes)}
        self._edges: dict[str, list[str]] = {}
        for a, b in builder.edges:
            self._edges.setdefault(a, []).append(b)
        self._branches: dict[str, list[Branch]] = {}
        for br in builder.branches:
            self._branches.setdefault(br.source, []).append(br)
        self.checkpointer = checkpointer
        self.step_limit = step_limit
        self._active: dict[str, RunControl] = {}

    def successors(self, node: str) -> list[str]:
        """Nodes a static edge leads to from ``node``."""
        return self._edges.get(node, [])

    def branches_from(self, node: str) -> list[Branch]:
        """Conditional edges leaving ``node``."""
        return self._branches.get(node, [])

    # ----------------------------------------------------------------- running

    async def ainvoke(self, input: Any, config: ConfigInput = None) -> S:
        """Run to the end (or to a pause or stop) and return the final state.

        ``input`` is a state, a dict of fields (e.g. ``{"messages": [...]}``), a message,
        :class:`Resume` to answer a pause, or ``None`` to continue a stopped run.
        """
        outcome = await self._execute(input, RunConfig.of(config), _discard)
        return outcome.state

    def invoke(self, input: Any, config: ConfigInput = None) -> S:
        """Synchronous :meth:`ainvoke`, for scripts; inside an event loop use ``ainvoke``."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ainvoke(input, config))
        raise UserError("invoke() cannot run inside an event loop; await ainvoke() instead")

    async def astream(self, input: Any, config: ConfigInput = None) -> AsyncIterator[GraphEvent]:
        """Run and yield typed events as they happen (node updates, message deltas, tool
        progress, interrupts, budget changes, the end). Closing the stream cancels the run."""
        run_config = RunConfig.of(config)
        queue: asyncio.Queue[GraphEvent | None] = asyncio.Queue()
        runner = asyncio.create_task(self._execute(input, run_config, queue.put_nowait))
        runner.add_done_callback(lambda _t: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                yield event
            runner.result()
        finally:
            if not runner.done():
                runner.cancel()
                await asyncio.gather(runner, return_exceptions=True)

    def request_stop(self, thread_id: str) -> bool:
        """Ask the run on ``thread_id`` to stop after its current step; False if none runs."""
        control = self._active.get(thread_id)
        if control is None:
            return False
        control.request_stop()
        return True

    async def _execute(
        self, input: Any, config: RunConfig, sink: Callable[[GraphEvent], None]
    ) -> RunOutcome[S]:
        thread_id = config.thread_id
        parent = current_context()
        control = config.control or RunControl()
        own_budget = config.budget is None and parent is None
        budget = config.budget or (parent.budget if parent else Budget(config.limits))
        ctx = RunContext(
            run_id=uuid.uuid4().hex,
            thread_id=thread_id,
            config=config,
            budget=budget,
            control=control,
            step_limit=config.step_limit or self.step_limit,
            sink=sink,
        )
        if thread_id is not None:
            if thread_id in self._active:
                raise UserError(f"thread {thread_id!r} is already running; stop it or wait")
            self._active[thread_id] = control
        unsubscribe = budget.on_change(_budget_reporter(ctx)) if sink is not _discard else None
        try:
            return await self._run(input, ctx, restore_budget=own_budget)
        except Exception as exc:
            if sink is not _discard:
                node = exc.node if isinstance(exc, NodeError) else None
                ctx.emit(RunFailed(node=node, error=str(exc), exception=exc))
            raise
        finally:
            if unsubscribe is not None:
                unsubscribe()
            if thread_id is not None:
                self._active.pop(thread_id, None)

    async def _run(
        self, input: Any, ctx: RunContext, *, restore_budget: bool = False
    ) -> RunOutcome[S]:
        cp_id = ctx.config.checkpoint_id
        checkpoint = None
        parent_is_latest = True
        if self.checkpointer is not None and ctx.thread_id is not None:
            checkpoint = await self.checkpointer.aget(ctx.thread_id, self.state_cls, cp_id)
            if cp_id is not None:
                if checkpoint is None:
                    raise UserError(f"thread {ctx.thread_id!r} has no checkpoint {cp_id!r}")
                latest = await self.checkpointer.alist(ctx.thread_id, limit=1)
                parent_is_latest = bool(latest) and latest[0].checkpoint_id == cp_id
        elif cp_id is not None or isinstance(input, Resume) or input is None:
            raise UserError(
                "resuming needs a checkpointer and a thread_id: compile(checkpointer=...) "
                "and pass {'thread_id': ...} in the config"
            )
        state: S
        if checkpoint is not None:
            state = checkpoint.state  # type: ignore[assignment]
        else:
            base = self.initial_state
            state = base.model_copy(deep=True) if base is not None else self.state_cls()
        state = prepare_context(state)
        runner: Runner[S] = Runner(
            self,
            ctx,
            self.checkpointer,
            checkpoint.checkpoint_id if checkpoint else None,
            parent_is_latest,
        )
        if checkpoint is None:
            runner.write_full = True
        meta = state.execution_meta
        if restore_budget and (input is None or isinstance(input, Resume)) and meta.spent:
            # the same turn goes on: keep counting against its budgets
            ctx.budget.restore(meta.spent)
        if isinstance(input, Resume):
            if not meta.interrupts:
                raise UserError(f"thread {ctx.thread_id!r} is not waiting on any interrupt")
            answers = input.resolve(meta.interrupts)
            ctx.fresh_answers = frozenset(answers)
            state = with_meta(
                state, resume={**meta.resume, **answers}, interrupts=[], status="running"
            )
            tasks = list(meta.next_tasks)
            ctx.emit(RunStarted(run_id=ctx.run_id, resumed=True))
        elif input is None:
            tasks = list(meta.next_tasks)
            state = with_meta(state, stop_requested=False, status="running")
            ctx.emit(RunStarted(run_id=ctx.run_id, resumed=True))
        else:
            ctx.emit(RunStarted(run_id=ctx.run_id))
            update = (
                {k: getattr(input, k) for k in input.model_fields_set}
                if isinstance(input, AgentState)
                else input
            )
            tracker = ChangeTracker()
            tracker.note(state, update)
            state = apply_update(state, update)
            tasks = task_ids_for("", meta.step, await self._entry(state, ctx))
            state = with_meta(
                state,
                status="running",
                next_tasks=tasks,
                interrupts=[],
                resume={},
                stop_requested=False,
                error=None,
                thread_id=ctx.thread_id,
            )
            await runner.save(state, meta.step, "input", tracker.changes(state))
        outcome = await runner.run(state, tasks)
        if outcome.status == "completed":
            ctx.emit(RunFinished(state=outcome.state))
        return outcome

    async def _entry(self, state: S, ctx: RunContext) -> list[str]:
        runner: Runner[S] = Runner(self, ctx, None, None, True)
        return await runner.route(state, [START], 0)

    # ------------------------------------------------------------ inspection

    async def aget_state(self, config: ConfigInput) -> StateSnapshot[S] | None:
        """Return the thread's latest (or the config's ``checkpoint_id``) saved state."""
        run_config = RunConfig.of(config)
        cp = await self._saver().aget(
            _thread_of(run_config), self.state_cls, run_config.checkpoint_id
        )
        if cp is None:
            return None
        meta = cp.state.execution_meta
        return StateSnapshot(
            state=cp.state,  # type: ignore[arg-type]
            checkpoint_id=cp.checkpoint_id,
            parent_id=cp.parent_id,
            step=cp.step,
            next=tuple(t.node for t in meta.next_tasks),
            interrupts=tuple(meta.interrupts),
            created_at=cp.created_at,
        )

    async def aget_history(
        self, config: ConfigInput, *, limit: int | None = None
    ) -> list[CheckpointInfo]:
        """Return the thread's checkpoints, newest first (time travel)."""
        return await self._saver().alist(_thread_of(RunConfig.of(config)), limit=limit)

    def _saver(self) -> Checkpointer:
        if self.checkpointer is None:
            raise UserError("this graph has no checkpointer: compile(checkpointer=...)")
        return self.checkpointer

    # ------------------------------------------------------------ as a child

    def as_node(self) -> Callable[[AgentState, RunContext], Any]:
        """Wrap this graph as a node of another graph: it reads the parent's fields it shares,
        runs with the parent's budget, stop control and event stream, and returns the updates
        its nodes made to the shared fields, which the parent applies in the same order through
        its reducers. Its interrupts pause the parent, which keeps the child's progress so far and
        its saved state; on resume the child continues from where it paused."""
        child = self

        async def run_child(state: AgentState, ctx: RunContext) -> UpdateSequence:
            shared = [
                k
                for k in type(state).model_fields
                if k in child.state_cls.model_fields and k != "execution_meta"
            ]
            key = f"{ctx.task_id}/saved"
            saved = ctx.resume.get(key)
            if isinstance(saved, str):  # paused before: go on from there
                start = load_state(saved, child.state_cls)
            else:
                base = child.initial_state or child.state_cls()
                start = base.model_copy(update={k: getattr(state, k) for k in shared})
            start = prepare_context(start)
            sub = RunContext(
                run_id=ctx.run_id,
                thread_id=ctx.thread_id,  # tools and approval rules belong to the parent's thread
                config=ctx.config,
                budget=ctx.budget,
                control=ctx.control,
                step_limit=child.step_limit,
                task_id=ctx.task_id,
                namespace=(*ctx.namespace, ctx.node),
                sink=ctx.sink,
                resume=ctx.resume,
                fresh_answers=ctx.fresh_answers,
            )
            runner: Runner[S] = Runner(child, sub, None, None, True)
            runner.applied = []
            if isinstance(saved, str):
                tasks = list(start.execution_meta.next_tasks)
            else:
                tasks = task_ids_for(ctx.task_id, 0, await runner.route(start, [START], 0))
            outcome = await runner.run(start, tasks)
            # replay the child's own updates, not its final values: a reducer would otherwise
            # add what the parent already had again, and removals would be lost
            own = child.state_cls.model_fields
            steps = []
            for values in runner.applied:
                named = {
                    ("context" if k == "messages" and "messages" not in own else k): v
                    for k, v in values.items()
                }
                steps.append({k: v for k, v in named.items() if k in shared})
            update = UpdateSequence(s for s in steps if s)
            if outcome.status == "interrupted":
                # the parent keeps what the child did so far, and the child's state to go on
                paused = dump_state(outcome.state).decode()
                raise GraphInterrupt(*outcome.interrupts, update=update, saved={key: paused})
            if outcome.status == "stopped":
                # stopped on request: keep the child's progress and go on from there later
                raise ChildStopped(update, {key: dump_state(outcome.state).decode()})
            return update

        run_child.__name__ = self.name
        return run_child


def _thread_of(config: RunConfig) -> str:
    if config.thread_id is None:
        raise UserError("reading a thread's saved state needs its thread_id in the config")
    return config.thread_id


def _budget_reporter(ctx: RunContext) -> Callable[[Budget], None]:
    from app.core.graph.events import BudgetChanged

    def report(budget: Budget) -> None:
        by_agent = {k: v.model_copy() for k, v in budget.by_agent.items()}
        ctx.emit(
            BudgetChanged(usage=budget.usage.model_copy(), limits=budget.limits, by_agent=by_agent)
        )

    return report
