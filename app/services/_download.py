"""Resumable, checksummed file downloads over HTTP (the way model hubs serve large files).

The hub answers a file URL with a redirect to a content server and publishes the file's SHA-256
in the ``X-Linked-Etag`` header (and its size in ``X-Linked-Size``). Bytes go to ``NAME.part``
next to the target; a cut connection is retried from where it stopped with an HTTP ``Range``
request, and a ``.part`` left by an earlier run is continued the same way. The finished file is
checked against the expected SHA-256 before it takes its final name.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from app.core.errors import UserError

__all__ = ["DownloadError", "Progress", "ProgressCallback", "download_file"]


class DownloadError(UserError):
    """A download could not finish; the message says why and what to do."""


@dataclass(frozen=True)
class Progress:
    """Bytes on disk so far and the file's whole size (None until the server says)."""

    done: int
    total: int | None
    resumed_from: int = 0

    @property
    def fraction(self) -> float | None:
        """Share done, from 0 to 1, when the size is known."""
        return self.done / self.total if self.total else None


ProgressCallback = Callable[[Progress], None]


def _hash_existing(path: Path) -> tuple[hashlib._Hash, int]:
    digest = hashlib.sha256()
    size = 0
    if path.exists():
        with path.open("rb") as f:
            while block := f.read(1 << 20):
                digest.update(block)
                size += len(block)
    return digest, size


def _published_sha(resp: httpx.Response) -> str | None:
    for r in [*resp.history, resp]:
        tag = str(r.headers.get("x-linked-etag", "")).strip().strip('"').lower()
        if len(tag) == 64 and all(c in "0123456789abcdef" for c in tag):
            return tag
    return None


def _total_size(resp: httpx.Response, start: int) -> int | None:
    for r in [*resp.history, resp]:
        if size := r.headers.get("x-linked-size"):
            return int(size)
    if resp.status_code == 206:
        _, _, whole = resp.headers.get("content-range", "").partition("/")
        return int(whole) if whole.isdigit() else None
    length = resp.headers.get("content-length")
    return int(length) + start if length and length.isdigit() else None


async def download_file(
    url: str,
    target: Path,
    *,
    sha256: str | None,
    label: str,
    progress: ProgressCallback | None = None,
    retries: int = 5,
    retry_delay: float = 1.0,
    client: httpx.AsyncClient | None = None,
    check_size: Callable[[int], None] | None = None,
) -> Path:
    """Fetch ``url`` into ``target`` and return it.

    ``sha256`` is the expected digest; when None, the one the server publishes is used, and a
    server that publishes none is refused. ``check_size(remaining_bytes)`` may raise to refuse
    the download once the size is known (e.g. too little disk space).
    """
    part = target.with_name(target.name + ".part")
    target.parent.mkdir(parents=True, exist_ok=True)
    digest, have = await asyncio.to_thread(_hash_existing, part)
    resumed_from = have
    expected = sha256.lower() if sha256 else None
    own = client is None
    http = client or httpx.AsyncClient(follow_redirects=True, timeout=httpx.Timeout(30.0))
    attempt = 0
    try:
        while True:
            before = have
            headers = {"Range": f"bytes={have}-"} if have else {}
            try:
                async with http.stream("GET", url, headers=headers) as resp:
                    expected = expected or _published_sha(resp)
                    if resp.status_code == 416 and have:
                        # the part is already whole (or longer than the file): check it as is
                        break
                    if resp.status_code not in (200, 206):
                        raise DownloadError(
                            f"Could not download {label}: the server answered "
                            f"{resp.status_code} {resp.reason_phrase} for {url}."
                        )
                    if resp.status_code == 200 and have:
                        # the server ignored the range: start again from the first byte
                        digest, have = hashlib.sha256(), 0
                        part.unlink(missing_ok=True)
                    if expected is None:
                        raise DownloadError(
                            f"Could not download {label}: the server publishes no SHA-256 for "
                            "it, so the file could not be checked. Nothing was kept."
                        )
                    total = _total_size(resp, have)
                    if check_size is not None and total is not None:
                        check_size(total - have)
                    with part.open("ab") as out:
                        async for block in resp.aiter_bytes():
                            out.write(block)
                            digest.update(block)
                            have += len(block)
                            if progress is not None:
                                progress(Progress(have, total, resumed_from))
                    if total is not None and have < total:
                        raise httpx.RemoteProtocolError("the connection closed early")
                break
            except (httpx.TransportError, OSError) as exc:
                if isinstance(exc, OSError) and not isinstance(exc, ConnectionError):
                    raise DownloadError(f"Could not write {part}: {exc}.") from exc
                # only cuts in a row without any progress count against the retries
                attempt = 1 if have > before else attempt + 1
                if attempt > retries:
                    raise DownloadError(
                        f"The download of {label} was cut off {retries + 1} times in a row "
                        f"({exc or type(exc).__name__}). {have} bytes are kept; run the same "
                        "download again to continue."
                    ) from exc
                await asyncio.sleep(retry_delay * attempt)
    finally:
        if own:
            await http.aclose()
    got = digest.hexdigest()
    if expected is None:
        raise DownloadError(
            f"Could not check {label}: the server publishes no SHA-256 for it. "
            f"The file was left at {part}."
        )
    if got != expected:
        part.unlink(missing_ok=True)
        raise DownloadError(
            f"The download of {label} was damaged in transit (its SHA-256 is {got[:12]}…, "
            f"the published one {expected[:12]}…), so nothing was kept; try again."
        )
    os.replace(part, target)
    return target
