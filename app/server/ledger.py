"""What the server notes of each request it receives, for the network ledger: when, from
where, the key's name, the model, the tokens and the outcome, never the content."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Inbound", "NoteRequests", "Record"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


@dataclass
class Inbound:
    """One request the server received, as the ledger keeps it (filled in as it is
    answered: a handler reads it as ``request.state.inbound``)."""

    time: float
    host: str
    port: int | None
    path: str
    key: str | None = None
    """The name of the key sent, once it was checked."""
    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    status: int = 0
    """The HTTP status answered (499: the client went away first)."""
    gone: bool = False
    """The client went away before the whole answer was sent."""
    failed: bool = False
    """The model failed in the middle of a streamed answer (sent as an error event)."""

    @property
    def outcome(self) -> str:
        """``answered``, ``refused (401)`` and so on, ``failed`` (``failed (500)``) when the
        model or the server failed, or ``client went away``."""
        if self.gone or self.status in (0, 499):
            return "client went away"
        if self.failed or self.status >= 500:
            return "failed" if self.status < 500 else f"failed ({self.status})"
        return "answered" if self.status < 400 else f"refused ({self.status})"

    def describe(self) -> str:
        """The ledger's purpose for this request: key, model, tokens and outcome."""
        key = f"key {self.key}" if self.key else "no valid key"
        model = f", model {self.model}" if self.model else ""
        tokens = (
            f", {self.prompt_tokens} tokens in, {self.completion_tokens} out"
            if self.prompt_tokens or self.completion_tokens
            else ""
        )
        return f"API request {self.path} by {key}{model}{tokens}: {self.outcome}"


Record = Callable[[Inbound], None]
"""Where each request's note goes once it is answered (it must be quick and not raise)."""


class NoteRequests:
    """ASGI middleware: an :class:`Inbound` for each HTTP request, its status taken from the
    response, handed to ``record`` once the response ended (or the client went away)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], record: Record):
        self.app = app
        self.record = record

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request, noting it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host, port = scope.get("client") or ("", None)
        inbound = Inbound(time.time(), str(host), port, str(scope.get("path", "")))
        scope.setdefault("state", {})["inbound"] = inbound

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                inbound.status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            self.record(inbound)
