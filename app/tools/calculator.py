"""A safe ``calculator``: arithmetic parsed with :mod:`ast` and evaluated node by node.

No ``eval``: only numbers, ``+ - * / // % **``, parentheses, a few functions of :mod:`math`
and the constants ``pi``, ``e`` and ``tau`` are accepted. Powers and factorials are bounded, so
no expression can take more than a moment or a great deal of memory.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from app.core.tools import ToolError, tool

__all__ = ["MAX_EXPRESSION_CHARS", "calculate", "calculator"]

MAX_EXPRESSION_CHARS = 500
MAX_EXPONENT = 10_000
MAX_RESULT_DIGITS = 4_300
"""Integers with more digits than this are refused (Python's own printing limit)."""

Number = int | float

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_FUNCTIONS: dict[str, Callable[..., Number]] = {
    "sqrt": math.sqrt,
    "abs": abs,
    "round": round,
    "floor": math.floor,
    "ceil": math.ceil,
    "exp": math.exp,
    "log": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "degrees": math.degrees,
    "radians": math.radians,
    "factorial": math.factorial,
    "min": min,
    "max": max,
}
_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _check_size(value: Number) -> Number:
    if isinstance(value, int) and value.bit_length() > MAX_RESULT_DIGITS * 3.33:
        raise ToolError(f"the result has more than {MAX_RESULT_DIGITS} digits")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("the result is too large (or not a number)")
    return value


def _power(base: Number, exponent: Number) -> Number:
    if abs(exponent) > MAX_EXPONENT:
        raise ToolError(f"exponents larger than {MAX_EXPONENT} are not computed")
    # an integer power has about bit_length * exponent bits: refuse it before computing it
    if (
        isinstance(base, int)
        and isinstance(exponent, int)
        and base.bit_length() * exponent > MAX_RESULT_DIGITS * 3.33
    ):
        raise ToolError(f"the result has more than {MAX_RESULT_DIGITS} digits")
    result: Number | complex = operator.pow(base, exponent)
    if isinstance(result, complex):
        raise ToolError("the result is a complex number (a negative number to a fractional power)")
    return result


def _call(node: ast.Call) -> Number:
    if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS or node.keywords:
        known = ", ".join(sorted(_FUNCTIONS))
        raise ToolError(f"only these functions can be used: {known}")
    args = [_eval(a) for a in node.args]
    if node.func.id == "factorial" and args and args[0] > 1000:
        raise ToolError("factorial is computed only up to 1000")
    return _FUNCTIONS[node.func.id](*args)


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        if isinstance(node.value, bool):
            raise ToolError(f"{str(node.value)!r} is not arithmetic; use numbers")
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            return _check_size(_power(left, right))
        return _check_size(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.Call):
        return _check_size(_call(node))
    shown = ast.unparse(node) if isinstance(node, ast.expr) else type(node).__name__
    raise ToolError(
        f"{shown!r} is not arithmetic; use numbers, + - * / // % ** and parentheses, "
        "functions like sqrt(2), and the constants pi, e and tau"
    )


def calculate(expression: str) -> Number:
    """Evaluate an arithmetic expression; raise :class:`ToolError` for anything else."""
    text = expression.strip().replace("^", "**").replace("×", "*").replace("÷", "/")
    if not text:
        raise ToolError("the expression is empty")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise ToolError(f"{expression!r} is not a valid expression") from None
    try:
        return _eval(tree)
    except ZeroDivisionError:
        raise ToolError("division by zero") from None
    except OverflowError:
        raise ToolError("the result is too large") from None
    except (ValueError, TypeError) as exc:
        raise ToolError(f"{expression!r} cannot be computed ({exc})") from None


@tool(timeout=5)
def calculator(expression: str) -> str:
    """Compute an arithmetic expression exactly, e.g. "(17 * 3.5) / 2" or "sqrt(2) ** 3".

    Args:
        expression: Numbers with + - * / // % ** (or ^) and parentheses; functions sqrt, abs,
            round, floor, ceil, exp, log, log10, log2, sin, cos, tan, factorial, min, max;
            constants pi, e, tau.
    """
    value = calculate(expression)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{expression.strip()} = {int(value)}"
    return f"{expression.strip()} = {value}"
