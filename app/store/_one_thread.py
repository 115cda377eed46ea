"""``OneThread``: a SQLite connection's jobs run on the one thread that opened it, in order,
handed over from any thread (blocking) or from the event loop (awaited)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from app.store.errors import StoreClosedError

__all__ = ["OneThread"]

T = TypeVar("T")


class OneThread:
    """The base of a store that owns one connection on one thread. Subclasses set
    ``_executor`` (one worker), ``_what`` (how errors name it, e.g. "the thread database")
    and ``path``, run each job with the connection in :meth:`_run` and close it in
    :meth:`_close_connection`."""

    _executor: ThreadPoolExecutor
    _what: str
    path: Path

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._closed = False

    def _run(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        raise NotImplementedError

    def _close_connection(self) -> None:
        """Close the connection (run on its thread)."""
        raise NotImplementedError

    def _after_close(self) -> None:
        """What is left to do once the thread has stopped (nothing by default)."""

    def close(self) -> None:
        """Finish queued jobs, close the connection and stop the thread (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            self._executor.submit(self._close_connection).result()
        finally:
            self._executor.shutdown(wait=True)
            self._after_close()

    def _submit(self, fn: Callable[..., T], args: tuple[Any, ...]) -> Future[T]:
        with self._lock:
            if self._closed:
                raise StoreClosedError(f"{self._what} {self.path} is closed", self.path)
            return self._executor.submit(self._run, fn, args)

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(connection, *args)`` on the connection's thread and wait (blocking)."""
        return self._submit(fn, args).result()

    async def acall(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(connection, *args)`` on the connection's thread without blocking the
        event loop."""
        return await asyncio.wrap_future(self._submit(fn, args))
