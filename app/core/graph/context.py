"""The run context a node sees, and :func:`interrupt`, which pauses a run for an answer."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import JsonValue

from app.core.budget import Budget
from app.core.errors import UserError
from app.core.graph.events import GraphEvent, MessageDelta, ToolProgress
from app.core.graph.run_config import RunConfig, RunControl
from app.core.state.chunks import ChunkMerge
from app.core.state.interrupt import Interrupt
from app.core.state.message import Message

if TYPE_CHECKING:
    from app.core.checkpoint.writes import StepWrites

D = TypeVar("D")

__all__ = [
    "ChildStopped",
    "GraphInterrupt",
    "RunContext",
    "RunControl",
    "current_context",
    "get_run_context",
    "interrupt",
]


class GraphInterrupt(Exception):
    """Raised inside a node by :func:`interrupt`; the graph pauses the run on it.

    A child graph that pauses also passes ``update`` (what its nodes changed so far, applied to
    the parent before it pauses) and ``saved`` (resume entries that let it continue where it
    stopped instead of starting over).
    """

    def __init__(
        self,
        interrupt: Interrupt,
        *more: Interrupt,
        update: Any = None,
        saved: dict[str, JsonValue] | None = None,
    ) -> None:
        super().__init__(f"interrupted in {interrupt.node}: {interrupt.value!r}")
        self.interrupt = interrupt
        self.interrupts = [interrupt, *more]
        self.update = update
        self.saved = saved or {}


class ChildStopped(Exception):
    """Raised by a child graph node that stopped on request before finishing: the parent keeps
    ``update`` (what the child did so far) and ``saved`` (its state, to go on later)."""

    def __init__(self, update: Any, saved: dict[str, JsonValue]) -> None:
        super().__init__("the child graph stopped before finishing")
        self.update = update
        self.saved = saved


@dataclass
class RunContext:
    """What a node may know and do besides reading state.

    A node receives it when it takes a second parameter; tools get the parts they need
    through ``Runtime``. Child graphs share their parent's ``budget``, ``control`` and event
    sink.
    """

    run_id: str
    thread_id: str | None
    config: RunConfig
    budget: Budget
    control: RunControl
    node: str = ""
    step: int = 0
    step_limit: int = 25
    task_id: str = ""
    namespace: tuple[str, ...] = ()
    sink: Callable[[GraphEvent], None] = field(default=lambda _e: None, repr=False)
    resume: dict[str, JsonValue] = field(default_factory=dict)
    fresh_answers: frozenset[str] = frozenset()
    """Ids of the interrupts answered by the input that started this run, as opposed to
    answers saved by an earlier run (or carried in an imported or edited state)."""
    writes: StepWrites | None = field(default=None, repr=False)
    """Where a node saves results before the step's checkpoint (``None``: nowhere)."""
    agents: tuple[str, ...] = ()
    """In a delegate agent's child run, the agents from the thread's own to this one (who
    asked whom); empty in the thread's own run."""
    _interrupts_seen: int = 0
    _last_answered: str = ""

    def for_task(
        self, node: str, step: int, task_id: str, resume: dict[str, JsonValue]
    ) -> RunContext:
        """This context as one task of a step sees it: ``dataclasses.replace`` of those fields
        with the interrupt count back at zero. It copies the fields without calling
        ``__init__`` again, which is the same while this class has no ``__post_init__`` and no
        ``init=False`` field."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.node = node
        new.step = step
        new.task_id = task_id
        new.resume = resume
        new._interrupts_seen = 0
        return new

    @property
    def remaining_steps(self) -> int:
        """Steps left before the step limit, counting the current one."""
        return self.step_limit - self.step

    @property
    def stop_requested(self) -> bool:
        """Whether someone asked the run to stop."""
        return self.control.stop_requested

    def emit(self, event: GraphEvent) -> None:
        """Send ``event`` to whoever streams the run."""
        if not event.namespace and self.namespace:
            event = event.model_copy(update={"namespace": self.namespace})
        if event.thread_id is None and self.thread_id is not None:
            event = event.model_copy(update={"thread_id": self.thread_id})
        self.sink(event)

    def stream_message(self, chunk: Message, merge: ChunkMerge | None = None) -> None:
        """Stream a ``delta=True`` chunk of a message this node is producing; ``merge`` is
        the node's merge of the message so far (this chunk included), when it keeps one.

        The chunk was validated when it was made; wrapping it is not validating it again
        (which walked every chunk a second time)."""
        self.emit(MessageDelta.model_construct(node=self.node, chunk=chunk, merge=merge))

    def report_progress(
        self,
        call_id: str,
        tool: str,
        message: str = "",
        progress: float | None = None,
        status: Literal["started", "progress", "finished", "error"] = "progress",
    ) -> None:
        """Report progress of a tool call."""
        # made with the run's thread and namespace, which emit would otherwise copy it for
        where: dict[str, Any] = {}
        if self.thread_id is not None:
            where["thread_id"] = self.thread_id
        if self.namespace:
            where["namespace"] = self.namespace
        self.emit(
            ToolProgress(
                call_id=call_id,
                tool=tool,
                message=message,
                progress=progress,
                status=status,
                **where,
            )
        )

    @property
    def deps(self) -> object:
        """The caller's typed facts about the run (``RunConfig.deps``; ``None``: none given)."""
        return self.config.deps

    def deps_as(self, kind: type[D]) -> D | None:
        """The run's deps when they are a ``kind`` (``None`` when none, or another kind, were
        given): the typed way a caller's hook or tool reads what its caller put there."""
        deps = self.config.deps
        return deps if isinstance(deps, kind) else None

    @property
    def agent(self) -> str:
        """The delegate agent this run is working for, or ``""`` for the thread's own agent."""
        return self.agents[-1] if len(self.agents) > 1 else ""

    def answered_now(self) -> bool:
        """Whether the answer the last :func:`interrupt` call returned was given to start this
        run, rather than saved before it."""
        return bool(self._last_answered) and self._last_answered in self.fresh_answers

    def saved_answer(self) -> JsonValue:
        """The answer saved for the next :func:`interrupt` call of this task, if any (without
        using it up)."""
        return self.resume.get(f"{self.task_id}:{self._interrupts_seen}")

    def next_interrupt_id(self) -> str:
        """Return the stable id of the next :func:`interrupt` call in this task."""
        iid = f"{self.task_id}:{self._interrupts_seen}"
        self._interrupts_seen += 1
        return iid


