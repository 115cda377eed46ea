"""Calls that go in circles: the same call asked again in one turn after it failed, or after
it ran twice.

A call is the same as an earlier one when it names the same tool with the same arguments (as
canonical JSON). Within a turn (from the person's last message on), a call that failed before
is not run again, and neither is a third call that succeeded twice: the model reads one short
result saying so, worded for a small model (what happened, what to do instead). Asking for it
once more ends the turn: :func:`stopping_call` names it, and :func:`stop_sentence` says so.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from app.core.state.message import Message
from app.core.state.message_block import ToolCallBlock

__all__ = ["refusals", "stop_sentence", "stopping_call"]

_REASON_CHARS = 300
"""How much of the earlier failure's sentence the refusal quotes."""


@dataclass(frozen=True, slots=True)
class _Seen:
    """What the turn so far did with one call: how often it ran and succeeded, the sentence
    of its failure (if it failed), and whether the model was told once not to repeat it."""

    succeeded: int = 0
    failure: str | None = None
    told: bool = False


def _key(call: ToolCallBlock) -> tuple[str, str]:
    """The call as compared: its tool and its arguments as canonical JSON (the raw text when
    they never parsed)."""
    if call.partial_args:
        return call.name, call.partial_args
    args = json.dumps(call.args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return call.name, args


def _turn(context: Sequence[Message]) -> Sequence[Message]:
    """The messages of the current turn: those after the person's last message (a note the
    engine added, asking for a repair, does not start a turn)."""
    for index in range(len(context) - 1, -1, -1):
        message = context[index]
        if message.role == "user" and message.agent is None and message.note is None:
            return context[index + 1 :]
    return context


def _history(context: Sequence[Message]) -> dict[tuple[str, str], _Seen]:
    """What the turn so far did with each call it asked for, by :func:`_key`."""
    keys: dict[str, tuple[str, str]] = {}
    seen: dict[tuple[str, str], _Seen] = {}
    for message in _turn(context):
        if message.agent is not None:
            continue  # a delegate's own work
        if message.role == "assistant":
            keys.update((c.id, _key(c)) for c in message.tool_calls())
        elif message.role == "tool":
            for result in message.tool_results():
                key = keys.get(result.call_id)
                if key is None:
                    continue
                was = seen.get(key, _Seen())
                error = message.tool_error
                if error == "repeated":
                    was = replace(was, told=True)
                elif error is None and result.status != "error":
                    was = replace(was, succeeded=was.succeeded + 1)
                elif was.failure is None:
                    was = replace(was, failure=_sentence(result.output))
                seen[key] = was
    return seen


def _sentence(output: object) -> str:
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


def _refusal(call: ToolCallBlock, seen: _Seen) -> str | None:
    if seen.failure is not None:
        return (
            f"Not run: you already called {call.name} with exactly these arguments in this "
            f"turn, and it failed: {seen.failure} It will fail the same way again, so do not "
            "call it again. Instead, answer the user from what you already know, or use a "
            "different tool, or different arguments."
        )
    if seen.succeeded >= 2:
        return (
            f"Not run: you already called {call.name} with exactly these arguments "
            f"{seen.succeeded} times in this turn, and you already have its result above. "
            "Do not call it again. Use that result to answer the user, or use a different tool."
        )
    return None


def refusals(context: Sequence[Message], calls: Sequence[ToolCallBlock]) -> Mapping[str, str]:
    """The calls of a reply not to run, by call id, each with the result the model reads
    instead; ``context`` is the conversation before the reply."""
    history = _history(context)
    out: dict[str, str] = {}
    for call in calls:
        seen = history.get(_key(call), _Seen())
        refusal = None if seen.told else _refusal(call, seen)
        if refusal is not None:
            out[call.id] = refusal
    return out


def stopping_call(
    context: Sequence[Message], calls: Sequence[ToolCallBlock]
) -> tuple[ToolCallBlock, bool] | None:
    """The first call of a reply that ends the turn, because the model was told once not to
    repeat it and asks for it again (also twice in one reply), with whether it had failed;
    ``None`` when the reply goes on. ``context`` is the conversation before the reply."""
    history = _history(context)
    for call in calls:
        key = _key(call)
        seen = history.get(key, _Seen())
        if _refusal(call, seen) is None:
            continue
        if seen.told:
            return call, seen.failure is not None
        history[key] = replace(seen, told=True)
    return None


def stop_sentence(agent_name: str, failed: bool) -> str:
    """What the thread says when ``agent_name``'s turn ended because it kept asking for one
    call (``failed``: a call that had failed)."""
    if failed:
        return f"{agent_name} kept asking for the same failing call; stopped."
    return f"{agent_name} kept asking for the same call, whose result it already had; stopped."
