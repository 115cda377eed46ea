"""Parley's engine: typed messages and state, the graph, tools, agents and the model protocol.

It imports neither Qt nor SQLite nor any provider SDK and works as a library on its own::

    from app.core import HumanMessage, create_agent, tool
"""

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
