"""Starting coroutines from Qt slots: kept alive until done, failures reported, never lost."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["set_failure_reporter", "spawn"]

log = logging.getLogger(__name__)

_running: set[asyncio.Task[Any]] = set()
_reporter: list[Callable[[BaseException], None]] = []


def set_failure_reporter(reporter: Callable[[BaseException], None] | None) -> None:
    """Route failures of spawned tasks to ``reporter`` (the window's notice bar)."""
    _reporter.clear()
    if reporter is not None:
        _reporter.append(reporter)


def _done(task: asyncio.Task[Any]) -> None:
    _running.discard(task)
    if task.cancelled():
        return
    exc = task.exception()
    if exc is None:
        return
    log.error("a window task failed", exc_info=exc)
    for report in _reporter:
        report(exc)


def spawn(coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    """Run ``coro`` on the event loop without waiting for it."""
    task = asyncio.ensure_future(coro)
    _running.add(task)
    task.add_done_callback(_done)
    return task


async def drain(wait_s: float = 5.0) -> None:
    """Wait for the spawned tasks still running (at shutdown and in tests)."""
    if _running:
        await asyncio.wait(list(_running), timeout=wait_s)
