"""Keep PySide6 from reading the source of every module imported after it.

PySide6's import hook (``shibokensupport.feature``) asks of each module imported after Qt
whether it uses PySide, so that its ``__feature__`` switches (``snake_case``,
``true_property``) know which modules they may change. It answers by reading the module's
whole source (``inspect.getsource``) and looking for the word "PySide6": at start-up some 560
files, about 13 MB of text left in Python's line cache, and a tenth of the time to a window.
Parley switches no feature. The same question is answered here from what the module holds
once imported: a module that uses PySide holds a PySide6 (or shiboken6) module, class or
function among its names. A module that names PySide6 only in a string or a comment is no
longer counted, which changes nothing while no feature is switched on.
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["skip_source_scan"]

_QT = ("PySide6", "shiboken6")


def _uses_pyside(module: ModuleType) -> bool:
    try:
        values = list(vars(module).values())
    except TypeError:  # an object without a namespace posing as a module
        return False
    for value in values:
        if isinstance(value, ModuleType):
            name: object = value.__name__
        else:
            try:
                name = getattr(value, "__module__", None)
            except Exception:  # a proxy whose every attribute fails: not PySide's
                continue
        if isinstance(name, str) and name.startswith(_QT):
            return True
    return False


def skip_source_scan() -> None:
    """Answer PySide6's per-import question without reading source files; nothing where
    this PySide6 asks it differently."""
    import shiboken6  # noqa: F401  (installs the hook being changed)

    feature = sys.modules.get("shibokensupport.feature")
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        feature._mod_uses_pyside = _uses_pyside  # type: ignore[attr-defined]
