"""The model's reply as both APIs stream it: its text piece by piece as it comes, then how
it ended (its usage, its finish reason and the tool calls it made, each whole)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from app.core.models.protocol import ChatModel
from app.core.models.streaming import merged
from app.core.state.message import Message, TokenUsages
from app.core.state.message_block import TextBlock, ToolCallBlock
from app.server.chat import ChatRequest
from app.server.streams import closing
from app.server.tools import reply_calls

__all__ = ["Ending", "generate", "pieces"]


@dataclass(frozen=True, slots=True)
class Ending:
    """How a streamed reply ended: its usage (when the model said), the model's finish
    reason (``stop`` when it gave none) and its tool calls, whole."""

    usages: TokenUsages | None
    finish: str
    calls: list[ToolCallBlock]


def generate(request: ChatRequest, model: ChatModel) -> AsyncIterator[Message]:
    """The model's stream for ``request``: its messages, the client's tools, its settings."""
    return model.astream(request.messages, tools=request.tools or None, config=request.config)


async def pieces(request: ChatRequest, model: ChatModel) -> AsyncIterator[str | Ending]:
    """Each piece of the reply's text as it comes, then its :class:`Ending`. A model's
    failure raises its :class:`~app.core.errors.ParleyError`; closing this stream (the
    client went away) closes the model's, which stops it."""
    usages: TokenUsages | None = None
    finish = "stop"
    calling: list[Message] = []  # the chunks holding tool calls, merged at the end
    async with closing(generate(request, model)) as stream:
        async for part in stream:
            text = "".join(b.text for b in part.content if isinstance(b, TextBlock))
            if text:
                yield text
            if any(isinstance(b, ToolCallBlock) for b in part.content):
                calling.append(part)
            if part.usages is not None:
                usages = part.usages
            if part.metadata.get("finish_reason"):
                finish = str(part.metadata["finish_reason"])
    calls = reply_calls(merged(calling)) if calling else []
    yield Ending(usages, finish, calls)
