"""Where the commands write: stdout and stderr, kept safe from what is printed and from a
reader that goes away."""

from __future__ import annotations

import io
import os
import sys
from typing import TextIO

from app.cli.text import printable

__all__ = ["Output"]


class Output(io.TextIOBase):
    """Writes to ``target`` until it goes away (a closed pipe, as in ``parley chat | head``);
    after that, output is dropped, so the turn still finishes and is saved whole. What is
    written shows terminal controls and bidi characters escaped (see
    :func:`app.cli.text.printable`)."""

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self._target = target
        self.lost = False

    def write(self, text: str) -> int:
        """Write ``text``, made printable, if the target is still there."""
        return self.write_control(printable(text, getattr(self._target, "encoding", None)))

    def write_control(self, text: str) -> int:
        """Write ``text`` as it is (Parley's own cursor moves, such as a progress line's
        carriage return) if the target is still there."""
        if not self.lost:
            try:
                self._target.write(text)
            except (OSError, ValueError):
                self._lose()
        return len(text)

    def isatty(self) -> bool:
        """Whether the target is a terminal."""
        return not self.lost and self._target.isatty()

    def flush(self) -> None:
        """Flush the target if it is still there."""
        if not self.lost:
            try:
                self._target.flush()
            except (OSError, ValueError):
                self._lose()

    def _lose(self) -> None:
        self.lost = True
        if self._target is sys.stdout:
            # later writes by others (prompts) and the flush at exit would fail again
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            finally:
                os.close(devnull)
