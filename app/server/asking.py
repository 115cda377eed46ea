"""Who asked: the name of the key the request being answered was sent with, for what runs
while answering it (an agent's approval asked in the window names the key)."""

from __future__ import annotations

from contextvars import ContextVar

__all__ = ["asking_key"]

asking_key: ContextVar[str] = ContextVar("asking_key", default="")
"""The name of the key the request being answered was sent with (set by the application)."""
