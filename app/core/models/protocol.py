"""The ``ChatModel`` protocol every provider implements, and what is passed to it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from app.core.state.message import Message

__all__ = ["ChatModel", "GenerationConfig", "ModelInfo", "ModelPrice", "ToolSpec"]


class ToolSpec(BaseModel):
    """A tool as the model sees it: name, description and JSON Schema of its arguments."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class GenerationConfig(BaseModel):
    """Per-call settings; a provider ignores what it cannot honour and says so in metadata."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    temperature: float | None = None
    max_tokens: int | None = None
    stop: list[str] | None = None
    seed: int | None = None
    tool_choice: Literal["auto", "none", "required"] | str = "auto"
    response_schema: dict[str, Any] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class ModelPrice(BaseModel):
    """Price in US dollars per million tokens."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0
    cache_read_per_mtok: float = 0.0
    cache_write_per_mtok: float = 0.0


class ModelInfo(BaseModel):
    """What Parley knows about a model: its name, limits, prices and which inputs it takes."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    spec: str
    name: str
    provider: str
    context_window: int = 8192
    max_output_tokens: int | None = None
    price: ModelPrice = Field(default_factory=ModelPrice)
    supports_tools: bool = True
    input_kinds: frozenset[str] = frozenset({"text"})
    """Block types the model accepts natively: text, image, audio, video, document."""


@runtime_checkable
class ChatModel(Protocol):
    """A chat model: whole replies with ``agenerate``, ``delta=True`` chunks with ``astream``.

    ``astream`` yields chunks sharing one ``message_id``; merging them (``add_messages`` or
    ``chunk + chunk``) gives the whole reply. Closing the stream early stops generation.
    Failures raise :class:`app.core.errors.ModelError` subclasses. ``info`` says what the model
    is and takes (its window, reply limit, prices, inputs).
    """

    @property
    def info(self) -> ModelInfo:
        """What Parley knows about the model."""
        ...

    async def agenerate(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> Message:
        """Return the model's whole reply to ``messages``."""
        ...

    def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        """Yield the model's reply as ``delta=True`` chunks."""
        ...
