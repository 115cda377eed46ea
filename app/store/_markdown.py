"""Render a conversation as Markdown: every block kind as something a reader understands."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from app.core.state.block_renderers import BlockRenderers
from app.core.state.message import Message
from app.core.state.message_block import (
    AnnotationBlock,
    AudioBlock,
    DataBlock,
    DocumentBlock,
    ErrorBlock,
    ImageBlock,
    MediaRef,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    VideoBlock,
)
from app.core.userinfo import without_userinfo
from app.store.models import Thread

__all__ = ["MARKDOWN_EXPORT", "render_markdown"]

_ROLE = {"user": "You", "assistant": "Assistant", "system": "System", "tool": "Tool"}


def _fence(value: Any) -> str:
    """Fence ``value``: text as it is, anything else as JSON (labelled so)."""
    lang = "" if isinstance(value, str) else "json"
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text}\n{fence}"


def _where(ref: MediaRef) -> str:
    if ref.kind == "url" and ref.url:
        return ref.url
    name = ref.filename or ref.sha256 or ref.file_id or "inline data"
    return f"attachment: {name}"


def _quote(text: str) -> str:
    return "\n".join("> " + line for line in text.splitlines() or [""])


MARKDOWN_EXPORT: BlockRenderers[None, str] = BlockRenderers("MARKDOWN_EXPORT")
"""Each block type as Markdown a reader understands (``""``: the block adds nothing)."""


@MARKDOWN_EXPORT.register("text")
def _text(block: TextBlock, _: None) -> str:
    cites = [f"[{a.title or a.url}]({a.url})" for a in block.annotations if a.url]
    return block.text + ("\n\nSources: " + ", ".join(cites) if cites else "")


@MARKDOWN_EXPORT.register("image")
def _image(block: ImageBlock, _: None) -> str:
    return f"![{block.alt_text or 'image'}]({_where(block.media)})"


@MARKDOWN_EXPORT.register("audio")
def _audio(block: AudioBlock, _: None) -> str:
    transcript = f"\n\n{_quote(block.transcript)}" if block.transcript else ""
    return f"🔊 Audio ({_where(block.media)}){transcript}"


@MARKDOWN_EXPORT.register("video")
def _video(block: VideoBlock, _: None) -> str:
    return f"🎞 Video ({_where(block.media)})"


@MARKDOWN_EXPORT.register("document")
def _document(block: DocumentBlock, _: None) -> str:
    title = block.title or block.media.filename or "document"
    excerpt = f"\n\n{_quote(block.excerpt)}" if block.excerpt else ""
    return f"📄 {title} ({_where(block.media)}){excerpt}"


@MARKDOWN_EXPORT.register("data")
def _data(block: DataBlock, _: None) -> str:
    body = _fence(block.data) if block.data is not None else f"({block.mime_type} data)"
    return f"Data ({block.mime_type}):\n\n{body}"


@MARKDOWN_EXPORT.register("tool_call")
def _tool_call(block: ToolCallBlock, _: None) -> str:
    return f"Calls tool `{block.name}`:\n\n{_fence(block.args)}"


@MARKDOWN_EXPORT.register("tool_result")
def _tool_result(block: ToolResultBlock, _: None) -> str:
    status = " (failed)" if block.status == "error" else ""
    name = f" `{block.name}`" if block.name else ""
    return f"Result of{name} call {block.call_id}{status}:\n\n{_fence(block.output)}"


@MARKDOWN_EXPORT.register("reasoning")
def _reasoning(block: ReasoningBlock, _: None) -> str:
    return "<details><summary>Reasoning</summary>\n\n" + block.text + "\n\n</details>"


@MARKDOWN_EXPORT.register("error")
def _error(block: ErrorBlock, _: None) -> str:
    return _quote(f"**Error:** {without_userinfo(block.error)}")


@MARKDOWN_EXPORT.register("annotation")
def _annotation(block: AnnotationBlock, _: None) -> str:
    ref = block.annotation
    return f"Source: [{ref.title or ref.url}]({ref.url})" if ref.url else "Source"


def _heading(message: Message) -> str:
    """Who wrote the message: a delegate agent's work says so ("Researcher", "Task for
    Researcher"), so it is not taken for the person's or the thread agent's."""
    agent = message.agent
    if agent is None:
        return _ROLE.get(message.role, message.role)
    name = " ".join(agent.split())
    return {"user": f"Task for {name}", "tool": f"Tool ({name})"}.get(message.role, name)


def render_markdown(thread: Thread, messages: Sequence[Message]) -> str:
    """Return the thread's title, settings and messages as a Markdown document."""
    created = time.strftime("%Y-%m-%d %H:%M", time.localtime(thread.created_at))
    lines = [f"# {thread.title or 'Untitled thread'}", "", f"*Started {created}*"]
    if thread.model:
        lines.append(f"*Model: {without_userinfo(thread.model)}*")
    if thread.system_prompt:
        lines += ["", "**System prompt**", "", _quote(thread.system_prompt)]
    for message in messages:
        lines += ["", f"## {_heading(message)}", ""]
        parts = [MARKDOWN_EXPORT.render(b, None) for b in message.content]
        lines.append("\n\n".join(p for p in parts if p))
    return "\n".join(lines).rstrip() + "\n"
