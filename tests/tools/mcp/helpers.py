"""Shared builders for the MCP tests: the demo server's config, an agent over MCP tools, and
the tool results of a run."""

from __future__ import annotations

import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.core.agent import create_agent
from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph import CompiledGraph
from app.core.models.scripted import ScriptedChatModel
from app.core.state import AgentState, ToolResultBlock
from app.core.tools import InMemoryApprovalPolicy, Tool
from app.tools.mcp import ServerConfig

DEMO = Path(__file__).with_name("demo_server.py")


def demo_config(name: str = "demo", *args: str, **fields: Any) -> ServerConfig:
    """The demo server run as a subprocess over stdio."""
    return ServerConfig(name=name, command=sys.executable, args=[str(DEMO), *args], **fields)


def time_config(name: str = "time") -> ServerConfig:
    """The published ``mcp-server-time`` over stdio, pinned to UTC."""
    return ServerConfig(
        name=name,
        command=sys.executable,
        args=["-m", "mcp_server_time", "--local-timezone", "UTC"],
    )


def calling_model(calls: list[dict[str, Any]], answer: str = "Done.") -> ScriptedChatModel:
    """A scripted model that asks for ``calls`` once, then answers ``answer``."""
    return ScriptedChatModel([{"text": "", "tool_calls": calls}, {"text": answer}])


def agent_calling(
    tools: Sequence[Tool[..., Any]],
    calls: list[dict[str, Any]],
    answer: str = "Done.",
    model: ScriptedChatModel | None = None,
) -> tuple[CompiledGraph[Any], InMemoryApprovalPolicy]:
    """An agent whose scripted model (``model``, or a new one) asks for ``calls`` once, then
    answers ``answer``."""
    model = model or calling_model(calls, answer)
    policy = InMemoryApprovalPolicy()
    agent = create_agent(
        model, list(tools), approval_policy=policy, checkpointer=InMemoryCheckpointer()
    )
    return agent, policy


def results(state: AgentState) -> list[ToolResultBlock]:
    """Every tool result of the run, in order."""
    return [b for m in state.context for b in m.content if isinstance(b, ToolResultBlock)]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
