"""OpenAI's chat completions, read and written: a request's body checked and turned into
Parley's messages and generation settings, and the model's reply as a ``chat.completion``
or as ``chat.completion.chunk`` events."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from app.core.errors import ParleyError
from app.core.models.protocol import ChatModel, GenerationConfig
from app.core.state.message import Message, TokenUsages
from app.core.state.message_block import TextBlock
from app.server.errors import ApiError, error_body
from app.server.streams import closing

__all__ = ["MAX_MESSAGES", "ChatRequest", "read_chat_request", "reply_stream", "reply_whole"]

MAX_MESSAGES = 1000
"""How many messages one request may hold."""

_ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
_FINISH = {
    "stop": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "tool_calls",
    "tool_use": "tool_calls",
    "content_filter": "content_filter",
}


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A checked chat completion request: the model's id as the client named it, the
    conversation, the generation settings, and how the reply is sent."""

    model: str
    messages: list[Message]
    config: GenerationConfig
    stream: bool
    include_usage: bool


def _bad(message: str, code: str, param: str | None = None) -> ApiError:
    return ApiError(400, message, "invalid_request_error", code, param)


def _text_of(content: Any, where: str) -> str:
    """The text of a message's ``content``: a string, or a list of text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise _bad(f"{where}.content must be a string or a list of parts.", "invalid_content")
    texts = []
    for n, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind != "text" or not isinstance(part.get("text"), str):
            shown = kind if isinstance(kind, str) else "not a text part"
            raise _bad(
                f"{where}.content[{n}] is {shown[:40]!r}: Parley's server takes only text "
                "parts for now.",
                "unsupported_content",
            )
        texts.append(part["text"])
    return "".join(texts)


def _message(value: Any, n: int) -> Message:
    where = f"messages[{n}]"
    if not isinstance(value, dict):
        raise _bad(f"{where} must be an object with a role and content.", "invalid_message")
    role = value.get("role")
    if role in ("tool", "function"):
        raise _bad(
            f"{where} is a {role} result: tool calls are not served by Parley yet.",
            "unsupported_role",
        )
    if role not in _ROLES:
        raise _bad(f"{where}.role must be system, developer, user or assistant.", "invalid_role")
    text = _text_of(value.get("content"), where)
    try:
        return Message(role=_ROLES[role], content=[TextBlock(text=text)] if text else [])
    except ValidationError as exc:
        why = str(exc.errors(include_url=False)[0]["msg"]).removeprefix("Value error, ")
        raise _bad(f"{where} cannot be read: {why}.", "invalid_content") from None


def _number(body: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = body.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        raise _bad(f"{name} must be a number.", "invalid_value", name)
    return value


def _config(body: dict[str, Any]) -> GenerationConfig:
    stop = body.get("stop")
    if isinstance(stop, str):
        stop = [stop]
    if stop is not None and not (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        raise _bad("stop must be a string or a list of strings.", "invalid_value", "stop")
    max_tokens = _number(body, "max_completion_tokens", int) or _number(body, "max_tokens", int)
    if max_tokens is not None and max_tokens < 1:
        raise _bad("max_tokens must be at least 1.", "invalid_value", "max_tokens")
    temperature = _number(body, "temperature", (int, float))
    seed = _number(body, "seed", int)
    return GenerationConfig(
        temperature=temperature, max_tokens=max_tokens, stop=stop or None, seed=seed
    )


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_chat_request(raw: bytes) -> ChatRequest:
    """The request ``raw`` holds, checked; an :class:`ApiError` (400) with one sentence
    saying what is wrong otherwise."""
    try:
        body = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise _bad(
            "The request body is not valid JSON; send a JSON object with model and messages.",
            "invalid_json",
        ) from None
    if not isinstance(body, dict):
        raise _bad(
            "The request body must be a JSON object with model and messages.", "invalid_json"
        )
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise _bad(
            "model is missing: name one that GET /v1/models lists.", "missing_model", "model"
        )
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _bad(
            "messages is missing or empty: send at least one message.",
            "missing_messages",
            "messages",
        )
    if len(messages) > MAX_MESSAGES:
        raise _bad(
            f"The request holds {len(messages)} messages; Parley takes at most {MAX_MESSAGES}.",
            "too_many_messages",
            "messages",
        )
    if body.get("tools") or body.get("functions"):
        raise _bad(
            "Tools are not served by Parley yet; send the request without them.",
            "unsupported_tools",
            "tools",
        )
    if body.get("n") not in (None, 1):
        raise _bad("Parley answers with one choice: leave n out or send n=1.", "invalid_value", "n")
    stream = body.get("stream", False)
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    return ChatRequest(
        model=model,
        messages=[_message(m, n) for n, m in enumerate(messages)],
        config=_config(body),
        stream=stream is True,
        include_usage=include_usage,
    )


def _finish(reply: Message) -> str:
    return _FINISH.get(str(reply.metadata.get("finish_reason") or "stop"), "stop")


def _usage(usages: TokenUsages | None) -> dict[str, int]:
    u = usages or TokenUsages()
    total = u.total_tokens or u.prompt_tokens + u.completion_tokens
    return {
        "prompt_tokens": u.prompt_tokens,
        "completion_tokens": u.completion_tokens,
        "total_tokens": total,
    }


def _completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex}"


def reply_whole(request: ChatRequest, reply: Message) -> dict[str, Any]:
    """The ``chat.completion`` object for the whole ``reply``."""
    return {
        "id": _completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text()},
                "logprobs": None,
                "finish_reason": _finish(reply),
            }
        ],
        "usage": _usage(reply.usages),
    }


def _event(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"


async def reply_stream(
    request: ChatRequest,
    model: ChatModel,
    used: Callable[[TokenUsages], None] = lambda usages: None,
    failed: Callable[[], None] = lambda: None,
) -> AsyncIterator[bytes]:
    """The reply as server-sent events: a chunk per piece of text, a last one with the
    finish reason, the usage when asked for, then ``[DONE]``; ``used`` hears the usage,
    ``failed`` that the model failed.
    Closing this stream (the client went away) closes the model's, which stops it."""
    head = {
        "id": _completion_id(),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": request.model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return _event({**head, "choices": [choice]})

    yield chunk({"role": "assistant", "content": ""})
    usages: TokenUsages | None = None
    finish = "stop"
    try:
        async with closing(model.astream(request.messages, config=request.config)) as stream:
            async for part in stream:
                text = "".join(b.text for b in part.content if isinstance(b, TextBlock))
                if text:
                    yield chunk({"content": text})
                if part.usages is not None:
                    usages = part.usages
                if part.metadata.get("finish_reason"):
                    finish = _FINISH.get(str(part.metadata["finish_reason"]), "stop")
    except ParleyError as exc:
        failed()
        yield _event(error_body(str(exc), "server_error", "model_error"))
        return
    if usages is not None:
        used(usages)
    yield chunk({}, finish)
    if request.include_usage:
        yield _event({**head, "choices": [], "usage": _usage(usages)})
    yield b"data: [DONE]\n\n"
