"""The step loop: run ready nodes together, merge their updates, checkpoint, route, repeat."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import JsonValue

from app.core.checkpoint.base import (
    Checkpoint,
    Checkpointer,
    CheckpointSource,
    StateChanges,
    new_checkpoint_id,
)
from app.core.checkpoint.writes import StepWrites
from app.core.constants import END
from app.core.errors import GraphRecursionError, ParleyError, UserError
from app.core.graph._changes import ChangeTracker
from app.core.graph.context import ChildStopped, GraphInterrupt, RunContext, bind_context
from app.core.graph.events import (
    CheckpointSaved,
    Interrupted,
    NodeFinished,
    NodeStarted,
    RunStopped,
)
from app.core.graph.nodes import Branch, GraphLayout, NodeSpec
from app.core.state.agent_state import (
    AgentState,
    ExecMeta,
    UpdateSequence,
    normalise_update,
    shallow_copy,
    update_in_place,
)
from app.core.state.interrupt import Interrupt, PendingTask
from app.core.state.reducers import MessageList
from app.core.state.tool_result import ToolResult

S = TypeVar("S", bound=AgentState)


class NodeError(ParleyError, RuntimeError):
    """A node raised; the run failed and the last good checkpoint is kept."""

    def __init__(self, node: str, error: BaseException) -> None:
        super().__init__(f"node {node!r} failed: {type(error).__name__}: {error}")
        self.node = node
        self.error = error


@dataclass
class RunOutcome(Generic[S]):
    """How a run ended: its final state and, when paused, what it waits for."""

    state: S
    status: str
    interrupts: list[Interrupt]
    checkpoint_id: str | None


def task_ids_for(parent: str, step: int, nodes: list[str]) -> list[PendingTask]:
    """Deterministic task ids for a nested run (so child interrupts resume), else random."""
    if parent:
        return [PendingTask(node=n, task_id=f"{parent}/{step}:{n}") for n in nodes]
    return [PendingTask(node=n, task_id=os.urandom(8).hex()) for n in nodes]


class Runner(Generic[S]):
    """Executes one run of a compiled graph from a starting state and task list."""

    def __init__(
        self,
        graph: GraphLayout,
        ctx: RunContext,
        checkpointer: Checkpointer | None,
        parent_checkpoint: str | None,
        parent_is_latest: bool,
    ) -> None:
        self.graph = graph
        self.ctx = ctx
        self.checkpointer = checkpointer if ctx.thread_id is not None else None
        self.parent_id = parent_checkpoint
        self.write_full = not parent_is_latest
        self.quiet = ctx.sink is _discard
        self.applied: list[dict[str, Any]] | None = None
        """When a list, every update the run applies is added to it (a child graph's steps)."""

    async def save(
        self, state: S, step: int, source: CheckpointSource, changes: StateChanges | None
    ) -> None:
        """Write a checkpoint of ``state`` (no-op without a checkpointer)."""
        if self.checkpointer is None or self.ctx.thread_id is None:
            return
        cid = new_checkpoint_id()
        cp = Checkpoint(
            thread_id=self.ctx.thread_id,
            checkpoint_id=cid,
            parent_id=self.parent_id,
            step=step,
            state=state,
            source=source,
        )
        await self.checkpointer.aput(cp, None if self.write_full else changes)
        self.parent_id, self.write_full = cid, False
        if not self.quiet:
            self.ctx.emit(CheckpointSaved(checkpoint_id=cid, step=step))

    async def run(self, state: S, tasks: list[PendingTask]) -> RunOutcome[S]:
        """Run steps until no task is left, a stop is requested, or a node interrupts."""
        meta = state.execution_meta
        step = meta.step
        limit = self.ctx.step_limit
        self.ctx.step_limit = step + limit
        resume = {**meta.resume, **self.ctx.resume}
        first = True
        while tasks:
            if self.ctx.control.stop_requested:
                return await self._stop(state, tasks, step)
            if step >= self.ctx.step_limit:
                raise GraphRecursionError(
                    f"the run reached its step limit ({limit}) in graph "
                    f"{self.graph.name!r}; raise 'step_limit' in the config if it needs more"
                )
            self.ctx.writes = await self._step_writes(first)
            first = False
            results = await self._run_step(state, tasks, step, resume)
            # the step's updates go into one copy, which nobody else sees until it is done
            state = with_meta(state)
            own_meta = state.execution_meta
            tracker = ChangeTracker()
            interrupts: list[Interrupt] = []
            still: list[PendingTask] = []
            done: list[str] = []
            for task, result in zip(tasks, results, strict=True):
                if isinstance(result, GraphInterrupt | ChildStopped):
                    if isinstance(result, GraphInterrupt):
                        interrupts.extend(result.interrupts)
                    still.append(task)
                    resume.update(result.saved)
                    if result.update is not None:  # a paused child graph's progress
                        update = result.update
                        if self.applied is not None:
                            update = self._record(state, update, self.applied)
                        tracker.note(state, update)
                        update_in_place(state, update)
                    continue
                if isinstance(result, ToolResult):  # its message gets one id, seen by both
                    result = normalise_update(state, result)
                if self.applied is not None:
                    result = self._record(state, result, self.applied)
                tracker.note(state, result)
                update_in_place(state, result)
                done.append(task.node)
                mine = (task.task_id + ":", task.task_id + "/")  # its answers and its children's
                resume = {k: v for k, v in resume.items() if not k.startswith(mine)}
                if not self.quiet:
                    self.ctx.emit(NodeFinished(node=task.node, step=step, update=result))
            step += 1
            following = await self.route(state, done, step)
            nxt = still + task_ids_for(
                self.ctx.task_id if self.ctx.namespace else "", step, following
            )
            status = "interrupted" if interrupts else ("running" if nxt else "completed")
            set_meta(
                state,
                own_meta,
                step=step,
                current_node=done[-1] if done else tasks[-1].node,
                next_tasks=nxt,
                interrupts=interrupts,
                resume=resume,
                status=status,
                spent=self._spent(),
            )
            await self.save(state, step, "loop", tracker.changes(state))
            if interrupts:
                if not self.quiet and not self.ctx.namespace:  # the parent reports a child's
                    self.ctx.emit(
                        Interrupted(
                            interrupts=interrupts, checkpoint_id=self.parent_id, state=state
                        )
                    )
                return RunOutcome(state, "interrupted", interrupts, self.parent_id)
            tasks = nxt
        if state.execution_meta.status != "completed":
            state = with_meta(state, status="completed", next_tasks=[], spent=self._spent())
            await self.save(state, step, "loop", StateChanges(fields=frozenset({"execution_meta"})))
        return RunOutcome(state, "completed", [], self.parent_id)

    async def _step_writes(self, resumed: bool) -> StepWrites | None:
        """Where this step's nodes save results early; on the run's first step, with what
        a cut-off attempt at it saved (later steps start from a fresh checkpoint)."""
        cp, thread, parent = self.checkpointer, self.ctx.thread_id, self.parent_id
        if cp is None or thread is None or parent is None:
            return None
        saved = await cp.aget_writes(thread, parent) if resumed else {}
        return StepWrites(cp, thread, parent, saved)

    def _spent(self) -> dict[str, float]:
        return self.ctx.budget.saved()

    def _record(self, state: S, result: Any, applied: list[dict[str, Any]]) -> Any:
        """Add ``result``'s updates to ``applied``; return it as it is to be applied (as the
        recorded values, so messages made from a ``ToolResult`` keep one id)."""
        if isinstance(result, UpdateSequence):
            return UpdateSequence(self._record(state, r, applied) for r in result)
        values = normalise_update(state, result)
        applied.append(values)
        return result if isinstance(result, AgentState) else values

    async def _stop(self, state: S, tasks: list[PendingTask], step: int) -> RunOutcome[S]:
        state = with_meta(
            state, status="stopped", stop_requested=True, next_tasks=tasks, spent=self._spent()
        )
        await self.save(state, step, "loop", StateChanges(fields=frozenset({"execution_meta"})))
        if not self.quiet:
            self.ctx.emit(RunStopped(state=state))
        return RunOutcome(state, "stopped", [], self.parent_id)

    async def _run_step(
        self, state: S, tasks: list[PendingTask], step: int, resume: dict[str, JsonValue]
    ) -> list[Any]:
        view = with_meta(state, step=step, status="running", current_node=tasks[0].node)
        if len(tasks) == 1:
            return [await self._run_task(view, tasks[0], step, resume)]
        try:
            async with asyncio.TaskGroup() as group:
                running = [group.create_task(self._run_task(view, t, step, resume)) for t in tasks]
        except BaseExceptionGroup as eg:
            errors = [e for e in eg.exceptions if not isinstance(e, asyncio.CancelledError)]
            raise errors[0] if errors else eg from None
        return [t.result() for t in running]

    async def _run_task(
        self, state: S, task: PendingTask, step: int, resume: dict[str, JsonValue]
    ) -> Any:
        spec = self.graph.nodes.get(task.node)
        if spec is None:
            raise UserError(f"the saved run continues at node {task.node!r}, which the graph lacks")
        ctx = self.ctx.for_task(task.node, step, task.task_id, resume)
        if not self.quiet:
            ctx.emit(NodeStarted(node=task.node, step=step))
        if spec.takes_context:
            state.set_current_node(task.node)
        try:
            with bind_context(ctx):
                return await _call_node(spec, state, ctx)
        except (GraphInterrupt, ChildStopped) as paused:
            return paused
        except (NodeError, GraphRecursionError):
            raise
        except Exception as exc:
            raise NodeError(task.node, exc) from exc

    async def route(self, state: S, done: list[str], step: int) -> list[str]:
        """Return the nodes to run after ``done`` finished, in node order (``END`` dropped)."""
        out: dict[str, None] = {}
        for node in done:
            for target in self.graph.successors(node):
                if target != END:
                    out[target] = None
            for branch in self.graph.branches_from(node):
                for target in await _call_branch(branch, state, self.ctx):
                    if target == END:
                        continue
                    if target not in self.graph.nodes:
                        raise UserError(
                            f"the router after {node!r} returned {target!r}, which is not a "
                            f"node of graph {self.graph.name!r}"
                        )
                    out[target] = None
        if len(out) < 2:
            return list(out)
        order = self.graph.order
        return sorted(out, key=lambda n: order.get(n, 0))


def with_meta(state: S, **values: Any) -> S:
    """Return a copy of ``state`` with ``execution_meta`` fields replaced."""
    new = shallow_copy(state)
    new.__dict__["execution_meta"] = shallow_copy(state.execution_meta, values)
    return new


def set_meta(state: AgentState, own: ExecMeta, **values: Any) -> None:
    """Replace ``execution_meta`` fields of ``state``, a copy the caller owns: in place when
    its meta is still ``own`` (the caller's copy too), else in a copy (a node that returned a
    whole state gave it its own meta object)."""
    meta = state.execution_meta
    if meta is not own:
        state.__dict__["execution_meta"] = shallow_copy(meta, values)
        return
    meta.__dict__.update(values)
    meta.__pydantic_fields_set__.update(values)


def _discard(_event: Any) -> None:
    """The sink of a run nobody streams."""


async def _call_node(spec: NodeSpec, state: AgentState, ctx: RunContext) -> Any:
    args = (state, ctx) if spec.takes_context else (state,)
    if spec.is_async:
        return await spec.fn(*args)
    if spec.run_in_thread:
        return await asyncio.to_thread(spec.fn, *args)
    result = spec.fn(*args)
    if asyncio.iscoroutine(result):
        return await result
    return result


async def _call_branch(branch: Branch, state: AgentState, ctx: RunContext) -> list[str]:
    args = (state, ctx) if branch.takes_context else (state,)
    chosen = branch.router(*args)
    if asyncio.iscoroutine(chosen):
        chosen = await chosen
    picks = chosen if isinstance(chosen, list | tuple) else [chosen]
    targets = []
    for pick in picks:
        if branch.path_map is not None:
            if pick not in branch.path_map:
                raise UserError(
                    f"the router after {branch.source!r} returned {pick!r}, which is not one "
                    f"of {list(branch.path_map)}"
                )
            pick = branch.path_map[pick]
        targets.append(pick)
    return targets


def prepare_context(state: S) -> S:
    """Give a loaded state's context an id index so upserts need no scan."""
    if isinstance(state.context, MessageList):
        return state
    new = shallow_copy(state)
    new.__dict__["context"] = MessageList(state.context)
    return new


__all__ = [
    "NodeError",
    "RunOutcome",
    "Runner",
    "prepare_context",
    "task_ids_for",
    "with_meta",
]
