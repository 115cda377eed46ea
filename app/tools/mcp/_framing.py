"""Cutting what a stdio server writes into lines without ever holding more than a bound.

A server writes one JSON-RPC message per line on stdout and free text on stderr. Neither is
trusted to be small: :class:`Lines` hands out whole lines of at most ``limit`` bytes and, for
a longer one, stops keeping its bytes and hands out an :class:`Oversized` with only its ends,
enough to tell which request it answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Lines", "Oversized", "request_id"]

_ENDS = 512
"""Bytes kept of each end of an oversized line."""

_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
_BODY = re.compile(rb'"(result|error|params|method)"\s*:')


@dataclass(frozen=True)
class Oversized:
    """A line longer than the limit: its size and its first and last bytes."""

    size: int
    head: bytes
    tail: bytes


class Lines:
    """Splits a byte stream into lines (without the newline), each at most ``limit`` bytes.

    With ``cut_long`` a longer line comes out in pieces of ``limit`` bytes (for free text);
    without it, as one :class:`Oversized` once its end arrives (for messages).
    """

    def __init__(self, limit: int, *, cut_long: bool = False) -> None:
        self.limit = limit
        self.cut_long = cut_long
        self._buffer = bytearray()
        self._skipped = 0
        self._head = b""
        self._tail = b""

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        """The lines that ``chunk`` completes."""
        out: list[bytes | Oversized] = []
        while chunk:
            if self._skipped:
                end = chunk.find(b"\n")
                piece = chunk if end == -1 else chunk[:end]
                self._skipped += len(piece)
                self._tail = (self._tail + piece)[-_ENDS:]
                if end == -1:
                    return out
                out.append(Oversized(self._skipped, self._head, self._tail))
                self._skipped = 0
                chunk = chunk[end + 1 :]
                continue
            end = chunk.find(b"\n")
            if end == -1:
                self._buffer += chunk
                chunk = b""
            else:
                self._buffer += chunk[:end]
                chunk = chunk[end + 1 :]
            if len(self._buffer) > self.limit:
                out += self._overflow(complete=end != -1)
            elif end != -1:
                out.append(bytes(self._buffer))
                self._buffer.clear()
        return out

    def _overflow(self, *, complete: bool) -> list[bytes | Oversized]:
        data = bytes(self._buffer)
        self._buffer.clear()
        if self.cut_long:
            pieces = [data[i : i + self.limit] for i in range(0, len(data), self.limit)]
            if not complete and len(pieces[-1]) < self.limit:
                self._buffer += pieces.pop()
            return list(pieces)
        if complete:
            return [Oversized(len(data), data[:_ENDS], data[-_ENDS:])]
        self._skipped, self._head, self._tail = len(data), data[:_ENDS], data[-_ENDS:]
        return []

    def rest(self) -> bytes:
        """What came after the last newline (the stream ended in the middle of a line)."""
        data = bytes(self._buffer)
        self._buffer.clear()
        return data


def request_id(line: Oversized) -> int | str | None:
    """The id of the request an oversized message answers, if its ends show it (``None``
    for a request or notification of the server's own)."""
    body = _BODY.search(line.head)
    if body is not None and body[1] in (b"method", b"params"):
        return None
    found = _ID.search(line.head, 0, body.start() if body else len(line.head))
    if found is None:
        matches = list(_ID.finditer(line.tail))
        found = matches[-1] if matches else None
    if found is None:
        return None
    raw = found[1].decode("utf-8", "replace")
    return int(raw) if not raw.startswith('"') else raw[1:-1]
