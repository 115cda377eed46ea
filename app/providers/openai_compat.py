"""``OpenAIChatModel``: any OpenAI-compatible Chat Completions server, through the openai SDK.

Works with OpenAI itself, llama.cpp's server, LM Studio, vLLM and Ollama's ``/v1``. Streams
text, reasoning (``reasoning_content``, as some servers send it) and tool calls, including
several at once; reports usage when the server sends it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import openai

from app.core.errors import ModelAuthError
from app.core.models.protocol import GenerationConfig, ModelInfo, ToolSpec
from app.core.state.message import Message, TokenUsages
from app.core.state.message_block import ContentBlock, ReasoningBlock, TextBlock, ToolCallBlock
from app.providers._content import MediaLoader
from app.providers._errors import Endpoint, Failure, status_failure
from app.providers._openai_messages import OpenAIMapper, function_tools
from app.providers._remote import RemoteChatModel
from app.providers._retry import RetryPolicy, parse_retry_after
from app.providers._stream import MalformedChunk, chunk

__all__ = ["OpenAIChatModel"]

from app.providers.spec import OPENAI_URL


def classify(exc: BaseException) -> Failure | None:
    """Map an openai SDK exception to a :class:`Failure`, or None if it is not a transport one."""
    if isinstance(exc, openai.APITimeoutError):
        return Failure("timeout", str(exc))
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        return Failure("connect", f"{cause}" if cause else str(exc))
    if isinstance(exc, openai.APIStatusError):
        retry_after = parse_retry_after(exc.response.headers)
        return status_failure(exc.status_code, exc.message, retry_after)
    if isinstance(exc, openai.APIError):
        # An error event inside a 200 stream (llama.cpp's server, OpenAI): its code is the
        # status the request would have had.
        body = exc.body if isinstance(exc.body, dict) else {}
        code = body.get("code")
        if isinstance(code, int) or (isinstance(code, str) and code.isdigit()):
            return status_failure(int(code), exc.message)
        return Failure("server", exc.message)
    if isinstance(exc, TimeoutError):
        return Failure("timeout", str(exc))
    if isinstance(exc, OSError):
        return Failure("connect", str(exc))
    return None


class OpenAIChatModel(RemoteChatModel[openai.AsyncOpenAI]):
    """A :class:`~app.core.models.protocol.ChatModel` over an OpenAI-compatible server."""

    _classify = staticmethod(classify)

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_URL,
        api_key: str | None = None,
        key_name: str | None = "openai/api-key",
        info: ModelInfo | None = None,
        timeout: float = 120.0,
        connect_timeout: float = 10.0,
        retry: RetryPolicy | None = None,
        media_loader: MediaLoader | None = None,
        provider_label: str = "the OpenAI-compatible server",
    ) -> None:
        super().__init__(model, base_url, retry)
        self.info = info or ModelInfo(
            spec=f"openai:{model}@{self.base_url}", name=model, provider="openai"
        )
        self._key_missing = api_key is None and self.base_url == OPENAI_URL
        self._api_key = api_key or "no-key-required"
        self._timeout = openai.Timeout(timeout, connect=connect_timeout)
        self._mapper = OpenAIMapper(model, self.info.input_kinds, media_loader)
        self._where = Endpoint(provider_label, self.base_url, model, key_name)

    def _check_ready(self) -> None:
        if self._key_missing:
            key = self._where.key_name or "openai/api-key"
            raise ModelAuthError(f"No OpenAI API key is set ({key}).", key_name=key)

    def _new_client(self) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            api_key=self._api_key, base_url=self.base_url, timeout=self._timeout, max_retries=0
        )

    async def _close_client(self, client: openai.AsyncOpenAI) -> None:
        await client.close()

    def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None,
        config: GenerationConfig,
    ) -> dict[str, Any]:
        """The Chat Completions request body for one call (without ``stream``)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": self._mapper.messages(messages),
            "stream_options": {"include_usage": True},
        }
        if config.temperature is not None:
            body["temperature"] = config.temperature
        if config.max_tokens is not None:
            # OpenAI's reasoning models refuse max_tokens; other servers may not know the new name.
            key = "max_completion_tokens" if self.base_url == OPENAI_URL else "max_tokens"
            body[key] = config.max_tokens
        if config.stop:
            body["stop"] = config.stop
        if config.seed is not None:
            body["seed"] = config.seed
        if tools:
            body["tools"] = function_tools(tools)
            choice = config.tool_choice
            body["tool_choice"] = (
                choice
                if choice in ("auto", "none", "required")
                else {"type": "function", "function": {"name": choice}}
            )
        if config.response_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": config.response_schema},
            }
        return body

    async def _attempt(
        self, body: dict[str, Any], config: GenerationConfig, mid: str
    ) -> AsyncIterator[Message]:
        stream = await self._connection().chat.completions.create(
            **body, stream=True, extra_body=config.extra or None
        )
        finish: str | None = None
        usage: TokenUsages | None = None
        async with stream:
            try:
                async for raw in stream:
                    blocks, reason, got_usage = parse_chunk(raw, mid)
                    finish = reason or finish
                    usage = got_usage or usage
                    if blocks:
                        yield chunk(mid, blocks)
            except (AttributeError, TypeError, KeyError, ValueError) as exc:
                raise MalformedChunk(f"a malformed chunk: {exc}") from exc
        if finish is None:
            raise MalformedChunk("the stream ended before the server said the reply was complete")
        meta = {"finish_reason": finish, "model": self.model, "provider": self.info.provider}
        yield chunk(mid, [], usages=usage, metadata=meta)


def parse_chunk(raw: Any, mid: str) -> tuple[list[ContentBlock], str | None, TokenUsages | None]:
    """Blocks, finish reason and usage carried by one ``ChatCompletionChunk``."""
    blocks: list[ContentBlock] = []
    finish = None
    for choice in raw.choices or ():
        delta = choice.delta
        extra = delta.model_extra or {}
        reasoning = extra.get("reasoning_content") or extra.get("reasoning")
        if reasoning:
            blocks.append(ReasoningBlock(text=str(reasoning)))
        if delta.content:
            blocks.append(TextBlock(text=delta.content))
        for call in delta.tool_calls or ():
            fn = call.function
            cid = call.id or ("" if fn is None or not fn.name else f"call_{mid[:8]}_{call.index}")
            blocks.append(
                ToolCallBlock(
                    id=cid,
                    name=(fn.name if fn else None) or "",
                    index=call.index,
                    partial_args=(fn.arguments if fn else None) or None,
                )
            )
        finish = choice.finish_reason or finish
    return blocks, finish, _usage(raw.usage)


def _usage(raw: Any) -> TokenUsages | None:
    if raw is None:
        return None
    prompt_details = getattr(raw, "prompt_tokens_details", None)
    done_details = getattr(raw, "completion_tokens_details", None)
    return TokenUsages(
        prompt_tokens=raw.prompt_tokens or 0,
        completion_tokens=raw.completion_tokens or 0,
        total_tokens=raw.total_tokens or 0,
        cache_read_input_tokens=getattr(prompt_details, "cached_tokens", None) or 0,
        reasoning_tokens=getattr(done_details, "reasoning_tokens", None) or 0,
    )
