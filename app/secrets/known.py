"""Secret values this process has seen, so logs can leave them out.

The keyring resolver remembers every value it reads or stores; the log setup also remembers
API keys found in the environment. Only the values are kept, in memory, never written.
"""

from __future__ import annotations

import threading

__all__ = ["MIN_LENGTH", "forget_all", "known_secrets", "remember_secret"]

MIN_LENGTH = 4
"""Shorter values are not remembered: hiding every "a" or "12" would garble the logs."""

_lock = threading.Lock()
_known: set[str] = set()


def remember_secret(value: str | None) -> None:
    """Remember ``value`` (and its stripped form) as a secret to keep out of logs."""
    if not value:
        return
    with _lock:
        for form in (value, value.strip()):
            if len(form) >= MIN_LENGTH:
                _known.add(form)


def known_secrets() -> frozenset[str]:
    """Every secret value remembered so far."""
    with _lock:
        return frozenset(_known)


def forget_all() -> None:
    """Forget every remembered value (when all of the user's data is deleted)."""
    with _lock:
        _known.clear()
