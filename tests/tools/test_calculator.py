"""The calculator computes arithmetic and refuses everything else, including huge work."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.tools.calculator import calculate, calculator
from tests.tools.helpers import ok, refused


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("1 + 2 * 3", "1 + 2 * 3 = 7"),
        ("(17 * 3.5) / 2", "(17 * 3.5) / 2 = 29.75"),
        ("2 ^ 10", "2 ^ 10 = 1024"),
        ("7 // 2 + 7 % 2", "7 // 2 + 7 % 2 = 4"),
        ("-3 ** 2", "-3 ** 2 = -9"),
        ("sqrt(16) + abs(-2)", "sqrt(16) + abs(-2) = 6"),
        ("round(pi, 4)", "round(pi, 4) = 3.1416"),
        ("max(3, 9, 4)", "max(3, 9, 4) = 9"),
        ("2 ** 100", "2 ** 100 = 1267650600228229401496703205376"),
        ("factorial(20)", "factorial(20) = 2432902008176640000"),
        ("0.1 + 0.2", "0.1 + 0.2 = 0.30000000000000004"),
    ],
)
async def test_arithmetic(expression: str, answer: str) -> None:
    assert await ok(calculator, expression=expression) == answer


@pytest.mark.parametrize(
    ("expression", "why"),
    [
        ("__import__('os').system('true')", "only these functions can be used"),
        ("().__class__", "'().__class__' is not arithmetic"),
        ("open('/etc/passwd')", "only these functions can be used"),
        ("x + 1", "'x' is not arithmetic"),
        ("True + 1", "'True' is not arithmetic"),
        ("'a' * 3", "\"'a'\" is not arithmetic"),
        ("[1] * 3", "'[1]' is not arithmetic"),
        ("lambda: 1", "is not arithmetic"),
        ("1 / 0", "division by zero"),
        ("2 ** 100000", "exponents larger than 10000 are not computed"),
        ("9 ** 9 ** 9", "exponents larger than 10000 are not computed"),
        ("99999 ** 9999", "the result has more than 4300 digits"),
        ("(10 ** 3000) * (10 ** 3000)", "the result has more than 4300 digits"),
        ("factorial(100000)", "factorial is computed only up to 1000"),
        ("1e308 * 10", "the result is too large"),
        ("(-8) ** 0.5", "the result is a complex number"),
        ("sqrt(-1)", "cannot be computed (math domain error)"),
        ("1 +", "'1 +' is not a valid expression"),
        ("", "the expression is empty"),
        ("1+" * 400 + "1", "longer than 500 characters"),
    ],
)
async def test_everything_else_is_refused(expression: str, why: str) -> None:
    said = await refused(calculator, expression=expression)
    assert said.startswith("Tool 'calculator' failed: ")
    assert why in said, said


def test_the_schema_is_one_string() -> None:
    params = calculator.spec.parameters
    assert params["required"] == ["expression"]
    assert params["properties"]["expression"]["type"] == "string"
    assert "sqrt" in params["properties"]["expression"]["description"]


@st.composite
def _expressions(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 3 or draw(st.booleans()):
        return str(draw(st.integers(-1000, 1000)))
    op = draw(st.sampled_from(["+", "-", "*"]))
    return f"({draw(_expressions(depth + 1))} {op} {draw(_expressions(depth + 1))})"


@given(_expressions())
@settings(max_examples=200, deadline=None)
def test_integer_arithmetic_matches_python(expression: str) -> None:
    # the test compares against Python's own arithmetic on text it generated itself
    assert calculate(expression) == eval(expression, {"__builtins__": {}})
