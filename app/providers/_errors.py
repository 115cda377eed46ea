"""Turn provider failures into :mod:`app.core.errors` with sentences a user can act on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.core.errors import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelRateLimited,
    ModelTimeout,
)
from app.core.netgate import refusal_in

FailureKind = Literal[
    "connect", "offline", "timeout", "auth", "rate", "server", "not_found", "request"
]


@dataclass(frozen=True)
class Failure:
    """What went wrong talking to a provider, before it becomes a :class:`ModelError`."""

    kind: FailureKind
    detail: str = ""
    status: int | None = None
    retry_after: float | None = None

    @property
    def retryable(self) -> bool:
        """Whether waiting and sending the same request again may succeed."""
        return self.kind in ("rate", "server")


@dataclass(frozen=True)
class Endpoint:
    """Who we were talking to, for error messages: ``OpenAI-compatible server at URL``."""

    provider: str
    url: str
    model: str
    key_name: str | None = None


def _detail(failure: Failure) -> str:
    text = failure.detail.strip().rstrip(".")
    return f" ({text[:300]})" if text else ""


def _http(failure: Failure) -> str:
    return f" (HTTP {failure.status})" if failure.status else ""


def offline_failure(exc: BaseException) -> Failure | None:
    """The failure of a connection offline mode refused (its sentence as it is), or ``None``
    when ``exc`` is something else."""
    refusal = refusal_in(exc)
    return Failure("offline", str(refusal)) if refusal is not None else None


def to_model_error(failure: Failure, where: Endpoint, attempts: int = 1) -> ModelError:
    """Build the :class:`ModelError` subclass for ``failure``, saying what to do next."""
    who = f"{where.provider} at {where.url}"
    detail = _detail(failure)
    if failure.kind == "offline":
        return ModelConnectionError(failure.detail)
    if failure.kind == "connect":
        return ModelConnectionError(
            f"Could not connect to {who}{detail}. Check that the server is running and that the "
            "address is right."
        )
    if failure.kind == "timeout":
        return ModelTimeout(
            f"{who} did not answer in time{detail}. Try again, or raise the timeout if the model "
            "is slow to start."
        )
    if failure.kind == "auth":
        which = f" ({where.key_name})" if where.key_name else ""
        return ModelAuthError(
            f"{who} refused the request{_http(failure)}{detail}. Check the API key{which}.",
            key_name=where.key_name,
        )
    if failure.kind in ("rate", "server"):
        what = "is rate-limiting requests" if failure.kind == "rate" else "kept failing"
        tries = f"after {attempts} attempts" if attempts > 1 else "and asked for a long wait"
        return ModelRateLimited(
            f"{who} {what}{_http(failure)} {tries}{detail}. Wait a minute and try "
            "again, or check your plan's limits."
        )
    if failure.kind == "not_found":
        return ModelError(
            f"{who} does not know the model '{where.model}'{_http(failure)}{detail}. "
            "Check the model name."
        )
    return ModelError(
        f"{who} rejected the request{_http(failure)}{detail}. This is likely a setting "
        "or content the model does not accept."
    )


def status_failure(status: int, detail: str, retry_after: float | None = None) -> Failure:
    """Classify an HTTP error status."""
    if status in (401, 403):
        return Failure("auth", detail, status)
    if status == 429:
        return Failure("rate", detail, status, retry_after)
    if status == 404:
        return Failure("not_found", detail, status)
    if status >= 500 or status in (408, 409, 425):
        return Failure("server", detail, status, retry_after)
    return Failure("request", detail, status)
