"""What a message or state may hold so it can always be saved, exported and read back:
text that is valid Unicode (no lone surrogates), finite numbers, integers a database can
keep, and nesting of a sane depth."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ValidationInfo

__all__ = ["INT64", "MAX_DEPTH", "check_storable", "problem_in"]

MAX_DEPTH = 100
"""How deeply lists, dicts and blocks may nest inside one message or state field."""

INT64 = (-(2**63), 2**63 - 1)
"""The integers SQLite stores as numbers: ids and step counts must lie in this range."""


def _text_problem(text: str) -> str | None:
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        return f"a lone surrogate ({ascii(bad)[1:-1]}), which is not valid Unicode text"
    return None


_LEAVES = frozenset({int, bool, type(None)})
"""Kinds of value that are always storable."""


def problem_in(value: Any) -> str | None:
    """Describe the first thing found in ``value`` that cannot be stored, or return ``None``."""
    # a stack of (items, their depth): the items of a container are read in one loop, so a
    # leaf (nearly everything a message holds) costs no push and pop of its own
    stack: list[tuple[Iterable[Any], int]] = [((value,), 0)]
    while stack:
        items, depth = stack.pop()
        for item in items:
            kind = type(item)
            # the exact kinds a message is made of are told by their type first: isinstance
            # of a model is slow, and this walk runs for every message made
            if kind is str:
                if not item.isascii() and (problem := _text_problem(item)):
                    return problem
                continue
            if kind in _LEAVES:
                continue
            if kind is float:
                if not math.isfinite(item):
                    return f"a number that is not finite ({item})"
                continue
            if kind is not dict and kind is not list:
                if isinstance(item, str):
                    if problem := _text_problem(item):
                        return problem
                    continue
                if isinstance(item, float):
                    if not math.isfinite(item):
                        return f"a number that is not finite ({item})"
                    continue
            if kind is dict or isinstance(item, dict):
                if depth >= MAX_DEPTH:
                    return f"values nested more than {MAX_DEPTH} levels deep"
                stack.append((item.keys(), depth))
                stack.append((item.values(), depth + 1))
            elif kind is not list and isinstance(item, BaseModel):
                if depth >= MAX_DEPTH:
                    return f"values nested more than {MAX_DEPTH} levels deep"
                stack.append((item.__dict__.values(), depth + 1))
            elif kind is list or isinstance(item, list | tuple):
                if depth >= MAX_DEPTH:
                    return f"values nested more than {MAX_DEPTH} levels deep"
                stack.append((item, depth + 1))
    return None


def check_storable(model: BaseModel, info: ValidationInfo | None = None) -> None:
    """Raise ``ValueError`` (a validation error in pydantic) when ``model`` holds something
    that could not be saved. JSON input is already checked by the parser, so only Python
    input is walked."""
    if info is not None and info.mode == "json":
        return
    problem = problem_in(list(model.__dict__.values()))
    if problem is not None:
        raise ValueError(f"it holds {problem}")
