"""What the agent node hands a hook before each model call, and what the hook may hand back.

``create_agent`` takes two pre-model hooks. ``pre_model_hook(messages, state)`` is the plain
one: it returns the messages to send instead. ``context_hook(request)`` is given the run too
(:class:`ModelRequest`: the messages, the tools this call offers, the state and the run
context, whose ``deps_as`` reads the caller's typed facts about the run); it may await (search
an index, read a store) and returns a :class:`ModelInput`: the messages to send and the sources
the reply cites. When the reply answers in text without calling a tool, the node ends it with
one more streamed chunk carrying those sources as the annotations of its text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from app.core.graph.context import RunContext
from app.core.models.protocol import ToolSpec
from app.core.state.agent_state import AgentState
from app.core.state.message import Message
from app.core.state.message_block import AnnotationRef, TextBlock

__all__ = ["ContextHook", "ModelInput", "ModelRequest", "citing_chunk"]


@dataclass(frozen=True)
class ModelRequest:
    """One model call as the node is about to make it: ``messages`` (the system prompt first,
    when there is one), the ``tools`` it offers (none in the last call before the step limit),
    the agent's ``state`` and the run context ``ctx``."""

    messages: Sequence[Message]
    tools: Sequence[ToolSpec]
    state: AgentState
    ctx: RunContext


@dataclass(frozen=True)
class ModelInput:
    """What a context hook hands back: the ``messages`` to send, and the sources the reply
    cites (``cites``), put on its text when it answers without calling a tool."""

    messages: Sequence[Message]
    cites: Sequence[AnnotationRef] = ()


ContextHook = Callable[[ModelRequest], Awaitable["ModelInput | None"]]
"""A pre-model hook given the run: ``None`` sends the request's messages unchanged."""


def citing_chunk(reply: Message, cites: Sequence[AnnotationRef]) -> Message | None:
    """The chunk that ends ``reply`` with ``cites`` on its text, when it answers in text and
    calls no tool (``None`` otherwise)."""
    texts = any(isinstance(b, TextBlock) and b.text for b in reply.content)
    if not cites or not texts or reply.tool_calls():
        return None
    return Message(
        message_id=reply.message_id,
        role="assistant",
        content=[TextBlock(text="", annotations=list(cites))],
        delta=True,
    )
