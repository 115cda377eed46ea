"""Opening everything a chat needs — store, keyring, model, approvals — and closing it."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

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
    from app.services.model_registry import resolve_model

    secrets = KeyringSecretResolver()
    model = resolve_model(model_spec, api_key_lookup=api_key_lookup(secrets))
    store = Store.open_data_dir(data_dir)
    try:
        chat = ChatService(
            store,
            model,
            model_spec=model_spec,
            secret_resolver=secrets,
            approvals=TerminalApprovalHandler() if interactive else None,
            tools=BUILTIN_TOOLS if tools else (),
            run_config={"tool_permissions": list(BUILTIN_PERMISSIONS)} if tools else None,
        )
        yield Session(store=store, chat=chat, model_spec=model_spec)
    finally:
        await store.aclose()
