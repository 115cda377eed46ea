"""``OllamaChatModel``: a model served by Ollama, over its native streaming ``/api/chat``.

Streams text, thinking (as reasoning) and tool calls; images go in a message's ``images``.
:func:`list_ollama_models` (from :mod:`.ollama_tags`) lists what the server has installed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.core.errors import ModelError
from app.core.models.protocol import GenerationConfig, ModelInfo, ToolSpec
from app.core.state.block_renderers import BlockRenderers
from app.core.state.message import Message, TokenUsages
from app.core.state.message_block import (
    ContentBlock,
    ImageBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from app.providers._content import (
    MediaLoader,
    media_base64,
    text_or_stand_in,
    tool_output_text,
)
from app.providers._errors import (
    Endpoint,
    Failure,
    status_failure,
)
from app.providers._openai_messages import function_tools
from app.providers._remote import RemoteChatModel
from app.providers._retry import RetryPolicy, parse_retry_after
from app.providers._stream import MalformedChunk, chunk
from app.providers.ollama_tags import (
    DEFAULT_OLLAMA_URL,
    OllamaModelEntry,
    error_text,
    list_ollama_models,
)

__all__ = [
    "DEFAULT_OLLAMA_URL",
    "OLLAMA_REQUEST",
    "OllamaChatModel",
    "OllamaModelEntry",
    "list_ollama_models",
]


class _HTTPStatus(Exception):
    def __init__(self, status: int, detail: str, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail
        self.retry_after = retry_after


def classify(exc: BaseException) -> Failure | None:
    """Map an httpx failure (or an HTTP error status) to a :class:`Failure`."""
    if isinstance(exc, _HTTPStatus):
        return status_failure(exc.status, exc.detail, exc.retry_after)
    if isinstance(exc, httpx.TimeoutException):
        return Failure("timeout", str(exc) or type(exc).__name__)
    if isinstance(exc, httpx.TransportError | OSError):
        return Failure("connect", str(exc) or type(exc).__name__)
    return None


class OllamaChatModel(RemoteChatModel[httpx.AsyncClient]):
    """A :class:`~app.core.models.protocol.ChatModel` talking to an Ollama server."""

    _classify = staticmethod(classify)

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_OLLAMA_URL,
        info: ModelInfo | None = None,
        timeout: float = 300.0,
        connect_timeout: float = 10.0,
        retry: RetryPolicy | None = None,
        media_loader: MediaLoader | None = None,
    ) -> None:
        super().__init__(model, base_url, retry)
        self.info = info or ModelInfo(
            spec=f"ollama:{model}@{self.base_url}", name=model, provider="ollama"
        )
        self._timeout = httpx.Timeout(timeout, connect=connect_timeout)
        self._loader = media_loader
        self._where = Endpoint("Ollama", self.base_url, model)

    def _new_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base_url, timeout=self._timeout)

    async def _close_client(self, client: httpx.AsyncClient) -> None:
        await client.aclose()

    def request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, cfg: GenerationConfig
    ) -> dict[str, Any]:
        """The ``/api/chat`` request body for one call."""
        options: dict[str, Any] = dict(cfg.extra.get("options", {}))
        if cfg.temperature is not None:
            options["temperature"] = cfg.temperature
        if cfg.max_tokens is not None:
            options["num_predict"] = cfg.max_tokens
        if cfg.stop:
            options["stop"] = cfg.stop
        if cfg.seed is not None:
            options["seed"] = cfg.seed
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m for msg in messages for m in self._message(msg)],
            "stream": True,
        }
        if options:
            body["options"] = options
        if tools and cfg.tool_choice != "none":
            body["tools"] = function_tools(tools)
        if cfg.response_schema is not None:
            body["format"] = cfg.response_schema
        body.update({k: v for k, v in cfg.extra.items() if k != "options"})
        return body

    def _message(self, msg: Message) -> list[dict[str, Any]]:
        """One Parley message as Ollama messages: text, ``images``, ``tool_calls``; each tool
        result is its own ``tool`` message. Earlier reasoning is sent back as ``thinking``."""
        turn = _Turn(self.model, msg.role, "image" in self.info.input_kinds, self._loader)
        for block in msg.content:
            OLLAMA_REQUEST.render(block, turn)
        out: list[dict[str, Any]] = list(turn.results)
        if turn.texts or turn.images or turn.calls or turn.thinking or not turn.results:
            role = "user" if msg.role == "tool" else msg.role
            item: dict[str, Any] = {"role": role, "content": "\n\n".join(turn.texts)}
            if turn.images:
                item["images"] = turn.images
            if turn.calls:
                item["tool_calls"] = turn.calls
            if turn.thinking:
                item["thinking"] = "".join(turn.thinking)
            out.append(item)
        return out

    async def _attempt(
        self, body: dict[str, Any], config: GenerationConfig, mid: str
    ) -> AsyncIterator[Message]:
        calls = 0
        sent = 0
        async with self._connection().stream("POST", "/api/chat", json=body) as resp:
            if resp.status_code >= 400:
                text = (await resp.aread()).decode("utf-8", errors="replace")
                raise _HTTPStatus(
                    resp.status_code, error_text(text), parse_retry_after(resp.headers)
                )
            async for line in resp.aiter_lines():
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                    if "error" in data:
                        if not sent:  # it could not start: say what it said, no "cut off"
                            raise ModelError(
                                f"Ollama could not answer with {self.model}: {data['error']}."
                            )
                        raise MalformedChunk(f"the server reported: {data['error']}")
                    blocks, calls = _blocks(data.get("message") or {}, mid, calls)
                except (ValueError, TypeError, AttributeError, KeyError) as exc:
                    raise MalformedChunk(f"a malformed line: {line[:80]!r}") from exc
                if data.get("done"):
                    finish = "tool_calls" if calls else data.get("done_reason") or "stop"
                    usage = TokenUsages(
                        prompt_tokens=data.get("prompt_eval_count") or 0,
                        completion_tokens=data.get("eval_count") or 0,
                        total_tokens=(data.get("prompt_eval_count") or 0)
                        + (data.get("eval_count") or 0),
                    )
                    meta = {"finish_reason": finish, "model": self.model, "provider": "ollama"}
                    yield chunk(mid, blocks, usages=usage, metadata=meta)
                    return
                if blocks:
                    sent += 1
                    yield chunk(mid, blocks)
        raise MalformedChunk("the stream ended before the server said the reply was done")


@dataclass
class _Turn:
    """One message being converted: its texts, images, calls, thinking and tool results."""

    model: str
    role: str
    takes_images: bool
    loader: MediaLoader | None
    texts: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)


OLLAMA_REQUEST: BlockRenderers[_Turn, None] = BlockRenderers("OLLAMA_REQUEST")
"""Each block type as ``/api/chat`` takes it."""


@OLLAMA_REQUEST.register("text")
def _text(block: TextBlock, turn: _Turn) -> None:
    turn.texts.append(block.text)


@OLLAMA_REQUEST.register("reasoning")
def _reasoning(block: ReasoningBlock, turn: _Turn) -> None:
    (turn.thinking if turn.role == "assistant" else turn.texts).append(block.text)


@OLLAMA_REQUEST.register("image")
def _image(block: ImageBlock, turn: _Turn) -> None:
    if turn.takes_images:
        turn.images.append(media_base64(block.media, turn.loader, turn.model))
    else:
        turn.texts.append(text_or_stand_in(block, turn.model))


@OLLAMA_REQUEST.register("audio", "video", "document", "data", "error", "annotation")
def _as_text(block: ContentBlock, turn: _Turn) -> None:
    turn.texts.append(text_or_stand_in(block, turn.model))


@OLLAMA_REQUEST.register("tool_call")
def _tool_call(block: ToolCallBlock, turn: _Turn) -> None:
    turn.calls.append({"function": {"name": block.name, "arguments": block.args}})


@OLLAMA_REQUEST.register("tool_result")
def _tool_result(block: ToolResultBlock, turn: _Turn) -> None:
    turn.results.append(
        {"role": "tool", "content": tool_output_text(block), "tool_name": block.name or ""}
    )


def _blocks(message: dict[str, Any], mid: str, calls: int) -> tuple[list[ContentBlock], int]:
    blocks: list[ContentBlock] = []
    if message.get("thinking"):
        blocks.append(ReasoningBlock(text=str(message["thinking"])))
    if message.get("content"):
        blocks.append(TextBlock(text=str(message["content"])))
    for call in message.get("tool_calls") or ():
        fn = call["function"]
        args = fn.get("arguments") or {}
        if isinstance(args, str):
            args = json.loads(args)
        cid = call.get("id") or f"call_{mid[:8]}_{calls}"
        blocks.append(ToolCallBlock(id=cid, name=fn["name"], args=args, index=calls))
        calls += 1
    return blocks, calls
