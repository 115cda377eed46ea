"""Turning a chunk stream into a whole reply, shared by every ``ChatModel``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from app.core.errors import ModelError
from app.core.models.protocol import GenerationConfig, ToolSpec
from app.core.state.chunks import ChunkMerge
from app.core.state.message import Message

__all__ = ["CollectingChatModel", "collect", "merged"]


def merged(chunks: Sequence[Message]) -> Message:
    """Merge streamed chunks into one whole (``delta=False``) message."""
    merge = ChunkMerge(chunks[0])
    for chunk in chunks[1:]:
        merge.add(chunk)
    return merge.message().model_copy(update={"delta": False})


async def collect(stream: AsyncIterator[Message]) -> Message:
    """Consume a chunk stream and return the whole reply (``delta=False``)."""
    chunks = [c async for c in stream]
    if not chunks:
        raise ModelError("The model sent no reply at all. Try again.")
    return merged(chunks)


class CollectingChatModel:
    """Base of models whose whole reply is their stream collected: gives ``agenerate``."""

    def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        """Stream the reply as ``delta=True`` chunks (each model provides this)."""
        raise NotImplementedError

    async def agenerate(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> Message:
        """Return the whole reply, tool calls with parsed arguments."""
        return await collect(self.astream(messages, tools=tools, config=config))
