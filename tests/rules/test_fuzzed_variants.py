"""Broken variant files found by fuzzing the bundled ones: each is refused on load with
the file, the key and the reason, where before it crashed with a traceback or
played a wrong game (every game a draw, a night step that never runs).

The raise sites of the loader have their rows in `test_loader_errors.CASES`; this file
covers what pydantic and the expression evaluator refuse, and a name too long for the
system to look up.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import Any

import pytest

from mafia_arena.rules import VariantError, load_variant
from mafia_arena.rules.expressions import ExpressionError, evaluate
from mafia_arena.rules.loader import build_variant, variant_path

Edit = Callable[[dict[str, Any]], None]


def _document(name: str) -> dict[str, Any]:
    return tomllib.loads(variant_path(name).read_text())


def _refused(name: str, edit: Edit, overrides: dict[str, Any] | None = None) -> VariantError:
    """The error `build_variant` raises for the bundled `name` after `edit`."""
    document = _document(name)
    edit(document)
    with pytest.raises(VariantError) as caught:
        build_variant(document, f"envs/{name}.toml", overrides or {})
    error = caught.value
    assert str(error) == f"envs/{name}.toml: {error.key}: {error.reason}"
    assert "\n" not in str(error) and "Traceback" not in str(error)
    return error


def _set(*path: Any, value: Any) -> Edit:
    def edit(document: dict[str, Any]) -> None:
        node = document
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return edit


LONG_SUM = "n+" * 3000 + "1"
"""Before: `RecursionError` from Python's parser, a traceback."""


@pytest.mark.parametrize(
    ("name", "path", "value", "key", "reason"),
    [
        (
            "classic",
            ("composition", "formula", "detective"),
            LONG_SUM,
            "composition.formula.detective",
            "an expression is at most 1000 characters",
        ),
        (
            "classic",
            ("composition", "bounds", "detective", 1),
            "-" * 990 + "n",
            "composition.bounds.detective",
            "nested too deeply",
        ),
        (  # before: inf passed the load, then int(inf) crashed the game
            "standard",
            ("rules", "max_rounds"),
            "1e308 * 1e308",
            "rules.max_rounds",
            "not a finite number",
        ),
        (  # before: loaded, and the mafia never killed
            "classic",
            ("night", 0, "actors"),
            [],
            "night.0.actors",
            "at least 1 item",
        ),
        (  # before: loaded, and a check reported "ghost", a result nobody reads
            "standard",
            ("factions", "mafia", "appears"),
            "ghost",
            "factions.mafia.appears",
            "'mafia' or 'innocent'",
        ),
        (
            "club",
            ("roles", "don", "appears"),
            "town",
            "roles.don.appears",
            "'mafia' or 'innocent'",
        ),
        (  # before: nan even differs from itself, and the game's log refused its switches
            "palermo",
            ("palermo", "vendetta_above_share"),
            float("nan"),
            "palermo.vendetta_above_share",
            "not a finite number: nan",
        ),
    ],
)
def test_fuzzed_edit_is_refused_with_key_and_reason(
    name: str, path: tuple[Any, ...], value: Any, key: str, reason: str
) -> None:
    error = _refused(name, _set(*path, value=value))
    assert error.key == key
    assert reason in error.reason, error.reason


def test_expressions_refuse_what_has_no_count() -> None:
    for expression in (LONG_SUM, "-" * 990 + "n", "1e308 * 1e308", "n\x00"):
        with pytest.raises(ExpressionError):
            evaluate(expression, {"n": 7})
    assert evaluate("max(1, round(n/4))", {"n": 7}) == 2  # an ordinary count still works


def test_a_variant_name_too_long_for_the_system_is_no_such_variant() -> None:
    """Before: `OSError` (file name too long) from the path lookup, a traceback."""
    with pytest.raises(VariantError) as caught:
        load_variant("a" * 300)
    assert "give a bundled name" in str(caught.value)
