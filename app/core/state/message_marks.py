"""The typed marks on a message that the engine routes on, and how older messages get them.

A reply can end the turn whatever it asks for (its end reason); the engine can write a message
of its own into the conversation (a note); a tool message can say how its call failed (a tool
error); a message a delegate agent wrote in a child run names that agent. The seed's
``Message`` has a fixed set of fields, so a mark is saved in ``metadata``,
but only this module names its key: code writes marks with :func:`marks` and reads them as
``message.end_reason``, ``message.note``, ``message.tool_error`` and ``message.agent``, typed.

Messages saved before had other keys for the same facts (``final``, ``stopped``,
``stop_reason``, ``repair``); :func:`read_old_marks` turns them into marks whenever a message
is read (from the store, an export, a checkpoint), so an older thread routes as it did.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

__all__ = [
    "MAX_AGENT_NAME",
    "EndReason",
    "NoteKind",
    "ToolErrorKind",
    "agent_of",
    "end_reason_of",
    "marks",
    "note_of",
    "read_old_marks",
    "tool_error_of",
]

EndReason = Literal[
    "stopped", "failed", "budget", "out_of_steps", "invalid_output", "repeated_call"
]
"""Why the engine ended the turn at a reply, so its tool calls (if any) are not run: the user
stopped it, the model call failed, a budget is used up, the run is out of steps, the
structured output could not be repaired, or the model kept asking for a call it had been told
not to repeat."""

NoteKind = Literal["repair"]
"""What a message the engine itself added is for: ``repair`` asks the model to fix its
structured output."""

ToolErrorKind = Literal[
    "unknown_tool",
    "malformed_arguments",
    "permission",
    "not_authorized",
    "invalid_arguments",
    "approval_unavailable",
    "denied",
    "secret",
    "budget",
    "timeout",
    "error",
    "bad_return",
    "discarded",
    "repeated",
]
"""How a tool call failed, as the tool message that answers it says (``repeated``: not run,
because the same call had failed already in the turn, or had run twice)."""

MAX_AGENT_NAME = 200
"""The longest agent name a mark keeps (a longer one is not a mark)."""

_END_REASON, _NOTE, _TOOL_ERROR, _AGENT = "end_reason", "note", "tool_error", "agent"
_END_REASONS: dict[object, EndReason] = {v: v for v in get_args(EndReason)}
_NOTES: dict[object, NoteKind] = {v: v for v in get_args(NoteKind)}
_TOOL_ERRORS: dict[object, ToolErrorKind] = {v: v for v in get_args(ToolErrorKind)}
_OLD_KEYS = frozenset({"final", "stopped", "repair"})


def marks(
    *,
    end_reason: EndReason | None = None,
    note: NoteKind | None = None,
    tool_error: ToolErrorKind | None = None,
    agent: str | None = None,
) -> dict[str, str]:
    """The ``metadata`` entries that mark a message (only the marks given); ``agent`` is the
    name of the delegate agent that wrote it in a child run."""
    given = ((_END_REASON, end_reason), (_NOTE, note), (_TOOL_ERROR, tool_error), (_AGENT, agent))
    return {key: value for key, value in given if value is not None}


def _known(table: dict[object, Any], metadata: dict[str, Any], key: str) -> Any:
    value = metadata.get(key)
    return table.get(value) if isinstance(value, str) else None


def end_reason_of(metadata: dict[str, Any]) -> EndReason | None:
    """The end reason marked in a message's ``metadata`` (an unknown word counts as none)."""
    reason: EndReason | None = _known(_END_REASONS, metadata, _END_REASON)
    return reason


def note_of(metadata: dict[str, Any]) -> NoteKind | None:
    """The kind of note marked in a message's ``metadata``, if any."""
    note: NoteKind | None = _known(_NOTES, metadata, _NOTE)
    return note


def tool_error_of(metadata: dict[str, Any]) -> ToolErrorKind | None:
    """The tool error marked in a tool message's ``metadata``, if any."""
    error: ToolErrorKind | None = _known(_TOOL_ERRORS, metadata, _TOOL_ERROR)
    return error


def agent_of(metadata: dict[str, Any]) -> str | None:
    """The name of the delegate agent a message's ``metadata`` says wrote it, if any (an
    empty, over-long or non-text value counts as none)."""
    value = metadata.get(_AGENT)
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_AGENT_NAME:
        return None
    return value


def read_old_marks(role: str, metadata: dict[str, Any]) -> None:
    """Turn the keys an older message kept in ``metadata`` for its marks into the marks, in
    place: ``final``/``stopped`` (with ``stop_reason``, ``structured_error`` or ``error``
    telling why) into an end reason, and ``repair`` on a user message into a note.

    Keys whose values mean nothing to the engine (a provider's own ``stop_reason``, say)
    stay as they were."""
    if not metadata or _OLD_KEYS.isdisjoint(metadata):
        return
    if metadata.get("final") is True or metadata.get("stopped") is True:
        metadata.setdefault(_END_REASON, _old_end_reason(metadata))
        metadata.pop("final", None)
        metadata.pop("stopped", None)
        if metadata.get("stop_reason") == "budget":
            del metadata["stop_reason"]
    if role == "user" and metadata.get("repair") is True:
        metadata.setdefault(_NOTE, "repair")
        del metadata["repair"]


def _old_end_reason(metadata: dict[str, Any]) -> EndReason:
    if metadata.get("stopped") is True:
        return "stopped"
    if metadata.get("stop_reason") == "budget":
        return "budget"
    if "structured_error" in metadata:
        return "invalid_output"
    if "error" in metadata:
        return "failed"
    return "out_of_steps"
