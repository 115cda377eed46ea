"""The checks before a tool call and the call itself; every refusal is a :class:`Failure`.

Nothing here raises for a bad call: the model gets one sentence saying what happened.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping
from dataclasses import dataclass, field, replace
from types import CoroutineType
from typing import Any

from pydantic import JsonValue, ValidationError

from app.core.budget import Reservation
from app.core.errors import BudgetExceeded
from app.core.graph.context import ChildStopped, GraphInterrupt, RunContext
from app.core.state.message_block import ContentBlock, ToolCallBlock
from app.core.state.message_marks import ToolErrorKind
from app.core.tools._output import NotJsonError, to_content
from app.core.tools._redact import Redactor
from app.core.tools._worker import run_in_thread
from app.core.tools.runtime import Runtime
from app.core.tools.secrets import SecretError, SecretSource, resolve_secret
from app.core.tools.tool import Tool, ToolError

_PLAIN = frozenset({str, int, float, bool, type(None), dict, list})
"""What tools return most, and what is never awaitable (``isawaitable`` is slow on them)."""

ToolAuthorize = Callable[[ToolCallBlock, Runtime], "bool | str | Awaitable[bool | str]"]
"""Decides at run time whether a call may go ahead: ``True``, ``False`` or a refusal reason."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A call that was refused or failed; ``message`` is the sentence the model reads."""

    call: ToolCallBlock
    code: ToolErrorKind
    message: str


@dataclass(frozen=True, slots=True)
class Prepared:
    """A call that passed the checks so far, with its validated arguments; ``resumed``: the
    call started before the run paused (a delegate's child run) and goes on now, so it was
    counted against the budget already."""

    call: ToolCallBlock
    tool: Tool[..., Any]
    args: dict[str, Any]
    json_args: dict[str, JsonValue]
    metadata: dict[str, Any] = field(default_factory=dict)
    resumed: bool = False
    runtime: Runtime | None = field(default=None, compare=False, repr=False)
    """The call's runtime, when the checks made one (the tool gets the same)."""


@dataclass(frozen=True, slots=True)
class Done:
    """A call that ran: its message content and the state update it asked for."""

    call: ToolCallBlock
    content: list[ContentBlock]
    state: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)


Outcome = Failure | Prepared | Done


def _arguments(call: ToolCallBlock) -> dict[str, Any] | None:
    if not call.partial_args:
        return call.args
    try:
        parsed = json.loads(call.partial_args)
    except ValueError:
        return None
    return {**call.args, **parsed} if isinstance(parsed, dict) else None


def _validation_sentence(name: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False)[:3]:
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        parts.append(f"{loc}: {err['msg']}")
    more = f" (and {exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return (
        f"Invalid arguments for tool {name!r}: {'; '.join(parts)}{more}. Fix them and call again."
    )


def validate(
    tool: Tool[..., Any],
    call: ToolCallBlock,
    args: Mapping[str, Any],
    runtime: Runtime | None = None,
) -> Outcome:
    """Validate ``args`` against the tool's schema (``runtime``: the call's, when made)."""
    try:
        model = tool.args_model.model_validate(dict(args))
    except ValidationError as exc:
        return Failure(call, "invalid_arguments", _validation_sentence(tool.name, exc))
    values = {name: getattr(model, name) for name in tool.arg_names}
    return Prepared(call, tool, values, model.model_dump(mode="json"), runtime=runtime)


async def authorize(
    check: ToolAuthorize | None, tool: Tool[..., Any], call: ToolCallBlock, runtime: Runtime
) -> Failure | None:
    """Ask the dynamic ``tool_authorize`` hook; a refusal or an error in it is a Failure."""
    if check is None:
        return None
    try:
        verdict = check(call, runtime)
        if verdict is not True and inspect.isawaitable(verdict):
            verdict = await verdict
    except Exception as exc:
        return Failure(
            call, "not_authorized", f"Tool {tool.name!r} could not be authorized ({exc})."
        )
    if verdict is True:
        return None
    reason = verdict if isinstance(verdict, str) and verdict else "the run's policy refused it"
    return Failure(call, "not_authorized", f"Tool {tool.name!r} was not authorized: {reason}.")


