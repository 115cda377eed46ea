"""Render a conversation as Markdown: every block kind as something a reader understands."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from app.core.state.message import Message
from app.core.state.message_block import (
    AnnotationBlock,
    AudioBlock,
    ContentBlock,
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

__all__ = ["render_markdown"]

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


def _block(block: ContentBlock) -> str:
    match block:
        case TextBlock():
            cites = [f"[{a.title or a.url}]({a.url})" for a in block.annotations if a.url]
            return block.text + ("\n\nSources: " + ", ".join(cites) if cites else "")
        case ImageBlock():
            return f"![{block.alt_text or 'image'}]({_where(block.media)})"
        case AudioBlock():
            transcript = f"\n\n{_quote(block.transcript)}" if block.transcript else ""
            return f"🔊 Audio ({_where(block.media)}){transcript}"
        case VideoBlock():
            return f"🎞 Video ({_where(block.media)})"
        case DocumentBlock():
            title = block.title or block.media.filename or "document"
            excerpt = f"\n\n{_quote(block.excerpt)}" if block.excerpt else ""
            return f"📄 {title} ({_where(block.media)}){excerpt}"
        case DataBlock():
            body = _fence(block.data) if block.data is not None else f"({block.mime_type} data)"
            return f"Data ({block.mime_type}):\n\n{body}"
        case ToolCallBlock():
            return f"Calls tool `{block.name}`:\n\n{_fence(block.args)}"
        case ToolResultBlock():
            status = " (failed)" if block.status == "error" else ""
            name = f" `{block.name}`" if block.name else ""
            return f"Result of{name} call {block.call_id}{status}:\n\n{_fence(block.output)}"
        case ReasoningBlock():
            return "<details><summary>Reasoning</summary>\n\n" + block.text + "\n\n</details>"
        case ErrorBlock():
            return _quote(f"**Error:** {without_userinfo(block.error)}")
        case AnnotationBlock():
            ref = block.annotation
            return f"Source: [{ref.title or ref.url}]({ref.url})" if ref.url else "Source"
    return ""


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
        parts = [_block(b) for b in message.content]
        lines.append("\n\n".join(p for p in parts if p))
    return "\n".join(lines).rstrip() + "\n"
