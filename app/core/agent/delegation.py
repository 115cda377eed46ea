"""Delegation: one agent asks another, as a tool whose body runs the delegate as a child run.

:func:`delegate_tool` makes, for a delegate agent (a compiled graph, normally built by
:func:`~app.core.agent.create_agent` with the delegate's own instructions, model and tools),
the tool ``ask_SLUG`` that takes ``task: str``. Calling it runs the delegate's graph as a child
run of the current one: a fresh conversation holding only the task, the **same** ``Budget``,
``RunControl``, config and event sink as the run that asked, and its final answer as the tool
result the asking agent reads. The delegate's messages join the thread marked with its name
(``message.agent``), so a window can fold them into one card; the asking agent's model never
sees them (see ``_model_input`` in :mod:`app.core.agent.factory`).

Why a tool and not a node: the model decides to delegate by calling a tool, and a tool call
already brings what delegation needs — the call is checked, counted against the tool-call
budget, answered by one ``tool`` message with a stable id, and run beside the other calls of
the same reply. A node would have to re-invent each of these. What a node has that a tool
lacked is pausing with the child's progress kept; :class:`~app.core.tools.ToolNode` lets a
tool raise the engine's ``GraphInterrupt``/``ChildStopped`` with the child's state, as
``CompiledGraph.as_node`` does, so:

- a sensitive call (or a budget pause) inside the child pauses the whole run as a saved
  interrupt, whose request names the delegate and the agent that asked it; resuming the
  parent runs the ``ask_*`` call again, which takes the child's saved state and goes on where
  it paused;
- Stop stops all: the child stops at its next step and the parent keeps its progress;
- each finished step of the child is saved beside the parent's step (its step writes), so a
  child cut off by a killed process resumes, with the parent, from its last finished step;
- who asks whom is carried in the run context (``RunContext.agents``); a delegate already in
  that chain (A asks B asks A) and a chain deeper than :data:`MAX_DEPTH` are refused when the
  call runs, with one sentence the asking model reads.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pydantic import JsonValue

from app.core.constants import START
from app.core.graph import Runner, prepare_context, task_ids_for
from app.core.graph.compiled import CompiledGraph
from app.core.graph.context import ChildStopped, GraphInterrupt, RunContext
from app.core.graph.events import GraphEvent, MessageDelta, NodeFinished
from app.core.graph.run_config import RunConfig
from app.core.state.agent_state import AgentState
from app.core.state.chunks import ChunkMerge, MarkedMerge
from app.core.state.message import Message
from app.core.state.message_marks import marks
from app.core.state.reducers import MessageList
from app.core.state.serde import dump_state, load_state
from app.core.state.tool_result import ToolResult
from app.core.tools.runtime import Runtime
from app.core.tools.tool import Tool, ToolError

__all__ = ["MAX_DEPTH", "MAX_TASK_CHARS", "delegate_tool", "tool_name_for"]

MAX_DEPTH = 3
"""How many delegations deep a run may go: the thread's agent asks a delegate (1), which asks
another (2), which asks a third (3); a fourth is refused."""
MAX_TASK_CHARS = 20_000
"""The longest task one agent may hand another."""


_LATIN = str.maketrans(
    {
        **dict(zip("абвгдезийклмнопрстуфыэ", "abvgdeziiklmnoprstufye", strict=True)),
        **{"ж": "zh", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ю": "yu"},
        **{"я": "ya", "ъ": "", "ь": "", "і": "i", "ї": "i", "є": "e", "ґ": "g", "ё": "e"},
        **dict(zip("αβγδεζηικλμνξοπρστυφω", "avgdeziiklmnxoprstyfo", strict=True)),
        **{"θ": "th", "χ": "ch", "ψ": "ps", "ς": "s"},
    }
)
"""Cyrillic and Greek letters in Latin ones, so a name in those alphabets keeps its sense."""
MAX_TOOL_NAME = 64
"""The longest tool name providers take."""


def tool_name_for(agent_name: str) -> str:
    """The name of the tool that asks ``agent_name``: ``ask_`` and the name in lower case,
    accents dropped, Cyrillic and Greek in Latin letters, every run of anything but a letter or
    digit as ``_`` ("Web Researcher 2" is asked through ``ask_web_researcher_2``, "Исследователь"
    through ``ask_issledovatel``). A name with letters of another alphabet (or none at all)
    ends with six hex digits of its own, so two such names get two tools."""
    folded = unicodedata.normalize("NFKD", agent_name.strip().casefold())
    latin = "".join(c for c in folded if not unicodedata.combining(c)).translate(_LATIN)
    slug = re.sub(r"[^a-z0-9]+", "_", latin.encode("ascii", "replace").decode()).strip("_")
    if not slug or any(c.isalnum() and not c.isascii() for c in latin):
        digest = hashlib.sha256(agent_name.strip().casefold().encode()).hexdigest()[:6]
        slug = f"{(slug or 'agent')[: MAX_TOOL_NAME - 11]}_{digest}"
    return f"ask_{slug[: MAX_TOOL_NAME - 4]}"


def _saved_key(ctx: RunContext, call_id: str) -> str:
    """Where the child run of call ``call_id`` keeps its state, within the asking task (so
    the parent drops it, with the task's other answers, once the task is done)."""
    return f"{ctx.task_id}/{call_id}/saved"


class _ChildRunner(Runner[Any]):
    """Runs the delegate's steps; saves its state after each one beside the asking step's
    results, and lets its tools save theirs there too, so a cut-off child goes on from its
    last finished step."""

    def __init__(self, graph: CompiledGraph[Any], ctx: RunContext, parent: RunContext, key: str):
        super().__init__(graph, ctx, None, None, True)
        self._parent_writes = parent.writes
        self._key = key

    async def save(self, state: Any, step: int, source: Any, changes: Any) -> None:
        if self._parent_writes is not None:
            await self._parent_writes.put(self._key, dump_state(state).decode())

    async def _step_writes(self, resumed: bool) -> Any:
        return self._parent_writes


def _granting(config: RunConfig, grants: frozenset[str]) -> RunConfig:
    if grants <= config.tool_permissions:
        return config
    return replace(config, tool_permissions=config.tool_permissions | grants)


def _chain_of(ctx: RunContext, asked_by: str) -> tuple[str, ...]:
    return ctx.agents or (asked_by,)


def _refusal(name: str, chain: tuple[str, ...]) -> str | None:
    if name in chain:
        path = " asks ".join((*chain, name))
        return (
            f"{name} cannot be asked here: {path} would go round in a loop; "
            "answer with what you have instead."
        )
    if len(chain) > MAX_DEPTH:
        return (
            f"{name} cannot be asked: delegation is already {MAX_DEPTH} levels deep "
            f"({' asks '.join(chain)}); answer with what you have instead."
        )
    return None


def _start_state(graph: CompiledGraph[Any], task: str, message_id: str) -> AgentState:
    base = graph.initial_state or graph.state_cls()
    first = Message.text_message(task, message_id=message_id)
    start: AgentState = base.model_copy(deep=True, update={"context": MessageList([first])})
    return start


def _marked(messages: list[Message], name: str) -> list[Message]:
    """The child's messages marked as written by ``name`` (a grandchild's keep their mark)."""
    return [_mark(m, name) for m in messages]


def _mark(message: Message, name: str) -> Message:
    if message.agent is not None:
        return message
    return message.model_copy(update={"metadata": {**message.metadata, **marks(agent=name)}})


def _marking(sink: Callable[[GraphEvent], None], name: str) -> Callable[[GraphEvent], None]:
    """The child run's event sink: what its nodes stream and return is marked as written by
    ``name`` before it reaches whoever follows the run, so a window can show the delegate's
    work as it happens, already in its card."""

    mark = marks(agent=name)
    marked: MarkedMerge | None = None

    def forward(event: GraphEvent) -> None:
        nonlocal marked
        if isinstance(event, MessageDelta) and event.chunk.agent is None:
            # the model call's merge holds the unmarked reply (the child's model must see it as
            # its own): followers read it through a marked view, merging no chunk again
            merge = event.merge
            if isinstance(merge, ChunkMerge):
                if marked is None or marked.source is not merge:
                    marked = MarkedMerge(merge, mark)
                merge = marked
            event = event.model_copy(update={"chunk": _mark(event.chunk, name), "merge": merge})
        elif isinstance(event, NodeFinished) and isinstance(event.update, dict):
            update = dict(event.update)
            for key in ("context", "messages"):
                items = update.get(key)
                if isinstance(items, list):
                    update[key] = [_mark(m, name) if isinstance(m, Message) else m for m in items]
            event = event.model_copy(update={"update": update})
        sink(event)

    return forward


def _spent_before_cut_off(ctx: RunContext, state: AgentState) -> None:
    """A run cut off inside a delegate restarts from the checkpoint before the asking step,
    whose spending leaves out what the delegate spent; its own last saved step knows it."""
    spent = state.execution_meta.spent
    now = ctx.budget.usage
    if spent.get("model_calls", 0) + spent.get("tool_calls", 0) > now.model_calls + now.tool_calls:
        ctx.budget.restore(spent)


def _answer(messages: list[Message], name: str) -> str:
    last = next((m for m in reversed(messages) if m.role == "assistant" and m.agent == name), None)
    if last is None:
        return f"{name} gave no answer."
    text = last.text().strip()
    if last.end_reason == "stopped":
        return f"{name} was stopped before finishing" + (f"; so far: {text}" if text else ".")
    if last.end_reason is not None:
        return f"{name} stopped before finishing ({last.end_reason})" + (
            f": {text}" if text else "."
        )
    return text or f"{name} answered with no text."


def delegate_tool(
    delegate: CompiledGraph[Any],
    *,
    name: str,
    asked_by: str,
    description: str = "",
    grants: frozenset[str] = frozenset(),
) -> Tool[..., Any]:
    """The ``ask_SLUG`` tool that runs ``delegate`` (the agent ``name``) as a child run.

    ``asked_by`` is the name of the agent given the tool (the thread's own agent when the
    run is not itself a delegate's). ``grants`` are the tool permissions the child run has
    besides the asking run's (those of the tools the delegate was defined with; a sensitive
    call still asks). ``delegate`` must have no checkpointer of its own: its state is kept in
    the asking run's checkpoints. See the module docstring for how it pauses, stops and
    resumes.
    """
    if delegate.checkpointer is not None:
        raise ValueError(f"the delegate {name!r} must be built without a checkpointer")
    about = description.strip() or f"Ask {name} to do a task and get its answer."

    async def ask(task: str, runtime: Runtime) -> ToolResult:
        ctx = runtime.context
        if ctx is None:
            raise ToolError(f"{name} can only be asked inside a run")
        task = task.strip()
        if not task:
            raise ToolError(f"say in words what {name} should do")
        if len(task) > MAX_TASK_CHARS:
            raise ToolError(f"the task is {len(task):,} characters; {MAX_TASK_CHARS:,} at most")
        chain = _chain_of(ctx, asked_by)
        refused = _refusal(name, chain)
        if refused:
            raise ToolError(refused)
        key = _saved_key(ctx, runtime.call_id)
        cut_off = ctx.writes.saved.get(key) if ctx.writes else None
        saved = cut_off or ctx.resume.get(key)
        if isinstance(saved, str):  # paused, stopped or cut off before: go on from there
            start = load_state(saved, delegate.state_cls)
            if cut_off is not None:
                _spent_before_cut_off(ctx, start)
        else:
            start = _start_state(delegate, task, f"{runtime.idempotency_key[:24]}:task")
        sub = RunContext(
            run_id=ctx.run_id,
            thread_id=ctx.thread_id,  # approval rules and audit belong to the thread
            config=_granting(ctx.config, grants),
            budget=ctx.budget,
            control=ctx.control,
            step_limit=delegate.step_limit,
            task_id=f"{ctx.task_id}/{runtime.call_id}",
            namespace=(*ctx.namespace, ctx.node, name),
            sink=_marking(ctx.sink, name),
            resume=ctx.resume,
            fresh_answers=ctx.fresh_answers,
            agents=(*chain, name),
        )
        runner = _ChildRunner(delegate, sub, ctx, key)
        start = prepare_context(start)
        if isinstance(saved, str):
            tasks = list(start.execution_meta.next_tasks)
        else:
            tasks = task_ids_for(sub.task_id, 0, await runner.route(start, [START], 0))
        if not runner.quiet:
            # what the delegate has so far (its task; on resuming, its earlier steps too) shows
            # before its new work, in the order it is saved in
            sub.emit(NodeFinished(node=START, step=0, update={"context": list(start.context)}))
        outcome = await runner.run(start, tasks)
        messages = _marked(list(outcome.state.context), name)
        if outcome.status in ("interrupted", "stopped"):
            kept: dict[str, JsonValue] = {key: dump_state(outcome.state).decode()}
            update = {"context": messages}
            if outcome.status == "interrupted":
                raise GraphInterrupt(*outcome.interrupts, update=update, saved=kept)
            raise ChildStopped(update, kept)
        return ToolResult(message=_answer(messages, name), state={"context": messages})

    ask.__doc__ = f"{about}\n\nArgs:\n    task: What {name} should do, in words."
    return Tool(ask, name=tool_name_for(name), description=about)
