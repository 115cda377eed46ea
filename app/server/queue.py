"""The queue in front of the models: one generation at a time, a bounded number of requests
waiting their turn, and a full queue refused at once (429, with Retry-After) rather than
held."""

from __future__ import annotations

import asyncio

from app.server.errors import ApiError

__all__ = ["RETRY_AFTER", "WAITING", "ModelQueue", "Turn"]

WAITING = 8
"""How many requests may wait for the model while one is answered."""

RETRY_AFTER = 2
"""The seconds a refused client is told to wait before asking again."""


class Turn:
    """One request's place in the queue: :meth:`wait` until it is its turn to generate,
    :meth:`leave` (once, however the request ends) to give the place up."""

    def __init__(self, queue: ModelQueue) -> None:
        self._queue = queue
        self._generating = False
        self._left = False

    async def wait(self) -> None:
        """Return when this request may use the model."""
        await self._queue._running.acquire()
        self._generating = True

    def leave(self) -> None:
        """Give the place (and the model, if it was this request's turn) up."""
        if self._left:
            return
        self._left = True
        self._queue._held -= 1
        if self._generating:
            self._queue._running.release()


class ModelQueue:
    """At most ``running`` generations at once and ``waiting`` requests waiting for one."""

    def __init__(self, waiting: int = WAITING, running: int = 1) -> None:
        self._running = asyncio.Semaphore(running)
        self._limit = running + waiting
        self._held = 0
        self.waiting = waiting

    def enter(self) -> Turn:
        """A place in the queue; an :class:`ApiError` (429) when every place is taken."""
        if self._held >= self._limit:
            raise ApiError(
                429,
                f"The model is busy: {self.waiting} requests are already waiting for it. Try "
                f"again in {RETRY_AFTER} seconds.",
                "rate_limit_error",
                "queue_full",
                headers={"retry-after": str(RETRY_AFTER)},
            )
        self._held += 1
        return Turn(self)
