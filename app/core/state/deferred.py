"""Validators built after start-up instead of at import.

Parley's pydantic models are declared with ``defer_build=True``: a launch imports some 60
models and validates with a handful, and building the rest at import cost the window about a
tenth of its start. A validator is built the first time its model is used; this module lets a
front end build the remaining ones once it is idle, so that the first turn does not pay for
them either.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from app.core.state.serde import BLOCKS, MESSAGES

__all__ = ["build_deferred"]


def _models(base: type[BaseModel]) -> Iterator[type[BaseModel]]:
    for cls in base.__subclasses__():
        yield cls
        yield from _models(cls)


def build_deferred(package: str = "app.") -> Iterator[str]:
    """Build each not yet built validator of the models in ``package`` (and the message
    adapters), one at a time, yielding the name of each after it is built, so that a caller
    on an event loop can let other work run in between."""
    for adapter, name in ((MESSAGES, "messages"), (BLOCKS, "content blocks")):
        if not adapter.pydantic_complete:
            adapter.rebuild()
            yield name
    seen: set[type[BaseModel]] = set()
    for model in list(_models(BaseModel)):
        if model in seen or not model.__module__.startswith(package):
            continue
        seen.add(model)
        if not model.__pydantic_complete__:
            model.model_rebuild()
            yield model.__qualname__
