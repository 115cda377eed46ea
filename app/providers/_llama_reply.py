"""Turn a local model's raw text into Parley content: what a text-only model can read, and
how its reply splits into text and ``<tool_call>`` calls while it streams."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.state.block_renderers import BlockRenderers
from app.core.state.message import Message
from app.core.state.message_block import (
    ContentBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from app.providers._content import text_or_stand_in, tool_output_text
from app.providers._llama_template import CALL_CLOSE, CALL_OPEN


@dataclass
class _Turn:
    """One message being converted: its lines of text and the tool results it restates."""

    model: str
    role: str
    parts: list[str] = field(default_factory=list)
    results: list[tuple[str, str]] = field(default_factory=list)


LLAMA_PROMPT: BlockRenderers[_Turn, None] = BlockRenderers("LLAMA_PROMPT")
"""Each block type as the text a local (text-only) model reads."""


@LLAMA_PROMPT.register("text")
def _text(block: TextBlock, turn: _Turn) -> None:
    turn.parts.append(block.text)


@LLAMA_PROMPT.register("reasoning")
def _reasoning(block: ReasoningBlock, turn: _Turn) -> None:
    if turn.role != "assistant":
        turn.parts.append(block.text)


@LLAMA_PROMPT.register("tool_call")
def _tool_call(block: ToolCallBlock, turn: _Turn) -> None:
    call = {"name": block.name, "arguments": block.args}
    turn.parts.append(f"{CALL_OPEN}{json.dumps(call, ensure_ascii=False)}{CALL_CLOSE}")


@LLAMA_PROMPT.register("tool_result")
def _tool_result(block: ToolResultBlock, turn: _Turn) -> None:
    payload = {"call_id": block.call_id, "name": block.name or "", "output": ""}
    payload["output"] = tool_output_text(block)
    turn.results.append((payload["name"], payload["output"]))
    body = json.dumps(payload, ensure_ascii=False)
    turn.parts.append(f"<tool_response>{body}</tool_response>")


@LLAMA_PROMPT.register("image", "audio", "video", "document", "data", "error", "annotation")
def _as_text(block: ContentBlock, turn: _Turn) -> None:
    turn.parts.append(text_or_stand_in(block, turn.model, f"{turn.model} is a text-only model"))


def plain_messages(messages: Sequence[Message], model: str) -> list[dict[str, Any]]:
    """Role/content dicts for a text-only model; media is replaced by a line saying what was
    attached (:func:`app.core.models.fit.stand_in`).

    Earlier tool calls become ``<tool_call>`` text and tool results ``<tool_response>`` text, the
    format the model is asked to use; earlier reasoning is not sent back.
    """
    out: list[dict[str, Any]] = []
    for msg in messages:
        turn = _Turn(model, msg.role)
        for block in msg.content:
            LLAMA_PROMPT.render(block, turn)
        item: dict[str, Any] = {"role": msg.role, "content": "\n".join(turn.parts)}
        if turn.results:
            item["tool_results"] = turn.results  # (name, output) for recipes that restate them
        out.append(item)
    return out


class ReplyRouter:
    """Splits streamed text into text pieces and, when the reply opens with ``<tool_call>``,
    buffers it and parses the calls at the end."""

    def __init__(self, message_id: str, tools_offered: bool) -> None:
        self.message_id = message_id
        self.tools_offered = tools_offered
        self.mode: str = "undecided" if tools_offered else "text"
        self.buffer = ""

    def feed(self, piece: str) -> str:
        """Add decoded text; return what can be shown as text now."""
        if self.mode == "text":
            return piece
        self.buffer += piece
        if self.mode == "calls":
            return ""
        head = self.buffer.lstrip()
        if head.startswith(CALL_OPEN):
            self.mode = "calls"
            return ""
        if CALL_OPEN.startswith(head):
            return ""
        self.mode = "text"
        out, self.buffer = self.buffer, ""
        return out

    def finish(self) -> list[ContentBlock]:
        """The blocks left at the end: held-back text, or the parsed tool calls."""
        if self.mode != "calls":
            return [TextBlock(text=self.buffer)] if self.buffer else []
        blocks: list[ContentBlock] = []
        rest = self.buffer
        index = 0
        while CALL_OPEN in rest:
            _, _, after = rest.partition(CALL_OPEN)
            body, closed, rest = _call_body(after)
            blocks.append(self._call(body, index, complete=closed))
            index += 1
        return blocks

    def _call(self, body: str, index: int, complete: bool) -> ToolCallBlock:
        cid = f"call_{self.message_id[:8]}_{index}"
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if (
            not complete
            or not isinstance(data, dict)
            or not isinstance(data.get("arguments"), dict)
        ):
            name = data.get("name", "") if isinstance(data, dict) else ""
            return ToolCallBlock(id=cid, name=str(name), index=index, partial_args=body.strip())
        return ToolCallBlock(
            id=cid, name=str(data.get("name", "")), index=index, args=data["arguments"]
        )


def _call_body(text: str) -> tuple[str, bool, str]:
    """Split ``text`` (what follows ``<tool_call>``) into the call's JSON, whether the call was
    closed, and the rest; a ``</tool_call>`` inside a JSON string does not end the call."""
    start = len(text) - len(text.lstrip())
    try:
        _, end = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        body, closed, rest = text.partition(CALL_CLOSE)
        return body, bool(closed), rest
    tail = text[end:]
    if tail.lstrip().startswith(CALL_CLOSE):
        return text[:end], True, tail.lstrip()[len(CALL_CLOSE) :]
    return text[:end], False, tail
