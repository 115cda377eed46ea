"""Anthropic's messages API, read and written: a ``POST /v1/messages`` body checked and turned
into Parley's messages, tools and generation settings, and the model's reply (its text and
``tool_use`` blocks) as a ``message`` or as Anthropic's server-sent events (``message_start``
... ``message_stop``)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from app.core.errors import ParleyError
from app.core.models.protocol import ChatModel, GenerationConfig, ToolSpec
from app.core.state.message import Message, TokenUsages
from app.core.state.message_block import ContentBlock, ToolCallBlock, ToolResultBlock
from app.server.chat import (
    TEXT_ONLY,
    ChatRequest,
    PartReader,
    SentImage,
    bad,
    made,
    number,
    read_body,
    read_model_and_messages,
    read_parts,
    read_text,
)
from app.server.images import refuse_link, sent_image
from app.server.replies import Ending, pieces
from app.server.tools import checked_tools, reply_calls, tool_name

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


def _image(images: list[SentImage]) -> PartReader:
    """Reads a user's ``image`` block (base64 data), keeping it in ``images`` to be
    checked; an image given by a link or a file is refused."""

    def read(part: dict[str, Any], where: str) -> list[ContentBlock]:
        source = part.get("source")
        kind = source.get("type") if isinstance(source, dict) else None
        if kind in ("url", "file"):
            raise refuse_link(f"{where}.source")
        if kind != "base64" or not isinstance(source, dict):
            raise bad(
                f'{where} has no base64 source: send source as {{"type": "base64", '
                '"media_type": ..., "data": ...}.',
                "invalid_image",
            )
        sent = sent_image(source.get("data"), source.get("media_type"), f"{where}.source")
        images.append(sent)
        return [sent.block]

    return read


def _tool_use(calls: dict[str, str]) -> PartReader:
    """Reads an assistant's ``tool_use`` block, keeping its id and name in ``calls``."""

    def read(part: dict[str, Any], where: str) -> list[ContentBlock]:
        call_id = part.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise bad(f"{where}.id must be the call's id, a string.", "invalid_tool_use")
        name = tool_name(part.get("name"), f"{where}.name")
        args = part.get("input", {})
        if not isinstance(args, dict):
            raise bad(f"{where}.input must be an object: the call's arguments.", "invalid_tool_use")
        calls[call_id] = name
        return [ToolCallBlock(id=call_id, name=name, args=args)]

    return read


def _tool_result(calls: dict[str, str]) -> PartReader:
    """Reads a user's ``tool_result`` block: the result of one of ``calls``."""

    def read(part: dict[str, Any], where: str) -> list[ContentBlock]:
        call_id = part.get("tool_use_id")
        if not isinstance(call_id, str) or call_id not in calls:
            shown = call_id[:80] if isinstance(call_id, str) else "no call"
            raise bad(
                f"{where} answers {shown!r}, which no tool_use of an earlier assistant message "
                "made.",
                "invalid_tool_result",
            )
        text = read_text(part.get("content"), f"{where}.content", "text blocks")
        status = "error" if part.get("is_error") is True else "completed"
        return [ToolResultBlock(call_id=call_id, output=text, status=status, name=calls[call_id])]

    return read


def _message(value: Any, n: int, calls: dict[str, str], images: list[SentImage]) -> list[Message]:
    """A message of the request, as Parley's messages: an assistant's text and tool calls, or
    a user's results of tool calls (each a tool message) and then its text."""
    where = f"messages[{n}]"
    if not isinstance(value, dict):
        raise bad(f"{where} must be an object with a role and content.", "invalid_message")
    role = value.get("role")
    if role not in ("user", "assistant"):
        raise bad(
            f"{where}.role must be user or assistant (the system prompt goes in system).",
            "invalid_role",
        )
    content = value.get("content")
    if role == "assistant":
        readers = {**TEXT_ONLY, "tool_use": _tool_use(calls)}
        blocks = read_parts(content, f"{where}.content", readers, "text and tool_use blocks")
        return [made("assistant", blocks, where)]
    readers = {**TEXT_ONLY, "image": _image(images), "tool_result": _tool_result(calls)}
    takes = "text, image and tool_result blocks"
    blocks = read_parts(content, f"{where}.content", readers, takes)
    results = [made("tool", [b], where) for b in blocks if isinstance(b, ToolResultBlock)]
    rest = [b for b in blocks if not isinstance(b, ToolResultBlock)]
    return [*results, made("user", rest, where)] if rest or not results else results


def _tool(item: dict[str, Any], where: str) -> tuple[str, Any, Any]:
    """One of ``tools``: ``{name, description, input_schema}`` (a client tool)."""
    kind = item.get("type")
    if kind not in (None, "custom"):
        shown = kind[:60] if isinstance(kind, str) else "not a client tool"
        raise bad(
            f"{where} is {shown!r}: Parley passes only client tools (name, description, "
            "input_schema) to a model.",
            "unsupported_tool",
        )
    return (
        tool_name(item.get("name"), f"{where}.name"),
        item.get("description"),
        item.get("input_schema"),
    )


def _tool_choice(value: Any, tools: list[ToolSpec]) -> str:
    """``tool_choice`` (``{"type": auto|any|tool|none, "name"}``) as
    :class:`GenerationConfig` takes it."""
    if value is None:
        return "auto"
    kind = value.get("type") if isinstance(value, dict) else None
    if kind in ("auto", "none"):
        return str(kind)
    if kind in ("any", "tool") and not tools:
        raise bad(f"tool_choice is {kind}, but no tools were sent.", "invalid_value")
    if kind == "any":
        return "required"
    if kind == "tool" and isinstance(value, dict):
        name = value.get("name")
        if isinstance(name, str) and name in {t.name for t in tools}:
            return name
        shown = name[:80] if isinstance(name, str) else "no tool"
        raise bad(
            f"tool_choice names {shown!r}, which is not one of the tools sent.", "invalid_value"
        )
    raise bad(
        'tool_choice must be {"type": "auto"}, {"type": "any"}, {"type": "none"} or '
        '{"type": "tool", "name": ...}.',
        "invalid_value",
    )


