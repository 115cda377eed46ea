"""Running a synchronous tool in a thread of its own that never holds the program open.

A sync tool that times out cannot be stopped: its thread can only finish on its own (a read
from a FIFO nobody writes to never does). On the event loop's default executor such a thread
makes ``asyncio.run`` wait for it at shutdown, so the program never exits. Each call here gets
a daemon thread instead: the caller stops waiting at the timeout, and the thread, if it is
still stuck when the program ends, ends with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["run_in_thread"]

T = TypeVar("T")


async def run_in_thread(fn: Callable[..., T], /, **kwargs: Any) -> T:
    """Run ``fn(**kwargs)`` in a new daemon thread, with the caller's context variables, and
    return its result (or raise its exception). Cancelling the caller stops the waiting, not
    the thread."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def settle(setter: Callable[[Any], None], value: Any) -> None:
        if not future.done():  # the caller may have stopped waiting
            setter(value)

    def report(setter: Callable[[Any], None], value: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed while the tool was stuck
            loop.call_soon_threadsafe(settle, setter, value)

    def work() -> None:
        try:
            value = context.run(fn, **kwargs)
        except BaseException as exc:  # handed to the caller, whatever it is
            report(future.set_exception, exc)
        else:
            report(future.set_result, value)

    name = f"tool {getattr(fn, '__name__', 'call')}"
    threading.Thread(target=work, name=name, daemon=True).start()
    return await future
