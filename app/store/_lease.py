"""Which open store is answering a thread right now, so a second one does not start a turn
on top of it.

Each open store has an *owner* token (host, process id, random part). A save whose state is
still running marks the thread with its owner; a save that ends the turn (completed,
interrupted, stopped) clears the mark. Another store's save on a marked thread is refused
while the owner is alive and has saved within :data:`LEASE_SECONDS`: a process that was
killed, a store that was closed, or a run that failed and went quiet frees the thread.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import uuid

__all__ = ["LEASE_SECONDS", "alive", "new_owner", "release_owner"]

LEASE_SECONDS = 300.0
"""A running turn that has not saved for this long no longer keeps others out."""

_HOST = socket.gethostname()
_open: set[str] = set()
_lock = threading.Lock()


def new_owner() -> str:
    """Return a new owner token for a store opened by this process."""
    token = f"{_HOST}:{os.getpid()}:{uuid.uuid4().hex}"
    with _lock:
        _open.add(token)
    return token


def release_owner(token: str) -> None:
    """Forget ``token``: its store is closed, so its marks no longer hold."""
    with _lock:
        _open.discard(token)


def alive(owner: str) -> bool:
    """Whether the store that wrote ``owner`` may still be running a turn."""
    with _lock:
        if owner in _open:
            return True
    host, pid_text, _ = owner.rsplit(":", 2)
    if host != _HOST or sys.platform == "win32":
        return True  # cannot look: the lease time decides
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    if pid == os.getpid():
        return False  # ours, and its store is closed
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True