async def prepare(
    tools: Mapping[str, Tool[..., Any]],
    call: ToolCallBlock,
    granted: frozenset[str],
    check: ToolAuthorize | None,
    ctx: RunContext | None,
    redact: Callable[[str], str],
) -> Outcome:
    """Run the checks that come before approval: tool, JSON, permissions, authorize, schema.

    ``redact`` is what the call's runtime redacts its progress messages with."""
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        return Failure(
            call, "unknown_tool", f"There is no tool named {call.name!r}; the tools are: {known}."
        )
    args = _arguments(call)
    if args is None:
        return Failure(
            call,
            "malformed_arguments",
            f"The arguments of this call to {tool.name!r} are not a valid JSON object; "
            "send them as one JSON object.",
        )
    missing = [p for p in tool.permissions if p not in granted]
    if missing:
        return Failure(
            call,
            "permission",
            f"Tool {tool.name!r} is not permitted in this run: it needs the permission(s) "
            f"{', '.join(missing)}, which the user has not granted.",
        )
    if check is None:
        return validate(tool, call, args)
    runtime = Runtime.for_call(call.id, tool.name, ctx, redact=redact)
    refused = await authorize(check, tool, call, runtime)
    if refused:
        return refused
    return validate(tool, call, args, runtime)


async def execute(
    item: Prepared,
    ctx: RunContext | None,
    secrets: SecretSource | None,
    redactor: Redactor,
    held: Reservation | None = None,
) -> Failure | Done:
    """Resolve secrets, count the call against the budget (one of the calls ``held``
    reserved, when given) and run it under its timeout."""
    tool, call = item.tool, item.call
    kwargs = dict(item.args)
    try:
        for param, ref in tool.secret_refs.items():
            value = await resolve_secret(secrets, ref)
            redactor.add(ref, value)
            kwargs[param] = value
    except SecretError as exc:
        return Failure(call, "secret", f"Tool {tool.name!r} could not run: {exc}.")
    if tool.runtime_param:
        kwargs[tool.runtime_param] = item.runtime or Runtime.for_call(
            call.id, tool.name, ctx, redact=redactor.text
        )
    try:
        if ctx is not None and not item.resumed:
            if held is None:
                ctx.budget.check_tool_calls(1)
                ctx.budget.record_tool_calls(1, ctx.agent)
            elif not ctx.budget.spend_tool_call(held):
                raise BudgetExceeded("the tool-call budget has no call reserved for it")
    except BudgetExceeded as exc:
        return Failure(call, "budget", f"Tool {tool.name!r} was not called: {exc}.")
    limit = tool.timeout
    deadline = None if limit is None else asyncio.get_running_loop().time() + limit
    scope: asyncio.Timeout | None = None
    try:
        if tool.is_async:
            started = tool.fn(**kwargs)
            if type(started) is CoroutineType:
                # its first step runs now; only a call that then waits gets a timer, as only
                # one that waits can be stopped (and nearly every call finishes at once)
                try:
                    waits_on = started.send(None)
                except StopIteration as finished:
                    value = finished.value
                else:
                    async with asyncio.timeout_at(deadline) as scope:
                        value = await _Rest(started, waits_on)
            else:
                async with asyncio.timeout_at(deadline) as scope:
                    value = await started
        else:
            async with asyncio.timeout_at(deadline) as scope:
                value = await run_in_thread(tool.fn, **kwargs)
        if type(value) not in _PLAIN and inspect.isawaitable(value):
            async with asyncio.timeout_at(deadline) as scope:
                value = await value
        content, state = to_content(call.id, tool.name, value)
    except (GraphInterrupt, ChildStopped):  # a delegate's child run paused or stopped
        raise
    except TimeoutError as exc:
        if scope is not None and scope.expired():
            return Failure(
                call,
                "timeout",
                f"Tool {tool.name!r} did not finish within {tool.timeout:g} s and was stopped.",
            )
        return Failure(call, "error", f"Tool {tool.name!r} failed: TimeoutError: {exc}")
    except NotJsonError as exc:
        return Failure(call, "bad_return", f"{exc}.")
    except ToolError as exc:
        return Failure(call, "error", f"Tool {tool.name!r} failed: {exc}")
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return Failure(call, "error", f"Tool {tool.name!r} failed: {detail}")
    return Done(call, content, state, dict(item.metadata))


class _Rest:
    """The rest of a coroutine whose first step ran already and gave ``waits_on`` (what it
    waits for): awaiting this goes on with it exactly where ``await`` would have."""

    __slots__ = ("_coro", "_waits_on")

    def __init__(self, coro: Coroutine[Any, Any, Any], waits_on: Any) -> None:
        self._coro, self._waits_on = coro, waits_on

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, waits_on = self._coro, self._waits_on
        while True:
            try:
                sent = yield waits_on
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # a cancellation: the coroutine gets it
                try:
                    waits_on = coro.throw(exc)
                except StopIteration as finished:
                    return finished.value
            else:
                try:
                    waits_on = coro.send(sent)
                except StopIteration as finished:
                    return finished.value


def with_args(item: Prepared, call_args: dict[str, Any]) -> Prepared:
    """Return ``item``'s call with ``call_args`` as its arguments (before re-validation)."""
    return replace(item, call=item.call.model_copy(update={"args": call_args}))
