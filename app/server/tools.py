"""A client's tools, passed through to a plain model: their definitions checked against the
server's caps, the client's choice of tool, the arguments of the calls it sends back, and
the calls of the model's reply as each API writes them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from app.core.models.protocol import ToolSpec
from app.core.state.message import Message
from app.core.state.message_block import ToolCallBlock
from app.server.chat import bad

__all__ = [
    "MAX_SCHEMA",
    "MAX_TOOLS",
    "ToolReader",
    "arguments_text",
    "call_arguments",
    "checked_tools",
    "reply_calls",
    "tool_name",
]

MAX_TOOLS = 128
"""How many tools one request may offer the model."""

MAX_SCHEMA = 64 * 1024
"""How long one tool's argument schema may be, as JSON, in bytes."""

_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def tool_name(value: Any, where: str) -> str:
    """A tool's name at ``where``: 1 to 64 letters, digits, underscores or dashes."""
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        shown = repr(value[:80]) if isinstance(value, str) else "missing"
        raise bad(
            f"{where} is {shown}: a tool's name is 1 to 64 letters, digits, underscores or dashes.",
            "invalid_tool_name",
            "tools",
        )
    return value


ToolReader = Callable[[dict[str, Any], str], tuple[str, Any, Any]]
"""Reads one tool of a request (found at the given place) into its name, description and
argument schema, as that API writes them."""


def checked_tools(items: Any, read: ToolReader) -> list[ToolSpec]:
    """The tools of a request's ``tools`` list, each read by ``read(item, where)`` into
    ``(name, description, schema)``; a bad request when there are too many, a name is
    repeated or not a tool's name, or a schema is not an object or too long."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise bad("tools must be a list of tools.", "invalid_tools", "tools")
    if len(items) > MAX_TOOLS:
        raise bad(
            f"The request offers {len(items)} tools; Parley passes at most {MAX_TOOLS} to a model.",
            "too_many_tools",
            "tools",
        )
    specs: list[ToolSpec] = []
    for n, item in enumerate(items):
        where = f"tools[{n}]"
        if not isinstance(item, dict):
            raise bad(f"{where} must be an object.", "invalid_tools", "tools")
        name, description, schema = read(item, where)
        if any(s.name == name for s in specs):
            raise bad(
                f"{where} repeats the tool name {name!r}; names must differ.", "invalid_tools"
            )
        if description is None:
            description = ""
        if not isinstance(description, str):
            raise bad(f"{where}'s description must be a string.", "invalid_tools", "tools")
        if schema is None:
            schema = {"type": "object", "properties": {}}
        if not isinstance(schema, dict):
            raise bad(f"{where}'s schema must be a JSON object.", "invalid_tools", "tools")
        size = len(json.dumps(schema, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        if size > MAX_SCHEMA:
            raise bad(
                f"{where}'s schema is {size:,} bytes; Parley takes at most {MAX_SCHEMA:,} "
                "bytes for one tool.",
                "schema_too_large",
                "tools",
            )
        specs.append(ToolSpec(name=name, description=description, parameters=schema))
    return specs


def call_arguments(text: Any, where: str) -> dict[str, Any]:
    """The arguments of a call a client sends back, given as JSON text (OpenAI's way)."""
    if not isinstance(text, str):
        raise bad(f"{where} must be the call's arguments as a JSON string.", "invalid_arguments")
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise bad(
            f"{where} is not valid JSON: send the call's arguments as the model gave them, a "
            "JSON object in a string.",
            "invalid_arguments",
        ) from None
    if not isinstance(value, dict):
        raise bad(
            f"{where} must be a JSON object, not {type(value).__name__}.", "invalid_arguments"
        )
    return value


def arguments_text(call: ToolCallBlock) -> str:
    """A call's arguments as JSON text: what parsed, or the model's text as it came when it
    never parsed (the client sees what the model made)."""
    if call.partial_args and not call.args:
        return call.partial_args
    return json.dumps(call.args, ensure_ascii=False)


def reply_calls(reply: Message) -> list[ToolCallBlock]:
    """The calls of the model's reply that name a tool (what a client can run)."""
    return [c for c in reply.tool_calls() if c.name and c.tool_type is None]
