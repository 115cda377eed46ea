"""Garbage collection on the GUI thread: a collection (a full one walks every object alive,
a long thread's history included) waits while a reply streams and a moment after, and runs
once the app has been quiet, or after a long enough wait however busy it is."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtWidgets import QApplication

from app.ui.collector import MOST_WAIT_S, QUIET_S, MainThreadCollector


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


@pytest.fixture
def low_thresholds() -> Iterator[None]:
    saved = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    yield
    gc.set_threshold(*saved)


def _old_garbage() -> weakref.ref[_Node]:
    """A cycle that lived long enough to reach the oldest generation, then died."""
    node = _Node()
    gc.collect(1)
    gc.collect(1)
    gone = weakref.ref(node)
    del node
    return gone


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clocked(
    qapp: QApplication, low_thresholds: None
) -> Iterator[tuple[MainThreadCollector, _Clock]]:
    clock = _Clock()
    collector = MainThreadCollector(clock=clock)
    yield collector, clock
    collector.stop()


def _young_garbage() -> weakref.ref[_Node]:
    """A cycle that died young."""
    return weakref.ref(_Node())


@pytest.mark.parametrize("garbage", [_old_garbage, _young_garbage])
def test_a_collection_waits_while_a_reply_streams(
    clocked: tuple[MainThreadCollector, _Clock], garbage: Callable[[], weakref.ref[_Node]]
) -> None:
    collector, clock = clocked
    streaming = True
    collector.settle(busy=lambda: streaming)
    gone = garbage()
    collector.check()
    assert gone() is not None  # left for later: walking a long history would pause the reply
    streaming = False
    clock.now += QUIET_S / 2
    collector.check()
    assert gone() is not None  # the reply's last lines are still being drawn
    clock.now += QUIET_S / 2
    collector.check()
    assert gone() is None


def _kept_until_the_longest_wait(
    collector: MainThreadCollector, clock: _Clock, gone: weakref.ref[_Node]
) -> None:
    """``gone`` outlives every check until the collector has waited :data:`MOST_WAIT_S`,
    and is collected then."""
    collector.check()
    clock.now += MOST_WAIT_S - 1
    collector.check()
    assert gone() is not None
    clock.now += 1
    collector.check()
    assert gone() is None


def test_a_full_collection_waits_only_so_long_for_a_run_that_goes_on(
    clocked: tuple[MainThreadCollector, _Clock],
) -> None:
    collector, clock = clocked
    collector.settle(busy=lambda: True)
    _kept_until_the_longest_wait(collector, clock, _old_garbage())


@pytest.fixture
def starting(
    qapp: QApplication, low_thresholds: None
) -> Iterator[tuple[MainThreadCollector, _Clock]]:
    """A collector made as the app makes it, before the window is up."""
    clock = _Clock()
    collector = MainThreadCollector(clock=clock, starting=True)
    yield collector, clock
    collector.stop()


def test_a_starting_collector_collects_nothing_until_the_window_is_up(
    starting: tuple[MainThreadCollector, _Clock],
) -> None:
    collector, clock = starting
    gone = _young_garbage()
    clock.now += QUIET_S * 2
    collector.check()
    assert gone() is not None  # start-up's objects are not walked while the window opens
    collector.settle()  # set aside with them (a few cycles, as start-up makes)
    later = _young_garbage()
    collector.check()
    assert later() is None  # then collections go on as before


def test_a_starting_collector_that_is_never_settled_collects_after_the_longest_wait(
    starting: tuple[MainThreadCollector, _Clock],
) -> None:
    collector, clock = starting
    _kept_until_the_longest_wait(collector, clock, _young_garbage())
