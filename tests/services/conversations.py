"""A :class:`Conversation` on a real store with a given model, for service tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app.core.graph import RunConfig
from app.core.models.protocol import ChatModel
from app.core.tools import ApprovalHandler, Tool
from app.core.tools.secrets import SecretSource
from app.services.conversation import Conversation
from app.services.events import WorkspaceEvent
from app.services.workspace import Workspace
from app.store import Store


def conversation(
    store: Store,
    model: ChatModel,
    *,
    tools: Sequence[Tool[..., Any]] = (),
    secret_resolver: SecretSource | None = None,
    approvals: ApprovalHandler | None = None,
    run_config: RunConfig | None = None,
    on_event: Callable[[WorkspaceEvent], None] | None = None,
) -> Conversation:
    """Turns on ``store``'s threads answered by ``model`` whatever model a thread names."""
    workspace = Workspace(
        store,
        lambda _spec: model,
        data_dir=Path(store.path).parent,
        tools=tools,
        secret_resolver=secret_resolver,
        run_config=run_config,
    )
    return Conversation(workspace, approvals, on_event=on_event)
