"""Keep ``None``, ``True`` and ``False`` alive under PySide6 6.12 on Python 3.11.

PySide6 6.12 (stable-ABI wheels) drops one reference to ``None`` every time a wrapped method
that returns nothing is called (``QPen.setWidth``, ``QPainter.setPen``, ``QRect.setX``, …),
and, on some paths while painting, to ``True`` or ``False``.
On Python 3.12+ ``None`` is immortal and this is harmless; on 3.11 its count runs down and
the interpreter aborts with "deallocating None" after a few thousand such calls, e.g. while
scrolling a long thread. Giving ``None`` a reference count no program can run down does what
3.12 does (those three are immortal there).
"""

from __future__ import annotations

import ctypes
import sys

__all__ = ["keep_none_alive"]

_EXTRA = 1 << 60


def keep_none_alive() -> None:
    """Put ``None``, ``True`` and ``False`` out of the leak's reach (CPython before 3.12)."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return
    for singleton in (None, True, False):
        if sys.getrefcount(singleton) < _EXTRA:
            ctypes.c_ssize_t.from_address(id(singleton)).value += _EXTRA
