"""Imports sqlite-utils (and, on demand, sqlite-vec) without numpy.

sqlite-utils imports numpy when it is installed (the local model runtime brings it) only to map
numpy scalars to column types, and sqlite-vec's module only to offer a helper for numpy arrays;
the store uses neither, and numpy's import is a large part of the window's start-up time. This
module is imported before anything else in the package; a process that has numpy loaded
already is left as it is.
"""

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["numpy_held_back"]


@contextlib.contextmanager
def numpy_held_back() -> Iterator[None]:
    """Within it, ``import numpy`` fails at once (unless numpy is loaded already), so a module
    that only offers extras for numpy arrays imports without it."""
    if "numpy" in sys.modules:
        yield
        return
    sys.modules["numpy"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        del sys.modules["numpy"]


if "sqlite_utils" not in sys.modules:
    with numpy_held_back():
        import sqlite_utils  # noqa: F401
