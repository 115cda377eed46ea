"""What the agent node hands a hook before each model call, and what the hook may hand back.

``create_agent`` takes two pre-model hooks. ``pre_model_hook(messages, state)`` is the plain
one: it returns the messages to send instead. ``context_hook(request)`` is given the run too
(:class:`ModelRequest`: the messages, the tools this call offers, the state and the run
context, whose ``deps_as`` reads the caller's typed facts about the run); it may await (search
an index, read a store) and returns a :class:`ModelInput`: the messages to send and the sources
the reply cites. When the reply answers in text without calling a tool, the node ends it with
one more streamed chunk carrying those sources as the annotations of its text. A hook's
``metadata`` (what it put before the model, for a front end to show) is kept on the reply.
:func:`chain_hooks` makes several context hooks one: each is handed the messages the one before
it left.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from app.core.graph.context import RunContext
from app.core.models.protocol import ModelInfo, ToolSpec
from app.core.state.agent_state import AgentState
from app.core.state.message import Message
from app.core.state.message_block import AnnotationRef, TextBlock

__all__ = ["ContextHook", "ModelInput", "ModelRequest", "chain_hooks", "citing_chunk"]


@dataclass(frozen=True)
class ModelRequest:
    """One model call as the node is about to make it: ``messages`` (the system prompt first,
    when there is one), the ``tools`` it offers (none in the last call before the step limit),
    the agent's ``state``, the run context ``ctx`` and what is known of the ``model`` called
    (``None``: not known)."""

    messages: Sequence[Message]
    tools: Sequence[ToolSpec]
    state: AgentState
    ctx: RunContext
    model: ModelInfo | None = None


@dataclass(frozen=True)
class ModelInput:
    """What a context hook hands back: the ``messages`` to send, and the sources the reply
    cites (``cites``), put on its text when it answers without calling a tool, and the
    ``metadata`` kept on the reply (JSON values under keys the hook owns)."""

    messages: Sequence[Message]
    cites: Sequence[AnnotationRef] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)


ContextHook = Callable[[ModelRequest], Awaitable["ModelInput | None"]]
"""A pre-model hook given the run: ``None`` sends the request's messages unchanged."""


def chain_hooks(*hooks: ContextHook) -> ContextHook:
    """One context hook running ``hooks`` in order, each handed the messages the one before
    it left; the sources they cite and their metadata are put together."""

    async def chained(request: ModelRequest) -> ModelInput | None:
        changed = False
        cites: list[AnnotationRef] = []
        metadata: dict[str, Any] = {}
        for hook in hooks:
            prepared = await hook(request)
            if prepared is None:
                continue
            changed = True
            cites += prepared.cites
            metadata.update(prepared.metadata)
            request = replace(request, messages=prepared.messages)
        return ModelInput(request.messages, cites, metadata) if changed else None

    return chained


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
