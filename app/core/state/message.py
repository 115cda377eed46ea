"""``Message``: one turn of a conversation, and the conveniences built on it."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from app.core.state.message_block import (
    ContentBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from app.core.state.message_marks import (
    EndReason,
    NoteKind,
    ToolErrorKind,
    agent_of,
    end_reason_of,
    note_of,
    read_old_marks,
    tool_error_of,
)
from app.core.state.storable import INT64, check_storable

__all__ = ["NOTES_KEY", "Message", "Role", "TokenUsages", "new_message_id"]

Role = Literal["user", "assistant", "system", "tool"]

NOTES_KEY = "notes"
"""``Message.metadata`` key of the notes shown on a message (e.g. what a model left out)."""


def new_message_id() -> str:
    """Return a fresh, globally unique message id."""
    return uuid.uuid4().hex


class TokenUsages(BaseModel):
    """Token counts a model reported for one reply."""

    model_config = ConfigDict(defer_build=True, extra="forbid", allow_inf_nan=False)

    completion_tokens: int = 0
    prompt_tokens: int = 0
    total_tokens: int = 0
    reasoning_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    image_tokens: int | None = 0
    audio_tokens: int | None = 0

    def __add__(self, other: TokenUsages) -> TokenUsages:
        """Sum two usages field by field; ``None`` (not reported) counts as 0 unless both are."""
        summed: dict[str, int | None] = {}
        for name in TokenUsages.model_fields:
            mine, theirs = getattr(self, name), getattr(other, name)
            summed[name] = None if mine is None and theirs is None else (mine or 0) + (theirs or 0)
        return TokenUsages.model_validate(summed)


class Message(BaseModel):
    """One turn: a role, a list of content blocks, and metadata.

    A ``delta=True`` message is a streamed chunk; chunks with one ``message_id`` merge into one
    message (``chunk + chunk`` or the ``add_messages`` reducer).
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", allow_inf_nan=False)

    message_id: str | Annotated[int, Field(ge=INT64[0], le=INT64[1])] = Field(
        default_factory=new_message_id
    )
    role: Role
    content: list[ContentBlock] = Field(default_factory=list)
    delta: bool = False
    tools_calls: list[dict[str, Any]] | None = None
    reasoning: str | None = None
    timestamp: float | None = Field(default_factory=time.time)
    metadata: dict[str, Any] = Field(default_factory=dict)
    usages: TokenUsages | None = None
    raw: dict[str, Any] | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _text_as_block(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [TextBlock(text=value)] if value else []
        return value

    @model_validator(mode="after")
    def _storable(self, info: ValidationInfo) -> Message:
        check_storable(self, info)
        read_old_marks(self.role, self.metadata)
        return self

    @classmethod
    def text_message(
        cls,
        text: str,
        role: Role = "user",
        message_id: str | int | None = None,
        **fields: Any,
    ) -> Message:
        """Build a message holding one ``TextBlock``."""
        if message_id is not None:
            fields["message_id"] = message_id
        return cls(role=role, content=[TextBlock(text=text)], **fields)

    @classmethod
    def tool_message(
        cls,
        content: Sequence[ContentBlock],
        message_id: str | int | None = None,
        **fields: Any,
    ) -> Message:
        """Build a ``tool`` message, normally holding ``ToolResultBlock``s."""
        if message_id is not None:
            fields["message_id"] = message_id
        return cls(role="tool", content=list(content), **fields)

    @property
    def end_reason(self) -> EndReason | None:
        """Why the engine ended the turn at this reply, so its tool calls are not run
        (``None``: the reply did not end it; see :func:`~app.core.state.message_marks.marks`)."""
        return end_reason_of(self.metadata)

    @property
    def note(self) -> NoteKind | None:
        """What this message is for when the engine added it itself (``repair``), else ``None``."""
        return note_of(self.metadata)

    @property
    def tool_error(self) -> ToolErrorKind | None:
        """How the call this tool message answers failed (``None``: it did not)."""
        return tool_error_of(self.metadata)

    @property
    def agent(self) -> str | None:
        """The delegate agent that wrote this message in a child run (``None``: the thread's
        own agent, or the person)."""
        return agent_of(self.metadata)

    def text(self) -> str:
        """Return the text of all ``TextBlock``s, concatenated."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    def tool_calls(self) -> list[ToolCallBlock]:
        """Return the tool calls this message requests, in order."""
        return [b for b in self.content if isinstance(b, ToolCallBlock)]

    def tool_results(self) -> list[ToolResultBlock]:
        """Return the tool results this message carries, in order."""
        return [b for b in self.content if isinstance(b, ToolResultBlock)]

    def __add__(self, other: Message) -> Message:
        """Merge a streamed chunk into this message (see ``app.core.state.chunks.merge_chunk``)."""
        from app.core.state.chunks import merge_chunk  # the merge needs this class first

        return merge_chunk(self, other)
