"""Resumable, checksummed, bounded file downloads over HTTP (the way model hubs serve large
files).

The hub answers a file URL with a redirect to a content server and publishes the file's SHA-256
in the ``X-Linked-Etag`` header (and its size in ``X-Linked-Size``). Every hop goes only to a
public internet address (the web tools' address guard), except the one server the user named.
Bytes go to ``NAME.part`` next to the target; a cut connection is retried from where it stopped
with an HTTP ``Range`` request, and a ``.part`` left by an earlier run is continued the same
way. A download keeps its :class:`Bounds`: never more bytes than the file can have, first bytes
that carry the file kind's mark, and an overall deadline. The finished file is checked against
the expected SHA-256 before it takes its final name.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx

from app.core.netgate import refusal_in
from app.core.tools import ToolError
from app.net.guard import AddressRefused, NetworkPolicy
from app.net.http import (
    USER_AGENT,
    Arrived,
    body_of,
    checked_url,
    follow,
    guarded_client,
    origin,
)
from app.services.models._download_checks import (
    Bounds,
    DownloadError,
    Progress,
    ProgressCallback,
    announced_span,
    check_total,
    kept,
    not_http,
    published_sha,
    shown,
)

__all__ = ["Bounds", "DownloadError", "Progress", "ProgressCallback", "download_file"]

CLIENT_TIMEOUT = 30.0
"""Seconds any one connect, read or write may take (the whole download has its own bound)."""
_PUBLIC = NetworkPolicy()
_UNBOUNDED = Bounds()


class _Discard(DownloadError):
    """The bytes so far cannot be the file: the part goes."""


def _read_existing(path: Path, head_size: int) -> tuple[hashlib._Hash, int, bytes]:
    digest = hashlib.sha256()
    size = 0
    head = b""
    if path.exists():
        with path.open("rb") as f:
            head = f.read(head_size)
            f.seek(0)
            while block := f.read(1 << 20):
                digest.update(block)
                size += len(block)
    return digest, size, head


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:g} second" + ("" if seconds == 1 else "s")
    if seconds < 7200:
        return f"{round(seconds / 60)} minutes"
    return f"{seconds / 3600:.1f} hours"


class _Transfer:
    """One file's bytes on their way into its ``.part``, across requests."""

    def __init__(
        self,
        part: Path,
        label: str,
        bounds: Bounds,
        expected: str | None,
        progress: ProgressCallback | None,
    ) -> None:
        self.part, self.label, self.bounds = part, label, bounds
        self.expected = expected
        self.progress = progress
        self.digest, self.have, self.head = _read_existing(part, len(bounds.magic))
        self.resumed_from = self.have
        too_long = bounds.max_bytes is not None and self.have > bounds.max_bytes
        if self.have and (too_long or not bounds.head_fits(self.head)):
            self.restart()  # a part that cannot be the start of the file

    def restart(self) -> None:
        """Forget the bytes so far and start again from the first one."""
        self.part.unlink(missing_ok=True)
        self.digest, self.have, self.head = hashlib.sha256(), 0, b""
        self.resumed_from = 0

    def not_the_kind(self) -> _Discard:
        """The refusal of bytes that do not start with the kind's mark."""
        mark = self.bounds.magic.decode("latin-1")
        return _Discard(
            f"Could not download {self.label}: the server sent something that is not "
            f"{self.bounds.kind} (it does not start with {mark!r}), so nothing was kept; "
            "try again later."
        )

    async def receive(
        self,
        http: httpx.AsyncClient,
        url: httpx.URL,
        trusted: tuple[str, str, int] | None,
        check_size: Callable[[int], None] | None,
    ) -> None:
        """Send one request and append what arrives; return when the part holds the file."""
        headers = {"User-Agent": USER_AGENT}
        if self.have:
            headers["Range"] = f"bytes={self.have}-"
        opened = False
        try:
            async with follow(
                http, "GET", url, policy=_PUBLIC, headers=headers, trusted=trusted
            ) as got:
                opened = True
                await self._take(got, check_size)
        except httpx.RemoteProtocolError as exc:
            if opened or not not_http(exc):
                raise
            raise DownloadError(
                f"Could not download {self.label}: the server's answer is not valid HTTP "
                f"({shown(exc)}). {kept(self.have)}"
            ) from None

    async def _take(self, got: Arrived, check_size: Callable[[int], None] | None) -> None:
        resp = got.response
        self.expected = self.expected or published_sha(got)
        if resp.status_code == 416 and self.have:
            return  # the part is already whole (or longer than the file): check it as is
        if resp.status_code not in (200, 206):
            raise DownloadError(
                f"Could not download {self.label}: the server answered "
                f"{resp.status_code} {resp.reason_phrase[:60]} for {got.url}."
            )
        if resp.status_code == 200 and self.have:
            self.restart()  # the server ignored the range
        if self.expected is None:
            raise DownloadError(
                f"Could not download {self.label}: the server publishes no SHA-256 for "
                "it, so the file could not be checked. Nothing was kept."
            )
        span = announced_span(got, self.have, self.label)
        check_total(self.label, span, self.bounds, self.have)
        if check_size is not None and span.total is not None:
            check_size(span.total - self.have)
        cap = span.total if span.total is not None else self.bounds.max_bytes
        async with body_of(resp) as blocks:
            await self._write(blocks, span.total, cap)
        if span.total is not None and self.have < span.total:
            raise httpx.RemoteProtocolError("the connection closed early")

    async def _write(
        self, blocks: AsyncIterator[bytes], total: int | None, cap: int | None
    ) -> None:
        with self.part.open("ab") as out:
            async for block in blocks:
                if cap is not None and self.have + len(block) > cap:
                    said = "it announced" if total is not None else "the file can have"
                    raise _Discard(
                        f"Could not download {self.label}: the server sent more than the "
                        f"{cap} bytes {said}, so nothing was kept; try again later."
                    )
                self._check_head(block)
                out.write(block)
                self.digest.update(block)
                self.have += len(block)
                if self.progress is not None:
                    self.progress(Progress(self.have, total, self.resumed_from))

    def _check_head(self, block: bytes) -> None:
        wanted = len(self.bounds.magic) - len(self.head)
        if wanted > 0:
            self.head += block[:wanted]
            if not self.bounds.head_fits(self.head):
                raise self.not_the_kind()

    def finish(self, target: Path) -> Path:
        """Check the whole part (its mark, its SHA-256) and give it the target's name."""
        got = self.digest.hexdigest()
        expected = self.expected
        if expected is None:
            raise DownloadError(
                f"Could not check {self.label}: the server publishes no SHA-256 for it. "
                f"The file was left at {self.part}."
            )
        if len(self.head) < len(self.bounds.magic) or not self.bounds.head_fits(self.head):
            self.part.unlink(missing_ok=True)
            raise self.not_the_kind()
        if got != expected:
            self.part.unlink(missing_ok=True)
            raise DownloadError(
                f"The download of {self.label} was damaged in transit (its SHA-256 is "
                f"{got[:12]}…, the published one {expected[:12]}…), so nothing was kept; "
                "try again."
            )
        os.replace(self.part, target)
        return target


