"""One model call from the agent node: stream it, record spending, keep what arrived."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.budget import Reservation
from app.core.errors import ModelError, ModelStreamInterrupted
from app.core.graph.context import RunContext
from app.core.models.protocol import ChatModel, GenerationConfig, ToolSpec
from app.core.netgate import purpose
from app.core.state.chunks import ChunkMerge
from app.core.state.message import Message, new_message_id
from app.core.state.message_block import ErrorBlock, ToolCallBlock
from app.core.state.message_marks import marks
from app.core.userinfo import without_userinfo


@dataclass
class Reply:
    """What a model call produced: the reply and why it ended."""

    message: Message
    stopped: bool = False
    failed: bool = False


async def stream_reply(
    model: ChatModel,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] | None,
    config: GenerationConfig,
    ctx: RunContext,
    held: Reservation | None = None,
) -> Reply:
    """Stream one reply, forwarding chunks to the run's event stream.

    A stop request ends the stream at the next chunk (closing it stops generation). A model
    error becomes an ``ErrorBlock`` in the reply, keeping every chunk that had arrived. The
    call is counted in the run's budget, settling ``held`` (its reservation) when given; a
    call cancelled on its way gives its reservation back (calls waiting for it go on).
    """
    try:
        return await _stream(model, messages, tools, config, ctx, held)
    finally:
        if held is not None:
            ctx.budget.release(held)  # nothing once settled


async def _stream(
    model: ChatModel,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] | None,
    config: GenerationConfig,
    ctx: RunContext,
    held: Reservation | None,
) -> Reply:
    merging: ChunkMerge | None = None
    partial: Message | None = None
    stopped = False
    failure: str | None = None
    code = "model"
    stream: AsyncIterator[Message] | None = None
    info = model.info
    label = without_userinfo(f"the model {info.spec or type(model).__name__}")
    try:
        with purpose(label):
            stream = model.astream(messages, tools=tools, config=config)
            async for chunk in stream:
                # merged as pieces: adding a chunk costs its own size, not the reply's so far;
                # the one merge of the reply, which the run's listeners read too
                if merging is None:
                    merging = ChunkMerge(chunk)
                else:
                    merging.add(chunk)
                ctx.stream_message(chunk, merging)
                if ctx.stop_requested:
                    stopped = True
                    break
    except ModelStreamInterrupted as exc:
        failure, code = without_userinfo(str(exc)), exc.code
        if merging is None and isinstance(exc.partial, Message):
            partial = exc.partial
    except ModelError as exc:
        failure, code = without_userinfo(str(exc)), exc.code
    finally:
        aclose = getattr(stream, "aclose", None) if stream is not None else None
        if aclose is not None:
            await aclose()
    merged = merging.message() if merging is not None else partial
    reply = merged or Message(message_id=new_message_id(), role="assistant", content=[])
    if held is not None:
        ctx.budget.settle_model_call(held, reply.usages, info.price)
    else:
        ctx.budget.record_model_call(reply.usages, info.price, ctx.agent)
    update: dict[str, Any] = {"delta": False}
    metadata = dict(reply.metadata)
    content = list(reply.content)
    if stopped or failure:
        # a call whose arguments never finished arriving cannot be run
        content = [b for b in content if not (isinstance(b, ToolCallBlock) and b.partial_args)]
    if stopped:
        metadata.update(marks(end_reason="stopped"))
    if failure:
        metadata.update(marks(end_reason="failed"))
        metadata["interrupted"] = merged is not None
        metadata["error"] = failure
        content.append(ErrorBlock(error=failure, code=code))
    update["content"] = content
    update["metadata"] = metadata
    return Reply(reply.model_copy(update=update), stopped=stopped, failed=failure is not None)
