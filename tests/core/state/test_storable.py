"""What a message or state may hold: every place a value can hide is searched."""

from __future__ import annotations

from enum import StrEnum

import pytest

from app.core.state import Message, TextBlock
from app.core.state.storable import MAX_DEPTH, problem_in

SURROGATE = "bad \ud800 text"


class Colour(StrEnum):
    """A ``str`` subclass."""

    RED = "red"


class Ratio(float):
    """A ``float`` subclass."""


def nested(depth: int, make: type[list[object]] | type[dict[str, object]]) -> object:
    value: object = "leaf"
    for _ in range(depth):
        value = [value] if make is list else {"k": value}
    return value


@pytest.mark.parametrize(
    "value",
    [
        {SURROGATE: 1},
        {"k": [1, (2, SURROGATE)]},
        [TextBlock(text=SURROGATE)],
        {"m": Message.model_construct(role="user", content=[], metadata={"x": SURROGATE})},
    ],
)
def test_a_lone_surrogate_is_found_wherever_it_is(value: object) -> None:
    assert "lone surrogate" in (problem_in(value) or "")


def test_numbers_and_kinds() -> None:
    assert "not finite" in (problem_in({"x": [float("inf")]}) or "")
    assert "not finite" in (problem_in([Ratio("nan")]) or "")
    assert problem_in([Colour.RED, "é ok", 1, True, None, 2.5, b"bytes", {1, 2}]) is None


@pytest.mark.parametrize("make", [list, dict])
def test_nesting_deeper_than_the_limit_is_refused(
    make: type[list[object]] | type[dict[str, object]],
) -> None:
    assert problem_in(nested(MAX_DEPTH, make)) is None
    assert "nested more than" in (problem_in(nested(MAX_DEPTH + 1, make)) or "")
