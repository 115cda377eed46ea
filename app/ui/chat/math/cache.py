"""``MathImages``: typeset formulas kept by (source, display, size, colour, pixel ratio), so
the same formula in the same style is typeset once; the least recently used are dropped
beyond a memory budget.

A formula is typeset either at once (:meth:`MathImages.get`, waiting for it) or in the
background (:meth:`MathImages.request`): one worker thread takes the requests in order, and
the GUI thread hands the requests over and picks the finished ones up with
:meth:`MathImages.collect` (a timer's job), so the window never waits for a formula. Either
way ziamath lays the formula out in a child process (:class:`TexProcess`), so it never holds
the interpreter the window needs, and the thread paints the SVG it sends back. A formula that
takes longer than the time limit is kept as a failure.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from app.ui.chat.math.render import TIME_LIMIT, MathStyle, Typeset, paint_formula
from app.ui.chat.math.syntax import MathSource
from app.ui.chat.math.tex_process import TexProcess
from app.ui.theme import LIGHT

__all__ = ["MathImages", "MathKey", "MathStats", "math_images"]

MathKey = tuple[str, bool, MathStyle]
"""What a typeset formula is kept by: its LaTeX (spaces around left out), whether it is
displayed, and its style."""

BUDGET = 48 * 1024 * 1024
"""About how much memory the kept formulas may take (a formula takes some kilobytes)."""


def math_key(source: MathSource, style: MathStyle) -> MathKey:
    """What ``source`` drawn in ``style`` is kept by."""
    return (source.tex.strip(), source.display, style)


@dataclass
class MathStats:
    """How a cache was used: formulas typeset (``renders``, failed ones included),
    answers from the cache (``hits``), and typesettings that failed (``failures``)."""

    renders: int = 0
    hits: int = 0
    failures: int = 0


class MathImages:
    """Typeset formulas, each typeset once; see the module's description."""

    def __init__(
        self,
        budget: int = BUDGET,
        time_limit: float = TIME_LIMIT,
        process: TexProcess | None = None,
    ) -> None:
        self.process = TexProcess() if process is None else process
        """The child process formulas are laid out in."""
        self._kept: OrderedDict[MathKey, Typeset] = OrderedDict()
        self._bytes = 0
        self._budget = budget
        self.time_limit = time_limit
        self.stats = MathStats()
        self._queued: set[MathKey] = set()
        self._requests: queue.Queue[tuple[MathKey, MathSource]] = queue.Queue()
        self._held: list[tuple[MathKey, MathSource]] = []
        self._finished: list[tuple[MathKey, Typeset]] = []
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._worker: threading.Thread | None = None

    def cached(self, source: MathSource, style: MathStyle) -> Typeset | None:
        """``source`` typeset in ``style`` if it was before, else ``None``."""
        key = math_key(source, style)
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            self.stats.hits += 1
        return found

    def get(self, source: MathSource, style: MathStyle) -> Typeset:
        """``source`` typeset in ``style``, from the cache or typeset now (waiting for it)."""
        found = self.cached(source, style)
        if found is not None:
            return found
        result = self._typeset(source, style)
        self._keep(math_key(source, style), result)
        return result

    def _typeset(self, source: MathSource, style: MathStyle) -> Typeset:
        start = time.perf_counter()
        request = (source.tex, source.display, style.size, style.colour)
        try:
            result = paint_formula(self.process.svg(request, self.time_limit), source, style)
        except Exception as exc:  # shown as the source, whatever went wrong
            result = Typeset(None, f"The formula could not be typeset: {type(exc).__name__}.")
        too_slow = time.perf_counter() - start > self.time_limit
        if self.process.unavailable and too_slow and result.image is not None:
            # laid out in the app (no child process), where it cannot be stopped: too slow
            result = Typeset(None, f"The formula took longer than {self.time_limit:g} s.")
        return result

    def warm_up(self) -> None:
        """Start the child process and typeset one formula (its font's tables load on first
        use), so the first formula of a reply is not kept waiting for them."""
        self._typeset(MathSource("\\frac{a}{b}", "$$"), MathStyle(16.0, LIGHT.text, 4.0))

    def request(self, source: MathSource, style: MathStyle) -> MathKey:
        """Have ``source`` typeset in ``style`` in the background (once, however often it is
        asked for): the next :meth:`collect` hands it to the worker, a later one picks it up
        when done. Returns what it is kept by."""
        key = math_key(source, style)
        if key in self._kept or key in self._queued:
            return key
        self._queued.add(key)
        self._held.append((key, source))
        return key

    def _hand_over(self) -> None:
        # the worker gets the requests only now, not as a layout makes them, so that it does
        # not compete with that layout for the interpreter
        if self._worker is None and self._held:
            self._worker = threading.Thread(target=self._work, name="typeset-math", daemon=True)
            self._worker.start()
        for request in self._held:
            self._requests.put(request)
        self._held.clear()

    def collect(self) -> list[MathKey]:
        """Hand the requests made since the last call to the worker, and keep the formulas
        it typeset meanwhile; what they are kept by."""
        self._hand_over()
        with self._lock:
            finished, self._finished = self._finished, []
        for key, result in finished:
            self._queued.discard(key)
            self._keep(key, result)
        return [key for key, _ in finished]

    @property
    def pending(self) -> int:
        """How many requested formulas are not collected yet."""
        return len(self._queued)

    def wait(self, timeout: float = 10.0) -> bool:
        """Block until every request is typeset (for tests and benchmarks); whether they
        were within ``timeout`` seconds."""
        self._hand_over()
        deadline = time.monotonic() + timeout
        with self._idle:
            while len(self._finished) < len(self._queued):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def _work(self) -> None:
        while True:
            key, source = self._requests.get()
            result = self._typeset(source, key[2])
            with self._idle:
                self._finished.append((key, result))
                self._idle.notify_all()

    def _keep(self, key: MathKey, result: Typeset) -> None:
        self.stats.renders += 1
        self.stats.failures += result.image is None
        self._kept[key] = result
        self._bytes += result.size_in_bytes
        while self._bytes > self._budget and len(self._kept) > 1:
            _old, dropped = self._kept.popitem(last=False)
            self._bytes -= dropped.size_in_bytes

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        """Forget every typeset formula and the statistics."""
        self._kept.clear()
        self._bytes = 0
        self.stats = MathStats()


_SHARED: list[MathImages] = []


def math_images() -> MathImages:
    """The cache every chat view of the app shares."""
    if not _SHARED:
        _SHARED.append(MathImages())
    return _SHARED[0]
