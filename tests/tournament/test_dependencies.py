"""Issue 11 item 9 (the tournament part): dependencies point one way.

experiments -> tracking -> metrics and experiments -> leaderboard -> metrics; neither
tracking nor the leaderboard may import the experiments package, not even for type
hints (they read the results store through `mafia_arena.results_file` and the
tournament through small protocols).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "mafia_arena"


def imported_modules(path: Path) -> set[str]:
    """Every module an import statement of `path` names (absolute or resolved relative)."""
    package = ["mafia_arena", *path.parent.relative_to(PACKAGE).parts]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            names.add(module)
    return names


@pytest.mark.parametrize(
    ("lower", "upper"),
    [("tracking", "experiments"), ("leaderboard", "experiments"), ("tracking", "leaderboard")],
)
def test_lower_layers_do_not_import_upper_ones(lower: str, upper: str) -> None:
    offenders = {
        path.relative_to(PACKAGE).as_posix(): sorted(
            m for m in imported_modules(path) if m.startswith(f"mafia_arena.{upper}")
        )
        for path in sorted((PACKAGE / lower).rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_scan_sees_the_imports_it_forbids() -> None:
    driver = imported_modules(PACKAGE / "experiments" / "driver.py")
    assert "mafia_arena.tracking.uri" in driver
    assert "mafia_arena.leaderboard.tracked" in driver
    assert "mafia_arena.leaderboard.ratings" in imported_modules(
        PACKAGE / "leaderboard" / "tracked.py"
    )