def _config(body: dict[str, Any], tools: list[ToolSpec]) -> GenerationConfig:
    if "max_tokens" not in body:
        raise bad("max_tokens is missing: say how long the reply may be.", "missing_max_tokens")
    max_tokens = number(body, "max_tokens", int)
    if max_tokens is None or max_tokens < 1:
        raise bad("max_tokens must be a whole number, at least 1.", "invalid_value", "max_tokens")
    stop = body.get("stop_sequences")
    if stop is not None and not (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        raise bad("stop_sequences must be a list of strings.", "invalid_value", "stop_sequences")
    temperature = number(body, "temperature", (int, float))
    return GenerationConfig(
        temperature=temperature,
        max_tokens=max_tokens,
        stop=stop or None,
        tool_choice=_tool_choice(body.get("tool_choice"), tools),
    )


def read_messages_request(raw: bytes) -> ChatRequest:
    """The request ``raw`` holds, checked; an :class:`ApiError` (400) with one sentence
    saying what is wrong otherwise."""
    body = read_body(raw, "model, max_tokens and messages")
    model, messages = read_model_and_messages(body, params=False)
    tools = checked_tools(body.get("tools"), _tool)
    config = _config(body, tools)
    system = body.get("system")
    head = []
    if system is not None:
        head = [made("system", read_parts(system, "system", TEXT_ONLY, "text blocks"), "system")]
    calls: dict[str, str] = {}
    images: list[SentImage] = []
    read = [m for n, value in enumerate(messages) for m in _message(value, n, calls, images)]
    return ChatRequest(
        model=model,
        messages=[*head, *read],
        config=config,
        stream=body.get("stream") is True,
        include_usage=True,
        tools=tools,
        images=images,
    )


def _stop(reason: object) -> str:
    return _STOP.get(str(reason or "stop"), "end_turn")


def _usage(usages: TokenUsages | None) -> dict[str, int]:
    u = usages or TokenUsages()
    return {"input_tokens": u.prompt_tokens, "output_tokens": u.completion_tokens}


def _message_id() -> str:
    return f"msg_{uuid.uuid4().hex}"


def _stop_of(reason: object, calls: list[ToolCallBlock]) -> str:
    return "tool_use" if calls else _stop(reason)


def _tool_use_block(call: ToolCallBlock) -> dict[str, Any]:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.args}


def reply_whole(request: ChatRequest, reply: Message) -> dict[str, Any]:
    """The ``message`` object for the whole ``reply``: its text, then a ``tool_use`` block
    for each tool call."""
    calls = reply_calls(reply)
    text = reply.text()
    content = [{"type": "text", "text": text}] if text or not calls else []
    return {
        "id": _message_id(),
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [*content, *(_tool_use_block(c) for c in calls)],
        "stop_reason": _stop_of(reply.metadata.get("finish_reason"), calls),
        "stop_sequence": None,
        "usage": _usage(reply.usages),
    }


def _event(name: str, data: dict[str, Any]) -> bytes:
    payload = json.dumps(data, ensure_ascii=False)
    return f"event: {name}\ndata: {payload}\n\n".encode()


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    start = {"type": "content_block_start", "index": index, "content_block": block}
    return _event("content_block_start", start)


def _block_delta(index: int, delta: dict[str, Any]) -> bytes:
    return _event(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    )


def _block_stop(index: int) -> bytes:
    return _event("content_block_stop", {"type": "content_block_stop", "index": index})


async def reply_stream(
    request: ChatRequest,
    model: ChatModel,
    used: Callable[[TokenUsages], None] = lambda usages: None,
    failed: Callable[[], None] = lambda: None,
) -> AsyncIterator[bytes]:
    """The reply as Anthropic's events: ``message_start``, a text block (its start, a
    ``text_delta`` per piece, its stop), a ``tool_use`` block per tool call once the model
    has made them (its start, its whole input as one ``input_json_delta``, its stop),
    ``message_delta`` with the stop reason and usage, ``message_stop``; a model's failure is
    an ``error`` event. ``used`` hears the usage, ``failed`` that the model failed.
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
    ending = Ending(None, "stop", [])
    texting = False
    try:
        async for piece in pieces(request, model):
            if isinstance(piece, Ending):
                ending = piece
                continue
            if not texting:
                texting = True
                yield _block_start(0, {"type": "text", "text": ""})
            yield _block_delta(0, {"type": "text_delta", "text": piece})
    except ParleyError as exc:
        failed()
        yield _event("error", anthropic_error_body(500, str(exc)))
        return
    if ending.usages is not None:
        used(ending.usages)
    if texting or not ending.calls:  # a reply of no text and no call is one empty text block
        if not texting:
            yield _block_start(0, {"type": "text", "text": ""})
        yield _block_stop(0)
    first = 1 if texting or not ending.calls else 0
    for index, call in enumerate(ending.calls, first):
        yield _block_start(index, {**_tool_use_block(call), "input": {}})
        partial = json.dumps(call.args, ensure_ascii=False)
        yield _block_delta(index, {"type": "input_json_delta", "partial_json": partial})
        yield _block_stop(index)
    yield _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_of(ending.finish, ending.calls), "stop_sequence": None},
            "usage": _usage(ending.usages),
        },
    )
    yield _event("message_stop", {"type": "message_stop"})
