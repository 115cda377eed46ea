"""``AnthropicChatModel``: Claude through the official anthropic SDK.

Streams text, thinking (as ``ReasoningBlock`` with its signature), and tool use; takes images
and PDFs; reports usage including prompt-cache reads and writes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import anthropic

from app.core.errors import ModelAuthError
from app.core.models.protocol import GenerationConfig, ModelInfo, ToolSpec
from app.core.state.message import Message, TokenUsages
from app.core.state.message_block import (
    AnnotationRef,
    ContentBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
)
from app.providers._anthropic_messages import REDACTED, AnthropicMapper
from app.providers._content import MediaLoader
from app.providers._errors import Endpoint, Failure, status_failure
from app.providers._remote import RemoteChatModel
from app.providers._retry import RetryPolicy, parse_retry_after
from app.providers._stream import MalformedChunk, chunk

__all__ = ["AnthropicChatModel"]

ANTHROPIC_URL = "https://api.anthropic.com"
_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
}


def classify(exc: BaseException) -> Failure | None:
    """Map an anthropic SDK exception to a :class:`Failure`."""
    if isinstance(exc, anthropic.APITimeoutError):
        return Failure("timeout", str(exc))
    if isinstance(exc, anthropic.APIConnectionError):
        return Failure("connect", str(exc.__cause__ or exc))
    if isinstance(exc, anthropic.APIStatusError):
        retry_after = parse_retry_after(exc.response.headers)
        status = 503 if exc.status_code == 529 else exc.status_code
        if status < 400:
            return _event_failure(exc.body, retry_after)
        return status_failure(status, exc.message, retry_after)
    if isinstance(exc, TimeoutError):
        return Failure("timeout", str(exc))
    if isinstance(exc, OSError):
        return Failure("connect", str(exc))
    return None


# The status each error type has when it is an HTTP error instead of a stream event.
_EVENT_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 503,
}


def _event_failure(body: object, retry_after: float | None) -> Failure:
    """An ``error`` event inside a 200 stream (overload, most often), by its error type."""
    error = body.get("error") if isinstance(body, dict) else None
    error = error if isinstance(error, dict) else {}
    status = _EVENT_STATUS.get(str(error.get("type")), 500)
    return status_failure(status, str(error.get("message") or body), retry_after)


class AnthropicChatModel(RemoteChatModel[anthropic.AsyncAnthropic]):
    """A :class:`~app.core.models.protocol.ChatModel` over the Anthropic Messages API."""

    _classify = staticmethod(classify)

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        base_url: str = ANTHROPIC_URL,
        key_name: str = "anthropic/api-key",
        info: ModelInfo | None = None,
        timeout: float = 600.0,
        connect_timeout: float = 10.0,
        retry: RetryPolicy | None = None,
        media_loader: MediaLoader | None = None,
        default_max_tokens: int = 4096,
    ) -> None:
        super().__init__(model, base_url, retry)
        self.info = info or ModelInfo(
            spec=f"anthropic:{model}",
            name=model,
            provider="anthropic",
            input_kinds=frozenset({"text", "image", "document"}),
        )
        self.default_max_tokens = default_max_tokens
        self._api_key = api_key
        self._timeout = anthropic.Timeout(timeout, connect=connect_timeout)
        self._mapper = AnthropicMapper(model, media_loader)
        self._where = Endpoint("Anthropic", self.base_url, model, key_name)

    def _new_client(self) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(
            api_key=self._api_key, base_url=self.base_url, timeout=self._timeout, max_retries=0
        )

    async def _close_client(self, client: anthropic.AsyncAnthropic) -> None:
        await client.close()

    def _check_ready(self) -> None:
        if not self._api_key:
            raise ModelAuthError(
                "No Anthropic API key is set (anthropic/api-key).", key_name="anthropic/api-key"
            )

    def request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, cfg: GenerationConfig
    ) -> dict[str, Any]:
        """The ``messages.create`` arguments for one call (without ``stream``)."""
        system, turns = self._mapper.convert(messages)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": turns,
            "max_tokens": cfg.max_tokens or self.info.max_output_tokens or self.default_max_tokens,
        }
        if system:
            body["system"] = system
        if cfg.temperature is not None:
            body["temperature"] = cfg.temperature
        if cfg.stop:
            body["stop_sequences"] = cfg.stop
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in tools
            ]
            choice = cfg.tool_choice
            body["tool_choice"] = (
                {"type": "auto"}
                if choice == "auto"
                else {"type": "none"}
                if choice == "none"
                else {"type": "any"}
                if choice == "required"
                else {"type": "tool", "name": choice}
            )
        return body

    async def _attempt(
        self, body: dict[str, Any], config: GenerationConfig, mid: str
    ) -> AsyncIterator[Message]:
        stream = await self._connection().messages.create(
            **body, stream=True, extra_body=config.extra or None
        )
        state = _EventState(mid)
        async with stream:
            try:
                async for event in stream:
                    blocks = state.handle(event)
                    if blocks:
                        yield chunk(mid, blocks)
            except (ValueError, AttributeError, TypeError, KeyError) as exc:
                raise MalformedChunk(f"a malformed event: {exc}") from exc
        if not state.stopped:
            raise MalformedChunk("the stream ended before message_stop")
        meta = {
            "finish_reason": _FINISH.get(state.stop_reason or "", state.stop_reason or "stop"),
            "stop_reason": state.stop_reason,
            "model": self.model,
            "provider": "anthropic",
        }
        yield chunk(mid, [], usages=state.usage(), metadata=meta)


class _EventState:
    """Turns raw stream events into blocks, remembering tool ids by block index."""

    def __init__(self, mid: str) -> None:
        self.mid = mid
        self.tool_ids: dict[int, str] = {}
        self.counts: dict[str, int] = {}
        self.stop_reason: str | None = None
        self.stopped = False

    def handle(self, event: Any) -> list[ContentBlock]:
        kind = event.type
        if kind == "message_start":
            self._count(event.message.usage)
        elif kind == "content_block_start":
            return self._start(event.index, event.content_block)
        elif kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason or self.stop_reason
            self._count(event.usage)
        elif kind == "message_stop":
            self.stopped = True
        return []

    def _count(self, usage: Any) -> None:
        for name in (
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ):
            value = getattr(usage, name, None)
            if value is not None:
                self.counts[name] = value

    def _start(self, index: int, block: Any) -> list[ContentBlock]:
        kind = block.type
        if kind == "text":
            return [TextBlock(text=block.text)] if block.text else []
        if kind == "thinking":
            return [ReasoningBlock(text=block.thinking or "", signature=block.signature or None)]
        if kind == "redacted_thinking":
            return [ReasoningBlock(text="", signature=REDACTED + block.data)]
        if kind in ("tool_use", "server_tool_use"):
            self.tool_ids[index] = block.id
            args = block.input if isinstance(block.input, dict) and block.input else {}
            call = ToolCallBlock(id=block.id, name=block.name, index=index, args=args)
            return [call]
        return []

    def _delta(self, index: int, delta: Any) -> list[ContentBlock]:
        kind = delta.type
        if kind == "text_delta":
            return [TextBlock(text=delta.text)]
        if kind == "thinking_delta":
            return [ReasoningBlock(text=delta.thinking)]
        if kind == "signature_delta":
            return [ReasoningBlock(text="", signature=delta.signature)]
        if kind == "input_json_delta":
            cid = self.tool_ids[index]
            return [
                ToolCallBlock(id=cid, name="", index=index, partial_args=delta.partial_json or None)
            ]
        if kind == "citations_delta":
            cite = delta.citation
            ref = AnnotationRef(
                title=getattr(cite, "document_title", None) or getattr(cite, "title", None),
                url=getattr(cite, "url", None),
                snippet=getattr(cite, "cited_text", None),
            )
            return [TextBlock(text="", annotations=[ref])]
        return []

    def usage(self) -> TokenUsages:
        c = self.counts
        # ``input_tokens`` leaves out the cached part; ``prompt_tokens`` is the whole prompt.
        write = c.get("cache_creation_input_tokens", 0)
        read = c.get("cache_read_input_tokens", 0)
        prompt = c.get("input_tokens", 0) + write + read
        out = c.get("output_tokens", 0)
        return TokenUsages(
            prompt_tokens=prompt,
            completion_tokens=out,
            total_tokens=prompt + out,
            cache_creation_input_tokens=write,
            cache_read_input_tokens=read,
        )
