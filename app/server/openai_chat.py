"""OpenAI's chat completions, read and written: a request's body checked and turned into
Parley's messages, tools and generation settings, and the model's reply (its text and tool
calls) as a ``chat.completion`` or as ``chat.completion.chunk`` events."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from app.core.errors import ParleyError
from app.core.models.protocol import ChatModel, GenerationConfig, ToolSpec
from app.core.state.message import Message, Role, TokenUsages
from app.core.state.message_block import ContentBlock, ToolCallBlock, ToolResultBlock
from app.server.chat import (
    MAX_MESSAGES,
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
from app.server.errors import error_body
from app.server.images import data_url_image
from app.server.replies import Ending, pieces
from app.server.tools import arguments_text, call_arguments, checked_tools, reply_calls, tool_name

__all__ = ["MAX_MESSAGES", "ChatRequest", "read_chat_request", "reply_stream", "reply_whole"]

_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
}
_FINISH = {
    "stop": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "tool_calls",
    "tool_use": "tool_calls",
    "content_filter": "content_filter",
}


def _image_url(images: list[SentImage]) -> PartReader:
    """Reads a user's ``image_url`` part (a ``data:`` URL), keeping it in ``images`` to be
    checked."""

    def read(part: dict[str, Any], where: str) -> list[ContentBlock]:
        inner = part.get("image_url")
        url = inner.get("url") if isinstance(inner, dict) else inner
        sent = data_url_image(url, f"{where}.image_url.url")
        images.append(sent)
        return [sent.block]

    return read


def _tool_calls(value: Any, where: str, calls: dict[str, str]) -> list[ContentBlock]:
    """An assistant message's ``tool_calls``, each kept in ``calls`` (id to name)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise bad(f"{where}.tool_calls must be a list of calls.", "invalid_tool_calls")
    blocks: list[ContentBlock] = []
    for n, call in enumerate(value):
        at = f"{where}.tool_calls[{n}]"
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(call, dict) or not isinstance(function, dict):
            raise bad(f"{at} must be an object with an id and a function.", "invalid_tool_calls")
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise bad(f"{at}.id must be the call's id, a string.", "invalid_tool_calls")
        name = tool_name(function.get("name"), f"{at}.function.name")
        args = call_arguments(function.get("arguments"), f"{at}.function.arguments")
        calls[call_id] = name
        blocks.append(ToolCallBlock(id=call_id, name=name, args=args))
    return blocks


def _tool_result(value: dict[str, Any], where: str, calls: dict[str, str]) -> Message:
    """A ``tool`` message: the result of an earlier call, as Parley's tool message."""
    call_id = value.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise bad(
            f"{where} is a tool result without tool_call_id: say which call it answers.",
            "invalid_tool_result",
        )
    if call_id not in calls:
        raise bad(
            f"{where} answers the call {call_id[:80]!r}, which no earlier assistant message made.",
            "invalid_tool_result",
        )
    text = read_text(value.get("content"), f"{where}.content", "text parts")
    result = ToolResultBlock(call_id=call_id, output=text, name=calls[call_id])
    return made("tool", [result], where)


def _message(value: Any, n: int, calls: dict[str, str], images: list[SentImage]) -> Message:
    where = f"messages[{n}]"
    if not isinstance(value, dict):
        raise bad(f"{where} must be an object with a role and content.", "invalid_message")
    role = value.get("role")
    if role == "tool":
        return _tool_result(value, where, calls)
    if role == "function":
        raise bad(
            f"{where} is a function result, the old form: send it as a tool message with "
            "the tool_call_id it answers.",
            "unsupported_role",
        )
    if role not in _ROLES:
        raise bad(
            f"{where}.role must be system, developer, user, assistant or tool.", "invalid_role"
        )
    content = value.get("content")
    readers, takes = TEXT_ONLY, "text parts"
    if role == "user":
        readers, takes = {**TEXT_ONLY, "image_url": _image_url(images)}, "text and image_url parts"
    blocks = [] if content is None else read_parts(content, f"{where}.content", readers, takes)
    if role == "assistant":
        blocks.extend(_tool_calls(value.get("tool_calls"), where, calls))
    return made(_ROLES[role], blocks, where)


def _function(item: dict[str, Any], where: str) -> tuple[str, Any, Any]:
    """One of ``tools``: ``{"type": "function", "function": {name, description,
    parameters}}``."""
    function = item.get("function")
    if item.get("type") != "function" or not isinstance(function, dict):
        raise bad(
            f'{where} must be a function tool: {{"type": "function", "function": {{...}}}}.',
            "invalid_tools",
            "tools",
        )
    name = tool_name(function.get("name"), f"{where}.function.name")
    return name, function.get("description"), function.get("parameters")


