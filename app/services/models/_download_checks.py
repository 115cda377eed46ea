"""What a download may be and what its server says about it, read as hostile input: the
bounds a file must keep (size, first bytes, time) and the checksum and size headers, each
malformed one refused with a sentence instead of an exception."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.errors import UserError

if TYPE_CHECKING:  # the HTTP client loads only when a download starts
    from app.net.http import Arrived

__all__ = [
    "Bounds",
    "DownloadError",
    "Span",
    "announced_span",
    "check_total",
    "kept",
    "not_http",
    "published_sha",
    "shown",
]

_RANGE = re.compile(r"bytes ([0-9]+)-([0-9]+)/([0-9]+|\*)", re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)


class DownloadError(UserError):
    """A download could not finish; the message says why and what to do."""


@dataclass(frozen=True)
class Bounds:
    """What a download may be: at most ``max_bytes`` long, starting with ``magic`` (the
    mark of ``kind``, such as "a GGUF model file"), done within ``seconds``. ``None`` or an
    empty ``magic``: no such bound."""

    max_bytes: int | None = None
    magic: bytes = b""
    kind: str = "the file expected"
    seconds: float | None = None

    def head_fits(self, head: bytes) -> bool:
        """Whether the first bytes of a file (as many as are known) agree with ``magic``."""
        n = min(len(head), len(self.magic))
        return head[:n] == self.magic[:n]


@dataclass(frozen=True)
class Span:
    """Where a reply's bytes go in the file and how long the whole file is (None: unsaid)."""

    start: int
    total: int | None


def shown(value: object, limit: int = 60) -> str:
    """A value from the server, quoted and cut short, safe to put in a sentence."""
    text = repr(str(value))
    return text if len(text) <= limit else text[: limit - 2] + "…'"


def kept(have: int) -> str:
    """What happens to the bytes so far, and what to do: the sentence after the reason."""
    if have:
        return f"{have} bytes are kept; run the same download again to continue."
    return "Try again later."


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


def published_sha(got: Arrived) -> str | None:
    """The SHA-256 the hub publishes for the file (``X-Linked-Etag`` on any hop)."""
    for headers in [*got.hops, got.response.headers]:
        tag = str(headers.get("x-linked-etag", "")).strip().strip('"').lower()
        if len(tag) == 64 and all(c in "0123456789abcdef" for c in tag):
            return tag
    return None


def _size(label: str, header: str, value: str, have: int) -> int:
    if _DIGITS.fullmatch(value.strip()) is None:
        raise DownloadError(
            f"Could not download {label}: the server sent a malformed {header} header "
            f"({shown(value)}). {kept(have)}"
        )
    return int(value)


def announced_span(got: Arrived, have: int, label: str) -> Span:
    """Where the reply's bytes start and the file's whole size, from ``X-Linked-Size``,
    ``Content-Range`` or ``Content-Length``; :class:`DownloadError` for a malformed one or a
    range that does not continue the ``have`` bytes already on disk."""
    resp = got.response
    total = None
    for headers in [*got.hops, resp.headers]:
        if (size := headers.get("x-linked-size")) is not None:
            total = _size(label, "X-Linked-Size", size, have)
            break
    if resp.status_code == 206:
        value = resp.headers.get("content-range", "")
        match = _RANGE.fullmatch(value.strip())
        if match is None:
            raise DownloadError(
                f"Could not download {label}: the server sent a malformed Content-Range header "
                f"({shown(value)}). {kept(have)}"
            )
        if int(match.group(1)) != have:
            raise DownloadError(
                f"Could not download {label}: asked to continue from byte {have}, the server "
                f"sent bytes from {match.group(1)} on. {kept(have)}"
            )
        whole = match.group(3)
        return Span(have, total if total is not None or whole == "*" else int(whole))
    length = resp.headers.get("content-length")
    if total is None and length is not None:
        total = _size(label, "Content-Length", length, have)
    return Span(0, total)


def not_http(exc: BaseException) -> bool:
    """Whether an error while a reply's head was read means the head broke HTTP (a bad
    header, say) rather than the connection closing: the HTTP parser (h11) raised it."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if type(seen).__module__.partition(".")[0] == "h11":
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def check_total(label: str, span: Span, bounds: Bounds, have: int) -> None:
    """Refuse a file whose announced size is beyond ``bounds`` before any byte is written."""
    if bounds.max_bytes is not None and span.total is not None and span.total > bounds.max_bytes:
        raise DownloadError(
            f"Could not download {label}: the server offers {span.total} bytes for it, more "
            f"than the {bounds.max_bytes} it can be. {kept(have)}"
        )
