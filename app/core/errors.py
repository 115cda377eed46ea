"""Errors the engine raises, named for who is at fault.

- ``UserError``: the caller used the API wrongly (bad graph, unknown field). Fix the code.
- ``DecodeError``: stored or received data does not match the schema. Names the field.
- ``ModelError``: a model or provider failed (connection, bad output).
- ``BudgetExceeded``: a run hit one of its budgets.
- ``GraphRecursionError``: a run hit its step limit.
- ``CheckpointConflict``: two runs wrote the same thread at once; the later step was refused.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

ErrorKind = Literal[
    "connection", "auth", "rate_limited", "timeout", "interrupted", "unsupported", "model", "busy"
]
"""What went wrong, for a program choosing a remedy: the model's server could not be reached,
refused the key, kept refusing for load, did not answer in time, broke off a reply, cannot
take the content (or is not there), failed otherwise; or the thread is already busy."""


class ParleyError(Exception):
    """Base class of every error Parley raises on purpose.

    ``kind`` says what went wrong when a class knows it (``None``: whoever reports the error
    picks the kind from where it happened)."""

    kind: ClassVar[ErrorKind | None] = None


class UserError(ParleyError, ValueError):
    """The engine was used wrongly; the message says what to change."""


class DecodeError(ParleyError, ValueError):
    """Data failed validation; ``errors`` lists each problem with its field path."""

    def __init__(self, what: str, errors: list[dict[str, Any]]) -> None:
        self.what = what
        self.errors = errors
        parts = []
        for err in errors[:5]:
            loc = ".".join(str(p) for p in err.get("loc", ()))[:80] or "(root)"
            # one line, and short: a message may quote a huge or many-lined input
            msg = " ".join(str(err.get("msg", "invalid")).split())
            parts.append(f"{loc}: {msg if len(msg) <= 120 else msg[:119] + '…'}")
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        super().__init__(f"invalid {what}: " + "; ".join(parts) + more)


class CheckpointConflict(ParleyError, RuntimeError):
    """A step was saved as following a checkpoint that is no longer the thread's latest:
    another run (another window or process) changed the thread meanwhile."""


class GraphRecursionError(ParleyError, RuntimeError):
    """A run took more steps than its limit allows."""


class ModelError(ParleyError, RuntimeError):
    """A model or provider failed; the message says what happened and what to do.

    ``kind`` names the failure for programs (a view picks its remedy by it); ``key_name`` is
    the keyring entry of the API key involved, when there is one.
    """

    kind: ClassVar[ErrorKind] = "model"

    def __init__(self, message: str = "", *, key_name: str | None = None) -> None:
        super().__init__(message)
        self.key_name = key_name

    @property
    def code(self) -> str:
        """``kind``, followed by ``:key_name`` when a key is involved (an ``ErrorBlock`` code)."""
        return f"{self.kind}:{self.key_name}" if self.key_name else self.kind


class ModelConnectionError(ModelError):
    """The model's server could not be reached or dropped the connection."""

    kind = "connection"


class ModelAuthError(ModelError):
    """The provider refused the credentials (HTTP 401/403): check the API key."""

    kind = "auth"


class ModelRateLimited(ModelError):
    """The provider kept answering 429 or 5xx after every retry."""

    kind = "rate_limited"


class ModelTimeout(ModelError):
    """The provider did not answer in time."""

    kind = "timeout"


class ModelStreamInterrupted(ModelError):
    """A streamed reply was cut off; ``partial`` holds what had arrived."""

    kind = "interrupted"

    def __init__(self, message: str, partial: Any = None) -> None:
        super().__init__(message)
        self.partial = partial


class UnsupportedContent(ModelError):
    """The model cannot take a kind of content (e.g. audio to a text-only model)."""

    kind = "unsupported"


class BudgetExceeded(ParleyError, RuntimeError):
    """A run would exceed one of its budgets (model calls, tool calls, tokens, cost)."""
