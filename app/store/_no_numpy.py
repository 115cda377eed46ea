"""Imports sqlite-utils without numpy.

sqlite-utils imports numpy when it is installed (the local model runtime brings it) only to map
numpy scalars to column types; the store never writes numpy values, and numpy's import is a
large part of the window's start-up time. This module is imported before anything else in the
package; a process that has numpy loaded already is left as it is.
"""

import sys

if "numpy" not in sys.modules and "sqlite_utils" not in sys.modules:
    sys.modules["numpy"] = None  # type: ignore[assignment]  # makes `import numpy` fail at once
    try:
        import sqlite_utils  # noqa: F401
    finally:
        del sys.modules["numpy"]
