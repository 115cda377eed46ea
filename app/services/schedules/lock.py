"""One runner of schedules at a time: an advisory lock (``fcntl.flock``) on
``scheduler.lock`` in the data folder, holding the runner's pid and when it started.

The lock goes with the process however it ends (the kernel drops it), so a runner killed
with SIGKILL leaves nothing to clean up: the next one takes it.
"""

from __future__ import annotations

import fcntl
import os
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO

from app.core.private_files import FILE_MODE

__all__ = ["LOCK_NAME", "RunnerLock", "RunnerTaken"]

LOCK_NAME = "scheduler.lock"


@dataclass(frozen=True)
class RunnerTaken:
    """Another runner holds the lock: its pid and when it started, as it wrote them."""

    pid: int | None
    started: str

    def sentence(self) -> str:
        """Which runner runs the schedules, in one sentence."""
        who = f"pid {self.pid}" if self.pid is not None else "a process"
        since = f", started {self.started}" if self.started else ""
        return f"Schedules are already run by another runner ({who}{since}); this one stops."


class RunnerLock:
    """The runner's lock in ``folder``: :meth:`take` it, :meth:`release` it."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_NAME
        self._file: IO[str] | None = None

    @property
    def held(self) -> bool:
        """Whether this process holds the lock through this object."""
        return self._file is not None

    def take(self, started: datetime) -> RunnerTaken | None:
        """Take the lock, writing this pid and ``started`` in it; ``None`` when taken, or
        who holds it (nothing is changed then)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, FILE_MODE)
        handle = os.fdopen(descriptor, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            said = _holder(handle)
            handle.close()
            pid = int(said[0]) if said and said[0].isdigit() else None
            return RunnerTaken(pid, said[1].strip() if len(said) > 1 else "")
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()} {started.isoformat(timespec='seconds')}\n")
        handle.flush()
        self._file = handle
        return None

    def release(self) -> None:
        """Give the lock up (closing the file drops it)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def _holder(handle: IO[str], wait_s: float = 0.5) -> list[str]:
    """What the lock's holder wrote (its pid and start), split once; the holder writes it just
    after taking the lock, so a runner started at the same moment waits a little for it."""
    deadline = time.monotonic() + wait_s
    while True:
        handle.seek(0)
        said = handle.read(200).split(maxsplit=1)
        if said or time.monotonic() >= deadline:
            return said
        time.sleep(0.01)
