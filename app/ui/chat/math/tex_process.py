"""``TexProcess``: formulas laid out in a child process, so the window never waits for them.

ziamath is pure Python: laid out on a thread of the app, a page of formulas would hold the
interpreter for hundreds of milliseconds while the window tries to lay its rows out. A child
process (started on the first formula as Parley's own entry, see
:mod:`app.core.child_process`: nothing of a program embedding Parley runs again in it; it
imports only ziamath and :mod:`app.text.formula_child`, no Qt) does it instead and sends
the SVG back; painting it is Qt's work, in the app. The child ends when the app does, even
in the middle of a formula.

A formula that takes longer than its time limit has the child stopped (a new one starts
for the next formula), so nothing runs on. If no child can be started (a Python without
process support, a sandbox), formulas are laid out in the app as before, and the log says why
once.
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import TYPE_CHECKING

from app.core.child_process import Child, gate_offline, start_child
from app.text.formula_child import Request, answer, serve
from app.text.formula_svg import FormulaSvg

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["Request", "TexProcess"]

log = logging.getLogger(__name__)

START_LIMIT = 60.0
"""How long a child may take to start and load ziamath, in seconds (a busy machine)."""


def _stop(process: Child, conn: Connection) -> None:
    conn.close()  # the child reads end-of-file and returns
    process.stop(0.5)


class TexProcess:
    """A child process laying formulas out as SVG, one at a time (any thread may ask)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: Child | None = None
        self._conn: Connection | None = None
        self._finalizer: weakref.finalize[..., TexProcess] | None = None
        self.unavailable = ""
        """Why formulas are laid out in the app instead (empty while a child can be used)."""
        self.started = 0
        """How many children were started (a formula over its time limit costs one)."""

    def svg(self, request: Request, limit: float) -> FormulaSvg | str:
        """The formula of ``request`` laid out, or why it cannot be (one sentence); given up
        after ``limit`` seconds."""
        with self._lock:
            conn = self._child()
            if conn is None:
                return answer(request)
            try:
                conn.send(request)
                if conn.poll(limit):
                    laid: FormulaSvg | str = conn.recv()
                    return laid
            except (EOFError, OSError) as exc:
                log.warning("the typesetting process stopped: %s", exc)
                self._end()
                return "The formula could not be typeset: the typesetter stopped."
            self._end()
            return f"The formula took longer than {limit:g} s."

    def start(self) -> None:
        """Start the child now rather than at the first formula (warming up)."""
        with self._lock:
            self._child()

    def close(self) -> None:
        """Stop the child (a later formula starts another)."""
        with self._lock:
            self._end()

    def _child(self) -> Connection | None:
        if self.unavailable:
            return None
        process = self._process
        if (
            self._conn is not None
            and process is not None
            and process.is_alive()
            and process.offline == gate_offline()
        ):
            return self._conn
        self._end()
        try:
            process, ours = start_child(serve, name="typeset")
        except (OSError, ValueError) as exc:
            self.unavailable = f"The typesetting process could not start: {exc}"
            log.warning("%s; formulas are typeset in the app instead.", self.unavailable)
            return None
        try:
            if not ours.poll(START_LIMIT) or ours.recv() != "ready":
                raise OSError("it did not start in time")
        except (OSError, EOFError) as exc:
            process.join(0.5)
            why = (
                f"it stopped while starting (exit code {process.exitcode})"
                if isinstance(exc, EOFError) or not str(exc)
                else str(exc)
            )
            _stop(process, ours)
            self.unavailable = f"The typesetting process could not start: {why}"
            log.warning("%s; formulas are typeset in the app instead.", self.unavailable)
            return None
        self._process, self._conn = process, ours
        self._finalizer = weakref.finalize(self, _stop, process, ours)
        self.started += 1
        return ours

    def _end(self) -> None:
        if self._finalizer is not None:
            self._finalizer()  # stops the child, once
        self._finalizer = None
        self._process = self._conn = None
