"""Which SQLite bindings this test run's Python has, found without Parley's code: the tests of
sqlite-vec's path run wherever a binding can load extensions and say why they skip where none
can; those of the scan Parley falls back to run where this Python's own ``sqlite3`` cannot."""

from __future__ import annotations

import importlib
import os
import sqlite3
import sys
from pathlib import Path

import pytest

OWN_SQLITE_LOADS_EXTENSIONS = hasattr(sqlite3.Connection, "enable_load_extension")
"""Whether this Python's ``sqlite3`` can load extensions (Debian's can, pyenv's cannot)."""


def _imports(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


SQLEAN_INSTALLED = _imports("sqlean")
"""Whether ``sqlean`` (the dev extra's sqlean.py, whose SQLite loads extensions) is here."""


def skip_unless_sqlite_vec_can_load() -> None:
    """Skip, saying why, when no binding of this Python can load sqlite-vec."""
    if not (OWN_SQLITE_LOADS_EXTENSIONS or SQLEAN_INSTALLED):
        pytest.skip(
            "neither this Python's sqlite3 nor sqlean (pip install sqlean.py, in the dev "
            "extra) can load SQLite extensions: the sqlite-vec path cannot run here"
        )


def skip_unless_own_sqlite_cannot_load() -> None:
    """Skip, saying why, when this Python's own ``sqlite3`` loads extensions: Parley never
    falls back to the scan on it."""
    if OWN_SQLITE_LOADS_EXTENSIONS:
        pytest.skip(
            "this Python's own sqlite3 loads extensions: Parley uses sqlite-vec with it and "
            "never falls back to the scan"
        )


def hide_sqlean(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import sqlean`` fail in this process, as on a Python without sqlean.py."""
    monkeypatch.setitem(sys.modules, "sqlean", None)


def python_path_without_sqlean(folder: Path, python_path: str | None) -> str:
    """A ``PYTHONPATH`` (``python_path`` after ``folder``) under which ``import sqlean`` fails
    in a child process, as on a Python without sqlean.py."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sqlean.py").write_text('raise ImportError("sqlean.py is not installed")\n')
    return os.pathsep.join([str(folder), *([python_path] if python_path else [])])
