"""Anthropic's messages API, read and written: a ``POST /v1/messages`` body checked and turned
into Parley's messages and generation settings, and the model's reply as a ``message`` or as
Anthropic's server-sent events (``message_start`` ... ``message_stop``)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from pydantic import ValidationError

from app.core.errors import ParleyError
from app.core.models.protocol import ChatModel, GenerationConfig
from app.core.state.message import Message, TokenUsages
from app.core.state.message_block import TextBlock
from app.server.errors import ApiError
from app.server.openai_chat import MAX_MESSAGES, ChatRequest
from app.server.streams import closing

__all__ = ["anthropic_error_body", "read_messages_request", "reply_stream", "reply_whole"]

_STOP = {
    "stop": "end_turn",
    "end_turn": "end_turn",
    "length": "max_tokens",
    "max_tokens": "max_tokens",
    "tool_calls": "tool_use",
    "tool_use": "tool_use",
    "stop_sequence": "stop_sequence",
}
_KINDS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def anthropic_error_body(status: int, message: str) -> dict[str, Any]:
    """Anthropic's error shape for ``status``: ``{"type": "error", "error": {"type",
    "message"}}``."""
    return {"type": "error", "error": {"type": _KINDS.get(status, "api_error"), "message": message}}


def _bad(message: str, code: str, param: str | None = None) -> ApiError:
    return ApiError(400, message, "invalid_request_error", code, param)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _text_of(content: Any, where: str) -> str:
    """The text of ``content``: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise _bad(f"{where} must be a string or a list of text blocks.", "invalid_content")
    texts = []
    for n, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind != "text" or not isinstance(block.get("text"), str):
            shown = kind if isinstance(kind, str) else "not a text block"
            raise _bad(
                f"{where}[{n}] is {shown[:40]!r}: Parley's server takes only text blocks for now.",
                "unsupported_content",
            )
        texts.append(block["text"])
    return "".join(texts)


def _made(role: str, text: str, where: str) -> Message:
    try:
        return Message(role=role, content=[TextBlock(text=text)] if text else [])
    except ValidationError as exc:
        why = str(exc.errors(include_url=False)[0]["msg"]).removeprefix("Value error, ")
        raise _bad(f"{where} cannot be read: {why}.", "invalid_content") from None


def _message(value: Any, n: int) -> Message:
    where = f"messages[{n}]"
    if not isinstance(value, dict):
        raise _bad(f"{where} must be an object with a role and content.", "invalid_message")
    role = value.get("role")
    if role not in ("user", "assistant"):
        raise _bad(
            f"{where}.role must be user or assistant (the system prompt goes in system).",
            "invalid_role",
        )
    return _made(role, _text_of(value.get("content"), f"{where}.content"), where)


def _number(body: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = body.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        raise _bad(f"{name} must be a number.", "invalid_value", name)
    return value


def _config(body: dict[str, Any]) -> GenerationConfig:
    if "max_tokens" not in body:
        raise _bad("max_tokens is missing: say how long the reply may be.", "missing_max_tokens")
    max_tokens = _number(body, "max_tokens", int)
    if max_tokens is None or max_tokens < 1:
        raise _bad("max_tokens must be a whole number, at least 1.", "invalid_value", "max_tokens")
    stop = body.get("stop_sequences")
    if stop is not None and not (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        raise _bad("stop_sequences must be a list of strings.", "invalid_value", "stop_sequences")
    temperature = _number(body, "temperature", (int, float))
    return GenerationConfig(temperature=temperature, max_tokens=max_tokens, stop=stop or None)


def read_messages_request(raw: bytes) -> ChatRequest:
    """The request ``raw`` holds, checked; an :class:`ApiError` (400) with one sentence
    saying what is wrong otherwise."""
    try:
        body = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise _bad(
            "The request body is not valid JSON; send a JSON object with model, max_tokens "
            "and messages.",
            "invalid_json",
        ) from None
    if not isinstance(body, dict):
        raise _bad(
            "The request body must be a JSON object with model, max_tokens and messages.",
            "invalid_json",
        )
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise _bad("model is missing: name one that GET /v1/models lists.", "missing_model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _bad("messages is missing or empty: send at least one message.", "missing_messages")
    if len(messages) > MAX_MESSAGES:
        raise _bad(
            f"The request holds {len(messages)} messages; Parley takes at most {MAX_MESSAGES}.",
            "too_many_messages",
        )
    if body.get("tools"):
        raise _bad(
            "Tools are not served by Parley yet; send the request without them.",
            "unsupported_tools",
        )
    config = _config(body)
    system = body.get("system")
    head = [] if system is None else [_made("system", _text_of(system, "system"), "system")]
    return ChatRequest(
        model=model,
        messages=[*head, *(_message(m, n) for n, m in enumerate(messages))],
        config=config,
        stream=body.get("stream") is True,
        include_usage=True,
    )


def _stop(reason: object) -> str:
    return _STOP.get(str(reason or "stop"), "end_turn")


def _usage(usages: TokenUsages | None) -> dict[str, int]:
    u = usages or TokenUsages()
    return {"input_tokens": u.prompt_tokens, "output_tokens": u.completion_tokens}


def _message_id() -> str:
    return f"msg_{uuid.uuid4().hex}"


def reply_whole(request: ChatRequest, reply: Message) -> dict[str, Any]:
    """The ``message`` object for the whole ``reply``."""
    return {
        "id": _message_id(),
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [{"type": "text", "text": reply.text()}],
        "stop_reason": _stop(reply.metadata.get("finish_reason")),
        "stop_sequence": None,
        "usage": _usage(reply.usages),
    }


def _event(name: str, data: dict[str, Any]) -> bytes:
    payload = json.dumps(data, ensure_ascii=False)
    return f"event: {name}\ndata: {payload}\n\n".encode()


async def reply_stream(
    request: ChatRequest,
    model: ChatModel,
    used: Callable[[TokenUsages], None] = lambda usages: None,
    failed: Callable[[], None] = lambda: None,
) -> AsyncIterator[bytes]:
    """The reply as Anthropic's events: ``message_start``, one text block (its start, a
    ``text_delta`` per piece, its stop), ``message_delta`` with the stop reason and usage,
    ``message_stop``; a model's failure is an ``error`` event. ``used`` hears the usage,
    ``failed`` that the model failed.
    Closing this stream (the client went away) closes the model's, which stops it."""
    start: dict[str, Any] = {
        "id": _message_id(),
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    yield _event("message_start", {"type": "message_start", "message": start})
    block = {"type": "text", "text": ""}
    yield _event(
        "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
    )
    usages: TokenUsages | None = None
    stop = "end_turn"
    try:
        async with closing(model.astream(request.messages, config=request.config)) as stream:
            async for part in stream:
                text = "".join(b.text for b in part.content if isinstance(b, TextBlock))
                if text:
                    delta = {"type": "text_delta", "text": text}
                    yield _event(
                        "content_block_delta",
                        {"type": "content_block_delta", "index": 0, "delta": delta},
                    )
                if part.usages is not None:
                    usages = part.usages
                if part.metadata.get("finish_reason"):
                    stop = _stop(part.metadata["finish_reason"])
    except ParleyError as exc:
        failed()
        yield _event("error", anthropic_error_body(500, str(exc)))
        return
    if usages is not None:
        used(usages)
    yield _event("content_block_stop", {"type": "content_block_stop", "index": 0})
    yield _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": _usage(usages),
        },
    )
    yield _event("message_stop", {"type": "message_stop"})
