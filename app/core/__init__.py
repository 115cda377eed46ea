"""Parley's engine: typed messages and state, the graph, tools, agents and the model protocol.

It imports neither Qt nor SQLite nor any provider SDK and works as a library on its own::

    from app.core import HumanMessage, create_agent, tool

The names below load with the first use of each (:mod:`app.core.lazy_names`): a process that
needs one small part of the engine (the document reader's child needs only
:mod:`app.core.child_process`) does not load the agents, the graph and the tools with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.lazy_names import lazy_names

if TYPE_CHECKING:
    from app.core.agent import create_agent
    from app.core.graph import END, START, CompiledGraph, Resume, StateGraph, interrupt
    from app.core.models import ChatModel, ScriptedChatModel
    from app.core.state import (
        AgentState,
        AIMessage,
        AIMessageChunk,
        HumanMessage,
        Message,
        MessagesState,
        RemoveMessage,
        SystemMessage,
        ToolMessage,
        ToolResult,
        add_messages,
    )
    from app.core.tools import Runtime, ToolError, ToolNode, tool

_HOMES = {
    "app.core.agent": ("create_agent",),
    "app.core.graph": ("END", "START", "CompiledGraph", "Resume", "StateGraph", "interrupt"),
    "app.core.models": ("ChatModel", "ScriptedChatModel"),
    "app.core.state": (
        "AgentState", "AIMessage", "AIMessageChunk", "HumanMessage", "Message", "MessagesState",
        "RemoveMessage", "SystemMessage", "ToolMessage", "ToolResult", "add_messages",
    ),
    "app.core.tools": ("Runtime", "ToolError", "ToolNode", "tool"),
}  # fmt: skip

__all__ = [
    "END",
    "START",
    "AIMessage",
    "AIMessageChunk",
    "AgentState",
    "ChatModel",
    "CompiledGraph",
    "HumanMessage",
    "Message",
    "MessagesState",
    "RemoveMessage",
    "Resume",
    "Runtime",
    "ScriptedChatModel",
    "StateGraph",
    "SystemMessage",
    "ToolError",
    "ToolMessage",
    "ToolNode",
    "ToolResult",
    "add_messages",
    "create_agent",
    "interrupt",
    "tool",
]


__getattr__, __dir__ = lazy_names(__name__, globals(), _HOMES)
