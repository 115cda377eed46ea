"""How a runner waits between looks: asleep until the next due time, costing next to
nothing, and woken early when something may have changed.

It wakes when a schedule is added or changed in this process (:meth:`IdleWait.wake`), when
the thread database was written by another process (its file or write-ahead log changed
size or time: a schedule added from the terminal, a waiting run answered elsewhere), when
the clock reaches the due time (read every ``poll`` seconds, so a clock that jumps, or a
computer that slept, is noticed), and at the latest after ``longest`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["IdleWait", "StoreWatch"]

Stamp = tuple[tuple[int, int] | None, ...]


class StoreWatch:
    """Whether the database file or its write-ahead log changed since the last check."""

    def __init__(self, database: Path) -> None:
        self._paths = [database, database.with_name(database.name + "-wal")]
        self._seen = self._stamp()

    def _stamp(self) -> Stamp:
        stamps: list[tuple[int, int] | None] = []
        for path in self._paths:
            try:
                found = os.stat(path)
            except OSError:
                stamps.append(None)
                continue
            stamps.append((found.st_mtime_ns, found.st_size))
        return tuple(stamps)

    def changed(self) -> bool:
        """Whether anything was written since the last call (or since made)."""
        stamp = self._stamp()
        if stamp == self._seen:
            return False
        self._seen = stamp
        return True


class IdleWait:
    """The runner's sleep between looks; see the module docstring."""

    def __init__(self, watch: StoreWatch | None, now: Callable[[], float]) -> None:
        self._watch = watch
        self._now = now
        self._woken = asyncio.Event()

    def wake(self) -> None:
        """Cut the sleep short (a schedule changed here, or the runner stops)."""
        self._woken.set()

    def settle(self) -> None:
        """Start a new sleep: what was written and asked so far is seen by the look that
        comes before it."""
        self._woken.clear()
        if self._watch is not None:
            self._watch.changed()

    async def sleep(self, due: float | None, *, poll: float, longest: float) -> str:
        """Sleep until ``due`` (seconds since the epoch on the runner's clock), a change, or
        ``longest`` seconds; why it woke: ``"due"``, ``"woken"``, ``"written"`` or
        ``"long"``."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        while True:
            if self._woken.is_set():
                return "woken"
            if due is not None and self._now() >= due:
                return "due"
            left = longest - (loop.time() - began)
            if left <= 0:
                return "long"
            step = min(poll, left)
            if due is not None:
                step = min(step, max(0.0, due - self._now()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), timeout=step)
            if self._watch is not None and not self._woken.is_set() and self._watch.changed():
                return "written"
