"""Shared streaming plumbing: retries before the first chunk, partial replies on failure."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from app.core.errors import ModelError, ModelStreamInterrupted
from app.core.models.retries import RetryNotice, notify_retry
from app.core.models.streaming import merged
from app.core.state.message import Message
from app.core.state.message_block import ContentBlock
from app.providers._errors import Endpoint, Failure, offline_failure, to_model_error
from app.providers._retry import RetryPolicy

__all__ = [
    "MalformedChunk",
    "chunk",
    "guarded_stream",
    "interrupted_partial",
]


class MalformedChunk(Exception):
    """A provider sent a chunk that cannot be understood; raised inside an adapter's stream."""


def chunk(message_id: str, content: list[ContentBlock], **fields: Any) -> Message:
    """Build one ``delta=True`` assistant chunk (hot path: a few microseconds)."""
    return Message(message_id=message_id, role="assistant", content=content, delta=True, **fields)


def interrupted_partial(message_id: str, chunks: Sequence[Message]) -> Message:
    """What arrived before a stream broke, marked ``metadata["interrupted"] = True``."""
    base = merged(chunks) if chunks else Message(message_id=message_id, role="assistant")
    meta = {**base.metadata, "interrupted": True, "finish_reason": "interrupted"}
    return base.model_copy(update={"metadata": meta, "delta": False})


async def guarded_stream(
    open_stream: Callable[[], AsyncIterator[Message]],
    *,
    message_id: str,
    classify: Callable[[BaseException], Failure | None],
    where: Endpoint,
    policy: RetryPolicy,
) -> AsyncIterator[Message]:
    """Run a provider stream with retries, error mapping and partial-reply recovery.

    ``open_stream`` starts one attempt. Failures before the first chunk are retried when the
    policy allows; a failure after it yields a last chunk marked interrupted and raises
    :class:`ModelStreamInterrupted` whose ``partial`` holds everything received.
    """
    attempt = 0
    received: list[Message] = []
    while True:
        stream = open_stream()
        try:
            async for item in stream:
                received.append(item)
                yield item
            return
        except ModelError:
            raise
        except Exception as exc:
            failure = (
                None if isinstance(exc, MalformedChunk) else offline_failure(exc) or classify(exc)
            )
            if received or isinstance(exc, MalformedChunk):
                what = str(exc) if isinstance(exc, MalformedChunk) else _reason(failure, exc)
                yield chunk(
                    message_id, [], metadata={"interrupted": True, "finish_reason": "interrupted"}
                )
                raise ModelStreamInterrupted(
                    f"The reply from {where.provider} at {where.url} was cut off after "
                    f"{len(received)} chunks ({what}). What arrived is kept; send the message "
                    "again for a full reply.",
                    partial=interrupted_partial(message_id, received),
                ) from exc
            if failure is None:
                raise
            wait = policy.delay(attempt, failure.retry_after) if failure.retryable else None
            if wait is None:
                raise to_model_error(failure, where, attempt + 1) from exc
            attempt += 1
            notify_retry(
                RetryNotice(where.provider, attempt, wait, _reason(failure, exc).split(":")[0])
            )
            await asyncio.sleep(wait)
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()


def _reason(failure: Failure | None, exc: BaseException) -> str:
    if failure is not None and failure.status:
        return f"HTTP {failure.status}: {failure.detail}"[:300]
    if failure is not None and failure.detail:
        return failure.detail[:300]
    return f"{type(exc).__name__}: {exc}"[:300]
