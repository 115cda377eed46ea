"""``PassagesHook``: answers that cite the knowledge passages they were given.

It is the pre-model hook every turn's agent (a delegate's too) is built with. When the turn's
``search_knowledge`` calls returned passages, or, in the automatic mode (for models that do
not call tools, when the tool is not offered), when the question itself finds passages that
are then put before it, the reply ends with a chunk carrying one ``AnnotationRef`` per passage
on its text: a ``file://`` address (with ``#page=N``), a title and the passage's start. Only
what the model is sent changes; the saved question stays as the user wrote it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from app.core.agent.hooks import ModelInput, ModelRequest
from app.core.graph.context import RunContext
from app.core.state.message import Message
from app.core.state.message_block import AnnotationRef, TextBlock, ToolResultBlock
from app.services.knowledge.sources import annotation_of
from app.services.turn import TurnDeps
from app.tools.knowledge import KNOWLEDGE_TOOL

log = logging.getLogger(__name__)

__all__ = ["AUTO_PASSAGES", "FindSources", "PassagesHook", "passages_prompt"]

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


class PassagesHook:
    """The pre-model hook (a ``context_hook``, see :mod:`app.core.agent.hooks`) that puts
    knowledge passages before the question and names the passages the reply cites; see the
    module docstring. ``find`` searches the knowledge folders; ``allowed`` is off when the
    workspace was opened without passages (``parley chat --no-knowledge``); each turn's own
    switch comes with its :class:`~app.services.turn.TurnDeps`."""

    def __init__(self, find: FindSources, *, allowed: bool = True) -> None:
        self._find = find
        self._allowed = allowed

    def _auto(self, ctx: RunContext) -> bool:
        """Whether this turn's question gets passages when it did not search itself: not
        when the workspace or the thread switched them off."""
        deps = ctx.deps_as(TurnDeps)
        return self._allowed and (deps is None or deps.passages)

    async def __call__(self, request: ModelRequest) -> ModelInput | None:
        """The messages with passages before the question (automatic mode), and the passages
        to cite: those the turn's ``search_knowledge`` calls returned, else those put there."""
        messages = request.messages
        at, turn = _turn(messages)
        refs = _given_sources(turn)
        offered = any(t.name == KNOWLEDGE_TOOL for t in request.tools)
        if refs or offered or at < 0 or not self._auto(request.ctx):
            return ModelInput(messages, refs) if refs else None
        question = messages[at].text()
        try:
            # the run says who asks: a delegate gets its own folders
            found = await self._find(question, AUTO_PASSAGES, request.ctx) if question else []
            sources = list(found)
        except Exception:  # the index closed or failed: answer without passages
            log.warning("the knowledge folders could not be searched", exc_info=True)
            sources = []
        if not sources:
            return None
        sent = list(messages)
        sent[at] = _with_passages(messages[at], sources, question)
        return ModelInput(sent, [r for r in map(annotation_of, sources) if r is not None])


def _with_passages(message: Message, sources: Sequence[dict[str, Any]], question: str) -> Message:
    others = [b for b in message.content if not isinstance(b, TextBlock)]
    text = TextBlock(text=passages_prompt(sources, question))
    return message.model_copy(update={"content": [text, *others]})
