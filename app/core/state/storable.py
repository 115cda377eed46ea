"""What a message or state may hold so it can always be saved, exported and read back:
text that is valid Unicode (no lone surrogates), finite numbers, integers a database can
keep, and nesting of a sane depth."""

from __future__ import annotations

import math
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


def problem_in(value: Any) -> str | None:
    """Describe the first thing in ``value`` that cannot be stored, or return ``None``."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            problem = _text_problem(item)
            if problem:
                return problem
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"a number that is not finite ({item})"
        elif isinstance(item, dict | list | tuple | BaseModel):
            if depth >= MAX_DEPTH:
                return f"values nested more than {MAX_DEPTH} levels deep"
            if isinstance(item, dict):
                stack.extend((k, depth) for k in item)
                stack.extend((v, depth + 1) for v in item.values())
            elif isinstance(item, BaseModel):
                stack.extend((v, depth + 1) for v in item.__dict__.values())
            else:
                stack.extend((v, depth + 1) for v in item)
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
