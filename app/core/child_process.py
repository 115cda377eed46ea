"""Parley's own child processes (the knowledge reader, the math typesetter), started so that
nothing of the program embedding Parley runs again, that stop when Parley stops, and that keep
its offline mode.

A child is a fresh interpreter running Parley's entry with ``--parley-child`` and the
module-level function it serves (``python -m app --parley-child module:function``; in the
packaged app, the bundle's own executable with the same flag, which :mod:`app.__main__`
handles before anything else). No script of the parent's is imported again: multiprocessing's
``spawn`` would run the parent's main script once more in every child, so a script without a
main guard ran twice, and one that started processes at its top level multiplied.

The child talks to the parent over a socket pair wrapped as a multiprocessing
:class:`~multiprocessing.connection.Connection` (pickled messages). Its standard input is a
pipe the parent never writes to: when the parent exits, however it exits (``kill -9``
included), the pipe reads end-of-file and a watchdog thread in the child ends it at once,
busy or not; it also ends when the child is handed to another parent. At start the child caps
its own memory (its address space, ``RLIMIT_AS``) when asked, so a hostile file makes it fail
alone, and installs the network gate refusing other computers when the parent is offline.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["CHILD_FLAG", "Child", "child_main", "gate_offline", "start_child"]

CHILD_FLAG = "--parley-child"
"""The first argument of Parley's entry that makes it a child (see :func:`child_main`)."""

Serve = Callable[["Connection"], None]
"""What a child runs: a module-level function given the child's end of the connection."""

_APP_ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the ``app`` package this parent runs, so the child imports the same."""
_WATCH_S = 1.0


def gate_offline() -> bool:
    """Whether this process's network gate refuses other computers now."""
    from app.core.netgate import GATE

    return GATE.offline


@dataclass(frozen=True)
class _Options:
    target: str
    fd: int
    memory: int | None
    offline: bool


class Child:
    """A running child: its process and whether it was started offline."""

    def __init__(self, popen: subprocess.Popen[bytes], offline: bool) -> None:
        self._popen = popen
        self.offline = offline
        """Whether the child refuses other computers (the parent was offline when it began)."""

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self._popen.pid

    @property
    def exitcode(self) -> int | None:
        """How the child ended (negative: the signal that ended it), or ``None`` if running."""
        return self._popen.poll()

    def is_alive(self) -> bool:
        """Whether the child is still running."""
        return self._popen.poll() is None

    def kill(self) -> None:
        """End the child at once."""
        with contextlib.suppress(OSError):
            self._popen.kill()

    def join(self, timeout: float | None = None) -> None:
        """Wait at most ``timeout`` seconds for the child to end (and reap it)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout)
        if self._popen.poll() is not None and self._popen.stdin is not None:
            with contextlib.suppress(OSError):
                self._popen.stdin.close()  # the watchdog's pipe, once the child is gone

    def stop(self, wait: float = 0.5) -> None:
        """End the child: it is told by its watchdog pipe closing, then killed if it has not
        ended after ``wait`` seconds."""
        if self._popen.stdin is not None:
            with contextlib.suppress(OSError):
                self._popen.stdin.close()
        self.join(wait)
        if self.is_alive():
            self.kill()
            self.join(wait)


def _command(arguments: list[str]) -> list[str]:
    if getattr(sys, "frozen", False):  # the packaged app: its executable is Parley's entry
        return [sys.executable, CHILD_FLAG, *arguments]
    return [sys.executable, "-P", "-m", "app", CHILD_FLAG, *arguments]


def start_child(
    serve: Serve, *, memory: int | None = None, name: str = ""
) -> tuple[Child, Connection]:
    """Start a child running ``serve`` (a module-level function of Parley's) with its memory
    capped at ``memory`` bytes of address space (none when ``None``), offline when this
    process is. Returns the child and the parent's end of the connection. Raises
    :class:`OSError` when no process can be started, :class:`ValueError` when ``serve`` is
    not a module-level function."""
    module, qualname = serve.__module__, serve.__qualname__
    if module == "__main__" or "." in qualname or "<" in qualname:
        raise ValueError(f"{qualname} is not a module-level function a child can import")
    offline = gate_offline()
    ours, theirs = socket.socketpair()
    arguments = [f"{module}:{qualname}", str(theirs.fileno())]
    if memory is not None:
        arguments.append(f"--memory={memory}")
    if offline:
        arguments.append("--offline")
    if name:
        arguments.append(f"--name={name}")
    environ = dict(os.environ)
    if not getattr(sys, "frozen", False):
        path = environ.get("PYTHONPATH", "")
        environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(_APP_ROOT), path) if p)
    try:
        popen = subprocess.Popen(
            _command(arguments),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),),
            env=environ,
            close_fds=True,
        )
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    from multiprocessing.connection import Connection  # loads with the first child

    return Child(popen, offline), Connection(ours.detach())


def _parse(argv: list[str]) -> _Options:
    target, fd, *flags = argv
    memory: int | None = None
    offline = False
    for flag in flags:
        if flag.startswith("--memory="):
            memory = int(flag.removeprefix("--memory="))
        elif flag == "--offline":
            offline = True
    return _Options(target, int(fd), memory, offline)


def _cap_memory(limit: int) -> None:
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _watch_parent() -> None:
    """End this process when the parent does: its pipe on standard input reads end-of-file,
    or this process is handed to another parent."""
    parent = os.getppid()
    stdin = sys.stdin.fileno() if sys.stdin is not None else None
    while True:
        if os.getppid() != parent:
            os._exit(0)
        if stdin is None:
            threading.Event().wait(_WATCH_S)
            continue
        try:
            ready, _, _ = select.select([stdin], [], [], _WATCH_S)
            if ready and not os.read(stdin, 4096):
                os._exit(0)
        except OSError:
            os._exit(0)


def child_main(argv: list[str]) -> int:
    """Run as a child: ``argv`` is what follows :data:`CHILD_FLAG` (the target
    ``module:function``, the connection's descriptor, then ``--memory=BYTES``,
    ``--offline``, ``--name=NAME``). Returns the exit status."""
    options = _parse(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal is the parent's
    threading.Thread(target=_watch_parent, name="parent-watch", daemon=True).start()
    if options.memory is not None:
        _cap_memory(options.memory)
    if options.offline:
        from app.core.netgate import install

        install().offline = True
    module, _, qualname = options.target.partition(":")
    if not module.startswith("app.") or "." in qualname:
        return 2
    serve: Any = getattr(importlib.import_module(module), qualname)
    from multiprocessing.connection import Connection

    conn = Connection(options.fd)
    try:
        serve(conn)
    finally:
        conn.close()
    return 0
