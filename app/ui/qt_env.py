"""The process environment Qt is started with."""

from __future__ import annotations

import os

__all__ = ["prepare_qt_environment"]


def prepare_qt_environment() -> None:
    """Set what Qt reads at start, before the first ``QApplication`` exists.

    Qt's raster painter hands any fill taller than about a hundred lines to a pool of threads
    and waits for them, even for a scroll bar's groove: on a machine with two cores that
    handover cost a streaming reply about 3 ms of every update, far more than the fill itself.
    The chat paints text and small shapes, so it paints on its own thread. A value the user set
    is kept.
    """
    os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")
