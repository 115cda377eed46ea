"""Opening everything a chat needs — store, keyring, model, approvals — and closing it."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from app.core.tools import Tool
from app.core.tools.secrets import SecretError
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.services.chat import ChatService
from app.services.terminal_approvals import TerminalApprovalHandler
from app.store import Store
from app.tools.builtin import BUILTIN_PERMISSIONS, BUILTIN_TOOLS

__all__ = ["ENV_KEYS", "Session", "api_key_lookup", "open_session"]

ENV_KEYS = {"openai/api-key": "OPENAI_API_KEY", "anthropic/api-key": "ANTHROPIC_API_KEY"}
"""Environment variables read for an API key the keyring does not have."""


def api_key_lookup(secrets: KeyringSecretResolver) -> Callable[[str], str | None]:
    """Look an API key up in the keyring, then in the provider's usual environment variable
    (never stored)."""

    def api_key(ref: str) -> str | None:
        try:
            return secrets.get(ref)
        except SecretError:
            pass
        name = ENV_KEYS.get(ref)
        return os.environ.get(name) or None if name else None

    return api_key


@dataclass
class Session:
    """An open chat session: the store and the chat service on one model."""

    store: Store
    chat: ChatService
    model_spec: str


@asynccontextmanager
async def open_session(
    data_dir: str | None, model_spec: str, *, interactive: bool = True, tools: bool = False
) -> AsyncIterator[Session]:
    """Open the store in ``data_dir``, resolve ``model_spec`` and yield a :class:`Session`.

    API keys come from the keyring; approvals are asked on the terminal when ``interactive``;
    with ``tools`` the model is offered the built-in tools (file tools ask for approval).
    """
    from app.services.attach import media_loader
    from app.services.mcp_config import configured_mcp_tools
    from app.services.model_registry import resolve_model

    secrets = KeyringSecretResolver()
    store = Store.open_data_dir(data_dir)
    try:
        model = resolve_model(
            model_spec, api_key_lookup=api_key_lookup(secrets), media_loader=media_loader(store)
        )
        async with AsyncExitStack() as stack:
            offered: list[Tool[..., Any]] = list(BUILTIN_TOOLS) if tools else []
            granted = list(BUILTIN_PERMISSIONS) if tools else []
            if tools:
                # the configured MCP servers' tools too; each server stops when the session does
                mcp = await stack.enter_async_context(configured_mcp_tools(data_dir, secrets))
                offered += mcp.tools()
                granted += mcp.permissions()
                for name, why in mcp.problems().items():
                    sys.stderr.write(f"MCP server {name} is not available: {why}\n")
            chat = ChatService(
                store,
                model,
                model_spec=model_spec,
                secret_resolver=secrets,
                approvals=TerminalApprovalHandler() if interactive else None,
                tools=offered,
                run_config={"tool_permissions": granted} if tools else None,
            )
            yield Session(store=store, chat=chat, model_spec=model_spec)
    finally:
        await store.aclose()
