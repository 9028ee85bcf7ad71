"""Tiny, safe arithmetic for counts that depend on the player count.

Variant files may write a count as an expression over `n` (players) and the variant's
parameters, e.g. ``"round(0.3*n)"`` or ``"max(1, n//4)"``. Only numbers, names, the four
operators, ``//``, ``%`` and a few pure functions are allowed: no attribute access, no
calls to anything else, so a variant file can never execute code.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from functools import lru_cache

_FUNCTIONS: dict[str, Callable[..., float]] = {
    "round": round,
    "max": max,
    "min": min,
    "int": int,
    "floor": math.floor,
    "ceil": math.ceil,
}
_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}


class ExpressionError(ValueError):
    """The expression uses something outside the allowed arithmetic."""


def evaluate(expression: str, names: Mapping[str, float]) -> float:
    """Evaluate `expression` with `names` bound; raise ExpressionError on anything unsafe
    and on arithmetic that has no value (a division by zero, a wrong argument count)."""
    tree = _parse(expression)
    try:
        return _eval(tree, names)
    except ZeroDivisionError:
        raise ExpressionError("division by zero") from None
    except (TypeError, ValueError, OverflowError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(f"cannot compute ({exc})") from None


@lru_cache(maxsize=1024)
def _parse(expression: str) -> ast.expr:
    try:
        return ast.parse(expression, mode="eval").body
    except SyntaxError as exc:
        raise ExpressionError(f"not an expression: {expression!r}") from exc


def _eval(node: ast.AST, names: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        raise ExpressionError(
            f'a count must be a number or a formula, got the string "{node.value}"'
        )
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ExpressionError(f"unknown name {node.id!r}")
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, names), _eval(node.right, names))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        return _FUNCTIONS[node.func.id](*(_eval(arg, names) for arg in node.args))
    raise ExpressionError(f"unsupported syntax: {ast.dump(node)[:60]}")
