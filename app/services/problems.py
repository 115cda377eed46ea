"""Turning a failure's kind into what the user can do about it, without naming any UI."""

from __future__ import annotations

from app.services.events import Problem, ProblemKind, Remedy

__all__ = ["problem_of", "remedies_for"]

_KINDS: set[str] = set(ProblemKind.__args__)  # type: ignore[attr-defined]


def remedies_for(code: str | None) -> tuple[Remedy, ...]:
    """The remedies for an error code (``kind`` or ``kind:key_name``, as an ``ErrorBlock``
    keeps it)."""
    kind, _, target = (code or "").partition(":")
    if kind == "auth":
        return (Remedy("set_key", "Set API key…", target or None), Remedy("retry", "Retry"))
    retried = ("connection", "timeout", "rate_limited", "interrupted", "model", "internal")
    if kind in (*retried, "repeated_call"):
        return (Remedy("retry", "Retry"),)
    if kind == "unsupported":
        return (Remedy("pick_model", "Choose another model"),)
    return ()


def problem_of(kind: str, text: str, thread_id: str | None = None) -> Problem:
    """A :class:`Problem` of ``kind`` (unknown kinds count as ``model``) with its remedies."""
    known: ProblemKind = kind if kind in _KINDS else "model"  # type: ignore[assignment]
    return Problem(known, text, thread_id, remedies_for(kind))
