"""An HTTP transport that stops reading an answer to a request past a size.

The SDK reads a server's JSON answer whole (its event streams it already bounds per event).
:class:`CappedTransport` counts the bytes of each answer to a POST, which is how a request
is sent, and fails the read past ``limit`` with :data:`TOO_BIG`; the SDK then fails that
request alone. The long-lived GET stream of notifications is left as it is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2

__all__ = ["TOO_BIG", "CappedTransport"]

TOO_BIG = "the answer was bigger than Parley reads"
"""What a read past the limit says (the SDK passes it on inside its own error)."""


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int) -> None:
        self._inner = inner
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise httpx2.StreamError(TOO_BIG)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """``inner`` (a plain HTTP transport unless given), reading at most ``limit`` bytes of an
    answer to a POST."""

    def __init__(self, limit: int, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self._limit = limit
        self._inner = inner or httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request``; the answer's body is read through the cap."""
        response = await self._inner.handle_async_request(request)
        if request.method != "POST":
            return response
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=_CappedStream(response.stream, self._limit),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        """Close the inner transport."""
        await self._inner.aclose()
