"""Context trimming: keep what is sent to the model within its context window."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain

from app.core.state.message import Message
from app.core.state.message_block import (
    DocumentBlock,
    ImageBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 800
MESSAGE_OVERHEAD = 4


def estimate_tokens(message: Message) -> int:
    """A cheap, provider-neutral token estimate of one message (about 4 characters a token)."""
    chars = 0
    extra = MESSAGE_OVERHEAD
    for block in message.content:
        if isinstance(block, TextBlock | ReasoningBlock):
            chars += len(block.text)
        elif isinstance(block, ToolCallBlock):
            chars += len(block.name) + len(str(block.args)) + len(block.partial_args or "")
        elif isinstance(block, ToolResultBlock):
            chars += len(str(block.output))
        elif isinstance(block, DocumentBlock):
            chars += len(block.text or block.excerpt or "")
        elif isinstance(block, ImageBlock):
            extra += IMAGE_TOKENS
        else:
            extra += 16
    return chars // CHARS_PER_TOKEN + extra


def _summary_line(message: Message, width: int = 160) -> str:
    text = message.text().strip().replace("\n", " ")
    if not text:
        calls = [c.name for c in message.tool_calls()]
        results = message.tool_results()
        if calls:
            text = f"called {', '.join(calls)}"
        elif results:
            text = f"tool result: {str(results[0].output)[:80]}"
        else:
            text = "(non-text content)"
    if len(text) > width:
        text = text[: width - 1] + "…"
    return f"- {message.role}: {text}"


def summarise(previous: str | None, dropped: Sequence[Message], limit_chars: int = 4000) -> str:
    """Fold ``dropped`` messages into a running summary (an extractive digest, no model call).

    Only the newest lines fit in ``limit_chars``, so lines are made from the newest message
    back until they overflow it: a long thread costs what the summary holds, not its length.
    """
    return summarise_newest(previous, reversed(dropped), limit_chars)


def summarise_newest(
    previous: str | None, newest_first: Iterable[Message], limit_chars: int = 4000
) -> str:
    """:func:`summarise` of dropped messages given newest first (read only as far as the
    summary reaches)."""
    newest_first_lines: list[str] = []
    size = -1  # the length of the lines joined by newlines
    for message in newest_first:
        newest_first_lines.append(_summary_line(message))
        size += len(newest_first_lines[-1]) + 1
        if size > limit_chars:
            break
    else:
        if previous:
            newest_first_lines.append(previous)
    text = "\n".join(reversed(newest_first_lines))
    if len(text) > limit_chars:
        text = "…\n" + text[-limit_chars:]
    return text


def trim(messages: Sequence[Message], budget_tokens: int) -> tuple[list[Message], list[Message]]:
    """Split ``messages`` into (dropped, kept) so that ``kept`` fits ``budget_tokens``.

    Keeps the newest messages, never starts the kept part with a ``tool`` message (a tool
    result needs its call), and always keeps the last message.
    """
    kept, _dropped = trim_newest(reversed(messages), budget_tokens)
    return list(messages[: len(messages) - len(kept)]), kept


def trim_newest(
    newest_first: Iterable[Message], budget_tokens: int
) -> tuple[list[Message], Iterator[Message]]:
    """:func:`trim` of messages given newest first: the kept messages (oldest first) and the
    dropped ones, newest first and read only when asked for, so a long history is not walked
    further back than what fits."""
    feed = iter(newest_first)
    kept_rev: list[Message] = []
    overflow: list[Message] = []
    total = 0
    for message in feed:
        cost = estimate_tokens(message)
        if kept_rev and total + cost > budget_tokens:
            overflow.append(message)
            break
        kept_rev.append(message)
        total += cost
    kept = list(reversed(kept_rev))
    moved: list[Message] = []
    while len(kept) > 1 and kept[0].role == "tool":
        moved.append(kept.pop(0))
    return kept, chain(reversed(moved), overflow, feed)


SUMMARY_HEADING = "Summary of the earlier conversation:\n"
"""What goes before the summary of the dropped messages in the system prompt."""


def trim_with_summary(
    newest_first: Callable[[], Iterable[Message]], budget_tokens: int
) -> tuple[list[Message], str | None]:
    """The newest messages that fit ``budget_tokens`` together with the summary of those
    dropped (``None`` when none is), which is sent with them: the summary's own size is taken
    from the budget, dropping more (and summing those up too) until both fit or the summary,
    at its longest, stops growing. ``newest_first`` gives the messages anew for each pass."""
    spare = 0
    kept: list[Message] = []
    summary: str | None = None
    for _ in range(4):
        kept, dropped = trim_newest(newest_first(), max(budget_tokens - spare, 64))
        newest = next(dropped, None)
        summary = None if newest is None else summarise_newest(None, chain([newest], dropped))
        cost = 0 if summary is None else (len(SUMMARY_HEADING) + len(summary)) // CHARS_PER_TOKEN
        if cost <= spare:
            break
        spare = cost
    return kept, summary
