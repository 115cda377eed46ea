"""``CitingModel``: a model whose answers cite the knowledge passages they were given.

It wraps any chat model. When the turn's ``search_knowledge`` calls returned passages, or,
in the automatic mode (for models that do not call tools, when the tool is not offered),
when the question itself finds passages that are then put before it, the reply ends with a
chunk carrying one ``AnnotationRef`` per passage on its text: a ``file://`` address (with
``#page=N``), a title and the passage's start. Only what the model is sent changes; the
saved question stays as the user wrote it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from app.core.graph.context import RunContext, current_context
from app.core.models.protocol import ChatModel, GenerationConfig, ToolSpec
from app.core.state.message import Message
from app.core.state.message_block import AnnotationRef, TextBlock, ToolResultBlock
from app.services.knowledge.sources import annotation_of
from app.tools.knowledge import KNOWLEDGE_TOOL

log = logging.getLogger(__name__)

__all__ = ["AUTO_PASSAGES", "CitingModel", "FindSources", "passages_prompt"]

AUTO_PASSAGES = 3
"""How many passages the automatic mode puts before a question."""

FindSources = Callable[[str, int, RunContext | None], Awaitable[Sequence[dict[str, Any]]]]
"""``find(question, limit, asker)``: source dictionaries for the run ``asker`` (the agent it
works for decides which folders), best first (none without folders)."""


def passages_prompt(sources: Sequence[dict[str, Any]], question: str) -> str:
    """The question with the passages before it, each under its number and title."""
    lines = ["Passages from the user's documents:"]
    for source in sources:
        lines.append(f"[{source['source']}] {source['title']}:\n{source['text']}")
    lines.append(
        "Answer using these passages where they help, citing them like [1].\n\n"
        f"Question: {question}"
    )
    return "\n\n".join(lines)


def _turn(messages: Sequence[Message]) -> tuple[int, list[Message]]:
    """Where the last user message is, and the messages after it."""
    for at in range(len(messages) - 1, -1, -1):
        if messages[at].role == "user":
            return at, list(messages[at + 1 :])
    return -1, []


def _given_sources(turn: Sequence[Message]) -> list[AnnotationRef]:
    refs: dict[str, AnnotationRef] = {}
    for message in turn:
        for block in message.content:
            if not (isinstance(block, ToolResultBlock) and block.name == KNOWLEDGE_TOOL):
                continue
            output = block.output
            passages = output.get("passages") if isinstance(output, dict) else None
            for item in passages if isinstance(passages, list) else []:
                ref = annotation_of(item) if isinstance(item, dict) else None
                if ref is not None and ref.url is not None:
                    refs.setdefault(ref.url + (ref.snippet or ""), ref)
    return list(refs.values())


class CitingModel:
    """Wraps ``inner``; see the module docstring. ``find`` searches the knowledge folders;
    ``auto`` turns the automatic mode on (a callable is asked at each turn: the thread's
    switch)."""

    def __init__(
        self, inner: ChatModel, find: FindSources, *, auto: bool | Callable[[], bool] = True
    ) -> None:
        self.inner = inner
        self._find = find
        self._auto = auto

    def __getattr__(self, name: str) -> Any:
        # info, aload, aclose, ... are the wrapped model's
        return getattr(self.inner, name)

    async def agenerate(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> Message:
        """The whole reply, its citations included."""
        merged: Message | None = None
        async for chunk in self.astream(messages, tools=tools, config=config):
            merged = chunk if merged is None else merged + chunk
        assert merged is not None
        return merged.model_copy(update={"delta": False})

    async def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        """The wrapped model's reply, then a chunk with the citations when passages were
        given."""
        at, turn = _turn(messages)
        refs = _given_sources(turn)
        sent = list(messages)
        offered = any(t.name == KNOWLEDGE_TOOL for t in tools or ())
        auto = self._auto() if callable(self._auto) else self._auto
        if not refs and not offered and auto and at >= 0:
            question = messages[at].text()
            try:
                # the run this call is part of says who asks: a delegate gets its own folders
                found = self._find(question, AUTO_PASSAGES, current_context()) if question else None
                sources = list(await found) if found is not None else []
            except Exception:  # the index closed or failed: answer without passages
                log.warning("the knowledge folders could not be searched", exc_info=True)
                sources = []
            if sources:
                sent[at] = _with_passages(messages[at], sources, question)
                refs = [r for r in map(annotation_of, sources) if r is not None]
        last: Message | None = None
        calls = False
        texts = False
        async for chunk in self.inner.astream(sent, tools=tools, config=config):
            last = chunk
            calls = calls or bool(chunk.tool_calls())
            texts = texts or any(isinstance(b, TextBlock) and b.text for b in chunk.content)
            yield chunk
        if refs and last is not None and texts and not calls:
            yield Message(
                message_id=last.message_id,
                role="assistant",
                content=[TextBlock(text="", annotations=refs)],
                delta=True,
            )


def _with_passages(message: Message, sources: Sequence[dict[str, Any]], question: str) -> Message:
    others = [b for b in message.content if not isinstance(b, TextBlock)]
    text = TextBlock(text=passages_prompt(sources, question))
    return message.model_copy(update={"content": [text, *others]})
