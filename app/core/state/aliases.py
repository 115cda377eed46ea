"""The second seed's message names, as thin conveniences over :class:`Message`.

``HumanMessage("hi")`` builds a ``Message(role="user")``; ``isinstance(m, HumanMessage)`` asks
whether ``m`` is a user message. There is only one message class, so everything persists and
compares the same way.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from app.core.state.message import Message, Role
from app.core.state.message_block import ContentBlock, ToolResultBlock

__all__ = [
    "AIMessage",
    "AIMessageChunk",
    "HumanMessage",
    "SystemMessage",
    "ToolMessage",
]


class _RoleAlias(type):
    role: Role
    chunk: bool

    def __call__(cls, content: str | list[ContentBlock] = "", **fields: Any) -> Message:
        if cls.chunk:
            fields.setdefault("delta", True)
        return Message(role=cls.role, content=content, **fields)

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Message) and obj.role == cls.role and (not cls.chunk or obj.delta)


class HumanMessage(metaclass=_RoleAlias):
    """A user message: ``HumanMessage("Close ticket T-42")``."""

    role: ClassVar[Role] = "user"
    chunk: ClassVar[bool] = False


class AIMessage(metaclass=_RoleAlias):
    """An assistant message."""

    role: ClassVar[Role] = "assistant"
    chunk: ClassVar[bool] = False


class AIMessageChunk(metaclass=_RoleAlias):
    """A streamed piece of an assistant message (``delta=True``)."""

    role: ClassVar[Role] = "assistant"
    chunk: ClassVar[bool] = True


class SystemMessage(metaclass=_RoleAlias):
    """A system instruction."""

    role: ClassVar[Role] = "system"
    chunk: ClassVar[bool] = False


class _ToolAlias(_RoleAlias):
    def __call__(  # type: ignore[override]
        cls,
        content: Any = "",
        *,
        tool_call_id: str,
        status: Literal["completed", "error"] = "completed",
        **fields: Any,
    ) -> Message:
        block = ToolResultBlock(call_id=tool_call_id, output=content, status=status)
        return Message(role="tool", content=[block], **fields)


class ToolMessage(metaclass=_ToolAlias):
    """A tool result: ``ToolMessage("Sunny", tool_call_id="call_1")``."""

    role: ClassVar[Role] = "tool"
    chunk: ClassVar[bool] = False