def _tool_choice(value: Any, tools: list[ToolSpec]) -> str:
    """``tool_choice`` as :class:`GenerationConfig` takes it: auto, none, required or the
    name of one of ``tools``."""
    if value is None or value == "auto" or value == "none":
        return value or "auto"
    if value == "required":
        if not tools:
            raise bad(
                "tool_choice is required, but no tools were sent.", "invalid_value", "tool_choice"
            )
        return "required"
    function = value.get("function") if isinstance(value, dict) else None
    if isinstance(value, dict) and value.get("type") == "function" and isinstance(function, dict):
        name = function.get("name")
        if isinstance(name, str) and name in {t.name for t in tools}:
            return name
        shown = name[:80] if isinstance(name, str) else "no tool"
        raise bad(
            f"tool_choice names {shown!r}, which is not one of the tools sent.",
            "invalid_value",
            "tool_choice",
        )
    raise bad(
        'tool_choice must be "auto", "none", "required" or {"type": "function", "function": '
        '{"name": ...}}.',
        "invalid_value",
        "tool_choice",
    )


def _config(body: dict[str, Any], tools: list[ToolSpec]) -> GenerationConfig:
    stop = body.get("stop")
    if isinstance(stop, str):
        stop = [stop]
    if stop is not None and not (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        raise bad("stop must be a string or a list of strings.", "invalid_value", "stop")
    max_tokens = number(body, "max_completion_tokens", int) or number(body, "max_tokens", int)
    if max_tokens is not None and max_tokens < 1:
        raise bad("max_tokens must be at least 1.", "invalid_value", "max_tokens")
    temperature = number(body, "temperature", (int, float))
    seed = number(body, "seed", int)
    return GenerationConfig(
        temperature=temperature,
        max_tokens=max_tokens,
        stop=stop or None,
        seed=seed,
        tool_choice=_tool_choice(body.get("tool_choice"), tools),
    )


def read_chat_request(raw: bytes) -> ChatRequest:
    """The request ``raw`` holds, checked; an :class:`ApiError` (400) with one sentence
    saying what is wrong otherwise."""
    body = read_body(raw, "model and messages")
    model, messages = read_model_and_messages(body, params=True)
    if body.get("functions"):
        raise bad(
            "functions is the old form of tools: send them as tools instead.",
            "unsupported_functions",
            "functions",
        )
    if body.get("n") not in (None, 1):
        raise bad("Parley answers with one choice: leave n out or send n=1.", "invalid_value", "n")
    tools = checked_tools(body.get("tools"), _function)
    options = body.get("stream_options")
    calls: dict[str, str] = {}
    images: list[SentImage] = []
    return ChatRequest(
        model=model,
        messages=[_message(m, n, calls, images) for n, m in enumerate(messages)],
        config=_config(body, tools),
        stream=body.get("stream", False) is True,
        include_usage=isinstance(options, dict) and options.get("include_usage") is True,
        tools=tools,
        images=images,
    )


def _finish(reason: object, calls: list[ToolCallBlock]) -> str:
    if calls:
        return "tool_calls"
    return _FINISH.get(str(reason or "stop"), "stop")


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


def _call(call: ToolCallBlock) -> dict[str, Any]:
    function = {"name": call.name, "arguments": arguments_text(call)}
    return {"id": call.id, "type": "function", "function": function}


def reply_whole(request: ChatRequest, reply: Message) -> dict[str, Any]:
    """The ``chat.completion`` object for the whole ``reply``: its text (``null`` when it
    holds only tool calls) and its tool calls."""
    calls = reply_calls(reply)
    text = reply.text()
    message: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
    if calls:
        message["tool_calls"] = [_call(c) for c in calls]
    return {
        "id": _completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": _finish(reply.metadata.get("finish_reason"), calls),
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
    """The reply as server-sent events: a chunk per piece of text, a chunk per tool call
    (whole) once the model has made them, a last one with the finish reason, the usage when
    asked for, then ``[DONE]``; ``used`` hears the usage, ``failed`` that the model failed.
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
    ending = Ending(None, "stop", [])
    try:
        async for piece in pieces(request, model):
            if isinstance(piece, Ending):
                ending = piece
            else:
                yield chunk({"content": piece})
    except ParleyError as exc:
        failed()
        yield _event(error_body(str(exc), "server_error", "model_error"))
        return
    if ending.usages is not None:
        used(ending.usages)
    for index, call in enumerate(ending.calls):
        yield chunk({"tool_calls": [{"index": index, **_call(call)}]})
    yield chunk({}, _finish(ending.finish, ending.calls))
    if request.include_usage:
        yield _event({**head, "choices": [], "usage": _usage(ending.usages)})
    yield b"data: [DONE]\n\n"
