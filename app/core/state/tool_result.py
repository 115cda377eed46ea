"""``ToolResult``: what a tool returns when it both answers the model and updates state."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from app.core.state.message_block import ContentBlock

__all__ = ["ToolResult"]


class ToolResult(BaseModel):
    """A tool's answer to the model (``message``) plus a state update (``state``).

    Only the keys present in ``state`` are updated, each through its field's reducer.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    message: str | list[ContentBlock] | JsonValue = None
    state: dict[str, Any] = Field(default_factory=dict)
