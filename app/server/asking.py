"""Who asked: the name of the key the request being answered was sent with, and what it has
left today, for what runs while answering it (an agent's approval asked in the window names
the key; an agent's run stops before it would pass the key's daily tokens)."""

from __future__ import annotations

from contextvars import ContextVar

__all__ = ["asking_key", "key_room"]

asking_key: ContextVar[str] = ContextVar("asking_key", default="")
"""The name of the key the request being answered was sent with (set by the application)."""

key_room: ContextVar[int | None] = ContextVar("key_room", default=None)
"""The tokens the key has left today for the agent run answering the request, held for it
(``None``: the key has no daily limit); the run stops before a step that could pass them."""
