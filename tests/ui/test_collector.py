"""Garbage collection on the GUI thread: a full collection (which walks every object alive,
a long thread's history included) waits while a reply streams and a moment after, and runs
once the app has been quiet, or after a long enough wait however busy it is."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

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


def test_a_full_collection_waits_while_a_reply_streams(
    qapp: QApplication, low_thresholds: None
) -> None:
    streaming = True
    now = [100.0]
    collector = MainThreadCollector(clock=lambda: now[0])
    try:
        collector.settle(busy=lambda: streaming)
        gone = _old_garbage()
        collector.check()
        assert gone() is not None  # left for later: walking everything would pause the reply
        streaming = False
        now[0] += QUIET_S / 2
        collector.check()
        assert gone() is not None  # the reply's last lines are still being drawn
        now[0] += QUIET_S / 2
        collector.check()
        assert gone() is None
    finally:
        collector.stop()


def test_a_full_collection_waits_only_so_long_for_a_run_that_goes_on(
    qapp: QApplication, low_thresholds: None
) -> None:
    now = [100.0]
    collector = MainThreadCollector(clock=lambda: now[0])
    try:
        collector.settle(busy=lambda: True)
        gone = _old_garbage()
        collector.check()
        now[0] += MOST_WAIT_S - 1
        collector.check()
        assert gone() is not None
        now[0] += 1
        collector.check()
        assert gone() is None
    finally:
        collector.stop()
