"""The one event bus every service emits on and every view subscribes to."""

from __future__ import annotations

import logging
from collections.abc import Callable

from app.services.events import WorkspaceEvent

__all__ = ["EventBus", "Listener"]

log = logging.getLogger(__name__)

Listener = Callable[[WorkspaceEvent], None]
"""Called with each event, on the event loop, in the order they were emitted."""


class EventBus:
    """Hands each event to every listener subscribed when it is emitted."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every event from now on; returns the unsubscribe call."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: WorkspaceEvent) -> None:
        """Tell every listener about ``event``; a listener that fails does not stop the others."""
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken view must not break the run
                log.exception("a workspace listener failed on %s", type(event).__name__)
