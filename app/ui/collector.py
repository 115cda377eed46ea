"""Python's cyclic garbage collector, run on the GUI thread only.

The collector runs on whichever thread happens to allocate when a threshold is crossed. When
that is a worker thread (the store's, a model's decoding), unreachable Qt objects are destroyed
there, which Qt does not allow and which can crash it. :class:`MainThreadCollector` turns
automatic collection off and runs the same generational collection from a timer on the GUI
thread. Made ``starting``, it collects nothing until the window is up (start-up makes few
cycles, and a collection then would walk every module and widget just made, delaying the
window); once the window is up, what start-up made is set aside (:meth:`settle`), so a full
collection walks only what came after; and collections wait while a reply streams
(:attr:`MainThreadCollector.busy`) and for :data:`QUIET_S` after it: a full one walks every
object alive, and even a young one walks a long thread's history, loaded afresh for each turn,
so either would pause the reply (or its last lines) for as long. Only cycles wait: everything
else is freed as it goes. They wait :data:`MOST_WAIT_S` at most, so a run that goes on and on
still frees its cycles. When quiet, the counts are looked at every :data:`CHECK_MS`.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

__all__ = ["CHECK_MS", "MOST_WAIT_S", "QUIET_S", "MainThreadCollector"]

CHECK_MS = 100
"""How often the generations' counts are looked at (a young collection then takes a few ms)."""
QUIET_S = 2.0
"""How long the app must have been not busy before a collection runs."""
MOST_WAIT_S = 30.0
"""The longest a due collection waits for the app to be quiet."""


class MainThreadCollector(QObject):
    """Collects garbage from a GUI-thread timer while it lives (see the module docstring)."""

    def __init__(
        self,
        parent: QObject | None = None,
        interval_ms: int = CHECK_MS,
        clock: Callable[[], float] = time.monotonic,
        *,
        starting: bool = False,
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._busy_at = float("-inf")
        self._due_at: float | None = None
        self._made_at = clock()
        self._starting = starting
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)
        self._timer.start()
        self.busy: Callable[[], bool] = lambda: False
        """Whether the app is busy (a reply streaming): collections wait until it is not."""

    def check(self) -> None:
        """Collect the generations whose counts are over their thresholds, as Python would,
        once the app has been quiet (see the module docstring)."""
        if self._starting and self._clock() - self._made_at < MOST_WAIT_S:
            return  # what start-up makes is set aside by settle, not walked
        first, second, third = gc.get_count()
        if first <= self._thresholds[0] and third <= self._thresholds[2]:
            return
        if not self._quiet():
            return
        if first > self._thresholds[0]:
            gc.collect(0)
            if second > self._thresholds[1]:
                gc.collect(1)
        if third > self._thresholds[2]:
            gc.collect(2)
        self._due_at = None

    def _quiet(self) -> bool:
        now = self._clock()
        if self.busy():
            self._busy_at = now
        if self._due_at is None:
            self._due_at = now
        return now - self._busy_at >= QUIET_S or now - self._due_at >= MOST_WAIT_S

    def settle(self, busy: Callable[[], bool] | None = None) -> None:
        """Set aside everything alive now (once the window is up: modules, schemas, widgets,
        all living as long as the app), so that later full collections walk only what came
        after and stay short instead of pausing the window for a tenth of a second; ``busy``
        says when collections must wait."""
        gc.freeze()
        self._starting = False
        if busy is not None:
            self.busy = busy

    def stop(self) -> None:
        """Give collection back to Python (with what :meth:`settle` set aside)."""
        self._timer.stop()
        gc.unfreeze()
        if self._was_enabled:
            gc.enable()
