"""What every Parley process sets before its first import of pydantic or Qt."""

from __future__ import annotations

import os

__all__ = ["quiet_start"]


def quiet_start() -> None:
    """Skip work a start-up pays for nothing.

    pydantic looks for plugins the first time it builds a model: it reads the entry points of
    every installed package (``importlib.metadata``, with the ``email`` and ``zipfile``
    modules it imports), some 30 ms of a launch. Parley uses no pydantic plugin, so the
    search is switched off where the user did not set it. (The engine used as a library,
    ``app.core``, leaves this to its host.)
    """
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
