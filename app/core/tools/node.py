"""``ToolNode``: the graph node that runs the tool calls of the last assistant message."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import JsonValue

from app.core.budget import Reservation
from app.core.checkpoint.writes import StepWrites
from app.core.errors import UserError
from app.core.graph.budget_pause import pause_for_budget
from app.core.graph.context import ChildStopped, GraphInterrupt, RunContext, current_context
from app.core.models.protocol import ToolSpec
from app.core.netgate import purpose
from app.core.state.agent_state import UpdateSequence
from app.core.state.message import Message
from app.core.state.message_block import ToolCallBlock, ToolResultBlock
from app.core.state.message_list import MessageList
from app.core.state.message_marks import ToolErrorKind, marks
from app.core.state.serde import dump_messages, load_messages
from app.core.tools._approval_flow import approve
from app.core.tools._pipeline import (
    Done,
    Failure,
    Outcome,
    Prepared,
    ToolAuthorize,
    execute,
    prepare,
)
from app.core.tools._redact import Redactor, UnredactableSecret
from app.core.tools.approvals import ApprovalPolicy
from app.core.tools.policy import InMemoryApprovalPolicy
from app.core.tools.secrets import SecretSource
from app.core.tools.tool import Tool, tool

__all__ = ["CallScreen", "ToolNode", "saved_messages", "tool_message_id"]

CallScreen = Callable[[Sequence[Message], Sequence[ToolCallBlock]], Mapping[str, str]]
"""Given the conversation before a reply and the reply's calls, the calls not to run, by call
id, each with the sentence the model reads instead."""


def tool_message_id(assistant_id: str | int, call_id: str) -> str:
    """The id of the ``tool`` message answering ``call_id`` of assistant message ``assistant_id``.

    Stable, so a node that runs again (after a resume or a crash) replaces its messages.
    """
    return f"{assistant_id}:{call_id}"


def saved_messages(saved: dict[str, str], task_ids: Sequence[str], call_id: str) -> list[Message]:
    """The messages a cut-off run saved for ``call_id`` when it finished (its ``tool`` message
    first), given the step's saved results and the ids of the step's tasks; empty when the
    call did not finish."""
    for task_id in task_ids:
        body = saved.get(_result_key(task_id, call_id))
        if body is not None:
            return load_messages(body)
    return []


def _messages_of(state: Any) -> Sequence[Message]:
    """The conversation of ``state``, read only: a thread of thousands is not copied."""
    if isinstance(state, dict):
        found: Sequence[Message] = state.get("context") or state.get("messages") or []
        return found
    context: Sequence[Message] = state.context
    return context


class ToolNode:
    """Runs every tool call of the last assistant message, concurrently, in four stages.

    1. Checks, per call: the ``screen`` (when given: a call it names is not run), known tool,
       arguments a JSON object, static ``permissions`` all in the run config's
       ``tool_permissions``, ``tool_authorize(call, runtime)``, the schema, and the tool-call
       budget. None of them has side effects.
    2. Approval: the calls that need it and are not covered by an "always" rule are put to a
       person in ONE ``interrupt`` (see :mod:`app.core.tools.approvals`). Because the node
       starts over when the run resumes, no call runs before the decisions are in: calls
       that need no approval wait for the batch too, then everything runs together.
    3. Per call: secrets resolved, the call counted against the budget, the tool run under its
       timeout (sync tools in a daemon thread each; a sync tool that times out gets an
       error result at once, and its thread, which can only finish on its own, does not keep
       the program from exiting).
    4. One ``tool`` message per call, in call order, ids from :func:`tool_message_id`; secret
       values are redacted from everything. A failure is a ``ToolResultBlock(status="error")``
       with one sentence for the model and ``tool_error`` naming the kind (``repeated`` for
       a call the screen kept from running).

    Returns ``{"context": [tool messages..., messages from ToolResult.state]}`` plus every other
    key of the tools' ``ToolResult.state`` (when two calls set one key, the later call wins).
    """

    def __init__(
        self,
        tools: Sequence[Tool[..., Any] | Callable[..., Any]],
        *,
        secret_resolver: SecretSource | None = None,
        tool_authorize: ToolAuthorize | None = None,
        approval_policy: ApprovalPolicy | None = None,
        screen: CallScreen | None = None,
    ) -> None:
        self.tools: dict[str, Tool[..., Any]] = {}
        for item in tools:
            wrapped = item if isinstance(item, Tool) else tool(item)
            if wrapped.name in self.tools:
                raise UserError(f"two tools are named {wrapped.name!r}; tool names must differ")
            self.tools[wrapped.name] = wrapped
        self.secret_resolver = secret_resolver
        self.tool_authorize = tool_authorize
        self.approval_policy: ApprovalPolicy = approval_policy or InMemoryApprovalPolicy()
        self.screen = screen

    @property
    def specs(self) -> list[ToolSpec]:
        """What the model is shown about each tool."""
        return [t.spec for t in self.tools.values()]

    async def __call__(self, state: Any) -> dict[str, Any]:
        """Run the pending tool calls of ``state``; return the update for the graph."""
        messages = _messages_of(state)
        # the calls of this agent's last reply: a delegate's work, kept in the thread, is not
        last = next(
            (m for m in reversed(messages) if m.role == "assistant" and m.agent is None), None
        )
        calls = last.tool_calls() if last is not None else []
        if last is None or not calls:
            return {}
        ctx = current_context()
        writes = ctx.writes if ctx is not None else None
        saved = _saved_results(writes, ctx, calls)
        calls = [c for c in calls if c.id not in saved]  # finished before the run was cut off
        granted = ctx.config.tool_permissions if ctx else frozenset()
        kept: Mapping[str, str] = {}
        if self.screen is not None:  # given the conversation before the reply
            at = len(messages) - next(i for i, m in enumerate(reversed(messages)) if m is last)
            kept = self.screen(messages[: at - 1], calls)
        redactor = Redactor()  # knows no secret before the calls run
        # the checks run one after another: they are quick, and tasks would cost more
        outcomes = [
            Failure(c, "repeated", kept[c.id])
            if c.id in kept
            else await prepare(self.tools, c, granted, self.tool_authorize, ctx, redactor.text)
            for c in calls
        ]
        outcomes = _mark_resumed(outcomes, ctx)
        if ctx is not None:
            wanted = _new(outcomes)
            left = ctx.budget.remaining_tool_calls()
            over = left is not None and wanted > left
            pause_for_budget(ctx, "max_tool_calls" if over else None, wanted - (left or 0))
        outcomes = _within_budget(outcomes, ctx)
        # reserved in the step that checked them: calls running beside these (another
        # delegate's) cannot take the same calls while these wait for approval
        held = ctx.budget.reserve_tool_calls(_new(outcomes), ctx.agent) if ctx else None
        try:
            outcomes = await approve(outcomes, ctx, self.approval_policy, self.tool_authorize)
            if ctx is not None and held is not None:
                ctx.budget.release(held, keep_tool_calls=_new(outcomes))
            aid = last.message_id
            if len(outcomes) == 1:
                ran = [await self._run_and_save(outcomes[0], ctx, redactor, aid, held)]
            else:
                results = await asyncio.gather(
                    *(self._run_and_save(o, ctx, redactor, aid, held) for o in outcomes),
                    return_exceptions=True,
                )
                ran = _finished_or_pause(results, ctx, redactor)
        finally:
            if ctx is not None and held is not None:
                ctx.budget.release(held)
        by_id = {**saved, **{r.call.id: r for r in ran}}
        order = [c.id for c in last.tool_calls()]
        return _merge([by_id[i].redacted(redactor) for i in order if i in by_id])

    async def _run_and_save(
        self,
        outcome: Outcome,
        ctx: RunContext | None,
        redactor: Redactor,
        assistant_id: str | int,
        held: Reservation | None = None,
    ) -> _CallUpdate:
        """Run one call and, once it finished, save its redacted result for a resume."""
        finished = await self._run(outcome, ctx, redactor, held)
        result = _one(assistant_id, finished, redactor)
        writes = ctx.writes if ctx is not None else None
        if writes is not None and ctx is not None and not result.state:
            body = dump_messages(result.redacted(redactor).messages).decode()
            await writes.put(_result_key(ctx.task_id, result.call.id), body)
        return result

    async def _run(
        self,
        outcome: Outcome,
        ctx: RunContext | None,
        redactor: Redactor,
        held: Reservation | None = None,
    ) -> Failure | Done:
        if not isinstance(outcome, Prepared):
            return outcome
        name, call_id = outcome.tool.name, outcome.call.id
        if ctx is not None:
            ctx.report_progress(call_id, name, status="started")
        where = f" in thread {ctx.thread_id}" if ctx is not None and ctx.thread_id else ""
        with purpose(f"the tool {name}{where}"):
            done = await execute(outcome, ctx, self.secret_resolver, redactor, held)
        if ctx is not None:
            failed = isinstance(done, Failure)
            ctx.report_progress(
                call_id,
                name,
                redactor.text(done.message) if isinstance(done, Failure) else "",
                status="error" if failed else "finished",
            )
        return done


def _finished_or_pause(
    results: Sequence[_CallUpdate | BaseException], ctx: RunContext | None, redactor: Redactor
) -> list[_CallUpdate]:
    """The calls' updates; when a delegate's child run among them paused or stopped, the
    whole node pauses (or stops) with what it did so far, and the calls that finished are kept
    in the pause, so the node runs them not again when it resumes."""
    for result in results:
        if isinstance(result, BaseException) and not isinstance(
            result, GraphInterrupt | ChildStopped
        ):
            raise result
    pauses = [r for r in results if isinstance(r, GraphInterrupt | ChildStopped)]
    done = [r for r in results if isinstance(r, _CallUpdate)]
    if not pauses or ctx is None:
        return done
    saved: dict[str, JsonValue] = {}
    updates: list[Any] = []
    for pause in pauses:
        saved.update(pause.saved)
        if pause.update is not None:
            updates.append(pause.update)
    for part in done:
        if not part.state:
            body = dump_messages(part.redacted(redactor).messages).decode()
            saved[_kept_key(ctx.task_id, part.call.id)] = body
    update = UpdateSequence(updates)
    interrupts = [i for p in pauses if isinstance(p, GraphInterrupt) for i in p.interrupts]
    if interrupts:
        raise GraphInterrupt(*interrupts, update=update, saved=saved)
    raise ChildStopped(update, saved)


def _mark_resumed(outcomes: list[Outcome], ctx: RunContext | None) -> list[Outcome]:
    """The calls that started before the run paused and keep state of their own under
    ``TASK/CALL/`` (a delegate's child run) go on now: counted once, when they started."""
    if ctx is None or not (ctx.resume or (ctx.writes is not None and ctx.writes.saved)):
        return outcomes  # nothing was saved, so nothing started before
    saved = [*ctx.resume, *(ctx.writes.saved if ctx.writes is not None else ())]
    going_on = {
        key.removeprefix(f"{ctx.task_id}/").partition("/")[0]
        for key in saved
        if key.startswith(f"{ctx.task_id}/")
    }
    return [
        replace(o, resumed=True) if isinstance(o, Prepared) and o.call.id in going_on else o
        for o in outcomes
    ]


def _kept_key(task_id: str, call_id: str) -> str:
    """Where a pause keeps one finished call's result, within its task."""
    return f"{task_id}/kept/{call_id}"


def _new(outcomes: list[Outcome]) -> int:
    """How many of ``outcomes`` are calls to run that the budget has not counted yet."""
    return sum(isinstance(o, Prepared) and not o.resumed for o in outcomes)


def _within_budget(outcomes: list[Outcome], ctx: RunContext | None) -> list[Outcome]:
    left = ctx.budget.remaining_tool_calls() if ctx else None
    if left is None:
        return outcomes
    result: list[Outcome] = []
    for item in outcomes:
        if isinstance(item, Prepared) and not item.resumed:
            if left <= 0:
                item = Failure(
                    item.call,
                    "budget",
                    f"Tool {item.tool.name!r} was not called: the tool-call budget is used up.",
                )
            else:
                left -= 1
        result.append(item)
    return result


@dataclass(frozen=True, slots=True)
class _CallUpdate:
    """One call's part of the node's update: its ``tool`` message (plus messages its
    ``ToolResult.state`` added) and the other state keys it set, all redacted."""

    call: ToolCallBlock
    messages: list[Message]
    state: dict[str, Any] = field(default_factory=dict)
    clean: tuple[Redactor, int] | None = field(default=None, compare=False)
    """The redactor that redacted this update, and how many secrets it knew then."""

    def redacted(self, redactor: Redactor) -> _CallUpdate:
        """This update with every secret the node has seen by now redacted."""
        if self.clean is not None and self.clean[0] is redactor and self.clean[1] == redactor.known:
            return self  # no secret came to light since it was redacted
        try:
            messages, state = redactor.value(self.messages), redactor.value(self.state)
        except UnredactableSecret as exc:  # the call fails; nothing of its result is kept
            text = f"Tool {self.call.name!r} failed: {exc.reason}"
            reply = _failed(self.messages[0].message_id, self.call, "bad_return", text)
            return _CallUpdate(self.call, [reply], {}, (redactor, redactor.known))
        return _CallUpdate(self.call, messages, state, (redactor, redactor.known))


def _result_key(task_id: str, call_id: str) -> str:
    """Where a step saves one call's result, within its task."""
    return f"{task_id}:{call_id}"


def _saved_results(
    writes: StepWrites | None, ctx: RunContext | None, calls: Sequence[ToolCallBlock]
) -> dict[str, _CallUpdate]:
    """The results of ``calls`` that a cut-off attempt at this step saved, or that a pause of
    the step kept (see :func:`_finished_or_pause`)."""
    if ctx is None:
        return {}
    found: dict[str, _CallUpdate] = {}
    for call in calls:
        kept = ctx.resume.get(_kept_key(ctx.task_id, call.id))
        if isinstance(kept, str):
            found[call.id] = _CallUpdate(call, load_messages(kept))
        elif writes is not None and (
            messages := saved_messages(writes.saved, [ctx.task_id], call.id)
        ):
            found[call.id] = _CallUpdate(call, messages)
    return found


def _failed(message_id: str | int, call: ToolCallBlock, code: ToolErrorKind, text: str) -> Message:
    """The ``tool`` message of a call that was refused or failed: ``text``, marked ``code``."""
    failure = ToolResultBlock(call_id=call.id, output=text, status="error", name=call.name)
    return Message.tool_message([failure], message_id=message_id, metadata=marks(tool_error=code))


def _one(assistant_id: str | int, item: Failure | Done, redactor: Redactor) -> _CallUpdate:
    call: ToolCallBlock = item.call
    message_id = tool_message_id(assistant_id, call.id)
    if isinstance(item, Failure):
        reply = _failed(message_id, call, item.code, redactor.text(item.message))
        return _CallUpdate(call, [reply], {}).redacted(redactor)
    extra: list[Message] = []
    update: dict[str, Any] = {}
    for key, value in item.state.items():
        if key in ("context", "messages"):
            extra.extend(value if isinstance(value, list | tuple | MessageList) else [value])
        else:
            update[key] = value
    reply = Message.tool_message(
        list(item.content), message_id=message_id, metadata=dict(item.metadata)
    )
    if not all(isinstance(m, Message) for m in extra):  # kept as given, not saved early
        update["context"] = extra
        extra = []
    return _CallUpdate(call, [reply, *extra], update).redacted(redactor)


def _merge(parts: Sequence[_CallUpdate]) -> dict[str, Any]:
    """The node's update: every ``tool`` message in call order, then the messages the tools
    added, then the other keys (a later call wins)."""
    update: dict[str, Any] = {}
    extra: list[Any] = []
    for part in parts:
        extra.extend(part.messages[1:])
        for key, value in part.state.items():
            if key == "context":
                extra.extend(value)
            else:
                update[key] = value
    # a delegate's work comes before the answers, as it happened before its answer
    delegated = [m for m in extra if isinstance(m, Message) and m.agent is not None]
    rest = [m for m in extra if not (isinstance(m, Message) and m.agent is not None)]
    update["context"] = [*delegated, *(p.messages[0] for p in parts), *rest]
    return update
