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


MAX_LENGTH = 1000
"""The longest expression a variant may write, in characters.

Why: Python's parser recurses on nesting and on long chains of operators, so a formula of
thousands of characters ends in a `RecursionError` (a traceback) instead of an error
naming the key; no count needs more than a line.
"""


def evaluate(expression: str, names: Mapping[str, float]) -> float:
    """Evaluate `expression` with `names` bound; raise ExpressionError on anything unsafe
    and on arithmetic that has no value (a division by zero, a wrong argument count, an
    overflow, a result that is not a finite number).

    Why the finite check: ``1e308 * 1e308`` is ``inf`` without an error, and the engine
    later turns a count into an ``int``, which would fail in the middle of a game.
    """
    tree = _parse(expression)
    try:
        value = _eval(tree, names)
    except ZeroDivisionError:
        raise ExpressionError("division by zero") from None
    except RecursionError:
        raise ExpressionError("the expression is nested too deeply") from None
    except (TypeError, ValueError, OverflowError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(f"cannot compute ({exc})") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpressionError(f"the value is not a finite number ({value})")
    return value


@lru_cache(maxsize=1024)
def _parse(expression: str) -> ast.expr:
    """The expression's syntax tree; `ExpressionError` for text that is none, is too long
    (`MAX_LENGTH`), nests too deeply for the parser or holds a null character."""
    if len(expression) > MAX_LENGTH:
        raise ExpressionError(
            f"an expression is at most {MAX_LENGTH} characters, got {len(expression)}"
        )
    try:
        return ast.parse(expression, mode="eval").body
    except (SyntaxError, ValueError) as exc:  # ValueError: a null character
        raise ExpressionError(f"not an expression: {expression!r}") from exc
    except (RecursionError, MemoryError):
        raise ExpressionError("the expression is nested too deeply") from None


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
