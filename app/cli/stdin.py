"""Reading what the user types on the terminal: lines, without blocking the event loop and
without keeping the program alive after Ctrl-C, and bytes that are not text, as U+FFFD."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
import threading
from collections.abc import Callable
from typing import TextIO

__all__ = ["StdinLines", "confirm", "read_line", "stdin_lines", "tolerant_stdin"]


class StdinLines:
    """Reads lines like :func:`input`, straight from a file descriptor (stdin by default).

    Python's own stdin buffer is locked while a read waits; a read still waiting when the
    program exits (after Ctrl-C) would then abort the interpreter. Reading the descriptor
    directly holds no such lock. Bytes that are not valid text become U+FFFD.
    """

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._pending = b""
        self._lock = threading.Lock()

    def __call__(self, prompt: str = "") -> str:
        """Show ``prompt``, then return the next line without its newline; ``EOFError`` at
        the end of input (also when the terminal is gone)."""
        if prompt:
            sys.stdout.write(prompt)
            sys.stdout.flush()
        with self._lock:
            while b"\n" not in self._pending:
                try:
                    chunk = os.read(self._fd, 65536)
                except OSError:  # the terminal went away (EIO after a hang-up): no more input
                    chunk = b""
                if not chunk:
                    line, self._pending = self._pending, b""
                    if not line:
                        raise EOFError
                    return self._decode(line)
                self._pending += chunk
            line, _, self._pending = self._pending.partition(b"\n")
        return self._decode(line)

    @staticmethod
    def _decode(line: bytes) -> str:
        encoding = getattr(sys.stdin, "encoding", None) or "utf-8"
        return line.decode(encoding, "replace")


stdin_lines = StdinLines()
"""The reader of the process's stdin."""


async def read_line(prompt: str, reader: Callable[[str], str] = stdin_lines) -> str:
    """Return ``reader(prompt)`` without blocking the event loop.

    The read runs on a daemon thread rather than the loop's executor: a waiting read cannot
    be cancelled, and an executor thread would keep the program alive after Ctrl-C until the
    user pressed Enter once more. ``EOFError`` and other failures of ``reader`` propagate.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def settle(value: str, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> None:
        value, error = "", None
        try:
            value = reader(prompt)
        except BaseException as exc:  # handed to the awaiting task
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=work, name="parley-input", daemon=True).start()
    return await future


def tolerant_stdin() -> None:
    """Read bytes on stdin that are not valid text as U+FFFD instead of failing on them."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")


async def confirm(question: str, err: TextIO) -> bool:
    """Ask ``question`` on the terminal; no when stdin is no terminal."""
    if not sys.stdin.isatty():
        return False
    err.write(question)
    err.flush()
    try:
        answer = await read_line("")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")