_CURRENT: ContextVar[RunContext | None] = ContextVar("parley_run_context", default=None)


def current_context() -> RunContext | None:
    """Return the context of the node running in this task, if any."""
    return _CURRENT.get()


def get_run_context() -> RunContext:
    """Return the context of the running node; raises outside a graph run."""
    ctx = _CURRENT.get()
    if ctx is None:
        raise UserError("get_run_context() and interrupt() work only inside a running graph node")
    return ctx


class _Bound:
    """``ctx`` made the current context for the length of a ``with`` block."""

    __slots__ = ("ctx", "token")

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    def __enter__(self) -> RunContext:
        self.token = _CURRENT.set(self.ctx)
        return self.ctx

    def __exit__(self, *_exc: object) -> None:
        _CURRENT.reset(self.token)


def bind_context(ctx: RunContext) -> AbstractContextManager[RunContext]:
    """Make ``ctx`` the current context while a node runs (``with bind_context(ctx): ...``)."""
    return _Bound(ctx)


def interrupt(value: JsonValue) -> JsonValue:
    """Pause the run and ask ``value``; returns the answer once the run is resumed.

    The node runs again from its start on resume, and this call then returns the answer given
    for it (matched by the order of ``interrupt`` calls within the node), so code before it
    must be safe to repeat.
    """
    ctx = get_run_context()
    iid = ctx.next_interrupt_id()
    if iid in ctx.resume:
        ctx._last_answered = iid
        return ctx.resume[iid]
    raise GraphInterrupt(Interrupt(id=iid, node=ctx.node, value=value, step=ctx.step))
