"""One guarded HTTP exchange for the web tools and the model downloads: checked addresses,
every redirect checked, the body read only up to a cap, all within a time limit."""

from __future__ import annotations

import asyncio
import functools
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import certifi
import httpx

from app.core.netgate import OfflineRefusal, refusal_in
from app.core.tools import ToolError
from app.net.guard import AddressRefused, NetworkPolicy

__all__ = [
    "Arrived",
    "Fetched",
    "body_of",
    "checked_url",
    "exchange",
    "follow",
    "guarded_client",
    "origin",
]

MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
USER_AGENT = "Parley/0.1 (desktop chat app)"
_ANYWHERE = NetworkPolicy(allow_private=True)


@functools.cache
def _system_trust() -> ssl.SSLContext:
    """The default TLS context, made once: building it costs about 100 ms each time."""
    return ssl.create_default_context(cafile=certifi.where())


@dataclass(frozen=True, slots=True)
class Fetched:
    """The final response: its URL, status, media type, charset and (possibly cut) body."""

    url: str
    status: int
    reason: str
    media_type: str
    charset: str | None
    body: bytes
    cut: bool


def checked_url(text: str) -> httpx.URL:
    """``text`` as an http(s) URL with a host; :class:`ToolError` says what is wrong."""
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise ToolError(f"{text!r} is not a valid URL ({exc})") from None
    if url.scheme not in _DEFAULT_PORTS:
        shown = url.scheme or "none"
        raise ToolError(f"only http and https URLs can be fetched, not {shown!r} ({text!r})")
    if not url.host:
        raise ToolError(f"the URL {text!r} names no host")
    return url


def _ascii_host(url: httpx.URL) -> str:
    """The host as sent on the wire: an international name in its ASCII (IDNA) form."""
    return url.raw_host.decode("ascii")


def _pinned(url: httpx.URL, address: str) -> tuple[httpx.URL, dict[str, str], dict[str, str]]:
    """The URL with its host replaced by the checked address, the Host header, and the TLS
    name to verify the certificate against."""
    port = url.port or _DEFAULT_PORTS[url.scheme]
    default = port == _DEFAULT_PORTS[url.scheme]
    name = _ascii_host(url)
    host = f"[{name}]" if ":" in name else name
    extensions = {"sni_hostname": name} if url.scheme == "https" else {}
    return url.copy_with(host=address), {"Host": host if default else f"{host}:{port}"}, extensions


@asynccontextmanager
async def body_of(response: httpx.Response) -> AsyncIterator[AsyncIterator[bytes]]:
    """The response's body in blocks, to read as far as wanted: leaving the block closes the
    connection in this task, while the iterators under the blocks still exist. Dropped
    first, they would close it from the garbage collector, where it cannot be awaited."""
    blocks = response.aiter_bytes()
    try:
        yield blocks
    finally:
        await response.aclose()


