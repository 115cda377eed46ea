"""Checks on what callers hand the store, so a bad value is a clear error, not a crash."""

from __future__ import annotations

from typing import Any

from app.core.errors import UserError
from app.core.state.storable import problem_in

__all__ = ["check_text"]


def check_text(value: Any, what: str) -> None:
    """Raise :class:`UserError` when ``value`` (text or ``None``) cannot be saved as text."""
    problem = problem_in(value) if isinstance(value, str) else None
    if value is not None and not isinstance(value, str):
        problem = f"a {type(value).__name__}, not text"
    if problem is not None:
        raise UserError(f"{what} cannot be saved: it holds {problem}")
