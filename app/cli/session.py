"""Opening everything a chat needs — store, keyring, model, approvals — and closing it."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from app.cli.approvals import TerminalApprovalHandler
from app.core.graph import RunConfig
from app.core.tools import Tool
from app.services.conversation import Conversation
from app.services.events import WorkspaceEvent
from app.services.keys import open_keyring
from app.services.models.access import ENV_KEYS, api_key_lookup
from app.services.workspace import Workspace
from app.services.workspace_tools import WorkspaceTools, ask_first_tools
from app.text.hidden_chars import escape_hidden

__all__ = ["ENV_KEYS", "Session", "api_key_lookup", "open_session"]


@dataclass
class Session:
    """An open terminal session: the workspace and the conversation driven on it."""

    workspace: Workspace
    chat: Conversation
    model_spec: str


@asynccontextmanager
async def open_session(
    data_dir: str | None,
    model_spec: str,
    *,
    interactive: bool = True,
    tools: bool = False,
    knowledge: bool = True,
    memory: bool = True,
    on_event: Callable[[WorkspaceEvent], None] | None = None,
    budget_pause: bool | None = None,
) -> AsyncIterator[Session]:
    """Open the workspace in ``data_dir`` (store and keyring, off the loop) and yield a
    :class:`Session` whose new threads use ``model_spec``.

    Approvals are asked on the terminal when ``interactive`` (budget pauses too, when stdin
    is a terminal; otherwise a turn at its limit ends saying so); with ``tools`` the model is
    offered the built-in tools (file tools ask for approval) and the configured MCP servers'
    tools, and ``search_knowledge`` while a knowledge folder exists. Without ``knowledge``
    no turn is given knowledge passages, by the tool or put before its question. Without
    ``memory`` (incognito) no memory goes before a question and none is kept; with it and
    ``tools`` the model is offered ``remember``, asked on the terminal. Every event
    of a driven thread reaches ``on_event``. ``budget_pause`` (the scheduler's) pauses a turn
    at its budget limit, saved for an answer later; an empty ``model_spec`` keeps the
    settings' default model.
    """
    from app.services.mcp.config import configured_mcp_tools

    secrets = await open_keyring()
    asking_budget = interactive and sys.stdin.isatty()
    pausing = asking_budget if budget_pause is None else budget_pause
    async with AsyncExitStack() as stack:
        offered: list[Tool[..., Any]] = ask_first_tools() if tools else []
        granted = WorkspaceTools.permissions_of(offered)
        if tools:
            # the configured MCP servers' tools too; each server stops when the session does
            mcp = await stack.enter_async_context(configured_mcp_tools(data_dir, secrets))
            offered += mcp.tools()
            granted += mcp.permissions()
            for name, why in mcp.problems().items():
                sys.stderr.write(escape_hidden(f"MCP server {name} is not available: {why}\n"))
        workspace = await Workspace.open(
            data_dir,
            secret_resolver=secrets,
            tools=offered,
            offer_knowledge=tools and knowledge,
            auto_passages=knowledge,
            memory=memory,
            offer_memory=tools,
            # a budget pause is asked on a terminal; elsewhere a turn at its limit ends saying so
            run_config=RunConfig(budget_pause=pausing, tool_permissions=frozenset(granted)),
        )
        stack.push_async_callback(workspace.aclose)
        if workspace.data.removed_notice:
            sys.stderr.write(escape_hidden(f"{workspace.data.removed_notice}\n"))
        if model_spec:
            workspace.settings.use(
                workspace.settings.current.model_copy(update={"default_model": model_spec})
            )
        handler = TerminalApprovalHandler() if interactive else None
        chat = Conversation(
            workspace,
            handler,
            on_event=on_event,
            budget=handler.raise_limit if handler is not None and asking_budget else None,
        )
        yield Session(workspace=workspace, chat=chat, model_spec=model_spec)
