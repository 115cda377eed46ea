"""The SQLite binding the knowledge index opens its file with.

Meaning search compares vectors with sqlite-vec, an SQLite extension, which only a binding
that can load extensions can use. This Python's own ``sqlite3`` is used where it can (most
Linux distributions build it so); where it cannot (Python built without
``--enable-loadable-sqlite-extensions``, as pyenv's and some others are by default) and the
``sqlean.py`` package is installed, its ``sqlean`` module is used: the same binding with an
SQLite of its own that loads extensions. Else ``sqlite3`` again, and vectors are compared
by a scan (see :mod:`app.store.knowledge._vectors`).

``sqlean`` is imported by name at run time, so a bundle built without it does not carry it.
"""

from __future__ import annotations

import importlib
import sqlite3
from types import ModuleType

__all__ = ["sqlite_binding"]


def sqlite_binding() -> ModuleType:
    """This Python's ``sqlite3`` when it can load extensions, else ``sqlean`` when it is
    installed, else ``sqlite3``. A connection's errors are the chosen module's (``Error``,
    ``OperationalError``, ``DatabaseError``): ``sqlean``'s are not ``sqlite3``'s."""
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    try:
        return importlib.import_module("sqlean")
    except ImportError:
        return sqlite3
