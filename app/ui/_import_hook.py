"""Keep PySide6's import hook from filling ``linecache`` with the source of every module.

PySide6 replaces ``__import__``: after each import it asks whether the new module mentions
``PySide6`` (to give it PySide's ``__feature__`` switches), and answers by reading the module's
source with ``inspect.getsource``, which keeps every file read in ``linecache``: about 1,000
files, 13 MB of text split into lines. Emptying the cache afterwards frees the lines but not the
memory, which stays scattered among the objects imported meanwhile (17 MB more resident after
importing the window's modules). The same question answered from the file's bytes, read and
dropped at once, gives each module the same answer and keeps nothing.
"""

from __future__ import annotations

import importlib.machinery
import sys
from collections.abc import Callable
from types import ModuleType

__all__ = ["lighten_import_hook"]

_SOURCES = tuple(importlib.machinery.SOURCE_SUFFIXES)


def _reading_bytes(original: Callable[[ModuleType], bool]) -> Callable[[ModuleType], bool]:
    def uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)  # where inspect.getsource looks first
        if not isinstance(path, str) or not path.endswith(_SOURCES):
            return original(module)  # built in, compiled, or in an archive: as before
        try:
            with open(path, "rb") as f:
                return b"PySide6" in f.read()
        except OSError:
            return original(module)

    uses_pyside.lightened = True  # type: ignore[attr-defined]
    return uses_pyside


def lighten_import_hook() -> bool:
    """Load PySide6's support code and make its import hook read sources without caching
    them; ``False`` where this PySide6 has no such hook (nothing is changed then)."""
    import shiboken6  # noqa: F401  - installs the hook and loads its support modules

    feature = sys.modules.get("shibokensupport.feature")
    check = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or not callable(check):
        return False
    if not getattr(check, "lightened", False):
        feature._mod_uses_pyside = _reading_bytes(check)  # type: ignore[attr-defined]
    return True
