"""A package whose names load with their first use (PEP 562), for packages whose
``__init__`` gathers names from heavy modules: a process that imports one light module of
the package does not pay for the rest."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, namespace: dict[str, Any], homes: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` (whose globals are ``namespace``):
    each name of ``homes`` (module -> names) is imported from its module when first asked
    for and kept in the package's namespace."""
    home_of = {name: module for module, names in homes.items() for name in names}

    def getattr_(name: str) -> Any:
        home = home_of.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *home_of})

    return getattr_, dir_
