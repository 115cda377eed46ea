"""The SDK transport of one server, watched so a server that goes away is noticed at once.

A stdio server that exits only closes its pipe; nothing is waiting on it while no call is in
flight. :class:`WatchedTransport` wraps the transport's read stream and calls ``on_end`` when
the stream ends, which is how the connection learns that its server stopped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any

import httpx2
from mcp import MCPError
from mcp.client import Transport
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CONNECTION_CLOSED, PARSE_ERROR

from app.core.tools import Redactor
from app.core.tools.secrets import SecretSource, resolve_secret
from app.tools.mcp._http_cap import TOO_BIG, CappedTransport
from app.tools.mcp._stdio import ANSWER_TOO_BIG, MAX_MESSAGE_BYTES, megabytes, stdio_client
from app.tools.mcp.config import SECRET_PATTERN, ServerConfig

__all__ = [
    "WatchedTransport",
    "http_transport",
    "resolve_values",
    "stdio_transport",
    "too_big",
]

HTTP_TIMEOUT = 30.0
"""Seconds to connect to and write to an HTTP server (reads wait as long as a call may)."""


class _WatchedRead:
    """A read stream that reports its end (or its failure) once."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item, when the inner stream keeps one."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        """Receive the next item; report the end of the stream."""
        try:
            return await self._inner.receive()
        except Exception:
            self._on_end()
            raise

    async def aclose(self) -> None:
        """Close the inner stream."""
        await self._inner.aclose()

    def __aiter__(self) -> _WatchedRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._inner.__anext__()
        except (StopAsyncIteration, Exception):
            self._on_end()
            raise

    async def __aenter__(self) -> _WatchedRead:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        result: bool | None = await self._inner.__aexit__(exc_type, exc_val, exc_tb)
        return result


class WatchedTransport:
    """A :class:`mcp.client.Transport` whose read stream calls ``on_end`` when it ends."""

    def __init__(self, inner: Transport, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    async def __aenter__(self) -> Any:
        read, write = await self._inner.__aenter__()
        return _WatchedRead(read, self._on_end), write

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


async def resolve_values(
    values: Mapping[str, str], secrets: SecretSource | None, redactor: Redactor
) -> dict[str, str]:
    """Replace every ``{keyring:REF}`` in ``values`` by the secret, which ``redactor`` learns
    so it can take it out of whatever the server says; raises ``SecretError``."""
    resolved: dict[str, str] = {}
    for key, value in values.items():
        parts: list[str] = []
        last = 0
        for match in SECRET_PATTERN.finditer(value):
            ref = match[1].strip()
            secret = await resolve_secret(secrets, ref)
            redactor.add(ref, secret)
            parts += [value[last : match.start()], secret]
            last = match.end()
        resolved[key] = "".join([*parts, value[last:]])
    return resolved


def stdio_transport(
    config: ServerConfig, args: list[str], env: dict[str, str], on_stderr: Callable[[str], None]
) -> Transport:
    """The stdio transport running ``config``'s command with ``args`` and ``env`` (both with
    their secrets resolved), each line of the server's stderr going to ``on_stderr``."""
    assert config.command is not None
    return stdio_client(config.command, args, env, config.cwd, on_stderr)


def http_transport(
    config: ServerConfig, headers: dict[str, str], on_refusal: Callable[[int], None]
) -> tuple[Transport, AbstractAsyncContextManager[Any]]:
    """The SDK's streamable-HTTP transport for ``config`` and the HTTP client it uses.

    ``on_refusal`` hears the status of every answer of 400 or more (the SDK reports those
    only as "an error response"). The caller enters the HTTP client around the transport
    (the transport does not close a client it was given).
    """
    assert config.url is not None

    async def watch(response: httpx2.Response) -> None:
        if response.status_code >= 400:
            on_refusal(response.status_code)

    client = httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(HTTP_TIMEOUT, read=None),
        follow_redirects=False,
        event_hooks={"response": [watch]},
        transport=CappedTransport(MAX_MESSAGE_BYTES),
    )
    transport = streamable_http_client(
        config.url, http_client=client, max_sse_event_size=MAX_MESSAGE_BYTES
    )
    return transport, client


def too_big(exc: MCPError) -> str | None:
    """What to say when ``exc`` reports an answer bigger than Parley reads, else ``None``.

    Over stdio the answer's request gets :data:`ANSWER_TOO_BIG`; over HTTP the SDK stops
    reading an event past its size limit and reports the stream as failed, or reports a JSON
    answer it could not read whole (:class:`CappedTransport` stopped it)."""
    if exc.code == ANSWER_TOO_BIG:
        return exc.message
    sdk_limit = exc.code == CONNECTION_CLOSED and "byte limit" in exc.message
    if sdk_limit or (exc.code == PARSE_ERROR and TOO_BIG in exc.message):
        return f"more than {megabytes(MAX_MESSAGE_BYTES)}, so Parley stopped reading it"
    return None


def redact_url(url: str) -> str:
    """``url`` without a password in it, for messages."""
    return re.sub(r"//[^/@]*@", "//", url)
