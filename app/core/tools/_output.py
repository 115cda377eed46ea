"""Turns whatever a tool returned into the content of its ``tool`` message."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, TypeAdapter

from app.core.state.message_block import (
    AnnotationBlock,
    AudioBlock,
    ContentBlock,
    DataBlock,
    DocumentBlock,
    ErrorBlock,
    ImageBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    VideoBlock,
)
from app.core.state.tool_result import ToolResult

_BLOCK_TYPES = (
    TextBlock,
    ImageBlock,
    AudioBlock,
    VideoBlock,
    DocumentBlock,
    DataBlock,
    ToolCallBlock,
    ToolResultBlock,
    ReasoningBlock,
    ErrorBlock,
    AnnotationBlock,
)
_ANY: TypeAdapter[Any] = TypeAdapter(Any)


class NotJsonError(TypeError):
    """A tool returned something that cannot be sent to a model."""


def _is_blocks(value: Any) -> bool:
    if isinstance(value, _BLOCK_TYPES):
        return True
    return (
        isinstance(value, list | tuple)
        and bool(value)
        and all(isinstance(v, _BLOCK_TYPES) for v in value)
    )


def to_content(call_id: str, name: str, value: Any) -> tuple[list[ContentBlock], dict[str, Any]]:
    """Return the tool message's blocks and the state update for a tool's return value.

    - a :class:`ToolResult` gives its ``message`` (converted as below) and its ``state``;
    - content blocks: the result block's ``output`` is their joined text (``None`` without
      text) and the non-text blocks follow it in the same message;
    - a string or any JSON-able value (pydantic models and dataclasses included) is the output.
    """
    state: dict[str, Any] = {}
    if isinstance(value, ToolResult):
        state = dict(value.state)
        value = value.message
    extra: list[ContentBlock] = []
    if _is_blocks(value):
        blocks = [value] if isinstance(value, _BLOCK_TYPES) else list(value)
        texts = [b.text for b in blocks if isinstance(b, TextBlock)]
        extra = [b for b in blocks if not isinstance(b, TextBlock)]
        output: Any = "\n".join(texts) if texts else None
    elif value is None or isinstance(value, str | int | float | bool):
        output = value
    else:
        try:
            output = (
                value.model_dump(mode="json")
                if isinstance(value, BaseModel)
                else _ANY.dump_python(value, mode="json")
            )
        except (TypeError, ValueError) as exc:  # PydanticSerializationError is a ValueError
            raise NotJsonError(
                f"tool {name!r} returned a {type(value).__name__}, which cannot be sent to "
                "the model; return a string, JSON data, content blocks or a ToolResult"
            ) from exc
    result = ToolResultBlock(call_id=call_id, output=output, status="completed", name=name)
    return [result, *extra], state
