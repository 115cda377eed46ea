"""Secrets for tools: where they come from, and the error when one cannot be had.

A tool names the secrets it needs with ``secret_refs={"param": "service/key"}``. Just before
the call a :class:`SecretResolver` turns each ref into its value, which is passed as that
parameter and nowhere else: it is never shown to the model, stored in state or written to a log.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from app.core.errors import ParleyError

__all__ = ["SecretError", "SecretResolver", "SecretSource", "resolve_secret"]


class SecretError(ParleyError, LookupError):
    """A secret could not be had: it is not set, or the secret store is locked or missing.

    ``ref`` names the secret (never its value); the message says how to fix it.
    """

    def __init__(self, ref: str, message: str) -> None:
        super().__init__(message)
        self.ref = ref


@runtime_checkable
class SecretResolver(Protocol):
    """Turns a secret ref such as ``"crm/api-token"`` into its value."""

    async def resolve(self, ref: str) -> str:
        """Return the value of ``ref``; raise :class:`SecretError` when it cannot."""
        ...


SecretSource = SecretResolver | Callable[[str], str] | Callable[[str], Awaitable[str]]
"""A resolver object, or a plain function (sync or async) from ref to value."""


async def resolve_secret(source: SecretSource | None, ref: str) -> str:
    """Resolve ``ref`` through ``source``; every failure becomes a :class:`SecretError`."""
    if source is None:
        raise SecretError(
            ref,
            f"secret {ref!r} is needed but no secret resolver is configured; "
            "pass secret_resolver= when building the agent",
        )
    try:
        # duck-typed: a runtime Protocol check costs more than the rest of a call's checks
        resolve = getattr(source, "resolve", None)
        value: object = resolve(ref) if callable(resolve) else source(ref)  # type: ignore[operator]
        if not isinstance(value, str) and inspect.isawaitable(value):
            value = await value
    except SecretError:
        raise
    except Exception as exc:  # a resolver's own failure: keep its type, never its value
        raise SecretError(
            ref,
            f"secret {ref!r} could not be read ({type(exc).__name__}); set it with: "
            f"parley key set {ref}",
        ) from None
    if not isinstance(value, str) or not value:
        raise SecretError(ref, f"secret {ref!r} is not set; set it with: parley key set {ref}")
    return value