def _checked(url: str, label: str) -> httpx.URL:
    try:
        return checked_url(url)
    except ToolError as exc:
        raise DownloadError(f"Could not download {label}: {exc}.") from None


def _refused(label: str, exc: AddressRefused) -> DownloadError:
    where = str(exc.address)
    if exc.host != where:
        where += f" (the address of {exc.host!r})"
    said = f"the server redirected it to {where}, which" if exc.redirected else where
    return DownloadError(
        f"Could not download {label}: {said} is {exc.why}; downloads go only to public "
        "internet addresses."
    )


async def download_file(
    url: str,
    target: Path,
    *,
    sha256: str | None,
    label: str,
    progress: ProgressCallback | None = None,
    retries: int = 5,
    retry_delay: float = 1.0,
    check_size: Callable[[int], None] | None = None,
    bounds: Bounds = _UNBOUNDED,
    trusted: str | None = None,
) -> Path:
    """Fetch ``url`` into ``target`` and return it.

    ``sha256`` is the expected digest; when None, the one the server publishes is used, and a
    server that publishes none is refused. ``check_size(remaining_bytes)`` may raise to refuse
    the download once the size is known (e.g. too little disk space). ``trusted`` is the URL
    of a server the user named (a mirror): its own origin is reached whatever its address,
    every other hop only at a public one. Every failure is a :class:`DownloadError`.
    """
    start = _checked(url, label)
    mirror = origin(_checked(trusted, label)) if trusted else None
    part = target.with_name(target.name + ".part")
    target.parent.mkdir(parents=True, exist_ok=True)
    expected = sha256.lower() if sha256 else None
    transfer = await asyncio.to_thread(_Transfer, part, label, bounds, expected, progress)
    attempt = 0
    try:
        async with asyncio.timeout(bounds.seconds), guarded_client(CLIENT_TIMEOUT) as http:
            while True:
                before = transfer.have
                try:
                    await transfer.receive(http, start, mirror, check_size)
                    break
                except (httpx.TransportError, OSError) as exc:
                    if (refusal := refusal_in(exc)) is not None:
                        more = f" {kept(transfer.have)}" if transfer.have else ""
                        raise DownloadError(f"{refusal}{more}") from None
                    if isinstance(exc, OSError) and not isinstance(exc, ConnectionError):
                        raise DownloadError(f"Could not write {part}: {exc}.") from exc
                    # only cuts in a row without any progress count against the retries
                    attempt = 1 if transfer.have > before else attempt + 1
                    if attempt > retries:
                        raise DownloadError(
                            f"The download of {label} was cut off {retries + 1} times in a "
                            f"row ({exc or type(exc).__name__}). {kept(transfer.have)}"
                        ) from exc
                    await asyncio.sleep(retry_delay * attempt)
    except TimeoutError:
        raise DownloadError(
            f"The download of {label} did not finish within {_duration(bounds.seconds or 0)}. "
            f"{kept(transfer.have)}"
        ) from None
    except _Discard:
        part.unlink(missing_ok=True)
        raise
    except AddressRefused as exc:
        raise _refused(label, exc) from None
    except ToolError as exc:
        raise DownloadError(f"Could not download {label}: {exc}. {kept(transfer.have)}") from None
    return await asyncio.to_thread(transfer.finish, target)
