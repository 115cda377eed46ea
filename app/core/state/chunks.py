"""Merging streamed chunks into one message, at a cost that does not grow with the reply.

:func:`merge_chunk` joins two chunks of one message. :class:`ChunkMerge` joins a whole stream of
them: it keeps each growing text (a text or reasoning block, the reply's reasoning, a tool call's
argument JSON) as pieces and joins them only when the message is read, so adding a chunk costs
the same whether the reply so far is ten characters or a megabyte. Both give the same message.
:class:`MarkedMerge` reads a merge with marks laid over its message (a delegate's name), merging
nothing again.
"""

from __future__ import annotations

import json
from typing import Any

from app.core.state.message import Message
from app.core.state.message_block import (
    AnnotationRef,
    ContentBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
)

__all__ = ["ChunkMerge", "MarkedMerge", "merge_chunk"]

_JSON_SPACE = " \t\n\r"


class _Pieces:
    """A string that grows at its end, kept as pieces and joined when it is read."""

    __slots__ = ("_last", "_parts", "_size")

    def __init__(self, first: str) -> None:
        self._parts = [first]
        self._size = len(first)
        self._last = _last_significant(first)

    def add(self, piece: str) -> None:
        """Append ``piece``."""
        if piece:
            self._parts.append(piece)
            self._size += len(piece)
            self._last = _last_significant(piece) or self._last

    def __bool__(self) -> bool:
        return self._size > 0

    def value(self) -> str:
        """Return the whole string (joined once; later pieces join onto that)."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0]

    def may_be_json_object(self) -> bool:
        """Whether the string could parse as a JSON object: it ends in ``}`` (then whitespace)."""
        return self._last == "}"


def _last_significant(text: str) -> str:
    """Return the last character of ``text`` that is not JSON whitespace, or ``""``."""
    i = len(text) - 1
    while i >= 0 and text[i] in _JSON_SPACE:
        i -= 1
    return text[i] if i >= 0 else ""


def _find_call(blocks: list[ContentBlock], part: ToolCallBlock) -> int | None:
    """Return where the call that fragment ``part`` continues is (by id, else by index)."""
    for i in range(len(blocks) - 1, -1, -1):
        b = blocks[i]
        if isinstance(b, ToolCallBlock) and (
            (part.id and b.id == part.id)
            or (part.index is not None and b.index == part.index and not (part.id and b.id))
        ):
            return i
    return None


class ChunkMerge:
    """One message being put together from its streamed (``delta=True``) chunks.

    Start it with the first chunk (or any message), :meth:`add` each later chunk with the same
    ``message_id``, and read the merged message with :meth:`message`. Adding a chunk costs the
    chunk's own size, not the size of what came before; reading joins what was added since the
    last read. Merging rules are those of :func:`merge_chunk`.
    """

    __slots__ = (
        "_args",
        "_blocks",
        "_delta",
        "_first",
        "_message",
        "_metadata",
        "_raw",
        "_reasoning",
        "_tail",
        "_tail_annotations",
        "_tail_signature",
        "_timestamp",
        "_tools_calls",
        "_usages",
    )

    def __init__(self, first: Message) -> None:
        self._first = first
        self._message: Message | None = first
        self._blocks: list[ContentBlock] = list(first.content)
        # The last block while it grows (a text or reasoning block): its text, annotations and
        # signature; ``self._blocks[-1]`` is out of date until the tail is closed.
        self._tail: _Pieces | None = None
        self._tail_annotations: list[AnnotationRef] = []
        self._tail_signature: str | None = None
        # Argument text of tool calls still arriving, by block position.
        self._args: dict[int, _Pieces] = {}
        self._reasoning = None if first.reasoning is None else _Pieces(first.reasoning)
        self._tools_calls = None if first.tools_calls is None else list(first.tools_calls)
        self._metadata = dict(first.metadata)
        self._usages = first.usages
        self._timestamp = first.timestamp
        self._raw = first.raw
        self._delta = first.delta

    @property
    def message_id(self) -> str | int:
        """The id of the message being merged."""
        return self._first.message_id

    def add(self, chunk: Message) -> None:
        """Merge ``chunk`` into the message; it must have the same ``message_id``."""
        if chunk.message_id != self._first.message_id:
            raise ValueError(
                f"cannot merge chunks of different messages ({self._first.message_id!r} and "
                f"{chunk.message_id!r})"
            )
        self._message = None
        if chunk.usages is not None:
            self._usages = chunk.usages if self._usages is None else self._usages + chunk.usages
        if chunk.reasoning:
            if self._reasoning is None:
                self._reasoning = _Pieces(chunk.reasoning)
            else:
                self._reasoning.add(chunk.reasoning)
        if chunk.tools_calls:
            self._tools_calls = [*(self._tools_calls or []), *chunk.tools_calls]
        if self._timestamp is None:
            self._timestamp = chunk.timestamp
        self._metadata.update(chunk.metadata)
        if chunk.raw is not None:
            self._raw = chunk.raw
        self._delta = chunk.delta
        for block in chunk.content:
            self._add_block(block)

    def message(self) -> Message:
        """Return the message merged so far."""
        if self._message is None:
            content = list(self._blocks)
            if self._tail is not None:
                content[-1] = self._tail_block(self._tail)
            for pos, pending in self._args.items():
                content[pos] = content[pos].model_copy(update={"partial_args": pending.value()})
            self._message = Message.model_construct(
                message_id=self._first.message_id,
                role=self._first.role,
                content=content,
                delta=self._delta,
                tools_calls=None if self._tools_calls is None else list(self._tools_calls),
                reasoning=None if self._reasoning is None else self._reasoning.value(),
                timestamp=self._timestamp,
                metadata=dict(self._metadata),
                usages=self._usages,
                raw=self._raw,
            )
        return self._message

    # --- content blocks -----------------------------------------------------------------------

    def _add_block(self, block: ContentBlock) -> None:
        """Join ``block``: adjacent text and reasoning concatenate, tool-call arguments join."""
        blocks = self._blocks
        last = blocks[-1] if blocks else None
        if isinstance(block, TextBlock) and isinstance(last, TextBlock):
            tail = self._open_tail(last)
            tail.add(block.text)
            self._tail_annotations.extend(block.annotations)
        elif (
            isinstance(block, ReasoningBlock)
            and isinstance(last, ReasoningBlock)
            # a signature ends its block; what follows is a new one
            and not (self._tail_signature if self._tail is not None else last.signature)
        ):
            tail = self._open_tail(last)
            tail.add(block.text)
            self._tail_signature = block.signature or self._tail_signature
        elif isinstance(block, ToolCallBlock) and (pos := _find_call(blocks, block)) is not None:
            self._join_call(pos, block)
        elif isinstance(block, ToolCallBlock) and block.partial_args:
            self._close_tail()
            blocks.append(block.model_copy(update={"partial_args": None}))
            self._join_call(len(blocks) - 1, block)
        else:
            self._close_tail()
            blocks.append(block)

    def _open_tail(self, last: TextBlock | ReasoningBlock) -> _Pieces:
        if self._tail is None:
            self._tail = _Pieces(last.text)
            if isinstance(last, TextBlock):
                self._tail_annotations = list(last.annotations)
            else:
                self._tail_signature = last.signature
        return self._tail

    def _tail_block(self, tail: _Pieces) -> ContentBlock:
        if isinstance(self._blocks[-1], TextBlock):
            return TextBlock(text=tail.value(), annotations=list(self._tail_annotations))
        return ReasoningBlock(text=tail.value(), signature=self._tail_signature)

    def _close_tail(self) -> None:
        if self._tail is not None:
            self._blocks[-1] = self._tail_block(self._tail)
            self._tail = None

    def _join_call(self, pos: int, part: ToolCallBlock) -> None:
        """Join fragment ``part`` into the call at ``pos``; parse its arguments once they are whole.

        The argument text is parsed only when it could be a JSON object (it ends in ``}``), so a
        long argument streamed in many fragments is not re-parsed at every fragment.
        """
        into = self._blocks[pos]
        assert isinstance(into, ToolCallBlock)
        pending = self._args.pop(pos, None)
        if pending is None and into.partial_args:
            pending = _Pieces(into.partial_args)
        if part.partial_args:
            if pending is None:
                pending = _Pieces(part.partial_args)
            else:
                pending.add(part.partial_args)
        args: dict[str, Any] = {**into.args, **part.args}
        if pending and pending.may_be_json_object():
            try:
                parsed = json.loads(pending.value())
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                args = {**args, **parsed}
                pending = None
        if pending:
            self._args[pos] = pending
        self._blocks[pos] = into.model_copy(
            update={
                "name": into.name or part.name,
                "args": args,
                "partial_args": None,
                "tool_type": into.tool_type or part.tool_type,
            }
        )


class MarkedMerge:
    """The message another merge holds, read with ``marks`` laid over its metadata (e.g. who
    wrote it). It merges nothing itself: a chunk marked on its way out of a child run is merged
    once, by the merge that runs beside the model call, which stays unmarked (the child's own
    model must see its reply as its own). Reading marks each version of the message once."""

    __slots__ = ("_marked", "_marks", "_read", "source")

    def __init__(self, source: ChunkMerge, marks: dict[str, Any]) -> None:
        self.source = source
        """The merge read."""
        self._marks = dict(marks)
        self._read: Message | None = None
        self._marked: Message | None = None

    @property
    def message_id(self) -> str | int:
        """The id of the message being merged."""
        return self.source.message_id

    def message(self) -> Message:
        """Return the message merged so far, marked."""
        read = self.source.message()
        if read is not self._read or self._marked is None:
            self._read = read
            self._marked = read.model_copy(update={"metadata": {**read.metadata, **self._marks}})
        return self._marked


def merge_chunk(left: Message, right: Message) -> Message:
    """Merge ``right`` (a streamed chunk) into ``left``, which has the same ``message_id``.

    Text is concatenated, tool-call argument fragments are joined (and parsed once they form a
    JSON object), usages are summed, metadata is merged (``right`` wins), and the result's
    ``delta`` is ``right``'s. To merge a long stream, use :class:`ChunkMerge`.
    """
    merge = ChunkMerge(left)
    merge.add(right)
    return merge.message()