async def _read_capped(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    body = bytearray()
    async with body_of(response) as pieces:
        async for piece in pieces:
            body += piece
            if len(body) > limit:
                return bytes(body[:limit]), True
    return bytes(body), False


async def _send(
    client: httpx.AsyncClient,
    method: str,
    url: httpx.URL,
    addresses: list[str],
    headers: dict[str, str],
    content: bytes | None,
) -> httpx.Response:
    """Send to each checked address in turn until one accepts the connection."""
    for i, address in enumerate(addresses):
        target, host_header, extensions = _pinned(url, address)
        request = client.build_request(
            method,
            target,
            headers={**headers, **host_header},
            content=content,
            extensions=extensions,
        )
        try:
            return await client.send(request, stream=True)
        except httpx.ConnectError:
            if i == len(addresses) - 1:
                raise
    raise AssertionError("resolve() returns at least one address")


def origin(url: httpx.URL) -> tuple[str, str, int]:
    """The scheme, host and port a URL reaches: what "the same site" means for a redirect."""
    return url.scheme, _ascii_host(url), url.port or _DEFAULT_PORTS[url.scheme]


@dataclass(frozen=True, slots=True)
class Arrived:
    """The answer at the end of the redirects, open for streaming, and the headers of each
    redirect on the way (first first)."""

    url: httpx.URL
    response: httpx.Response
    hops: tuple[httpx.Headers, ...]


@asynccontextmanager
async def follow(
    client: httpx.AsyncClient,
    method: str,
    url: httpx.URL,
    *,
    policy: NetworkPolicy,
    headers: dict[str, str],
    content: bytes | None = None,
    trusted: tuple[str, str, int] | None = None,
) -> AsyncIterator[Arrived]:
    """Send one request, following up to five redirects, each to an address ``policy``
    allows, and yield the final answer unread. Only the ``trusted`` origin (a server the user
    named) is reached whatever its address. Raise :class:`ToolError` for a redirect that is
    not http(s), or too many of them, and :class:`AddressRefused` for a refused address."""
    start = origin(url)
    hops: list[httpx.Headers] = []
    for _ in range(MAX_REDIRECTS + 1):
        port = url.port or _DEFAULT_PORTS[url.scheme]
        guard = _ANYWHERE if origin(url) == trusted else policy
        try:
            addresses = await guard.resolve(_ascii_host(url), port)
        except AddressRefused as exc:
            exc.redirected = bool(hops)
            raise
        response = await _send(client, method, url, addresses, headers, content)
        try:
            location = response.headers.get("location")
            if response.status_code in _REDIRECTS and location:
                next_url = checked_url(str(url.join(location)))
                if response.status_code == 303 or (
                    response.status_code in (301, 302) and method == "POST"
                ):
                    method, content = "GET", None
                if origin(next_url) != start:
                    # credentials are never carried to another site
                    headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
                hops.append(response.headers)
                url = next_url
                continue
            yield Arrived(url, response, tuple(hops))
            return
        finally:
            await response.aclose()
    raise ToolError(f"the address redirected more than {MAX_REDIRECTS} times; stopped following")


async def _exchange(
    client: httpx.AsyncClient,
    method: str,
    url: httpx.URL,
    *,
    policy: NetworkPolicy,
    headers: dict[str, str],
    content: bytes | None,
    limit: int,
) -> Fetched:
    async with follow(client, method, url, policy=policy, headers=headers, content=content) as got:
        response = got.response
        body, cut = await _read_capped(response, limit)
        media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        return Fetched(
            url=str(got.url),
            status=response.status_code,
            reason=response.reason_phrase,
            media_type=media_type,
            charset=response.charset_encoding,
            body=body,
            cut=cut,
        )


def guarded_client(seconds: float, verify: ssl.SSLContext | None = None) -> httpx.AsyncClient:
    """A client for :func:`follow`: redirects left to it, no proxy from the environment (a
    proxy would reach the addresses the guard refuses), the system's TLS trust by default."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(seconds),
        trust_env=False,
        follow_redirects=False,
        verify=verify or _system_trust(),
    )


async def exchange(
    method: str,
    url: str,
    *,
    policy: NetworkPolicy,
    limit: int,
    seconds: float,
    headers: dict[str, str] | None = None,
    content: bytes | None = None,
    verify: ssl.SSLContext | None = None,
) -> Fetched:
    """Send one request (following up to five redirects, each to a checked address) and read at
    most ``limit`` bytes of the answer, all within ``seconds``. Failures raise
    :class:`ToolError` with one sentence (never the request's headers). ``verify`` is the TLS
    trust to use (the system's by default)."""
    checked = checked_url(url)
    sent = {"User-Agent": USER_AGENT, **(headers or {})}
    try:
        async with asyncio.timeout(seconds), guarded_client(seconds, verify) as client:
            return await _exchange(
                client,
                method,
                checked,
                policy=policy,
                headers=sent,
                content=content,
                limit=limit,
            )
    except OfflineRefusal as exc:  # looking the host up was refused
        raise ToolError(str(exc).rstrip(".")) from None
    except TimeoutError:
        raise ToolError(f"{url} did not answer within {seconds:g} s") from None
    except httpx.TimeoutException:
        raise ToolError(f"{url} did not answer within {seconds:g} s") from None
    except httpx.ConnectError as exc:
        if (refusal := refusal_in(exc)) is not None:
            raise ToolError(str(refusal).rstrip(".")) from None
        if "CERTIFICATE_VERIFY_FAILED" in str(exc):
            raise ToolError(f"the certificate of {url} could not be verified") from None
        raise ToolError(f"could not connect to {url} (refused or unreachable)") from None
    except httpx.HTTPError as exc:
        raise ToolError(f"the request to {url} failed ({type(exc).__name__})") from None
